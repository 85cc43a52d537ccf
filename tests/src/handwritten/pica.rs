//! The pica half of the hand-written reference set (see the parent module).
//!
//! Every distinct hand-written PICA200 vertex program among the picasso sets in
//! `tests/fixtures/thirdparty/picasso/`, rewritten in GLSL in `tests/fixtures/handwritten/pica/`
//! (that folder's README lists each with its original and licence, and the programs left out).

use std::collections::BTreeSet;
use std::path::PathBuf;

use backend_pica::decode;
use backend_pica::inst::Inst;
use backend_pica::shbin;
use spv2retro::Stage;

use super::{Reference, Target};
use crate::fixtures;

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
