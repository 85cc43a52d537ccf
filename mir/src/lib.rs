//! The middle of the compiler: a target-neutral SSA IR for vec4 machines.
//!
//! ```text
//! SPIR-V ──► frontend-spirv ──► mir::Module ──► passes ──► backend-pica ──► .shbin
//!            (validate, lower)   (verify.rs)    (passes/)  backend-agal ──► .agal
//! ```
//!
//! What holds at every stage of a module's life here:
//! - values are SSA, 1 to 4 lanes of float or bool ([`types`]); every use is dominated by its
//!   definition; block parameters stand where phis would;
//! - operands carry swizzles and negate/abs modifiers ([`inst::Operand`]);
//! - the interface is explicit: inputs, uniform registers, samplers, and outputs that the
//!   entry function returns ([`module`]);
//! - structured regions (if, loop with merge and continue) sit on their header blocks
//!   ([`func::Structure`]) beside the plain CFG;
//! - every instruction keeps the [`Span`] of the SPIR-V instruction it came from.
//!
//! [`verify::verify`] checks these; [`print::print_module`] writes the IR as text and
//! [`read::read_module`] reads it back;
//! [`eval::run`] interprets it, as the reference the back ends are tested against.
#![deny(missing_docs)]

pub mod analysis;
pub mod arena;
pub mod diag;
pub mod eval;
pub mod func;
pub mod hash;
pub mod inst;
pub mod layout;
pub mod module;
pub mod passes;
pub mod print;
pub mod read;
pub mod shape;
pub mod span;
pub mod types;
pub mod verify;

pub use diag::{Diagnostic, Diagnostics, Fault, Severity};
pub use func::{Block, BlockId, Function, InstId, Terminator, Value};
pub use inst::{CmpOp, Inst, Op, Operand};
pub use module::{Module, Stage};
pub use span::{SourcePos, Span};
pub use types::{Kind, Swizzle, Ty};
