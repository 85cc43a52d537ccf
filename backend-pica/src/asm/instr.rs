//! picasso's instructions: operands are parsed, the operand form is chosen as picasso chooses it,
//! and the resulting [`Inst`] is checked by [`Inst::validate`] before it joins the program.
//! Procedure and label targets are left as relocations.

use super::AsmError;
use super::assembler::{Assembler, BlockKind, Reloc};
use super::operand::{Operand, Reg, mask_of, parse_operand};
use super::text::{comma_args, is_identifier, parse_uint};
use crate::inst::{BinaryOp, Form, Inst, UnaryOp};
use crate::limits;
use crate::operand::{
    BoolReg, CmpOp, CondOp, Condition, Dest, DstReg, IntReg, Mask, RelIndex, Source, SrcReg, Target,
};

fn binary_op(name: &str) -> Option<BinaryOp> {
    Some(match name {
        "add" => BinaryOp::Add,
        "dp3" => BinaryOp::Dp3,
        "dp4" => BinaryOp::Dp4,
        "dph" | "dphi" => BinaryOp::Dph,
        "dst" | "dsti" => BinaryOp::Dst,
        "mul" => BinaryOp::Mul,
        "sge" | "sgei" => BinaryOp::Sge,
        "slt" | "slti" => BinaryOp::Slt,
        "max" => BinaryOp::Max,
        "min" => BinaryOp::Min,
        _ => return None,
    })
}

fn unary_op(name: &str) -> Option<UnaryOp> {
    Some(match name {
        "ex2" => UnaryOp::Ex2,
        "lg2" => UnaryOp::Lg2,
        "litp" => UnaryOp::Litp,
        "flr" => UnaryOp::Flr,
        "rcp" => UnaryOp::Rcp,
        "rsq" => UnaryOp::Rsq,
        "mov" => UnaryOp::Mov,
        _ => return None,
    })
}

fn cmp_op(name: &str) -> Option<CmpOp> {
    Some(match name.to_ascii_lowercase().as_str() {
        "eq" => CmpOp::Eq,
        "ne" => CmpOp::Ne,
        "lt" => CmpOp::Lt,
        "le" => CmpOp::Le,
        "gt" => CmpOp::Gt,
        "ge" => CmpOp::Ge,
        _ => return None,
    })
}

/// One term of a condition: `[!]*cmp.x` or `[!]*cmp.y`; returns (is_y, expected value).
fn cond_term(text: &str) -> Option<(bool, bool)> {
    let bangs = text.len() - text.trim_start_matches('!').len();
    let expect = bangs.is_multiple_of(2);
    match text[bangs..].to_ascii_lowercase().as_str() {
        "cmp.x" => Some((false, expect)),
        "cmp.y" => Some((true, expect)),
        _ => None,
    }
}

/// picasso's condition expressions: one term, or two joined by `&`/`&&` (AND) or `|`/`||` (OR).
fn parse_condition(text: &str) -> Result<Condition, String> {
    let mut c = Condition {
        op: CondOp::Or,
        ref_x: true,
        ref_y: true,
    };
    let set = |(is_y, expect): (bool, bool), c: &mut Condition| {
        if is_y {
            c.ref_y = expect
        } else {
            c.ref_x = expect
        }
    };
    let bad = |t: &str| format!("invalid condition register: {t}");
    match text.find(['&', '|']) {
        Some(pos) => {
            let kind = text.as_bytes().get(pos).copied().unwrap_or(b'|');
            let first = text[..pos].trim();
            let mut second = &text[pos + 1..];
            if second.as_bytes().first() == Some(&kind) {
                second = &second[1..];
            }
            let second = second.trim();
            let a = cond_term(first).ok_or_else(|| bad(first))?;
            let b = cond_term(second).ok_or_else(|| bad(second))?;
            if a.0 == b.0 {
                return Err("condition register checked twice".to_string());
            }
            set(a, &mut c);
            set(b, &mut c);
            c.op = if kind == b'&' {
                CondOp::And
            } else {
                CondOp::Or
            };
        }
        None => {
            let a = cond_term(text.trim()).ok_or_else(|| bad(text))?;
            set(a, &mut c);
            c.op = if a.0 { CondOp::Y } else { CondOp::X };
        }
    }
    Ok(c)
}

impl Assembler {
    fn operand(&mut self, text: &str, allow_index: bool) -> Result<Operand, AsmError> {
        let max = self.max_output();
        parse_operand(text, &self.file.aliases, allow_index, max).map_err(|m| self.err(m))
    }

    fn source(&mut self, text: &str, allow_index: bool) -> Result<Source, AsmError> {
        let op = self.operand(text, allow_index)?;
        let reg = match op.reg {
            Reg::Input(n) => SrcReg::Input(n),
            Reg::Temp(n) => SrcReg::Temp(n),
            Reg::Const(n) => SrcReg::Const(n),
            _ => return Err(self.err(format!("invalid source register: {text}"))),
        };
        Ok(Source {
            reg,
            swizzle: op.swizzle,
            negate: op.negate,
            index: op.index,
        })
    }

    fn dest(&mut self, text: &str) -> Result<Dest, AsmError> {
        let op = self.operand(text, false)?;
        let reg = match op.reg {
            Reg::Output(n) => DstReg::Output(n),
            Reg::Temp(n) => DstReg::Temp(n),
            _ => return Err(self.err(format!("invalid destination register: {text}"))),
        };
        if op.negate {
            return Err(self.err(format!("a destination cannot be negated: {text}")));
        }
        Ok(Dest {
            reg,
            mask: Mask::new(mask_of(op.swizzle)).unwrap_or(Mask::XYZW),
        })
    }

    fn args<'t>(&self, rest: &'t str, n: usize) -> Result<Vec<&'t str>, AsmError> {
        let args = comma_args(rest);
        if args.len() < n {
            return Err(self.err("missing parameter"));
        }
        if args.len() > n {
            return Err(self.err("too many parameters"));
        }
        Ok(args)
    }

    fn push(&mut self, inst: Inst) -> Result<(), AsmError> {
        inst.validate().map_err(|e| self.err(e.to_string()))?;
        self.code.push(inst);
        Ok(())
    }

    fn bool_reg(&mut self, text: &str) -> Result<BoolReg, AsmError> {
        match self.operand(text, false)?.reg {
            Reg::Bool(n) => BoolReg::new(n).ok_or_else(|| self.err("invalid boolean uniform")),
            _ => Err(self.err(format!("invalid boolean uniform: {text}"))),
        }
    }

    fn reloc(&self, name: &str) -> Result<Reloc, AsmError> {
        if !is_identifier(name) {
            return Err(self.err(format!("invalid target: {name}")));
        }
        Ok(Reloc {
            at: self.code.len(),
            name: name.to_string(),
            file: self.file.name.clone(),
            line: self.file.line,
            text: self.file.text.clone(),
        })
    }

    fn call_reloc(&mut self, name: &str) -> Result<(), AsmError> {
        let r = self.reloc(name)?;
        self.proc_relocs.push(r);
        Ok(())
    }

    fn label_reloc(&mut self, name: &str) -> Result<(), AsmError> {
        let r = self.reloc(name)?;
        self.file.label_relocs.push(r);
        Ok(())
    }

    pub(super) fn instruction(&mut self, name: &str, rest: &str) -> Result<(), AsmError> {
        if self.stack.is_empty() {
            return Err(self.err("instruction outside block"));
        }
        self.last_was_end = false;
        if !self.dvle().geo && self.code.len() >= limits::MAX_VERTEX_CODE_WORDS {
            return Err(self.err(format!(
                "instruction outside vertex shader code memory (max {} words)",
                limits::MAX_VERTEX_CODE_WORDS
            )));
        }
        let t0 = Target::default();
        if let Some(op) = binary_op(name) {
            let a = self.args(rest, 3)?;
            let dst = self.dest(a[0])?;
            let src1 = self.source(a[1], true)?;
            let src2 = self.source(a[2], true)?;
            let inverted =
                op.inverted_opcode().is_some() && src1.reg.is_narrow() && !src2.reg.is_narrow();
            let form = if inverted {
                Form::Inverted
            } else {
                Form::Normal
            };
            return self.push(Inst::Binary {
                op,
                form,
                dst,
                src1,
                src2,
            });
        }
        if let Some(op) = unary_op(name) {
            let a = self.args(rest, 2)?;
            let dst = self.dest(a[0])?;
            let src = self.source(a[1], true)?;
            return self.push(Inst::Unary { op, dst, src });
        }
        match name {
            "nop" | "end" | "emit" | "break" => {
                self.args(rest, 0)?;
                self.push(match name {
                    "nop" => Inst::Nop,
                    "end" => Inst::End,
                    "emit" => Inst::Emit,
                    _ => Inst::Break,
                })
            }
            "mova" => {
                let a = self.args(rest, 2)?;
                let mask = match a[0].to_ascii_lowercase().as_str() {
                    "a0" | "a0.x" => 0x1,
                    "a1" | "a0.y" => 0x2,
                    "a01" | "a0.xy" => 0x3,
                    other => {
                        return Err(
                            self.err(format!("invalid destination register for mova: {other}"))
                        );
                    }
                };
                let src = self.source(a[1], true)?;
                self.push(Inst::Mova {
                    mask: Mask::new(mask).unwrap_or(Mask::XYZW),
                    src,
                })
            }
            "cmp" => {
                let a = self.args(rest, 4)?;
                let src1 = self.source(a[0], true)?;
                let x = cmp_op(a[1])
                    .ok_or_else(|| self.err(format!("invalid conditional operator: {}", a[1])))?;
                let y = cmp_op(a[2])
                    .ok_or_else(|| self.err(format!("invalid conditional operator: {}", a[2])))?;
                let src2 = self.source(a[3], false)?;
                self.push(Inst::Cmp { src1, x, y, src2 })
            }
            "mad" | "madi" => {
                let a = self.args(rest, 4)?;
                let dst = self.dest(a[0])?;
                let src1 = self.source(a[1], false)?;
                let src2 = self.source(a[2], true)?;
                let src3 = self.source(a[3], true)?;
                let inverted = src2.reg.is_narrow()
                    && (!src3.reg.is_narrow()
                        || (src3.index != RelIndex::None && src2.index == RelIndex::None));
                let form = if inverted {
                    Form::Inverted
                } else {
                    Form::Normal
                };
                self.push(Inst::Mad {
                    form,
                    dst,
                    src1,
                    src2,
                    src3,
                })
            }
            "call" => {
                let a = self.args(rest, 1)?;
                self.call_reloc(a[0])?;
                self.push(Inst::Call { target: t0, num: 0 })
            }
            "for" => {
                let a = self.args(rest, 1)?;
                let i = match self.operand(a[0], false)?.reg {
                    Reg::Int(n) => {
                        IntReg::new(n).ok_or_else(|| self.err("invalid integer vector uniform"))?
                    }
                    _ => return Err(self.err(format!("invalid integer vector uniform: {}", a[0]))),
                };
                self.push_block(BlockKind::For)?;
                self.push(Inst::Loop { i, last: t0 })
            }
            "breakc" | "callc" | "ifc" | "jmpc" => {
                let n = if matches!(name, "callc" | "jmpc") {
                    2
                } else {
                    1
                };
                let a = self.args(rest, n)?;
                let cond = parse_condition(a[0]).map_err(|m| self.err(m))?;
                match name {
                    "breakc" => self.push(Inst::BreakC { cond }),
                    "callc" => {
                        self.call_reloc(a[1])?;
                        self.push(Inst::CallC {
                            cond,
                            target: t0,
                            num: 0,
                        })
                    }
                    "jmpc" => {
                        self.label_reloc(a[1])?;
                        self.push(Inst::JmpC { cond, target: t0 })
                    }
                    _ => {
                        self.push_block(BlockKind::If { else_start: None })?;
                        self.push(Inst::IfC {
                            cond,
                            dst: t0,
                            num: 0,
                        })
                    }
                }
            }
            "callu" | "ifu" | "jmpu" => {
                let n = if name == "ifu" { 1 } else { 2 };
                let a = self.args(rest, n)?;
                let (if_false, reg) = match a[0].strip_prefix('!') {
                    Some(r) if name == "jmpu" => (true, r),
                    Some(_) => {
                        let which = if name == "callu" { "CALLU" } else { "IFU" };
                        return Err(self.err(format!(
                            "Inverting the condition is not supported by {which}"
                        )));
                    }
                    None => (false, a[0]),
                };
                let b = self.bool_reg(reg)?;
                match name {
                    "callu" => {
                        self.call_reloc(a[1])?;
                        self.push(Inst::CallU {
                            b,
                            target: t0,
                            num: 0,
                        })
                    }
                    "jmpu" => {
                        self.label_reloc(a[1])?;
                        self.push(Inst::JmpU {
                            b,
                            if_false,
                            target: t0,
                        })
                    }
                    _ => {
                        self.push_block(BlockKind::If { else_start: None })?;
                        self.push(Inst::IfU { b, dst: t0, num: 0 })
                    }
                }
            }
            "setemit" => {
                let args = comma_args(rest);
                if args.is_empty() || args.len() > 2 {
                    return Err(self.err("setemit takes a vertex id and optional flags"));
                }
                let vertex = parse_uint(args[0])
                    .filter(|&v| v <= 2)
                    .ok_or_else(|| self.err(format!("invalid vertex id: {}", args[0])))?
                    as u8;
                let (mut primitive, mut winding) = (false, false);
                for flag in args
                    .get(1)
                    .map(|f| super::text::blank_args(f))
                    .unwrap_or_default()
                {
                    match flag.to_ascii_lowercase().as_str() {
                        "prim" | "primitive" => primitive = true,
                        "inv" | "invert" => winding = true,
                        _ => return Err(self.err(format!("unknown setemit flag: {flag}"))),
                    }
                }
                let d = self.dvle();
                if !d.geo {
                    d.geo = true;
                    d.compat_geo = true;
                }
                self.push(Inst::SetEmit {
                    vertex,
                    primitive,
                    winding,
                })
            }
            _ => Err(self.err(format!("invalid instruction: {name}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions() {
        let c = parse_condition("!cmp.x && !cmp.y").unwrap();
        assert_eq!((c.op, c.ref_x, c.ref_y), (CondOp::And, false, false));
        let c = parse_condition("!cmp.y | !cmp.x").unwrap();
        assert_eq!((c.op, c.ref_x, c.ref_y), (CondOp::Or, false, false));
        let c = parse_condition("!cmp.y").unwrap();
        assert_eq!((c.op, c.ref_x, c.ref_y), (CondOp::Y, true, false));
        assert!(parse_condition("cmp.x && cmp.x").is_err());
        assert!(parse_condition("cmp.z").is_err());
    }
}
