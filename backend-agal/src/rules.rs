//! The rules this back end's diagnostics name, and whose fault breaking each is (Flash's own
//! upload rules, which programs are validated against, are [`crate::validate::Rule`]).

use mir::Fault;

/// A rule of the AGAL code generator (`agal.*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CodegenRule {
    /// `agal.unsupported`: what no AGAL version can do (a geometry stage, a loop that cannot
    /// unroll, a kill in a vertex program …).
    Unsupported,
    /// `agal.dual-source`: two colour outputs at one location (dual-source blending).
    DualSource,
    /// `agal.unwritten-output` (a warning): a colour output the shader never writes,
    /// written with zeros.
    UnwrittenOutput,
    /// `agal.option`: an option that does not fit the program (sampler flags for a binding
    /// it lacks, flags that contradict each other).
    Option,
    /// `agal.link`: a vertex and a fragment program that do not link.
    Link,
    /// `agal.limit`: the program does not fit the profile (tokens, registers, samplers).
    Limit,
    /// `agal.internal`: the code generator broke one of its own rules (a bug).
    Internal,
}

impl mir::diag::Rule for CodegenRule {
    fn id(self) -> &'static str {
        match self {
            CodegenRule::Unsupported => "agal.unsupported",
            CodegenRule::DualSource => "agal.dual-source",
            CodegenRule::UnwrittenOutput => "agal.unwritten-output",
            CodegenRule::Option => "agal.option",
            CodegenRule::Link => "agal.link",
            CodegenRule::Limit => "agal.limit",
            CodegenRule::Internal => "agal.internal",
        }
    }

    fn fault(self) -> Fault {
        match self {
            CodegenRule::Option | CodegenRule::Link => Fault::Input,
            CodegenRule::Limit => Fault::Limit,
            CodegenRule::Internal => Fault::Internal,
            CodegenRule::Unsupported | CodegenRule::DualSource | CodegenRule::UnwrittenOutput => {
                Fault::Unsupported
            }
        }
    }
}
