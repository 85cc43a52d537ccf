//! Bytes → the whole AGAL compile for every stage the module has, under a profile the first
//! byte picks. Any input must give programs or diagnostics; a panic, a hang or an
//! out-of-memory is a bug. Every program we emit must pass the in-tree Flash validator,
//! decode, and run in the simulator.
#![no_main]

use backend_agal::{Profile, Program};
use frontend_spirv::entry::{self, Stage};
use frontend_spirv::{Input, Options};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, module)) = data.split_first() else {
        return;
    };
    let profile = Profile::ALL[pick as usize % Profile::ALL.len()];
    let Ok(valid) = frontend_spirv::load(Input::detect(module), &Options::default()) else {
        return;
    };
    for stage in [Stage::Vertex, Stage::Fragment] {
        let query = entry::Query {
            name: None,
            stage: Some(stage),
            supported: &[Stage::Vertex, Stage::Fragment],
            unsupported_reason: &|_| String::new(),
        };
        let Ok(e) = entry::select(&valid, &query) else {
            continue;
        };
        let Ok(m) = frontend_spirv::lower::lower(&valid, &e) else {
            continue;
        };
        let options = backend_agal::codegen::Options {
            profile,
            ..Default::default()
        };
        let Ok(compiled) = backend_agal::codegen::compile(&m, &options) else {
            continue;
        };
        if let Err(errors) = backend_agal::validate(&compiled.bytes, profile) {
            panic!("we emitted a program Flash rejects: {errors:?}");
        }
        let program = Program::decode(&compiled.bytes).expect("our bytes decode");
        let constants = vec![[0.5f32; 4]; 256];
        match stage {
            Stage::Vertex => {
                let attributes = [[0.25f32; 4]; 8];
                let inputs = backend_agal::sim::VertexInputs {
                    attributes: &attributes,
                    constants: &constants,
                    instance_id: 0,
                };
                backend_agal::sim::run_vertex(&program, &inputs).expect("our program runs");
            }
            _ => {
                let varyings = [[0.25f32; 4]; 10];
                let inputs = backend_agal::sim::FragmentInputs {
                    constants: &constants,
                    textures: &(),
                };
                let _ = backend_agal::sim::run_fragment(&program, &varyings, &inputs);
            }
        }
    }
});
