//! Arrays of samplers (`tests/fixtures/edge/sampler_array.frag`, glslang's SPIR-V and
//! spirv-opt's): one sampler per element at consecutive bindings, indexed by constants, by
//! an unrolled loop's counter, or by a computed value (every element sampled, the index
//! selecting). Run in the AGAL simulator with textures whose colour is a formula of the
//! coordinate, against what this test computes. (naga's GLSL front end has no sampler
//! arrays.)

use backend_agal::Program;
use backend_agal::sim::{FragmentInputs, Texture, run_fragment};
use spv2retro::{Compiled, Options, Profile, Source, Stage, compile};
use tests::driven::{literal_constants, register_number as number};
use tests::mirtest::Rng;

/// Texture `k`: (x (k + 1), y + k, k / 2, 1) at coordinate (x, y).
struct Formula(f32);

impl Texture for Formula {
    fn is_cube(&self) -> bool {
        false
    }
    fn levels(&self) -> u32 {
        1
    }
    fn size(&self, _level: u32) -> (u32, u32) {
        (4, 4)
    }
    fn texel(&self, _face: u32, _level: u32, _x: u32, _y: u32) -> [f32; 4] {
        [0.0; 4]
    }
    fn exact(&self, c: [f32; 4], _bias: f32) -> Option<[f32; 4]> {
        let k = self.0;
        Some([c[0] * (k + 1.0), c[1] + k, k * 0.5, 1.0])
    }
}

fn texel(k: usize, x: f64, y: f64) -> [f64; 4] {
    let k = k as f64;
    [x * (k + 1.0), y + k, k * 0.5, 1.0]
}

fn expected(x: f64, y: f64) -> [f64; 4] {
    let mut c = [0.0; 4];
    let a = texel(2, x, y);
    let b = texel(1, x * 0.5, y * 0.5);
    for l in 0..4 {
        c[l] = a[l] * 2.0 - b[l];
    }
    for i in 0..3 {
        let t = texel(i, x + i as f64 * 0.25, y);
        for l in 0..4 {
            c[l] += t[l];
        }
    }
    let k = (y * 3.0).clamp(0.0, 2.0).trunc() as usize;
    let t = texel(k, x, y);
    for l in 0..4 {
        c[l] += t[l] * 0.5;
    }
    c
}

#[test]
fn sampler_arrays_by_constant_loop_and_computed_indices() {
    let textures = [Formula(0.0), Formula(1.0), Formula(2.0)];
    for file in ["sampler_array.frag.spv", "sampler_array.frag.opt.spv"] {
        let bytes = std::fs::read(tests::fixtures("edge").join(file)).unwrap();
        for profile in [
            Profile::Baseline,
            Profile::Standard,
            Profile::StandardExtended,
        ] {
            let options = Options::agal(profile).stage(Stage::Fragment);
            let c: Compiled = compile(Source::spirv(&bytes).named(file), &options)
                .unwrap_or_else(|e| panic!("{file} {profile:?}: {e}"));
            // One sampler per element, at bindings 2, 3, 4.
            let mut bound: Vec<&dyn Texture> = vec![&textures[0]; 8];
            for s in &c.reflection.samplers {
                let k: usize = s.name["tex[".len()..s.name.len() - 1].parse().unwrap();
                assert_eq!(s.binding as usize, 2 + k, "{:?}", c.reflection.samplers);
                bound[number(&s.register)] = &textures[k];
            }
            assert_eq!(
                c.reflection.samplers.len(),
                3,
                "{:?}",
                c.reflection.samplers
            );
            let p = Program::decode(&c.bytes).unwrap();
            let constants = literal_constants(&c);
            let mut rng = Rng(0x5a);
            for _ in 0..100 {
                let (x, y) = (rng.float(0.0, 1.0), rng.float(0.0, 0.99));
                let mut varyings = vec![[0.0f32; 4]; 8];
                varyings[number(&c.reflection.inputs[0].register)] = [x, y, 0.0, 0.0];
                let out = run_fragment(
                    &p,
                    &varyings,
                    &FragmentInputs {
                        constants: &constants,
                        textures: &bound,
                    },
                )
                .unwrap();
                let want = expected(f64::from(x), f64::from(y));
                for (l, w) in want.iter().enumerate() {
                    let g = f64::from(out.colors[0][l]);
                    assert!(
                        (g - w).abs() <= 1e-5 * w.abs().max(1.0),
                        "{file} {profile:?} at ({x}, {y}) lane {l}: {g} vs {w}\n{}",
                        c.listing
                    );
                }
            }
        }
    }
}
