//! The PICA200's fragment stage in the preview: the configuration read back from a compiled
//! program's command list, `run` of the combiners from named values, a fragment shader alone
//! on the full-screen quad, and a vertex + fragment pair drawing a lit, textured cube. The
//! expected colours are computed here from the GLSL's meaning and the hardware's rules (the
//! vertex colour |c| clamped per vertex, 8-bit texels and colours, nearest texels), not by
//! the combiner simulator.

use backend_agal::sim::Image;
use preview::{Frame, Program, Scene, Values, render};
use spv2retro::{Compiled, Options, Profile, Source, Stage, compile, compile_pair};

const TEXTURED: &str = "#version 450
layout(location = 0) in vec4 vColor;
layout(location = 1) in vec2 vUv;
layout(binding = 0) uniform sampler2D tex;
layout(location = 0) out vec4 fragColor;
void main() { fragColor = texture(tex, vUv) * vColor; }
";

const TINTED: &str = "#version 450
layout(location = 0) in vec4 vColor;
uniform vec4 tint;
uniform vec4 t2;
layout(location = 0) out vec4 fragColor;
void main() {
    vec4 c = vColor * tint * t2;
    if (c.a < 0.5) discard;
    fragColor = c;
}
";

const CUBE: &str = "#version 450
layout(location = 0) in vec3 vDir;
layout(binding = 0) uniform samplerCube env;
layout(location = 0) out vec4 fragColor;
void main() { fragColor = texture(env, vDir); }
";

const MIXED: &str = "#version 450
layout(location = 0) in vec4 vColor;
layout(location = 1) in vec2 uv0;
layout(location = 2) in vec2 uv1;
layout(binding = 0) uniform sampler2D texA;
layout(binding = 1) uniform sampler2D texB;
layout(location = 0) out vec4 fragColor;
void main() {
    fragColor = mix(texture(texA, uv0), texture(texB, uv1), vColor.a) * vec4(vColor.rgb, 1.0);
}
";

/// Five stages, the combiner buffer carrying stage 2's result to stage 4.
const BUFFERED: &str = "#version 450
layout(location = 0) in vec4 vColor;
layout(location = 1) in vec2 uv0;
layout(binding = 0) uniform sampler2D tex;
uniform vec4 k1;
uniform vec4 k2;
uniform vec4 k3;
layout(location = 0) out vec4 fragColor;
void main() {
    vec4 t = texture(tex, uv0);
    fragColor = (t * k1) * (vColor * k2) * k3 + t * vColor;
}
";

const DOT3: &str = "#version 450
layout(location = 0) in vec4 vColor;
uniform vec4 axis;
layout(location = 0) out vec4 fragColor;
void main() {
    fragColor = vec4(vec3(dot(vColor.rgb - 0.5, axis.rgb - 0.5) * 4.0), 1.0 - vColor.a);
}
";

/// Lights the cube per vertex into the colour varying: `base` times an ambient and diffuse
/// term (`base` may leave 0…1: the hardware takes |c| and clamps it per vertex).
const LIT_VERTEX: &str = "#version 450
layout(location = 0) in vec4 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec2 uv;
layout(location = 0) out vec4 vColor;
layout(location = 1) out vec2 vUv;
layout(std140, binding = 0) uniform U { mat4 mvp; vec4 lightDir; vec4 base; };
void main() {
    gl_Position = mvp * position;
    float d = max(dot(normal, lightDir.xyz), 0.0);
    vColor = vec4(base.rgb * (0.25 + 0.75 * d), 1.0);
    vUv = uv;
}
";

fn pica(name: &str, text: &str) -> Compiled {
    compile(
        Source::glsl(text, Stage::Fragment).named(name),
        &Options::pica(),
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn program(c: &Compiled) -> Program<'_> {
    Program {
        bytes: &c.bytes,
        reflection: &c.reflection,
    }
}

fn named(pairs: &[(&str, &[f32])]) -> Vec<(String, Vec<f32>)> {
    pairs
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_vec()))
        .collect()
}

/// A byte as the hardware holds a value in 0…1.
fn byte(v: f32) -> f32 {
    (v.clamp(0.0, 1.0) * 255.0).round()
}

/// `got` (0…1 or bytes) is `want` (0…1) within `tolerance` /255 in every lane.
#[track_caller]
fn near(got: [f32; 4], want: [f32; 4], scale: f32, tolerance: f32, what: &str) {
    for l in 0..4 {
        let (g, w) = (got[l] * scale, want[l] * 255.0);
        assert!(
            (g - w).abs() <= tolerance,
            "{what}: lane {l} is {g}/255, expected {w}/255 (got {got:?}, expected {want:?})"
        );
    }
}

fn pixel(f: &Frame, x: usize, y: usize) -> [f32; 4] {
    let at = (y * f.width as usize + x) * 4;
    std::array::from_fn(|l| f32::from(f.rgba[at + l]))
}

/// The picture's background (`render`'s dark grey) as bytes.
const BACKGROUND: [f32; 3] = [0.13, 0.14, 0.16];

/// A 2×2 texture: each quadrant of a face a different colour (first row v = 0).
fn quadrants() -> Image {
    Image::new_2d(
        2,
        2,
        vec![
            [0.9, 0.2, 0.1, 1.0],
            [0.2, 0.8, 0.3, 1.0],
            [0.1, 0.3, 0.9, 1.0],
            [0.95, 0.95, 0.6, 1.0],
        ],
    )
    .unwrap()
}

#[test]
fn the_configuration_read_back_from_the_command_list_is_the_compilers() {
    for (name, text) in [
        ("textured", TEXTURED),
        ("tinted", TINTED),
        ("cube", CUBE),
        ("mixed", MIXED),
        ("buffered", BUFFERED),
        ("dot3", DOT3),
    ] {
        let c = pica(name, text);
        let read =
            preview::combiners::texenv(program(&c)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(&read, c.texenv().unwrap(), "{name}");
    }
    // The buffered shader does use the buffer, the tinted one the alpha test: the read-back
    // covers them.
    let b = pica("buffered", BUFFERED);
    assert!(b.texenv().unwrap().update_bits() != 0);
    assert!(
        pica("tinted", TINTED)
            .texenv()
            .unwrap()
            .alpha_test
            .is_some()
    );
    // A command list cut short is an error, not a panic.
    let mut cut = pica("textured", TEXTURED);
    cut.bytes.truncate(cut.bytes.len() - 4);
    let e = preview::combiners::texenv(program(&cut)).unwrap_err();
    assert!(e.to_string().contains("command list ends"), "{e}");
}

#[test]
fn run_gives_the_colour_of_the_varyings_uniforms_and_textures_by_name() {
    let c = pica("textured", TEXTURED);
    // vColor leaves 0…1: the hardware takes |c| and clamps it. vUv (0.75, 0.25) is texel
    // (1, 0) of the 2×2 texture.
    let values = Values {
        inputs: named(&[("vColor", &[-0.5, 2.0, 0.25, 1.0]), ("vUv", &[0.75, 0.25])]),
        uniforms: Vec::new(),
        textures: vec![(0, quadrants())],
    };
    let out = preview::run(program(&c), &values).unwrap();
    assert!(!out.discarded);
    assert_eq!(out.outputs.len(), 1);
    assert_eq!(out.outputs[0].name, "fragColor");
    let texel = [0.2, 0.8, 0.3, 1.0];
    let colour = [0.5, 1.0, 0.25, 1.0];
    let want: [f32; 4] = std::array::from_fn(|l| texel[l] * colour[l]);
    near(out.outputs[0].value, want, 255.0, 1.5, "texel × colour");
    let names: Vec<&str> = out.inputs.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["vColor", "vUv"]);
    assert_eq!(out.inputs[1].register, "texcoord0");

    // Uniforms are the stage colours; the alpha test discards what `discard` would, and the
    // colour it discarded is still reported.
    let c = pica("tinted", TINTED);
    let run = |tint: &[f32], t2: &[f32]| {
        let values = Values {
            inputs: named(&[("vColor", &[1.0, 0.5, 0.25, 1.0])]),
            uniforms: named(&[("tint", tint), ("t2", t2)]),
            textures: Vec::new(),
        };
        preview::run(program(&c), &values).unwrap()
    };
    let kept = run(&[1.0, 1.0, 0.5, 0.8], &[0.5, 1.0, 1.0, 0.8]);
    assert!(!kept.discarded);
    near(
        kept.outputs[0].value,
        [0.5, 0.5, 0.125, 0.64],
        255.0,
        2.0,
        "vColor × tint × t2",
    );
    let gone = run(&[1.0, 1.0, 0.5, 0.6], &[0.5, 1.0, 1.0, 0.8]);
    assert!(gone.discarded, "alpha 0.48 < 0.5");
    near(
        gone.outputs[0].value,
        [0.5, 0.5, 0.125, 0.48],
        255.0,
        2.0,
        "the discarded colour",
    );

    // A cube map on unit 0 reads texcoord0 and texcoord0w: the direction's face.
    let faces = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 1.0],
        [1.0, 1.0, 0.0, 1.0],
        [0.0, 1.0, 1.0, 1.0],
        [1.0, 0.0, 1.0, 1.0],
    ];
    let env = Image::new_cube(1, faces.to_vec()).unwrap();
    let c = pica("cube", CUBE);
    for (dir, face) in [
        ([-0.2f32, 0.9, 0.1], 2),
        ([0.1, -0.2, -3.0], 5),
        ([-2.0, 0.5, 0.5], 1),
    ] {
        let values = Values {
            inputs: named(&[("vDir", &dir)]),
            uniforms: Vec::new(),
            textures: vec![(0, env.clone())],
        };
        let out = preview::run(program(&c), &values).unwrap();
        near(out.outputs[0].value, faces[face], 255.0, 0.0, "cube face");
    }

    // Names the program does not have are errors that say what it has.
    let values = Values {
        uniforms: named(&[("tnit", &[1.0])]),
        ..Values::default()
    };
    let e = preview::run(program(&pica("tinted", TINTED)), &values).unwrap_err();
    assert!(
        e.to_string()
            .contains("no uniform `tnit`; it has `tint`, `t2`"),
        "{e}"
    );
    let values = Values {
        inputs: named(&[("color", &[1.0])]),
        ..Values::default()
    };
    let e = preview::run(program(&pica("textured", TEXTURED)), &values).unwrap_err();
    assert!(e.to_string().contains("no input `color`"), "{e}");
}

#[test]
fn a_fragment_program_run_alone_samples_the_built_in_textures() {
    // The checkerboard at binding 0: (0.3, 0.2) is in a dark square of it. The same for AGAL,
    // whose `run` had no texture bound before.
    let at = [0.3, 0.2];
    let dark = [0.2, 0.2, 0.25, 1.0];
    let values = Values {
        inputs: named(&[("vColor", &[1.0, 1.0, 1.0, 1.0]), ("vUv", &at)]),
        ..Values::default()
    };
    let agal = compile(
        Source::glsl(TEXTURED, Stage::Fragment).named("textured"),
        &Options::agal(Profile::Standard),
    )
    .unwrap();
    for c in [pica("textured", TEXTURED), agal] {
        let out = preview::run(program(&c), &values).unwrap();
        near(out.outputs[0].value, dark, 255.0, 1.0, &c.reflection.target);
    }
}

#[test]
fn a_fragment_program_alone_shades_the_full_screen_quad() {
    // Every varying holds the quad's coordinates (u, v, 0, 1): vColor × tint.
    let c = pica(
        "tint",
        "#version 450
layout(location = 0) in vec4 vColor;
uniform vec4 tint;
layout(location = 0) out vec4 fragColor;
void main() { fragColor = vColor * tint; }
",
    );
    let values = Values {
        uniforms: named(&[("tint", &[0.5, 1.0, 0.25, 1.0])]),
        ..Values::default()
    };
    let (w, h) = (16usize, 8usize);
    let f = render(
        Scene::Fragment {
            program: program(&c),
            values: &values,
        },
        w as u32,
        h as u32,
        &mut |_, _| {},
    )
    .unwrap();
    for (x, y) in [(0, 0), (5, 3), (15, 7), (9, 6)] {
        let (u, v) = ((x as f32 + 0.5) / w as f32, (y as f32 + 0.5) / h as f32);
        near(
            pixel(&f, x, y),
            [u * 0.5, v, 0.0, 1.0],
            1.0,
            2.0,
            &format!("pixel ({x}, {y})"),
        );
    }

    // The alpha test: alpha is v (the colour's green), so the top half is discarded and the
    // bottom half blended over the background by it.
    let c = pica(
        "discard",
        "#version 450
layout(location = 0) in vec4 vColor;
layout(location = 0) out vec4 fragColor;
void main() {
    vec4 c = vec4(vColor.rgb, vColor.g);
    if (c.a < 0.5) discard;
    fragColor = c;
}
",
    );
    assert!(c.texenv().unwrap().alpha_test.is_some());
    let none = Values::default();
    let f = render(
        Scene::Fragment {
            program: program(&c),
            values: &none,
        },
        w as u32,
        h as u32,
        &mut |_, _| {},
    )
    .unwrap();
    for y in 0..h {
        for x in 0..w {
            let (u, v) = ((x as f32 + 0.5) / w as f32, (y as f32 + 0.5) / h as f32);
            let bg = [BACKGROUND[0], BACKGROUND[1], BACKGROUND[2], 1.0];
            let want = if v < 0.5 {
                bg
            } else {
                let c = [u, v, 0.0];
                std::array::from_fn(|l| {
                    if l == 3 {
                        1.0
                    } else {
                        c[l] * v + bg[l] * (1.0 - v)
                    }
                })
            };
            near(
                pixel(&f, x, y),
                want,
                1.0,
                2.0,
                &format!("pixel ({x}, {y})"),
            );
        }
    }
}

/// `mat4` as 16 floats, column after column, from rows.
fn columns(rows: [[f32; 4]; 4]) -> Vec<f32> {
    (0..16).map(|k| rows[k % 4][k / 4]).collect()
}

#[test]
fn a_lit_textured_cube_pair_shows_each_texel_times_its_faces_lit_colour() {
    let (v, f) = compile_pair(
        Source::glsl(LIT_VERTEX, Stage::Vertex).named("lit.vert"),
        Source::glsl(TEXTURED, Stage::Fragment).named("textured.frag"),
        &Options::pica(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // A projective matrix (w = 1 + 0.3 z), so interpolation is perspective-correct or wrong.
    let mvp = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 0.5, 0.0],
        [0.0, 0.0, 0.3, 1.0],
    ];
    let l = [0.3f32, 0.5, -0.8];
    let len = (l[0] * l[0] + l[1] * l[1] + l[2] * l[2]).sqrt();
    let light = l.map(|c| c / len);
    // Red above 1 and blue below 0 on lit faces: the hardware takes |c| and clamps it.
    let base = [1.3f32, 0.9, -0.6];
    let vertex_values = Values {
        uniforms: vec![
            ("mvp".into(), columns(mvp)),
            ("lightDir".into(), vec![light[0], light[1], light[2], 0.0]),
            ("base".into(), vec![base[0], base[1], base[2], 1.0]),
        ],
        ..Values::default()
    };
    let fragment_values = Values {
        textures: vec![(0, quadrants())],
        ..Values::default()
    };
    let mesh = preview::mesh::cube();
    let (w, h) = (96usize, 96usize);
    let frame = render(
        Scene::Pair {
            vertex: program(&v),
            vertex_values: &vertex_values,
            fragment: program(&f),
            fragment_values: &fragment_values,
            mesh: &mesh,
        },
        w as u32,
        h as u32,
        &mut |_, _| {},
    )
    .unwrap();
    let texels = [
        [0.9, 0.2, 0.1, 1.0],
        [0.2, 0.8, 0.3, 1.0],
        [0.1, 0.3, 0.9, 1.0],
        [0.95, 0.95, 0.6, 1.0],
    ];
    let mut checked = 0;
    let mut lit_colours = Vec::new();
    for tri in &mesh.triangles {
        let n = tri[0].normal;
        // The faces turned to the viewer (GL's clip space: near is −z).
        if n[2] > -0.2 {
            continue;
        }
        // The triangle's centroid: its position, texture coordinates and screen pixel.
        let mean = |f: &dyn Fn(&preview::mesh::Vertex) -> [f32; 4]| -> [f32; 4] {
            std::array::from_fn(|i| tri.iter().map(|v| f(v)[i]).sum::<f32>() / 3.0)
        };
        let p = mean(&|v| v.position);
        let uv = mean(&|v| v.uv);
        let clip: [f32; 4] = std::array::from_fn(|r| (0..4).map(|c| mvp[r][c] * p[c]).sum::<f32>());
        let (x, y) = (clip[0] / clip[3], clip[1] / clip[3]);
        let (px, py) = (
            ((x + 1.0) * 0.5 * w as f32) as usize,
            ((1.0 - y) * 0.5 * h as f32) as usize,
        );
        // The nearest texel of the 2×2 texture.
        let (tx, ty) = (
            (uv[0] * 2.0).floor() as usize,
            (uv[1] * 2.0).floor() as usize,
        );
        let texel = texels[ty * 2 + tx];
        // The lit colour, per vertex (the same at the face's four vertices): |c| clamped.
        let d = (n[0] * light[0] + n[1] * light[1] + n[2] * light[2]).max(0.0);
        let lit = base.map(|b| (b * (0.25 + 0.75 * d)).abs().min(1.0));
        let colour = [lit[0], lit[1], lit[2], 1.0];
        let want: [f32; 4] = std::array::from_fn(|l| byte(texel[l]) / 255.0 * colour[l]);
        near(
            pixel(&frame, px, py),
            want,
            1.0,
            3.0,
            &format!("face {n:?} at pixel ({px}, {py}), uv {uv:?}"),
        );
        lit_colours.push(lit);
        checked += 1;
    }
    assert!(checked >= 6, "three faces, two triangles each: {checked}");
    // The faces are lit differently, and the clamp (red) and the absolute value (blue)
    // matter.
    assert!(lit_colours.iter().any(|c| c[0] == 1.0));
    assert!(lit_colours.iter().any(|c| c[0] < 0.99));
    assert!(lit_colours.iter().all(|c| c[2] > 0.1));
    // The corners are the background.
    let bg = [BACKGROUND[0], BACKGROUND[1], BACKGROUND[2], 1.0];
    near(pixel(&frame, 0, 0), bg, 1.0, 1.0, "corner");
    near(pixel(&frame, w - 1, h - 1), bg, 1.0, 1.0, "corner");
    // The same picture every time.
    let again = render(
        Scene::Pair {
            vertex: program(&v),
            vertex_values: &vertex_values,
            fragment: program(&f),
            fragment_values: &fragment_values,
            mesh: &mesh,
        },
        w as u32,
        h as u32,
        &mut |_, _| {},
    )
    .unwrap();
    assert_eq!(frame, again);
}

#[test]
fn a_pair_whose_vertex_program_lacks_a_semantic_the_combiners_read_is_refused() {
    // The vertex shader writes the coordinates alone; the fragment shader reads a colour.
    let v = compile(
        Source::glsl(
            "#version 450
layout(location = 0) in vec4 position;
layout(location = 1) out vec2 vUv;
void main() { gl_Position = position; vUv = position.xy; }
",
            Stage::Vertex,
        )
        .named("uv.vert"),
        &Options::pica(),
    )
    .unwrap();
    let f = pica("textured", TEXTURED);
    let none = Values::default();
    let mesh = preview::mesh::quad();
    let e = render(
        Scene::Pair {
            vertex: program(&v),
            vertex_values: &none,
            fragment: program(&f),
            fragment_values: &none,
            mesh: &mesh,
        },
        8,
        8,
        &mut |_, _| {},
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("reads the varying `vColor` as `color`, and no output of the vertex program carries `color`"),
        "{e}"
    );
    // An AGAL vertex program with a PICA200 fragment configuration is no pair.
    let agal = compile(
        Source::glsl(LIT_VERTEX, Stage::Vertex).named("lit.vert"),
        &Options::agal(Profile::Standard),
    )
    .unwrap();
    let e = render(
        Scene::Pair {
            vertex: program(&agal),
            vertex_values: &none,
            fragment: program(&f),
            fragment_values: &none,
            mesh: &mesh,
        },
        8,
        8,
        &mut |_, _| {},
    )
    .unwrap_err();
    assert!(e.to_string().contains("a pair is an AGAL"), "{e}");
}

#[test]
fn the_vertex_colour_is_saturated_per_vertex_before_it_is_interpolated() {
    // Over the full-screen quad, red is x (−1 or 1 at the vertices) and green 2y (−2 or 2):
    // |c| clamped per vertex is 1 at every vertex, so 1 everywhere, where the interpolated
    // value would be near 0 in the middle.
    let (v, f) = compile_pair(
        Source::glsl(
            "#version 450
layout(location = 0) in vec4 position;
layout(location = 0) out vec4 vColor;
void main() { gl_Position = position; vColor = vec4(position.x, position.y * 2.0, 0.5, 1.0); }
",
            Stage::Vertex,
        )
        .named("signed.vert"),
        Source::glsl(
            "#version 450
layout(location = 0) in vec4 vColor;
layout(location = 0) out vec4 fragColor;
void main() { fragColor = vColor; }
",
            Stage::Fragment,
        )
        .named("colour.frag"),
        &Options::pica(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let none = Values::default();
    let mesh = preview::mesh::quad();
    let frame = render(
        Scene::Pair {
            vertex: program(&v),
            vertex_values: &none,
            fragment: program(&f),
            fragment_values: &none,
            mesh: &mesh,
        },
        8,
        8,
        &mut |_, _| {},
    )
    .unwrap();
    for (x, y) in [(0, 0), (3, 4), (4, 3), (7, 7)] {
        near(
            pixel(&frame, x, y),
            [1.0, 1.0, 0.5, 1.0],
            1.0,
            1.0,
            &format!("pixel ({x}, {y})"),
        );
    }
}

#[test]
fn every_corpus_fragment_shader_the_pica200_compiles_runs_and_previews() {
    // The fragment shaders of tests/fixtures (glsl, classic): those the PICA200's combiners
    // can compute read back to the compiler's configuration, run, and draw the quad.
    let mut sources = Vec::new();
    for dir in ["glsl", "classic"] {
        let mut files: Vec<_> = std::fs::read_dir(test_kit::fixture(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("frag"))
            .collect();
        files.sort();
        sources.extend(files);
    }
    let (mut drawn, mut refused) = (0, 0);
    for path in &sources {
        let name = path.display().to_string();
        let spv = std::fs::read(format!("{name}.spv")).ok();
        let text = std::fs::read_to_string(path).unwrap();
        let compiled = match &spv {
            Some(bytes) => compile(Source::spirv(bytes).named(&name), &Options::pica()),
            None => compile(
                Source::glsl(&text, Stage::Fragment).named(&name),
                &Options::pica(),
            ),
        };
        let Ok(c) = compiled else {
            refused += 1;
            continue;
        };
        let read =
            preview::combiners::texenv(program(&c)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(&read, c.texenv().unwrap(), "{name}");
        preview::run(program(&c), &Values::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        render(
            Scene::Fragment {
                program: program(&c),
                values: &Values::default(),
            },
            8,
            8,
            &mut |_, _| {},
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        drawn += 1;
    }
    eprintln!("{drawn} drawn, {refused} refused by the PICA200's fragment compiler");
    assert!(drawn >= 3, "{drawn} of {} compiled", sources.len());
}
