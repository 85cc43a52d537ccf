//! The PICA200 back end (Nintendo 3DS vertex programs, `.shbin`).
//!
//! This crate's machine layer knows nothing of the compiler's IR; instruction selection produces
//! [`Inst`] values with physical registers and hands them to it:
//!
//! ```text
//!  Vec<Inst> ──► encode::encode_program ──► code words + operand descriptors (picasso's order)
//!                                                │
//!  DVLE tables (constants, outputs, uniforms) ───┴──► ShaderBinary ──► shbin::write ──► bytes
//!
//!  bytes ──► shbin::read ──► ShaderBinary ──► disasm::listing ──► picasso text ──► asm::assemble
//!  bytes ──► sim::Simulator ──► outputs o0–o15
//! ```
//!
//! What holds here:
//! - an [`Inst`] is validated before it is encoded: constants only in wide source slots, relative
//!   addressing only on constant registers, one input register per instruction;
//! - operand descriptors are allocated and shared exactly as picasso 2.7.1 allocates them, and
//!   the container is laid out exactly as picasso writes it, so a program assembled by
//!   [`asm::assemble`] from picasso syntax is byte-identical to picasso's own `.shbin`;
//! - nothing panics on input or prints: readers and decoders return typed errors.
//!
//! Modules: [`operand`] and [`inst`] (the instruction type and its checked constructors),
//! [`opdesc`] and [`encode`] (descriptor sharing and instruction words), [`decode`],
//! [`shbin`] (the container), [`padding`] (where flow control needs a NOP, for the assembler and
//! the code generator alike), [`syntax`] (what picasso reads as a name), `asm` (picasso's
//! syntax; feature `asm`), [`disasm`] (listings), `sim` (the simulator; feature `sim`),
//! [`float24`], [`limits`], [`error`]. The assembler and the simulator are tools: a build
//! script that only compiles shaders does not build them.
#![deny(missing_docs)]

#[cfg(feature = "asm")]
pub mod asm;
pub mod codegen;
pub mod decode;
pub mod disasm;
pub mod encode;
pub mod error;
pub mod float24;
pub mod fragment;
pub mod inst;
pub mod limits;
pub mod opdesc;
pub mod operand;
pub mod padding;
pub mod rules;
pub mod shbin;
#[cfg(feature = "sim")]
pub mod sim;
pub mod syntax;

pub use error::{DecodeError, EncodeError, InstError, ReadError, WriteError};
pub use float24::F24;
pub use inst::{BinaryOp, Form, Inst, Opcode, UnaryOp};
pub use operand::{
    BoolReg, CmpOp, Component, CondOp, Condition, Dest, DstReg, IntReg, Mask, RelIndex, Source,
    SrcReg, Swizzle, Target,
};
pub use rules::{PicassoRule, Rule};
pub use shbin::ShaderBinary;
