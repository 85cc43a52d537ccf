//! GLSL's `modf` and `frexp` (glslang writes `ModfStruct` and `FrexpStruct`) and `ldexp`:
//! the fixtures `tests/fixtures/edge/modf_frexp*` (glslang's SPIR-V and spirv-opt's) compiled
//! through the library for the PICA200 and every AGAL profile, run in the simulators, and
//! compared with values this test computes. (naga's GLSL front end has no `modf`.)

use backend_agal::Program;
use backend_agal::sim::{FragmentInputs, VertexInputs, run_fragment, run_vertex};
use backend_pica::sim::{Simulator, Uniforms};
use spv2retro::{Compiled, Options, Source, Stage, compile};
use tests::driven::{AGAL_PROFILES, literal_constants, register_number as number};
use tests::mirtest::Rng;

/// Rust's view of the five results.
fn expected(a: [f32; 4]) -> [[f64; 4]; 5] {
    let mut out = [[0.0; 4]; 5];
    for (l, &x) in a.iter().enumerate() {
        let x = f64::from(x);
        let m = x * 7.0;
        out[0][l] = m - m.trunc();
        out[1][l] = m.trunc();
        let y = x * 40.0;
        let (s, e) = if y == 0.0 {
            (0.0, 0.0)
        } else {
            let e = y.abs().log2().floor() + 1.0;
            (y / 2f64.powf(e), e)
        };
        out[2][l] = s;
        out[3][l] = e;
        out[4][l] = x * 2f64.powi([3, -2, 0, 5][l]);
    }
    out
}

fn spv(name: &str) -> Vec<u8> {
    let path = tests::fixtures("edge").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// glslang's module and spirv-opt's.
fn variants(stem: &str) -> [(String, Vec<u8>); 2] {
    [format!("{stem}.spv"), format!("{stem}.opt.spv")].map(|n| {
        let bytes = spv(&n);
        (n, bytes)
    })
}

fn inputs() -> Vec<[f32; 4]> {
    let mut rng = Rng(0x40df);
    let mut v: Vec<[f32; 4]> = (0..80).map(|_| rng.lanes(-2.0, 2.0)).collect();
    // Zero, powers of two (frexp's edge: lg2 near an integer), whole numbers for modf.
    v.push([0.0, 0.2, -0.4, 0.8]);
    v.push([0.025, 0.05, -0.1, 1.6]);
    v.push([1.0 / 7.0, -2.0 / 7.0, 3.0 / 7.0, 0.0]);
    v
}

fn check(what: &str, a: [f32; 4], k: usize, got: [f32; 4], want: [f64; 4], tolerance: f64) {
    for l in 0..4 {
        let (g, w) = (f64::from(got[l]), want[l]);
        // modf's parts of a value within rounding of a whole number may go either way.
        let whole_edge = k < 2
            && ((f64::from(a[l]) * 7.0).fract().abs() < 1e-4
                || (f64::from(a[l]) * 7.0).fract().abs() > 1.0 - 1e-4);
        if whole_edge {
            continue;
        }
        assert!(
            (g - w).abs() <= tolerance * w.abs().max(1.0),
            "{what}: r{} lane {l} of a = {a:?}: {g} vs {w}",
            k + 1
        );
    }
}

#[test]
fn modf_frexp_and_ldexp_on_the_pica200() {
    for (name, bytes) in variants("modf_frexp.vert") {
        pica(&name, &bytes);
    }
}

fn pica(name: &str, bytes: &[u8]) {
    let c = compile(Source::spirv(bytes).named(name), &Options::pica())
        .unwrap_or_else(|e| panic!("{e}"));
    let sim = Simulator::new(&c.bytes).unwrap();
    let mut u = Uniforms::default();
    for (slot, v) in u.float.iter_mut().zip(literal_constants(&c)) {
        *slot = v;
    }
    // Five vec4 outputs: the PICA200's default semantics carry some lanes of some (texture
    // coordinates take two or three): check the lanes each output-table entry carries.
    let entries: Vec<(usize, usize, Vec<usize>)> = (0..5)
        .flat_map(|k| {
            let name = format!("o{k}");
            c.reflection
                .outputs
                .iter()
                .filter(move |o| o.name == name)
                .map(move |o| {
                    let lanes = o.mask.chars().map(|ch| "xyzw".find(ch).unwrap()).collect();
                    (k, number(&o.register), lanes)
                })
        })
        .collect();
    assert_eq!(
        entries
            .iter()
            .map(|(k, ..)| *k)
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        5,
        "{:?}",
        c.reflection.outputs
    );
    for a in inputs() {
        let mut regs = [[0.0f32; 4]; 16];
        regs[number(&c.reflection.inputs[0].register)] = a;
        let out = sim.run(0, &regs, &u).unwrap();
        let want = expected(a);
        for (k, r, lanes) in &entries {
            let mut got = out.outputs[*r];
            let mut w = want[*k];
            for l in 0..4 {
                if !lanes.contains(&l) {
                    (got[l], w[l]) = (0.0, 0.0);
                }
            }
            // float24: 16 bits of mantissa.
            check(&format!("PICA200 {name}"), a, *k, got, w, 2e-4);
        }
    }
}

#[test]
fn modf_frexp_and_ldexp_in_agal_programs() {
    for (profile, variant) in AGAL_PROFILES.iter().flat_map(|&p| [(p, 0), (p, 1)]) {
        let options = Options::agal(profile);
        let (_, vbytes) = &variants("modf_frexp.vert")[variant];
        let v =
            compile(Source::spirv(vbytes), &options).unwrap_or_else(|e| panic!("{profile:?}: {e}"));
        let vp = Program::decode(&v.bytes).unwrap();
        let fragments: Vec<(Compiled, Program)> = (0..5)
            .map(|k| {
                let (_, fbytes) = &variants(&format!("modf_frexp_r{}.frag", k + 1))[variant];
                let f = compile(
                    Source::spirv(fbytes),
                    &options.clone().stage(Stage::Fragment),
                )
                .unwrap_or_else(|e| panic!("{profile:?} r{}: {e}", k + 1));
                let p = Program::decode(&f.bytes).unwrap();
                (f, p)
            })
            .collect();
        for a in inputs() {
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
            for (k, want) in want.iter().enumerate() {
                let name = format!("o{k}");
                let o = v
                    .reflection
                    .outputs
                    .iter()
                    .find(|o| o.name == name)
                    .unwrap();
                let what = format!("{profile:?} vertex");
                check(&what, a, k, out.varyings[number(&o.register)], *want, 1e-5);
            }
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
                let what = format!("{profile:?} fragment");
                check(&what, a, k, out.colors[0], want[k], 1e-5);
            }
        }
    }
}

/// The pointer forms (`Modf`, `Frexp` with an out pointer), from hand-written SPIR-V.
#[test]
fn the_pointer_forms_of_modf_and_frexp() {
    let bytes = spv("modf_pointer.spv");
    let mut rng = Rng(0x0d1f);
    let mut cases: Vec<[f32; 4]> = (0..100).map(|_| rng.lanes(-20.0, 20.0)).collect();
    cases.push([-2.5, 3.0, 0.0, 0.0]);
    cases.push([0.25, -0.75, 8.0, -0.375]);
    for profile in AGAL_PROFILES {
        let options = Options::agal(profile).stage(Stage::Fragment);
        let c =
            compile(Source::spirv(&bytes), &options).unwrap_or_else(|e| panic!("{profile:?}: {e}"));
        let p = Program::decode(&c.bytes).unwrap();
        for &a in &cases {
            let [x, y, z, w] = a.map(f64::from);
            let frexp = |v: f64| {
                if v == 0.0 {
                    (0.0, 0.0)
                } else {
                    let e = v.abs().log2().floor() + 1.0;
                    (v / 2f64.powf(e), e)
                }
            };
            let want = [x - x.trunc(), y.trunc(), frexp(z).0, frexp(w).1];
            let mut varyings = vec![[0.0f32; 4]; 8];
            varyings[number(&c.reflection.inputs[0].register)] = a;
            let out = run_fragment(
                &p,
                &varyings,
                &FragmentInputs {
                    constants: &literal_constants(&c),
                    textures: &(),
                },
            )
            .unwrap();
            for (l, &w) in want.iter().enumerate() {
                let g = f64::from(out.colors[0][l]);
                assert!(
                    (g - w).abs() <= 1e-5 * w.abs().max(1.0),
                    "{profile:?} lane {l} of {a:?}: {g} vs {w}"
                );
            }
        }
    }
}
