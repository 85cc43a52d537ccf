//! Shared helpers for the integration tests in `tests/tests/`: where the fixtures are and how
//! to read their header comments.

use std::path::PathBuf;

/// The fixture folder `name` under `tests/fixtures` (the test kit's [`test_kit::fixture`]).
pub fn fixtures(name: &str) -> PathBuf {
    test_kit::fixture(name)
}

/// The files in fixture folder `name` whose names end in `suffix`, sorted.
pub fn fixture_files(name: &str, suffix: &str) -> Vec<PathBuf> {
    let dir = fixtures(name);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    files.sort();
    files
}

/// A pinned text under `tests/golden/`: with `BLESS` set, `now` is written to it and `None`
/// comes back; otherwise the text pinned before, for the caller's own checks, after
/// [`golden_unchanged`] has been asked.
pub fn golden(name: &str, now: &str) -> Option<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("golden")
        .join(name);
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, now).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return None;
    }
    Some(
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (run with BLESS=1 to create it)", path.display())),
    )
}

/// Fails, listing the lines that differ, unless `now` is the `before` that was pinned;
/// `rerun` is the test's filter (`output_snapshot::`) for the BLESS command.
pub fn golden_unchanged(before: &str, now: &str, rerun: &str) {
    let changed: Vec<String> = before
        .lines()
        .zip(now.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("- {a}\n+ {b}"))
        .collect();
    assert!(
        changed.is_empty() && before.lines().count() == now.lines().count(),
        "{} of {} lines changed:\n{}\n\nIf intended: BLESS=1 cargo test -p tests --test integration {rerun}, and review the diff.",
        changed.len(),
        now.lines().count(),
        changed.join("\n")
    );
}

/// The value of a `; key: value` header comment line, if the text has one.
pub fn header_field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let prefix = format!("; {key}:");
    text.lines()
        .find_map(|line| line.strip_prefix(prefix.as_str()))
        .map(str::trim)
}

/// The assembler options that the `; spirv-as: FLAGS` line of a fixture stands for.
pub fn asm_options(text: &str) -> frontend_spirv::asm::Options {
    let mut options = frontend_spirv::asm::Options {
        version: Some((1, 6)),
        preserve_numeric_ids: false,
    };
    let flags = header_field(text, "spirv-as").unwrap_or("");
    let mut words = flags.split_whitespace();
    while let Some(flag) = words.next() {
        match flag {
            "--preserve-numeric-ids" => options.preserve_numeric_ids = true,
            "--target-env" => {
                let env = words.next().unwrap_or("");
                let (major, minor) = env
                    .strip_prefix("spv")
                    .and_then(|v| v.split_once('.'))
                    .unwrap_or_else(|| panic!("unsupported --target-env {env}"));
                options.version = Some((major.parse().unwrap(), minor.parse().unwrap()));
            }
            other => panic!("unsupported spirv-as flag {other}"),
        }
    }
    options
}

pub mod c3d;
pub mod driven;
pub mod generate;
pub mod geometry;
pub mod glslgen;
pub mod handwritten;
pub mod mirtest;
pub mod reference;
pub mod steps;
pub mod tev_oracle;
pub mod tevgen;
