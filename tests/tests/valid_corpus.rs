//! Every SPIR-V module glslang made from the GLSL/HLSL corpus is accepted, in either byte
//! order, and so is its text form.

use frontend_spirv::{Input, Options};
use tests::fixture_files;

#[test]
fn glslang_corpus_is_accepted() {
    let files = fixture_files("glsl", ".spv");
    assert!(files.len() >= 60, "only {} corpus modules", files.len());
    let mut failures = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if let Err(diags) = frontend_spirv::load(Input::Binary(&bytes), &Options::default()) {
            failures.push(diags.render(&name, None));
            continue;
        }
        let swapped: Vec<u8> = bytes
            .chunks_exact(4)
            .flat_map(|w| [w[3], w[2], w[1], w[0]])
            .collect();
        match frontend_spirv::load(Input::Binary(&swapped), &Options::default()) {
            Ok(valid) => assert!(valid.module.header.big_endian),
            Err(diags) => failures.push(format!("big-endian {}", diags.render(&name, None))),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rejected:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    eprintln!(
        "{} glslang modules accepted, little- and big-endian",
        files.len()
    );
}
