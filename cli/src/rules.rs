//! The rules the library's own diagnostics name (the front ends', the back ends' and
//! picasso's are theirs), and whose fault breaking each is.

use mir::Fault;

/// A rule of the library's own handling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// `pipeline.option`: `--after` names no step, or a step several share.
    PipelineOption,
    /// `compiler.internal`: the compiler stopped on a bug (a panic caught at the library's
    /// door).
    CompilerInternal,
    /// `layout.pin`: a uniform a shared layout places elsewhere than it can go (another
    /// type, a component, registers another pinned uniform takes).
    Layout,
}

impl mir::diag::Rule for Rule {
    fn id(self) -> &'static str {
        match self {
            Rule::PipelineOption => "pipeline.option",
            Rule::CompilerInternal => "compiler.internal",
            Rule::Layout => "layout.pin",
        }
    }

    fn fault(self) -> Fault {
        match self {
            Rule::PipelineOption => Fault::Input,
            Rule::CompilerInternal => Fault::Internal,
            Rule::Layout => Fault::Input,
        }
    }
}
