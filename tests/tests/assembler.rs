//! Our assembler against spirv-as: for every fixture in `fixtures/spvasm` (and the invalid
//! corpus, which spirv-as assembled too), the words equal what spirv-as wrote, except the
//! generator word (header word 2), which names the tool.

use tests::{asm_options, fixture_files};

fn check_folder(folder: &str, with_spv: bool) -> usize {
    let files = fixture_files(folder, ".spvasm");
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let ours = match frontend_spirv::asm::assemble(&text, &asm_options(&text)) {
            Ok(a) => a.words,
            Err(d) => {
                failures.push(d.render(&name, Some(&text)));
                continue;
            }
        };
        if !with_spv {
            continue;
        }
        let bytes = std::fs::read(path.with_extension("spv")).unwrap();
        let theirs: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let differs = ours.len() != theirs.len()
            || ours
                .iter()
                .zip(&theirs)
                .enumerate()
                .any(|(i, (a, b))| i != 2 && a != b);
        if differs {
            let at = (0..ours.len().min(theirs.len()))
                .find(|&i| i != 2 && ours[i] != theirs[i])
                .unwrap_or(ours.len().min(theirs.len()));
            failures.push(format!(
                "{name}: differs from spirv-as at word {at} (ours {} words, spirv-as {})",
                ours.len(),
                theirs.len()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    files.len()
}

#[test]
fn matches_spirv_as_on_the_syntax_fixtures() {
    let n = check_folder("spvasm", true);
    assert!(n >= 30, "only {n} assembler fixtures");
    eprintln!("{n} assembler fixtures byte-identical to spirv-as (generator word aside)");
}

#[test]
fn assembles_the_invalid_corpus() {
    // These have no .spv beside them (the validation tests assemble them); they must at least
    // assemble, since each was made with spirv-as.
    check_folder("invalid", false);
}

#[test]
fn the_syntax_documents_examples_are_fixtures() {
    for name in [
        "doc_compute_numeric",
        "doc_compute_friendly",
        "doc_float_special",
        "doc_capability_bang",
        "doc_bang_consecutive",
        "doc_bang_opconstant_opcode",
    ] {
        let path = tests::fixtures("spvasm").join(format!("{name}.spvasm"));
        assert!(path.exists(), "{} is missing", path.display());
    }
}
