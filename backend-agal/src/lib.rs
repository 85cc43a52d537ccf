//! The AGAL back end (Stage3D vertex and fragment programs, versions 1–3).
//!
//! Not written yet: instruction selection, register allocation, the bytecode writer, the
//! Flash-rule validator, the disassembler and the simulator arrive with the back-end issue.
//! The crate exists so that the workspace has the shape of the design from the start.
#![deny(missing_docs)]
