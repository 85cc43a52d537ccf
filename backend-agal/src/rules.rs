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

/// A rule of AGALMiniAssembler text (`agal.asm`, `agal.validate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AsmRule {
    /// `agal.asm`: text AGALMiniAssembler would not assemble.
    Syntax,
    /// `agal.validate`: a program that breaks one of Flash Player's upload rules (the
    /// message names the rule's number, [`crate::validate::Rule::code`]).
    Flash,
}

impl mir::diag::Rule for AsmRule {
    fn id(self) -> &'static str {
        match self {
            AsmRule::Syntax => "agal.asm",
            AsmRule::Flash => "agal.validate",
        }
    }

    fn fault(self) -> Fault {
        Fault::Input
    }
}
