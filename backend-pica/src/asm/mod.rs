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
//! - padding NOPs are inserted at `.end`/`.else` where picasso inserts them ([`padding`]);
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
mod operand;
mod text;

use crate::shbin::ShaderBinary;

/// One source file.
#[derive(Clone, Copy, Debug)]
pub struct SourceFile<'a> {
    /// The file name, for messages.
    pub name: &'a str,
    /// Its text.
    pub text: &'a str,
}

/// An assembly error, with the file and line it was found on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: error: {message}")]
pub struct AsmError {
    /// The file.
    pub file: String,
    /// The line (1-based; 0 for errors found after the last file).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Assembles `files` (in order, as `picasso -o out.shbin a.v.pica b.g.pica` would).
pub fn assemble(files: &[SourceFile<'_>]) -> Result<ShaderBinary, AsmError> {
    let mut a = assembler::Assembler::new();
    for f in files {
        a.assemble_file(f.name, f.text)?;
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
