//! The integration tests of the `tests` crate, as one test binary: each file of this folder is
//! a module of it (`cargo test -p tests --test integration output_snapshot::` runs one file's).
//! One binary links the libraries once, where a binary per file linked them 56 times. The
//! tests of every file run as threads of one process: none may change what the process shares
//! (the current directory, the environment, a panic hook).

mod agal_bool_flags;
mod agal_codegen;
mod agal_openfl;
mod agal_outputs;
mod agal_padded_matrix;
mod agal_reference;
mod agal_uniform_index;
mod api_source_languages;
mod assembled_sources;
mod assembler;
mod c3d_harness;
mod classic_glsl;
mod classic_glsl_forms;
mod determinism;
mod engine_shaders;
mod frag_coord;
mod fuzz_regressions;
mod generated;
mod generated_glsl;
mod geometry;
mod handwritten_agal;
mod handwritten_pica;
mod handwritten_size;
mod homebrew_example;
mod huge_inputs;
mod hyperbolic;
mod include_shader;
mod instance_index;
mod integer_bits;
mod invalid_corpus;
mod inverse;
mod kept_lanes;
mod loop_breaks;
mod loop_examples;
mod loose_uniforms;
mod lowering_ops;
mod mir_golden;
mod mir_passes;
mod mir_reference;
mod mir_regions;
mod mir_text;
mod modf_frexp;
mod naga_modules;
mod output_snapshot;
mod pica_address_loads;
mod pica_affine;
mod pica_corpus;
mod pica_counts;
mod pica_flags;
mod pica_fragment;
mod pica_input_sums;
mod pica_lane_packing;
mod pica_limits;
mod pica_loops;
mod pica_procedures;
mod pica_reference;
mod pica_reflection;
mod pica_splat_outputs;
mod pipeline_steps;
mod previews;
mod robustness;
mod row_major_text;
mod sampler_arrays;
mod steps_snapshot;
mod switch_fallthrough;
mod tev_oracle;
mod thirdparty_shaders;
mod valid_corpus;
mod valid_edge_cases;
mod valid_shapes;

/// `autotests = false`: a file of `tests/` that is not a module above would never run.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    test_kit::assert_every_test_file_is_a_module(env!("CARGO_MANIFEST_DIR"));
}
