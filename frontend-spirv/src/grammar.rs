//! Fast look-ups into rspirv's grammar tables.
//!
//! rspirv's `InstructionTable::lookup_opcode` is a linear search over ~700 entries; the reader
//! and the assembler look up every instruction, so we index the table once.

use mir::hash::HashMap;
use std::sync::OnceLock;

use rspirv::grammar::{INSTRUCTION_TABLE, Instruction};
use spirv::Op;

type Class = &'static Instruction<'static>;

struct Index {
    by_opcode: HashMap<u32, Class>,
    by_name: HashMap<&'static str, Class>,
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut by_opcode = HashMap::default();
        let mut by_name = HashMap::default();
        for class in INSTRUCTION_TABLE.iter() {
            by_opcode.entry(class.opcode as u32).or_insert(class);
            by_name.insert(class.opname, class);
        }
        Index { by_opcode, by_name }
    })
}

/// The grammar of `opcode`, if SPIR-V defines it.
pub fn instruction(opcode: u32) -> Option<Class> {
    index().by_opcode.get(&opcode).copied()
}

/// The grammar of the instruction named `name` (without the `Op` prefix).
///
/// rspirv's table holds each instruction under its current name only. Instructions promoted
/// from an extension keep their old names as aliases in the SPIR-V grammar
/// (`DecorateStringGOOGLE`, `DemoteToHelperInvocationEXT`, `SDotKHR`), and assemblers accept
/// them, so a name with a vendor suffix also finds the instruction without it.
pub fn instruction_by_name(name: &str) -> Option<Class> {
    let by_name = &index().by_name;
    by_name.get(name).copied().or_else(|| {
        ["KHR", "EXT", "GOOGLE", "NV", "INTEL", "AMD"]
            .iter()
            .find_map(|suffix| by_name.get(name.strip_suffix(suffix)?).copied())
    })
}

/// Whether `opcode` may be the operation of an `OpSpecConstantOp` (§3 OpSpecConstantOp: the
/// general list, the Shader addition and the Kernel additions).
pub fn spec_constant_op_allowed(opcode: u32) -> bool {
    use Op::*;
    let Some(class) = instruction(opcode) else {
        return false;
    };
    matches!(
        class.opcode,
        SConvert
            | UConvert
            | FConvert
            | SNegate
            | Not
            | IAdd
            | ISub
            | IMul
            | UDiv
            | SDiv
            | UMod
            | SRem
            | SMod
            | ShiftRightLogical
            | ShiftRightArithmetic
            | ShiftLeftLogical
            | BitwiseOr
            | BitwiseXor
            | BitwiseAnd
            | VectorShuffle
            | CompositeExtract
            | CompositeInsert
            | LogicalOr
            | LogicalAnd
            | LogicalNot
            | LogicalEqual
            | LogicalNotEqual
            | Select
            | IEqual
            | INotEqual
            | ULessThan
            | SLessThan
            | UGreaterThan
            | SGreaterThan
            | ULessThanEqual
            | SLessThanEqual
            | UGreaterThanEqual
            | SGreaterThanEqual
            | QuantizeToF16
            | ConvertFToS
            | ConvertSToF
            | ConvertFToU
            | ConvertUToF
            | ConvertPtrToU
            | ConvertUToPtr
            | GenericCastToPtr
            | PtrCastToGeneric
            | Bitcast
            | FNegate
            | FAdd
            | FSub
            | FMul
            | FDiv
            | FRem
            | FMod
            | AccessChain
            | InBoundsAccessChain
            | PtrAccessChain
            | InBoundsPtrAccessChain
    )
}
