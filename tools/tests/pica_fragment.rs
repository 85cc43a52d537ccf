//! `spv2retro run` and `preview` on PICA200 fragment shaders (the texture combiners), as a
//! user runs them: the colour printed by name, the alpha test's discard, a texture of one
//! colour given on the command line, and a vertex + fragment pair drawn with `--target pica`.

use std::path::Path;
use std::process::{Command, Output};

use test_kit::scratch;

const RETRO: &str = env!("CARGO_BIN_EXE_spv2retro");

fn retro(args: &[&str]) -> Output {
    Command::new(RETRO)
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const TINTED: &str = "#version 450
layout(location = 0) in vec4 vColor;
uniform vec4 tint;
layout(location = 0) out vec4 fragColor;
void main() {
    vec4 c = vColor * tint;
    if (c.a < 0.5) discard;
    fragColor = c;
}
";

const TEXTURED: &str = "#version 450
layout(location = 0) in vec4 vColor;
layout(location = 1) in vec2 vUv;
layout(binding = 0) uniform sampler2D tex;
layout(location = 0) out vec4 fragColor;
void main() { fragColor = texture(tex, vUv) * vColor; }
";

const PASS_VERTEX: &str = "#version 450
layout(location = 0) in vec4 position;
layout(location = 1) in vec4 color;
layout(location = 2) in vec2 uv;
layout(location = 0) out vec4 vColor;
layout(location = 1) out vec2 vUv;
void main() { gl_Position = position; vColor = color; vUv = uv; }
";

/// The values of output `name` in `run --json`'s answer.
fn output(json: &serde_json::Value, name: &str) -> Vec<f64> {
    json["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == name)
        .unwrap_or_else(|| panic!("no output {name}: {json}"))["value"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

#[track_caller]
fn near(got: &[f64], want: [f64; 4], what: &str) {
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= 2.0 / 255.0, "{what}: {got:?} vs {want:?}");
    }
}

#[test]
fn run_prints_the_combiners_colour_or_the_alpha_tests_discard() {
    let dir = scratch("pica-fragment-run");
    let tinted = dir.join("tinted.frag");
    std::fs::write(&tinted, TINTED).unwrap();
    let tinted = tinted.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--target",
            "pica",
            tinted,
            "--input",
            "vColor=1,0.5,0.25,1",
        ];
        args.extend(extra);
        retro(&args)
    };
    // vColor × tint, printed by name: one stage and the alpha test.
    let out = run(&["--uniform", "tint=0.5,1,1,0.8"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(
        s.contains("pica fragment program, 1 combiner stage\n"),
        "{s}"
    );
    assert!(
        s.contains("vColor     color    (1, 0.5, 0.25, 1)"),
        "the input by name and semantic: {s}"
    );
    // 0.5 → 128/255, 0.25 → 64/255, 0.8 → 204/255: bytes.
    assert!(
        s.contains("fragColor  texenv0  (0.5019608, 0.5019608, 0.2509804, 0.8)"),
        "{s}"
    );
    assert!(!s.contains("discarded"), "{s}");
    let out = run(&["--uniform", "tint=0.5,1,1,0.8", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["discarded"], false);
    near(
        &output(&json, "fragColor"),
        [0.5, 0.5, 0.25, 0.8],
        "vColor × tint",
    );
    // Alpha 0.4 < 0.5: the alpha test discards it, and says which colour.
    let out = run(&["--uniform", "tint=0.5,1,1,0.4"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(
        s.contains("discarded by the alpha test (it keeps alpha GPU_GEQUAL 128/255):\n"),
        "{s}"
    );
    assert!(
        s.contains("fragColor  texenv0  (0.5019608, 0.5019608, 0.2509804, 0.4)"),
        "{s}"
    );
    let out = run(&["--uniform", "tint=0.5,1,1,0.4", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["discarded"], true);
    // A uniform the shader does not have: exit 1, the names it has.
    let out = run(&["--uniform", "tnit=1,1,1,1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no uniform `tnit`; it has `tint`"),
        "{}",
        text(&out.stderr)
    );

    // A texture of one colour from the command line, and the built-in checkerboard.
    let textured = dir.join("textured.frag");
    std::fs::write(&textured, TEXTURED).unwrap();
    let textured = textured.to_str().unwrap();
    for (texture, want) in [
        (Some("0=0.5,1,0.2"), [0.5 * 0.8, 0.6, 0.2, 1.0]),
        // (0.3, 0.2) is in a dark square, (0.2, 0.2, 0.25).
        (None, [0.2 * 0.8, 0.2 * 0.6, 0.25, 1.0]),
    ] {
        let mut args = vec![
            "run",
            "--target",
            "pica",
            textured,
            "--input",
            "vColor=0.8,0.6,1,1",
            "--input",
            "vUv=0.3,0.2",
            "--json",
        ];
        if let Some(t) = texture {
            args.extend(["--texture", t]);
        }
        let out = retro(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        near(&output(&json, "fragColor"), want, &format!("{texture:?}"));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// RGBA8 pixels of a PNG file.
fn pixels(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

#[test]
fn preview_draws_a_pica_vertex_and_fragment_pair_and_a_fragment_shader_alone() {
    let dir = scratch("pica-fragment-preview");
    let (vert, frag) = (dir.join("pass.vert"), dir.join("textured.frag"));
    std::fs::write(&vert, PASS_VERTEX).unwrap();
    std::fs::write(&frag, TEXTURED).unwrap();
    let png = dir.join("pair.png");
    let draw = |png: &Path| {
        retro(&[
            "preview",
            "--target",
            "pica",
            vert.to_str().unwrap(),
            frag.to_str().unwrap(),
            "-o",
            png.to_str().unwrap(),
            "--size",
            "48x48",
            "--texture",
            "0=0.5,1,1",
        ])
    };
    let out = draw(&png);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The cube (identity matrices) in its faces' colours, times the texture's (0.5, 1, 1):
    // every pixel is the background or one of them (flat colours, so no pixel between).
    let faces = [
        [0.9, 0.3, 0.3],
        [0.3, 0.9, 0.9],
        [0.3, 0.9, 0.3],
        [0.9, 0.3, 0.9],
        [0.3, 0.3, 0.9],
        [0.9, 0.9, 0.3],
    ];
    let byte = |v: f64| (v * 255.0).round();
    let expected: Vec<[f64; 3]> = faces
        .iter()
        .map(|c| [byte(c[0]) * byte(0.5) / 255.0, byte(c[1]), byte(c[2])])
        .collect();
    let background = [0.13f64, 0.14, 0.16].map(byte);
    let (w, h, px) = pixels(&png);
    assert_eq!((w, h), (48, 48));
    let mut seen = std::collections::BTreeSet::new();
    for p in px.chunks(4) {
        let p = [f64::from(p[0]), f64::from(p[1]), f64::from(p[2])];
        let close = |c: &[f64; 3]| c.iter().zip(p).all(|(a, b)| (a - b).abs() <= 1.0);
        if close(&background) {
            continue;
        }
        let face = expected
            .iter()
            .position(close)
            .unwrap_or_else(|| panic!("pixel {p:?} is no face's colour × texel"));
        seen.insert(face);
    }
    assert_eq!(seen.len(), 3, "three faces show: {seen:?}");
    // The same bytes every time.
    let again = dir.join("again.png");
    assert_eq!(draw(&again).status.code(), Some(0));
    assert_eq!(std::fs::read(&png).unwrap(), std::fs::read(&again).unwrap());
    // The fragment shader alone: the full-screen quad, the built-in checkerboard times the
    // quad's coordinates as the colour.
    let alone = dir.join("alone.png");
    let out = retro(&[
        "preview",
        "--target",
        "pica",
        frag.to_str().unwrap(),
        "-o",
        alone.to_str().unwrap(),
        "--size",
        "16x16",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (_, _, px) = pixels(&alone);
    // Bottom right: u, v near 1, a white square of the checkerboard: red and green near 1.
    let p = &px[(15 * 16 + 15) * 4..(15 * 16 + 15) * 4 + 4];
    assert!(p[0] > 230 && p[1] > 230 && p[2] < 5, "{p:?}");
    // A pair whose vertex shader does not write a varying the combiners read is refused.
    std::fs::write(
        &vert,
        "#version 450\nlayout(location = 0) in vec4 position;\nlayout(location = 1) out vec2 vUv;\nvoid main() { gl_Position = position; vUv = position.xy; }\n",
    )
    .unwrap();
    let none = dir.join("none.png");
    let out = draw(&none);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("vColor"),
        "{}",
        text(&out.stderr)
    );
    assert!(!none.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A picture of one flat colour says so, and which uniforms read their defaults.
#[test]
fn a_flat_picture_names_the_uniforms_left_at_their_defaults() {
    let dir = scratch("retro-flat-preview");
    let shader = dir.join("tint.frag");
    std::fs::write(
        &shader,
        "#version 450\nlayout(binding = 0) uniform U { vec4 tint; };\n\
         layout(location = 0) out vec4 color;\nvoid main() { color = tint; }\n",
    )
    .unwrap();
    let png = dir.join("flat.png");
    let s = shader.to_str().unwrap();
    let out = retro(&[
        "preview",
        s,
        "--target",
        "agal",
        "-o",
        png.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("warning[preview.flat]"), "{err}");
    assert!(err.contains("`tint` (vec4)"), "{err}");
    assert!(std::fs::read(&png).is_ok_and(|b| b.starts_with(b"\x89PNG")));
    // Given the uniform, the picture is still one colour, but nothing was left out.
    let out = retro(&[
        "preview",
        s,
        "--target",
        "agal",
        "-o",
        png.to_str().unwrap(),
        "--uniform",
        "tint=1,0.5,0.25,1",
    ]);
    let err = text(&out.stderr);
    assert!(err.contains("every uniform was given"), "{err}");
}
