//! The integration tests of `preview`, as one test binary: each file of this folder is a
//! module of it. They compile GLSL they hold with the `spv2retro` library and run or draw the
//! programs through their bytes and reflection alone, as the tools do.

mod pica_fragment;

/// `autotests = false`: a file of `tests/` that is not a module above would never run.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    test_kit::assert_every_test_file_is_a_module(env!("CARGO_MANIFEST_DIR"));
}
