//! Bytes → the whole PICA200 compile (front end, lowering, optimiser, code generation,
//! encoding). Any input must give a `.shbin` or diagnostics; a panic, a hang or an
//! out-of-memory is a bug. A `.shbin` we write must read back and run in the simulator.
#![no_main]

use frontend_spirv::entry::{self, Stage};
use frontend_spirv::{Input, Options};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(valid) = frontend_spirv::load(Input::detect(data), &Options::default()) else {
        return;
    };
    let query = entry::Query {
        name: None,
        stage: Some(Stage::Vertex),
        supported: &[Stage::Vertex],
        unsupported_reason: &|_| String::new(),
    };
    let Ok(e) = entry::select(&valid, &query) else {
        return;
    };
    let Ok(m) = frontend_spirv::lower::lower(&valid, &e) else {
        return;
    };
    let Ok(program) = backend_pica::codegen::compile(&m, &Default::default()) else {
        return;
    };
    let sim = backend_pica::sim::Simulator::new(&program.bytes).expect("our .shbin reads back");
    let _ = sim.run(0, &[[0.5; 4]; 16], &backend_pica::sim::Uniforms::default());
});
