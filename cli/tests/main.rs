//! The integration tests of `spv2retro`, as one test binary: each file of this folder is a
//! module of it.

mod api;
mod glue;

/// `autotests = false`: a file of `tests/` that is not a module above would never run.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    test_kit::assert_every_test_file_is_a_module(env!("CARGO_MANIFEST_DIR"));
}
