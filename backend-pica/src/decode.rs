//! Decoding code words back into [`Inst`] values, with the swizzles, negations and write masks of
//! the operand descriptors they name.
//!
//! Decoding is total over valid opcodes: every register field maps to a register, every
//! descriptor to its fields. Bits an encoding leaves unused (the src2 field of a one-source
//! instruction, NUM of a JMPC, …) are not represented, so [`decode_word`] followed by
//! [`crate::encode::encode_inst`] gives back the word exactly when those bits are zero, as
//! picasso writes them; [`Decoded::reencodes`] tells.

use crate::encode;
use crate::error::DecodeError;
use crate::inst::{BinaryOp, Form, Inst, Opcode, UnaryOp};
use crate::opdesc::DescFields;
use crate::operand::{
    BoolReg, CmpOp, CondOp, Condition, Dest, DstReg, IntReg, RelIndex, Source, SrcReg, Target,
};

/// A decoded word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The instruction.
    pub inst: Inst,
    /// The operand descriptor it names, if any.
    pub desc: Option<usize>,
    /// The word it came from.
    pub word: u32,
}

impl Decoded {
    /// Whether encoding the instruction again gives the same word (false when the word has bits
    /// set that its format leaves unused).
    pub fn reencodes(&self) -> bool {
        encode::encode_inst(&self.inst, self.desc.unwrap_or(0)).ok() == Some(self.word)
    }
}

fn field(word: u32, shift: u32, bits: u32) -> u32 {
    (word >> shift) & ((1 << bits) - 1)
}

fn src(raw: u32, (negate, swizzle): (bool, crate::operand::Swizzle), index: RelIndex) -> Source {
    // A 7-bit field always names a register; a 5-bit one a v or r register.
    let reg = SrcReg::from_raw(raw as u8).unwrap_or(SrcReg::Input(0));
    Source {
        reg,
        swizzle,
        negate,
        index,
    }
}

fn dst(raw: u32, fields: &DescFields) -> Dest {
    let reg = DstReg::from_raw(raw as u8).unwrap_or(DstReg::Output(0));
    Dest {
        reg,
        mask: fields.mask,
    }
}

fn condition(word: u32) -> Condition {
    Condition {
        op: CondOp::from_raw(field(word, 22, 2) as u8),
        ref_x: field(word, 25, 1) == 1,
        ref_y: field(word, 24, 1) == 1,
    }
}

fn bool_reg(word: u32) -> BoolReg {
    BoolReg::from_field(field(word, 22, 4) as u8)
}

/// Decodes `word`, reading operand descriptors from `descs`.
pub fn decode_word(word: u32, descs: &[u32]) -> Result<Decoded, DecodeError> {
    let opcode = Opcode::of_word(word).ok_or(DecodeError::UnknownOpcode {
        word,
        opcode: (word >> 26) as u8,
    })?;
    let desc_bits = if matches!(opcode, Opcode::Mad | Opcode::Madi) {
        5
    } else {
        7
    };
    let desc_id = field(word, 0, desc_bits) as usize;
    let fields = || -> Result<DescFields, DecodeError> {
        descs
            .get(desc_id)
            .map(|&d| DescFields::unpack(d))
            .ok_or(DecodeError::MissingDescriptor {
                word,
                desc: desc_id,
                count: descs.len(),
            })
    };
    let binary = |op: BinaryOp, form: Form| -> Result<Inst, DecodeError> {
        let f = fields()?;
        let d = dst(field(word, 21, 5), &f);
        Ok(match form {
            Form::Normal => {
                let idx = RelIndex::from_raw(field(word, 19, 2) as u8);
                Inst::Binary {
                    op,
                    form,
                    dst: d,
                    src1: src(field(word, 12, 7), f.src[0], idx),
                    src2: src(field(word, 7, 5), f.src[1], RelIndex::None),
                }
            }
            Form::Inverted => {
                let idx = RelIndex::from_raw(field(word, 19, 2) as u8);
                Inst::Binary {
                    op,
                    form,
                    dst: d,
                    src1: src(field(word, 14, 5), f.src[0], RelIndex::None),
                    src2: src(field(word, 7, 7), f.src[1], idx),
                }
            }
        })
    };
    let unary = |op: UnaryOp| -> Result<Inst, DecodeError> {
        let f = fields()?;
        let idx = RelIndex::from_raw(field(word, 19, 2) as u8);
        Ok(Inst::Unary {
            op,
            dst: dst(field(word, 21, 5), &f),
            src: src(field(word, 12, 7), f.src[0], idx),
        })
    };
    let num = field(word, 0, 8) as u8;
    let dst_target = Target::from_field(field(word, 10, 12));
    use Opcode as O;
    let inst = match opcode {
        O::Add => binary(BinaryOp::Add, Form::Normal)?,
        O::Dp3 => binary(BinaryOp::Dp3, Form::Normal)?,
        O::Dp4 => binary(BinaryOp::Dp4, Form::Normal)?,
        O::Dph => binary(BinaryOp::Dph, Form::Normal)?,
        O::Dst => binary(BinaryOp::Dst, Form::Normal)?,
        O::Mul => binary(BinaryOp::Mul, Form::Normal)?,
        O::Sge => binary(BinaryOp::Sge, Form::Normal)?,
        O::Slt => binary(BinaryOp::Slt, Form::Normal)?,
        O::Max => binary(BinaryOp::Max, Form::Normal)?,
        O::Min => binary(BinaryOp::Min, Form::Normal)?,
        O::Dphi => binary(BinaryOp::Dph, Form::Inverted)?,
        O::Dsti => binary(BinaryOp::Dst, Form::Inverted)?,
        O::Sgei => binary(BinaryOp::Sge, Form::Inverted)?,
        O::Slti => binary(BinaryOp::Slt, Form::Inverted)?,
        O::Ex2 => unary(UnaryOp::Ex2)?,
        O::Lg2 => unary(UnaryOp::Lg2)?,
        O::Litp => unary(UnaryOp::Litp)?,
        O::Flr => unary(UnaryOp::Flr)?,
        O::Rcp => unary(UnaryOp::Rcp)?,
        O::Rsq => unary(UnaryOp::Rsq)?,
        O::Mov => unary(UnaryOp::Mov)?,
        O::Mova => {
            let f = fields()?;
            let idx = RelIndex::from_raw(field(word, 19, 2) as u8);
            Inst::Mova {
                mask: f.mask,
                src: src(field(word, 12, 7), f.src[0], idx),
            }
        }
        O::Cmp => {
            let f = fields()?;
            let idx = RelIndex::from_raw(field(word, 19, 2) as u8);
            Inst::Cmp {
                src1: src(field(word, 12, 7), f.src[0], idx),
                x: CmpOp::from_raw(field(word, 24, 3) as u8),
                y: CmpOp::from_raw(field(word, 21, 3) as u8),
                src2: src(field(word, 7, 5), f.src[1], RelIndex::None),
            }
        }
        O::Mad | O::Madi => {
            let f = fields()?;
            let idx = RelIndex::from_raw(field(word, 22, 2) as u8);
            let d = dst(field(word, 24, 5), &f);
            let s1 = src(field(word, 17, 5), f.src[0], RelIndex::None);
            if opcode == O::Mad {
                Inst::Mad {
                    form: Form::Normal,
                    dst: d,
                    src1: s1,
                    src2: src(field(word, 10, 7), f.src[1], idx),
                    src3: src(field(word, 5, 5), f.src[2], RelIndex::None),
                }
            } else {
                Inst::Mad {
                    form: Form::Inverted,
                    dst: d,
                    src1: s1,
                    src2: src(field(word, 12, 5), f.src[1], RelIndex::None),
                    src3: src(field(word, 5, 7), f.src[2], idx),
                }
            }
        }
        O::Nop => Inst::Nop,
        O::End => Inst::End,
        O::Emit => Inst::Emit,
        O::Break => Inst::Break,
        O::Breakc => Inst::BreakC {
            cond: condition(word),
        },
        O::Call => Inst::Call {
            target: dst_target,
            num,
        },
        O::Callc => Inst::CallC {
            cond: condition(word),
            target: dst_target,
            num,
        },
        O::Callu => Inst::CallU {
            b: bool_reg(word),
            target: dst_target,
            num,
        },
        O::Ifc => Inst::IfC {
            cond: condition(word),
            dst: dst_target,
            num,
        },
        O::Ifu => Inst::IfU {
            b: bool_reg(word),
            dst: dst_target,
            num,
        },
        O::Jmpc => Inst::JmpC {
            cond: condition(word),
            target: dst_target,
        },
        O::Jmpu => Inst::JmpU {
            b: bool_reg(word),
            if_false: num & 1 == 1,
            target: dst_target,
        },
        O::Loop => Inst::Loop {
            i: IntReg::from_field(field(word, 22, 2) as u8),
            last: dst_target,
        },
        O::Setemit => Inst::SetEmit {
            vertex: field(word, 24, 2) as u8,
            primitive: field(word, 23, 1) == 1,
            winding: field(word, 22, 1) == 1,
        },
    };
    let desc = inst.uses_descriptor().then_some(desc_id);
    Ok(Decoded { inst, desc, word })
}

/// Decodes a whole code blob; words that do not decode give their error in place.
pub fn decode_code(code: &[u32], descs: &[u32]) -> Vec<Result<Decoded, DecodeError>> {
    code.iter().map(|&w| decode_word(w, descs)).collect()
}
