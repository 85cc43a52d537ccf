//! The integration tests of `machine`, as one test binary: each file of this folder is a
//! module of it.

mod toy_isa;
