//! Inputs the fuzzers (`fuzz/`) once broke the compiler with, kept so the fixes stay fixed.
//! Each runs through the library for both targets and every stage (what the fuzz targets
//! run) and must end in a result or in the diagnostic named here.

use spv2retro::{Options, Profile, Source, Stage, compile};

/// File (under `tests/fixtures/fuzz`), what the fuzzer found, and the rule the input must now
/// be rejected by.
const CASES: &[(&str, &str, &str)] = &[
    (
        "pica-oom-clip-distance-2818049.spv",
        "out of memory: gl_ClipDistance[2818049] expanded into one local per element",
        "type.limit",
    ),
    (
        "pica-slow-array-13825.spv",
        "142 s in one input: a 13825-element array expanded element by element",
        "type.limit",
    ),
    (
        "agal-overflow-uniform-location.bin",
        "arithmetic overflow: a loose uniform at Location 4160749582 times 16 bytes",
        "lower.interface",
    ),
];

/// Runs `bytes` through the library for every target and stage (AGAL under `profile`); the
/// rendered errors.
fn compile_everything(bytes: &[u8], profile: Profile) -> Vec<String> {
    let options = [
        Options::pica(),
        Options::agal(profile).stage(Stage::Vertex),
        Options::agal(profile).stage(Stage::Fragment),
    ];
    options
        .iter()
        .filter_map(|o| compile(Source::spirv(bytes), o).err())
        .map(|e| e.to_string())
        .collect()
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
                Profile::ALL[bytes[0] as usize % Profile::ALL.len()],
                &bytes[1..],
            ),
            None => (Profile::Baseline, &bytes[..]),
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
