//! Shared test helpers: finding and reading the golden AGAL files in
//! `tests/fixtures/golden/agal` (copied from `../shared/golden`).
#![allow(dead_code)]

use backend_agal::{Stage, Version};
use std::path::PathBuf;

/// The golden directory; panics with a clear message if it is missing.
pub fn golden_dir() -> PathBuf {
    let dir = test_kit::fixture("golden/agal");
    assert!(
        dir.join("README.md").is_file(),
        "golden AGAL files not found at {}",
        dir.display()
    );
    dir
}

/// Every golden program's name (the `.agal` files), sorted.
pub fn names() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(golden_dir())
        .expect("read golden dir")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".agal").map(str::to_string)
        })
        .collect();
    v.sort();
    assert_eq!(v.len(), 10, "expected the 10 golden programs, found {v:?}");
    v
}

/// The bytes of `NAME.agal`.
pub fn bytes(name: &str) -> Vec<u8> {
    let p = golden_dir().join(format!("{name}.agal"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

/// A text file beside it (`asm.txt`, `source.txt`), if present.
pub fn text(name: &str, ext: &str) -> Option<String> {
    std::fs::read_to_string(golden_dir().join(format!("{name}.{ext}"))).ok()
}

/// The header facts of `NAME.asm.txt`'s first line: version, stage, token count.
pub fn listing_header(name: &str) -> (Version, Stage, usize) {
    let text = text(name, "asm.txt").expect("listing");
    let first = text.lines().next().expect("first line");
    let after = first.split("AGAL version ").nth(1).expect("version");
    let version = match after.chars().next() {
        Some('1') => Version::V1,
        Some('2') => Version::V2,
        Some('3') => Version::V3,
        _ => panic!("bad version in {first}"),
    };
    let stage = if first.contains("vertex program") {
        Stage::Vertex
    } else {
        Stage::Fragment
    };
    // "..., 833 tokens (19999 bytes)"
    let tokens = first
        .split(" tokens")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("token count");
    (version, stage, tokens)
}

/// The listing lines of `NAME.asm.txt` (without the `//` header), each with a newline.
pub fn listing_body(name: &str) -> String {
    let text = text(name, "asm.txt").expect("listing");
    text.lines()
        .filter(|l| !l.starts_with("//") && !l.trim().is_empty())
        .map(|l| format!("{l}\n"))
        .collect()
}
