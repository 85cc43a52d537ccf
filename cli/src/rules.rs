//! The rules the library's own diagnostics name (the front end's, the back ends' and
//! picasso's are theirs), and whose fault breaking each is.

use mir::Fault;

/// A rule of the library's input handling and tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// `glsl.classic`: classic GLSL the rewriter to Vulkan-style GLSL cannot take.
    GlslClassic,
    /// `glsl.extension-ignored` (a warning): an `#extension` the compiler does not need.
    GlslExtensionIgnored,
    /// `glsl.matrix-layout`: a matrix layout qualifier where the targets cannot honour it.
    GlslMatrixLayout,
    /// `naga.glsl`: GLSL that naga's front end rejects.
    NagaGlsl,
    /// `naga.wgsl`: WGSL that naga's front end rejects.
    NagaWgsl,
    /// `pipeline.option`: `--after` names no step, or a step several share.
    PipelineOption,
    /// `compiler.internal`: the compiler stopped on a bug (a panic caught at the library's
    /// door).
    CompilerInternal,
}

impl mir::diag::Rule for Rule {
    fn id(self) -> &'static str {
        match self {
            Rule::GlslClassic => "glsl.classic",
            Rule::GlslExtensionIgnored => "glsl.extension-ignored",
            Rule::GlslMatrixLayout => "glsl.matrix-layout",
            Rule::NagaGlsl => "naga.glsl",
            Rule::NagaWgsl => "naga.wgsl",
            Rule::PipelineOption => "pipeline.option",
            Rule::CompilerInternal => "compiler.internal",
        }
    }

    fn fault(self) -> Fault {
        match self {
            Rule::NagaGlsl | Rule::NagaWgsl | Rule::PipelineOption => Fault::Input,
            Rule::CompilerInternal => Fault::Internal,
            Rule::GlslClassic | Rule::GlslExtensionIgnored | Rule::GlslMatrixLayout => {
                Fault::Unsupported
            }
        }
    }
}
