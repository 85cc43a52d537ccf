//! Analyses: what the passes and the back ends ask of a function without changing it. The
//! rewrites that use them live in [`crate::passes`].
//!
//! - [`cfg`](mod@cfg): reverse post-order and dominators;
//! - [`regions`]: the structured constructs and how they nest;
//! - [`liveness`]: values live at once (register pressure);
//! - [`finite`]: values that may be infinite or NaN;
//! - [`trips`]: loops with a trip count known at compile time;
//! - [`constants`]: lanes known at compile time;
//! - [`cost`]: instructions weighted by the trips of the loops around them.

pub mod cfg;
pub mod constants;
pub mod cost;
pub mod finite;
pub mod liveness;
pub mod regions;
pub mod trips;
