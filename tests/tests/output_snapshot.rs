//! What every fixture compiles to, pinned: for each SPIR-V module of `tests/fixtures/glsl`
//! and `tests/fixtures/edge`, the program's bytes for the PICA200, AGAL 1 (`baseline`) and
//! AGAL 3 (`standardExtended`), or the rule of the refusal, are summarised in
//! `tests/golden/outputs.txt` as one line each (size and a 64-bit FNV-1a hash of the bytes).
//! A refactoring that must not change the output (the back ends' shared machine layer) is
//! checked here byte for byte; a change that should change it (a better instruction choice)
//! shows up as a diff of this file to review, with the sizes before and after.
//!
//! After an intended change: `BLESS=1 cargo test -p tests --test integration output_snapshot::`.

use std::fmt::Write as _;

use backend_agal::Profile;
use spv2retro::{Options, Source, compile};

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn snapshot() -> String {
    let mut files = tests::fixture_files("glsl", ".spv");
    files.extend(tests::fixture_files("edge", ".spv"));
    let targets: [(&str, Options); 3] = [
        ("pica", Options::pica()),
        ("agal1", Options::agal(Profile::Baseline)),
        ("agal3", Options::agal(Profile::StandardExtended)),
    ];
    let mut out = String::new();
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let folder = path
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy();
        let name = format!("{folder}/{}", path.file_name().unwrap().to_string_lossy());
        for (target, options) in &targets {
            let line = match compile(Source::spirv(&bytes).named(&name), options) {
                Ok(c) => format!("{} bytes {:016x}", c.bytes.len(), fnv1a(&c.bytes)),
                Err(e) => {
                    let rule = e.diagnostics().0.first().map_or("-", |d| d.rule);
                    format!("refused {rule}")
                }
            };
            let _ = writeln!(out, "{name} {target}: {line}");
        }
    }
    out
}

#[test]
fn every_fixture_compiles_to_the_pinned_bytes() {
    let now = snapshot();
    if let Some(before) = tests::golden("outputs.txt", &now) {
        tests::golden_unchanged(&before, &now, "output_snapshot::");
    }
}
