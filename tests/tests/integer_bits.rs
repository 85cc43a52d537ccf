//! Bitwise `&`, `|`, `^` with a constant operand (and the shifts by constants): integers
//! are carried in floats, so these are whole-number arithmetic (`i & 3` is a mod, other
//! masks a sum of bits). Compiled from GLSL through the library for the PICA200 and every
//! AGAL profile, run in the simulators, and compared with Rust's integer operations,
//! negative values included.

use backend_agal::Program;
use backend_agal::sim::{VertexInputs, run_vertex};
use backend_pica::sim::{Simulator, Uniforms};
use spv2retro::{Compiled, Options, Profile, Source, Stage, compile};
use tests::driven::{literal_constants, register_number as number};
use tests::mirtest::Rng;

const SHADER: &str = "#version 450
layout(location = 0) in vec4 a;
layout(location = 0) out vec4 o1;
layout(location = 4) out vec4 o2;
void main() {
    int i = int(floor(a.x));
    ivec2 j = ivec2(floor(a.yz));
    o1 = vec4(float(i & 3), float(i ^ 1), float(i | 4), float(i & -4));
    ivec2 m = j & ivec2(5, 10);
    o2 = vec4(float(m.x), float(m.y), float((i ^ 6) >> 1), float(3 & (i << 2)));
    gl_Position = a;
}
";

fn expected(a: [f32; 4]) -> [[f64; 4]; 2] {
    let i = f64::from(a[0]).floor() as i64;
    let j = [
        f64::from(a[1]).floor() as i64,
        f64::from(a[2]).floor() as i64,
    ];
    let f = |v: i64| v as f64;
    [
        [f(i & 3), f(i ^ 1), f(i | 4), f(i & -4)],
        [f(j[0] & 5), f(j[1] & 10), f((i ^ 6) >> 1), f(3 & (i << 2))],
    ]
}

fn output(c: &Compiled, name: &str) -> usize {
    number(
        &c.reflection
            .outputs
            .iter()
            .find(|o| o.name == name)
            .unwrap()
            .register,
    )
}

fn cases() -> Vec<[f32; 4]> {
    let mut rng = Rng(0xb175);
    let mut v: Vec<[f32; 4]> = (0..150).map(|_| rng.lanes(-40.0, 40.0)).collect();
    v.push([0.0, -1.0, -0.5, 1.0]);
    v.push([-4.0, 15.0, -16.0, 1.0]);
    v
}

#[test]
fn bitwise_operations_with_a_constant_on_both_targets() {
    let pica = compile(Source::glsl(SHADER, Stage::Vertex), &Options::pica())
        .unwrap_or_else(|e| panic!("{e}"));
    let sim = Simulator::new(&pica.bytes).unwrap();
    let mut u = Uniforms::default();
    for (slot, v) in u.float.iter_mut().zip(literal_constants(&pica)) {
        *slot = v;
    }
    let agal: Vec<(Profile, Compiled, Program)> = [
        Profile::Baseline,
        Profile::Standard,
        Profile::StandardExtended,
    ]
    .into_iter()
    .map(|p| {
        let c = compile(Source::glsl(SHADER, Stage::Vertex), &Options::agal(p))
            .unwrap_or_else(|e| panic!("{p:?}: {e}"));
        let prog = Program::decode(&c.bytes).unwrap();
        (p, c, prog)
    })
    .collect();
    for a in cases() {
        let want = expected(a);
        let mut inputs = [[0.0f32; 4]; 16];
        inputs[number(&pica.reflection.inputs[0].register)] = a;
        let out = sim.run(0, &inputs, &u).unwrap();
        for (k, name) in ["o1", "o2"].iter().enumerate() {
            let got = out.outputs[output(&pica, name)];
            for (l, w) in want[k].iter().enumerate() {
                assert_eq!(
                    f64::from(got[l]),
                    *w,
                    "PICA200 {name}.{l} of {a:?}: {got:?}"
                );
            }
        }
        for (p, c, prog) in &agal {
            let out = run_vertex(
                prog,
                &VertexInputs {
                    attributes: &[a],
                    constants: &literal_constants(c),
                    instance_id: 0,
                },
            )
            .unwrap();
            for (k, name) in ["o1", "o2"].iter().enumerate() {
                let got = out.varyings[output(c, name)];
                for (l, w) in want[k].iter().enumerate() {
                    assert_eq!(f64::from(got[l]), *w, "{p:?} {name}.{l} of {a:?}: {got:?}");
                }
            }
        }
    }
}

#[test]
fn two_computed_operands_are_refused_by_the_integer_rule() {
    let glsl = "#version 450
layout(location = 0) in vec4 a;
void main() {
    int i = int(a.x);
    int j = int(a.y);
    gl_Position = vec4(float(i & j));
}
";
    let e = compile(Source::glsl(glsl, Stage::Vertex), &Options::pica())
        .expect_err("no bitwise and of two computed integers");
    let text = e.to_string();
    assert!(text.contains("error[lower.integer]"), "{text}");
    assert!(text.contains("only with a constant"), "{text}");
}
