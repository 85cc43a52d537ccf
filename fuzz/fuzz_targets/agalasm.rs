//! Byte 0 → profile and program kind; the rest, as text → AGALMiniAssembler's syntax as
//! `spv2agal --vertex|--fragment FILE.agalasm` reads it, then Flash's upload rules. Any text
//! must give bytes or an error; a panic, a hang or an out-of-memory is a bug, and bytes the
//! assembler made must decode. Seeds: `seed.sh` copies the hand-written AGAL programs.
#![no_main]

use backend_agal::{Profile, Program, Stage};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let profile = Profile::ALL[usize::from(pick) % Profile::ALL.len()];
    let stage = if pick & 0x80 == 0 {
        Stage::Vertex
    } else {
        Stage::Fragment
    };
    let text = String::from_utf8_lossy(rest);
    if let Ok(bytes) = backend_agal::asm::assemble(&text, stage, profile.version()) {
        let _ = backend_agal::validate(&bytes, profile);
        Program::decode(&bytes).expect("assembled bytes decode");
    }
});
