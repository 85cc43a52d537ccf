//! The error types of the machine layer, one per concern: operand rules of a single instruction
//! ([`InstError`]), program encoding ([`EncodeError`]), word decoding ([`DecodeError`]) and the
//! `.shbin` container ([`ReadError`], [`WriteError`]).
//!
//! All of them describe bad input (an instruction the hardware cannot encode, a malformed file),
//! never a bug in this crate; messages are short and lower-case.

use crate::inst::BinaryOp;
use crate::operand::SrcReg;

/// An operand rule of one instruction is broken (the instruction cannot be encoded as given).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InstError {
    /// A constant register in a source field that has only 5 bits (v/r only).
    #[error("{reg} cannot be {slot} here: that field has 5 bits and holds only v0-v15 and r0-r15")]
    ConstInNarrowSlot {
        /// `src1`, `src2` or `src3`.
        slot: &'static str,
        /// The register.
        reg: SrcReg,
    },
    /// A relative index on a source whose field has no index bits in this form.
    #[error("{slot} cannot be relatively addressed in this form")]
    IndexInNarrowSlot {
        /// `src1`, `src2` or `src3`.
        slot: &'static str,
    },
    /// A relative index on an input or temporary register (the hardware ignores it).
    #[error("relative addressing applies only to constant registers, not {reg} ({slot})")]
    IndexOnNonConstant {
        /// `src1`, `src2` or `src3`.
        slot: &'static str,
        /// The register.
        reg: SrcReg,
    },
    /// The inverted (1i) form was asked of an operation that has none.
    #[error("{op:?} has no inverted form (only DPH, DST, SGE and SLT have one)")]
    NoInvertedForm {
        /// The operation.
        op: BinaryOp,
    },
    /// Two different input registers in one instruction (the hardware reads one per cycle).
    #[error("one instruction cannot read two different input registers ({a} and {b})")]
    TwoInputs {
        /// The first input register.
        a: SrcReg,
        /// The second input register.
        b: SrcReg,
    },
    /// SETEMIT's vertex id has 2 bits.
    #[error("setemit vertex id {0} does not fit in 2 bits")]
    EmitVertex(u8),
}

/// A program cannot be encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// Instruction `index` breaks an operand rule.
    #[error("instruction {index}: {source}")]
    Inst {
        /// Position in the program.
        index: usize,
        /// The broken rule.
        source: InstError,
    },
    /// The program has more words than the code memory.
    #[error("program has {words} words; the limit is {limit}")]
    TooManyWords {
        /// Words in the program.
        words: usize,
        /// The limit that applies.
        limit: usize,
    },
    /// The operand-descriptor table would exceed 128 entries.
    #[error("instruction {index} needs operand descriptor number {limit}; the table holds {limit}")]
    TooManyDescriptors {
        /// The instruction that needed one more.
        index: usize,
        /// The table's size limit.
        limit: usize,
    },
    /// A MAD needs a descriptor below 32 and every one of those is already used by a MAD.
    #[error("instruction {index}: no operand descriptor below 32 is free for a MAD")]
    MadDescriptor {
        /// The MAD.
        index: usize,
    },
    /// A descriptor number given to [`crate::encode::encode_inst`] does not fit its field.
    #[error("operand descriptor {desc} does not fit the {bits}-bit field")]
    DescriptorField {
        /// The number given.
        desc: usize,
        /// The field's width.
        bits: u32,
    },
}

/// A code word cannot be decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The opcode field names no instruction.
    #[error("word {word:#010X}: unknown opcode {opcode:#04X}")]
    UnknownOpcode {
        /// The word.
        word: u32,
        /// Its 6-bit opcode.
        opcode: u8,
    },
    /// The word names an operand descriptor the table does not have.
    #[error("word {word:#010X}: operand descriptor {desc} is beyond the table's {count} entries")]
    MissingDescriptor {
        /// The word.
        word: u32,
        /// The descriptor number.
        desc: usize,
        /// Entries in the table.
        count: usize,
    },
}

/// A `.shbin` file is malformed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// A structure runs past the end of the file.
    #[error(
        "{what} at byte {offset:#X} ({len} bytes) runs past the end of the file ({size} bytes)"
    )]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Its offset.
        offset: usize,
        /// Its length.
        len: usize,
        /// The file's size.
        size: usize,
    },
    /// A magic number is wrong.
    #[error("{what}: expected magic {expected:#010X}, found {found:#010X}")]
    BadMagic {
        /// Which header.
        what: &'static str,
        /// The magic expected.
        expected: u32,
        /// The word found.
        found: u32,
    },
    /// A field holds a value outside its range.
    #[error("{what}: {value:#X} is out of range")]
    BadValue {
        /// The field.
        what: &'static str,
        /// The value.
        value: u64,
    },
    /// A symbol name is not NUL-terminated inside the symbol table, or not UTF-8.
    #[error("uniform {index}: bad symbol at offset {offset:#X}")]
    BadSymbol {
        /// The uniform-table entry.
        index: usize,
        /// Its symbol offset.
        offset: u32,
    },
}

/// A [`crate::shbin::ShaderBinary`] cannot be written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// Too many words, descriptors, DVLEs or table entries.
    #[error("{what}: {count} is more than the limit {limit}")]
    TooMany {
        /// What overflowed.
        what: &'static str,
        /// How many there are.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// A DVLE's entry range lies outside the code.
    #[error("DVLE {index}: entry range {start}..{end} is not inside the {words} code words")]
    EntryRange {
        /// The DVLE.
        index: usize,
        /// Entry start.
        start: u32,
        /// Entry end (exclusive).
        end: u32,
        /// Code words.
        words: usize,
    },
    /// A uniform name contains a NUL byte.
    #[error("uniform name {0:?} contains a NUL byte")]
    NulInName(String),
    /// A value does not fit its field.
    #[error("{what}: {value:#X} does not fit")]
    BadValue {
        /// The field.
        what: &'static str,
        /// The value.
        value: u64,
    },
}
