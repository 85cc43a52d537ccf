//! Inputs the fuzzers (`fuzz/`) once broke the compiler with, kept so the fixes stay fixed.
//! Each runs through everything the fuzz targets run (front end, lowering, both back ends,
//! every stage it has) and must end in a result or in the diagnostic named here.

use frontend_spirv::entry::{self, Stage};
use frontend_spirv::{Input, Options};

/// File (under `tests/fixtures/fuzz`), what the fuzzer found, and the rule the input must now
/// be rejected by.
const CASES: &[(&str, &str, &str)] = &[
    (
        "pica-oom-clip-distance-2818049.spv",
        "out of memory: gl_ClipDistance[2818049] expanded into one local per element",
        "type.declaration",
    ),
    (
        "pica-slow-array-13825.spv",
        "142 s in one input: a 13825-element array expanded element by element",
        "type.declaration",
    ),
    (
        "agal-overflow-uniform-location.bin",
        "arithmetic overflow: a loose uniform at Location 4160749582 times 16 bytes",
        "lower.interface",
    ),
];

/// Runs `bytes` through the front end and every back end (AGAL under `profile`); the
/// rendered diagnostics of each step that failed.
fn compile_everything(bytes: &[u8], profile: backend_agal::Profile) -> Vec<String> {
    let render = |d: mir::Diagnostics| d.render("<input>", None);
    let valid = match frontend_spirv::load(Input::detect(bytes), &Options::default()) {
        Ok(v) => v,
        Err(d) => return vec![render(d)],
    };
    let mut failures = Vec::new();
    for stage in [Stage::Vertex, Stage::Fragment] {
        let query = entry::Query {
            name: None,
            stage: Some(stage),
            supported: &[Stage::Vertex, Stage::Fragment],
            unsupported_reason: &|_| String::new(),
        };
        let Ok(e) = entry::select(&valid, &query) else {
            continue;
        };
        let m = match frontend_spirv::lower::lower(&valid, &e) {
            Ok(m) => m,
            Err(d) => {
                failures.push(render(d));
                continue;
            }
        };
        if stage == Stage::Vertex {
            if let Err(d) = backend_pica::codegen::compile(&m, &Default::default()) {
                failures.push(render(d));
            }
        }
        let options = backend_agal::codegen::Options {
            profile,
            ..Default::default()
        };
        if let Err(d) = backend_agal::codegen::compile(&m, &options) {
            failures.push(render(d));
        }
    }
    failures
}

#[test]
fn fuzz_findings_stay_fixed() {
    let dir = tests::fixtures("fuzz");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/fuzz")
        .filter_map(|e| Some(e.ok()?.file_name().to_string_lossy().to_string()))
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = CASES.iter().map(|c| c.0.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed, "every kept fuzz input is listed in CASES");
    for (file, found, rule) in CASES {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        // The agal target's inputs start with a byte that picks the profile.
        let (profile, module) = match file.strip_prefix("agal-") {
            Some(_) => (
                backend_agal::Profile::ALL[bytes[0] as usize % backend_agal::Profile::ALL.len()],
                &bytes[1..],
            ),
            None => (backend_agal::Profile::Baseline, &bytes[..]),
        };
        let failures = compile_everything(module, profile);
        assert!(
            failures
                .iter()
                .any(|f| f.contains(&format!("error[{rule}]"))),
            "{file} ({found}) should be rejected by {rule}; got {failures:#?}"
        );
    }
}
