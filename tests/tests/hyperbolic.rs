//! GLSL's hyperbolic functions (GLSL.std.450 Sinh … Atanh), computed from `ex2`/`lg2`, `rcp`
//! and `sqrt`: compiled from GLSL through the library for the PICA200 and every AGAL profile,
//! run in the simulators, and compared with Rust's f64 functions.

use backend_agal::Program;
use backend_agal::sim::{FragmentInputs, VertexInputs, run_fragment, run_vertex};
use backend_pica::sim::{Simulator, Uniforms};
use spv2retro::{Compiled, Options, Source, Stage, compile};
use tests::driven::{AGAL_PROFILES, literal_constants, register_number as number};
use tests::mirtest::Rng;

/// Eight functions of the four lanes of `a`, in two vec4s.
const BODY: &str = "
    vec4 r1 = vec4(sinh(a.x), cosh(a.y), tanh(a.z), asinh(a.w));
    vec4 r2 = vec4(acosh(1.0 + a.x * a.x), atanh(a.y * 0.35), tanh(a.x * 30.0), sinh(a.zw).y);
";

fn expected(a: [f32; 4]) -> [[f64; 4]; 2] {
    let [x, y, z, w] = a.map(f64::from);
    [
        [x.sinh(), y.cosh(), z.tanh(), w.asinh()],
        [
            (1.0 + x * x).acosh(),
            (y * 0.35).atanh(),
            (x * 30.0).tanh(),
            w.sinh(),
        ],
    ]
}

/// Locations 0 and 4: the PICA200's default semantics there (colour, normalquat) carry all
/// four lanes.
fn vertex_shader() -> String {
    format!(
        "#version 450\nlayout(location = 0) in vec4 a;\nlayout(location = 0) out vec4 o1;\n\
         layout(location = 4) out vec4 o2;\nvoid main() {{{BODY}    o1 = r1;\n    o2 = r2;\n    \
         gl_Position = a;\n}}\n"
    )
}

/// One fragment shader per result vector (one colour output each).
fn fragment_shader(which: usize) -> String {
    format!(
        "#version 450\nlayout(location = 0) in vec4 a;\nlayout(location = 0) out vec4 color;\n\
         void main() {{{BODY}    color = r{};\n}}\n",
        which + 1
    )
}

fn check(what: &str, a: [f32; 4], got: [f32; 4], want: [f64; 4], tolerance: f64) {
    for (lane, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (f64::from(*g) - w).abs() <= tolerance * w.abs().max(1.0),
            "{what}, lane {lane} of a = {a:?}: {g} vs {w}"
        );
    }
}

fn inputs(seed: u64) -> Vec<[f32; 4]> {
    let mut rng = Rng(seed);
    let mut v: Vec<[f32; 4]> = (0..60).map(|_| rng.lanes(-2.5, 2.5)).collect();
    // Where the formulas could overflow or cancel: large |x|, zero.
    v.push([3.0, -2.5, 12.0, -40.0]);
    v.push([0.0, 0.0, 0.0, 0.0]);
    v.push([-1.0, 2.2, -12.0, 1e-3]);
    v
}

#[test]
fn hyperbolic_functions_on_the_pica200() {
    let c = compile(
        Source::glsl(&vertex_shader(), Stage::Vertex),
        &Options::pica(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let sim = Simulator::new(&c.bytes).unwrap();
    let out_reg = |name: &str| {
        number(
            &c.reflection
                .outputs
                .iter()
                .find(|o| o.name == name)
                .unwrap()
                .register,
        )
    };
    let mut u = Uniforms::default();
    for (slot, v) in u.float.iter_mut().zip(literal_constants(&c)) {
        *slot = v;
    }
    for a in inputs(7) {
        let mut regs = [[0.0f32; 4]; 16];
        regs[number(&c.reflection.inputs[0].register)] = a;
        let out = sim.run(0, &regs, &u).unwrap();
        let want = expected(a);
        // float24: 16 bits of mantissa, through ex2/lg2 and rcp.
        check("PICA o1", a, out.outputs[out_reg("o1")], want[0], 3e-3);
        check("PICA o2", a, out.outputs[out_reg("o2")], want[1], 3e-3);
    }
}

#[test]
fn hyperbolic_functions_in_agal_vertex_and_fragment_programs() {
    for profile in AGAL_PROFILES {
        let options = Options::agal(profile);
        let v = compile(Source::glsl(&vertex_shader(), Stage::Vertex), &options)
            .unwrap_or_else(|e| panic!("{profile:?}: {e}"));
        let vp = Program::decode(&v.bytes).unwrap();
        let fragments: Vec<(Compiled, Program)> = (0..2)
            .map(|k| {
                let f = compile(
                    Source::glsl(&fragment_shader(k), Stage::Fragment),
                    &options.clone().stage(Stage::Fragment),
                )
                .unwrap_or_else(|e| panic!("{profile:?}: {e}"));
                let p = Program::decode(&f.bytes).unwrap();
                (f, p)
            })
            .collect();
        let varying = |c: &Compiled, name: &str| {
            number(
                &c.reflection
                    .outputs
                    .iter()
                    .find(|o| o.name == name)
                    .unwrap()
                    .register,
            )
        };
        for a in inputs(9) {
            let want = expected(a);
            let out = run_vertex(
                &vp,
                &VertexInputs {
                    attributes: &[a],
                    constants: &literal_constants(&v),
                    instance_id: 0,
                },
            )
            .unwrap();
            let what = format!("{profile:?} vertex");
            check(&what, a, out.varyings[varying(&v, "o1")], want[0], 1e-4);
            check(&what, a, out.varyings[varying(&v, "o2")], want[1], 1e-4);
            for (k, (f, p)) in fragments.iter().enumerate() {
                let mut varyings = vec![[0.0f32; 4]; 8];
                varyings[number(&f.reflection.inputs[0].register)] = a;
                let out = run_fragment(
                    p,
                    &varyings,
                    &FragmentInputs {
                        constants: &literal_constants(f),
                        textures: &(),
                    },
                )
                .unwrap();
                let what = format!("{profile:?} fragment r{}", k + 1);
                check(&what, a, out.colors[0], want[k], 1e-4);
            }
        }
    }
}
