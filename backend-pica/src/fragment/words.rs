//! The configuration as a PICA200 GPU command list (`pica200-fragment-pipeline.md` §6):
//! little-endian u32 words, each command a first parameter, a header (register, byte mask,
//! further parameters, consecutive bit) and its further parameters, padded to 8 bytes.
//!
//! The list sets all six stages (those that do nothing pass the previous result on), the
//! buffer-update bits (byte mask 0x2, so the fog bits of the same register are kept), the
//! buffer colour and the alpha test; 42 words. It has no GPUREG_FINALIZE: it is meant to be
//! added to a command buffer (`GPUCMD_AddRawCommands`), not submitted alone.

use super::config::{AlphaTest, TexEnv};

/// The first register of each stage.
pub const STAGE_REGISTERS: [u16; 6] = [0x0C0, 0x0C8, 0x0D0, 0x0D8, 0x0F0, 0x0F8];
/// GPUREG_TEXENV_UPDATE_BUFFER.
pub const UPDATE_BUFFER: u16 = 0x0E0;
/// GPUREG_TEXENV_BUFFER_COLOR.
pub const BUFFER_COLOR: u16 = 0x0FD;
/// GPUREG_FRAGOP_ALPHA_TEST.
pub const ALPHA_TEST: u16 = 0x104;

/// A command header: `register`, byte `mask`, `extra` further parameters, consecutive.
pub fn header(register: u16, mask: u32, extra: u32, consecutive: bool) -> u32 {
    u32::from(register) | (mask & 0xF) << 16 | (extra & 0xFF) << 20 | u32::from(consecutive) << 31
}

/// The command list.
pub fn words(t: &TexEnv) -> Vec<u32> {
    let mut w = Vec::new();
    for (stage, reg) in t.stages.iter().zip(STAGE_REGISTERS) {
        let s = stage.words();
        w.extend([s[0], header(reg, 0xF, 4, true), s[1], s[2], s[3], s[4]]);
    }
    w.extend([t.update_bits(), header(UPDATE_BUFFER, 0x2, 0, false)]);
    w.extend([
        u32::from_le_bytes(t.buffer_color),
        header(BUFFER_COLOR, 0xF, 0, false),
    ]);
    w.extend([
        AlphaTest::word(t.alpha_test),
        header(ALPHA_TEST, 0xF, 0, false),
    ]);
    w
}

/// The words as bytes (little-endian), what `-o x.tev` writes.
pub fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}
