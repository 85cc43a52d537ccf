//! Compile SPIR-V shaders (from glslang, shaderc, DXC, naga, Slang, rust-gpu) for two GPUs
//! people still ship on: the Nintendo 3DS's **PICA200** (a `.shbin` that libctru's
//! `DVLB_ParseFile` and citro3d load) and Stage3D's **AGAL** 1–3 (bytes for
//! `Program3D.upload`, with a reflection saying which constant registers to fill).
//!
//! - [`compile`] takes a [`Source`] (SPIR-V binary or assembly text; GLSL and WGSL with the
//!   `glsl` and `wgsl` features, on by default) and [`Options`] and gives a [`Compiled`]
//!   program: bytes, listing and [`Reflection`], or an [`Error`] that renders the same
//!   diagnostic as the command-line compilers. Nothing in the library prints, exits or panics on bad input.
//! - [`build::Shaders`] does it from a build script, writing the programs into `OUT_DIR`
//!   and a Rust module with a constant per uniform.
//! - [`glue`] writes a typed Haxe (OpenFL) or ActionScript 3 (AIR) class for an AGAL program
//!   pair: its bytes, `upload`, a setter per uniform by name.
//! - The `spv2pica`, `spv2agal` and `spv2retro` binaries (the `spv2retro-cli` package) are
//!   thin wrappers over this API.
//!
//! The guides in the repository's `docs/` folder go from a fresh clone to a program for each
//! platform: `docs/3ds-rust.md` for this crate in a 3DS homebrew crate (the build helper,
//! `include_shader!`), `docs/stage3d.md` for Stage3D; `docs/conventions.md` is the contract
//! on where everything goes, and `docs/targets.md` says what compiles for each target.
//!
//! ```
//! use spv2retro::{Options, Profile, Source, Stage, compile};
//!
//! // A fragment shader that outputs a uniform colour, as SPIR-V assembly text.
//! let text = "
//!                OpCapability Shader
//!                OpMemoryModel Logical GLSL450
//!                OpEntryPoint Fragment %main \"main\" %color
//!                OpExecutionMode %main OriginUpperLeft
//!                OpName %tint \"tint\"
//!                OpDecorate %color Location 0
//!                OpDecorate %tint Location 0
//!        %void = OpTypeVoid
//!          %fn = OpTypeFunction %void
//!       %float = OpTypeFloat 32
//!        %vec4 = OpTypeVector %float 4
//!      %out_ty = OpTypePointer Output %vec4
//!      %uni_ty = OpTypePointer UniformConstant %vec4
//!       %color = OpVariable %out_ty Output
//!        %tint = OpVariable %uni_ty UniformConstant
//!        %main = OpFunction %void None %fn
//!       %entry = OpLabel
//!           %t = OpLoad %vec4 %tint
//!                OpStore %color %t
//!                OpReturn
//!                OpFunctionEnd
//! ";
//! let options = Options::agal(Profile::Baseline).stage(Stage::Fragment);
//! let program = compile(Source::spirv_text(text).named("tint.spvasm"), &options)?;
//! assert_eq!(program.bytes[0], 0xa0); // the AGAL header
//! assert_eq!(program.reflection.uniforms[0].register, "fc0");
//! assert!(program.listing.contains("mov oc, fc0"));
//! # Ok::<(), spv2retro::Error>(())
//! ```

#![warn(missing_docs)]

pub mod build;
mod compile;
mod error;
pub mod glue;
pub mod layout;
pub mod picasso;
pub mod rules;
mod source;
pub mod variants;

pub use compile::{
    Compiled, Options, Profile, Runtime, SamplerFlags, Semantic, Target, check_link, compile,
    compile_pair, mir_text, mir_text_after, pipeline_text, stage_of,
};
pub use error::{Error, ErrorKind, REPORT_BUGS_AT, run_tool};
pub use source::{Language, Source};

/// The SPIR-V (1.0, little-endian bytes) a GLSL shader for `stage` becomes on its way in: what
/// [`compile`] compiles for [`Source::glsl`], exactly (naga's GLSL front end and SPIR-V writer
/// with this project's settings: every name kept in every build profile, no coordinate
/// flip, no WebGPU loop bounding). For tools and tests that want the intermediate module.
#[cfg(feature = "glsl")]
pub fn spirv_from_glsl(text: &str, stage: Stage) -> Result<Vec<u8>, Error> {
    frontend_glsl::glsl(text, stage, "<input>", &Default::default())
        .map(|g| g.words)
        .map_err(|r| Error::from_source(r, "<input>", text))
}

/// The SPIR-V a WGSL module becomes on its way in (see [`spirv_from_glsl`]).
#[cfg(feature = "wgsl")]
pub fn spirv_from_wgsl(text: &str) -> Result<Vec<u8>, Error> {
    frontend_glsl::wgsl(text, "<input>").map_err(|r| Error::from_source(r, "<input>", text))
}
pub use frontend_spirv::entry::Stage;
/// The reflection's parts (inputs, outputs, uniforms, samplers, a fragment program's
/// `texenv` …), for reading a [`Reflection`].
pub use machine::reflect;
pub use machine::reflect::Reflection;
pub use mir::{Diagnostic, Diagnostics, Fault};

/// The Rust code of the guides in `docs/`, compiled (and run, unless marked `no_run`) as doc
/// tests, so that the pages cannot drift from the API. `tools/tests/guides.rs` checks that
/// every page with a Rust block is included here.
#[cfg(doctest)]
mod guides {
    #[doc = include_str!("../../docs/3ds-rust.md")]
    struct Rust;
    #[doc = include_str!("../../docs/stage3d.md")]
    struct Stage3d;
}
