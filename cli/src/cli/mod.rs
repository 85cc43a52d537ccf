//! What `spv2pica` and `spv2agal` share (not a stable API): their options, and the run of
//! one invocation over the library (read the file, [`crate::compile`], write the output).
//! The binaries in `src/bin` only parse their options and call [`driver::run`].

pub mod args;
pub mod driver;
#[cfg(feature = "playground")]
pub mod tools;
