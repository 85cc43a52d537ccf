//! The binaries as a user runs them: exit codes, diagnostics on stderr, standard input.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use test_kit::{fixture, scratch};

fn run(bin: &str, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(bin)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    if let Some(input) = stdin {
        child.stdin.take().unwrap().write_all(input).unwrap();
    } else {
        drop(child.stdin.take());
    }
    child.wait_with_output().unwrap()
}

const PICA: &str = env!("CARGO_BIN_EXE_spv2pica");
const AGAL: &str = env!("CARGO_BIN_EXE_spv2agal");

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn check_accepts_a_valid_module_silently() {
    let path = fixture("glsl/mvp_color.vert.spv");
    let out = run(PICA, &["--check", path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
    let path = fixture("glsl/phong.frag.spv");
    let out = run(
        AGAL,
        &["--check", "--fragment", path.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn invalid_input_exits_1_with_a_diagnostic() {
    let path = fixture("invalid/cfg.back-edge-target--selfloop.spvasm");
    let shown = path.to_str().unwrap();
    let out = run(PICA, &["--check", shown], None);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!("{shown}: error[cfg.back-edge-target]: ")),
        "{err}"
    );
    assert!(err.contains(&format!("--> {shown}:")), "{err}");
}

#[test]
fn a_fragment_shader_the_combiners_cannot_compute_is_refused_by_rule() {
    // Phong shading normalizes vectors and raises to a power: no combiner function does.
    let path = fixture("glsl/phong.frag.spv");
    let out = run(PICA, &["--check", path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("error[pica.fragment]"), "{err}");
    assert!(err.contains("normalize"), "{err}");
}

const SPRITE_VERT: &str = "#version 450
layout(location = 0) in vec4 pos;
layout(location = 1) in vec2 st;
layout(location = 2) in vec4 rgba;
layout(location = 0) out vec2 uv;
layout(location = 1) out vec4 vColor;
layout(binding = 0) uniform M { mat4 mvp; };
void main() { gl_Position = mvp * pos; uv = st; vColor = rgba; }
";

const SPRITE_FRAG: &str = "#version 450
layout(location = 0) in vec2 uv;
layout(location = 1) in vec4 vColor;
layout(binding = 0) uniform sampler2D tex;
layout(location = 0) out vec4 color;
void main() {
    vec4 c = texture(tex, uv) * vColor;
    if (c.a < 0.5) discard;
    color = c;
}
";

#[test]
fn spv2pica_writes_a_fragment_shaders_combiner_configuration() {
    let dir = scratch("cli-pica-fragment");
    let frag = dir.join("sprite.frag");
    std::fs::write(&frag, SPRITE_FRAG).unwrap();
    let f = frag.to_str().unwrap();
    // The command words (the default), the listing and the C header.
    let tev = dir.join("sprite.tev");
    let out = run(PICA, &[f, "-o", tev.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let words: Vec<u32> = std::fs::read(&tev)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    // Stage 0 is `texture0 * vColor` as the register documentation spells it; the alpha
    // test keeps alpha >= 128 (GEQUAL = 7): enable | 7 << 4 | 128 << 8, to register 0x104.
    assert_eq!(
        words[..6],
        [0x00030003, 0x804F00C0, 0, 0x00010001, 0xFFFFFFFF, 0]
    );
    assert_eq!(words[words.len() - 2..], [0x8071, 0x000F0104]);
    let out = run(PICA, &[f, "--emit", "asm", "-o", "-"], None);
    let listing = String::from_utf8(out.stdout).unwrap();
    assert!(
        listing.contains("stage 0: rgb = modulate(texture0.rgb, primary.rgb)"),
        "{listing}"
    );
    let out = run(PICA, &[f, "--emit", "c", "-o", "-"], None);
    let header = String::from_utf8(out.stdout).unwrap();
    assert!(
        header.contains("static inline void sprite_texenv(void)"),
        "{header}"
    );
    assert!(
        header.contains("C3D_AlphaTest(true, GPU_GEQUAL, 128);"),
        "{header}"
    );
}

#[test]
fn spv2pica_links_a_vertex_and_a_fragment_shader() {
    let dir = scratch("cli-pica-pair");
    let vert = dir.join("sprite.vert");
    let frag = dir.join("sprite.frag");
    std::fs::write(&vert, SPRITE_VERT).unwrap();
    std::fs::write(&frag, SPRITE_FRAG).unwrap();
    let shbin = dir.join("sprite.shbin");
    let reflect = dir.join("sprite.json");
    let out = run(
        PICA,
        &[
            "-o",
            shbin.to_str().unwrap(),
            vert.to_str().unwrap(),
            frag.to_str().unwrap(),
            "--reflect",
            reflect.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(&std::fs::read(&shbin).unwrap()[..4], b"DVLB");
    assert_eq!(std::fs::read(dir.join("sprite.tev")).unwrap().len(), 42 * 4);
    let header = std::fs::read_to_string(dir.join("sprite_texenv.h")).unwrap();
    assert!(header.contains("sprite_texenv(void)"), "{header}");
    // The vertex outputs carry what the combiners read.
    let json = std::fs::read_to_string(&reflect).unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let semantic = |name: &str| {
        v["outputs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["name"] == name)
            .map(|o| o["semantic"].as_str().unwrap().to_string())
    };
    assert_eq!(semantic("uv").as_deref(), Some("texcoord0"));
    assert_eq!(semantic("vColor").as_deref(), Some("color"));
}

#[test]
fn entry_point_selection_errors_list_what_exists() {
    let path = fixture("glsl/mvp_color.vert.spv");
    let out = run(
        AGAL,
        &["--check", "--entry", "nosuch", path.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("error[entry.select]"), "{err}");
    assert!(err.contains("\"main\" (Vertex)"), "{err}");
    let out = run(
        AGAL,
        &["--check", "--fragment", path.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no fragment entry point"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn reads_binaries_and_text_from_stdin() {
    let bytes = std::fs::read(fixture("glsl/mvp_color.vert.spv")).unwrap();
    let out = run(PICA, &["--check", "-"], Some(&bytes));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read(fixture("spvasm/glsl_vert_ubo.spvasm")).unwrap();
    let out = run(AGAL, &["--check", "-"], Some(&text));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run(
        PICA,
        &["--check", "-"],
        Some(b"OpCapability Shader\nOpFoo\n"),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("<stdin>: error[asm.syntax]: unknown opcode `OpFoo`"));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(run(PICA, &[], None).status.code(), Some(2));
    assert_eq!(
        run(PICA, &["--no-such-flag", "x.spv"], None).status.code(),
        Some(2)
    );
    assert_eq!(
        run(AGAL, &["--vertex", "--fragment", "x.spv"], None)
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn an_unreadable_input_exits_1() {
    let out = run(PICA, &["--check", "/no/such/file.spv"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("spv2pica: error: cannot read /no/such/file.spv"));
}

// ------------------------------------------------------------------------------------------
// spv2agal
// ------------------------------------------------------------------------------------------

/// A fresh directory for one test's files, removed when the test ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

fn agal_scratch(name: &str) -> Scratch {
    Scratch(scratch(name))
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn spv2agal_writes_agal_beside_the_input() {
    let dir = agal_scratch("write");
    let input = dir.join("frag.spv");
    std::fs::copy(fixture("glsl/starling_mesh.frag.spv"), &input).unwrap();
    let out = run(AGAL, &[input.to_str().unwrap(), "--fragment"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
    let bytes = std::fs::read(dir.join("frag.agal")).unwrap();
    assert_eq!(bytes[..7], [0xa0, 1, 0, 0, 0, 0xa1, 1]);
    assert_eq!(bytes.len(), 7 + 24 * 2, "tex and mul");
    assert!(backend_agal::validate(&bytes, backend_agal::Profile::Baseline).is_ok());
}

#[test]
fn spv2agal_emits_listing_json_mir_and_reflection() {
    let dir = agal_scratch("emit");
    let path = fixture("glsl/starling_mesh.frag.spv");
    let path = path.to_str().unwrap();
    let out = run(AGAL, &[path, "--emit", "asm", "-o", "-"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "tex ft0, v0.xyyy, fs0 <2d,linear,mipnone,repeat,rgba>\nmul oc, ft0, v1\n"
    );
    let out = run(AGAL, &[path, "--emit", "json", "-o", "-"], None);
    let json = stdout(&out);
    for key in [
        "\"varnames\":{",
        "\"texture0\":\"fs0\"",
        "\"consts\":{}",
        "\"agalasm\":\"tex ",
        "\"agalbin\":[160,1,",
    ] {
        assert!(json.contains(key), "{key}: {json}");
    }
    let out = run(AGAL, &[path, "--emit", "mir", "-o", "-"], None);
    assert!(
        stdout(&out).starts_with("fragment \"main\""),
        "{}",
        stdout(&out)
    );
    let reflect = dir.join("r.json");
    let out = run(
        AGAL,
        &[
            path,
            "-o",
            dir.join("x.agal").to_str().unwrap(),
            "--reflect",
            reflect.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(reflect).unwrap();
    for key in [
        "\"target\": \"agal\"",
        "\"agal_version\": 1",
        "\"register\": \"fs0\"",
        "\"register\": \"oc\"",
    ] {
        assert!(text.contains(key), "{key}: {text}");
    }
}

#[test]
fn spv2agal_profiles_and_sampler_flags() {
    let path = fixture("glsl/starling_mesh.frag.spv");
    let path = path.to_str().unwrap();
    let out = run(
        AGAL,
        &[path, "--profile", "standardExtended", "-o", "-"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(out.stdout[..7], [0xa0, 3, 0, 0, 0, 0xa1, 1]);
    let out = run(AGAL, &[path, "--profile", "Standard"], None);
    assert_eq!(
        out.status.code(),
        Some(2),
        "profile names are Stage3D's, case and all"
    );
    let out = run(
        AGAL,
        &[
            path,
            "--sampler",
            "0=nearest,clamp,miplinear",
            "--emit",
            "asm",
            "-o",
            "-",
        ],
        None,
    );
    assert!(
        stdout(&out).contains("fs0 <2d,nearest,miplinear,clamp,rgba>"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        run(AGAL, &[path, "--sampler", "nearest"], None)
            .status
            .code(),
        Some(2)
    );
    let out = run(AGAL, &[path, "--sampler", "0=bilinear", "--check"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("error[agal.option]: --sampler 0: unknown flag `bilinear`"));
}

#[test]
fn spv2agal_validates_any_agal_bytes() {
    use backend_agal::{Stage, Version, asm};
    let dir = agal_scratch("validate");
    let good = dir.join("good.agal");
    std::fs::write(
        &good,
        asm::assemble("mov oc, v0", Stage::Fragment, Version::V1).unwrap(),
    )
    .unwrap();
    let out = run(AGAL, &["--validate", good.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("valid AGAL 1 fragment program for the baseline profile: 1 tokens")
    );
    // A temporary read before it is written, and no colour output.
    let bad = dir.join("bad.agal");
    std::fs::write(
        &bad,
        asm::assemble("mov ft0.x, ft1.y", Stage::Fragment, Version::V1).unwrap(),
    )
    .unwrap();
    let out = run(AGAL, &["--validate", bad.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("error[flash.3647]: mov reads ft1, which has not been written"),
        "{err}"
    );
    assert!(err.contains("error[flash.3634]"), "{err}");
    assert!(err.contains("--> token 1, source operand 1"), "{err}");
    // ddx needs AGAL 2; the profile decides.
    let v2 = dir.join("v2.agal");
    std::fs::write(
        &v2,
        asm::assemble("ddx ft0, v0\nmov oc, ft0", Stage::Fragment, Version::V2).unwrap(),
    )
    .unwrap();
    let out = run(AGAL, &["--validate", v2.to_str().unwrap()], None);
    assert!(
        stderr(&out).contains("error[flash.3725]"),
        "{}",
        stderr(&out)
    );
    let out = run(
        AGAL,
        &["--validate", "--profile", "standard", v2.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run(AGAL, &["--validate", "-"], Some(&[0xa0, 1, 0]));
    assert!(
        stderr(&out).contains("error[flash.3615]"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn spv2agal_checks_that_vertex_and_fragment_programs_link() {
    let vs = fixture("glsl/stage3d_mesh.vert.spv");
    let vs = vs.to_str().unwrap();
    let fs = fixture("glsl/starling_mesh.frag.spv");
    let out = run(AGAL, &["--check", vs, "--link", fs.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sky = fixture("glsl/skybox.frag.spv");
    let out = run(
        AGAL,
        &["--check", vs, "--link", sky.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out)
            .contains("error[agal.link]: the fragment shader reads 3 components of `vDirection`"),
        "{}",
        stderr(&out)
    );
    // The other program as AGAL bytes: Flash's rules between the two.
    let dir = agal_scratch("link");
    let frag = dir.join("blur.agal");
    let out = run(
        AGAL,
        &[
            fixture("glsl/stage3d_blur.frag.spv").to_str().unwrap(),
            "-o",
            frag.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = run(
        AGAL,
        &["--check", vs, "--link", frag.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("#3632"), "{}", stderr(&out));
}

/// `--sampler` with `--link` applies to the fragment program, whichever file is the input.
#[test]
fn spv2agal_sampler_flags_with_link_go_to_the_fragment_program() {
    let vs = fixture("glsl/stage3d_mesh.vert.spv");
    let fs = fixture("glsl/starling_mesh.frag.spv");
    let (vs, fs) = (vs.to_str().unwrap(), fs.to_str().unwrap());
    for (input, other) in [(fs, vs), (vs, fs)] {
        let out = run(
            AGAL,
            &[
                input,
                "--link",
                other,
                "--sampler",
                "0=nearest,clamp",
                "--emit",
                "asm",
                "-o",
                "-",
            ],
            None,
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let out = run(
        AGAL,
        &[
            fs,
            "--link",
            vs,
            "--sampler",
            "0=nearest,clamp",
            "--emit",
            "asm",
            "-o",
            "-",
        ],
        None,
    );
    let listing = String::from_utf8(out.stdout).unwrap();
    assert!(
        listing
            .lines()
            .any(|l| l.contains("tex") && l.contains("nearest") && l.contains("clamp")),
        "{listing}"
    );
}

/// `--variant`: one program per define set and texture format, as Starling builds them,
/// with a table of them; nothing is written when one fails.
#[test]
fn spv2agal_compiles_variants_per_define_set_and_texture_format() {
    let dir = agal_scratch("variants");
    let frag = dir.join("filter.frag");
    std::fs::write(
        &frag,
        "#version 450\nlayout(location = 0) in vec2 uv;\n\
         layout(binding = 0) uniform sampler2D tex;\n\
         layout(binding = 1) uniform U { vec4 tint; };\nlayout(location = 0) out vec4 color;\n\
         void main() {\n#ifdef TINTED\n    color = texture(tex, uv) * tint;\n#else\n\
             color = texture(tex, uv);\n#endif\n}\n",
    )
    .unwrap();
    let out_dir = dir.join("out");
    let f = frag.to_str().unwrap();
    let o = out_dir.to_str().unwrap();
    let out = run(
        AGAL,
        &[
            f,
            "--fragment",
            "--sampler",
            "0=nearest",
            "-o",
            o,
            "--variant",
            "plain:",
            "--variant",
            "dxt1:0=dxt1",
            "--variant",
            "dxt5:TINTED,0=dxt5",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let table: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("variants.json")).unwrap())
            .unwrap();
    let names: Vec<&str> = table
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["plain", "dxt1", "dxt5"]);
    assert_eq!(table[2]["defines"]["TINTED"], "1");
    assert_eq!(
        table[2]["samplers"]["0"],
        serde_json::json!(["nearest", "dxt5"])
    );
    assert_eq!(table[2]["programs"]["fragment"]["file"], "dxt5.agal");
    // The tinted variant multiplies by the uniform; the plain one only samples.
    let listing_of = |name: &str| {
        let program = out_dir.join(format!("{name}.agal"));
        let out = run(
            AGAL,
            &[program.to_str().unwrap(), "--emit", "asm", "-o", "-"],
            None,
        );
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(listing_of("dxt5").contains("mul"), "{}", listing_of("dxt5"));
    assert!(
        !listing_of("plain").contains("mul"),
        "{}",
        listing_of("plain")
    );
    // Each program samples with its variant's format, as the listing of its bytes says.
    for (name, format) in [
        ("plain", None),
        ("dxt1", Some("dxt1")),
        ("dxt5", Some("dxt5")),
    ] {
        let program = out_dir.join(format!("{name}.agal"));
        let out = run(
            AGAL,
            &[program.to_str().unwrap(), "--emit", "asm", "-o", "-"],
            None,
        );
        let listing = String::from_utf8(out.stdout).unwrap();
        let tex = listing
            .lines()
            .find(|l| l.contains("tex"))
            .unwrap_or_default();
        assert!(tex.contains("nearest"), "{name}: {listing}");
        for fmt in ["dxt1", "dxt5"] {
            assert_eq!(tex.contains(fmt), format == Some(fmt), "{name}: {tex}");
        }
    }
    // A failing variant: nothing written.
    let bad_dir = dir.join("bad");
    let out = run(
        AGAL,
        &[
            f,
            "--fragment",
            "-o",
            bad_dir.to_str().unwrap(),
            "--variant",
            "ok:",
            "--variant",
            "bad:0=nosuchflag",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        !bad_dir.exists(),
        "a failed run wrote {}",
        bad_dir.display()
    );
}

const PRESSURE: &str = "#version 450
layout(location = 0) in vec4 p;
layout(location = 1) in vec4 q;
layout(std140, binding = 0) uniform U { mat4 m[7]; };
layout(location = 0) out vec4 product;
void main() {
    vec4 t[7];
    for (int k = 0; k < 7; k++) {
        t[k] = (m[k] * p) * q;
    }
    vec4 sum = t[0];
    for (int k = 1; k < 7; k++) {
        sum += t[k];
    }
    vec4 prod = t[6];
    for (int k = 5; k >= 0; k--) {
        prod *= t[k];
    }
    gl_Position = sum;
    product = prod;
}
";

#[test]
fn spv2agal_limit_errors_name_the_limit_and_leave_no_file() {
    let dir = agal_scratch("limit");
    let target = dir.join("out.agal");
    // Seven vectors made from temporaries, all live while they are summed in one order and
    // multiplied in the other: nine temporaries, whatever the order.
    let path = dir.join("pressure.vert");
    std::fs::write(&path, PRESSURE).unwrap();
    let out = run(
        AGAL,
        &[
            path.to_str().unwrap(),
            "--profile",
            "baselineConstrained",
            "-o",
            target.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("error[agal.limit]: the program needs 9 temporaries here; the baselineConstrained profile has 7"),
        "{err}"
    );
    assert!(
        err.contains("= OpFAdd") && err.contains("pressure.vert:13"),
        "the SPIR-V instruction and the source line are shown: {err}"
    );
    assert!(!target.exists());
    let out = run(
        AGAL,
        &[path.to_str().unwrap(), "-o", target.to_str().unwrap()],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "packed into baseline's 8: {}",
        stderr(&out)
    );
    assert!(target.exists());
}

#[test]
fn two_runs_write_identical_files() {
    // Separate processes: different hash seeds, same bytes.
    let dir = scratch("twice");
    for (bin, file, extra) in [
        (PICA, "glsl/ctr_lenny.vert.spv", &[][..]),
        (
            AGAL,
            "glsl/phong.frag.spv",
            &["--fragment", "--profile", "standard"][..],
        ),
    ] {
        let input = fixture(file);
        let mut outputs = Vec::new();
        for run in 0..2 {
            let out = dir.join(format!("run{run}"));
            let reflect = dir.join(format!("run{run}.json"));
            let status = run_status(bin, &input, &out, &reflect, extra);
            assert!(status, "{file}");
            outputs.push((
                std::fs::read(&out).unwrap(),
                std::fs::read(&reflect).unwrap(),
            ));
        }
        assert!(outputs[0] == outputs[1], "{file}: the two runs differ");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn run_status(
    bin: &str,
    input: &std::path::Path,
    out: &std::path::Path,
    reflect: &std::path::Path,
    extra: &[&str],
) -> bool {
    Command::new(bin)
        .arg(input)
        .arg("-o")
        .arg(out)
        .arg("--reflect")
        .arg(reflect)
        .args(extra)
        .status()
        .unwrap()
        .success()
}

#[test]
fn glsl_and_wgsl_inputs_compile_without_glslang() {
    let dir = scratch("glsl");
    let vert =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/homebrew/shaders/vshader.vert");
    let out = dir.join("v.shbin");
    let o = run(
        PICA,
        &[vert.to_str().unwrap(), "-o", out.to_str().unwrap()],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(&std::fs::read(&out).unwrap()[..4], b"DVLB");

    let wgsl = dir.join("tint.wgsl");
    std::fs::write(
        &wgsl,
        "@group(0) @binding(0) var<uniform> tint: vec4<f32>;\n\
         @fragment fn main(@location(0) c: vec4<f32>) -> @location(0) vec4<f32> { return c * tint; }\n",
    )
    .unwrap();
    let o = run(
        AGAL,
        &[wgsl.to_str().unwrap(), "--emit", "asm", "-o", "-"],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("mul oc, v0, fc0"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );

    let bad = dir.join("bad.frag");
    std::fs::write(
        &bad,
        "#version 450\nlayout(location=0) out vec4 c;\nvoid main() { c = ; }\n",
    )
    .unwrap();
    let o = run(AGAL, &["--check", bad.to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("error[naga.glsl]") && err.contains(":3:"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn spv2agal_warns_about_an_output_it_had_to_write_and_still_succeeds() {
    // A fragment shader that only discards: Flash requires oc, written with zeros.
    let dir = agal_scratch("warn");
    let input = dir.join("discard.spv");
    std::fs::copy(fixture("edge/discard_only.frag.spv"), &input).unwrap();
    let out = run(AGAL, &[input.to_str().unwrap(), "--fragment"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("discard.spv: warning[agal.unwritten-output]"),
        "{err}"
    );
    let bytes = std::fs::read(dir.join("discard.agal")).unwrap();
    assert!(backend_agal::validate(&bytes, backend_agal::Profile::Baseline).is_ok());
}

/// gl_FragCoord: the fragment shader alone is refused (exit 1, no file); with `--link` to
/// the vertex shader each program of the pair is written, the vertex one passing its
/// position on, the fragment one listing the viewport uniform in its reflection.
#[test]
fn spv2agal_compiles_frag_coord_as_a_linked_pair() {
    let dir = agal_scratch("fragcoord");
    let vert = dir.join("p.vert");
    let frag = dir.join("p.frag");
    std::fs::write(
        &vert,
        "#version 450\nlayout(location = 0) in vec4 pos;\nvoid main() { gl_Position = pos; }\n",
    )
    .unwrap();
    std::fs::write(
        &frag,
        "#version 450\nlayout(location = 0) out vec4 c;\n\
         void main() { c = vec4(gl_FragCoord.xy, 0.0, 1.0); }\n",
    )
    .unwrap();
    let (v, f) = (vert.to_str().unwrap(), frag.to_str().unwrap());
    let alone = run(AGAL, &[f], None);
    assert_eq!(alone.status.code(), Some(1));
    let err = String::from_utf8_lossy(&alone.stderr);
    assert!(
        err.contains("gl_FragCoord") && err.contains("--link"),
        "{err}"
    );
    assert!(!dir.join("p.agal").exists(), "no partial output");
    let reflect = dir.join("f.json");
    let out = run(
        AGAL,
        &[f, "--link", v, "--reflect", reflect.to_str().unwrap()],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.join("p.agal").exists());
    let json = std::fs::read_to_string(&reflect).unwrap();
    assert!(json.contains("spv2retro_viewport"), "{json}");
    let listing = run(AGAL, &[v, "--link", f, "--emit", "asm", "-o", "-"], None);
    assert!(
        listing.status.success(),
        "{}",
        String::from_utf8_lossy(&listing.stderr)
    );
    // --entry cannot choose for both shaders: refused, not ignored.
    let both = run(AGAL, &[f, "--link", v, "--entry", "main"], None);
    assert_eq!(both.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&both.stderr).contains("--entry main cannot choose"));
    // The position goes to op and on to a varying.
    let text = stdout(&listing);
    assert!(
        text.contains("mov op, va0") && text.contains("mov v0, va0"),
        "{text}"
    );
}

/// AGALMiniAssembler text in, its bytes out: every golden program whose assembler input we
/// have (`tests/fixtures/golden/agal/*.source.txt`, Adobe's AGALMiniAssembler output as Ruffle
/// recorded it) assembles to the golden bytes; every golden program disassembles
/// (`--emit asm`) to a listing that assembles back to the same bytes; bad text names the
/// line and writes nothing.
#[test]
fn spv2agal_assembles_agalminiassembler_text_to_the_golden_bytes() {
    let golden = fixture("golden/agal");
    let dir = agal_scratch("agalasm");
    let mut assembled = 0;
    let mut round_trips = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&golden)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "agal"))
        .collect();
    entries.sort();
    for agal in entries {
        let stem = agal.file_stem().unwrap().to_str().unwrap().to_string();
        let want = std::fs::read(&agal).unwrap();
        let stage = if stem.ends_with("fragment") {
            "--fragment"
        } else {
            "--vertex"
        };
        // The header's version picks the profile: AGAL 1 is baseline, 2 standard.
        let profile = match want[1] {
            1 => "baseline",
            2 => "standard",
            _ => "standardExtended",
        };
        // The golden files record whether the program keeps Flash's rules (some test
        // programs do not): those that do not are refused, naming Flash's rule.
        let notes = std::fs::read_to_string(golden.join(format!("{stem}.asm.txt"))).unwrap();
        let valid = notes
            .lines()
            .any(|l| l.contains("Flash-rule validation") && l.ends_with("-> []"));
        let source = golden.join(format!("{stem}.source.txt"));
        if source.exists() && !valid {
            let input = dir.join(format!("{stem}.agalasm"));
            std::fs::copy(&source, &input).unwrap();
            let out = run(
                AGAL,
                &[input.to_str().unwrap(), stage, "--profile", profile],
                None,
            );
            assert_eq!(out.status.code(), Some(1), "{stem} breaks Flash's rules");
            assert!(String::from_utf8_lossy(&out.stderr).contains("error[flash."));
            assert!(!dir.join(format!("{stem}.agal")).exists());
        } else if source.exists() {
            let input = dir.join(format!("{stem}.agalasm"));
            std::fs::copy(&source, &input).unwrap();
            let out = run(
                AGAL,
                &[
                    input.to_str().unwrap(),
                    stage,
                    "--profile",
                    profile,
                    "-o",
                    "-",
                ],
                None,
            );
            assert!(
                out.status.success(),
                "{stem}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(
                out.stdout, want,
                "{stem}: the bytes AGALMiniAssembler wrote"
            );
            assembled += 1;
        }
        if !valid {
            continue;
        }
        // Round trip: bytes -> listing -> bytes.
        let listing = run(
            AGAL,
            &[agal.to_str().unwrap(), "--emit", "asm", "-o", "-"],
            None,
        );
        assert!(
            listing.status.success(),
            "{stem}: {}",
            String::from_utf8_lossy(&listing.stderr)
        );
        let again = dir.join(format!("{stem}.again.agalasm"));
        std::fs::write(&again, &listing.stdout).unwrap();
        let out = run(
            AGAL,
            &[
                again.to_str().unwrap(),
                stage,
                "--profile",
                profile,
                "-o",
                "-",
            ],
            None,
        );
        assert!(
            out.status.success(),
            "{stem}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.stdout, want, "{stem}: listing and back");
        round_trips += 1;
    }
    assert!(
        assembled >= 5 && round_trips >= 8,
        "{assembled} assembled, {round_trips} round trips"
    );
    // A typo: the line, the rule, exit 1, no file.
    let bad = dir.join("bad.agalasm");
    std::fs::write(&bad, "mov vt0, va0\nmvo op, vt0\n").unwrap();
    let out = run(AGAL, &[bad.to_str().unwrap(), "--vertex"], None);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.agalasm:2: error[agal.asm]"), "{err}");
    assert!(!dir.join("bad.agal").exists());
    // Text that assembles but breaks a Flash rule (no output written): Flash's number.
    std::fs::write(&bad, "mov vt0, va0\n").unwrap();
    let out = run(AGAL, &[bad.to_str().unwrap(), "--vertex"], None);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error[flash."), "{err}");
    assert!(!dir.join("bad.agal").exists());
}

#[test]
fn classic_glsl_from_the_command_line_with_defines() {
    // A WebGL-style shader (no #version), with a macro only the command line defines.
    let vert = fixture("classic/webgl_textured.vert");
    let frag = fixture("classic/webgl_textured.frag");
    let out = run(
        AGAL,
        &[
            frag.to_str().unwrap(),
            "--link",
            vert.to_str().unwrap(),
            "--emit",
            "asm",
            "-o",
            "-",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("tex ft0"));
    let dir = scratch("define");
    let path = dir.join("scaled.vert");
    std::fs::write(
        &path,
        "attribute vec4 p;\nvoid main() { gl_Position = p * SCALE; }\n",
    )
    .unwrap();
    let path = path.to_str().unwrap();
    let without = run(PICA, &[path, "--check"], None);
    assert_eq!(without.status.code(), Some(1));
    assert!(
        stderr(&without).contains("scaled.vert:2:33"),
        "{}",
        stderr(&without)
    );
    let with = run(
        PICA,
        &[path, "-D", "SCALE=0.5", "--emit", "asm", "-o", "-"],
        None,
    );
    assert_eq!(with.status.code(), Some(0), "{}", stderr(&with));
    assert!(String::from_utf8_lossy(&with.stdout).contains(".setf"));
    let bad = run(PICA, &[path, "-D", "3=x"], None);
    assert_eq!(
        bad.status.code(),
        Some(2),
        "a malformed -D is a usage error"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `layout(row_major)` in GLSL text: naga has no matrix layouts, so the rewrite stores the
/// matrix as its transposed type and reads it through `transpose`; the reflection says
/// `row_major` (one row per register). A row-major block holding a structure cannot be
/// rewritten so: refused by name, with the way around it, and no file is written.
#[test]
fn a_matrix_layout_in_glsl_text_is_kept_or_refused_by_name() {
    let dir = agal_scratch("row-major");
    let source = dir.join("rows.vert");
    std::fs::write(
        &source,
        "#version 450\nlayout(location = 0) in vec4 p;\n\
         layout(std140, binding = 0, row_major) uniform U { mat4 m; };\n\
         void main() { gl_Position = m * p; }\n",
    )
    .unwrap();
    let nested = dir.join("nested.vert");
    std::fs::write(
        &nested,
        "#version 450\nlayout(location = 0) in vec4 p;\nstruct L { mat4 m; };\n\
         layout(std140, binding = 0, row_major) uniform U { L l; };\n\
         void main() { gl_Position = l.m * p; }\n",
    )
    .unwrap();
    for bin in [PICA, AGAL] {
        let target = dir.join("rows.out");
        let json = dir.join("rows.json");
        let args = [
            source.to_str().unwrap(),
            "-o",
            target.to_str().unwrap(),
            "--reflect",
            json.to_str().unwrap(),
        ];
        let out = run(bin, &args, None);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let reflection = std::fs::read_to_string(&json).unwrap();
        assert!(reflection.contains("\"row_major\""), "{reflection}");
        std::fs::remove_file(&target).unwrap();
        let out = run(
            bin,
            &[nested.to_str().unwrap(), "-o", target.to_str().unwrap()],
            None,
        );
        assert_eq!(out.status.code(), Some(1));
        let err = stderr(&out);
        assert!(err.contains("error[glsl.matrix-layout]"), "{err}");
        assert!(err.contains("nested.vert:4:"), "at the member: {err}");
        assert!(err.contains("glslangValidator"), "{err}");
        assert!(!target.exists());
    }
}

#[test]
fn the_pipeline_is_printed_and_stopped_after_a_step() {
    for (bin, extra) in [(PICA, &[][..]), (AGAL, &["--profile", "standard"][..])] {
        let mut args = vec!["--print-pipeline"];
        args.extend(extra);
        let out = run(bin, &args, None);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let listing = stdout(&out);
        assert!(listing.starts_with("  1  "), "{listing}");
        assert!(listing.contains(" mem2reg "), "{listing}");
        assert!(listing.contains("clean-up: fold"), "{listing}");
    }
    let path = fixture("glsl/mvp_color.vert.spv");
    let shown = path.to_str().unwrap();
    let out = run(
        PICA,
        &[shown, "--emit", "mir", "--after", "once", "-o", "-"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("vertex \"main\""));
    // Not the MIR: the option has nothing to show.
    let out = run(PICA, &[shown, "--after", "once", "--check"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("needs --emit mir"),
        "{}",
        stderr(&out)
    );
    let out = run(
        PICA,
        &[shown, "--emit", "mir", "--after", "mem", "-o", "-"],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("error[pipeline.option]: --after mem: there is no step 'mem'"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn engine_shaders_compile_from_the_command_line_as_the_library_compiles_them() {
    // raylib's own names (`.vs`, `.fs`) and a libretro `.glsl` holding both stages: the
    // binaries read them as GLSL, and write the bytes the library makes of the same file.
    let engines = "thirdparty/engines";
    let dir = scratch("cli-engines");
    let cases: [(&str, &str, &[&str], spv2retro::Options); 2] = [
        (
            PICA,
            "raylib/src/glsl100/base.vs",
            &[],
            spv2retro::Options::pica(),
        ),
        (
            AGAL,
            "raylib/src/glsl330/grayscale.fs",
            &["--profile", "standard"],
            spv2retro::Options::agal(spv2retro::Profile::Standard),
        ),
    ];
    for (k, (bin, file, args, options)) in cases.into_iter().enumerate() {
        let input = fixture(&format!("{engines}/{file}"));
        let output = dir.join(format!("out{k}"));
        let mut argv: Vec<&str> = args.to_vec();
        argv.extend([input.to_str().unwrap(), "-o", output.to_str().unwrap()]);
        let out = run(bin, &argv, None);
        assert!(out.status.success(), "{file}: {}", stderr(&out));
        let source = spv2retro::Source::from_path(&input).unwrap();
        let library = spv2retro::compile(&source, &options).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(std::fs::read(&output).unwrap(), library.bytes, "{file}");
    }
    // libretro's crt-pi as RetroArch pairs it: the text assembled for each stage, linked
    // (it reads gl_FragCoord, which needs the pair).
    let vertex = fixture(&format!(
        "{engines}/libretro/src/vertex/crt/shaders/crt-pi.glsl"
    ));
    let fragment = fixture(&format!(
        "{engines}/libretro/src/fragment/crt/shaders/crt-pi.glsl"
    ));
    let output = dir.join("crt-pi.agal");
    let out = run(
        AGAL,
        &[
            "--profile",
            "standardExtended",
            "--fragment",
            fragment.to_str().unwrap(),
            "--link",
            vertex.to_str().unwrap(),
            "-o",
            output.to_str().unwrap(),
        ],
        None,
    );
    assert!(out.status.success(), "crt-pi: {}", stderr(&out));
    let (_, f) = spv2retro::compile_pair(
        spv2retro::Source::from_path(&vertex).unwrap(),
        spv2retro::Source::from_path(&fragment).unwrap(),
        &spv2retro::Options::agal(spv2retro::Profile::StandardExtended),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        std::fs::read(&output).unwrap(),
        f.bytes,
        "crt-pi fragment program"
    );
}

const RETRO: &str = env!("CARGO_BIN_EXE_spv2retro");

/// `spv2retro run` says how many instructions the program executed: a kept loop's body
/// counts once per trip. counted_loop.vert's `for` runs its body 40 times, so the steps are
/// its words plus 39 more runs of the body (counted here from the listing), `end` included.
#[test]
fn run_prints_the_steps_a_loop_executes() {
    let path = fixture("glsl/counted_loop.vert.spv");
    let path = path.to_str().unwrap();
    let listing = run(PICA, &[path, "--emit", "asm", "-o", "-"], None);
    assert_eq!(listing.status.code(), Some(0), "{}", stderr(&listing));
    let text = stdout(&listing);
    let code: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with('\t'))
        .map(str::trim)
        .filter(|l| *l != ".end")
        .collect();
    let start = code
        .iter()
        .position(|l| l.starts_with("for "))
        .expect("a for");
    let end = text
        .lines()
        .filter(|l| l.starts_with('\t'))
        .map(str::trim)
        .position(|l| l == ".end")
        .expect("the for's .end");
    let body = end - start - 1;
    let steps = code.len() + 39 * body;
    let out = run(RETRO, &["run", "--target", "pica", path], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let want = format!(
        "pica vertex program, {} instructions, {steps} executed for these values",
        code.len()
    );
    assert!(
        stdout(&out).contains(&want),
        "{want}\n{}\n{text}",
        stdout(&out)
    );
    let out = run(RETRO, &["run", "--target", "pica", path, "--json"], None);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["steps"], steps as u64, "{json}");
}

/// `spv2pica --no-procedures` keeps a geometry program's repeated runs inline: devkitPro's
/// geoshader rewrite calls a procedure per triangle by default and none with the flag, and
/// the `.shbin` the flag writes is the longer one.
#[test]
fn no_procedures_keeps_a_geometry_programs_runs_inline() {
    let path = fixture("geometry/geoshader.geom.spv");
    let path = path.to_str().unwrap();
    let listing = |extra: &[&str]| {
        let mut args = vec![path, "--emit", "asm", "-o", "-"];
        args.extend_from_slice(extra);
        let out = run(PICA, &args, None);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
    };
    let words = |text: &str| {
        text.lines()
            .filter(|l| l.starts_with('\t') && !l.trim().starts_with('.'))
            .count()
    };
    let (called, inline) = (listing(&[]), listing(&["--no-procedures"]));
    assert_eq!(called.matches("\tcall ").count(), 3, "{called}");
    assert!(!inline.contains("call "), "{inline}");
    assert!(words(&called) < words(&inline), "{called}\n{inline}");
}
