//! What the workspace's integration tests share, so that each is written once.
//!
//! Every test crate runs its tests as threads of one process, so nothing here keeps state a
//! test could see from another.

use std::collections::BTreeSet;
use std::path::Path;

// ---------------------------------------------------------------------------------------
// One test binary per crate

/// Fails unless every test file of a crate is a module of its test binary. Each crate has
/// `autotests = false` and one `[[test]]`, `tests/main.rs`: cargo builds nothing else, so a
/// file in `tests/` that `main.rs` does not declare would silently never run. A file `x.rs`
/// needs `mod x;` in `main.rs`, and so does a folder `x/` with a `mod.rs`; other folders hold
/// a module's own submodules (`tests/spv2pica/picasso.rs`). `crate_dir` is the crate's
/// `CARGO_MANIFEST_DIR`.
#[track_caller]
pub fn assert_every_test_file_is_a_module(crate_dir: &str) {
    let dir = Path::new(crate_dir).join("tests");
    let main = std::fs::read_to_string(dir.join("main.rs"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.join("main.rs").display()));
    let declared: BTreeSet<&str> = main
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let line = line.strip_prefix("pub ").unwrap_or(line);
            line.strip_prefix("mod ")?.strip_suffix(';')
        })
        .collect();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let module = if path.is_dir() {
            path.join("mod.rs").is_file().then_some(name)
        } else {
            name.strip_suffix(".rs")
                .filter(|&m| m != "main")
                .map(str::to_string)
        };
        if let Some(module) = module.filter(|m| !declared.contains(m.as_str())) {
            missing.push(module);
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "{} does not declare {missing:?}: add `mod NAME;` for each, or they never run",
        dir.join("main.rs").display()
    );
}
