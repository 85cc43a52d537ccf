//! Fuzzer bytes → a generated valid vertex shader (`tests::generate`) → PICA200 compile →
//! simulator, compared with the MIR interpreter on the unoptimised module. A difference
//! beyond f24 rounding is a miscompile; the same check runs bounded in `cargo test`
//! (`tests/tests/generated.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tests::generate::{Bytes, Source, vertex_shader};

fuzz_target!(|data: &[u8]| {
    let mut src = Bytes::new(data);
    let size = 2 + src.below(48) as usize;
    let text = vertex_shader(&mut src, size);
    let words = frontend_spirv::asm::assemble(&text, &Default::default())
        .expect("generated text assembles")
        .words;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let m = tests::mirtest::lower(&bytes).expect("generated shaders are valid");
    let program = match backend_pica::codegen::compile(&m, &Default::default()) {
        Ok(p) => p,
        Err(e) => {
            let text = e.render("gen", None);
            assert!(text.contains("pica.limit"), "{text}");
            return;
        }
    };
    let sim = backend_pica::sim::Simulator::new(&program.bytes).unwrap();
    // Inputs and uniforms on the generator's grid.
    let mut next = || (src.below(65) as i32 - 32) as f32 / 8.0;
    let inputs: Vec<[f32; 4]> = m
        .inputs
        .iter()
        .map(|_| std::array::from_fn(|_| next()))
        .collect();
    let uniforms: Vec<[f32; 4]> = (0..8).map(|_| std::array::from_fn(|_| next())).collect();
    let env = mir::eval::Env {
        inputs: &inputs,
        uniforms: &uniforms,
        bools: &[false; 16],
        textures: &tests::mirtest::Procedural,
    };
    let mir::eval::Outcome::Outputs(want) = mir::eval::run(&m, &env).unwrap() else {
        return;
    };
    let mut regs = [[0.0f32; 4]; 16];
    for (i, (_, input)) in m.inputs.iter().enumerate() {
        regs[input.location as usize] = inputs[i];
    }
    let mut u = backend_pica::sim::Uniforms::default();
    u.float[..8].copy_from_slice(&uniforms);
    let out = sim.run(0, &regs, &u).expect("runs");
    for (k, slot) in program.outputs.iter().enumerate() {
        let Some((reg, mask)) = slot else { continue };
        for l in 0..4 {
            if mask.bits() & (1 << l) != 0 {
                let (w, g) = (want[k][l], out.outputs[*reg as usize][l]);
                assert!((w - g).abs() <= 0.02 + 1e-3 * w.abs(), "{w} vs {g}\n{text}");
            }
        }
    }
});
