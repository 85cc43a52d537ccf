//! The integration tests of `backend-agal`, as one test binary: each file of this folder is a
//! module of it, `common` their shared helpers.

mod common;
mod encode_table;
mod golden;
mod robustness;
mod sim;
mod validate_golden;
mod validate_rules;
