//! The pica half of the hand-written reference set (see the parent module).
//!
//! Every distinct hand-written PICA200 vertex program among the picasso sets in
//! `tests/fixtures/thirdparty/picasso/`, rewritten in GLSL in `tests/fixtures/handwritten/pica/`
//! (that folder's README lists each with its original and licence, and the programs left out).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use backend_pica::decode;
use backend_pica::inst::Inst;
use backend_pica::shbin::{self, Dvle, Output, Semantic, UniformFile};
use backend_pica::sim::{Outcome, Simulator, Uniforms};
use spv2retro::{Compiled, Stage};
use test_kit::within;

use super::{Reference, Target};
use crate::driven::register_number;
use crate::fixtures;
use crate::mirtest::Rng;

/// One hand-written program: where it is and how to compare its rewrite with it.
#[derive(Clone, Copy, Debug)]
pub struct Program {
    /// `project/program`, the reference's name.
    pub name: &'static str,
    /// The rewrite's file in `tests/fixtures/handwritten/pica/`.
    pub rewrite: &'static str,
    /// The picasso set, under `tests/fixtures/thirdparty/picasso/`.
    pub set: &'static str,
    /// The hand-written source file in the set.
    pub source: &'static str,
    /// The DVLE of the set's `picasso.shbin` that holds the program (a set that also has a
    /// geometry program holds two).
    pub dvle: usize,
    /// For a vertex program feeding a geometry program (whose registers pass whole, whatever
    /// their semantics, `dummy` included): each original output register, compared lane by
    /// lane (its output-table mask) with the rewrite's output of this name (`gl_Position` or
    /// a GLSL output variable). Other programs are compared by semantic.
    pub by_register: &'static [(u8, &'static str)],
    /// A compiler bug the rewrite shows (the simulator check reports it without failing).
    pub known_compiler_bug: Option<&'static str>,
    /// Why the simulator cannot run the original, if it cannot (the check is skipped).
    pub original_unrunnable: Option<&'static str>,
    /// Locations the rewrite needs to be `dummy` (`Options::semantic`) to carry what the
    /// original passes to a geometry program. [`Reference::options`] is fixed, so such a
    /// program is not among [`references`]; `tests/tests/handwritten_pica.rs` checks it
    /// with these options.
    pub dummy_locations: &'static [u32],
}

const fn program(
    name: &'static str,
    rewrite: &'static str,
    set: &'static str,
    source: &'static str,
) -> Program {
    Program {
        name,
        rewrite,
        set,
        source,
        dvle: 0,
        by_register: &[],
        known_compiler_bug: None,
        original_unrunnable: None,
        dummy_locations: &[],
    }
}

/// The programs, one per distinct hand-written vertex program.
pub const PROGRAMS: &[Program] = &[
    program(
        "3ds-examples/simple_tri",
        "simple_tri.vert",
        "devkitPro+3ds-examples/graphics-gpu-simple_tri-source-vshader",
        "01-vshader.v.pica",
    ),
    program(
        "3ds-examples/immediate",
        "immediate.vert",
        "devkitPro+3ds-examples/graphics-gpu-immediate-source-vshader",
        "01-vshader.v.pica",
    ),
    program(
        "3ds-examples/proctex",
        "proctex.vert",
        "devkitPro+3ds-examples/graphics-gpu-proctex-source-vshader",
        "01-vshader.v.pica",
    ),
    program(
        "3ds-examples/skybox",
        "skybox.vert",
        "devkitPro+3ds-examples/graphics-gpu-cubemap-source-skybox",
        "01-skybox.v.pica",
    ),
    program(
        "3ds-examples/textured_cube",
        "textured_cube.vert",
        "devkitPro+3ds-examples/graphics-gpu-textured_cube-source-vshader",
        "01-vshader.v.pica",
    ),
    program(
        "3ds-examples/lenny",
        "lenny.vert",
        "devkitPro+3ds-examples/graphics-gpu-lenny-source-vshader",
        "01-vshader.v.pica",
    ),
    program(
        "3ds-examples/fragment_light",
        "fragment_light.vert",
        "devkitPro+3ds-examples/graphics-gpu-fragment_light-source-vshader",
        "01-vshader.v.pica",
    ),
    program(
        "3ds-examples/normal_mapping",
        "normal_mapping.vert",
        "devkitPro+3ds-examples/graphics-gpu-normal_mapping-source-vshader",
        "01-vshader.v.pica",
    ),
    Program {
        by_register: &[(0, "gl_Position"), (1, "outclr")],
        ..program(
            "3ds-examples/geoshader",
            "geoshader.vert",
            "devkitPro+3ds-examples/graphics-gpu-geoshader-source-program",
            "01-program.v.pica",
        )
    },
    Program {
        by_register: &[(0, "gl_Position"), (1, "outtc0"), (2, "outval")],
        ..program(
            "3ds-examples/loop_subdivision",
            "loop_subdivision.vert",
            "devkitPro+3ds-examples/graphics-gpu-loop_subdivision-source-program",
            "01-program.v.pica",
        )
    },
    Program {
        by_register: &[
            (0, "gl_Position"),
            (1, "oAttrib"),
            (2, "oMatrix0"),
            (3, "oMatrix1"),
            (4, "oMatrix2"),
            (5, "oMatrix3"),
        ],
        dummy_locations: &[0, 1, 2, 3, 4],
        ..program(
            "3ds-examples/particles",
            "particles.vert",
            "devkitPro+3ds-examples/graphics-gpu-particles-source-particle",
            "01-particle.v.pica",
        )
    },
    program(
        "citro2d/render2d",
        "citro2d_render2d.vert",
        "devkitPro+citro2d/source-render2d",
        "01-render2d.v.pica",
    ),
    program(
        "citro3d/test",
        "citro3d_test.vert",
        "devkitPro+citro3d/test-3ds-source-vshader",
        "01-vshader.v.pica",
    ),
    program(
        "picasso/example",
        "picasso_example.vert",
        "devkitPro+picasso/example",
        "01-example.vsh",
    ),
    program(
        "citro3d-rs/vshader",
        "citro3d-rs_vshader.vert",
        "rust3ds+citro3d-rs/citro3d-examples-assets-vshader",
        "01-vshader.pica",
    ),
    program(
        "citro3d-rs/vshader_textured",
        "citro3d-rs_vshader_textured.vert",
        "rust3ds+citro3d-rs/citro3d-examples-assets-vshader_textured",
        "01-vshader_textured.pica",
    ),
    program(
        "citro3d-rs/frag-shader",
        "citro3d-rs_frag-shader.vert",
        "rust3ds+citro3d-rs/citro3d-examples-assets-frag-shader",
        "01-frag-shader.pica",
    ),
    program(
        "citro3d-rs/integration",
        "citro3d-rs_integration.vert",
        "rust3ds+citro3d-rs/citro3d-macros-tests-integration",
        "01-integration.pica",
    ),
    program(
        "MineSweeper3D/program",
        "minesweeper3d.vert",
        "LiquidFenrir+MineSweeper3D/source-program",
        "01-program.v.pica",
    ),
    program(
        "pp2d/vshader",
        "pp2d.vert",
        "Nanquitas+pp2d/source-vshader",
        "01-vshader.v.pica",
    ),
    program(
        "craftus_reloaded/gui",
        "craftus_gui.vert",
        "RSDuck+craftus_reloaded/source-rendering-gui",
        "01-gui.v.pica",
    ),
    program(
        "craftus_reloaded/world",
        "craftus_world.vert",
        "RSDuck+craftus_reloaded/source-rendering-world",
        "01-world.v.pica",
    ),
    program(
        "ModMoon/vshader",
        "modmoon_vshader.vert",
        "Swiftloke+ModMoon/source-vshader",
        "01-vshader.v.pica",
    ),
    program(
        "ModMoon/threetextures",
        "modmoon_threetextures.vert",
        "Swiftloke+ModMoon/source-threetextures",
        "01-threetextures.v.pica",
    ),
    program(
        "ModMoon/eventualvertex",
        "modmoon_eventualvertex.vert",
        "Swiftloke+ModMoon/source-eventualvertex",
        "01-eventualvertex.v.pica",
    ),
    program(
        "ModMoon/twocoordsinterp",
        "modmoon_twocoordsinterp.vert",
        "Swiftloke+ModMoon/source-twocoordsinterp",
        "01-twocoordsinterp.v.pica",
    ),
    program(
        "heretic3ds/vshader",
        "heretic3ds_vshader.vert",
        "elhobbs+heretic3ds/source-vshader",
        "01-vshader.pica",
    ),
    program(
        "heretic3ds/heretic",
        "heretic3ds_heretic.vert",
        "elhobbs+heretic3ds/ctr-heretic",
        "01-heretic.pica",
    ),
    program(
        "heretic3ds/ctr_rend",
        "heretic3ds_ctr_rend.vert",
        "elhobbs+heretic3ds/ctr-ctr_rend",
        "01-ctr_rend.pica",
    ),
    program(
        "ctraft/focus",
        "ctraft_focus.vert",
        "kejran+ctraft/source-focus",
        "01-focus.v.pica",
    ),
    Program {
        original_unrunnable: Some(
            "it writes o1.w twice (`mul outclr, ...` then `mov outclr.w, ones`), which the \
             simulator refuses as a GPU freeze",
        ),
        ..program(
            "ctraft/sky",
            "ctraft_sky.vert",
            "kejran+ctraft/source-sky",
            "01-sky.v.pica",
        )
    },
    program(
        "ctraft/terrain",
        "ctraft_terrain.vert",
        "kejran+ctraft/source-terrain",
        "01-terrain.v.pica",
    ),
    program(
        "lovepotion/main",
        "lovepotion_main.vert",
        "lovebrew+lovepotion/platform-ctr-assets-shaders-main",
        "01-main.v.pica",
    ),
    Program {
        by_register: &[
            (0, "gl_Position"),
            (1, "out_tc0"),
            (2, "out_col"),
            (3, "out_rot"),
        ],
        dummy_locations: &[1],
        ..program(
            "mgba/uishader",
            "mgba_uishader.vert",
            "mgba-emu+mgba/src-platform-3ds-uishader",
            "01-uishader.v.pica",
        )
    },
    program(
        "ftpd/vshader",
        "ftpd.vert",
        "mtheall+ftpd/source-3ds-vshader",
        "01-vshader.v.pica",
    ),
    program(
        "sf2dlib/shader",
        "sf2d.vert",
        "xerpi+sf2dlib/libsf2d-source-shader",
        "01-shader.v.pica",
    ),
];

impl Program {
    /// The set's folder.
    pub fn set_dir(&self) -> PathBuf {
        fixtures("thirdparty/picasso").join(self.set)
    }

    /// The `.shbin` picasso made from the set.
    pub fn shbin(&self) -> PathBuf {
        self.set_dir().join("picasso.shbin")
    }

    /// The reference.
    pub fn reference(&self) -> Reference {
        let bytes = std::fs::read(self.shbin())
            .unwrap_or_else(|e| panic!("{}: {e}", self.shbin().display()));
        Reference {
            name: self.name.to_string(),
            target: Target::Pica,
            stage: Stage::Vertex,
            rewrite: fixtures("handwritten/pica").join(self.rewrite),
            original: self.shbin(),
            hand_instructions: hand_instructions(&bytes, self.dvle),
            semantics: self
                .dummy_locations
                .iter()
                .map(|&l| (l, spv2retro::Semantic::Dummy))
                .collect(),
        }
    }

    /// The program of a reference, by name.
    pub fn of(reference: &Reference) -> &'static Program {
        PROGRAMS
            .iter()
            .find(|p| p.name == reference.name)
            .unwrap_or_else(|| panic!("{} is not a pica reference", reference.name))
    }
}

/// The pica references.
pub fn references() -> Vec<Reference> {
    PROGRAMS.iter().map(Program::reference).collect()
}

/// The instruction words of DVLE `dvle`'s program in a `.shbin`: its main procedure (from the
/// entry point up to `entry_end`, the word after main's `end`) and every procedure a `call`,
/// `callc` or `callu` in them reaches, each word once. This is what `stats.instructions`
/// counts for a compiled program, whose code is all its own (`binary.code.len()`).
pub fn hand_instructions(shbin_bytes: &[u8], dvle: usize) -> usize {
    let binary = shbin::read(shbin_bytes).expect("a .shbin");
    let d = &binary.dvles[dvle];
    let decoded = decode::decode_code(&binary.code, &binary.descriptors);
    let mut words = BTreeSet::new();
    let mut ranges = vec![(d.entry_start, d.entry_end)];
    while let Some((start, end)) = ranges.pop() {
        for pc in start..end.min(binary.code.len() as u32) {
            if !words.insert(pc) {
                continue;
            }
            let (target, num) = match decoded[pc as usize] {
                Ok(w) => match w.inst {
                    Inst::Call { target, num }
                    | Inst::CallC { target, num, .. }
                    | Inst::CallU { target, num, .. } => (target.addr(), u32::from(num)),
                    _ => continue,
                },
                Err(_) => continue,
            };
            ranges.push((target, target + num));
        }
    }
    words.len()
}

/// Random cases per program.
pub const CASES: usize = 100;

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

/// What [`compare`] measured: the most steps either program executed over the cases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compared {
    /// The hand-written original's.
    pub hand_steps: u64,
    /// The compiled rewrite's.
    pub compiled_steps: u64,
}

/// Runs one reference and its original on [`CASES`] random cases (the same inputs and
/// uniforms, by name) and compares every output they share; the first difference,
/// described, or the most steps each executed.
pub fn compare(program: &Program) -> Result<Compared, String> {
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
    let mut steps = Compared {
        hand_steps: 0,
        compiled_steps: 0,
    };
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
        steps.hand_steps = steps.hand_steps.max(theirs.steps);
        steps.compiled_steps = steps.compiled_steps.max(mine.steps);
        for (what, (hr, hl), (or, ol)) in &pairs {
            let (a, b) = (theirs.outputs[*hr][*hl], mine.outputs[*or][*ol]);
            if !within(b, a, 1e-3, 1e-3) {
                return Err(format!(
                    "case {case}: {what}: hand-written {a}, compiled {b} (inputs {v:?})"
                ));
            }
        }
    }
    Ok(steps)
}
