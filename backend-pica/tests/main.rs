//! The integration tests of `backend-pica`, as one test binary: each file of this folder is a
//! module of it, `common` their shared helpers.

mod common;
mod golden_asm;
mod golden_decode;
mod golden_disasm;
mod golden_sim;
mod robustness;
