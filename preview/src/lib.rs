//! Seeing a compiled shader run without the hardware: a program's bytes and its reflection
//! (docs/conventions.md) are all this crate reads, so it drives a program exactly as an
//! application does, by name.
//!
//! - [`drive`]: one run of a program in its target's simulator, inputs and uniforms given by
//!   name (defaults: zeros, identity matrices), every output read back by name;
//! - [`mesh`]: the built-in meshes (cube, sphere, quad) and Wavefront OBJ files;
//! - [`texture`]: built-in textures (a checkerboard and a gradient), PNG in and out;
//! - [`combiners`]: the PICA200's fragment stage (the texture combiners) as its command list
//!   and reflection set it up;
//! - [`raster`] and [`mod@render`]: a vertex program transforming a mesh, a fragment program
//!   shading a full-screen quad or that mesh, into deterministic RGBA pixels.

pub mod combiners;
pub mod drive;
pub mod mesh;
pub mod raster;
pub mod render;
pub mod texture;

pub use drive::{Emitted, Outputs, Program, Value, Values, run};
pub use render::{Frame, Scene, render};

/// Why a program could not be run or drawn.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A name or value given by the user does not fit the program.
    #[error("{0}")]
    Usage(String),
    /// The simulator stopped (a step limit, an output written twice, …).
    #[error("the simulator stopped: {0}")]
    Simulator(String),
    /// The bytes or reflection are not a program this crate knows.
    #[error("{0}")]
    Program(String),
    /// A file could not be read or written.
    #[error("{0}")]
    Io(String),
}
