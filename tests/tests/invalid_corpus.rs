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
    // Every rule has a fixture, except the header rules, which assembly text cannot break
    // (frontend-spirv's reader tests cover them with raw bytes).
    let uncovered: Vec<&str> = Rule::ALL
        .iter()
        .map(|r| r.id())
        .filter(|id| !rules_hit.contains(*id) && !["phys.header", "phys.version"].contains(id))
        .collect();
    assert!(
        uncovered.is_empty(),
        "rules without an invalid fixture: {uncovered:?}"
    );
    eprintln!(
        "{} invalid fixtures hit their rule; {} rules covered",
        files.len(),
        rules_hit.len()
    );
}

/// A diagnostic carries the shader author's source position when the module has OpLine.
#[test]
fn diagnostics_name_the_source_line() {
    let text = r#"OpCapability Shader
%glsl = OpExtInstImport "GLSL.std.450"
OpMemoryModel Logical GLSL450
OpEntryPoint Vertex %main "main"
%file = OpString "shaders/wave.vert"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%int = OpTypeInt 32 1
%one = OpConstant %float 1
%two = OpConstant %int 2
%main = OpFunction %void None %fn
%entry = OpLabel
OpLine %file 14 9
%sum = OpFAdd %float %one %two
OpReturn
OpFunctionEnd
"#;
    let diags = frontend_spirv::load(Input::Text(text), &Options::default()).unwrap_err();
    let rendered = diags.render("wave.spvasm", Some(text));
    assert!(
        rendered.starts_with("wave.spvasm: error[type.operand]: "),
        "{rendered}"
    );
    assert!(rendered.contains("%two (int)"), "{rendered}");
    // OpLine counts as an instruction: OpFAdd is the 15th.
    assert!(
        rendered.contains("--> wave.spvasm:15:1: instruction #15, word 59"),
        "{rendered}"
    );
    assert!(
        rendered.contains("(function %main, block %entry)"),
        "{rendered}"
    );
    assert!(
        rendered.contains("= source: shaders/wave.vert:14:9"),
        "{rendered}"
    );
    // Without the text, the snippet is the instruction disassembled (with the text's names).
    let rendered = diags.render("wave.spv", None);
    assert!(
        rendered.contains("|     %sum = OpFAdd %float %one %two\n"),
        "{rendered}"
    );
}

/// The rule table of docs/diagnostics.md lists every rule the validator has.
#[test]
fn the_diagnostics_page_lists_every_rule() {
    let page = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/diagnostics.md"
    ))
    .expect("docs/diagnostics.md");
    for rule in Rule::ALL {
        assert!(
            page.contains(&format!("| `{}` |", rule.id())),
            "docs/diagnostics.md does not list {}",
            rule.id()
        );
    }
}
