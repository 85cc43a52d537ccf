//! Bytes to a listing in AGALMiniAssembler syntax, one line per token.
//!
//! The spelling is the one the golden listings use, so that Adobe's assembler and
//! `asm::assemble` turn the text back into the same bytes: four-letter source
//! swizzles (an identity swizzle left out), destination masks (a full mask left out),
//! relative sources as `vc[va0.x+5]`, and sampler flags in the order dimension, filter, mip,
//! wrap, format, then special flags and a non-zero LOD bias. `op`, `oc`, `od` and `iid` drop
//! the number 0.

use crate::header::Stage;
use crate::inst::Inst;
use crate::operand::{Address, Dest, Mask, Source, Swizzle};
use crate::program::{DecodeError, Program};
use crate::sampler::Sampler;

/// The listing of a program's bytes: one line per token, each ending in a newline. The AGAL
/// version and stage are not part of the text (the assembler takes them as arguments, as
/// AGALMiniAssembler does).
pub fn listing(bytes: &[u8]) -> Result<String, DecodeError> {
    Ok(program_listing(&Program::decode(bytes)?))
}

/// The listing of a decoded program.
pub fn program_listing(program: &Program) -> String {
    let mut out = String::new();
    for inst in &program.instructions {
        out.push_str(&instruction(inst, program.stage));
        out.push('\n');
    }
    out
}

/// One instruction in AGALMiniAssembler syntax, for a program of `stage`.
pub fn instruction(inst: &Inst, stage: Stage) -> String {
    let mut parts: Vec<String> = Vec::with_capacity(3);
    if let Some(d) = inst.dest() {
        parts.push(dest(d, stage));
    }
    if let Some(s) = inst.src1() {
        parts.push(source(s, stage));
    }
    if let Some(s) = inst.src2() {
        parts.push(source(s, stage));
    }
    if let Some(s) = inst.sampler() {
        parts.push(sampler(s));
    }
    let name = inst.opcode().name();
    if parts.is_empty() {
        name.to_string()
    } else {
        format!("{name} {}", parts.join(", "))
    }
}

/// A destination: `vt0`, `v0.zw`.
pub fn dest(d: &Dest, stage: Stage) -> String {
    let name = d.reg.register_name(stage, d.index);
    if d.mask == Mask::XYZW {
        name
    } else {
        format!("{name}.{}", d.mask)
    }
}

/// A source: `va0`, `ft1.xxxx`, `vc[vt2.w+12].xyzz`.
pub fn source(s: &Source, stage: Stage) -> String {
    let base = match s.address {
        Address::Direct(n) => s.reg.register_name(stage, n),
        Address::Indirect(by) => format!(
            "{}[{}.{}+{}]",
            s.reg.prefix(stage),
            by.reg.register_name(stage, by.index),
            by.select.letter(),
            by.offset
        ),
    };
    if s.swizzle == Swizzle::IDENTITY {
        base
    } else {
        format!("{base}.{}", s.swizzle)
    }
}

/// A sampler: `fs0 <2d,linear,mipnone,repeat,rgba>`.
pub fn sampler(s: &Sampler) -> String {
    format!("fs{} <{}>", s.index, s.flag_names().join(","))
}
