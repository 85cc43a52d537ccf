//! The library and the binaries agree: the same bytes, listings and diagnostics from
//! `spv2retro::compile` as from `spv2pica` and `spv2agal`.

use std::process::Command;

use spv2retro::{ErrorKind, Options, Profile, Source, Stage, compile};
use test_kit::{fixture, scratch};

#[test]
fn the_library_writes_what_the_binaries_write() {
    let dir = scratch("same-bytes");
    for (bin, file, options, extra) in [
        (
            env!("CARGO_BIN_EXE_spv2pica"),
            "glsl/vertex_lighting.vert.spv",
            Options::pica(),
            vec![],
        ),
        (
            env!("CARGO_BIN_EXE_spv2agal"),
            "glsl/phong.frag.spv",
            Options::agal(Profile::Standard).stage(Stage::Fragment),
            vec!["--profile", "standard", "--fragment"],
        ),
    ] {
        let input = fixture(file);
        let bytes = std::fs::read(&input).unwrap();
        let program = compile(Source::spirv(&bytes), &options).unwrap();
        let out = dir.join("out.bin");
        let status = Command::new(bin)
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .args(&extra)
            .status()
            .unwrap();
        assert!(status.success());
        assert_eq!(std::fs::read(&out).unwrap(), program.bytes, "{file}");
        let listing = Command::new(bin)
            .arg(&input)
            .args(["--emit", "asm", "-o", "-"])
            .args(&extra)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&listing.stdout), program.listing);
    }
}

#[test]
fn errors_render_the_diagnostic_the_binaries_print() {
    let input = fixture("invalid/cfg.back-edge-target--selfloop.spvasm");
    let shown = input.to_str().unwrap();
    let text = std::fs::read_to_string(&input).unwrap();
    let err = compile(Source::spirv_text(&text).named(shown), &Options::pica()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Rejected);
    assert_eq!(err.diagnostics().0[0].rule, "cfg.back-edge-target");
    let out = Command::new(env!("CARGO_BIN_EXE_spv2pica"))
        .args(["--check", shown])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        err.to_string(),
        "Display is the CLI's text"
    );
    // Debug too, so `fn main() -> Result<(), spv2retro::Error>` prints it readably.
    assert_eq!(format!("{err:?}"), err.to_string());
}
