//! Diagnostics: errors and warnings that say what is wrong, where, and which rule says so.
//!
//! Every stage reports through [`Diagnostic`], and the CLI and the library render it the same
//! way:
//!
//! ```text
//! shader.spv: error[cfg.back-edge-target]: block %15 branches back to %12, which is not a loop header
//!   --> instruction #48, word 291 (function %main, block %15)
//!    |
//!    |         OpBranch %12
//!    |         ^^^^^^^^^^^^
//!    = source: shader.frag:14:3
//!    = rule: SPIR-V §2.11 Structured Control Flow: all CFG back edges must branch to a loop header
//! ```
//!
//! The first line has the fixed form `FILE: error[RULE]: message` so that editors and scripts
//! can parse it. The rest is context for a person: the instruction (the input's own text line
//! when the input was assembly text, else the instruction disassembled), the `OpLine` source
//! position, notes, and the rule's citation. We render this ourselves rather than through
//! codespan-reporting or ariadne: both print their own header line, which cannot take the
//! `FILE: ` prefix, and both number gutter lines as source lines, which a binary does not have.

use std::fmt;
use std::ops::Range;

use crate::span::Span;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    /// The input is rejected.
    Error,
    /// The input is accepted, but something in it is ignored or suspicious.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// Whose problem a diagnostic is, so that a tool can tell a user's mistake from a bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fault {
    /// The input is wrong: not valid SPIR-V (or GLSL, WGSL, assembly text), or an option or
    /// entry point that does not fit it. The user fixes the input.
    Input,
    /// The input is valid but uses what the target cannot do (a shadow sampler, a fragment
    /// stage on the PICA200, a loop AGAL cannot unroll).
    Unsupported,
    /// The program does not fit the target's limits (registers, instructions, varyings).
    Limit,
    /// The compiler broke one of its own rules: a bug, to be reported.
    Internal,
}

impl Fault {
    /// Its name in messages and JSON: `input`, `unsupported`, `limit`, `internal`.
    pub fn name(self) -> &'static str {
        match self {
            Fault::Input => "input",
            Fault::Unsupported => "unsupported",
            Fault::Limit => "limit",
            Fault::Internal => "internal",
        }
    }
}

/// A rule a diagnostic names: each crate that reports declares its rules as an enum, and
/// each rule says whose fault breaking it is (a rule that is a limit is a limit whatever its
/// name).
pub trait Rule: Copy {
    /// The identifier shown as `error[...]`, e.g. `cfg.back-edge-target`.
    fn id(self) -> &'static str;
    /// Whose problem breaking the rule is.
    fn fault(self) -> Fault;
}

/// One error or warning about the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The rule's identifier, e.g. `cfg.back-edge-target` or `asm.syntax`.
    pub rule: &'static str,
    /// Whose problem this is (the rule's: see [`Rule::fault`]).
    pub fault: Fault,
    /// One sentence saying what is wrong, in terms of the input.
    pub message: String,
    /// The instruction at fault, if the problem has one.
    pub span: Option<Span>,
    /// Where the instruction sits, e.g. `function %main, block %15`.
    pub context: Option<String>,
    /// The instruction at fault, disassembled.
    pub instruction: Option<String>,
    /// Byte range of the instruction in the assembly text, when the input was text.
    pub text_range: Option<Range<usize>>,
    /// The shader author's source position (from `OpLine`), rendered as `file:line:column`.
    pub source: Option<String>,
    /// Further explanation, one line each.
    pub notes: Vec<String>,
    /// Where the rule comes from, e.g. `SPIR-V §2.11 Structured Control Flow: ...`.
    pub reference: Option<String>,
}

impl Diagnostic {
    /// An error under `rule` with `message` and nothing else yet.
    pub fn error(rule: impl Rule, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            rule: rule.id(),
            fault: rule.fault(),
            message: message.into(),
            span: None,
            context: None,
            instruction: None,
            text_range: None,
            source: None,
            notes: Vec::new(),
            reference: None,
        }
    }

    /// Whose problem this is.
    pub fn fault(&self) -> Fault {
        self.fault
    }

    /// Whether this diagnostic is about `rule`.
    pub fn is(&self, rule: impl Rule) -> bool {
        self.rule == rule.id()
    }

    /// A warning under `rule` with `message`.
    pub fn warning(rule: impl Rule, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(rule, message)
        }
    }

    /// Attaches the instruction's span.
    pub fn with_span(mut self, span: Span) -> Self {
        self.span = Some(span);
        self
    }

    /// Adds a note line.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Renders the diagnostic for input `file`; `text` is the input when it was assembly text.
    pub fn render(&self, file: &str, text: Option<&str>) -> String {
        let mut out = format!(
            "{file}: {}[{}]: {}\n",
            self.severity, self.rule, self.message
        );
        let text_line = match (text, &self.text_range) {
            (Some(text), Some(range)) => TextLine::find(text, range.clone()),
            _ => None,
        };
        let mut place = Vec::new();
        if let Some(line) = &text_line {
            place.push(format!("{file}:{}:{}", line.number, line.column));
        }
        if let Some(span) = self.span {
            if span.ordinal == 0 {
                place.push("module header".to_string());
            } else {
                place.push(format!(
                    "instruction #{}, word {}",
                    span.ordinal, span.word_offset
                ));
            }
        }
        if !place.is_empty() || self.context.is_some() {
            let mut arrow = place.join(": ");
            if let Some(context) = &self.context {
                if arrow.is_empty() {
                    arrow = context.clone();
                } else {
                    arrow = format!("{arrow} ({context})");
                }
            }
            out.push_str(&format!("  --> {arrow}\n"));
        }
        // The snippet: the input's own line when we have it, else the disassembly.
        let snippet = match &text_line {
            Some(line) => Some((
                line.number.to_string(),
                line.text.to_string(),
                line.column - 1,
                line.underline,
            )),
            None => self.instruction.as_ref().map(|inst| {
                let shown = format!("    {inst}");
                let len = inst.chars().count();
                (String::new(), shown, 4, len)
            }),
        };
        let gutter = snippet.as_ref().map_or(3, |s| s.0.len().max(2) + 1);
        let pad = " ".repeat(gutter);
        if let Some((number, line, column, underline)) = snippet {
            out.push_str(&format!("{pad}|\n"));
            out.push_str(&format!("{number:>w$} | {line}\n", w = gutter - 1));
            out.push_str(&format!(
                "{pad}| {}{}\n",
                " ".repeat(column),
                "^".repeat(underline.max(1))
            ));
        }
        if let Some(source) = &self.source {
            out.push_str(&format!("{pad}= source: {source}\n"));
        }
        for note in &self.notes {
            out.push_str(&format!("{pad}= note: {note}\n"));
        }
        if let Some(reference) = &self.reference {
            out.push_str(&format!("{pad}= rule: {reference}\n"));
        }
        out
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.render("<input>", None).trim_end())
    }
}

impl std::error::Error for Diagnostic {}

/// The first line of an instruction's text, with the column and underline width.
struct TextLine<'a> {
    /// 1-based line number.
    number: usize,
    /// 1-based column of the instruction's first character (counted in characters).
    column: usize,
    /// The whole line, without its line break.
    text: &'a str,
    /// How many characters of the instruction are on this line.
    underline: usize,
}

impl<'a> TextLine<'a> {
    fn find(text: &'a str, range: Range<usize>) -> Option<Self> {
        let start = range.start.min(text.len());
        if !text.is_char_boundary(start) {
            return None;
        }
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let line = text[line_start..line_end].trim_end_matches('\r');
        let number = text[..line_start].matches('\n').count() + 1;
        let column = text[line_start..start].chars().count() + 1;
        let end = range.end.clamp(start, line_start + line.len());
        let underline = text.get(start..end).map_or(1, |s| s.chars().count());
        Some(TextLine {
            number,
            column,
            text: line,
            underline,
        })
    }
}

/// A non-empty list of diagnostics, as returned by a stage that rejected its input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// Renders every diagnostic for input `file` (see [`Diagnostic::render`]).
    pub fn render(&self, file: &str, text: Option<&str>) -> String {
        self.0
            .iter()
            .map(|d| d.render(file, text))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The errors (not warnings) among the diagnostics.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter().filter(|d| d.severity == Severity::Error)
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics(vec![d])
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.render("<input>", None).trim_end())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rules of a front end, for the tests.
    #[derive(Clone, Copy)]
    enum Test {
        BackEdge,
        Syntax,
    }

    impl Rule for Test {
        fn id(self) -> &'static str {
            match self {
                Test::BackEdge => "cfg.back-edge-target",
                Test::Syntax => "asm.syntax",
            }
        }

        fn fault(self) -> Fault {
            Fault::Input
        }
    }

    #[test]
    fn renders_binary_position_and_disassembly() {
        let mut d = Diagnostic::error(Test::BackEdge, "bad back edge")
            .with_span(Span::new(48, 291))
            .with_note("the loop header needs OpLoopMerge");
        d.context = Some("function %main, block %15".into());
        d.instruction = Some("OpBranch %12".into());
        d.source = Some("shader.frag:14:3".into());
        d.reference = Some("SPIR-V §2.11".into());
        let text = d.render("shader.spv", None);
        assert_eq!(
            text,
            "shader.spv: error[cfg.back-edge-target]: bad back edge\n\
             \x20 --> instruction #48, word 291 (function %main, block %15)\n\
             \x20  |\n\
             \x20  |     OpBranch %12\n\
             \x20  |     ^^^^^^^^^^^^\n\
             \x20  = source: shader.frag:14:3\n\
             \x20  = note: the loop header needs OpLoopMerge\n\
             \x20  = rule: SPIR-V §2.11\n"
        );
    }

    #[test]
    fn renders_text_line_and_column() {
        let src = "OpCapability Shader\n  %x = OpFoo %y\n";
        let mut d = Diagnostic::error(Test::Syntax, "unknown opcode OpFoo");
        d.text_range = Some(27..32);
        let text = d.render("a.spvasm", Some(src));
        assert!(text.starts_with("a.spvasm: error[asm.syntax]: unknown opcode OpFoo\n"));
        assert!(text.contains("  --> a.spvasm:2:8\n"), "{text}");
        assert!(text.contains("\n 2 |   %x = OpFoo %y\n"), "{text}");
        assert!(text.contains("\n   |        ^^^^^\n"), "{text}");
    }
}
