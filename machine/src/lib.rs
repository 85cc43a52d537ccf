//! The vec4 machine layer: what the PICA200 and AGAL back ends share between MIR and their
//! instruction sets (as Cranelift's `machinst` is to its ISAs).
//!
//! ```text
//! mir::Module ──► select (driver + the ISA's hooks) ──► VCode<I> ──► retry::allocate
//!     (regalloc2; lane packing, rematerialisation when registers run out) ──► the ISA's
//!     emit (laid out by structured::Walk) and encode ──► reflect (the JSON of docs/conventions.md)
//! ```
//!
//! - [`inst`]: what a virtual instruction writes and what allocation asks of it;
//! - [`vcode`]: virtual code in MIR's block layout, run through regalloc2;
//! - [`lower`]: the lowering state a selector embeds (code, registers, errors, places,
//!   the per-block copies);
//! - [`select`]: the selection driver (block parameters, blocks and split edges in order,
//!   block arguments) and value placement (values computed straight into an output or into
//!   the lanes of the vector a construct builds);
//! - [`structured`]: the walk over regions that machine code is laid out by;
//! - [`pool`]: the literal pool;
//! - [`lanes`]: lane packing (small independent values share a register's lanes);
//! - [`retry`]: allocation, and what is tried when the values do not fit the registers;
//! - [`reflect`]: the reflection both targets write, and its builder.
//!
//! A back end is its instruction set's hooks on these, plus its own machine code: encoder,
//! container, assembler, disassembler and simulator.
#![deny(missing_docs)]

pub mod inst;
pub mod lanes;
pub mod lower;
pub mod pool;
pub mod reflect;
pub mod retry;
pub mod select;
pub mod structured;
pub mod vcode;
