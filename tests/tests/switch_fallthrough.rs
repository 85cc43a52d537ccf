//! `switch` cases that fall through into the next: AGAL flattens every branch, which needs
//! each case to be a tree of its own, so the cases fallen into are copied
//! (`mir::passes::fallthrough`). The fixture `edge/switch_chain.frag` (glslang's
//! SPIR-V and spirv-opt's) and the same shader through naga run in the AGAL simulator for
//! every profile, against what this test computes.

use backend_agal::Program;
use backend_agal::sim::{FragmentInputs, run_fragment};
use spv2retro::{Options, Profile, Source, Stage, compile};
use tests::driven::{literal_constants, register_number as number};
use tests::mirtest::Rng;

fn expected(v: [f32; 4]) -> [f64; 4] {
    let [x, y, z, _] = v.map(f64::from);
    let k = (x * 5.0).clamp(0.0, 4.0).trunc() as i32;
    let mut acc = 1.0f64;
    // The C semantics, spelled out.
    if k == 0 {
        acc += 1.0;
    }
    if k <= 1 {
        acc *= 3.0;
    }
    if k <= 2 {
        acc -= y;
    } else {
        if k == 3 && z > 0.0 {
            acc = z * 4.0;
        }
        acc += 0.5;
    }
    [acc, f64::from(k), 0.0, 1.0]
}

#[test]
fn cases_that_fall_through_compute_the_switch() {
    let dir = tests::fixtures("edge");
    let glsl = std::fs::read_to_string(dir.join("switch_chain.frag")).unwrap();
    let sources: Vec<(String, Vec<u8>)> = ["switch_chain.frag.spv", "switch_chain.frag.opt.spv"]
        .iter()
        .map(|f| (f.to_string(), std::fs::read(dir.join(f)).unwrap()))
        .collect();
    for profile in [
        Profile::Baseline,
        Profile::Standard,
        Profile::StandardExtended,
    ] {
        let options = Options::agal(profile).stage(Stage::Fragment);
        let mut programs = Vec::new();
        for (name, bytes) in &sources {
            let c = compile(Source::spirv(bytes).named(name), &options)
                .unwrap_or_else(|e| panic!("{name} {profile:?}: {e}"));
            programs.push((name.clone(), c));
        }
        let c = compile(Source::glsl(&glsl, Stage::Fragment).named("naga"), &options)
            .unwrap_or_else(|e| panic!("naga {profile:?}: {e}"));
        programs.push(("naga".into(), c));
        let mut rng = Rng(0x5317);
        let mut seen = [0usize; 5];
        for _ in 0..300 {
            let v = rng.lanes(0.0, 1.0);
            let v = [v[0], v[1] * 2.0 - 1.0, v[2] * 2.0 - 1.0, 1.0];
            let want = expected(v);
            seen[want[1] as usize] += 1;
            for (name, c) in &programs {
                let p = Program::decode(&c.bytes).unwrap();
                let constants = literal_constants(c);
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
                for (l, w) in want.iter().enumerate() {
                    let g = f64::from(out.colors[0][l]);
                    assert!(
                        (g - w).abs() <= 1e-5 * w.abs().max(1.0),
                        "{name} {profile:?} v {v:?}: lane {l} {g} vs {w}\n{}",
                        c.listing
                    );
                }
            }
        }
        assert!(seen.iter().all(|&n| n > 20), "every case drawn: {seen:?}");
    }
}
