//! The PICA200 half of the hand-written reference set: every GLSL rewrite in
//! `tests/fixtures/handwritten/pica/`, compiled, runs in the simulator on the same random
//! inputs and uniforms as the hand-written original (the `.shbin` picasso made from it) and
//! writes the same outputs. A rewrite that computed something else than its original would
//! make the size report's comparison meaningless.

use std::collections::{BTreeMap, BTreeSet};

use backend_pica::shbin::{self, Dvle, Output, Semantic, UniformFile};
use backend_pica::sim::{Outcome, Simulator, Uniforms};
use spv2retro::Compiled;
use test_kit::within;
use tests::driven::register_number;
use tests::handwritten::pica::{self, Program};
use tests::mirtest::Rng;

/// Random cases per program.
const CASES: usize = 100;

/// The test's draws, on the shared generator (`tests::mirtest::Rng`).
trait Draws {
    /// A sensible value: in [-2, 2).
    fn value(&mut self) -> [f32; 4];
    /// A value no program should read: large, so reading it shows.
    fn garbage(&mut self) -> [f32; 4];
    fn bool(&mut self) -> bool;
}

impl Draws for Rng {
    fn value(&mut self) -> [f32; 4] {
        self.lanes(-2.0, 2.0)
    }

    fn garbage(&mut self) -> [f32; 4] {
        std::array::from_fn(|_| {
            let v = self.float(1000.0, 5000.0);
            if self.next_u64() & 1 == 0 { v } else { -v }
        })
    }

    fn bool(&mut self) -> bool {
        self.next_u64() & 1 == 0
    }
}

/// An output register and one of its lanes.
type Lane = (usize, usize);

/// libctru's output map: which (register, lane) each rasterizer attribute component comes
/// from. The `n`-th component of a semantic is the `n`-th lane of its entry's mask.
fn attribute_components(outputs: &[Output]) -> BTreeMap<(&'static str, u8), Lane> {
    let mut map = BTreeMap::new();
    for o in outputs {
        let count = match o.semantic {
            Semantic::Position | Semantic::NormalQuat | Semantic::Color => 4,
            Semantic::TexCoord0 | Semantic::TexCoord1 | Semantic::TexCoord2 => 2,
            Semantic::TexCoord0W => 1,
            Semantic::View => 3,
            Semantic::Dummy => 0,
        };
        let lanes = (0..4).filter(|l| o.mask.bits() & (1 << l) != 0);
        for (n, lane) in lanes.take(count).enumerate() {
            map.insert((o.semantic.name(), n as u8), (usize::from(o.reg), lane));
        }
    }
    map
}

/// Float uniforms as (first register, count) and bool uniforms as their register, by name.
#[derive(Default)]
struct UniformPlaces {
    float: BTreeMap<String, (usize, usize)>,
    bool: BTreeMap<String, usize>,
}

fn original_uniforms(d: &Dvle) -> UniformPlaces {
    let mut places = UniformPlaces::default();
    for u in &d.uniforms {
        match u.range() {
            Some((UniformFile::Float, first, count)) => {
                places
                    .float
                    .insert(u.name.clone(), (usize::from(first), usize::from(count)));
            }
            Some((UniformFile::Bool, first, _)) => {
                places.bool.insert(u.name.clone(), usize::from(first));
            }
            _ => {}
        }
    }
    places
}

fn compiled_uniforms(c: &Compiled) -> UniformPlaces {
    let mut places = UniformPlaces::default();
    for u in &c.reflection.uniforms {
        let reg = register_number(&u.register);
        if u.register.starts_with('b') {
            places.bool.insert(u.name.clone(), reg);
        } else {
            places
                .float
                .insert(u.name.clone(), (reg, u.count.max(1) as usize));
        }
    }
    places
}

/// The input registers a program declares: the compiled one's reflection, the original's
/// `.in` entries.
fn original_inputs(d: &Dvle) -> Vec<usize> {
    d.uniforms
        .iter()
        .filter_map(|u| match u.range() {
            Some((UniformFile::Input, first, count)) => {
                Some((usize::from(first)..usize::from(first + count)).collect::<Vec<_>>())
            }
            _ => None,
        })
        .flatten()
        .collect()
}

/// Runs one reference on [`CASES`] random cases; the differences found, described.
fn check(program: &Program) -> Result<(), String> {
    let reference = program.reference();
    let hand_bytes = std::fs::read(&reference.original).map_err(|e| e.to_string())?;
    let hand = Simulator::new(&hand_bytes).map_err(|e| e.to_string())?;
    let hand_dvle = &hand.binary().dvles[program.dvle];
    let compiled = reference.compile();
    let ours = Simulator::new(&compiled.bytes).map_err(|e| e.to_string())?;
    let ours_dvle = &shbin::read(&compiled.bytes).unwrap().dvles[0];

    let (hand_u, ours_u) = (original_uniforms(hand_dvle), compiled_uniforms(&compiled));
    let mut inputs: Vec<usize> = compiled
        .reflection
        .inputs
        .iter()
        .map(|i| register_number(&i.register))
        .collect();
    inputs.extend(original_inputs(hand_dvle));

    // What to compare: every attribute component the original's output map has, or, for a
    // program feeding a geometry program, every lane of its output registers against the
    // rewrite's outputs of the given names.
    let hand_map = attribute_components(&hand_dvle.outputs);
    let ours_map = attribute_components(&ours_dvle.outputs);
    let mut pairs: Vec<(String, Lane, Lane)> = Vec::new();
    for (&(semantic, n), &at) in &hand_map {
        if program
            .by_register
            .iter()
            .any(|&(r, _)| usize::from(r) == at.0)
        {
            continue;
        }
        let theirs = ours_map
            .get(&(semantic, n))
            .ok_or_else(|| format!("the rewrite has no {semantic} component {n}"))?;
        pairs.push((format!("{semantic}[{n}]"), at, *theirs));
    }
    for &(reg, name) in program.by_register {
        let entry = hand_dvle
            .outputs
            .iter()
            .find(|o| o.reg == reg)
            .ok_or_else(|| format!("the original has no output o{reg}"))?;
        let out = compiled
            .reflection
            .outputs
            .iter()
            .find(|o| o.name == name)
            .ok_or_else(|| format!("the rewrite has no output {name}"))?;
        let r = register_number(&out.register);
        for lane in 0..4 {
            if entry.mask.bits() & (1 << lane) == 0 {
                continue;
            }
            if !out.mask.contains("xyzw".as_bytes()[lane] as char) {
                return Err(format!(
                    "the rewrite's {name} ({}.{}) lacks lane {} of the original's o{reg}",
                    out.register,
                    out.mask,
                    "xyzw".as_bytes()[lane] as char
                ));
            }
            pairs.push((
                format!("{name}.{lane}"),
                (usize::from(reg), lane),
                (r, lane),
            ));
        }
    }
    if pairs.is_empty() {
        return Err("nothing to compare".into());
    }

    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ reference.name.len() as u64);
    for case in 0..CASES {
        let mut v: [[f32; 4]; 16] = std::array::from_fn(|_| rng.garbage());
        for &i in &inputs {
            v[i] = rng.value();
        }
        let mut hu = Uniforms::default();
        for r in hu.float.iter_mut() {
            *r = rng.garbage();
        }
        for b in hu.bool.iter_mut() {
            *b = rng.bool();
        }
        let mut ou = hu.clone();
        // Float uniforms by name: the same values in both, as many registers as either
        // declares (sf2d's `transform` is one register in the original's table and four
        // in its code).
        let names: BTreeSet<&String> = hand_u.float.keys().chain(ours_u.float.keys()).collect();
        for name in names {
            let count = [&hand_u, &ours_u]
                .iter()
                .filter_map(|u| u.float.get(name))
                .map(|p| p.1)
                .max()
                .unwrap_or(0);
            let values: Vec<[f32; 4]> = (0..count).map(|_| rng.value()).collect();
            if let Some(&(at, _)) = hand_u.float.get(name) {
                hu.float[at..at + count].copy_from_slice(&values);
            }
            if let Some(&(at, _)) = ours_u.float.get(name) {
                ou.float[at..at + count].copy_from_slice(&values);
            }
        }
        // Bool uniforms both ways. GLSL's loose `uniform bool` reaches the compiler as an
        // int in a float register (0 or 1, docs/conventions.md "Classic GLSL").
        let names: BTreeSet<&String> = hand_u.bool.keys().chain(ours_u.bool.keys()).collect();
        for name in names {
            let value = rng.bool();
            if let Some(&at) = hand_u.bool.get(name) {
                hu.bool[at] = value;
            }
            if let Some(&at) = ours_u.bool.get(name) {
                ou.bool[at] = value;
            } else if let Some(&(at, _)) = ours_u.float.get(name) {
                ou.float[at] = [f32::from(u8::from(value)), 0.0, 0.0, 0.0];
            }
        }
        let theirs: Outcome = hand
            .run(program.dvle, &v, &hu)
            .map_err(|e| format!("case {case}: the original fails: {e}"))?;
        let mine: Outcome = ours
            .run(0, &v, &ou)
            .map_err(|e| format!("case {case}: the rewrite fails: {e}"))?;
        for (what, (hr, hl), (or, ol)) in &pairs {
            let (a, b) = (theirs.outputs[*hr][*hl], mine.outputs[*or][*ol]);
            if !within(b, a, 1e-3, 1e-3) {
                return Err(format!(
                    "case {case}: {what}: hand-written {a}, compiled {b} (inputs {v:?})"
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn every_rewrite_computes_what_its_hand_written_original_computes() {
    let mut failures = Vec::new();
    for program in pica::PROGRAMS {
        if let Some(why) = program.original_unrunnable {
            println!("{}: not simulated: {why}", program.name);
            continue;
        }
        match (check(program), program.known_compiler_bug) {
            (Ok(()), None) => {}
            (Err(e), None) => failures.push(format!("{}: {e}", program.name)),
            (Err(e), Some(bug)) => {
                println!("{}: known compiler bug ({bug}): {e}", program.name);
            }
            (Ok(()), Some(bug)) => failures.push(format!(
                "{}: marked as a known compiler bug ({bug}) but agrees with its original now",
                program.name
            )),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn hand_counts_are_counted_as_compiled_programs_are() {
    let simple_tri = pica::references()
        .into_iter()
        .find(|r| r.name == "3ds-examples/simple_tri")
        .unwrap();
    // mov, mov, 4 dp4, mov, end.
    assert_eq!(simple_tri.hand_instructions, 8);
}
