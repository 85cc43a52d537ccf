//! An assembler for picasso's syntax that produces a [`ShaderBinary`] byte-identical to what
//! picasso 2.7.1 writes for the same sources.
//!
//! It exists to prove the encoder and the container writer against picasso's own output (the
//! golden files) and to check our listings the same way. It follows picasso's model:
//! - one DVLE per source file; procedures are global across files, labels and aliases per file;
//!   vertex-shader uniforms share one space across files (`.fvec` allocates upward from `c0`,
//!   `.ivec` from `i0`, `.bool` from `b0`; a name seen before keeps its register), a `.gsh`
//!   file has its own; constants (`.constf`, `.consti`, `.constfa`) are per file, downward from
//!   `c95` and `i3`;
//! - operand forms (format 1 vs 1i, MAD vs MADI) are picked from the operands;
//! - padding NOPs are inserted at `.end`/`.else` where picasso inserts them ([`crate::padding`]);
//! - operand descriptors are allocated by [`crate::encode::encode_program_with_limit`], which
//!   reproduces picasso's first-fit sharing and MAD swap.
//!
//! It is stricter than picasso where picasso silently produces something other than what was
//! written: registers are typed (an output alias is not an input), numbers must be whole tokens,
//! negative register offsets, indices on non-constant registers, `v15` (which picasso's parser
//! refuses), more than 255 words in a procedure or else-part (NUM has 8 bits) and more than 512
//! words of vertex-shader code are errors.

mod assembler;
mod directive;
mod instr;
pub mod link;
mod operand;
mod text;

use mir::diag::Rule as _;

use crate::rules::PicassoRule;
use crate::shbin::ShaderBinary;

/// One source file.
#[derive(Clone, Copy, Debug)]
pub struct SourceFile<'a> {
    /// The file name, for messages.
    pub name: &'a str,
    /// Its text.
    pub text: &'a str,
}

/// An assembly error (or, from [`Assembled::warnings`], a warning), with the file, line and
/// column it was found at and the rule it breaks.
///
/// It displays as picasso prints its messages, with the column added
/// (`file:line:column: error: message`, which editors' and CI's gcc-style matchers read); the
/// rule is [`AsmError::rule`].
#[derive(Clone, Debug, Default, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.head())]
pub struct AsmError {
    /// The file.
    pub file: String,
    /// The line (1-based; 0 for errors found after the last file).
    pub line: usize,
    /// The column of what is wrong (1-based, in characters; 0 when the line is unknown).
    pub column: usize,
    /// How many characters from `column` are wrong (at least 1 when `column` is known).
    pub width: usize,
    /// The line's text, when known.
    pub text: String,
    /// What is wrong.
    pub message: String,
    /// A warning rather than an error.
    pub warning: bool,
}

impl AsmError {
    /// An error at `file`:`line`, located on the line later.
    pub(crate) fn new(file: &str, line: usize, message: impl Into<String>) -> AsmError {
        AsmError {
            file: file.to_string(),
            line,
            message: message.into(),
            ..AsmError::default()
        }
    }

    /// The same message as a warning.
    pub(crate) fn warning(mut self) -> AsmError {
        self.warning = true;
        self
    }

    /// Finds the column on the line `raw`: the token the message names after its last
    /// `: ` (picasso's messages end with the offending text), else the line's command word.
    pub(crate) fn locate(mut self, raw: &str) -> AsmError {
        if self.column != 0 {
            return self;
        }
        let code = raw.find(';').map_or(raw, |i| &raw[..i]);
        let named = self
            .message
            .rsplit_once(": ")
            .map(|(_, t)| t.trim().trim_matches('\''))
            .filter(|t| !t.is_empty())
            .and_then(|t| code.find(t).map(|at| (at, t.len())))
            .or_else(|| {
                // `label 'x' is undefined`, `procedure 'x' is undefined`: the quoted name.
                let quoted = self.message.split('\'').nth(1)?;
                let at = code.rfind(quoted)?;
                Some((at, quoted.len()))
            });
        let (at, len) = named.unwrap_or_else(|| {
            let start = code.len() - code.trim_start().len();
            let len = code[start..]
                .find([' ', '\t'])
                .unwrap_or(code.len() - start);
            (start, len)
        });
        self.column = code[..at].chars().count() + 1;
        self.width = code[at..at + len].chars().count().max(1);
        self.text = raw.trim_end_matches('\r').to_string();
        self
    }

    /// The rule broken, from the kind of message: `picasso.syntax`, `picasso.operand`,
    /// `picasso.block`, `picasso.symbol`, `picasso.directive`, `picasso.limit`,
    /// `picasso.padding` (the warning of `-n`) or `picasso.internal`.
    pub fn rule(&self) -> PicassoRule {
        let m = self.message.as_str();
        let has = |words: &[&str]| words.iter().any(|w| m.contains(w));
        if m.starts_with("internal") {
            PicassoRule::Internal
        } else if has(&["padding NOP"]) {
            PicassoRule::Padding
        } else if (has(&["too many", "not enough"]) && !has(&["too many parameters"]))
            || has(&["(max ", "NUM has 8 bits", "beyond 4095", "longer than 255"])
        {
            PicassoRule::Limit
        } else if has(&[
            "undefined",
            "duplicate",
            "already",
            "mismatched uniform",
            "previously declared",
            "no DVLEs",
        ]) {
            PicassoRule::Symbol
        } else if has(&[
            ".else",
            ".end",
            "unclosed",
            "outside block",
            "nested",
            "spurious",
        ]) {
            PicassoRule::Block
        } else if has(&[
            "register",
            "negated",
            "index",
            "5 bits",
            "source",
            "destination",
            "Inverting",
        ]) {
            PicassoRule::Operand
        } else if m.starts_with('.')
            || has(&[
                "output",
                "semantic",
                "setemit",
                "vertex id",
                "geometry",
                "uniform",
                "array",
                "constant",
                "dummy",
                "collides",
            ])
        {
            PicassoRule::Directive
        } else {
            PicassoRule::Syntax
        }
    }

    /// The first line: `file:line:column: error: message` (picasso's form, with the column).
    fn head(&self) -> String {
        let severity = if self.warning { "warning" } else { "error" };
        match (self.line, self.column) {
            (0, _) => format!("{}: {severity}: {}", self.file, self.message),
            (l, 0) => format!("{}:{l}: {severity}: {}", self.file, self.message),
            (l, c) => format!("{}:{l}:{c}: {severity}: {}", self.file, self.message),
        }
    }

    /// The whole message as the command line prints it: the first line, then the source
    /// line with the fault underlined, then the rule.
    pub fn render(&self) -> String {
        let mut out = format!("{}\n", self.head());
        if self.column != 0 {
            let number = self.line.to_string();
            let pad = " ".repeat(number.len() + 1);
            let shown: String = self
                .text
                .chars()
                .map(|c| if c == '\t' { ' ' } else { c })
                .collect();
            out.push_str(&format!("{pad}|\n{number} | {shown}\n{pad}| "));
            out.push_str(&" ".repeat(self.column - 1));
            out.push_str(&"^".repeat(self.width.max(1)));
            out.push('\n');
        }
        let pad = " ".repeat(self.line.to_string().len() + 1);
        out.push_str(&format!("{pad}= rule: {}\n", self.rule().id()));
        out
    }
}

/// How to assemble (picasso's options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Insert the padding NOPs the hardware needs at `.end`/`.else` (picasso's default;
    /// `-n`/`--no-nop` turns it off, and each place that needs one is then a warning).
    pub padding_nops: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options { padding_nops: true }
    }
}

/// What [`assemble_with`] made.
#[derive(Clone, Debug)]
pub struct Assembled {
    /// The binary.
    pub binary: ShaderBinary,
    /// The C header picasso writes with `-h`, byte for byte.
    pub header: String,
    /// Warnings (with `padding_nops` off, each padding NOP left out).
    pub warnings: Vec<AsmError>,
    /// For each DVLE of the binary, the index of the file that made it (a `.nodvle` file,
    /// or one with procedures only, makes none).
    pub sources: Vec<usize>,
}

/// Assembles `files` (in order, as `picasso -o out.shbin a.v.pica b.g.pica` would).
pub fn assemble(files: &[SourceFile<'_>]) -> Result<ShaderBinary, AsmError> {
    assemble_with(files, &Options::default()).map(|a| a.binary)
}

/// Assembles `files` with `options`, and writes picasso's header for them too.
pub fn assemble_with(files: &[SourceFile<'_>], options: &Options) -> Result<Assembled, AsmError> {
    let mut a = assembler::Assembler::new(*options);
    for (i, f) in files.iter().enumerate() {
        a.assemble_file(i, f.name, f.text)?;
    }
    a.finish()
}

/// Assembles a single file named `name`.
pub fn assemble_str(name: &str, text: &str) -> Result<ShaderBinary, AsmError> {
    assemble(&[SourceFile { name, text }])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(body: &str) -> String {
        let text = format!(".out - position o0\n.proc main\n{body}\n\tend\n.end\n");
        assemble_str("t.pica", &text).expect_err(body).to_string()
    }

    #[test]
    fn operand_rules() {
        assert!(
            err("add r0, v0, c0").contains("5 bits"),
            "constant in src2 of ADD"
        );
        assert!(
            err("mad r0, c0, v0, r1").contains("invalid source2")
                || err("mad r0, c0, v0, r1").contains("5 bits")
        );
        assert!(err("add r0, v0, v1").contains("two different input registers"));
        assert!(err("mad r0, v0, c0, v1").contains("two different input registers"));
        assert!(err("mov r0, v15").contains("invalid input register"));
        assert!(err("mov r0, c1[a0.x-1]").contains("negative offsets"));
        assert!(err("mov r0, r1[a0.x]").contains("index register not allowed"));
        assert!(err("add r0, c0, c1[a0.x]").contains("5 bits"));
        assert!(err("mov v0, r0").contains("invalid destination"));
        assert!(err("mov r0, o0").contains("invalid source"));
        assert!(err("mov -r0, r1").contains("negated"));
        assert!(err("frob r0, r1").contains("invalid instruction"));
        assert!(err("mov r0").contains("missing parameter"));
        assert!(err("mov r0, r1, r2").contains("too many parameters"));
        assert!(err("cmp c0, eq, zz, v0").contains("conditional operator"));
        assert!(err("ifu !b0\n.end").contains("Inverting"));
        assert!(err("jmpc cmp.x, nowhere").contains("undefined"));
        assert!(err("call nowhere").contains("undefined"));
        assert!(err(".else").contains("unmatched"));
        assert!(err("ifc cmp.x\n.else\n.else\n.end").contains("spurious"));
        assert!(err("setemit 3").contains("vertex id"));
    }

    #[test]
    fn structure_and_limits() {
        let e = assemble_str("t.pica", ".proc main\n\tend\n").unwrap_err();
        assert!(e.message.contains("unclosed"), "{e}");
        let e = assemble_str("t.pica", "\tmov r0, v0\n").unwrap_err();
        assert!(e.message.contains("outside block"), "{e}");
        let e = assemble_str("t.pica", ".out - color o7\n.proc main\n\tend\n.end\n").unwrap_err();
        assert!(e.message.contains("dummy"), "{e}");
        let e = assemble_str("t.pica", ".proc other\n\tend\n.end\n").unwrap_err();
        assert!(e.message.contains("entrypoint 'main'"), "{e}");
        let e = assemble_str(
            "t.pica",
            ".out - dummy o8\n.out - dummy o0\n.proc main\n\tend\n.end\n",
        )
        .unwrap_err();
        assert!(e.message.contains("collides"), "{e}");
        // 512 words including `end` fit; 513 do not.
        let fill = |n: usize| format!(".proc main\n{}\tend\n.end\n", "\tnop\n".repeat(n));
        assert_eq!(
            assemble_str("t.pica", &fill(511)).map(|b| b.code.len()),
            Ok(512)
        );
        let e = assemble_str("t.pica", &fill(512)).unwrap_err();
        assert!(e.message.contains("max 512"), "{e}");
        assert_eq!(e.line, 514);
        // A procedure of 256 words cannot be called (NUM has 8 bits).
        let big = format!(
            ".proc big\n{}.end\n.proc main\n\tcall big\n\tnop\n\tend\n.end\n",
            "\tnop\n".repeat(256)
        );
        let e = assemble_str("t.pica", &big).unwrap_err();
        assert!(e.message.contains("NUM has 8 bits"), "{e}");
    }

    #[test]
    fn padding_nops() {
        // An empty IF body, a call at the end of a procedure, nested ends.
        let text = ".proc p\n\tnop\n.end\n.proc main\n\tifc cmp.x\n\t.end\n\tfor i0\n\t\tifu b0\n\t\t\tnop\n\t\t.end\n\t.end\n\tcall p\n\tend\n.end\n";
        let b = assemble_str("t.pica", text).unwrap();
        let ops: Vec<&str> = b
            .code
            .iter()
            .map(|&w| {
                crate::decode::decode_word(w, &b.descriptors)
                    .map(|d| d.inst.opcode().name())
                    .unwrap_or("?")
            })
            .collect();
        assert_eq!(
            ops,
            [
                "nop", "ifc", "nop", "loop", "ifu", "nop", "nop", "call", "end"
            ]
        );
    }
}
