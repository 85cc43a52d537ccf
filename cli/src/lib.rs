//! What `spv2pica` and `spv2agal` share: reading the input, loading it through the front end,
//! choosing the entry point, and reporting diagnostics. The binaries in `src/bin` only parse
//! their options and call [`driver::run`].

pub mod args;
pub mod driver;
