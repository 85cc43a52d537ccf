//! Issue 32's loops (`tests/fixtures/loops/`), against the counts a hand-writer reaches: each
//! compiled from its GLSL text, run in the simulators on values this test computes itself,
//! and its length (AGAL tokens) or executed steps (PICA200) held within 1.2 times the
//! hand-written count.

use backend_agal::Program;
use backend_agal::sim::{FragmentInputs, Textures, run_fragment};
use spv2retro::{Compiled, Options, Profile, Source, Stage, compile};
use test_kit::within;
use tests::driven::{Formula, constants_with, register_number, run_by_name};
use tests::mirtest::Rng;

fn fixture(name: &str) -> String {
    let path = tests::fixtures("loops").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn build(name: &str, stage: Stage, options: Options) -> Compiled {
    compile(
        Source::glsl(&fixture(name), stage).named(name),
        &options.stage(stage),
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// What the early-exit loop leaves in `acc`.
fn early_exit(v: [f32; 4], w: [f32; 4], threshold: f32) -> f32 {
    let mut acc = 0.0f32;
    for i in 0..8 {
        acc += v[i % 4] * w[i % 4];
        if acc > threshold {
            break;
        }
    }
    acc
}

/// Random cases, a quarter with a threshold never passed and a quarter passed at once.
fn cases(seed: u64) -> Vec<([f32; 4], [f32; 4], f32)> {
    let mut rng = Rng(seed);
    (0..200)
        .map(|k| {
            let v = rng.lanes(0.0, 2.0);
            let w = rng.lanes(0.0, 2.0);
            let threshold = match k % 4 {
                0 => 1000.0,
                1 => -1.0,
                _ => rng.float(0.0, 16.0),
            };
            (v, w, threshold)
        })
        .collect()
}

/// Runs `c` on every case through its reflection: the output `o`'s lanes and the steps.
fn check_early_exit(what: &str, c: &Compiled) -> u64 {
    let mut most = 0;
    for (v, w, threshold) in cases(0x100 ^ what.len() as u64) {
        let out = run_by_name(
            c,
            &[("v", v.to_vec())],
            &[("w", w.to_vec()), ("threshold", vec![threshold])],
        );
        let o = out
            .outputs
            .iter()
            .find(|o| o.name == "o")
            .expect("output o");
        let want = early_exit(v, w, threshold);
        assert!(
            o.value.iter().all(|&x| within(x, want, 1e-4, 1e-4)),
            "{what}: v {v:?} w {w:?} threshold {threshold}: {:?}, want {want}",
            o.value
        );
        most = most.max(out.steps.expect("a program's steps"));
    }
    most
}

#[test]
fn an_early_exit_is_a_predicated_unroll_on_every_agal_profile() {
    for profile in [
        Profile::Baseline,
        Profile::Standard,
        Profile::StandardExtended,
    ] {
        let c = build("early_exit.frag", Stage::Fragment, Options::agal(profile));
        let tokens = c.reflection.stats.instructions;
        let steps = check_early_exit(&format!("early_exit.frag {profile:?}"), &c);
        println!("early_exit.frag, AGAL {profile:?}: {tokens} tokens, {steps} steps");
        // By hand: under 50.
        assert!(tokens <= 60, "{profile:?}: {tokens} tokens\n{}", c.listing);
        assert!(steps <= 60, "{profile:?}: {steps} steps");
    }
}

#[test]
fn an_early_exit_with_a_lane_index_unrolls_on_the_pica200() {
    let c = build("early_exit.vert", Stage::Vertex, Options::pica());
    let words = c.reflection.stats.instructions;
    let steps = check_early_exit("early_exit.vert", &c);
    println!("early_exit.vert, PICA200: {words} words, at most {steps} steps");
    // By hand: about 40 steps (unrolled); kept as a loop it ran about 180.
    assert!(steps <= 48, "{steps} steps\n{}", c.listing);
    assert!(!c.listing.contains("for "), "{}", c.listing);
    // The vertex program on AGAL, too.
    for profile in [Profile::Baseline, Profile::StandardExtended] {
        let c = build("early_exit.vert", Stage::Vertex, Options::agal(profile));
        check_early_exit(&format!("early_exit.vert {profile:?}"), &c);
        assert!(c.reflection.stats.instructions <= 60, "{}", c.listing);
    }
}

/// A loop whose trips are data runs every one of them on the PICA200: tested at its end
/// (`do … while`) it jumps back (JMPC); tested at its top (`while`) it is turned round, its
/// test once and then after each trip. Neither is a LOOP, which stops after 256.
#[test]
fn loops_whose_trips_are_data_run_past_256_trips_on_the_pica200() {
    for (name, at_end) in [("long_do_while.vert", true), ("long_while.vert", false)] {
        let c = build(name, Stage::Vertex, Options::pica());
        assert!(c.listing.contains("jmpc"), "{}", c.listing);
        assert!(!c.listing.contains("for "), "{}", c.listing);
        for (start, limit, stride) in [
            (0.0f32, 1000.0f32, 1.0f32),
            (0.5, 300.25, 0.75),
            (5.0, 1.0, 2.0),
        ] {
            let out = run_by_name(
                &c,
                &[("v", vec![start, 0.0, 0.0, 1.0])],
                &[("limit", vec![limit]), ("stride", vec![stride])],
            );
            let (mut x, mut trips) = (start, 0.0f32);
            while at_end && trips == 0.0 || x < limit {
                x += stride;
                trips += 1.0;
            }
            let o = &out
                .outputs
                .iter()
                .find(|o| o.name == "o")
                .expect("output o")
                .value;
            assert!(
                within(o[0], x, 1e-3, 1e-4) && o[1] == trips,
                "{name}: start {start} limit {limit} stride {stride}: {o:?}, want x {x} after {trips} trips"
            );
            // Each trip: two additions, the test and the jump.
            let steps = out.steps.expect("a program's steps");
            assert!(
                steps <= 4 * trips as u64 + 12,
                "{name}: {steps} steps for {trips} trips\n{}",
                c.listing
            );
        }
    }
}

/// The blur's texture: a formula of the coordinate ([`texel`]).
type Texel = Formula<fn([f32; 4]) -> [f32; 4]>;

/// One texture, as the test computes it.
struct One<'a>(&'a Texel);

impl Textures for One<'_> {
    fn texture(&self, sampler: u16) -> Option<&dyn backend_agal::sim::Texture> {
        (sampler == 0).then_some(self.0 as &dyn backend_agal::sim::Texture)
    }
}

fn texel(c: [f32; 4]) -> [f32; 4] {
    [c[0], c[1] * 2.0, c[0] * c[1], 1.0 - c[0]]
}

#[test]
fn a_coordinate_bumped_per_tap_is_updated_in_place() {
    let formula: Texel = Formula(texel);
    for profile in [Profile::Baseline, Profile::StandardExtended] {
        let c = build("blur.frag", Stage::Fragment, Options::agal(profile));
        let tokens = c.reflection.stats.instructions;
        println!("blur.frag, AGAL {profile:?}: {tokens} tokens");
        // By hand: 13.
        assert!(tokens <= 15, "{profile:?}: {tokens} tokens\n{}", c.listing);
        let program = Program::decode(&c.bytes).unwrap();
        let uv_at = register_number(&c.reflection.inputs[0].register);
        // `oc` is colour output 0.
        let o_at = c.reflection.outputs[0]
            .register
            .trim_start_matches(|c: char| c.is_ascii_alphabetic())
            .parse()
            .unwrap_or(0);
        let mut rng = Rng(0xb1_u64);
        for _ in 0..50 {
            let uv = rng.lanes(-1.0, 1.0);
            let step = rng.float(-0.5, 0.5);
            let mut varyings = vec![[0.0f32; 4]; 10];
            varyings[uv_at] = uv;
            let constants = constants_with(&c, &[("step", &[step])]);
            let out = run_fragment(
                &program,
                &varyings,
                &FragmentInputs {
                    constants: &constants,
                    textures: &One(&formula),
                },
            )
            .unwrap();
            let mut want = [0.0f32; 4];
            for k in 0..4 {
                let t = texel([uv[0] + step * k as f32, uv[1], 0.0, 0.0]);
                for l in 0..4 {
                    want[l] += t[l] * 0.25;
                }
            }
            let got = out.colors[o_at];
            assert!(
                (0..4).all(|l| within(got[l], want[l], 1e-4, 1e-4)),
                "{profile:?} uv {uv:?} step {step}: {got:?}, want {want:?}"
            );
        }
    }
}
