//! Loops the optimiser leaves rolled: a counted loop runs as LOOP over its trip count with
//! no test; a loop bounded by a uniform runs as LOOP with BREAKC. Both simulate to what the
//! MIR interpreter computes.

use backend_pica::Inst;
use backend_pica::sim::{Simulator, Uniforms};
use tests::mirtest::{Procedural, Rng, Values, close, lower};

fn vertex(source: &str) -> mir::Module {
    // The library's GLSL input: naga without its WebGPU loop-bounding counter.
    let bytes = spv2retro::spirv_from_glsl(source, spv2retro::Stage::Vertex)
        .unwrap_or_else(|e| panic!("{e}"));
    lower(&bytes).unwrap()
}

/// Compiles `m`, checks its output location 0 against the interpreter on random values, and
/// returns the code.
fn compile_and_compare(m: &mir::Module, small_ints: bool) -> Vec<Inst> {
    let p = backend_pica::codegen::compile(m, &Default::default()).expect("compiles");
    let sim = Simulator::new(&p.bytes).unwrap();
    let k = m
        .outputs
        .iter()
        .position(|o| o.location == Some(0))
        .unwrap();
    let reg = p.outputs[k].unwrap().0 as usize;
    let mut rng = Rng(3);
    for _ in 0..30 {
        let values = Values::random(m, &mut rng, small_ints);
        let env = values.env(&Procedural);
        let mir::eval::Outcome::Outputs(want) = mir::eval::run(m, &env).unwrap() else {
            panic!()
        };
        let mut inputs = [[0.0f32; 4]; 16];
        for (i, (_, input)) in m.inputs.iter().enumerate() {
            inputs[input.location as usize] = values.inputs[i];
        }
        let mut u = Uniforms::default();
        for (slot, v) in u.float.iter_mut().zip(&values.uniforms) {
            *slot = *v;
        }
        let out = sim.run(0, &inputs, &u).unwrap();
        for l in 0..4 {
            assert!(
                close(want[k][l], out.outputs[reg][l], 2e-3),
                "{:?} vs {:?}",
                want[k],
                out.outputs[reg]
            );
        }
    }
    p.code
}

#[test]
fn a_counted_loop_runs_its_count_without_a_test() {
    // Forty trips: more than the optimiser unrolls (32 where that pays).
    let m = vertex(
        "#version 450\nlayout(location=0) in vec4 a;\nlayout(location=0) out vec4 o;\n\
         void main() { vec4 acc = vec4(0.0); vec4 x = a;\n\
         for (int i = 0; i < 40; i++) { x = x * 0.9 + vec4(0.1, 0.2, 0.3, 0.4); acc += x * x; }\n\
         o = acc; gl_Position = a; }",
    );
    let code = compile_and_compare(&m, false);
    assert!(
        code.iter().any(|i| matches!(i, Inst::Loop { .. })),
        "{code:?}"
    );
    assert!(
        !code.iter().any(|i| matches!(i, Inst::BreakC { .. })),
        "{code:?}"
    );
    assert!(
        !code.iter().any(|i| matches!(i, Inst::Cmp { .. })),
        "{code:?}"
    );
}

#[test]
fn a_loop_bounded_by_a_uniform_breaks_out() {
    let m = vertex(
        "#version 450\nlayout(location=0) in vec4 a;\nlayout(location=0) out vec4 o;\n\
         layout(std140, binding=0) uniform U { vec4 count; };\n\
         void main() { vec4 acc = a; for (int i = 0; i < int(count.x); i++) { acc = acc * 0.5 + a; }\n\
         o = acc; gl_Position = a; }",
    );
    let code = compile_and_compare(&m, true);
    // Tested at its top and run a number of times the data says: turned round, a JMPC past
    // it when it makes no trip and one back to its body while the test holds; no LOOP (which
    // would stop it after 256 trips).
    assert!(
        !code.iter().any(|i| matches!(i, Inst::Loop { .. })),
        "{code:?}"
    );
    let backward = code
        .iter()
        .enumerate()
        .any(|(at, i)| matches!(i, Inst::JmpC { target, .. } if (target.addr() as usize) < at));
    assert!(backward, "{code:?}");
}
