//! Bytes → the whole AGAL compile (through the library, as users call it) for each stage,
//! under a profile the first byte picks. Any input must give programs or diagnostics; a
//! panic, a hang or an out-of-memory is a bug. Every program we emit must pass the in-tree
//! Flash validator, decode, and run in the simulator.
#![no_main]

use backend_agal::{Profile, Program};
use libfuzzer_sys::fuzz_target;
use spv2retro::{Options, Source, Stage, compile};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, module)) = data.split_first() else {
        return;
    };
    let profile = Profile::ALL[pick as usize % Profile::ALL.len()];
    for stage in [Stage::Vertex, Stage::Fragment] {
        let options = Options::agal(profile).stage(stage);
        let Ok(compiled) = compile(Source::spirv(module), &options) else {
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
