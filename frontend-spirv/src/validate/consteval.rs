//! Integer constant expressions: `OpConstant`, `OpSpecConstant` at its default value, and
//! `OpSpecConstantOp` over them. Array lengths may be such expressions
//! (`layout(constant_id = 0) const int N = 4; float a[N * 2];`), and this compiler
//! specializes every constant to its default.

use mir::hash::HashMap;

use rspirv::dr::Operand;
use spirv::{Op, Word};

use super::types::{Type, TypeTable};
use super::{Def, def_inst};
use crate::module::Module;

/// How deep a chain of `OpSpecConstantOp` may go before we give up (a valid module cannot
/// loop, but this bounds the work on any input).
const MAX_DEPTH: u32 = 64;

/// The value of integer constant `id`, if it is one we can evaluate. Results are
/// two's-complement in 64 bits, truncated to the type's 32 bits.
pub(crate) fn int_value(
    c: &Module,
    defs: &HashMap<Word, Def>,
    types: &TypeTable,
    id: Word,
) -> Option<i64> {
    eval(c, defs, types, id, 0)
}

fn eval(
    c: &Module,
    defs: &HashMap<Word, Def>,
    types: &TypeTable,
    id: Word,
    depth: u32,
) -> Option<i64> {
    if depth > MAX_DEPTH {
        return None;
    }
    let def = defs.get(&id)?;
    let signed = match types.get(def.result_type?)? {
        Type::Int { width: 32, signed } => *signed,
        Type::Bool => false,
        _ => return None,
    };
    let inst = def_inst(c, def);
    let value = match def.opcode {
        Op::Constant | Op::SpecConstant => match inst.op.operands.first()? {
            Operand::LiteralBit32(v) => i64::from(*v),
            _ => return None,
        },
        Op::ConstantNull | Op::ConstantFalse | Op::SpecConstantFalse => 0,
        Op::ConstantTrue | Op::SpecConstantTrue => 1,
        Op::SpecConstantOp => {
            let Operand::LiteralSpecConstantOpInteger(op) = inst.op.operands.first()? else {
                return None;
            };
            let arg = |i: usize| -> Option<i64> {
                match inst.op.operands.get(i)? {
                    Operand::IdRef(a) => eval(c, defs, types, *a, depth + 1),
                    _ => None,
                }
            };
            let (a, b) = (arg(1), arg(2));
            let as_u32 = |v: i64| v as u32;
            match op {
                Op::IAdd => a?.wrapping_add(b?),
                Op::ISub => a?.wrapping_sub(b?),
                Op::IMul => a?.wrapping_mul(b?),
                Op::SDiv => a?.checked_div(b?)?,
                Op::UDiv => i64::from(as_u32(a?).checked_div(as_u32(b?))?),
                Op::SRem => a?.checked_rem(b?)?,
                Op::SMod => {
                    let (a, b) = (a?, b?);
                    let r = a.checked_rem(b)?;
                    if r != 0 && (r < 0) != (b < 0) {
                        r + b
                    } else {
                        r
                    }
                }
                Op::UMod => i64::from(as_u32(a?).checked_rem(as_u32(b?))?),
                Op::SNegate => a?.wrapping_neg(),
                Op::Not => !a?,
                Op::BitwiseAnd => a? & b?,
                Op::BitwiseOr => a? | b?,
                Op::BitwiseXor => a? ^ b?,
                Op::ShiftLeftLogical => i64::from(as_u32(a?).checked_shl(as_u32(b?))?),
                Op::ShiftRightLogical => i64::from(as_u32(a?).checked_shr(as_u32(b?))?),
                Op::ShiftRightArithmetic => i64::from((a? as i32).checked_shr(as_u32(b?))?),
                Op::Select => {
                    if arg(1)? != 0 {
                        arg(2)?
                    } else {
                        arg(3)?
                    }
                }
                Op::IEqual | Op::LogicalEqual => i64::from(a? == b?),
                Op::INotEqual | Op::LogicalNotEqual => i64::from(a? != b?),
                Op::SLessThan => i64::from(a? < b?),
                Op::SGreaterThan => i64::from(a? > b?),
                Op::SLessThanEqual => i64::from(a? <= b?),
                Op::SGreaterThanEqual => i64::from(a? >= b?),
                Op::ULessThan => i64::from(as_u32(a?) < as_u32(b?)),
                Op::UGreaterThan => i64::from(as_u32(a?) > as_u32(b?)),
                Op::ULessThanEqual => i64::from(as_u32(a?) <= as_u32(b?)),
                Op::UGreaterThanEqual => i64::from(as_u32(a?) >= as_u32(b?)),
                Op::LogicalAnd => i64::from(a? != 0 && b? != 0),
                Op::LogicalOr => i64::from(a? != 0 || b? != 0),
                Op::LogicalNot => i64::from(a? == 0),
                _ => return None,
            }
        }
        _ => return None,
    };
    // Wrap to the 32-bit type.
    Some(if signed {
        i64::from(value as i32)
    } else {
        i64::from(value as u32)
    })
}
