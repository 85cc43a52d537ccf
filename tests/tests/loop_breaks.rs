//! Loops left early (`break`, `continue`, `return`, `discard` under a computed condition)
//! with a constant trip count: AGAL, which has no loop instruction, unrolls them with the
//! iterations after an exit predicated off (`mir::passes::breaks`); the PICA200 keeps its
//! `loop` and `breakc`, or unrolls the same way where that runs fewer steps. Each shader is compiled from GLSL through the library, run in the
//! simulators, and compared with what this test computes.

use backend_agal::Program;
use backend_agal::sim::{FragmentInputs, VertexInputs, run_fragment, run_vertex};
use backend_pica::sim::{Simulator, Uniforms};
use spv2retro::{Compiled, Options, Profile, Source, Stage, compile};
use test_kit::all_close_to;
use tests::driven::{AGAL_PROFILES, constants_with, literal_constants, register_number as number};
use tests::mirtest::Rng;

/// The loop: `acc` grows until it passes `limit`.
const ACCUMULATE: &str = "
    float acc = 0.0;
    for (int i = 0; i < 6; ++i) {
        acc += v[i % 4] * 0.5 + 0.1;
        if (acc > limit) break;
    }
    vec4 result = vec4(acc, acc * 2.0, 0.0, 1.0);
";

fn accumulate(v: [f32; 4], limit: f32) -> [f64; 4] {
    let mut acc = 0.0f64;
    for i in 0..6 {
        acc += f64::from(v[i % 4]) * 0.5 + 0.1;
        if acc > f64::from(limit) {
            break;
        }
    }
    [acc, acc * 2.0, 0.0, 1.0]
}

/// `continue`, a value set only at the `break`, and a `discard` inside the loop.
const SEARCH: &str = "
    float acc = 0.0;
    float at = -1.0;
    for (int i = 0; i < 4; ++i) {
        float x = v[i];
        if (x < -0.5) continue;
        if (x > 0.97) discard;
        acc += x + 0.25;
        if (acc > limit) { at = float(i); break; }
    }
    vec4 result = vec4(acc, at, 0.0, 1.0);
";

/// `None`: discarded.
fn search(v: [f32; 4], limit: f32) -> Option<[f64; 4]> {
    let (mut acc, mut at) = (0.0f64, -1.0f64);
    for (i, &x) in v.iter().enumerate() {
        let x = f64::from(x);
        if x < -0.5 {
            continue;
        }
        if x > 0.97 {
            return None;
        }
        acc += x + 0.25;
        if acc > f64::from(limit) {
            at = i as f64;
            break;
        }
    }
    Some([acc, at, 0.0, 1.0])
}

/// A `return` from inside a loop of a function.
const RETURN: &str = "
    vec4 result = vec4(first_over(v), 0.0, 0.0, 1.0);
";

const RETURN_FUNCTION: &str = "
float first_over(vec4 v) {
    float acc = 0.0;
    for (int i = 0; i < 4; ++i) {
        acc += v[i];
        if (acc > limit) return acc * 10.0;
    }
    return -acc;
}
";

fn first_over(v: [f32; 4], limit: f32) -> [f64; 4] {
    let mut acc = 0.0f64;
    for x in v {
        acc += f64::from(x);
        if acc > f64::from(limit) {
            return [acc * 10.0, 0.0, 0.0, 1.0];
        }
    }
    [-acc, 0.0, 0.0, 1.0]
}

const UNIFORMS: &str = "layout(std140, binding = 0) uniform U { float limit; };\n";

fn fragment(body: &str, functions: &str) -> String {
    format!(
        "#version 450\nlayout(location = 0) in vec4 v;\nlayout(location = 0) out vec4 color;\n\
         {UNIFORMS}{functions}void main() {{{body}    color = result;\n}}\n"
    )
}

fn vertex(body: &str, functions: &str) -> String {
    format!(
        "#version 450\nlayout(location = 0) in vec4 v;\nlayout(location = 0) out vec4 color;\n\
         {UNIFORMS}{functions}void main() {{{body}    color = result;\n    gl_Position = v;\n}}\n"
    )
}

fn cases(seed: u64) -> Vec<([f32; 4], f32)> {
    let mut rng = Rng(seed);
    (0..200)
        .map(|_| (rng.lanes(-1.0, 1.0), rng.float(-0.5, 2.5)))
        .collect()
}

/// Compiles `glsl` for every AGAL profile (as a `stage` program).
fn agal(glsl: &str, stage: Stage) -> Vec<(Profile, Compiled, Program)> {
    AGAL_PROFILES
        .iter()
        .map(|&profile| {
            let options = Options::agal(profile).stage(stage);
            let c = compile(Source::glsl(glsl, stage), &options)
                .unwrap_or_else(|e| panic!("{profile:?}: {e}"));
            let p = Program::decode(&c.bytes).unwrap();
            (profile, c, p)
        })
        .collect()
}

fn check_fragment(name: &str, glsl: &str, expected: impl Fn([f32; 4], f32) -> Option<[f64; 4]>) {
    let programs = agal(glsl, Stage::Fragment);
    let (mut discarded, mut runs) = (0, 0);
    for (v, limit) in cases(0x10_0b) {
        let want = expected(v, limit);
        for (profile, c, p) in &programs {
            let mut varyings = vec![[0.0f32; 4]; 8];
            varyings[number(&c.reflection.inputs[0].register)] = v;
            let out = run_fragment(
                p,
                &varyings,
                &FragmentInputs {
                    constants: &constants_with(c, &[("limit", &[limit])]),
                    textures: &(),
                },
            )
            .unwrap();
            runs += 1;
            match want {
                None => {
                    assert!(
                        out.discarded,
                        "{name} {profile:?} v {v:?} limit {limit}: kept"
                    );
                    discarded += 1;
                }
                Some(want) => {
                    assert!(!out.discarded, "{name} {profile:?} v {v:?}: discarded");
                    assert!(
                        all_close_to(&out.colors[0], &want, 1e-5),
                        "{name} {profile:?} v {v:?} limit {limit}: {:?} vs {want:?}\n{}",
                        out.colors[0],
                        c.listing
                    );
                }
            }
        }
    }
    eprintln!(
        "{name}: {runs} fragment runs, {discarded} discarded; AGAL tokens {:?}",
        programs
            .iter()
            .map(|(p, c, _)| (format!("{p:?}"), c.reflection.stats.instructions))
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_break_under_a_computed_condition_in_a_fragment_program() {
    check_fragment("accumulate", &fragment(ACCUMULATE, ""), |v, l| {
        Some(accumulate(v, l))
    });
}

#[test]
fn continue_discard_and_a_value_set_at_the_break() {
    check_fragment("search", &fragment(SEARCH, ""), search);
}

#[test]
fn a_return_from_inside_a_loop() {
    check_fragment("return", &fragment(RETURN, RETURN_FUNCTION), |v, l| {
        Some(first_over(v, l))
    });
}

/// Vertex programs: AGAL unrolled with predicates, the PICA200 with `breakc` or unrolled too;
/// both against the same values.
#[test]
fn both_targets_agree_on_loops_left_early_in_vertex_programs() {
    for (name, body, functions, expected) in [
        (
            "accumulate",
            ACCUMULATE,
            "",
            accumulate as fn([f32; 4], f32) -> [f64; 4],
        ),
        ("return", RETURN, RETURN_FUNCTION, first_over),
    ] {
        let glsl = vertex(body, functions);
        let programs = agal(&glsl, Stage::Vertex);
        let pica = compile(Source::glsl(&glsl, Stage::Vertex), &Options::pica())
            .unwrap_or_else(|e| panic!("{e}"));
        // The PICA200 keeps a loop (left by `breakc`) or unrolls it with its exits
        // predicated, whichever runs fewer steps: both loops' lane indices (`v[i % 4]`,
        // `v[i]`) fold once unrolled, which more than pays for running every trip.
        assert!(
            !pica.listing.contains("for "),
            "{name}: the PICA200 keeps its loop\n{}",
            pica.listing
        );
        let sim = Simulator::new(&pica.bytes).unwrap();
        let color = number(
            &pica
                .reflection
                .outputs
                .iter()
                .find(|o| o.name == "color")
                .unwrap()
                .register,
        );
        for (v, limit) in cases(0x0b_0e) {
            let want = expected(v, limit);
            for (profile, c, p) in &programs {
                let out = run_vertex(
                    p,
                    &VertexInputs {
                        attributes: &[v],
                        constants: &constants_with(c, &[("limit", &[limit])]),
                        instance_id: 0,
                    },
                )
                .unwrap();
                let color = c.reflection.outputs.iter().find(|o| o.name == "color");
                let got = out.varyings[number(&color.unwrap().register)];
                assert!(
                    all_close_to(&got, &want, 1e-5),
                    "{name} {profile:?} v {v:?} limit {limit}: {got:?} vs {want:?}"
                );
            }
            let mut u = Uniforms::default();
            for (slot, x) in u
                .float
                .iter_mut()
                .zip(constants_with(&pica, &[("limit", &[limit])]))
            {
                *slot = x;
            }
            let mut inputs = [[0.0f32; 4]; 16];
            inputs[number(&pica.reflection.inputs[0].register)] = v;
            let out = sim.run(0, &inputs, &u).unwrap();
            // float24 on the PICA200.
            assert!(
                all_close_to(&out.outputs[color], &want, 2e-3),
                "{name} PICA200 v {v:?} limit {limit}: {:?} vs {want:?}",
                out.outputs[color]
            );
        }
    }
}

/// The common lighting loop: bounded by a uniform count, the array bounding the count.
const LIGHTS: &str = "#version 450
layout(location = 0) in vec4 pos;
layout(location = 0) out vec4 color;
struct Light { vec4 dir; vec4 color; };
layout(std140, binding = 0) uniform U { int lightCount; Light lights[4]; };
void main() {
    // Not zero: what a loop that runs no iteration leaves must survive.
    vec4 c = pos * 0.25;
    for (int i = 0; i < lightCount; ++i) {
        c += lights[i].color * max(dot(pos, lights[i].dir), 0.0);
    }
    color = c;
    gl_Position = pos;
}
";

#[test]
fn a_loop_bounded_by_a_uniform_count_over_an_array() {
    let programs = agal(LIGHTS, Stage::Vertex);
    let pica = compile(Source::glsl(LIGHTS, Stage::Vertex), &Options::pica())
        .unwrap_or_else(|e| panic!("{e}"));
    let sim = Simulator::new(&pica.bytes).unwrap();
    let mut rng = Rng(0x1167);
    let mut counts = [0usize; 5];
    for _ in 0..200 {
        let pos = rng.lanes(-1.0, 1.0);
        let count = (rng.float(0.0, 4.999)).floor();
        counts[count as usize] += 1;
        let mut values = vec![("lightCount".to_string(), [count, 0.0, 0.0, 0.0])];
        let mut want = pos.map(|x| f64::from(x) * 0.25);
        for k in 0..4 {
            let (dir, col) = (rng.lanes(-1.0, 1.0), rng.lanes(0.0, 1.0));
            values.push((format!("lights[{k}].dir"), dir));
            values.push((format!("lights[{k}].color"), col));
            if (k as f32) < count {
                let d: f64 = (0..4).map(|l| f64::from(pos[l]) * f64::from(dir[l])).sum();
                for l in 0..4 {
                    want[l] += f64::from(col[l]) * d.max(0.0);
                }
            }
        }
        let uniforms: Vec<(&str, &[f32])> =
            values.iter().map(|(n, v)| (n.as_str(), &v[..])).collect();
        for (profile, c, p) in &programs {
            let out = run_vertex(
                p,
                &VertexInputs {
                    attributes: &[pos],
                    constants: &constants_with(c, &uniforms),
                    instance_id: 0,
                },
            )
            .unwrap();
            let color = c.reflection.outputs.iter().find(|o| o.name == "color");
            let got = out.varyings[number(&color.unwrap().register)];
            assert!(
                all_close_to(&got, &want, 1e-5),
                "{profile:?} lightCount {count}: {got:?} vs {want:?}\n{}",
                c.listing
            );
        }
        let mut u = Uniforms::default();
        for (slot, x) in u.float.iter_mut().zip(constants_with(&pica, &uniforms)) {
            *slot = x;
        }
        let mut inputs = [[0.0f32; 4]; 16];
        inputs[number(&pica.reflection.inputs[0].register)] = pos;
        let out = sim.run(0, &inputs, &u).unwrap();
        let color = pica.reflection.outputs.iter().find(|o| o.name == "color");
        let got = out.outputs[number(&color.unwrap().register)];
        assert!(
            all_close_to(&got, &want, 2e-3),
            "PICA200 lightCount {count}: {got:?} vs {want:?}"
        );
    }
    assert!(
        counts.iter().all(|&n| n > 10),
        "every count drawn: {counts:?}"
    );
    eprintln!(
        "lights: AGAL tokens {:?}; PICA200 {} instructions (loop over the count)",
        programs
            .iter()
            .map(|(p, c, _)| (format!("{p:?}"), c.reflection.stats.instructions))
            .collect::<Vec<_>>(),
        pica.reflection.stats.instructions
    );
}

/// glslang's `do { } while` (the test in the continue block): its trip count is constant.
#[test]
fn a_do_while_loop_with_its_test_at_the_end() {
    for file in ["do_while.frag.spv", "do_while.frag.opt.spv"] {
        let bytes = std::fs::read(tests::fixtures("edge").join(file)).unwrap();
        for &profile in &AGAL_PROFILES {
            let options = Options::agal(profile).stage(Stage::Fragment);
            let c = compile(Source::spirv(&bytes).named(file), &options)
                .unwrap_or_else(|e| panic!("{file} {profile:?}: {e}"));
            let p = Program::decode(&c.bytes).unwrap();
            let constants = literal_constants(&c);
            let mut rng = Rng(0xd0);
            for _ in 0..50 {
                let v = rng.lanes(-1.0, 1.0);
                let mut acc = 0.0f64;
                for (i, x) in v.iter().enumerate() {
                    acc = acc * 0.5 + f64::from(*x) * (i + 1) as f64;
                }
                let want = [acc, acc * acc, 0.0, 1.0];
                let mut varyings = vec![[0.0f32; 4]; 8];
                varyings[number(&c.reflection.inputs[0].register)] = v;
                let out = run_fragment(
                    &p,
                    &varyings,
                    &FragmentInputs {
                        constants: &constants,
                        textures: &(),
                    },
                )
                .unwrap();
                assert!(
                    all_close_to(&out.colors[0], &want, 1e-5),
                    "{file} {profile:?} {v:?}: {:?} vs {want:?}",
                    out.colors[0]
                );
            }
        }
    }
}

/// A `for` loop whose counter is declared and set before it (`int i = 0; for (; i < 4; ++i)`):
/// its trip count is as constant as the usual form's, on both targets.
#[test]
fn a_for_loop_with_its_counter_set_before_it() {
    let glsl = "#version 450
layout(location = 0) in vec4 v;
layout(location = 0) out vec4 color;
void main() {
    float acc = 0.0;
    int i = 1;
    for (; i < 4; ++i) {
        acc = acc * 2.0 + v[i];
    }
    color = vec4(acc, float(i), 0.0, 1.0);
    gl_Position = v;
}
";
    let want = |v: [f32; 4]| {
        let mut acc = 0.0f64;
        for x in &v[1..4] {
            acc = acc * 2.0 + f64::from(*x);
        }
        [acc, 4.0, 0.0, 1.0]
    };
    let programs = agal(glsl, Stage::Vertex);
    let pica = compile(Source::glsl(glsl, Stage::Vertex), &Options::pica())
        .unwrap_or_else(|e| panic!("{e}"));
    let sim = Simulator::new(&pica.bytes).unwrap();
    let mut rng = Rng(0xf0);
    for _ in 0..50 {
        let v = rng.lanes(-1.0, 1.0);
        for (profile, c, p) in &programs {
            let out = run_vertex(
                p,
                &VertexInputs {
                    attributes: &[v],
                    constants: &constants_with(c, &[]),
                    instance_id: 0,
                },
            )
            .unwrap();
            let color = c.reflection.outputs.iter().find(|o| o.name == "color");
            let got = out.varyings[number(&color.unwrap().register)];
            assert!(all_close_to(&got, &want(v), 1e-5), "{profile:?}: {got:?}");
        }
        let mut u = Uniforms::default();
        for (slot, x) in u.float.iter_mut().zip(constants_with(&pica, &[])) {
            *slot = x;
        }
        let mut inputs = [[0.0f32; 4]; 16];
        inputs[number(&pica.reflection.inputs[0].register)] = v;
        let out = sim.run(0, &inputs, &u).unwrap();
        let color = pica.reflection.outputs.iter().find(|o| o.name == "color");
        let got = out.outputs[number(&color.unwrap().register)];
        assert!(all_close_to(&got, &want(v), 2e-3), "PICA200: {got:?}");
    }
}
