//! A preview of every shader of the corpora renders (`spv2retro preview`'s library): every
//! vertex shader of `tests/fixtures/glsl`, `classic` and `geometry` on the PICA200 and in
//! AGAL over the cube, every fragment shader in AGAL over the full-screen quad, each pair of
//! the classic corpus together. Default values (zeros, identity matrices, the built-in
//! textures), 32×32. A shader the compiler refuses by rule is counted, not drawn; one that
//! compiles and does not render is a failure.

use spv2retro::{Compiled, Options, Profile, Source, Stage, compile};
use tests::fixtures;

fn program(c: &Compiled) -> preview::Program<'_> {
    preview::Program {
        bytes: &c.bytes,
        reflection: &c.reflection,
    }
}

fn draw(c: &Compiled, name: &str, mesh: &preview::mesh::Mesh) -> preview::Frame {
    let values = preview::Values::default();
    let scene = if c.reflection.stage == "fragment" {
        preview::Scene::Fragment {
            program: program(c),
            values: &values,
        }
    } else {
        preview::Scene::Vertex {
            program: program(c),
            values: &values,
            mesh,
        }
    };
    preview::render(scene, 32, 32, &mut |_, _| {})
        .unwrap_or_else(|e| panic!("{name} ({}): {e}", c.reflection.target))
}

#[test]
fn every_corpus_shader_previews() {
    let cube = preview::mesh::cube();
    let (mut drawn, mut refused, mut visible) = (0, 0, 0);
    let mut sources: Vec<std::path::PathBuf> = Vec::new();
    for dir in ["glsl", "classic", "geometry"] {
        let mut files: Vec<_> = std::fs::read_dir(fixtures(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                matches!(
                    p.extension().and_then(|e| e.to_str()),
                    Some("vert" | "frag")
                )
            })
            .collect();
        files.sort();
        sources.extend(files);
    }
    for path in &sources {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        let stage = if name.ends_with(".frag") {
            Stage::Fragment
        } else {
            Stage::Vertex
        };
        let targets: Vec<Options> = match stage {
            Stage::Fragment => vec![Options::agal(Profile::Standard)],
            _ => vec![Options::pica(), Options::agal(Profile::Standard)],
        };
        for options in targets {
            // The .spv glslang made where naga cannot read the source.
            let spv = std::fs::read(format!("{name}.spv")).ok();
            let compiled = match &spv {
                Some(bytes) => compile(Source::spirv(bytes).named(&name), &options),
                None => compile(Source::glsl(&text, stage).named(&name), &options),
            };
            let c = match compiled {
                Ok(c) => c,
                Err(e) => {
                    // Refused by a rule (a limit, a construct a target lacks), never an
                    // internal error.
                    assert!(!e.to_string().contains("internal"), "{name}: {e}");
                    refused += 1;
                    continue;
                }
            };
            let frame = draw(&c, &name, &cube);
            drawn += 1;
            let background = &frame.rgba[0..4];
            if frame.rgba.chunks(4).any(|p| p != background) {
                visible += 1;
            }
        }
    }
    println!(
        "{drawn} previews drawn ({visible} with something on them), {refused} refused by rule"
    );
    assert!(drawn >= 80, "only {drawn} previews drawn");
    // With identity matrices and zero uniforms some shaders draw nothing visible (a zero
    // scale); most draw something.
    assert!(
        visible * 2 > drawn,
        "only {visible} of {drawn} show anything"
    );
}

/// The geometry corpus draws with its vertex shaders (PICA200, linked as `spv2pica` links
/// them), and a classic pair draws together in AGAL: something is on each picture.
#[test]
fn pairs_preview_together() {
    use spv2retro::picasso::link;
    let sphere = preview::mesh::sphere(12, 6);
    let visible = |f: &preview::Frame| {
        let bg = &f.rgba[0..4];
        f.rgba.chunks(4).filter(|p| *p != bg).count()
    };
    for name in ["sprite", "line", "subdivide", "geoshader"] {
        let dir = fixtures("geometry");
        let v = std::fs::read(dir.join(format!("{name}.vert.spv"))).unwrap();
        let g = std::fs::read(dir.join(format!("{name}.geom.spv"))).unwrap();
        let linked = link(
            &[Source::spirv(&v).named("v"), Source::spirv(&g).named("g")],
            &Options::pica(),
            true,
        )
        .unwrap();
        let (vs, gs) = (
            linked.shaders[0].compiled.as_ref().unwrap(),
            linked.shaders[1].compiled.as_ref().unwrap(),
        );
        // Sprites need a size, lines a width; the rest draws with the defaults.
        let mut vv = preview::Values::default();
        let mut gv = preview::Values::default();
        if name == "sprite" {
            vv.inputs.push(("inSize".into(), vec![0.1]));
        }
        if name == "line" {
            gv.uniforms.push(("width".into(), vec![0.01]));
        }
        let frame = preview::render(
            preview::Scene::Geometry {
                vertex: program(vs),
                vertex_values: &vv,
                geometry: program(gs),
                geometry_values: &gv,
                mesh: &sphere,
            },
            48,
            48,
            &mut |_, _| {},
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            visible(&frame) > 100,
            "{name}: {} pixels drawn",
            visible(&frame)
        );
    }
    // A WebGL pair in AGAL: the fragment shader shades what the vertex shader draws.
    let (vt, ft) = (
        std::fs::read_to_string(fixtures("classic").join("webgl_textured.vert")).unwrap(),
        std::fs::read_to_string(fixtures("classic").join("webgl_textured.frag")).unwrap(),
    );
    let (v, f) = spv2retro::compile_pair(
        Source::glsl(&vt, Stage::Vertex),
        Source::glsl(&ft, Stage::Fragment),
        &Options::agal(Profile::Standard),
    )
    .unwrap();
    let values = preview::Values::default();
    let frame = preview::render(
        preview::Scene::Pair {
            vertex: program(&v),
            vertex_values: &values,
            fragment: program(&f),
            fragment_values: &values,
            mesh: &preview::mesh::cube(),
        },
        48,
        48,
        &mut |_, _| {},
    )
    .unwrap();
    assert!(
        visible(&frame) > 100,
        "the pair drew {} pixels",
        visible(&frame)
    );
}
