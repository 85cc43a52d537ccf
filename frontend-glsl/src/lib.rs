//! Source languages in: GLSL (classic, as WebGL, OpenFL and OpenGL authors write it, and
//! Vulkan-style `#version 450`) and WGSL become the SPIR-V that `frontend-spirv` loads and
//! lowers, so a project needs no glslang install.
//!
//! - [`glsl`]: classic GLSL is rewritten into the GLSL naga reads (`classic.rs`), naga's
//!   front end parses and validates it, and its SPIR-V writer writes the module. What the
//!   rewrite learns that SPIR-V cannot carry comes back beside the words: [`Hints`] for
//!   lowering (bool uniforms, row-major matrices), the names to give back in the reflection,
//!   and the author's line of each line naga read.
//! - [`wgsl`]: naga's WGSL front end and the same writer.
//!
//! Errors are [`Rejected`]: diagnostics under this crate's [`Rule`]s, at the author's line
//! and column (never the rewritten text's).

#![warn(missing_docs)]

#[cfg(feature = "glsl")]
mod classic;
#[cfg(feature = "glslang")]
mod geometry;
#[cfg(feature = "glsl")]
mod map;
#[cfg(feature = "glsl")]
mod preprocess;
mod rules;
#[cfg(any(feature = "glsl", feature = "wgsl"))]
mod to_spirv;

pub use frontend_spirv::entry::Stage;
pub use frontend_spirv::lower::{Hints, UniformHint};
pub use rules::Rule;
#[cfg(feature = "wgsl")]
pub use to_spirv::wgsl;
#[cfg(feature = "glsl")]
pub use to_spirv::{Glsl, Input, glsl};

/// The varyings a classic vertex shader declares (after preprocessing with `defines`), by
/// name, with the location the rewrite gives each: what [`Input::varyings`] takes when its
/// fragment shader is compiled as a pair.
#[cfg(feature = "glsl")]
pub fn vertex_varyings(text: &str, defines: &[(String, String)]) -> Vec<(String, u32)> {
    match preprocess::preprocess(text, Stage::Vertex, "", defines) {
        Ok(pre) => classic::vertex_varyings(&pre.text),
        Err(_) => Vec::new(),
    }
}

/// Why a source was not read.
#[derive(Clone, Debug)]
pub struct Rejected {
    /// What is wrong, and where.
    pub diagnostics: mir::Diagnostics,
    /// Whether the diagnostics point into the source text (render them against it). naga's
    /// own rendering of a WGSL error, or a refusal about the whole file, carries no range.
    pub quotes_source: bool,
}
