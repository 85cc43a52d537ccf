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

/// The spirv-dis listings of glslang modules among the assembler fixtures load as text too.
#[test]
fn glslang_listings_are_accepted_as_text() {
    let files: Vec<_> = fixture_files("spvasm", ".spvasm")
        .into_iter()
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("glsl_")
        })
        .collect();
    assert!(files.len() >= 8);
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let options = Options {
            asm: tests::asm_options(&text),
        };
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let result = frontend_spirv::load(Input::Text(&text), &options);
        if name == "glsl_frag_explicit_types.spvasm" {
            // 8-, 16- and 64-bit types: rightly refused, by capability.
            let diags = result.expect_err("64-bit types are refused");
            assert_eq!(diags.0[0].rule, "cap.unsupported");
        } else if let Err(diags) = result {
            failures.push(diags.render(&name, Some(&text)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// glslang's `-g` output carries OpLine: instructions get the shader's source positions.
#[test]
fn debug_information_gives_source_positions() {
    for path in fixture_files("glsl", ".g.spv") {
        let bytes = std::fs::read(&path).unwrap();
        let valid = frontend_spirv::load(Input::Binary(&bytes), &Options::default()).unwrap();
        let module = &valid.module;
        assert!(!module.source_files.is_empty(), "{}", path.display());
        let positioned = module.insts().filter(|i| i.span.source.is_some()).count();
        assert!(
            positioned > 0,
            "{}: no instruction has a source position",
            path.display()
        );
    }
    // -gV (NonSemantic.Shader.DebugInfo.100) loads, with its debug instructions dropped.
    for path in fixture_files("glsl", ".gV.spv") {
        let bytes = std::fs::read(&path).unwrap();
        let valid = frontend_spirv::load(Input::Binary(&bytes), &Options::default()).unwrap();
        assert!(!valid.module.dropped_ids.is_empty(), "{}", path.display());
    }
}
