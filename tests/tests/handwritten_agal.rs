//! The AGAL half of the hand-written reference set (`tests::handwritten::agal`): every
//! original is assembled, its GLSL rewrite compiled from its text, and both run in the AGAL
//! simulator on the same random cases, fed as the application feeds them: the original's
//! constant registers with what the project uploads (the `// @const` lines and random
//! per-draw `// @uniform` values), the compiled program's by its reflection (the same per-draw
//! values by uniform name, its literals from `reflection.constants`). Both see the same vertex
//! attributes, varyings and textures; every register neither should read holds large garbage.
//! The vertex outputs (`op` and the varyings the rewrite declares) or the fragment colour must
//! agree.
//!
//! The sizes are held to account by `handwritten_size.rs` (`-- --nocapture` prints the table).

use backend_agal::sim::{
    FragmentInputs, Texture, Textures, Vec4, VertexInputs, run_fragment, run_vertex,
};
use backend_agal::{Program, validate};
use spv2retro::{Source, Stage};
use test_kit::{SplitMix64, close};
use tests::handwritten::agal::{Format, Original, Range, Setup, originals};

/// Rewrites whose compiled program is known to disagree with the original (or that the
/// compiler refuses) because of a compiler bug: name and what goes wrong. The test checks that
/// they still fail, so that the entry is removed when the bug is fixed.
const KNOWN_BUGS: &[(&str, &str)] = &[];

/// Random cases per reference.
const CASES: usize = 100;

/// What registers nobody should read hold.
const GARBAGE: f32 = 7.0e5;

/// How far the two programs' lanes may differ ([`close`]: relative, absolute below 1).
const TOLERANCE: f32 = 1e-4;

/// The generator of one reference: SplitMix64, seeded by its name.
fn rng_for(name: &str) -> SplitMix64 {
    SplitMix64(name.bytes().fold(0x9e37_79b9_7f4a_7c15u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    }))
}

/// A float in `range`.
fn draw(rng: &mut SplitMix64, (lo, hi): Range) -> f32 {
    rng.float(lo, hi)
}

/// The range of item `i` of a list whose last entry repeats.
fn range_at(ranges: &[Range], i: usize) -> Range {
    ranges
        .get(i)
        .or(ranges.last())
        .copied()
        .unwrap_or((0.0, 1.0))
}

/// A smooth texture, different per sampler, sampled at the raw coordinate (so neither
/// program's sampler flags or filtering matter: both see the same function of u and v). A cube
/// map is the same kind of function of the normalised direction (a cube map sees only the
/// direction, not its length).
struct Smooth {
    sampler: u16,
    cube: bool,
}

impl Texture for Smooth {
    fn is_cube(&self) -> bool {
        self.cube
    }
    fn levels(&self) -> u32 {
        1
    }
    fn size(&self, _level: u32) -> (u32, u32) {
        (1, 1)
    }
    fn texel(&self, _face: u32, _level: u32, _x: u32, _y: u32) -> Vec4 {
        [0.0; 4]
    }
    fn exact(&self, coord: Vec4, _bias: f32) -> Option<Vec4> {
        let s = f32::from(self.sampler);
        let wave = |a: f32| 0.5 + 0.5 * a.sin();
        if self.cube {
            let len = (coord[0] * coord[0] + coord[1] * coord[1] + coord[2] * coord[2]).sqrt();
            let (x, y, z) = (coord[0] / len, coord[1] / len, coord[2] / len);
            return Some([
                wave(2.1 * x + 1.3 * y - 0.7 * z + s),
                wave(1.7 * x - 2.3 * y + 1.9 * z + 0.4),
                wave(3.1 * x * y + 1.1 * z + 0.5),
                0.05 + 0.95 * wave(0.9 * x + 2.7 * z - s + 1.1),
            ]);
        }
        let (u, v) = (coord[0], coord[1]);
        Some([
            wave(2.1 * u + 1.3 * v + s),
            wave(1.7 * u - 2.3 * v + 2.0 * s + 0.4),
            wave(3.1 * u * v + 0.5 + s),
            0.05 + 0.95 * wave(0.9 * u + 2.7 * v - s + 1.1),
        ])
    }
}

/// The samplers an original reads as cube maps: those of its `tex` lines with `cube` among the
/// flags.
fn cube_samplers(text: &str) -> Vec<u16> {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .filter_map(|l| {
            let (operands, flags) = l.split_once('<')?;
            if !flags.to_ascii_lowercase().contains("cube") {
                return None;
            }
            operands
                .split(|c: char| c == ',' || c.is_whitespace())
                .find_map(|w| w.strip_prefix("fs")?.parse().ok())
        })
        .collect()
}

/// Textures at `fs0` … `fs7`.
struct Bound(Vec<Smooth>);

impl Textures for Bound {
    fn texture(&self, sampler: u16) -> Option<&dyn Texture> {
        self.0.get(usize::from(sampler)).map(|t| t as &dyn Texture)
    }
}

/// The number in a register name (`vc12` → 12).
fn number(register: &str) -> Option<usize> {
    let digits = register.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    digits.parse().ok()
}

/// One case's per-draw values, by uniform name (a `// @uniform` line's ranges are per lane of
/// a register, or one for all).
fn draw_values(setup: &Setup, rng: &mut SplitMix64) -> Vec<(String, Vec<f32>)> {
    setup
        .uploads
        .iter()
        .map(|u| {
            let values = if u.splat {
                vec![draw(rng, range_at(&u.ranges, 0)); u.floats]
            } else {
                (0..u.floats)
                    .map(|i| draw(rng, range_at(&u.ranges, i % 4)))
                    .collect()
            };
            (u.name.clone(), values)
        })
        .collect()
}

/// The original's constant registers: garbage, the fixed uploads, the per-draw values.
fn original_constants(setup: &Setup, values: &[(String, Vec<f32>)]) -> Vec<Vec4> {
    let mut c = vec![[GARBAGE; 4]; 256];
    for &(reg, v) in &setup.constants {
        c[usize::from(reg)] = v;
    }
    for (u, (_, floats)) in setup.uploads.iter().zip(values) {
        for (i, &f) in floats.iter().enumerate() {
            let at = usize::from(u.register) * 4 + i;
            c[at / 4][at % 4] = f;
        }
    }
    c
}

/// The compiled program's constant registers, loaded through its reflection.
fn compiled_constants(
    reflection: &spv2retro::Reflection,
    values: &[(String, Vec<f32>)],
) -> Result<Vec<Vec4>, String> {
    let mut c = vec![[GARBAGE; 4]; 256];
    for k in &reflection.constants {
        let n = number(&k.register).ok_or_else(|| format!("constant in {}", k.register))?;
        c[n] = k.value;
    }
    for (name, floats) in values {
        let u = reflection
            .uniforms
            .iter()
            .find(|u| u.name == *name)
            .ok_or_else(|| format!("the rewrite has no uniform `{name}`"))?;
        let start = number(&u.register).ok_or_else(|| format!("uniform in {}", u.register))?;
        let capacity = u.count as usize * 4 - usize::from(u.component);
        if floats.len() > capacity {
            return Err(format!(
                "uniform `{name}` holds {capacity} floats, not {}",
                floats.len()
            ));
        }
        for (i, &f) in floats.iter().enumerate() {
            let at = start * 4 + usize::from(u.component) + i;
            c[at / 4][at % 4] = f;
        }
    }
    Ok(c)
}

/// The vertex attributes as the buffer's formats give them.
fn attributes(setup: &Setup, rng: &mut SplitMix64) -> Vec<Vec4> {
    let mut a = vec![[GARBAGE; 4]; 8];
    for attr in &setup.attributes {
        let present = match attr.format {
            Format::Float(n) => n,
            Format::Bytes4 => 4,
        };
        let mut v = [0.0, 0.0, 0.0, 1.0];
        for (lane, slot) in v.iter_mut().enumerate().take(present) {
            *slot = draw(rng, range_at(&attr.ranges, lane));
            if attr.format == Format::Bytes4 {
                *slot = (*slot * 255.0).round() / 255.0;
            }
        }
        a[usize::from(attr.register)] = v;
    }
    a
}

/// The fragment program's varyings: all four lanes of each one the original reads.
fn varyings(setup: &Setup, rng: &mut SplitMix64) -> Vec<Vec4> {
    let mut v = vec![[GARBAGE; 4]; backend_agal::sim::VARYINGS];
    for var in &setup.varyings {
        let mut value = [0.0; 4];
        for (lane, slot) in value.iter_mut().enumerate() {
            *slot = draw(rng, range_at(&var.ranges, lane));
        }
        v[usize::from(var.register)] = value;
    }
    v
}

fn fmt4(v: Vec4) -> String {
    format!("[{:.6}, {:.6}, {:.6}, {:.6}]", v[0], v[1], v[2], v[3])
}

/// Runs one reference: `Err` with the first disagreement (or refusal).
fn check(o: &Original) -> Result<(), String> {
    let r = &o.reference;
    let hand = Program::decode(&o.assemble()).map_err(|e| format!("original: {e}"))?;
    validate(&o.assemble(), o.setup.profile).map_err(|e| format!("original invalid: {e:?}"))?;
    let text = std::fs::read_to_string(&r.rewrite).map_err(|e| e.to_string())?;
    let compiled = spv2retro::compile(
        Source::glsl(&text, r.stage).named(r.rewrite.to_string_lossy()),
        &r.options(),
    )
    .map_err(|e| format!("the compiler refuses the rewrite: {e}"))?;
    validate(&compiled.bytes, o.setup.profile)
        .map_err(|e| format!("compiled program invalid: {e:?}"))?;
    let program = Program::decode(&compiled.bytes).map_err(|e| format!("compiled: {e}"))?;
    let reflection = &compiled.reflection;
    if r.stage == Stage::Vertex {
        for input in &reflection.inputs {
            if input.register != format!("va{}", input.location) {
                return Err(format!("input `{}` is in {}", input.name, input.register));
            }
        }
    }
    let cubes = cube_samplers(&o.text);
    let textures = Bound(
        (0..8)
            .map(|sampler| Smooth {
                sampler,
                cube: cubes.contains(&sampler),
            })
            .collect(),
    );
    let mut rng = rng_for(&r.name);
    for case in 0..CASES {
        let values = draw_values(&o.setup, &mut rng);
        let hand_constants = original_constants(&o.setup, &values);
        let constants = compiled_constants(reflection, &values)?;
        let fail = |what: &str, want: Vec4, got: Vec4| {
            format!(
                "case {case}: {what}: original {}, rewrite {}\n  per-draw values: {values:?}\n  compiled:\n{}",
                fmt4(want),
                fmt4(got),
                compiled.listing
            )
        };
        match r.stage {
            Stage::Vertex => {
                let attrs = attributes(&o.setup, &mut rng);
                let run = |p: &Program, c: &[Vec4]| {
                    run_vertex(
                        p,
                        &VertexInputs {
                            attributes: &attrs,
                            constants: c,
                            instance_id: 0,
                        },
                    )
                };
                let want = run(&hand, &hand_constants).map_err(|e| format!("original: {e}"))?;
                let got = run(&program, &constants).map_err(|e| format!("rewrite: {e}"))?;
                if !(0..4).all(|l| close(want.position[l], got.position[l], TOLERANCE)) {
                    return Err(fail(
                        &format!("op (attributes {attrs:?})"),
                        want.position,
                        got.position,
                    ));
                }
                for var in &o.setup.varyings {
                    let n = usize::from(var.register);
                    let (w, g) = (want.varyings[n], got.varyings[n]);
                    if !var.lanes.iter().all(|&l| close(w[l], g[l], TOLERANCE)) {
                        return Err(fail(&format!("v{n} (attributes {attrs:?})"), w, g));
                    }
                }
            }
            _ => {
                let vars = varyings(&o.setup, &mut rng);
                let run = |p: &Program, c: &[Vec4]| {
                    run_fragment(
                        p,
                        &vars,
                        &FragmentInputs {
                            constants: c,
                            textures: &textures,
                        },
                    )
                };
                let want = run(&hand, &hand_constants).map_err(|e| format!("original: {e}"))?;
                let got = run(&program, &constants).map_err(|e| format!("rewrite: {e}"))?;
                if want.discarded != got.discarded {
                    return Err(format!(
                        "case {case}: discarded: original {}, rewrite {}",
                        want.discarded, got.discarded
                    ));
                }
                let (w, g) = (want.colors[0], got.colors[0]);
                if !(0..4).all(|l| close(w[l], g[l], TOLERANCE)) {
                    return Err(fail(&format!("oc (varyings {vars:?})"), w, g));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn every_rewrite_computes_what_its_original_computes() {
    let mut failures = Vec::new();
    for o in originals() {
        let name = o.reference.name.as_str();
        let known = KNOWN_BUGS.iter().find(|(n, _)| *n == name);
        match (check(&o), known) {
            (Ok(()), None) => {}
            (Err(e), None) => failures.push(format!("{name}: {e}")),
            (Err(e), Some((_, why))) => {
                eprintln!("{name}: known compiler bug ({why}):\n  {e}");
            }
            (Ok(()), Some(_)) => failures.push(format!(
                "{name}: listed in KNOWN_BUGS but now agrees with its original; remove the entry"
            )),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

/// Every `fs` the original samples is declared, and the originals' fixed uploads fit.
#[test]
fn setups_are_consistent() {
    for o in originals() {
        for s in &o.setup.samplers {
            let tag = format!("fs{s}");
            assert!(o.text.contains(&tag), "{}: no {tag}", o.reference.name);
        }
        assert!(o.reference.hand_instructions > 0, "{}", o.reference.name);
    }
}
