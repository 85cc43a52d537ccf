//! Instruction words: one pure packing function per format (with its bit layout), the match from
//! [`Inst`] to formats, and [`encode_program`], which allocates operand descriptors for a whole
//! program exactly as picasso does and returns the code and the descriptor table.

use crate::error::EncodeError;
use crate::inst::{Form, Inst};
use crate::limits;
use crate::opdesc::{self, AllocError, DescTable};
use crate::operand::{Condition, RelIndex};

/// A program ready for the `.shbin` container.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodedProgram {
    /// The code words.
    pub code: Vec<u32>,
    /// The operand-descriptor table.
    pub descriptors: Vec<u32>,
}

/// Format 1 (two sources, src1 wide):
/// ```text
/// 31....26 25...21 20.19 18.......12 11....7 6.....0
/// | opcode |  dst  | idx |   src1    | src2  |  desc |
/// ```
pub fn encode_fmt1(opcode: u32, dst: u32, idx1: u32, src1: u32, src2: u32, desc: u32) -> u32 {
    (opcode << 26) | (dst << 21) | (idx1 << 19) | (src1 << 12) | (src2 << 7) | desc
}

/// Format 1i (two sources, src2 wide):
/// ```text
/// 31....26 25...21 20.19 18....14 13.......7 6.....0
/// | opcode |  dst  | idx |  src1  |   src2   |  desc |
/// ```
pub fn encode_fmt1i(opcode: u32, dst: u32, idx2: u32, src1: u32, src2: u32, desc: u32) -> u32 {
    (opcode << 26) | (dst << 21) | (idx2 << 19) | (src1 << 14) | (src2 << 7) | desc
}

/// Format 1u (one source): format 1 with the src2 field zero. MOVA leaves `dst` zero too.
pub fn encode_fmt1u(opcode: u32, dst: u32, idx1: u32, src1: u32, desc: u32) -> u32 {
    encode_fmt1(opcode, dst, idx1, src1, 0, desc)
}

/// Format 1c (CMP):
/// ```text
/// 31...27 26..24 23..21 20.19 18.......12 11....7 6.....0
/// | 10111 | cmpx | cmpy | idx |   src1    | src2  |  desc |
/// ```
pub fn encode_fmt1c(cmpx: u32, cmpy: u32, idx1: u32, src1: u32, src2: u32, desc: u32) -> u32 {
    (0x17 << 27) | (cmpx << 24) | (cmpy << 21) | (idx1 << 19) | (src1 << 12) | (src2 << 7) | desc
}

/// Format 2 (flow control on the CMP flags):
/// ```text
/// 31....26  25   24  23.22 21.........10 9.8 7.....0
/// | opcode |refx|refy|cond|     dst      | 0 |  num  |
/// ```
pub fn encode_fmt2(opcode: u32, refx: u32, refy: u32, condop: u32, dst: u32, num: u32) -> u32 {
    (opcode << 26) | (refx << 25) | (refy << 24) | (condop << 22) | (dst << 10) | num
}

/// Format 3 (flow control on a uniform; LOOP uses the low two bits of `id`):
/// ```text
/// 31....26 25....22 21.........10 9.8 7.....0
/// | opcode |   id   |     dst      | 0 |  num  |
/// ```
pub fn encode_fmt3(opcode: u32, id: u32, dst: u32, num: u32) -> u32 {
    (opcode << 26) | (id << 22) | (dst << 10) | num
}

/// Format 4 (SETEMIT):
/// ```text
/// 31....26 25.24  23   22  21........0
/// | 101011 | vtx |prim|inv|     0     |
/// ```
pub fn encode_fmt4(vtx: u32, prim: u32, inv: u32) -> u32 {
    (0x2B << 26) | (vtx << 24) | (prim << 23) | (inv << 22)
}

/// Format 5 (MAD, src2 wide):
/// ```text
/// 31.29 28...24 23.22 21....17 16.......10 9.....5 4....0
/// | 111 |  dst  | idx |  src1  |   src2    | src3  | desc |
/// ```
pub fn encode_fmt5(dst: u32, idx2: u32, src1: u32, src2: u32, src3: u32, desc: u32) -> u32 {
    (0x7 << 29) | (dst << 24) | (idx2 << 22) | (src1 << 17) | (src2 << 10) | (src3 << 5) | desc
}

/// Format 5i (MADI, src3 wide):
/// ```text
/// 31.29 28...24 23.22 21....17 16....12 11.......5 4....0
/// | 110 |  dst  | idx |  src1  |  src2  |   src3   | desc |
/// ```
pub fn encode_fmt5i(dst: u32, idx3: u32, src1: u32, src2: u32, src3: u32, desc: u32) -> u32 {
    (0x6 << 29) | (dst << 24) | (idx3 << 22) | (src1 << 17) | (src2 << 12) | (src3 << 5) | desc
}

fn cond_fields(c: &Condition) -> (u32, u32, u32) {
    (
        u32::from(c.ref_x),
        u32::from(c.ref_y),
        u32::from(c.op.raw()),
    )
}

/// Encodes one instruction naming operand descriptor `desc` (ignored by flow control). The
/// instruction's operand rules are checked first.
pub fn encode_inst(inst: &Inst, desc: usize) -> Result<u32, EncodeError> {
    inst.validate()
        .map_err(|source| EncodeError::Inst { index: 0, source })?;
    let bits = if matches!(inst, Inst::Mad { .. }) {
        5
    } else {
        7
    };
    if inst.uses_descriptor() && desc >= 1 << bits {
        return Err(EncodeError::DescriptorField { desc, bits });
    }
    let d = desc as u32;
    let op = inst.opcode() as u32;
    let idx = |i: RelIndex| u32::from(i.raw());
    Ok(match inst {
        Inst::Binary {
            form: Form::Normal,
            dst,
            src1,
            src2,
            ..
        } => encode_fmt1(
            op,
            u32::from(dst.reg.raw()),
            idx(src1.index),
            u32::from(src1.reg.raw()),
            u32::from(src2.reg.raw()),
            d,
        ),
        Inst::Binary {
            form: Form::Inverted,
            dst,
            src1,
            src2,
            ..
        } => encode_fmt1i(
            op,
            u32::from(dst.reg.raw()),
            idx(src2.index),
            u32::from(src1.reg.raw()),
            u32::from(src2.reg.raw()),
            d,
        ),
        Inst::Unary { dst, src, .. } => encode_fmt1u(
            op,
            u32::from(dst.reg.raw()),
            idx(src.index),
            u32::from(src.reg.raw()),
            d,
        ),
        Inst::Mova { src, .. } => encode_fmt1u(op, 0, idx(src.index), u32::from(src.reg.raw()), d),
        Inst::Cmp { src1, x, y, src2 } => encode_fmt1c(
            u32::from(x.raw()),
            u32::from(y.raw()),
            idx(src1.index),
            u32::from(src1.reg.raw()),
            u32::from(src2.reg.raw()),
            d,
        ),
        Inst::Mad {
            form: Form::Normal,
            dst,
            src1,
            src2,
            src3,
        } => encode_fmt5(
            u32::from(dst.reg.raw()),
            idx(src2.index),
            u32::from(src1.reg.raw()),
            u32::from(src2.reg.raw()),
            u32::from(src3.reg.raw()),
            d,
        ),
        Inst::Mad {
            form: Form::Inverted,
            dst,
            src1,
            src2,
            src3,
        } => encode_fmt5i(
            u32::from(dst.reg.raw()),
            idx(src3.index),
            u32::from(src1.reg.raw()),
            u32::from(src2.reg.raw()),
            u32::from(src3.reg.raw()),
            d,
        ),
        Inst::Nop | Inst::End | Inst::Emit | Inst::Break => op << 26,
        Inst::BreakC { cond } => {
            let (rx, ry, c) = cond_fields(cond);
            encode_fmt2(op, rx, ry, c, 0, 0)
        }
        Inst::Call { target, num } => encode_fmt2(op, 0, 0, 0, target.addr(), u32::from(*num)),
        Inst::CallC { cond, target, num }
        | Inst::IfC {
            cond,
            dst: target,
            num,
        } => {
            let (rx, ry, c) = cond_fields(cond);
            encode_fmt2(op, rx, ry, c, target.addr(), u32::from(*num))
        }
        Inst::JmpC { cond, target } => {
            let (rx, ry, c) = cond_fields(cond);
            encode_fmt2(op, rx, ry, c, target.addr(), 0)
        }
        Inst::CallU { b, target, num }
        | Inst::IfU {
            b,
            dst: target,
            num,
        } => encode_fmt3(op, u32::from(b.index()), target.addr(), u32::from(*num)),
        Inst::JmpU {
            b,
            if_false,
            target,
        } => encode_fmt3(
            op,
            u32::from(b.index()),
            target.addr(),
            u32::from(*if_false),
        ),
        Inst::Loop { i, last } => encode_fmt3(op, u32::from(i.index()), last.addr(), 0),
        Inst::SetEmit {
            vertex,
            primitive,
            winding,
        } => encode_fmt4(
            u32::from(*vertex),
            u32::from(*primitive),
            u32::from(*winding),
        ),
    })
}

/// Encodes a vertex program of at most [`limits::MAX_VERTEX_CODE_WORDS`] words.
pub fn encode_program(insts: &[Inst]) -> Result<EncodedProgram, EncodeError> {
    encode_program_with_limit(insts, limits::MAX_VERTEX_CODE_WORDS)
}

/// Encodes a program of at most `max_words` words (at most [`limits::MAX_CODE_WORDS`]):
/// allocates operand descriptors in instruction order with picasso's first-fit sharing and MAD
/// swap, then packs every word. The descriptor table is returned in picasso's order.
pub fn encode_program_with_limit(
    insts: &[Inst],
    max_words: usize,
) -> Result<EncodedProgram, EncodeError> {
    let limit = max_words.min(limits::MAX_CODE_WORDS);
    if insts.len() > limit {
        return Err(EncodeError::TooManyWords {
            words: insts.len(),
            limit,
        });
    }
    let mut table = DescTable::new();
    let mut ids: Vec<usize> = Vec::with_capacity(insts.len());
    for (index, inst) in insts.iter().enumerate() {
        inst.validate()
            .map_err(|source| EncodeError::Inst { index, source })?;
        let Some(req) = opdesc::request(inst) else {
            ids.push(0);
            continue;
        };
        let (id, swap) = table.alloc(req).map_err(|e| match e {
            AllocError::Full => EncodeError::TooManyDescriptors {
                index,
                limit: limits::MAX_OPERAND_DESCRIPTORS,
            },
            AllocError::NoMadSlot => EncodeError::MadDescriptor { index },
        })?;
        if let Some(swap) = swap {
            // Renumber the non-MAD instructions, as picasso's swapOpdesc does.
            for (prev, pid) in insts.iter().zip(ids.iter_mut()) {
                if prev.uses_descriptor() && !matches!(prev, Inst::Mad { .. }) {
                    if *pid == swap.low {
                        *pid = swap.high;
                    } else if *pid == swap.high {
                        *pid = swap.low;
                    }
                }
            }
        }
        ids.push(id);
    }
    let code = insts
        .iter()
        .zip(&ids)
        .enumerate()
        .map(|(index, (inst, &id))| {
            encode_inst(inst, id).map_err(|e| match e {
                EncodeError::Inst { source, .. } => EncodeError::Inst { index, source },
                other => other,
            })
        })
        .collect::<Result<Vec<u32>, EncodeError>>()?;
    Ok(EncodedProgram {
        code,
        descriptors: table.into_entries(),
    })
}

#[cfg(test)]
#[cfg(feature = "asm")]
#[path = "encode_tests.rs"]
mod encode_tests;
