//! Listings of a [`ShaderBinary`] in picasso's syntax, which picasso (and the `asm` module) turn
//! back into the same bytes.
//!
//! One file per DVLE (picasso makes one DVLE per source file): directives that rebuild the
//! DVLE's tables (`declare.rs`), then the procedures of that file's part of the code blob with
//! their IF/ELSE and FOR blocks (`body.rs`). Registers are written by number, so the listing does
//! not depend on the uniform names being usable as identifiers; a file whose input or uniform
//! names include a register's name (`v3`) declares them after its code, where they hide no
//! register. Where something cannot be written so that picasso reproduces it, the listing says
//! so in [`Listing::warnings`].

mod body;
mod declare;
pub mod render;
mod structure;

use std::collections::{BTreeMap, HashMap};

use crate::decode::{self, Decoded};
use crate::inst::Inst;
use crate::shbin::{ShaderBinary, ShaderType};

pub use render::{render, render_plain};

/// One source file of a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListingFile {
    /// A file name that says which DVLE it makes (`dvle0.v.pica`, `dvle1.g.pica`).
    pub name: String,
    /// The text.
    pub text: String,
}

/// A whole listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listing {
    /// The files, in the order picasso must assemble them.
    pub files: Vec<ListingFile>,
    /// Everything that picasso would not reproduce exactly (empty for picasso's own output).
    pub warnings: Vec<String>,
}

impl Listing {
    /// All files in one text, each introduced by a `; ==== name ====` comment line.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for f in &self.files {
            if self.files.len() > 1 {
                out += &format!("; ==== {} ====\n", f.name);
            }
            out += &f.text;
        }
        for w in &self.warnings {
            out += &format!("; warning: {w}\n");
        }
        out
    }
}

/// The listing of `bin` as one text (see [`Listing::text`]).
pub fn listing(bin: &ShaderBinary) -> String {
    disassemble(bin).text()
}

/// The listing of `bin`, file by file, with warnings.
pub fn disassemble(bin: &ShaderBinary) -> Listing {
    let mut warnings = Vec::new();
    let decoded: Vec<Option<Decoded>> = decode::decode_code(&bin.code, &bin.descriptors)
        .into_iter()
        .map(Result::ok)
        .collect();
    let plan = structure::plan(bin, &decoded, &mut warnings);

    let mut procs = HashMap::new();
    fn collect(nodes: &[structure::ProcNode], into: &mut HashMap<(usize, usize), String>) {
        for n in nodes {
            into.insert((n.start, n.end), n.name.clone());
            collect(&n.children, into);
        }
    }
    for f in &plan.files {
        collect(&f.procs, &mut procs);
    }

    let mut shared = declare::UniformSpace::new(0);
    let mut files = Vec::new();
    for file in &plan.files {
        let dvle = file.dvle.and_then(|k| bin.dvles.get(k));
        let geometry = dvle.is_some_and(|d| d.shader_type == ShaderType::Geometry);
        let k = file.dvle.unwrap_or(0);
        let name = format!("dvle{k}.{}.pica", if geometry { 'g' } else { 'v' });
        let mut text = format!(
            "; {name}: {} shader",
            if geometry { "geometry" } else { "vertex" }
        );
        if let Some(d) = dvle {
            text += &format!(", entry {:#05X}..{:#05X}", d.entry_start, d.entry_end);
        }
        text += "\n";
        // Declarations that must follow the code (names that are also register names).
        let mut tail = String::new();
        match (dvle, plan.entries.get(k)) {
            (Some(d), Some(entry)) => {
                declare::declare(d, entry, &mut shared, &mut text, &mut tail, &mut warnings)
            }
            _ => text += ".nodvle\n",
        }
        // This file's labels: the targets of its own jumps.
        let labels: BTreeMap<usize, String> = decoded
            .get(file.start..file.end)
            .unwrap_or(&[])
            .iter()
            .flatten()
            .filter_map(|d| match d.inst {
                Inst::JmpC { target, .. } | Inst::JmpU { target, .. } => {
                    let t = target.addr() as usize;
                    plan.labels.get(&t).map(|l| (t, l.clone()))
                }
                _ => None,
            })
            .collect();
        let mut body = body::Body {
            decoded: &decoded,
            code: &bin.code,
            labels: &labels,
            procs: &procs,
            geometry,
            out: String::new(),
            warnings: &mut warnings,
        };
        for p in &file.procs {
            body.out.push('\n');
            body.proc(p, 0);
        }
        body.label(file.end);
        text += &body.out;
        text += &tail;
        files.push(ListingFile { name, text });
    }
    Listing { files, warnings }
}

#[cfg(all(test, feature = "asm"))]
mod tests {
    use super::*;
    use crate::encode::encode_program;
    use crate::inst::{BinaryOp, Form, Inst};
    use crate::operand::{Condition, Dest, DstReg, Source, SrcReg, Target};
    use crate::shbin::Dvle;

    fn binary(insts: &[Inst]) -> ShaderBinary {
        let p = encode_program(insts).unwrap();
        let n = p.code.len() as u32;
        ShaderBinary {
            code: p.code,
            descriptors: p.descriptors,
            dvles: vec![Dvle {
                entry_end: n,
                ..Dvle::default()
            }],
        }
    }

    #[test]
    fn reports_what_picasso_cannot_spell() {
        // DPHI with two narrow sources: picasso would pick DPH.
        let odd = Inst::Binary {
            op: BinaryOp::Dph,
            form: Form::Inverted,
            dst: Dest::new(DstReg::Temp(0)),
            src1: Source::new(SrcReg::Temp(1)),
            src2: Source::new(SrcReg::Temp(2)),
        };
        let l = disassemble(&binary(&[odd, Inst::End]));
        assert!(
            l.warnings.iter().any(|w| w.contains("other operand form")),
            "{:?}",
            l.warnings
        );
        // An IF whose target lies before it.
        let t = Target::new(0).unwrap();
        let l = disassemble(&binary(&[
            Inst::Nop,
            Inst::IfC {
                cond: Condition::x(true),
                dst: t,
                num: 0,
            },
            Inst::End,
        ]));
        assert!(
            l.warnings.iter().any(|w| w.contains("not a block")),
            "{:?}",
            l.warnings
        );
        assert!(l.text().contains("; warning:"));
    }

    /// The listing of `bin`, assembled again.
    fn reassembled(bin: &ShaderBinary) -> ShaderBinary {
        let text = listing(bin);
        crate::asm::assemble_str("listing.v.pica", &text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    #[test]
    fn names_that_are_register_names_are_kept_and_hide_no_register() {
        // add o0, c0, v3 with an input called `c0` in v3 and a uniform called `v3` in c0.
        let mut bin = binary(&[
            Inst::Binary {
                op: BinaryOp::Add,
                form: Form::Normal,
                dst: Dest::new(DstReg::Output(0)),
                src1: Source::new(SrcReg::Const(0)),
                src2: Source::new(SrcReg::Input(3)),
            },
            Inst::End,
        ]);
        let d = &mut bin.dvles[0];
        d.input_mask = 1 << 3;
        d.output_mask = 1;
        d.outputs.push(crate::shbin::Output {
            semantic: crate::shbin::Semantic::Position,
            reg: 0,
            mask: crate::operand::Mask::XYZW,
        });
        for (name, start) in [("c0", 0x03), ("v3", 0x10), ("o1", 0x11)] {
            d.uniforms.push(crate::shbin::Uniform {
                name: name.into(),
                start,
                end: start,
            });
        }
        let l = disassemble(&bin);
        assert!(l.warnings.is_empty(), "{:?}", l.warnings);
        let text = l.text();
        assert!(text.contains("\n.fvec v3\n.fvec o1\n"), "{text}");
        assert!(!text.contains(" _"), "{text}");
        assert!(
            text.find(".fvec v3").unwrap() > text.find("\tend\n").unwrap(),
            "{text}"
        );
        assert_eq!(reassembled(&bin), bin);
    }

    #[test]
    fn names_picasso_cannot_read_do_not_become_hidden() {
        let mut bin = binary(&[Inst::Nop, Inst::End]);
        for (name, start) in [("2d", 0x10), ("lights[1].color", 0x11)] {
            bin.dvles[0].uniforms.push(crate::shbin::Uniform {
                name: name.into(),
                start,
                end: start,
            });
        }
        let l = disassemble(&bin);
        let text = l.text();
        assert!(text.contains(".fvec u2d\n"), "{text}");
        assert!(text.contains(".fvec lights_1_$color\n"), "{text}");
        assert_eq!(l.warnings.len(), 2, "{:?}", l.warnings);
        // Only the symbol strings differ: picasso keeps both in its table.
        let again = reassembled(&bin);
        let names: Vec<&str> = again.dvles[0]
            .uniforms
            .iter()
            .map(|u| u.name.as_str())
            .collect();
        assert_eq!(names, ["u2d", "lights_1_.color"]);
    }

    #[test]
    fn clean_program_has_no_warnings() {
        let l = disassemble(&binary(&[Inst::Nop, Inst::End]));
        assert!(l.warnings.is_empty(), "{:?}", l.warnings);
        assert!(
            l.text().contains(".proc main\n\tnop\n\tend\n.end\n"),
            "{}",
            l.text()
        );
    }
}
