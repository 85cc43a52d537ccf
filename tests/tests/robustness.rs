//! Random bytes and mutated corpus modules never make the front end panic: every input gives
//! a module or diagnostics. This is the bounded, fixed-seed cousin of the cargo-fuzz target
//! in `fuzz/` (which runs unbounded, outside `cargo test`).

use std::panic::{AssertUnwindSafe, catch_unwind};

use frontend_spirv::{Input, Options};
use test_kit::Rng;
use tests::{asm_options, fixture_files};

/// Words that make good mutations: zero, all ones, word counts and opcodes near the edges.
const INTERESTING: &[u32] = &[
    0,
    1,
    0xffff_ffff,
    0x0001_0000,
    0xffff_0000,
    0x0000_ffff,
    0x0002_0011, // OpCapability, 2 words
    0x0004_0034, // OpSpecConstantOp
    0x0002_00f8, // OpLabel
    0x0001_0038, // OpFunctionEnd
    0x0004_00f5, // OpPhi
    0x0003_00f6, // OpLoopMerge (short)
    0x0002_00f9, // OpBranch
    0x0007_2303,
];

/// Loads `bytes`, failing the test (with a reproduction file) if anything panics.
fn must_not_panic(bytes: &[u8], what: &str) {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let _ = frontend_spirv::load(Input::Binary(bytes), &Options::default());
    }));
    if result.is_err() {
        let path = std::env::temp_dir().join("frontend-panic.spv");
        let _ = std::fs::write(&path, bytes);
        panic!(
            "the front end panicked on {what}; input saved to {}",
            path.display()
        );
    }
}

/// The word ranges of the instructions, as far as the word counts hold.
fn instructions(words: &[u32]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if count == 0 || at + count > words.len() {
            break;
        }
        out.push(at..at + count);
        at += count;
    }
    out
}

/// One mutation: half the time at the level of words (which mostly breaks the physical
/// layout), half the time at the level of whole instructions and their operands (which keeps
/// the layout and reaches the validator's later phases).
fn mutate(rng: &mut Rng, words: &mut Vec<u32>) {
    if words.len() <= 5 {
        words.push(rng.next_u64() as u32);
        return;
    }
    let insts = instructions(words);
    if !insts.is_empty() && rng.index(2) == 0 {
        let r = insts[rng.index(insts.len())].clone();
        let bound = words[3].max(2) as usize;
        match rng.index(5) {
            // Another id (or small literal) in an operand.
            0 | 1 if r.len() > 1 => {
                let at = r.start + 1 + rng.index(r.len() - 1);
                words[at] = rng.index(bound) as u32;
            }
            2 => {
                words.drain(r);
            }
            3 => {
                let copy: Vec<u32> = words[r.clone()].to_vec();
                let to = insts[rng.index(insts.len())].start;
                words.splice(to..to, copy);
            }
            _ => {
                let copy: Vec<u32> = words[r.clone()].to_vec();
                words.drain(r);
                let insts = instructions(words);
                let to = insts
                    .get(rng.index(insts.len().max(1)))
                    .map_or(words.len(), |i| i.start);
                words.splice(to..to, copy);
            }
        }
        return;
    }
    let at = 5 + rng.index(words.len() - 5);
    match rng.index(8) {
        0 => words[at] ^= 1 << rng.index(32),
        1 => words[at] = rng.next_u64() as u32,
        2 => words[at] = INTERESTING[rng.index(INTERESTING.len())],
        // Change a word count, keeping the opcode.
        3 => words[at] = (words[at] & 0xffff) | ((rng.index(8) as u32) << 16),
        4 => words.truncate(at),
        5 => {
            let n = 1 + rng.index(4);
            let end = (at + n).min(words.len());
            words.drain(at..end);
        }
        6 => {
            let w = words[5 + rng.index(words.len() - 5)];
            words.insert(at, w);
        }
        _ => {
            let other = 5 + rng.index(words.len() - 5);
            words.swap(at, other);
        }
    }
}

fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The corpus: glslang's modules and the assembled invalid modules.
fn corpus() -> Vec<(String, Vec<u32>)> {
    let mut out = Vec::new();
    for path in fixture_files("glsl", ".spv") {
        let bytes = std::fs::read(&path).unwrap();
        let words = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        out.push((path.display().to_string(), words));
    }
    for path in fixture_files("invalid", ".spvasm") {
        let text = std::fs::read_to_string(&path).unwrap();
        let assembled = frontend_spirv::asm::assemble(&text, &asm_options(&text)).unwrap();
        out.push((path.display().to_string(), assembled.words));
    }
    out
}

#[test]
fn mutated_corpus_modules_never_panic() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let corpus = corpus();
    let mut runs = 0;
    for (name, words) in &corpus {
        for round in 0..100 {
            let mut m = words.clone();
            for _ in 0..1 + rng.index(4) {
                mutate(&mut rng, &mut m);
            }
            must_not_panic(&to_bytes(&m), &format!("{name}, mutation round {round}"));
            runs += 1;
        }
    }
    eprintln!("{runs} mutated modules, no panic");
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(0x0dd_ba11_cafe_f00d);
    for i in 0..3000 {
        let len = rng.index(200);
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        // Most random inputs die at the magic number; give half of them a valid header.
        if i % 2 == 0 && bytes.len() >= 20 {
            let version = 0x0001_0000 | ((rng.index(8) as u32) << 8);
            let bound = rng.index(64) as u32;
            let header = [0x0723_0203, version, 0, bound, 0];
            bytes[..20].copy_from_slice(&to_bytes(&header));
        }
        must_not_panic(&bytes, &format!("random input #{i}"));
    }
}

#[test]
fn mutated_assembly_text_never_panics() {
    let mut rng = Rng(0xa55e_b1e5_0000_0042);
    let alphabet: Vec<char> = "%!=\"\\;|0123456789xp.-+ \n\tOpabcIdLoopMerge%"
        .chars()
        .collect();
    for path in fixture_files("spvasm", ".spvasm") {
        let text = std::fs::read_to_string(&path).unwrap();
        for round in 0..20 {
            let mut chars: Vec<char> = text.chars().collect();
            for _ in 0..1 + rng.index(6) {
                if chars.is_empty() {
                    break;
                }
                let at = rng.index(chars.len());
                match rng.index(3) {
                    0 => {
                        chars.remove(at);
                    }
                    1 => chars.insert(at, alphabet[rng.index(alphabet.len())]),
                    _ => chars[at] = alphabet[rng.index(alphabet.len())],
                }
            }
            let mutated: String = chars.into_iter().collect();
            let result = catch_unwind(AssertUnwindSafe(|| {
                let _ = frontend_spirv::load(Input::Text(&mutated), &Options::default());
            }));
            assert!(
                result.is_ok(),
                "panic on {} mutation round {round}:\n{mutated}",
                path.display()
            );
        }
    }
}
