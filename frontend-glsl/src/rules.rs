//! The rules this front end's diagnostics name, and whose fault breaking each is.

use mir::Fault;

/// A rule of GLSL and WGSL input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// `glsl.classic`: classic GLSL the rewriter to Vulkan-style GLSL cannot take.
    GlslClassic,
    /// `glsl.extension-ignored` (a warning): an `#extension` the compiler does not need.
    GlslExtensionIgnored,
    /// `glsl.preprocessor`: a directive or macro the GLSL preprocessor rejects (an
    /// unknown directive, an unbalanced `#if`, a macro called with the wrong number of
    /// arguments, `#error`); as a warning, a reserved or redefined macro name.
    GlslPreprocessor,
    /// `glsl.matrix-layout`: a matrix layout qualifier where the targets cannot honour it.
    GlslMatrixLayout,
    /// `naga.glsl`: GLSL that naga's front end rejects.
    NagaGlsl,
    /// `glsl.glslang`: a GLSL geometry shader that glslang rejects.
    GlslGlslang,
    /// `naga.wgsl`: WGSL that naga's front end rejects.
    NagaWgsl,
}

impl mir::diag::Rule for Rule {
    fn id(self) -> &'static str {
        match self {
            Rule::GlslClassic => "glsl.classic",
            Rule::GlslExtensionIgnored => "glsl.extension-ignored",
            Rule::GlslMatrixLayout => "glsl.matrix-layout",
            Rule::GlslPreprocessor => "glsl.preprocessor",
            Rule::NagaGlsl => "naga.glsl",
            Rule::GlslGlslang => "glsl.glslang",
            Rule::NagaWgsl => "naga.wgsl",
        }
    }

    fn fault(self) -> Fault {
        match self {
            Rule::NagaGlsl | Rule::NagaWgsl | Rule::GlslPreprocessor | Rule::GlslGlslang => {
                Fault::Input
            }
            Rule::GlslClassic | Rule::GlslExtensionIgnored | Rule::GlslMatrixLayout => {
                Fault::Unsupported
            }
        }
    }
}
