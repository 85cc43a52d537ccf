//! The AGAL back end's machine layer: everything about Stage3D programs that does not depend
//! on the compiler's IR.
//!
//! ```text
//!  Inst (typed, checked) ──► Program::encode ──► bytes ──► validate(bytes, profile)
//!        ▲                                                │            (Flash's rules and
//!        │                                                │             error numbers)
//!  asm::assemble (AGALMiniAssembler syntax)               ├──► disasm::listing
//!                                                         └──► sim (decode, then execute)
//! ```
//!
//! - [`opcode`]: the 2015 opcode table; [`limits`]: every profile's limits.
//! - [`operand`], [`sampler`], [`Inst`], [`Program`]: the typed program and its exact
//!   byte encoding (7-byte header, 24-byte tokens).
//! - [`validate()`]: Flash Player's upload-time validation, run on bytes, reporting Flash's
//!   error numbers; [`validate_pair`] adds the vertex–fragment linkage rules.
//! - [`disasm::listing`] and `asm::assemble` (feature `asm`): AGALMiniAssembler text, both
//!   ways.
//! - `sim` (feature `sim`): a float32 interpreter for vertex and fragment programs, with a
//!   texture trait. The assembler and the simulator are tools: a build script that only
//!   compiles shaders does not build them.
//! - [`codegen`]: the compiler proper, MIR to a [`Program`] for a [`Profile`] (selection,
//!   regalloc2, structured emission, literal pool, reflection), every program checked by
//!   [`validate()`] before it is returned.
//!
//! Invariants: library code never panics on input (decoders and the validator return typed
//! errors) and never prints.
#![deny(missing_docs)]

#[cfg(feature = "asm")]
pub mod asm;
pub mod codegen;
pub mod disasm;
mod header;
mod inst;
pub mod limits;
pub mod opcode;
pub mod operand;
mod program;
pub mod rules;
pub mod sampler;
#[cfg(feature = "sim")]
pub mod sim;
mod token;
pub mod validate;

pub use header::{HEADER_LEN, Header, Stage, TOKEN_LEN, Version};
pub use inst::{Inst, Operand2, ShapeError};
pub use limits::{Limits, Profile};
pub use opcode::{Opcode, Shape};
pub use operand::{Address, Component, Dest, Indirect, Mask, RegType, Source, Swizzle};
pub use program::{DecodeError, DecodeErrorKind, Field, Program};
pub use rules::{AsmRule, CodegenRule};
pub use sampler::Sampler;
pub use validate::{Info, validate, validate_pair};
