//! The middle of the compiler: what every stage shares.
//!
//! ```text
//! SPIR-V bytes/text ──► frontend-spirv ──► mir ──► backend-pica ──► .shbin
//!                        (load, validate,         └► backend-agal ──► .agal
//!                         lower)
//! ```
//!
//! Today this crate holds the pieces that all stages need before the IR itself exists:
//! [`Span`] (where in the SPIR-V input something came from) and [`Diagnostic`] (an error or
//! warning that points at an instruction, names the rule it breaks and renders the same way in
//! the CLI and the library).
#![deny(missing_docs)]

pub mod diag;
pub mod span;

pub use diag::{Diagnostic, Diagnostics, Severity};
pub use span::{SourcePos, Span};
