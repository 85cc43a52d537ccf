//! The PICA200 back end (Nintendo 3DS vertex programs, `.shbin`).
//!
//! Not written yet: instruction selection, register allocation, the shbin writer, the
//! disassembler and the simulator arrive with the back-end issue. The crate exists so that the
//! workspace has the shape of the design from the start.
#![deny(missing_docs)]
