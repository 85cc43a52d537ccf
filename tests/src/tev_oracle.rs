//! An independent test oracle for the PICA200 (Nintendo 3DS) fragment stage: the texture
//! combiners ("TEV"), the combiner buffer and the alpha test.
//!
//! Written only from the register documentation `pica200-fragment-pipeline.md` (the shared
//! docs, `/work/shared/docs/`, not in this repository; cited below as "§n"), and on purpose
//! sharing no code with the compiler's fragment encoder, so that a test comparing the two
//! proves something. It has three parts:
//!
//! 1. **Command lists** (§6): [`registers`] replays a GPU command list (header word, byte-enable
//!    mask, consecutive or FIFO mode, padding word) into register values.
//! 2. **Decoding** (§5, §7): [`Config::from_registers`] / [`Config::from_words`] read the six
//!    combiner stages (registers 0x0C0–0x0DC, 0x0F0–0x0FC), the buffer-update bits (0x0E0), the
//!    buffer colour (0x0FD) and the alpha test (0x104) into raw fields ([`Stage`], [`Config`]);
//!    registers never written keep citro3d's values after `C3D_Init` ([`citro3d_registers`]).
//! 3. **Evaluation** (§3, §4, §5): [`evaluate`] runs the six stages on byte inputs with the
//!    AZ-SW integer formulas, [`evaluate_rounded`] the same on floats with every stage result
//!    rounded to a multiple of 1/255 (the AZ-GL model). The document says the two models differ
//!    by up to 1/255 per stage and that the hardware's exact rounding is unknown (§3, §10.17).
//!
//! # What the evaluator models, and what it refuses
//!
//! - Sources (§3): `GPU_PRIMARY_COLOR` is the `primary` argument; `GPU_TEXTURE0..3` are
//!   `textures[0..3]` (unit 3 = the procedural texture); the fragment-lighting colours
//!   (sources 1 and 2) read 0 (lighting is not modelled; the emulators read 0 with lighting
//!   off, §3, §12); `GPU_CONSTANT` is the stage's colour; `GPU_PREVIOUS` the previous stage's
//!   RGBA; `GPU_PREVIOUS_BUFFER` the combiner buffer (§4).
//! - Stage 0 (§3 "Stage 0 quirks"): `GPU_PREVIOUS_BUFFER` reads 0; a source 1 or 2 set to
//!   `GPU_PREVIOUS` takes the value of the same combiner's source 3 (applied to the RGB and the
//!   alpha combiner alike, as AZ-GL does). A stage-0 source 3 of `GPU_PREVIOUS` has no
//!   documented meaning (§12): reading it panics.
//! - The buffer (§4) lags one stage: stage 0 reads 0, stage 1 the buffer colour, stage n ≥ 2
//!   the output of stage n−2 if that stage's update bit is set, else what stage n−1 read; RGB
//!   and alpha separately.
//! - Functions (§3): byte formulas of the AZ-SW table, then the scale `min(255, v·s)`. For
//!   `GPU_DOT3_RGB` / `GPU_DOT3_RGBA` only the RGB of operands 1 and 2 is used, and with RGB
//!   function `GPU_DOT3_RGBA` the alpha combiner is ignored and alpha = the dot.
//! - Alpha test (§5): the stage-5 alpha byte `FUNC` the reference byte; `None` = discarded.
//!
//! Anything the document marks as undocumented or untested panics with a message naming the
//! stage and field, since a compiler that emits it has a bug: sources 0x7–0xC, RGB operands
//! 6, 7, 10, 11, 14, 15, scale 3, function values 10–15 (and any value too wide for its
//! field), DOT3 as the alpha function without `GPU_DOT3_RGBA` in RGB (§3, §10.13),
//! `GPU_DOT3_RGBA` with different RGB and alpha scales (the document does not say which scale
//! the alpha of the dot gets), a stage-0 `GPU_PREVIOUS` source 3 that is read, and a fog or gas
//! mode in 0x0E0 bits 0–2 (fog changes RGB after the alpha test, §1, §8, and is not modelled).
//! These checks cover every field of every stage, read or not.
//!
//! Texture units, fragment lighting, fog, stencil/depth and blending are out of scope: the
//! caller supplies the sampled texels and the primary colour, and gets the TEV output.

use std::collections::BTreeMap;
use std::fmt;

// ---------------------------------------------------------------------------------------------
// §6: command lists
// ---------------------------------------------------------------------------------------------

/// The highest register id: libctru masks the header's id with 0x3FF (§6).
pub const MAX_REGISTER: u16 = 0x3FF;

/// Register writes of a PICA200 GPU command list (§6): the value of each register after the
/// list, with byte masks applied over the previous value. Registers start at `initial` (a
/// register absent from it starts at 0); the result holds every register of `initial` and
/// every register written.
///
/// A command is: the first parameter word, the header word, N further parameter words, and one
/// zero padding word when N is odd. Header: bits 0–15 register id, 16–19 byte-enable mask,
/// 20–27 N, 28–30 unused, 31 consecutive mode (parameter k goes to id + k; otherwise every
/// parameter goes to id). A masked write is `reg = (reg & !bytes) | (value & bytes)`.
///
/// Errors (this is an oracle, so it is strict): a lone first parameter without its header, a
/// header whose parameter count runs past the end, a missing or non-zero padding word, header
/// bits 28–30 set, and a register id (or consecutive run) beyond [`MAX_REGISTER`].
pub fn registers(
    words: &[u32],
    initial: &BTreeMap<u16, u32>,
) -> Result<BTreeMap<u16, u32>, String> {
    let mut regs = initial.clone();
    let mut at = 0;
    while at < words.len() {
        let first = words[at];
        let Some(&header) = words.get(at + 1) else {
            return Err(format!(
                "word {at} ({first:#010x}) is a first parameter with no header word after it"
            ));
        };
        let id = header & 0xFFFF;
        let mask = (header >> 16) & 0xF;
        let extra = ((header >> 20) & 0xFF) as usize;
        let consecutive = header & 0x8000_0000 != 0;
        if header & 0x7000_0000 != 0 {
            return Err(format!(
                "header {header:#010x} at word {}: unused bits 28-30 are set",
                at + 1
            ));
        }
        let last_id = if consecutive {
            id as usize + extra
        } else {
            id as usize
        };
        if last_id > MAX_REGISTER as usize {
            return Err(format!(
                "header {header:#010x} at word {}: writes register {last_id:#x}, beyond {MAX_REGISTER:#x}",
                at + 1
            ));
        }
        let padded = extra + (extra & 1);
        let end = at + 2 + padded;
        if at + 2 + extra > words.len() {
            return Err(format!(
                "header {header:#010x} at word {}: {} parameters, but the list ends after {}",
                at + 1,
                extra + 1,
                words.len() - at - 1
            ));
        }
        if end > words.len() {
            return Err(format!(
                "header {header:#010x} at word {}: N = {extra} is odd and the padding word is missing",
                at + 1
            ));
        }
        if extra & 1 == 1 && words[end - 1] != 0 {
            return Err(format!(
                "header {header:#010x} at word {}: padding word {} is {:#010x}, not 0",
                at + 1,
                end - 1,
                words[end - 1]
            ));
        }
        let bytes = byte_mask(mask);
        let params = std::iter::once(first).chain(words[at + 2..at + 2 + extra].iter().copied());
        for (k, value) in params.enumerate() {
            let reg = if consecutive {
                id as usize + k
            } else {
                id as usize
            } as u16;
            let old = regs.get(&reg).copied().unwrap_or(0);
            regs.insert(reg, (old & !bytes) | (value & bytes));
        }
        at = end;
    }
    Ok(regs)
}

/// The bits a header's byte-enable mask (bits 16–19, here shifted down to 0–3) writes.
fn byte_mask(mask: u32) -> u32 {
    (0..4)
        .filter(|b| mask & (1 << b) != 0)
        .map(|b| 0xFFu32 << (8 * b))
        .sum()
}

// ---------------------------------------------------------------------------------------------
// §3, §5: register fields and names
// ---------------------------------------------------------------------------------------------

/// First register of TEV stage i (§5): stages 4–5 sit after the fog registers.
pub const STAGE_BASE: [u16; 6] = [0x0C0, 0x0C8, 0x0D0, 0x0D8, 0x0F0, 0x0F8];
/// GPUREG_TEXENV_UPDATE_BUFFER: fog/gas mode and the buffer-update bits (§5).
pub const UPDATE_BUFFER: u16 = 0x0E0;
/// GPUREG_TEXENV_BUFFER_COLOR: the buffer's initial value (§5).
pub const BUFFER_COLOR: u16 = 0x0FD;
/// GPUREG_FRAGOP_ALPHA_TEST (§5).
pub const ALPHA_TEST: u16 = 0x104;

/// Source values (GPU_TEVSRC, §3).
pub mod source {
    pub const PRIMARY_COLOR: u8 = 0x0;
    pub const FRAGMENT_PRIMARY_COLOR: u8 = 0x1;
    pub const FRAGMENT_SECONDARY_COLOR: u8 = 0x2;
    pub const TEXTURE0: u8 = 0x3;
    pub const TEXTURE1: u8 = 0x4;
    pub const TEXTURE2: u8 = 0x5;
    pub const TEXTURE3: u8 = 0x6;
    pub const PREVIOUS_BUFFER: u8 = 0xD;
    pub const CONSTANT: u8 = 0xE;
    pub const PREVIOUS: u8 = 0xF;
}

/// Combiner function values (GPU_COMBINEFUNC, §3), the same for RGB and alpha.
pub mod func {
    pub const REPLACE: u8 = 0;
    pub const MODULATE: u8 = 1;
    pub const ADD: u8 = 2;
    pub const ADD_SIGNED: u8 = 3;
    pub const INTERPOLATE: u8 = 4;
    pub const SUBTRACT: u8 = 5;
    pub const DOT3_RGB: u8 = 6;
    pub const DOT3_RGBA: u8 = 7;
    pub const MULTIPLY_ADD: u8 = 8;
    pub const ADD_MULTIPLY: u8 = 9;
}

/// Alpha-test functions (GPU_TESTFUNC, §5).
pub mod test {
    pub const NEVER: u8 = 0;
    pub const ALWAYS: u8 = 1;
    pub const EQUAL: u8 = 2;
    pub const NOTEQUAL: u8 = 3;
    pub const LESS: u8 = 4;
    pub const LEQUAL: u8 = 5;
    pub const GREATER: u8 = 6;
    pub const GEQUAL: u8 = 7;
}

const SOURCE_NAMES: &[(u8, &str)] = &[
    (0x0, "GPU_PRIMARY_COLOR"),
    (0x1, "GPU_FRAGMENT_PRIMARY_COLOR"),
    (0x2, "GPU_FRAGMENT_SECONDARY_COLOR"),
    (0x3, "GPU_TEXTURE0"),
    (0x4, "GPU_TEXTURE1"),
    (0x5, "GPU_TEXTURE2"),
    (0x6, "GPU_TEXTURE3"),
    (0xD, "GPU_PREVIOUS_BUFFER"),
    (0xE, "GPU_CONSTANT"),
    (0xF, "GPU_PREVIOUS"),
];

const RGB_OPERAND_NAMES: &[(u8, &str)] = &[
    (0, "GPU_TEVOP_RGB_SRC_COLOR"),
    (1, "GPU_TEVOP_RGB_ONE_MINUS_SRC_COLOR"),
    (2, "GPU_TEVOP_RGB_SRC_ALPHA"),
    (3, "GPU_TEVOP_RGB_ONE_MINUS_SRC_ALPHA"),
    (4, "GPU_TEVOP_RGB_SRC_R"),
    (5, "GPU_TEVOP_RGB_ONE_MINUS_SRC_R"),
    (8, "GPU_TEVOP_RGB_SRC_G"),
    (9, "GPU_TEVOP_RGB_ONE_MINUS_SRC_G"),
    (12, "GPU_TEVOP_RGB_SRC_B"),
    (13, "GPU_TEVOP_RGB_ONE_MINUS_SRC_B"),
];

const ALPHA_OPERAND_NAMES: &[(u8, &str)] = &[
    (0, "GPU_TEVOP_A_SRC_ALPHA"),
    (1, "GPU_TEVOP_A_ONE_MINUS_SRC_ALPHA"),
    (2, "GPU_TEVOP_A_SRC_R"),
    (3, "GPU_TEVOP_A_ONE_MINUS_SRC_R"),
    (4, "GPU_TEVOP_A_SRC_G"),
    (5, "GPU_TEVOP_A_ONE_MINUS_SRC_G"),
    (6, "GPU_TEVOP_A_SRC_B"),
    (7, "GPU_TEVOP_A_ONE_MINUS_SRC_B"),
];

const FUNC_NAMES: &[(u8, &str)] = &[
    (0, "GPU_REPLACE"),
    (1, "GPU_MODULATE"),
    (2, "GPU_ADD"),
    (3, "GPU_ADD_SIGNED"),
    (4, "GPU_INTERPOLATE"),
    (5, "GPU_SUBTRACT"),
    (6, "GPU_DOT3_RGB"),
    (7, "GPU_DOT3_RGBA"),
    (8, "GPU_MULTIPLY_ADD"),
    (9, "GPU_ADD_MULTIPLY"),
];

const TEST_NAMES: &[(u8, &str)] = &[
    (0, "GPU_NEVER"),
    (1, "GPU_ALWAYS"),
    (2, "GPU_EQUAL"),
    (3, "GPU_NOTEQUAL"),
    (4, "GPU_LESS"),
    (5, "GPU_LEQUAL"),
    (6, "GPU_GREATER"),
    (7, "GPU_GEQUAL"),
];

fn name_of(table: &[(u8, &'static str)], v: u8) -> Option<&'static str> {
    table.iter().find(|&&(k, _)| k == v).map(|&(_, n)| n)
}

fn value_of(table: &[(u8, &'static str)], name: &str) -> Option<u8> {
    table.iter().find(|&&(_, n)| n == name).map(|&(k, _)| k)
}

/// citro3d's name of a TEV source (`GPU_TEXTURE0`, …); `None` for undocumented values (§3).
pub fn source_name(v: u8) -> Option<&'static str> {
    name_of(SOURCE_NAMES, v)
}
/// citro3d's name of an RGB operand (`GPU_TEVOP_RGB_ONE_MINUS_SRC_ALPHA`, …; §3).
pub fn rgb_operand_name(v: u8) -> Option<&'static str> {
    name_of(RGB_OPERAND_NAMES, v)
}
/// citro3d's name of an alpha operand (`GPU_TEVOP_A_SRC_R`, …; §3).
pub fn alpha_operand_name(v: u8) -> Option<&'static str> {
    name_of(ALPHA_OPERAND_NAMES, v)
}
/// citro3d's name of a combiner function (`GPU_MODULATE`, …; §3).
pub fn func_name(v: u8) -> Option<&'static str> {
    name_of(FUNC_NAMES, v)
}
/// citro3d's name of a test function (`GPU_GEQUAL`, …; §5).
pub fn test_name(v: u8) -> Option<&'static str> {
    name_of(TEST_NAMES, v)
}
/// The value of a source name ([`source_name`] backwards).
pub fn source_value(name: &str) -> Option<u8> {
    value_of(SOURCE_NAMES, name)
}
/// The value of an RGB operand name ([`rgb_operand_name`] backwards).
pub fn rgb_operand_value(name: &str) -> Option<u8> {
    value_of(RGB_OPERAND_NAMES, name)
}
/// The value of an alpha operand name ([`alpha_operand_name`] backwards).
pub fn alpha_operand_value(name: &str) -> Option<u8> {
    value_of(ALPHA_OPERAND_NAMES, name)
}
/// The value of a combiner function name ([`func_name`] backwards).
pub fn func_value(name: &str) -> Option<u8> {
    value_of(FUNC_NAMES, name)
}
/// The value of a test function name ([`test_name`] backwards).
pub fn test_value(name: &str) -> Option<u8> {
    value_of(TEST_NAMES, name)
}

/// The multiplier of a scale field (§3): 0 → 1×, 1 → 2×, 2 → 4×; 3 is undocumented.
pub fn scale_factor(v: u8) -> Option<u32> {
    match v {
        0 => Some(1),
        1 => Some(2),
        2 => Some(4),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// §5, §7: decoding
// ---------------------------------------------------------------------------------------------

/// One combiner stage's raw fields, decoded from its five registers (§5). Operand and source
/// arrays are in operand order (source 1, 2, 3); `color` is R, G, B, A.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stage {
    pub rgb_sources: [u8; 3],
    pub alpha_sources: [u8; 3],
    pub rgb_operands: [u8; 3],
    pub alpha_operands: [u8; 3],
    pub rgb_func: u8,
    pub alpha_func: u8,
    pub color: [u8; 4],
    pub rgb_scale: u8,
    pub alpha_scale: u8,
}

impl Stage {
    /// `C3D_TexEnvInit` (§7): sources PREVIOUS, PRIMARY, PRIMARY for both combiners, operands 0,
    /// REPLACE, colour 0xFFFFFFFF, scale 1× — a pass-through from stage 1 on (§10.1).
    pub fn citro3d_default() -> Stage {
        Stage {
            rgb_sources: [
                source::PREVIOUS,
                source::PRIMARY_COLOR,
                source::PRIMARY_COLOR,
            ],
            alpha_sources: [
                source::PREVIOUS,
                source::PRIMARY_COLOR,
                source::PRIMARY_COLOR,
            ],
            rgb_operands: [0; 3],
            alpha_operands: [0; 3],
            rgb_func: func::REPLACE,
            alpha_func: func::REPLACE,
            color: [0xFF; 4],
            rgb_scale: 0,
            alpha_scale: 0,
        }
    }

    /// The fields of the five registers SOURCE, OPERAND, COMBINER, COLOR, SCALE (§5).
    pub fn from_words(w: [u32; 5]) -> Stage {
        let nib = |v: u32, bit: u32| ((v >> bit) & 0xF) as u8;
        let [src, op, comb, color, scale] = w;
        Stage {
            rgb_sources: [nib(src, 0), nib(src, 4), nib(src, 8)],
            alpha_sources: [nib(src, 16), nib(src, 20), nib(src, 24)],
            rgb_operands: [nib(op, 0), nib(op, 4), nib(op, 8)],
            alpha_operands: [12, 16, 20].map(|bit| ((op >> bit) & 0x7) as u8),
            rgb_func: nib(comb, 0),
            alpha_func: nib(comb, 16),
            color: color.to_le_bytes(),
            rgb_scale: (scale & 0x3) as u8,
            alpha_scale: ((scale >> 16) & 0x3) as u8,
        }
    }
}

/// The bits of each stage register that hold fields (§5), SOURCE … SCALE.
const STAGE_FIELD_BITS: [u32; 5] = [
    0x0FFF_0FFF,
    0x0077_7FFF,
    0x000F_000F,
    0xFFFF_FFFF,
    0x0003_0003,
];
/// 0x0E0's documented fields: fog mode 0–2, gas 3, updates 8–15, z-flip 16 (bits 24–25 are
/// "unknown, documented as 0", §5).
const UPDATE_BUFFER_FIELD_BITS: u32 = 0x0001_FF0F;
/// 0x104's fields: enable 0, function 4–6, reference 8–15 (§5).
const ALPHA_TEST_FIELD_BITS: u32 = 0x0000_FF71;

/// The fragment-stage state the evaluator reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    pub stages: [Stage; 6],
    /// GPUREG_TEXENV_UPDATE_BUFFER bits 8–11: stage k writes its RGB into the buffer (§4).
    pub update_rgb: [bool; 4],
    /// Bits 12–15: stage k writes its alpha into the buffer (§4).
    pub update_alpha: [bool; 4],
    /// GPUREG_TEXENV_BUFFER_COLOR as R, G, B, A: what stage 1 reads from the buffer (§4).
    pub buffer_color: [u8; 4],
    /// GPUREG_FRAGOP_ALPHA_TEST: (function, reference byte), `None` when disabled (§5).
    pub alpha_test: Option<(u8, u8)>,
    /// 0x0E0 bits 0–2 (0 off, 5 fog, 7 gas; §5, §8). Not modelled: [`evaluate`] refuses a
    /// non-zero value.
    pub fog_mode: u8,
}

impl Default for Config {
    fn default() -> Config {
        Config::citro3d_defaults()
    }
}

/// The register values citro3d has after `C3D_Init` (§7): every stage `C3D_TexEnvInit`
/// (SOURCE 0x000F000F, OPERAND 0, COMBINER 0, COLOR 0xFFFFFFFF, SCALE 0), 0x0E0 = 0 (no buffer
/// updates, fog off), buffer colour 0xFFFFFFFF, alpha test 0x10 (off, ALWAYS, ref 0 as
/// `C3D_AlphaTest` packs it: enable | func<<4 | ref<<8).
pub fn citro3d_registers() -> BTreeMap<u16, u32> {
    let mut regs = BTreeMap::new();
    for base in STAGE_BASE {
        regs.insert(base, 0x000F_000F);
        regs.insert(base + 1, 0);
        regs.insert(base + 2, 0);
        regs.insert(base + 3, 0xFFFF_FFFF);
        regs.insert(base + 4, 0);
    }
    regs.insert(UPDATE_BUFFER, 0);
    regs.insert(BUFFER_COLOR, 0xFFFF_FFFF);
    regs.insert(ALPHA_TEST, u32::from(test::ALWAYS) << 4);
    regs
}

impl Config {
    /// citro3d's state after `C3D_Init` (§7): every stage `C3D_TexEnvInit`, buffer colour
    /// 0xFFFFFFFF, no buffer updates, alpha test off, fog off.
    pub fn citro3d_defaults() -> Config {
        Config {
            stages: [Stage::citro3d_default(); 6],
            update_rgb: [false; 4],
            update_alpha: [false; 4],
            buffer_color: [0xFF; 4],
            alpha_test: None,
            fog_mode: 0,
        }
    }

    /// From register values (0x0C0…, 0x0F0…, 0x0E0, 0x0FD, 0x104; §5); registers absent take
    /// citro3d's defaults ([`citro3d_registers`]). Bits outside the documented fields are
    /// ignored here; [`stray_bits`] reports them.
    pub fn from_registers(regs: &BTreeMap<u16, u32>) -> Config {
        let defaults = citro3d_registers();
        let get = |id: u16| {
            regs.get(&id)
                .or_else(|| defaults.get(&id))
                .copied()
                .unwrap_or(0)
        };
        let stages =
            STAGE_BASE.map(|base| Stage::from_words([0, 1, 2, 3, 4].map(|k| get(base + k))));
        let update = get(UPDATE_BUFFER);
        let test_reg = get(ALPHA_TEST);
        Config {
            stages,
            update_rgb: [0, 1, 2, 3].map(|k| update & (1 << (8 + k)) != 0),
            update_alpha: [0, 1, 2, 3].map(|k| update & (1 << (12 + k)) != 0),
            buffer_color: get(BUFFER_COLOR).to_le_bytes(),
            alpha_test: (test_reg & 1 != 0).then_some((
                ((test_reg >> 4) & 0x7) as u8,
                ((test_reg >> 8) & 0xFF) as u8,
            )),
            fog_mode: (update & 0x7) as u8,
        }
    }

    /// From a command list applied over citro3d's defaults ([`registers`] from
    /// [`citro3d_registers`], then [`Config::from_registers`]).
    pub fn from_words(words: &[u32]) -> Result<Config, String> {
        Ok(Config::from_registers(&registers(
            words,
            &citro3d_registers(),
        )?))
    }
}

/// Bits set outside the documented fields of the fragment registers this module reads (stage
/// registers, 0x0E0, 0x104; §5), one line per register; empty when there are none. A value
/// put at the wrong bit position by an encoder often shows here rather than in [`Config`].
pub fn stray_bits(regs: &BTreeMap<u16, u32>) -> Vec<String> {
    let mut found = Vec::new();
    let mut check = |id: u16, what: String, fields: u32| {
        if let Some(&v) = regs.get(&id) {
            if v & !fields != 0 {
                found.push(format!(
                    "register {id:#05x} ({what}) = {v:#010x}: bits {:#010x} are outside its fields",
                    v & !fields
                ));
            }
        }
    };
    const NAMES: [&str; 5] = ["SOURCE", "OPERAND", "COMBINER", "COLOR", "SCALE"];
    for (i, base) in STAGE_BASE.into_iter().enumerate() {
        for k in 0..5 {
            check(
                base + k as u16,
                format!("TEXENV{i}_{}", NAMES[k]),
                STAGE_FIELD_BITS[k],
            );
        }
    }
    check(
        UPDATE_BUFFER,
        "TEXENV_UPDATE_BUFFER".into(),
        UPDATE_BUFFER_FIELD_BITS,
    );
    check(
        ALPHA_TEST,
        "FRAGOP_ALPHA_TEST".into(),
        ALPHA_TEST_FIELD_BITS,
    );
    found
}

fn or_hex(name: Option<&'static str>, v: u8) -> String {
    name.map_or_else(|| format!("{v:#x}?"), str::to_string)
}

impl fmt::Display for Stage {
    /// `RGB GPU_MODULATE(GPU_TEXTURE0 SRC_COLOR, …) ×1; A …; const #RRGGBBAA`, with the
    /// `GPU_TEVOP_RGB_` / `GPU_TEVOP_A_` prefixes dropped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let part = |func: u8, srcs: [u8; 3], ops: [String; 3], scale: u8| {
            let args: Vec<String> = (0..3)
                .map(|k| format!("{} {}", or_hex(source_name(srcs[k]), srcs[k]), ops[k]))
                .collect();
            let s =
                scale_factor(scale).map_or_else(|| format!("scale {scale}?"), |s| format!("×{s}"));
            format!("{}({}) {s}", or_hex(func_name(func), func), args.join(", "))
        };
        let rgb_ops = self.rgb_operands.map(|o| {
            rgb_operand_name(o).map_or_else(
                || format!("{o}?"),
                |n| n.trim_start_matches("GPU_TEVOP_RGB_").into(),
            )
        });
        let alpha_ops = self.alpha_operands.map(|o| {
            alpha_operand_name(o).map_or_else(
                || format!("{o}?"),
                |n| n.trim_start_matches("GPU_TEVOP_A_").into(),
            )
        });
        let [r, g, b, a] = self.color;
        write!(
            f,
            "RGB {}; A {}; const #{r:02X}{g:02X}{b:02X}{a:02X}",
            part(self.rgb_func, self.rgb_sources, rgb_ops, self.rgb_scale),
            part(
                self.alpha_func,
                self.alpha_sources,
                alpha_ops,
                self.alpha_scale
            )
        )
    }
}

impl fmt::Display for Config {
    /// One line per stage, then the buffer, alpha test and fog state.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.stages.iter().enumerate() {
            writeln!(f, "stage {i}: {s}")?;
        }
        let bits = |u: [bool; 4]| {
            u.iter()
                .map(|&b| if b { '1' } else { '0' })
                .collect::<String>()
        };
        let [r, g, b, a] = self.buffer_color;
        write!(
            f,
            "buffer update RGB {} A {} (stages 0-3), buffer colour #{r:02X}{g:02X}{b:02X}{a:02X}, ",
            bits(self.update_rgb),
            bits(self.update_alpha)
        )?;
        match self.alpha_test {
            Some((func, r)) => write!(f, "alpha test {} {r}", or_hex(test_name(func), func))?,
            None => write!(f, "alpha test off")?,
        }
        if self.fog_mode != 0 {
            write!(f, ", fog mode {}", self.fog_mode)?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// §3, §4, §5: evaluation
// ---------------------------------------------------------------------------------------------

/// The number model of an evaluation: bytes with the AZ-SW formulas, or floats rounded per
/// stage (AZ-GL). Each method is one line of the document's tables (§3).
trait Model {
    type V: Copy;
    fn zero() -> Self::V;
    fn byte(b: u8) -> Self::V;
    /// The operand "one minus" (1 − x; 255 − x in bytes).
    fn one_minus(v: Self::V) -> Self::V;
    /// A non-DOT3 function on operands x, y, z, clamped to [0, 1] (§3 table).
    fn combine(func: u8, x: Self::V, y: Self::V, z: Self::V) -> Self::V;
    /// The DOT3 scalar of the RGB of two operands, clamped to [0, 1].
    fn dot3(x: [Self::V; 3], y: [Self::V; 3]) -> Self::V;
    /// Scale, clamp again: the stage's result (for floats also rounded to a multiple of 1/255).
    fn scale(v: Self::V, s: u32) -> Self::V;
    /// The alpha byte the alpha test compares.
    fn alpha_byte(v: Self::V) -> u8;
}

/// AZ-SW's integer arithmetic (§3 "8-bit precision" table; `/` truncates).
struct Bytes;

impl Model for Bytes {
    type V = u8;
    fn zero() -> u8 {
        0
    }
    fn byte(b: u8) -> u8 {
        b
    }
    fn one_minus(v: u8) -> u8 {
        255 - v
    }
    fn combine(func: u8, x: u8, y: u8, z: u8) -> u8 {
        let (a, b, c) = (i32::from(x), i32::from(y), i32::from(z));
        let v = match func {
            func::REPLACE => a,
            func::MODULATE => a * b / 255,
            func::ADD => (a + b).min(255),
            func::ADD_SIGNED => (a + b - 128).clamp(0, 255),
            func::INTERPOLATE => (a * c + b * (255 - c)) / 255,
            func::SUBTRACT => (a - b).max(0),
            func::MULTIPLY_ADD => ((a * b + 255 * c) / 255).min(255),
            func::ADD_MULTIPLY => (a + b).min(255) * c / 255,
            _ => unreachable!("function {func} reached combine"),
        };
        v as u8
    }
    fn dot3(x: [u8; 3], y: [u8; 3]) -> u8 {
        // Σ over r, g, b of ((2a−255)(2b−255)+128)/256, each term divided with C's
        // truncation toward zero (Rust's `/` on i32 does the same), then clamped.
        let sum: i32 = (0..3)
            .map(|k| ((2 * i32::from(x[k]) - 255) * (2 * i32::from(y[k]) - 255) + 128) / 256)
            .sum();
        sum.clamp(0, 255) as u8
    }
    fn scale(v: u8, s: u32) -> u8 {
        (u32::from(v) * s).min(255) as u8
    }
    fn alpha_byte(v: u8) -> u8 {
        v
    }
}

/// AZ-GL's float arithmetic with "byteround" after every stage (§3).
struct Rounded;

impl Rounded {
    fn byteround(v: f32) -> f32 {
        (v * 255.0).round() / 255.0
    }
}

impl Model for Rounded {
    type V = f32;
    fn zero() -> f32 {
        0.0
    }
    fn byte(b: u8) -> f32 {
        f32::from(b) / 255.0
    }
    fn one_minus(v: f32) -> f32 {
        1.0 - v
    }
    fn combine(func: u8, x: f32, y: f32, z: f32) -> f32 {
        let v = match func {
            func::REPLACE => x,
            func::MODULATE => x * y,
            func::ADD => x + y,
            func::ADD_SIGNED => x + y - 0.5,
            func::INTERPOLATE => x * z + y * (1.0 - z),
            func::SUBTRACT => x - y,
            func::MULTIPLY_ADD => x * y + z,
            func::ADD_MULTIPLY => (x + y).min(1.0) * z,
            _ => unreachable!("function {func} reached combine"),
        };
        v.clamp(0.0, 1.0)
    }
    fn dot3(x: [f32; 3], y: [f32; 3]) -> f32 {
        let dot: f32 = (0..3).map(|k| (x[k] - 0.5) * (y[k] - 0.5)).sum();
        (4.0 * dot).clamp(0.0, 1.0)
    }
    fn scale(v: f32, s: u32) -> f32 {
        Rounded::byteround((v * s as f32).clamp(0.0, 1.0))
    }
    fn alpha_byte(v: f32) -> u8 {
        // The stage-5 alpha is already a multiple of 1/255; rounding (not AZ-GL's
        // `int(alpha*255)`) keeps float noise such as 127.99998 from changing the byte.
        (v * 255.0).round() as u8
    }
}

/// A panic for a field value the document does not define.
fn undocumented(stage: usize, field: &str, v: u8, what: &str) -> ! {
    panic!(
        "TEV oracle: stage {stage} {field} = {v:#x} is {what} (pica200-fragment-pipeline.md §3, §12); \
         a compiler that emits it has a bug"
    )
}

/// Refuses every undocumented field value of `config` (see the module documentation).
fn validate(config: &Config) {
    for (i, s) in config.stages.iter().enumerate() {
        for k in 0..3 {
            for (field, v) in [
                ("rgb_sources", s.rgb_sources[k]),
                ("alpha_sources", s.alpha_sources[k]),
            ] {
                if source_name(v).is_none() {
                    undocumented(i, &format!("{field}[{k}]"), v, "an undocumented source");
                }
            }
            if rgb_operand_name(s.rgb_operands[k]).is_none() {
                undocumented(
                    i,
                    &format!("rgb_operands[{k}]"),
                    s.rgb_operands[k],
                    "an undocumented RGB operand",
                );
            }
            if alpha_operand_name(s.alpha_operands[k]).is_none() {
                undocumented(
                    i,
                    &format!("alpha_operands[{k}]"),
                    s.alpha_operands[k],
                    "not an alpha operand",
                );
            }
        }
        for (field, v) in [("rgb_func", s.rgb_func), ("alpha_func", s.alpha_func)] {
            if func_name(v).is_none() {
                undocumented(i, field, v, "an undocumented combiner function");
            }
        }
        for (field, v) in [("rgb_scale", s.rgb_scale), ("alpha_scale", s.alpha_scale)] {
            if scale_factor(v).is_none() {
                undocumented(i, field, v, "an undocumented scale");
            }
        }
        if s.rgb_func != func::DOT3_RGBA && matches!(s.alpha_func, func::DOT3_RGB | func::DOT3_RGBA)
        {
            undocumented(
                i,
                "alpha_func",
                s.alpha_func,
                "DOT3 as the alpha function without GPU_DOT3_RGBA in RGB, untested on hardware",
            );
        }
        if s.rgb_func == func::DOT3_RGBA && s.rgb_scale != s.alpha_scale {
            panic!(
                "TEV oracle: stage {i} is GPU_DOT3_RGBA with rgb_scale {} and alpha_scale {}: the \
                 document does not say which scale the alpha of the dot gets; a compiler that \
                 relies on it has a bug",
                s.rgb_scale, s.alpha_scale
            );
        }
    }
    if let Some((func, _)) = config.alpha_test {
        if test_name(func).is_none() {
            panic!("TEV oracle: alpha test function {func:#x} is not a 3-bit GPU_TESTFUNC");
        }
    }
    if config.fog_mode != 0 {
        panic!(
            "TEV oracle: fog mode {} is set (0x0E0 bits 0-2); fog and gas are not modelled",
            config.fog_mode
        );
    }
}

/// Runs the six stages and the alpha test in model `M`.
fn run<M: Model>(
    config: &Config,
    primary: [M::V; 4],
    textures: [[M::V; 4]; 4],
) -> Option<[M::V; 4]> {
    validate(config);
    let zero = [M::zero(); 4];
    // outs[n]: stage n's result; reads[n]: the buffer value stage n reads (§4).
    let mut outs = [zero; 6];
    let mut reads = [zero; 6];
    for i in 0..6 {
        let stage = &config.stages[i];
        reads[i] = match i {
            0 => zero,
            1 => config.buffer_color.map(M::byte),
            n => {
                let (writer, before) = (outs[n - 2], reads[n - 1]);
                let rgb = config.update_rgb[n - 2];
                let alpha = config.update_alpha[n - 2];
                [
                    if rgb { writer[0] } else { before[0] },
                    if rgb { writer[1] } else { before[1] },
                    if rgb { writer[2] } else { before[2] },
                    if alpha { writer[3] } else { before[3] },
                ]
            }
        };
        let previous = if i == 0 { None } else { Some(outs[i - 1]) };
        let constant = stage.color.map(M::byte);
        // The RGBA of source `k` (0-based) of a combiner with sources `srcs` (§3), with
        // stage 0's rule for GPU_PREVIOUS.
        let fetch = |combiner: &str, srcs: [u8; 3], k: usize| -> [M::V; 4] {
            let mut src = srcs[k];
            if i == 0 && src == source::PREVIOUS {
                if k < 2 && srcs[2] != source::PREVIOUS {
                    src = srcs[2];
                } else {
                    panic!(
                        "TEV oracle: stage 0 {combiner}_sources[{k}] is GPU_PREVIOUS and resolves \
                         to a stage-0 source 3 of GPU_PREVIOUS, which is undocumented (§3, §12); \
                         never emit GPU_PREVIOUS in stage 0 (§10.10)"
                    );
                }
            }
            match src {
                source::PRIMARY_COLOR => primary,
                source::FRAGMENT_PRIMARY_COLOR | source::FRAGMENT_SECONDARY_COLOR => zero,
                source::TEXTURE0..=source::TEXTURE3 => {
                    textures[usize::from(src - source::TEXTURE0)]
                }
                source::PREVIOUS_BUFFER => reads[i],
                source::CONSTANT => constant,
                source::PREVIOUS => previous.expect("stage 0 PREVIOUS was resolved above"),
                _ => unreachable!("validated"),
            }
        };
        let reads_n = |f: u8| match f {
            func::REPLACE => 1,
            func::INTERPOLATE | func::MULTIPLY_ADD | func::ADD_MULTIPLY => 3,
            _ => 2,
        };
        // RGB operands: bit 0 "one minus"; bits 2-3 channel (0 colour, 1 r, 2 g, 3 b), except 2/3
        // = alpha (§3).
        let rgb_operand = |v: [M::V; 4], op: u8| -> [M::V; 3] {
            let picked = match op & !1 {
                0 => [v[0], v[1], v[2]],
                2 => [v[3]; 3],
                4 => [v[0]; 3],
                8 => [v[1]; 3],
                12 => [v[2]; 3],
                _ => unreachable!("validated"),
            };
            if op & 1 == 1 {
                picked.map(M::one_minus)
            } else {
                picked
            }
        };
        // Alpha operands: 0/1 alpha, 2/3 r, 4/5 g, 6/7 b; odd = one minus (§3).
        let alpha_operand = |v: [M::V; 4], op: u8| -> M::V {
            let picked = match op >> 1 {
                0 => v[3],
                1 => v[0],
                2 => v[1],
                _ => v[2],
            };
            if op & 1 == 1 {
                M::one_minus(picked)
            } else {
                picked
            }
        };

        // Only the operands the function reads are fetched (a stage-0 GPU_PREVIOUS source 3
        // panics only when read); the others stay 0.
        let rgb_in: [[M::V; 3]; 3] = std::array::from_fn(|k| {
            if k < reads_n(stage.rgb_func) {
                rgb_operand(fetch("rgb", stage.rgb_sources, k), stage.rgb_operands[k])
            } else {
                [M::zero(); 3]
            }
        });
        let rgb: [M::V; 3] = if matches!(stage.rgb_func, func::DOT3_RGB | func::DOT3_RGBA) {
            [M::dot3(rgb_in[0], rgb_in[1]); 3]
        } else {
            [0, 1, 2].map(|c| M::combine(stage.rgb_func, rgb_in[0][c], rgb_in[1][c], rgb_in[2][c]))
        };
        let alpha = if stage.rgb_func == func::DOT3_RGBA {
            // The alpha combiner's own configuration is ignored (§3); validate() made sure both
            // scales agree, so scaling with either is the document's "alpha = the dot result".
            rgb[0]
        } else {
            let a_in: [M::V; 3] = std::array::from_fn(|k| {
                if k < reads_n(stage.alpha_func) {
                    alpha_operand(
                        fetch("alpha", stage.alpha_sources, k),
                        stage.alpha_operands[k],
                    )
                } else {
                    M::zero()
                }
            });
            M::combine(stage.alpha_func, a_in[0], a_in[1], a_in[2])
        };
        let rs = scale_factor(stage.rgb_scale).expect("validated");
        let as_ = scale_factor(stage.alpha_scale).expect("validated");
        outs[i] = [
            M::scale(rgb[0], rs),
            M::scale(rgb[1], rs),
            M::scale(rgb[2], rs),
            M::scale(alpha, as_),
        ];
    }
    let out = outs[5];
    match config.alpha_test {
        Some((func, reference)) if !alpha_passes(func, M::alpha_byte(out[3]), reference) => None,
        _ => Some(out),
    }
}

/// Whether `alpha FUNC reference` holds (§5, GPU_TESTFUNC).
pub fn alpha_passes(func: u8, alpha: u8, reference: u8) -> bool {
    match func {
        test::NEVER => false,
        test::ALWAYS => true,
        test::EQUAL => alpha == reference,
        test::NOTEQUAL => alpha != reference,
        test::LESS => alpha < reference,
        test::LEQUAL => alpha <= reference,
        test::GREATER => alpha > reference,
        test::GEQUAL => alpha >= reference,
        _ => panic!("TEV oracle: alpha test function {func:#x} is not a 3-bit GPU_TESTFUNC"),
    }
}

/// The fragment colour bytes (`None` when the alpha test discards the fragment), with the AZ-SW
/// byte formulas (§3), the operand selections (§3), the stage-0 rules (§3), the buffer's
/// one-stage delay (§4), DOT3 and the alpha test (§5). `primary` is the interpolated vertex
/// colour as bytes, `textures[k]` unit k's sample (unit 3 = procedural); all R, G, B, A.
///
/// Panics on any undocumented field value, naming the stage and field (module documentation).
pub fn evaluate(config: &Config, primary: [u8; 4], textures: [[u8; 4]; 4]) -> Option<[u8; 4]> {
    run::<Bytes>(config, primary, textures)
}

/// [`evaluate`] in floats (inputs in [0, 1]): each function by its float formula (§3 table),
/// clamped, scaled, clamped, and each stage's result rounded to the nearest multiple of 1/255
/// (the AZ-GL model, "byteround"). Constants and the buffer colour enter as byte/255; inputs
/// are used as given. The alpha test compares the rounded alpha byte.
///
/// Panics on inputs outside [0, 1] (or NaN), and where [`evaluate`] does.
pub fn evaluate_rounded(
    config: &Config,
    primary: [f32; 4],
    textures: [[f32; 4]; 4],
) -> Option<[f32; 4]> {
    for (what, v) in std::iter::once(("primary", primary)).chain(textures.map(|t| ("a texture", t)))
    {
        assert!(
            v.iter().all(|x| (0.0..=1.0).contains(x)),
            "TEV oracle: {what} input {v:?} is outside [0, 1]; every TEV source is an 8-bit value in [0, 1] (§3)"
        );
    }
    run::<Rounded>(config, primary, textures)
}
