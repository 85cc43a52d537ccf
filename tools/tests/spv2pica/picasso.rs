//! `spv2pica` as a drop-in for picasso (a module of the `spv2pica` tests): picasso's command line on the public sample sources
//! gives picasso 2.7.1's bytes and header (tests/fixtures/thirdparty/picasso, made by picasso
//! itself), errors name file, line, column and rule, and compiled shaders link with
//! hand-written geometry shaders into a program the simulator runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use backend_pica::sim::{Simulator, Uniforms};
use spv2retro::picasso::link;
use spv2retro::{Options, Source, Stage};

use test_kit::{fixture, scratch};

use super::{PICA, stderr};

fn corpus() -> PathBuf {
    fixture("thirdparty/picasso")
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(PICA)
        .current_dir(dir)
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Every set of the corpus: its folder and its sources in link order.
fn sets() -> Vec<(PathBuf, Vec<String>)> {
    let mut sets = Vec::new();
    for project in std::fs::read_dir(corpus()).unwrap() {
        let project = project.unwrap().path();
        if !project.is_dir() {
            continue;
        }
        for set in std::fs::read_dir(&project).unwrap() {
            let set = set.unwrap().path();
            if !set.is_dir() {
                continue;
            }
            let mut files: Vec<String> = std::fs::read_dir(&set)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.as_bytes().first().is_some_and(u8::is_ascii_digit))
                .collect();
            files.sort();
            sets.push((set, files));
        }
    }
    sets.sort();
    sets
}

#[test]
fn the_public_sources_assemble_to_picassos_bytes_and_header() {
    let sets = sets();
    assert!(sets.len() >= 40, "the corpus has {} sets", sets.len());
    let out_dir = scratch("corpus");
    let mut checked = 0;
    for (set, files) in &sets {
        let shown = set.strip_prefix(corpus()).unwrap().display().to_string();
        let refused = set.join("picasso.err");
        let shbin = out_dir.join("out.shbin");
        let header = out_dir.join("out.h");
        let _ = std::fs::remove_file(&shbin);
        let mut args = vec![
            "-o",
            shbin.to_str().unwrap(),
            "-h",
            header.to_str().unwrap(),
        ];
        args.extend(files.iter().map(String::as_str));
        let out = run_in(set, &args);
        if refused.exists() {
            // picasso refuses it; so must we, at the same line, with no output.
            let theirs = std::fs::read_to_string(&refused).unwrap();
            let place = theirs.split(": error").next().unwrap().to_string();
            assert_eq!(out.status.code(), Some(1), "{shown}");
            assert!(
                stderr(&out).starts_with(&place),
                "{shown}: {}",
                stderr(&out)
            );
            assert!(!shbin.exists(), "{shown}: an output was written");
            continue;
        }
        assert_eq!(out.status.code(), Some(0), "{shown}: {}", stderr(&out));
        assert_eq!(
            std::fs::read(&shbin).unwrap(),
            std::fs::read(set.join("picasso.shbin")).unwrap(),
            "{shown}: the .shbin differs from picasso's"
        );
        assert_eq!(
            std::fs::read(&header).unwrap(),
            std::fs::read(set.join("picasso.h")).unwrap(),
            "{shown}: the header differs from picasso's"
        );
        // -n: no padding NOPs, as picasso -n.
        let mut args = vec!["-n", "-o", shbin.to_str().unwrap()];
        args.extend(files.iter().map(String::as_str));
        let out = run_in(set, &args);
        assert_eq!(out.status.code(), Some(0), "{shown}: {}", stderr(&out));
        assert_eq!(
            std::fs::read(&shbin).unwrap(),
            std::fs::read(set.join("picasso-n.shbin")).unwrap(),
            "{shown}: -n differs from picasso -n"
        );
        checked += 1;
    }
    assert!(checked >= 40, "{checked} sets checked");
    std::fs::remove_dir_all(&out_dir).unwrap();
}

#[test]
fn padding_nops_left_out_by_n_are_warnings_at_their_line() {
    let dir = scratch("nonop");
    std::fs::write(
        dir.join("a.v.pica"),
        ".proc main\n\tifu b0\n\t.end\n\tend\n.end\n",
    )
    .unwrap();
    let out = run_in(&dir, &["-n", "-o", "a.shbin", "a.v.pica"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("a.v.pica:3:2: warning: a padding NOP is required here"),
        "{err}"
    );
    assert!(err.contains("= rule: picasso.padding"), "{err}");
    let with = run_in(&dir, &["-o", "b.shbin", "a.v.pica"]);
    assert_eq!(with.status.code(), Some(0));
    let words = |f: &str| {
        backend_pica::shbin::read(&std::fs::read(dir.join(f)).unwrap())
            .unwrap()
            .code
            .len()
    };
    assert_eq!(words("a.shbin") + 1, words("b.shbin"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn errors_name_file_line_column_and_rule_and_write_nothing() {
    let dir = scratch("errors");
    let cases = [
        (
            ".proc main\n\tmov r0, v15\n\tend\n.end\n",
            "bad.v.pica:2:10: error: invalid input register: v15",
            "picasso.operand",
        ),
        (
            ".proc main\n\tcall nowhere\n\tend\n.end\n",
            "bad.v.pica:2:7: error: procedure 'nowhere' is undefined",
            "picasso.symbol",
        ),
        (
            ".proc main\n\tifu b0\n\tend\n.end\n",
            "bad.v.pica:1:1: error: unclosed block(s): this block has no .end",
            "picasso.block",
        ),
    ];
    for (text, first, rule) in cases {
        std::fs::write(dir.join("bad.v.pica"), text).unwrap();
        let out = run_in(&dir, &["-o", "bad.shbin", "-h", "bad.h", "bad.v.pica"]);
        assert_eq!(out.status.code(), Some(1), "{text}");
        let err = stderr(&out);
        assert_eq!(err.lines().next(), Some(first), "{err}");
        assert!(err.contains(&format!("= rule: {rule}")), "{err}");
        assert!(!dir.join("bad.shbin").exists() && !dir.join("bad.h").exists());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn picassos_options_are_accepted() {
    let dir = scratch("options");
    let version = run_in(&dir, &["-v"]);
    assert_eq!(version.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&version.stdout).starts_with("spv2pica "));
    let help = run_in(&dir, &["--help"]);
    assert!(String::from_utf8_lossy(&help.stdout).contains("--header"));
    // Long forms, and the output named after the first input when -o is left out.
    let set = corpus().join("devkitPro+3ds-examples/graphics-gpu-geoshader-source-program");
    for f in ["01-program.v.pica", "02-program.g.pica"] {
        std::fs::copy(set.join(f), dir.join(f)).unwrap();
    }
    let out = run_in(
        &dir,
        &[
            "--header=p.h",
            "--no-nop",
            "01-program.v.pica",
            "02-program.g.pica",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(dir.join("01-program.shbin")).unwrap(),
        std::fs::read(set.join("picasso-n.shbin")).unwrap()
    );
    assert_eq!(
        std::fs::read(dir.join("p.h")).unwrap(),
        std::fs::read(set.join("picasso.h")).unwrap()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The vertex half of 3ds-examples' `geoshader`, in GLSL: the position made whole and the
/// colour passed on to the geometry shader.
const GEOSHADER_VERT: &str = "#version 450
layout(location = 0) in vec3 inpos;
layout(location = 1) in vec4 inclr;
layout(location = 0) out vec4 outclr;
void main() {
    gl_Position = vec4(inpos, 1.0);
    outclr = inclr;
}
";

fn vec4(v: [f32; 3], w: f32) -> [f32; 4] {
    [v[0], v[1], v[2], w]
}

#[test]
fn a_glsl_vertex_shader_links_with_a_hand_written_geometry_shader() {
    let set = corpus().join("devkitPro+3ds-examples/graphics-gpu-geoshader-source-program");
    let gsh = std::fs::read_to_string(set.join("02-program.g.pica")).unwrap();
    let inputs = [
        Source::glsl(GEOSHADER_VERT, Stage::Vertex).named("program.vert"),
        Source::picasso(&gsh).named("program.g.pica"),
    ];
    let linked = link(&inputs, &Options::pica(), true).unwrap();
    assert_eq!(linked.shaders.len(), 2);
    assert_eq!(linked.shaders[0].stage, Stage::Vertex);
    assert_eq!(linked.shaders[1].stage, Stage::Geometry);
    // The geometry shader's uniform in its own space; the header lists the vertex space.
    assert_eq!(linked.shaders[1].uniforms[0].name, "projection");
    assert_eq!(linked.shaders[1].uniforms[0].register, 0);
    assert_eq!(linked.header, "// Generated by picasso\n#pragma once\n");
    // The command line makes the same bytes.
    let dir = scratch("mixed");
    std::fs::write(dir.join("program.vert"), GEOSHADER_VERT).unwrap();
    std::fs::write(dir.join("program.g.pica"), &gsh).unwrap();
    let out = run_in(&dir, &["-o", "p.shbin", "program.vert", "program.g.pica"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read(dir.join("p.shbin")).unwrap(), linked.bytes);
    std::fs::remove_dir_all(&dir).unwrap();

    // Run it: three vertices through the vertex program, their outputs (position, colour;
    // stride 2, as the example passes to shaderProgramSetGsh) into the geometry program.
    let sim = Simulator::new(&linked.bytes).unwrap();
    let positions = [[0.0, 1.0, -2.0], [-1.0, -0.5, -2.0], [1.5, -0.5, -3.0]];
    let colours = [
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 0.5],
    ];
    let mut gsh_inputs = [[0.0f32; 4]; 16];
    let reflection = &linked.shaders[0].compiled.as_ref().unwrap().reflection;
    let output_register = |name: &str| -> usize {
        let o = reflection
            .outputs
            .iter()
            .find(|o| o.name == name)
            .unwrap_or_else(|| panic!("no output {name}"));
        o.register.trim_start_matches('o').parse().unwrap()
    };
    for k in 0..3 {
        let mut v = [[0.0f32; 4]; 16];
        v[0] = vec4(positions[k], 0.0);
        v[1] = colours[k];
        let out = sim.run(0, &v, &Uniforms::default()).unwrap();
        assert!(out.missing.is_empty(), "{:?}", out.missing);
        gsh_inputs[2 * k] = out.outputs[output_register("gl_Position")];
        gsh_inputs[2 * k + 1] = out.outputs[output_register("outclr")];
    }
    // A projection that scales x by 2, y by 3 and moves z by 1, as rows (DP4 against c0–c3).
    let mut uniforms = Uniforms::default();
    uniforms.float[0] = [2.0, 0.0, 0.0, 0.0];
    uniforms.float[1] = [0.0, 3.0, 0.0, 0.0];
    uniforms.float[2] = [0.0, 0.0, 1.0, 1.0];
    uniforms.float[3] = [0.0, 0.0, 0.0, 1.0];
    let out = sim.run(1, &gsh_inputs, &uniforms).unwrap();
    // Independently: the three midpoints split the triangle into three corner triangles.
    let p: Vec<[f32; 4]> = positions.iter().map(|&p| vec4(p, 1.0)).collect();
    let mid =
        |a: [f32; 4], b: [f32; 4]| -> [f32; 4] { std::array::from_fn(|i| (a[i] + b[i]) * 0.5) };
    let (m01, m12, m20) = (mid(p[0], p[1]), mid(p[1], p[2]), mid(p[2], p[0]));
    // Each triangle's k-th vertex takes the k-th input vertex's colour (v1, v3, v5).
    let triangles = [[p[0], m01, m20], [m01, p[1], m12], [m20, m12, p[2]]];
    let project = |v: [f32; 4]| [2.0 * v[0], 3.0 * v[1], v[2] + v[3], v[3]];
    assert_eq!(out.vertices.len(), 9);
    for (t, tri) in triangles.iter().enumerate() {
        for (k, &pos) in tri.iter().enumerate() {
            let v = &out.vertices[3 * t + k];
            assert_eq!(usize::from(v.vertex), k);
            assert_eq!(v.primitive, k == 2, "triangle {t} vertex {k}");
            let near = |got: [f32; 4], want: [f32; 4]| {
                got.iter().zip(&want).all(|(g, w)| (g - w).abs() < 1e-3)
            };
            let want = project(pos);
            assert!(
                near(v.outputs[0], want),
                "triangle {t} vertex {k}: {:?} vs {want:?}",
                v.outputs[0]
            );
            assert!(near(v.outputs[1], colours[k]), "triangle {t} vertex {k}");
        }
    }
}

#[test]
fn a_compiled_shader_whose_uniforms_an_earlier_source_moved_is_refused() {
    // The hand-written vertex file takes c0 first in the shared space; the compiled shader's
    // code reads its matrix at c0.
    let first = ".fvec other\n.out pos position\n.proc vmain\n\tmov pos, other\n\tend\n.end\n.entry vmain\n";
    let vert = "#version 450
layout(location = 0) in vec4 p;
layout(std140, binding = 0) uniform U { mat4 mvp; };
void main() { gl_Position = mvp * p; }
";
    let inputs = [
        Source::picasso(first).named("first.v.pica"),
        Source::glsl(vert, Stage::Vertex).named("mvp.vert"),
    ];
    let e = link(&inputs, &Options::pica(), true).unwrap_err();
    assert_eq!(e.diagnostics().0[0].rule, "picasso.link", "{e}");
    assert!(e.to_string().contains("mvp"), "{e}");
    // Listed first, it links, and keeps its registers.
    let [a, b] = inputs;
    let inputs = [b, a];
    let linked = link(&inputs, &Options::pica(), true).unwrap();
    assert_eq!(linked.shaders[0].uniforms[0].register, 0);
    assert_eq!(linked.shaders[1].uniforms[0].name, "other");
    assert_eq!(linked.shaders[1].uniforms[0].register, 4);
    assert!(
        linked.header.contains("#define VSH_FVEC_mvp 0x00\n"),
        "{}",
        linked.header
    );
    assert!(linked.header.contains("#define VSH_FVEC_other 0x04\n"));
}
