//! The binaries as a user runs them: exit codes, diagnostics on stderr, standard input.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(rel)
}

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
fn a_fragment_shader_is_not_a_pica_program() {
    let path = fixture("glsl/phong.frag.spv");
    let out = run(PICA, &["--check", path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no programmable fragment stage"),
        "{}",
        stderr(&out)
    );
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
