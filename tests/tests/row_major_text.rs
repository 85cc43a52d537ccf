//! `layout(row_major)` in GLSL text. naga's front end has no matrix layouts, so the rewrite
//! declares a row-major matrix as its transposed type (which holds the same registers by
//! column: one row per register, what citro3d uploads and AGAL's `m44` reads) and reads it
//! through `transpose`. Every corpus shader that says `row_major` is compiled from its text
//! (naga) and from glslang's SPIR-V of the same text, for the PICA200 (vertex shaders) and
//! AGAL: the reflections must place and describe every uniform alike (`row_major` included),
//! and both programs, driven by name with the same random values, must compute the same
//! outputs. Two independent front ends agreeing is the check.

use preview::{Program, Values, run};
use spv2retro::{Compiled, Options, Profile, Source, Stage, compile};
use tests::mirtest::Rng;

/// The corpus shaders that declare row-major matrices (block, member or loose).
const SHADERS: &[&str] = &[
    "ctr_simple_tri.vert",
    "ctr_skybox.vert",
    "ctr_textured_cube.vert",
    "ctr_lenny.vert",
    "row_major_block.vert",
    "row_major_forms.vert",
    "skinning2_affine.vert",
    "skybox.vert",
    "stage3d_mesh.vert",
    "stage3d_skybox.vert",
    "starling_mesh.vert",
    "color_matrix.frag",
    "stage3d_color_matrix.frag",
];

fn both(stem: &str, options: &Options) -> (Compiled, Compiled) {
    let dir = tests::fixtures("glsl");
    let text = std::fs::read_to_string(dir.join(stem)).unwrap();
    assert!(text.contains("row_major"), "{stem} says row_major");
    let spv = std::fs::read(dir.join(format!("{stem}.spv"))).unwrap();
    let stage = if stem.ends_with(".frag") {
        Stage::Fragment
    } else {
        Stage::Vertex
    };
    let from_text = compile(Source::glsl(&text, stage).named(stem), options)
        .unwrap_or_else(|e| panic!("{stem} from text: {e}"));
    let from_spirv = compile(Source::spirv(&spv).named(stem), options)
        .unwrap_or_else(|e| panic!("{stem} from SPIR-V: {e}"));
    (from_text, from_spirv)
}

#[test]
fn row_major_matrices_in_glsl_text_compute_what_glslang_compiles() {
    let mut rng = Rng(0x0a0f);
    let texture = backend_agal::sim::Image::new_2d(
        2,
        2,
        vec![
            [0.1, 0.2, 0.3, 0.4],
            [0.9, 0.5, 0.1, 0.7],
            [0.4, 0.8, 0.6, 0.2],
            [0.3, 0.3, 0.9, 1.0],
        ],
    )
    .unwrap();
    let mut compared = 0;
    for stem in SHADERS {
        let fragment = stem.ends_with(".frag");
        let mut targets = vec![Options::agal(Profile::Baseline)];
        if !fragment {
            targets.push(Options::pica());
        }
        for options in targets {
            let options = if fragment {
                options.stage(Stage::Fragment)
            } else {
                options
            };
            let (text, spirv) = both(stem, &options);
            let described = |c: &Compiled| -> Vec<(String, String, u8, Option<String>)> {
                c.reflection
                    .uniforms
                    .iter()
                    .map(|u| {
                        (
                            u.name.clone(),
                            u.register.clone(),
                            u.component,
                            u.layout.clone(),
                        )
                    })
                    .collect()
            };
            assert_eq!(described(&text), described(&spirv), "{stem}: the uniforms");
            assert!(
                text.reflection
                    .uniforms
                    .iter()
                    .any(|u| u.layout.as_deref() == Some("row_major")),
                "{stem}: a row_major uniform"
            );
            for case in 0..20 {
                let mut values = Values {
                    textures: (0..8).map(|b| (b, texture.clone())).collect(),
                    ..Values::default()
                };
                for i in &spirv.reflection.inputs {
                    values
                        .inputs
                        .push((i.name.clone(), rng.lanes(-1.0, 1.0).to_vec()));
                }
                for u in &spirv.reflection.uniforms {
                    let n = 4 * u.count as usize;
                    values.uniforms.push((
                        u.name.clone(),
                        (0..n).map(|_| rng.float(-1.0, 1.0)).collect(),
                    ));
                }
                let go = |c: &Compiled| {
                    run(
                        Program {
                            bytes: &c.bytes,
                            reflection: &c.reflection,
                        },
                        &values,
                    )
                    .unwrap_or_else(|e| panic!("{stem}: {e}"))
                };
                let (a, b) = (go(&text), go(&spirv));
                assert_eq!(a.outputs.len(), b.outputs.len(), "{stem}");
                for x in &a.outputs {
                    let y = b.outputs.iter().find(|y| y.name == x.name);
                    let y = y.unwrap_or_else(|| panic!("{stem}: no {} from SPIR-V", x.name));
                    for l in 0..4 {
                        let (p, q) = (x.value[l], y.value[l]);
                        assert!(
                            (p - q).abs() <= 1e-3 * (1.0 + q.abs()),
                            "{stem} ({:?}) case {case}: {} lane {l}: from text {p}, from \
                             SPIR-V {q}",
                            options.target,
                            x.name
                        );
                    }
                }
                compared += 1;
            }
        }
    }
    assert!(compared >= 20 * 20, "{compared} runs compared");
}
