//! The code part of a listing file: procedures, IF/ELSE and FOR blocks rebuilt from the IF and
//! LOOP words' targets, labels before jump targets, one instruction per line (padding NOPs
//! included, written out, so that picasso has nothing left to insert).
//!
//! Anything picasso cannot spell (an unstructured IF, an operand form picasso would not pick, a
//! word with bits picasso never sets, …) is written as well as it can be and reported.

use std::collections::{BTreeMap, HashMap};

use super::render;
use super::structure::ProcNode;
use crate::decode::Decoded;
use crate::inst::{Form, Inst};
use crate::operand::{CmpOp, CondOp, Condition, DstReg, RelIndex, Source, SrcReg, Target};

/// Prints code ranges of one file.
pub(super) struct Body<'a> {
    pub(super) decoded: &'a [Option<Decoded>],
    pub(super) code: &'a [u32],
    pub(super) labels: &'a BTreeMap<usize, String>,
    pub(super) procs: &'a HashMap<(usize, usize), String>,
    pub(super) geometry: bool,
    pub(super) out: String,
    pub(super) warnings: &'a mut Vec<String>,
}

fn picasso_form_binary(src1: &Source, src2: &Source, has_inverted: bool) -> Form {
    if has_inverted && src1.reg.is_narrow() && !src2.reg.is_narrow() {
        Form::Inverted
    } else {
        Form::Normal
    }
}

fn picasso_form_mad(src2: &Source, src3: &Source) -> Form {
    let inverted = src2.reg.is_narrow()
        && (!src3.reg.is_narrow()
            || (src3.index != RelIndex::None && src2.index == RelIndex::None));
    if inverted {
        Form::Inverted
    } else {
        Form::Normal
    }
}

fn condition_ok(c: &Condition) -> bool {
    match c.op {
        CondOp::X => c.ref_y,
        CondOp::Y => c.ref_x,
        _ => true,
    }
}

/// Why picasso cannot write `inst` as it is, if it cannot.
fn inexpressible(inst: &Inst, geometry: bool) -> Option<String> {
    if let Err(e) = inst.validate() {
        return Some(e.to_string());
    }
    let sources: Vec<&Source> = match inst {
        Inst::Binary { src1, src2, .. } | Inst::Cmp { src1, src2, .. } => vec![src1, src2],
        Inst::Unary { src, .. } | Inst::Mova { src, .. } => vec![src],
        Inst::Mad {
            src1, src2, src3, ..
        } => vec![src1, src2, src3],
        _ => vec![],
    };
    if sources.iter().any(|s| s.reg == SrcReg::Input(15)) {
        return Some("picasso refuses v15".into());
    }
    let dest = match inst {
        Inst::Binary { dst, .. } | Inst::Unary { dst, .. } | Inst::Mad { dst, .. } => Some(dst),
        _ => None,
    };
    if let Some(d) = dest {
        if d.mask.bits() == 0 {
            return Some("empty write mask".into());
        }
        if geometry && matches!(d.reg, DstReg::Output(n) if n >= 7) {
            return Some("a geometry shader has only o0-o6 in picasso".into());
        }
    }
    match inst {
        Inst::Binary {
            op,
            form,
            src1,
            src2,
            ..
        } if *form != picasso_form_binary(src1, src2, op.inverted_opcode().is_some()) => {
            Some("picasso would pick the other operand form".into())
        }
        Inst::Mad {
            form, src2, src3, ..
        } if *form != picasso_form_mad(src2, src3) => {
            Some("picasso would pick the other MAD form".into())
        }
        Inst::Mova { mask, .. } if !matches!(mask.bits(), 1..=3) => {
            Some("MOVA mask beyond x/y".into())
        }
        Inst::Cmp { x, y, .. }
            if matches!(x, CmpOp::True6 | CmpOp::True7)
                || matches!(y, CmpOp::True6 | CmpOp::True7) =>
        {
            Some("comparison operator 6/7 has no picasso spelling".into())
        }
        Inst::BreakC { cond }
        | Inst::CallC { cond, .. }
        | Inst::IfC { cond, .. }
        | Inst::JmpC { cond, .. }
            if !condition_ok(cond) =>
        {
            Some("the unused reference bit of a one-term condition is 0".into())
        }
        Inst::SetEmit { vertex: 3, .. } => Some("setemit vertex 3 has no picasso spelling".into()),
        _ => None,
    }
}

impl Body<'_> {
    fn line(&mut self, depth: usize, text: &str) {
        for _ in 0..depth {
            self.out.push('\t');
        }
        self.out += text;
        self.out.push('\n');
    }

    fn warn(&mut self, addr: usize, what: impl std::fmt::Display) {
        self.warnings.push(format!("{addr:#05X}: {what}"));
    }

    pub(super) fn label(&mut self, addr: usize) {
        if let Some(l) = self.labels.get(&addr) {
            self.out += &format!("{l}:\n");
        }
    }

    fn name(&self, target: Target, num: Option<u8>) -> String {
        let t = target.addr() as usize;
        match num {
            Some(n) => self
                .procs
                .get(&(t, t + usize::from(n)))
                .cloned()
                .unwrap_or_else(|| format!("proc_{t:03x}")),
            None => self
                .labels
                .get(&t)
                .cloned()
                .unwrap_or_else(|| format!("l_{t:03x}")),
        }
    }

    /// Prints a procedure.
    pub(super) fn proc(&mut self, node: &ProcNode, depth: usize) {
        self.line(depth, &format!(".proc {}", node.name));
        self.range(node.start, node.end, &node.children, depth + 1);
        self.line(depth, ".end");
    }

    fn range(&mut self, start: usize, end: usize, children: &[ProcNode], depth: usize) {
        let mut pc = start;
        let mut next_child = 0;
        while pc < end {
            self.label(pc);
            if let Some(child) = children.get(next_child).filter(|c| c.start == pc) {
                self.proc(child, depth);
                pc = child.end;
                next_child += 1;
                continue;
            }
            let limit = children.get(next_child).map_or(end, |c| c.start.min(end));
            let Some(d) = self.decoded.get(pc).copied().flatten() else {
                let word = self.code.get(pc).copied().unwrap_or(0);
                self.warn(pc, format!("word {word:#010X} does not decode"));
                self.line(depth, &format!("; {word:08X} (undecodable)"));
                pc += 1;
                continue;
            };
            if !d.reencodes() {
                self.warn(
                    pc,
                    format!("word {:#010X} has bits picasso never sets", d.word),
                );
            }
            if let Some(why) = inexpressible(&d.inst, self.geometry) {
                self.warn(pc, why);
            }
            let text = render::render(&d.inst, &|t| match d.inst {
                Inst::Call { num, .. } | Inst::CallC { num, .. } | Inst::CallU { num, .. } => {
                    self.name(t, Some(num))
                }
                _ => self.name(t, None),
            });
            match d.inst {
                Inst::IfC { dst, num, .. } | Inst::IfU { dst, num, .. } => {
                    let (dst, num) = (dst.addr() as usize, usize::from(num));
                    if dst <= pc || dst + num > limit {
                        self.warn(pc, "IF whose extent is not a block");
                        self.line(depth, &format!("; {text} (unstructured)"));
                        pc += 1;
                        continue;
                    }
                    self.line(depth, &text);
                    self.range(pc + 1, dst, &[], depth + 1);
                    if num > 0 {
                        self.line(depth, ".else");
                        self.range(dst, dst + num, &[], depth + 1);
                    }
                    self.line(depth, ".end");
                    pc = dst + num;
                }
                Inst::Loop { last, .. } => {
                    let last = last.addr() as usize;
                    if last <= pc || last >= limit {
                        self.warn(pc, "LOOP whose extent is not a block");
                        self.line(depth, &format!("; {text} (unstructured)"));
                        pc += 1;
                        continue;
                    }
                    self.line(depth, &text);
                    self.range(pc + 1, last + 1, &[], depth + 1);
                    self.line(depth, ".end");
                    pc = last + 1;
                }
                _ => {
                    self.line(depth, &text);
                    pc += 1;
                }
            }
        }
    }
}
