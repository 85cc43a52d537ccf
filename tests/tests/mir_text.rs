//! The MIR text reads back as it was printed: every fixture module the front end lowers (the
//! project's own corpora and a sample of the third-party one), as lowered and as each back
//! end's pipeline leaves it, printed, read by `mir::read::read_module`, accepted by the
//! verifier, and printed again to the same text. Where the interpreter runs the module, the
//! module read back computes what the original does.

use std::path::PathBuf;

use frontend_spirv::entry::{self, Stage};
use frontend_spirv::{Input, Options};
use mir::eval::{Env, NoTextures};
use mir::print::print_module;
use tests::mirtest::{Rng, Values};

/// Loads, validates and lowers `bytes` (its only entry point of any stage the IR has).
fn lower(bytes: &[u8]) -> Option<mir::Module> {
    let valid = frontend_spirv::load(Input::Binary(bytes), &Options::default()).ok()?;
    let reason = |_: Stage| String::from("not supported");
    let query = entry::Query {
        name: None,
        stage: None,
        supported: &[Stage::Vertex, Stage::Fragment, Stage::Geometry],
        unsupported_reason: &reason,
    };
    let entry = entry::select(&valid, &query).ok()?;
    frontend_spirv::lower::lower(&valid, &entry).ok()
}

/// The corpus: every module of the project's corpora, one in eight of the third-party one.
fn modules() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["glsl", "edge", "spvasm", "geometry", "fuzz"] {
        files.extend(tests::fixture_files(dir, ".spv"));
    }
    for suite in ["glslang", "spirv-cross"] {
        let dir = tests::fixtures("thirdparty").join(suite).join("spv");
        let mut these: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("directory entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "spv"))
            .collect();
        these.sort();
        files.extend(these.into_iter().step_by(8));
    }
    files
}

/// Prints, reads, verifies and prints again; runs both where the interpreter can.
fn round_trip(what: &str, m: &mir::Module) -> Result<(), String> {
    let text = print_module(m);
    let back =
        mir::read::read_module(&text).map_err(|e| format!("{what}: {e}\n{}", numbered(&text)))?;
    mir::verify::verify(&back).map_err(|e| format!("{what}: read back, {e}\n{text}"))?;
    let again = print_module(&back);
    if again != text {
        return Err(format!(
            "{what}: prints differently read back\n{}",
            diff(&text, &again)
        ));
    }
    if m.samplers.is_empty() && m.stage != mir::Stage::Geometry {
        let values = Values::random(m, &mut Rng(0x5eed), true);
        let env = Env {
            inputs: &values.inputs,
            uniforms: &values.uniforms,
            bools: &values.bools,
            textures: &NoTextures,
        };
        let (a, b) = (mir::eval::run(m, &env), mir::eval::run(&back, &env));
        if format!("{a:?}") != format!("{b:?}") {
            return Err(format!(
                "{what}: computes {b:?} read back, not {a:?}\n{text}"
            ));
        }
    }
    Ok(())
}

fn numbered(text: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(n, l)| format!("{:4} {l}\n", n + 1))
        .collect()
}

/// The first differing line of each text.
fn diff(a: &str, b: &str) -> String {
    let (mut x, mut y) = (a.lines(), b.lines());
    for n in 1.. {
        match (x.next(), y.next()) {
            (None, None) => break,
            (p, q) if p != q => {
                return format!("line {n}:\n  printed: {p:?}\n  read back: {q:?}");
            }
            _ => {}
        }
    }
    String::new()
}

#[test]
fn printed_mir_reads_back_to_the_same_text() {
    let pipelines = [
        ("pica", backend_pica::codegen::prepare::passes()),
        ("agal", backend_agal::codegen::prepare::passes(true)),
        ("agal1", backend_agal::codegen::prepare::passes(false)),
    ];
    let (mut lowered, mut optimised, mut geometry) = (0, 0, 0);
    let mut failures = Vec::new();
    for file in modules() {
        let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let name = file.display().to_string();
        let Some(module) = lower(&bytes) else {
            continue;
        };
        lowered += 1;
        geometry += usize::from(module.geometry.is_some());
        if let Err(e) = round_trip(&format!("{name} (lowered)"), &module) {
            failures.push(e);
        }
        for (target, options) in &pipelines {
            let mut m = module.clone();
            if mir::passes::optimize_with(&mut m, options).is_err() {
                continue;
            }
            optimised += 1;
            if let Err(e) = round_trip(&format!("{name} ({target})"), &m) {
                failures.push(e);
            }
        }
    }
    println!("{lowered} modules lowered ({geometry} geometry programs), {optimised} optimised");
    assert!(
        lowered > 300 && optimised > 600 && geometry > 0,
        "{lowered} lowered, {optimised} optimised, {geometry} geometry programs"
    );
    assert!(
        failures.is_empty(),
        "{} of them did not:\n{}",
        failures.len(),
        failures
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}
