//! The rules this back end's diagnostics name, and whose fault breaking each is.

use mir::Fault;

/// A rule of the PICA200 code generator (`pica.*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// `pica.stage`: the PICA200 runs vertex and geometry programs only.
    Stage,
    /// `pica.geometry`: what a geometry program must be (its input mode, its emits).
    Geometry,
    /// `pica.interface`: an input or output the PICA200's registers cannot hold as declared.
    Interface,
    /// `pica.output-dropped` (a warning): an output no semantic carries to the rasteriser.
    OutputDropped,
    /// `pica.control-flow`: control flow the PICA200's instructions cannot express.
    ControlFlow,
    /// `pica.unsupported`: an operation the PICA200 cannot do.
    Unsupported,
    /// `pica.limit`: the program does not fit the PICA200 (words, registers, descriptors).
    Limit,
    /// `pica.fragment`: a fragment program the texture combiners cannot compute.
    Fragment,
    /// `pica.internal`: the code generator broke one of its own rules (a bug).
    Internal,
}

impl mir::diag::Rule for Rule {
    fn id(self) -> &'static str {
        match self {
            Rule::Stage => "pica.stage",
            Rule::Geometry => "pica.geometry",
            Rule::Interface => "pica.interface",
            Rule::OutputDropped => "pica.output-dropped",
            Rule::ControlFlow => "pica.control-flow",
            Rule::Unsupported => "pica.unsupported",
            Rule::Limit => "pica.limit",
            Rule::Fragment => "pica.fragment",
            Rule::Internal => "pica.internal",
        }
    }

    fn fault(self) -> Fault {
        match self {
            Rule::Limit => Fault::Limit,
            Rule::Internal => Fault::Internal,
            _ => Fault::Unsupported,
        }
    }
}

/// A rule of picasso's assembler and linker (`picasso.*`), which picasso sources and links
/// break.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PicassoRule {
    /// `picasso.syntax`: a line that does not parse.
    Syntax,
    /// `picasso.operand`: an operand the instruction cannot take.
    Operand,
    /// `picasso.block`: `.proc`/`.if`/`.else`/`.end` blocks that do not match.
    Block,
    /// `picasso.symbol`: a name undefined or defined twice.
    Symbol,
    /// `picasso.directive`: a directive used wrongly.
    Directive,
    /// `picasso.padding` (a warning, with `-n`): a place that needs picasso's padding NOP.
    Padding,
    /// `picasso.link`: sources and compiled shaders that cannot be linked into one file.
    Link,
    /// `picasso.limit`: more than the PICA200 or the file format holds.
    Limit,
    /// `picasso.internal`: the assembler broke one of its own rules (a bug).
    Internal,
}

impl mir::diag::Rule for PicassoRule {
    fn id(self) -> &'static str {
        match self {
            PicassoRule::Syntax => "picasso.syntax",
            PicassoRule::Operand => "picasso.operand",
            PicassoRule::Block => "picasso.block",
            PicassoRule::Symbol => "picasso.symbol",
            PicassoRule::Directive => "picasso.directive",
            PicassoRule::Padding => "picasso.padding",
            PicassoRule::Link => "picasso.link",
            PicassoRule::Limit => "picasso.limit",
            PicassoRule::Internal => "picasso.internal",
        }
    }

    fn fault(self) -> Fault {
        match self {
            PicassoRule::Limit => Fault::Limit,
            PicassoRule::Internal => Fault::Internal,
            _ => Fault::Input,
        }
    }
}
