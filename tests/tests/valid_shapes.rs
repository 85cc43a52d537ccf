//! Valid shaders the compiler once got wrong or refused as if they were bugs or invalid, each
//! found by the generated-program tests (`generated_glsl.rs`) or the peer suites, each run in
//! the simulators through its reflection against values this test computes.

use backend_agal::Program;
use backend_agal::sim::{FragmentInputs, Texture, run_fragment};
use backend_pica::sim::Simulator;
use spv2retro::{ErrorKind, Fault, Options, Profile, Source, Stage, compile};
use tests::driven::{Formula, constants_with, input_register, output_register, pica_uniforms};
use tests::mirtest::Rng;

/// Runs a fragment program with varyings by name and no uniforms.
fn fragment(c: &spv2retro::Compiled, varyings: &[(&str, [f32; 4])]) -> Option<[[f32; 4]; 4]> {
    fragment_with(c, varyings, &[])
}

/// Runs a fragment program with varyings and uniforms by name; `None` when it discards.
fn fragment_with(
    c: &spv2retro::Compiled,
    varyings: &[(&str, [f32; 4])],
    uniforms: &[(&str, &[f32])],
) -> Option<[[f32; 4]; 4]> {
    let p = Program::decode(&c.bytes).unwrap();
    let mut v = vec![[0.0f32; 4]; 8];
    for (name, value) in varyings {
        v[input_register(c, name)] = *value;
    }
    // A texture whose four lanes differ: (u, v, u + v, 0.5).
    let lanes = Formula(|c: [f32; 4]| [c[0], c[1], c[0] + c[1], 0.5]);
    let textures: Vec<&dyn Texture> = vec![&lanes; 8];
    let out = run_fragment(
        &p,
        &v,
        &FragmentInputs {
            constants: &constants_with(c, uniforms),
            textures: &textures,
        },
    )
    .unwrap();
    (!out.discarded).then_some(out.colors)
}

/// `c ? texture(t, uv) : vec4(s)` where AGAL 2 and 3 branch (the splat may be infinite, so
/// no blend): the splat's move into the merged value wrote only `.x` inside the `ife`, and
/// the other three lanes kept the texture's (wrong pixels, no error).
#[test]
fn a_splat_passed_out_of_a_branch_writes_every_lane() {
    let glsl = "#version 450
layout(location = 0) in vec2 uv;
layout(location = 1) in vec4 k;
layout(location = 0) out vec4 color;
layout(binding = 0) uniform sampler2D tex;
void main() {
    bool cond = k.x > 0.5;
    color = cond ? texture(tex, uv) : vec4(1.0 / k.y);
}
";
    let mut branched = 0;
    for profile in Profile::ALL {
        let options = Options::agal(profile).stage(Stage::Fragment);
        let c = compile(Source::glsl(glsl, Stage::Fragment), &options).unwrap();
        branched += c.listing.contains("eif") as usize;
        let mut rng = Rng(0x5b1a7);
        for _ in 0..50 {
            let (u, v) = (rng.float(-1.0, 1.0), rng.float(-1.0, 1.0));
            let (x, y) = (rng.float(0.0, 1.0), rng.float(0.25, 4.0));
            let got = fragment(&c, &[("uv", [u, v, 0.0, 0.0]), ("k", [x, y, 0.0, 0.0])]);
            let want = if x > 0.5 {
                [u, v, u + v, 0.5]
            } else {
                [1.0 / y; 4]
            };
            let got = got.unwrap()[0];
            for l in 0..4 {
                assert!(
                    (got[l] - want[l]).abs() <= 1e-5 * want[l].abs().max(1.0),
                    "{profile:?} lane {l}: {got:?} vs {want:?}\n{}",
                    c.listing
                );
            }
        }
    }
    assert!(
        branched >= 2,
        "AGAL 2 and 3 no longer branch here: the test tests nothing"
    );
}

/// Loops the AGAL profiles refused as "a branch that cannot be flattened" or "a loop that
/// cannot be unrolled", or that failed the MIR verifier, and that the PICA200 refused as a
/// break it cannot place: `continue` alone, a folded `if (true) break;` after the counter
/// test, a conditional break before it, nested loops that both break. Fragment programs
/// for AGAL, the same bodies as vertex programs for the PICA200.
const LOOPS: [(&str, &str); 7] = [
    (
        "continue alone",
        "for (int i = 0; i < 3; i++) {
            if (v.y > float(i)) { continue; }
            x += v;
        }",
    ),
    (
        "a folded if (true) break",
        "for (int i = 0; i < 5; i++) {
            x += v;
            if (!(2.75 == -2.375)) { break; }
        }",
    ),
    (
        "a conditional break, then a folded one",
        "for (int i = 0; i < 5; i++) {
            if (x.y >= 1.75) { x = v.wzyx; break; }
            x += v;
            if (0.5 != -3.75) { break; }
        }",
    ),
    (
        "a continue, then a folded break",
        "for (int i = 0; i < 5; i++) {
            if (x.z == 2.75) { break; }
            if (v.y == float(i)) { x += v; continue; }
            if (2.25 >= 1.125) { x *= 2.0; break; }
        }",
    ),
    (
        "both arms break, one after a loop",
        "for (int i = 0; i < 4; i++) {
            if (v.y >= float(i)) {
                for (int j = 0; j < 1; j++) { x += v; }
                break;
            } else {
                if (-2.25 != -1.0) { x.x -= 1.0; break; }
            }
        }",
    ),
    (
        "the counter's next value in the body, then a break",
        "for (int i = 0; i < 5; i++) {
            x.z = float(i) + 1.0;
            if (v.w > x.z) { break; }
        }",
    ),
    (
        "nested loops that both break",
        "for (int i = 0; i < 3; i++) {
            if (x.y < v.x) { break; }
            for (int j = 0; j < 4; j++) {
                if (x.z < v.w) { x = x.yxzw + v; break; }
                x.z -= 0.5;
            }
        }",
    ),
];

/// The loops of [`LOOPS`], computed here.
fn expected(name: &str, v: [f32; 4]) -> [f32; 4] {
    let add = |x: [f32; 4], y: [f32; 4]| std::array::from_fn(|l| x[l] + y[l]);
    let mut x = v;
    match name {
        "continue alone" => {
            for i in 0..3 {
                if v[1] > i as f32 {
                    continue;
                }
                x = add(x, v);
            }
        }
        "a folded if (true) break" => x = add(x, v),
        "a conditional break, then a folded one" => {
            if x[1] >= 1.75 {
                x = [v[3], v[2], v[1], v[0]];
            } else {
                x = add(x, v);
            }
        }
        "a continue, then a folded break" => {
            for i in 0..5 {
                if x[2] == 2.75 {
                    break;
                }
                if v[1] == i as f32 {
                    x = add(x, v);
                    continue;
                }
                x = x.map(|a| a * 2.0);
                break;
            }
        }
        "both arms break, one after a loop" => {
            if v[1] >= 0.0 {
                x = add(x, v);
            } else {
                x[0] -= 1.0;
            }
        }
        "the counter's next value in the body, then a break" => {
            for i in 0..5 {
                x[2] = i as f32 + 1.0;
                if v[3] > x[2] {
                    break;
                }
            }
        }
        "nested loops that both break" => {
            for _ in 0..3 {
                if x[1] < v[0] {
                    break;
                }
                for _ in 0..4 {
                    if x[2] < v[3] {
                        x = add([x[1], x[0], x[2], x[3]], v);
                        break;
                    }
                    x[2] -= 0.5;
                }
            }
        }
        _ => unreachable!(),
    }
    x
}

#[test]
fn loops_left_early_compile_and_run_on_every_target() {
    for (name, body) in LOOPS {
        let frag = format!(
            "#version 450\nlayout(location = 0) in vec4 v;\nlayout(location = 0) out vec4 color;\n\
             void main() {{\n    vec4 x = v;\n    {body}\n    color = x;\n}}\n"
        );
        let vert = format!(
            "#version 450\nlayout(location = 0) in vec4 v;\nlayout(location = 0) out vec4 color;\n\
             void main() {{\n    vec4 x = v;\n    {body}\n    color = x;\n    gl_Position = v;\n}}\n"
        );
        let mut rng = Rng(0x100b5);
        let cases: Vec<[f32; 4]> = (0..100)
            .map(|_| rng.lanes(-4.0, 4.0).map(|x| (x * 4.0).round() / 4.0))
            .collect();
        for profile in Profile::ALL {
            let options = Options::agal(profile).stage(Stage::Fragment);
            let c = match compile(Source::glsl(&frag, Stage::Fragment), &options) {
                Ok(c) => c,
                // Unrolled and predicated, the nested loops need more temporaries than
                // AGAL 1 has: an honest limit.
                Err(e) if e.diagnostics().0.iter().all(|d| d.fault() == Fault::Limit) => {
                    assert!(
                        profile.version() == backend_agal::Version::V1,
                        "{name} {profile:?}: {e}"
                    );
                    continue;
                }
                Err(e) => panic!("{name} {profile:?}: {e}"),
            };
            for &v in &cases {
                let got = fragment(&c, &[("v", v)]).unwrap()[0];
                assert_eq!(
                    got,
                    expected(name, v),
                    "{name} {profile:?} v {v:?}\n{}",
                    c.listing
                );
            }
        }
        let c = compile(Source::glsl(&vert, Stage::Vertex), &Options::pica())
            .unwrap_or_else(|e| panic!("{name} PICA200: {e}"));
        let sim = Simulator::new(&c.bytes).unwrap();
        let color = output_register(&c, "color");
        for &v in &cases {
            let mut inputs = [[0.0f32; 4]; 16];
            inputs[input_register(&c, "v")] = v;
            let out = sim.run(0, &inputs, &pica_uniforms(&c, &[])).unwrap();
            assert_eq!(
                out.outputs[color],
                expected(name, v),
                "{name} PICA200 v {v:?}\n{}",
                c.listing
            );
        }
    }
}

/// A fragment shader that writes colour output 1 alone ended in `agal.internal` (Flash's
/// rule #3775 caught the gap after code generation): `oc0` is now written with zeros, with
/// the warning that says so, and `oc1` holds the colour.
#[test]
fn a_gap_in_the_colour_outputs_is_filled_with_zeros_and_a_warning() {
    let glsl = "#version 450
layout(location = 0) in vec4 v;
layout(location = 1) out vec4 c1;
void main() { c1 = v * 2.0; }
";
    for profile in [Profile::Standard, Profile::StandardExtended] {
        let options = Options::agal(profile).stage(Stage::Fragment);
        let c = compile(Source::glsl(glsl, Stage::Fragment), &options)
            .unwrap_or_else(|e| panic!("{profile:?}: {e}"));
        let warnings: Vec<_> = c.warnings.0.iter().map(|d| d.rule).collect();
        assert_eq!(warnings, ["agal.unwritten-output"], "{profile:?}");
        let colors = fragment(&c, &[("v", [0.25, -1.0, 3.0, 0.5])]).unwrap();
        assert_eq!(colors[0], [0.0; 4], "{profile:?}");
        assert_eq!(colors[1], [0.5, -2.0, 6.0, 1.0], "{profile:?}");
    }
    // AGAL 1 and standardConstrained have one colour output: a limit, said as one.
    for profile in [Profile::Baseline, Profile::StandardConstrained] {
        let options = Options::agal(profile).stage(Stage::Fragment);
        let e = compile(Source::glsl(glsl, Stage::Fragment), &options).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Rejected);
        assert!(
            e.diagnostics().0.iter().all(|d| d.fault() == Fault::Limit),
            "{e}"
        );
    }
}

/// An array larger than any register file is a limit of the targets (`type.limit`), not a
/// malformed type (`type.declaration`): the module is valid.
#[test]
fn an_array_too_large_for_any_target_is_a_limit() {
    let glsl = "#version 450
layout(location = 0) in vec4 p;
layout(std140, binding = 0) uniform U { vec4 big[100000]; };
void main() { gl_Position = big[int(p.x)]; }
";
    for options in [Options::pica(), Options::agal(Profile::Standard)] {
        let e = compile(Source::glsl(glsl, Stage::Vertex), &options).unwrap_err();
        let d = &e.diagnostics().0[0];
        assert_eq!(d.rule, "type.limit", "{e}");
        assert_eq!(d.fault(), Fault::Limit, "{e}");
        assert!(e.to_string().contains("100000"), "{e}");
    }
}

/// SPIRV-Cross's depth-sampling shaders combine a `texture2D` with a `samplerShadow`
/// (`OpSampledImage` whose result's image type differs in its Depth operand, which spirv-val
/// accepts). They were rejected as invalid (`type.operand`); they are valid, and what the
/// targets cannot do, compare depths while sampling, is the refusal now.
#[test]
fn separate_depth_images_and_shadow_samplers_are_valid() {
    for name in [
        "shaders__vulkan__frag__combined-texture-sampler-shadow.vk.frag",
        "shaders-msl__frag__sample-depth-propagate-state-from-resource.frag",
        "shaders-msl__frag__sample-depth-separate-image-sampler.frag",
    ] {
        let path = tests::fixtures("thirdparty/spirv-cross/spv").join(format!("{name}.spv"));
        let bytes = std::fs::read(&path).unwrap();
        for options in [
            Options::agal(Profile::Standard),
            Options::agal(Profile::Baseline),
        ] {
            let e = compile(Source::spirv_binary(&bytes), &options).unwrap_err();
            let rules: Vec<_> = e.diagnostics().0.iter().map(|d| d.rule).collect();
            assert_eq!(rules, ["lower.shadow-sampler"], "{name}: {e}");
            assert_eq!(e.diagnostics().0[0].fault(), Fault::Unsupported, "{name}");
        }
    }
}

/// `a || b` of comparisons with selects: AGAL 2 and 3's second try (selects as branches)
/// left a bool where `max` needed its float twin, since the bools pass read blocks in layout
/// order and the branch a select became stood after its readers. That try's errors were
/// swallowed (the first program was kept); debug builds now report them.
#[test]
fn an_or_of_comparisons_of_selects_keeps_its_float_twins() {
    let glsl = "#version 450
layout(location = 0) in vec4 v;
layout(location = 0) out vec4 color;
layout(std140, binding = 0) uniform U { vec4 u; float f0; float f1; };
void main() {
    if ((f1 <= ((-1.375 != f0) ? -1.25 : -1.625)) || (-1.25 >= ((f1 < v.x) ? u.z : u.y))) {
        discard;
    }
    color = v;
}
";
    let mut rng = Rng(0x0b001);
    for profile in Profile::ALL {
        let options = Options::agal(profile).stage(Stage::Fragment);
        let c = compile(Source::glsl(glsl, Stage::Fragment), &options)
            .unwrap_or_else(|e| panic!("{profile:?}: {e}"));
        for _ in 0..100 {
            let grid = |rng: &mut Rng| (rng.float(-2.0, 2.0) * 8.0).round() / 8.0;
            let (f0, f1) = (grid(&mut rng), grid(&mut rng));
            let u = [grid(&mut rng), grid(&mut rng), grid(&mut rng), 0.0];
            let v = [grid(&mut rng), 0.5, 0.25, 1.0];
            let a = f1 <= if f0 != -1.375 { -1.25 } else { -1.625 };
            let b = -1.25 >= if f1 < v[0] { u[2] } else { u[1] };
            let uniforms: [(&str, &[f32]); 3] = [("u", &u), ("f0", &[f0]), ("f1", &[f1])];
            let out = fragment_with(&c, &[("v", v)], &uniforms);
            let at = format!("{profile:?} f0 {f0} f1 {f1} u {u:?} v {v:?}");
            match out {
                None => assert!(a || b, "{at}: discarded"),
                Some(colors) => {
                    assert!(!(a || b), "{at}: kept");
                    assert_eq!(colors[0], v, "{at}");
                }
            }
        }
    }
}
