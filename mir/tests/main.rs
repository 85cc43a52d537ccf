//! The integration tests of `mir`, as one test binary: each file of this folder is a
//! module of it.

mod filetests;
