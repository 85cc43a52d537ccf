//! The integration tests of the command-line tools (`spv2retro-cli`), as one test binary: each
//! file of this folder is a module of it. They run the binaries (`CARGO_BIN_EXE_*`) in
//! directories of their own, never changing this process's current directory or environment.

mod api;
mod build_routes;
mod cli;
mod guides;
mod openfl;
mod pica_fragment;
mod playground;
mod spv2pica;
mod stage3d;

/// `autotests = false`: a file of `tests/` that is not a module above would never run.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    test_kit::assert_every_test_file_is_a_module(env!("CARGO_MANIFEST_DIR"));
}
