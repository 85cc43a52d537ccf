//! The integration tests of the command-line tools (`spv2retro-cli`), as one test binary: each
//! file of this folder is a module of it. They run the binaries (`CARGO_BIN_EXE_*`) in
//! directories of their own, never changing this process's current directory or environment.

mod api;
mod cli;
mod playground;
mod spv2pica;
