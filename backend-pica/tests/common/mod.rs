//! Shared helpers of the integration tests: where the golden files are, and loading them.
#![allow(dead_code)]

use std::path::PathBuf;

use backend_pica::asm::{self, SourceFile};
use backend_pica::shbin::ShaderBinary;

/// `tests/fixtures/golden/pica` (copied from `../shared/golden`).
pub fn golden_dir() -> PathBuf {
    let dir = test_kit::fixture("golden/pica");
    assert!(dir.is_dir(), "golden files not found at {}", dir.display());
    dir
}

/// The golden program names (one per `.shbin`), sorted.
pub fn programs() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(golden_dir())
        .expect("read golden dir")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".shbin").map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(
        names.len() >= 14,
        "expected the 14 golden programs, found {}",
        names.len()
    );
    names
}

/// The `.pica` sources of a program: `NAME.v.pica`, then `NAME.g.pica` if present.
pub fn sources(name: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for suffix in ["v", "g"] {
        let file = format!("{name}.{suffix}.pica");
        let path = golden_dir().join(&file);
        if path.exists() {
            out.push((file, std::fs::read_to_string(path).expect("read .pica")));
        }
    }
    assert!(!out.is_empty(), "{name}: no .pica source");
    out
}

/// picasso's bytes.
pub fn shbin(name: &str) -> Vec<u8> {
    std::fs::read(golden_dir().join(format!("{name}.shbin"))).expect("read .shbin")
}

/// The independent listing.
pub fn listing_txt(name: &str) -> String {
    std::fs::read_to_string(golden_dir().join(format!("{name}.txt"))).expect("read .txt")
}

/// Assembles a program's sources with our assembler.
pub fn assemble(name: &str) -> ShaderBinary {
    let srcs = sources(name);
    let files: Vec<SourceFile> = srcs
        .iter()
        .map(|(n, t)| SourceFile { name: n, text: t })
        .collect();
    asm::assemble(&files).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A word-by-word description of where two byte strings differ.
pub fn describe_diff(expected: &[u8], got: &[u8]) -> String {
    let mut out = format!("expected {} bytes, got {}\n", expected.len(), got.len());
    let n = expected.len().max(got.len());
    let mut shown = 0;
    for off in (0..n).step_by(4) {
        let word = |b: &[u8]| {
            b.get(off..off + 4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        };
        let (e, g) = (word(expected), word(got));
        if e != g {
            out += &format!("  @{off:#05X}: expected {e:08X?}, got {g:08X?}\n");
            shown += 1;
            if shown == 20 {
                break;
            }
        }
    }
    out
}
