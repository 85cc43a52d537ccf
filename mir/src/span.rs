//! Positions in the SPIR-V input.
//!
//! A SPIR-V binary has no source text, so a position is the instruction's ordinal (1-based, as
//! rspirv and spirv-val count) and the offset of its first word (the header is words 0–4, so the
//! first instruction starts at word 5). When the module carries `OpLine` debug information, the
//! line in effect is kept as well, so that errors can name the shader author's own source line.

/// Where a piece of the program came from in the SPIR-V input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// 1-based number of the instruction in the module's instruction stream; 0 for the header.
    pub ordinal: u32,
    /// Offset, in 32-bit words from the start of the module, of the instruction's first word.
    pub word_offset: u32,
    /// The `OpLine` position in effect for this instruction, if any.
    pub source: Option<SourcePos>,
}

/// A position in the shader's original source, from `OpLine`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SourcePos {
    /// Index into the module's table of source file names (the `OpString`s that `OpLine` names).
    pub file: u32,
    /// Line number as the producer wrote it (1-based for glslang, DXC and naga).
    pub line: u32,
    /// Column number as the producer wrote it (0 when the producer does not track columns).
    pub column: u32,
}

impl Span {
    /// The span of the module header (no instruction).
    pub const HEADER: Span = Span {
        ordinal: 0,
        word_offset: 0,
        source: None,
    };

    /// A span for instruction `ordinal` starting at `word_offset`.
    pub fn new(ordinal: u32, word_offset: u32) -> Self {
        Span {
            ordinal,
            word_offset,
            source: None,
        }
    }
}
