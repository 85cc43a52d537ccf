//! The integration tests of `spv2retro`, as one test binary: each file of this folder is a
//! module of it.

mod api;
