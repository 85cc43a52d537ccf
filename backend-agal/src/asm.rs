//! An assembler for AGALMiniAssembler syntax (the 2015 multi-version assembler), so that
//! hand-written programs and the golden sources can be turned into bytes and compared.
//!
//! ```text
//! m44 op, va0, vc0            // comments run to the end of the line
//! mov v0.zw, vc0.zw           // masks; short swizzles repeat their last letter (zwww)
//! mov vt0, vc[va1.y+6]        // relative source: index register, lane, offset 0–255
//! tex ft0, v0, fs0 <2d,linear,repeat,miplinear,-0.5>   // flags; a number is the LOD bias
//! ```
//!
//! Register names: `va`, `vc`, `vt`, `op`/`vo`, `v`/`vi`/`i`/`fi` (varyings), `fc`, `ft`,
//! `fs`, `oc`/`fo`, `od`/`fd`, `iid`; a missing number is 0. The version and stage are given by
//! the caller, as to `AGALMiniAssembler.assemble(mode, source, version)`. Like Adobe's
//! assembler this one refuses AGAL 2 opcodes below version 2, fragment-only opcodes and
//! registers in vertex programs and the reverse, relative destinations and offsets above 255;
//! register limits are left to [`crate::validate()`]. It is stricter than Adobe's in three
//! places, where Adobe's silently produces something else: an unknown mnemonic is an error
//! (Adobe skips the line), an unknown sampler flag is an error (Adobe takes it as LOD bias 0),
//! and a LOD bias outside −16 … 15.875 is an error (Adobe wraps it).

use crate::header::{Stage, Version};
use crate::inst::{Inst, Operand2};
use crate::opcode::{Opcode, Shape};
use crate::operand::{Component, Dest, Indirect, Mask, RegType, Source, Swizzle};
use crate::program::Program;
use crate::sampler::Sampler;
use std::fmt;

/// An assembly error and the line (from 1) it is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmError {
    /// The line, counting from 1.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for AsmError {}

/// Assembles a program to bytes.
pub fn assemble(source: &str, stage: Stage, version: Version) -> Result<Vec<u8>, AsmError> {
    Ok(parse(source, stage, version)?.encode())
}

/// Assembles a program to a [`Program`].
pub fn parse(source: &str, stage: Stage, version: Version) -> Result<Program, AsmError> {
    let mut program = Program::new(version, stage);
    let lines = source.split(['\n', '\r', '\u{b}', '\u{c}']);
    for (i, line) in lines.enumerate() {
        let err = |message: String| AsmError {
            line: i + 1,
            message,
        };
        if let Some(inst) = parse_line(line, stage, version).map_err(err)? {
            program.push(inst);
        }
    }
    Ok(program)
}

/// One line: `None` for a blank or comment line.
fn parse_line(line: &str, stage: Stage, version: Version) -> Result<Option<Inst>, String> {
    let line = line.split("//").next().unwrap_or_default().trim();
    if line.is_empty() {
        return Ok(None);
    }
    // Sampler flags: everything between the first `<` and the last `>`.
    let (line, flags) = match (line.find('<'), line.rfind('>')) {
        (Some(a), Some(b)) if a < b => (
            line.get(..a).unwrap_or_default(),
            Some(line.get(a + 1..b).unwrap_or_default()),
        ),
        (Some(_), _) | (_, Some(_)) => return Err("unbalanced `<` `>` around sampler flags".into()),
        _ => (line, None),
    };
    let mnemonic_len = line
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(line.len());
    let (mnemonic, rest) = line.split_at(mnemonic_len);
    let op = Opcode::from_name(mnemonic).ok_or_else(|| format!("unknown opcode `{mnemonic}`"))?;
    if op.min_version() > version {
        return Err(format!(
            "`{op}` requires AGAL version 2 (assembling version {version})"
        ));
    }
    if op.fragment_only() && stage == Stage::Vertex {
        return Err(format!("`{op}` is only allowed in fragment programs"));
    }
    let operands: Vec<&str> = rest
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .collect();
    let shape = op.shape();
    if operands.len() != shape.operand_count() {
        return Err(format!(
            "`{op}` takes {} operands, found {}",
            shape.operand_count(),
            operands.len()
        ));
    }
    if flags.is_some() && shape != Shape::Texture {
        return Err(format!("sampler flags on `{op}`, which has no sampler"));
    }
    let mut ops = operands.into_iter();
    let mut next = || ops.next().unwrap_or_default();
    let dest = if shape.has_dest() {
        Some(parse_dest(next(), stage)?)
    } else {
        None
    };
    let src1 = if shape.sources() >= 1 {
        Some(parse_source(next(), stage)?)
    } else {
        None
    };
    let src2 = match shape {
        Shape::Texture => Some(Operand2::Sampler(parse_sampler(next(), stage, flags)?)),
        _ if shape.sources() >= 2 => Some(Operand2::Source(parse_source(next(), stage)?)),
        _ => None,
    };
    Inst::new(op, dest, src1, src2)
        .map(Some)
        .map_err(|e| e.to_string())
}

/// A register name and number: `vt3`, `oc`, `iid0`.
fn parse_register(text: &str, stage: Stage) -> Result<(RegType, u16), String> {
    let letters = text
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(text.len());
    let (name, digits) = text.split_at(letters);
    use RegType as R;
    let (reg, vertex, fragment) = match name {
        "va" => (R::Attribute, true, false),
        "vc" => (R::Constant, true, false),
        "vt" => (R::Temporary, true, false),
        "op" | "vo" => (R::Output, true, false),
        "v" | "vi" | "i" | "fi" => (R::Varying, true, true),
        "fc" => (R::Constant, false, true),
        "ft" => (R::Temporary, false, true),
        "fs" => (R::Sampler, false, true),
        "oc" | "fo" => (R::Output, false, true),
        "od" | "fd" => (R::Depth, false, true),
        "iid" => (R::InstanceId, true, false),
        _ => return Err(format!("`{text}` is not a register")),
    };
    let allowed = match stage {
        Stage::Vertex => vertex,
        Stage::Fragment => fragment,
    };
    if !allowed {
        return Err(format!(
            "register `{text}` is not available in {stage} programs"
        ));
    }
    let index = if digits.is_empty() {
        0
    } else {
        if !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("`{text}` is not a register"));
        }
        digits
            .parse::<u16>()
            .map_err(|_| format!("register number in `{text}` is too large"))?
    };
    Ok((reg, index))
}

/// `name.letters` split at the first dot after any brackets.
fn split_suffix(text: &str) -> (&str, Option<&str>) {
    let from = text.rfind(']').unwrap_or(0);
    match text.get(from..).and_then(|t| t.find('.')) {
        Some(dot) => (
            text.get(..from + dot).unwrap_or_default(),
            text.get(from + dot + 1..),
        ),
        None => (text, None),
    }
}

fn parse_dest(text: &str, stage: Stage) -> Result<Dest, String> {
    if text.contains('[') {
        return Err(format!(
            "relative addressing cannot be a destination (`{text}`)"
        ));
    }
    let (reg, letters) = split_suffix(text);
    let (reg, index) = parse_register(reg, stage)?;
    let mask = match letters {
        None => Mask::XYZW,
        Some(l) => {
            // Like Adobe's assembler: any letters, in any order, each sets its lane.
            let mut bits = 0u8;
            for c in l.chars() {
                let c =
                    Component::from_letter(c).ok_or_else(|| format!("bad write mask `.{l}`"))?;
                bits |= 1 << c.index();
            }
            Mask::new(bits).ok_or_else(|| format!("bad write mask `.{l}`"))?
        }
    };
    Ok(Dest::new(reg, index, mask))
}

fn parse_swizzle(letters: Option<&str>) -> Result<Swizzle, String> {
    match letters {
        None => Ok(Swizzle::IDENTITY),
        Some(l) => Swizzle::parse(l).ok_or_else(|| format!("bad swizzle `.{l}`")),
    }
}

fn parse_source(text: &str, stage: Stage) -> Result<Source, String> {
    let (base, letters) = split_suffix(text);
    let swizzle = parse_swizzle(letters)?;
    let Some(open) = base.find('[') else {
        let (reg, index) = parse_register(base, stage)?;
        return Ok(Source::new(reg, index, swizzle));
    };
    if stage == Stage::Fragment {
        return Err(format!(
            "relative addressing is not allowed in fragment programs (`{text}`)"
        ));
    }
    let inner = base
        .get(open + 1..)
        .and_then(|s| s.strip_suffix(']'))
        .ok_or_else(|| format!("bad relative operand `{text}`"))?;
    let (reg, _) = parse_register(base.get(..open).unwrap_or_default(), stage)?;
    let (index_part, offset) = match inner.split_once('+') {
        Some((a, b)) => {
            let offset = b
                .parse::<u32>()
                .map_err(|_| format!("bad index offset in `{text}`"))?;
            let offset = u8::try_from(offset)
                .map_err(|_| format!("index offset {offset} out of bounds [0..255]"))?;
            (a, offset)
        }
        None => (inner, 0),
    };
    let (index_reg, select) = index_part
        .split_once('.')
        .ok_or_else(|| format!("relative operand `{text}` needs an index lane (`.x` …)"))?;
    let mut lanes = select.chars();
    let select = match (lanes.next().and_then(Component::from_letter), lanes.next()) {
        (Some(c), None) => c,
        _ => return Err(format!("bad index lane `.{select}` in `{text}`")),
    };
    let (ireg, iindex) = parse_register(index_reg, stage)?;
    Ok(Source::indirect(
        reg,
        Indirect {
            reg: ireg,
            index: iindex,
            select,
            offset,
        },
        swizzle,
    ))
}

fn parse_sampler(text: &str, stage: Stage, flags: Option<&str>) -> Result<Sampler, String> {
    let (reg, index) = parse_register(text, stage)?;
    if reg != RegType::Sampler {
        return Err(format!(
            "`tex` needs a sampler register (fsN), found `{text}`"
        ));
    }
    let mut s = Sampler::new(index);
    let words = flags
        .unwrap_or_default()
        .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '+')))
        .filter(|w| !w.is_empty());
    for w in words {
        let lower = w.to_ascii_lowercase();
        if s.apply_flag(&lower) {
            continue;
        }
        let bias: f64 = w
            .parse()
            .map_err(|_| format!("unknown sampler flag `{w}`"))?;
        let eighths = (bias * 8.0).trunc();
        if !(-128.0..=127.0).contains(&eighths) {
            return Err(format!("LOD bias {w} is out of range (-16 to 15.875)"));
        }
        s.lod_bias = eighths as i8;
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str, stage: Stage) -> Vec<u8> {
        let b = assemble(line, stage, Version::V2).unwrap();
        b[7..].to_vec()
    }

    #[test]
    fn relative_and_sampler_encodings() {
        let t = one("mov vt0, vc[va0.x+5]", Stage::Vertex);
        assert_eq!(&t[8..16], &[0x00, 0x00, 0x05, 0xe4, 0x01, 0x00, 0x00, 0x80]);
        let t = one(
            "tex ft1, ft9.xyzz, fs0 <cube,linear,mipnone,clamp,rgba>",
            Stage::Fragment,
        );
        assert_eq!(&t[16..24], &[0, 0, 0, 0, 0x05, 0x10, 0x00, 0x10]);
        let t = one("tex ft1, v0, fs2 <2d, linear, -0.5>", Stage::Fragment);
        assert_eq!(&t[16..24], &[2, 0, 0xfc, 0, 0x05, 0x00, 0x00, 0x10]);
    }

    #[test]
    fn errors() {
        let e = |src: &str, stage| parse(src, stage, Version::V1).unwrap_err().message;
        assert!(e("ife ft0.x, fc0.x", Stage::Fragment).contains("version 2"));
        assert!(e("tex ft0, v0, fs0", Stage::Vertex).contains("fragment"));
        assert!(e("mov ft0, va0", Stage::Fragment).contains("not available"));
        assert!(e("mov vc[va0.x+1], vt0", Stage::Vertex).contains("destination"));
        assert!(e("mov vt0, vc[va0.x+256]", Stage::Vertex).contains("out of bounds"));
        assert!(e("mov vt0", Stage::Vertex).contains("2 operands"));
        assert!(e("sgn vt0, va0", Stage::Vertex).contains("unknown opcode"));
        assert!(e("tex ft0, v0, fs0 <bilinear>", Stage::Fragment).contains("unknown sampler flag"));
        let p = parse(
            "// comment\n\nmov op, va0 // trailing\n",
            Stage::Vertex,
            Version::V1,
        )
        .unwrap();
        assert_eq!(p.instructions.len(), 1);
        assert_eq!(
            parse("mov op, va0\nfoo", Stage::Vertex, Version::V1)
                .unwrap_err()
                .line,
            2
        );
    }
}
