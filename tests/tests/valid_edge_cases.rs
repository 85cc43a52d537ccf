//! Valid SPIR-V that once ended in an internal error, a panic or wrong code (the fixtures in
//! `tests/fixtures/edge`, from glslang; `regen.sh` rebuilds them). Each compiles through the
//! library as users call it, and runs in the target's simulator driven by the reflection
//! (uniforms found by name, literal constants uploaded from it), against values this test
//! computes itself; or it is refused under a rule a user can act on, never `*.internal`.

use backend_agal::Profile;
use backend_agal::Program;
use backend_agal::sim::{FragmentInputs, VertexInputs, run_fragment, run_vertex};
use backend_pica::sim::{Simulator, Uniforms};
use spv2retro::{Compiled, Options, Source, compile};
use test_kit::all_close_to;
use tests::mirtest::Rng;

const PROFILES: [Profile; 3] = [
    Profile::Baseline,
    Profile::Standard,
    Profile::StandardExtended,
];

/// Each GLSL fixture as glslang wrote it and after `spirv-opt -O`.
fn variants(name: &str) -> [String; 2] {
    [name.to_string(), format!("{name}.opt")]
}

fn spv(name: &str) -> Vec<u8> {
    let path = tests::fixtures("edge").join(format!("{name}.spv"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn build(name: &str, options: &Options) -> Result<Compiled, spv2retro::Error> {
    compile(Source::spirv(&spv(name)).named(name), options)
}

fn pica(name: &str) -> Compiled {
    build(name, &Options::pica()).unwrap_or_else(|e| panic!("{e}"))
}

fn agal(name: &str, profile: Profile) -> Compiled {
    build(name, &Options::agal(profile)).unwrap_or_else(|e| panic!("{profile:?}: {e}"))
}

/// The rule of the one (first) error compiling `name` gives.
fn refusal(name: &str, options: &Options) -> String {
    let e = build(name, options)
        .err()
        .unwrap_or_else(|| panic!("{name} compiled"));
    let rule = e.diagnostics().0.first().map(|d| d.rule.to_string());
    let rule = rule.unwrap_or_else(|| panic!("{name}: no diagnostic: {e}"));
    assert!(!rule.ends_with(".internal"), "{name}: {e}");
    assert!(!e.to_string().contains("this is a bug"), "{e}");
    rule
}

fn number(register: &str) -> usize {
    let digits = register.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    digits
        .parse()
        .unwrap_or_else(|_| panic!("register {register}"))
}

/// Fills the constant registers: each named uniform's floats in memory order from its first
/// register and component (the fixtures' members are tightly packed), then the literals.
fn constants(c: &Compiled, values: &[(&str, &[f32])]) -> Vec<[f32; 4]> {
    let mut regs = vec![[0.0f32; 4]; 128];
    for (name, floats) in values {
        let u = c
            .reflection
            .uniforms
            .iter()
            .find(|u| u.name == *name)
            .unwrap_or_else(|| panic!("no uniform {name} in {:?}", c.reflection.uniforms));
        let start = number(&u.register) * 4 + usize::from(u.component);
        for (k, v) in floats.iter().enumerate() {
            regs[(start + k) / 4][(start + k) % 4] = *v;
        }
    }
    for k in &c.reflection.constants {
        regs[number(&k.register)] = k.value;
    }
    regs
}

fn input_register(c: &Compiled, name: &str) -> usize {
    let i = c.reflection.inputs.iter().find(|i| i.name == name);
    number(&i.unwrap_or_else(|| panic!("no input {name}")).register)
}

/// Runs a PICA200 program; returns each output register (`o0`…) as written.
fn run_pica(
    c: &Compiled,
    inputs: &[(&str, [f32; 4])],
    uniforms: &[(&str, &[f32])],
) -> Vec<[f32; 4]> {
    let sim = Simulator::new(&c.bytes).expect("the .shbin loads");
    let mut regs = [[0.0f32; 4]; 16];
    for (name, v) in inputs {
        regs[input_register(c, name)] = *v;
    }
    let mut u = Uniforms::default();
    for (slot, v) in u.float.iter_mut().zip(constants(c, uniforms)) {
        *slot = v;
    }
    let out = sim.run(0, &regs, &u).expect("runs");
    assert!(
        out.missing.is_empty(),
        "unwritten outputs {:?}",
        out.missing
    );
    out.outputs.to_vec()
}

/// Runs an AGAL vertex program on attribute `va0` = `a`, the uniforms filled by name.
fn agal_vertex(
    g: &Compiled,
    a: [f32; 4],
    uniforms: &[(&str, &[f32])],
) -> backend_agal::sim::VertexOutput {
    let program = Program::decode(&g.bytes).unwrap();
    run_vertex(
        &program,
        &VertexInputs {
            attributes: &[a],
            constants: &constants(g, uniforms),
            instance_id: 0,
        },
    )
    .unwrap()
}

/// Checks PICA output `name` of `out` (from [`run_pica`]) against `want`.
fn assert_pica_output(c: &Compiled, out: &[[f32; 4]], name: &str, want: &[f32], what: &str) {
    let got = out[pica_output(c, name)];
    assert!(
        all_close_to(&got, want, 1e-3),
        "{what} {name}: {got:?} vs {want:?}\n{}",
        c.listing
    );
}

/// The PICA output register the reflection gives output `name`.
fn pica_output(c: &Compiled, name: &str) -> usize {
    let o = c.reflection.outputs.iter().find(|o| o.name == name);
    number(&o.unwrap_or_else(|| panic!("no output {name}")).register)
}

#[test]
fn a_do_while_false_loop_runs_once_on_both_targets() {
    for name in variants("dowhile_false.vert") {
        let c = pica(&name);
        let mut rng = Rng(11);
        for _ in 0..40 {
            let (a, u0) = (rng.lanes(-2.0, 2.0), rng.lanes(-2.0, 2.0));
            let p: Vec<f32> = (0..4).map(|l| a[l] + u0[l]).collect();
            let want: Vec<f32> = if p[0] > 1.0 {
                p.clone()
            } else {
                p.iter().map(|x| x * 2.0).collect()
            };
            let out = run_pica(&c, &[("a", a)], &[("u0", &u0)]);
            assert_pica_output(&c, &out, "gl_Position", &want, "");
            for profile in PROFILES {
                let g = agal(&name, profile);
                let out = agal_vertex(&g, a, &[("u0", &u0)]);
                assert!(
                    all_close_to(&out.position, &want, 1e-5),
                    "{profile:?}: {:?}",
                    out.position
                );
            }
        }
    }
}

#[test]
fn a_loop_whose_break_condition_is_constant_runs_once() {
    // log2(|cos(1.076)| + 0.5) > -0.315 holds, so the body runs once.
    assert!(((1.076f32).cos().abs() + 0.5).log2() > -0.315);
    for name in variants("early_break_const.vert") {
        let c = pica(&name);
        let mut rng = Rng(12);
        for _ in 0..40 {
            let (a, u0) = (rng.lanes(-2.0, 2.0), rng.lanes(-2.0, 2.0));
            let s1 = rng.float(-1.0, 1.0);
            let target = if 0.0 > s1 {
                [-1.0 - u0[1], -1.0 - u0[3], -1.0 - u0[1]]
            } else {
                [0.5; 3]
            };
            let t: Vec<f32> = target.iter().map(|x| 2.0 + (x - 2.0) * 0.5).collect();
            let want = [t[0], t[1], t[2], 1.0];
            let out = run_pica(&c, &[("a", a)], &[("u0", &u0), ("s1", &[s1])]);
            assert_pica_output(&c, &out, "o0", &want, "");
            for profile in PROFILES {
                let g = agal(&name, profile);
                let out = agal_vertex(&g, a, &[("u0", &u0), ("s1", &[s1])]);
                let v = number(
                    &g.reflection
                        .outputs
                        .iter()
                        .find(|o| o.name == "o0")
                        .unwrap()
                        .register,
                );
                assert!(all_close_to(&out.varyings[v], &want, 1e-5), "{profile:?}");
            }
        }
    }
}

#[test]
fn offsets_and_matrix_strides_are_read_where_the_block_puts_them() {
    // P (push constants, std430): c0 at 0, mat2 m at 16 with MatrixStride 8 (both columns in
    // one register). S (scalar): vec2 s at 0, vec4 b at 8 (straddles two registers), mat2 n
    // at 24 with MatrixStride 8 (straddles too), float f[3] at 40 with ArrayStride 4.
    for name in variants("layouts.vert") {
        let c = pica(&name);
        let mut rng = Rng(13);
        for _ in 0..30 {
            let a = rng.lanes(-2.0, 2.0);
            let c0 = rng.lanes(-2.0, 2.0);
            let m = rng.lanes(-2.0, 2.0); // columns (m0, m1), (m2, m3)
            let s = [rng.float(-2.0, 2.0), rng.float(-2.0, 2.0)];
            let b = rng.lanes(-2.0, 2.0);
            let n = rng.lanes(-2.0, 2.0);
            let fl = [
                rng.float(-2.0, 2.0),
                rng.float(-2.0, 2.0),
                rng.float(-2.0, 2.0),
            ];
            let want0 = [
                m[0] * a[0] + m[2] * a[1] + fl[0],
                m[1] * a[0] + m[3] * a[1] + fl[1],
                n[0] * a[2] + n[2] * a[3] + fl[2],
                n[1] * a[2] + n[3] * a[3],
            ];
            let want_pos = [
                a[0] + c0[0] + b[0] + s[0],
                a[1] + c0[1] + b[1] + s[1],
                a[2] + c0[2] + b[2],
                a[3] + c0[3] + b[3],
            ];
            let uniforms: [(&str, &[f32]); 6] = [
                ("c0", &c0),
                ("m", &m),
                ("s", &s),
                ("b", &b),
                ("n", &n),
                ("f", &fl),
            ];
            let out = run_pica(&c, &[("a", a)], &uniforms);
            for (name, want) in [("o0", want0), ("gl_Position", want_pos)] {
                assert_pica_output(&c, &out, name, &want, "");
            }
            for profile in PROFILES {
                let g = agal(&name, profile);
                let out = agal_vertex(&g, a, &uniforms);
                assert!(all_close_to(&out.position, &want_pos, 1e-5), "{profile:?}");
                let o0 = g.reflection.outputs.iter().find(|o| o.name == "o0");
                let v = number(&o0.unwrap().register);
                assert!(
                    all_close_to(&out.varyings[v], &want0, 1e-5),
                    "{profile:?}: {:?} vs {want0:?}",
                    out.varyings[v]
                );
            }
        }
    }
}

#[test]
fn spec_constant_composite_operations_compile() {
    // m = mat2((2, 1), (1, 1)); e2 = insert(m, m[0][0])[1][1] = 2; sh = (1, 2, 1, 1).
    let c = pica("spec_composite_ops");
    let mut rng = Rng(14);
    for _ in 0..10 {
        let a = rng.lanes(-2.0, 2.0);
        let want = [
            a[0] * 2.0 + 1.0,
            a[1] * 2.0 + 2.0,
            a[2] * 2.0 + 1.0,
            a[3] * 2.0 + 1.0,
        ];
        let regs = {
            let sim = Simulator::new(&c.bytes).unwrap();
            let mut inputs = [[0.0f32; 4]; 16];
            inputs[0] = a;
            sim.run(0, &inputs, &Uniforms::default()).unwrap().outputs
        };
        assert!(
            all_close_to(&regs[0], &want, 1e-3),
            "{:?} vs {want:?}",
            regs[0]
        );
    }
}

/// Runs a fragment program on one fragment.
fn fragment(g: &Compiled, varyings: &[[f32; 4]]) -> backend_agal::sim::FragmentOutput {
    let program = Program::decode(&g.bytes).unwrap();
    let consts = constants(g, &[]);
    run_fragment(
        &program,
        varyings,
        &FragmentInputs {
            constants: &consts,
            textures: &(),
        },
    )
    .unwrap()
}

#[test]
fn scalar_reflect_refract_and_faceforward() {
    let mut rng = Rng(15);
    for (profile, name) in PROFILES
        .iter()
        .flat_map(|&p| variants("scalar_reflect.frag").map(|n| (p, n)))
    {
        let g = agal(&name, profile);
        for _ in 0..40 {
            let v = rng.lanes(-1.0, 1.0);
            let (i, n, eta) = (v[0], v[1], v[2]);
            let reflect = i - 2.0 * n * i * n;
            let k = 1.0 - eta * eta * (1.0 - (n * i) * (n * i));
            let refract = if k < 0.0 {
                0.0
            } else {
                eta * i - (eta * n * i + k.sqrt()) * n
            };
            // faceforward(N, I, Nref) = dot(Nref, I) < 0 ? N : -N, with N = v.x, I = v.y, Nref = v.w.
            let ff = if v[3] * v[1] < 0.0 { v[0] } else { -v[0] };
            let out = fragment(&g, &[v]);
            let want = [reflect, refract, ff, 1.0];
            assert!(
                all_close_to(&out.colors[0], &want, 1e-4),
                "{profile:?}: {:?} vs {want:?}",
                out.colors[0]
            );
        }
    }
}

#[test]
fn programs_without_a_required_output_write_zeros_and_warn() {
    for (name, what) in [
        ("no_position.vert", "gl_Position"),
        ("empty.vert", "gl_Position"),
        ("empty.frag", "colour"),
        ("discard_only.frag", "colour"),
    ] {
        for profile in PROFILES {
            let g = agal(name, profile);
            let w = g.warnings.render(name, None);
            assert!(
                w.contains("warning[agal.unwritten-output]") && w.contains(what),
                "{w}"
            );
            backend_agal::validate(&g.bytes, profile).expect("Flash accepts it");
            let program = Program::decode(&g.bytes).unwrap();
            if name.ends_with(".vert") {
                let out = run_vertex(
                    &program,
                    &VertexInputs {
                        attributes: &[[1.0, 2.0, 3.0, 4.0]],
                        constants: &constants(&g, &[]),
                        instance_id: 0,
                    },
                )
                .unwrap();
                assert_eq!(out.position, [0.0; 4]);
                if name == "no_position.vert" {
                    let v = number(
                        &g.reflection
                            .outputs
                            .iter()
                            .find(|o| o.name == "o")
                            .unwrap()
                            .register,
                    );
                    assert_eq!(out.varyings[v], [2.0, 4.0, 6.0, 8.0]);
                }
            } else {
                let kept = fragment(&g, &[[0.25, 0.0, 0.0, 0.0]]);
                assert!(!kept.discarded);
                assert_eq!(kept.colors[0], [0.0; 4]);
                if name == "discard_only.frag" {
                    assert!(fragment(&g, &[[0.75, 0.0, 0.0, 0.0]]).discarded);
                }
            }
        }
    }
    // The PICA200 needs no output: no warning there.
    assert!(pica("no_position.vert").warnings.0.is_empty());
}

#[test]
fn demote_discards_on_agal() {
    for profile in PROFILES {
        let always = agal("demote_always.frag", profile);
        assert!(
            fragment(&always, &[[0.1, 0.2, 0.3, 0.4]]).discarded,
            "{profile:?}"
        );
        let g = agal("demote.frag", profile);
        let kept = fragment(&g, &[[0.25, 1.0, 0.5, 1.0]]);
        assert!(!kept.discarded);
        assert_eq!(kept.colors[0], [0.25, 1.0, 0.5, 1.0]);
        assert!(fragment(&g, &[[0.75, 1.0, 0.5, 1.0]]).discarded);
        assert!(fragment(&g, &[[0.25, 3.0, 0.5, 1.0]]).discarded);
    }
}

#[test]
fn what_the_targets_cannot_do_is_refused_by_a_rule() {
    for profile in PROFILES {
        let options = Options::agal(profile);
        for v in 0..2 {
            let [dual, shadow, fall] = [
                &variants("dual_source.frag")[v],
                &variants("shadow.frag")[v],
                &variants("switch_fallthrough.frag")[v],
            ];
            assert_eq!(refusal(dual, &options), "agal.dual-source");
            assert_eq!(refusal(shadow, &options), "lower.shadow-sampler");
            // A case falling through into another: AGAL copies the case fallen into
            // (`mir::passes::fallthrough`); every case computes what the PICA's does.
            let g = build(fall, &options).unwrap_or_else(|e| panic!("{fall}: {e}"));
            for k in -1..5 {
                let v = [1.0, 2.0, 3.0, 4.0];
                let want: Vec<f32> = match k {
                    0 | 1 => v.iter().map(|x| x * 2.0).collect(),
                    2 => v.iter().map(|x| (x + 1.0) * 0.5).collect(),
                    3 => v.iter().map(|x| x * 0.5).collect(),
                    _ => vec![0.0; 4],
                };
                let out = fragment(&g, &[v, [k as f32, 0.0, 0.0, 0.0]]);
                assert_eq!(out.colors[0].to_vec(), want, "{fall} {profile:?} k = {k}");
            }
        }
    }
    let e = build("shadow.frag", &Options::agal(Profile::Baseline)).unwrap_err();
    assert_eq!(e.diagnostics().0.len(), 1, "one error, no cascade: {e}");
}

#[test]
fn switch_fall_through_computes_on_the_pica() {
    for name in variants("switch_fallthrough.vert") {
        let c = pica(&name);
        for k in -1..5 {
            let v = [0.5, -1.0, 2.0, 3.0];
            let want: Vec<f32> = match k {
                0 | 1 => v.iter().map(|x| x * 2.0).collect(),
                2 => v.iter().map(|x| (x + 1.0) * 0.5).collect(),
                3 => v.iter().map(|x| x * 0.5).collect(),
                _ => vec![0.0; 4],
            };
            let out = run_pica(&c, &[("v", v), ("kf", [k as f32, 0.0, 0.0, 0.0])], &[]);
            assert_pica_output(&c, &out, "o", &want, &format!("k = {k}:"));
        }
    }
}
