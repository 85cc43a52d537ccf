//! Every module in `fixtures/invalid` breaks one rule; the validator must report that rule
//! first, and say where.

use frontend_spirv::{Input, Options, Rule};
use tests::{asm_options, fixture_files, header_field};

#[test]
fn each_invalid_module_hits_its_rule() {
    let files = fixture_files("invalid", ".spvasm");
    assert!(files.len() >= 40, "only {} invalid fixtures", files.len());
    let mut failures = Vec::new();
    let mut rules_hit = std::collections::BTreeSet::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let expected = header_field(&text, "rule").expect("; rule: line");
        assert!(
            Rule::from_id(expected).is_some(),
            "{}: unknown rule {expected}",
            path.display()
        );
        let options = Options {
            asm: asm_options(&text),
        };
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        match frontend_spirv::load(Input::Text(&text), &options) {
            Ok(_) => failures.push(format!("{name}: accepted, expected {expected}")),
            Err(diags) => {
                let first = &diags.0[0];
                if first.rule != expected {
                    failures.push(format!(
                        "{name}: expected {expected}, got:\n{}",
                        diags.render(&name, Some(&text))
                    ));
                } else {
                    rules_hit.insert(expected.to_string());
                    // Every diagnostic points somewhere: an instruction, or the module.
                    let rendered = first.render(&name, Some(&text));
                    assert!(rendered.starts_with(&format!("{name}: error[{expected}]: ")));
                    assert!(rendered.contains("= rule: SPIR-V §"), "{rendered}");
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    eprintln!(
        "{} invalid fixtures hit their rule; {} rules covered",
        files.len(),
        rules_hit.len()
    );
}
