//! What `spv2pica`, `spv2agal` and `spv2retro` share (not a stable API): their options, and
//! the run of one invocation over the library (read the file, [`spv2retro::compile`], write
//! the output), and `spv2retro run` and `preview`. The binaries in `src/bin` only parse
//! their options and call [`driver::run`] or [`tools`]; `spv2retro serve` is the
//! `spv2retro-playground` crate.

pub mod args;
pub mod driver;
pub mod make;
pub mod tools;
pub mod variants;
