//! The machine instruction with physical operands: one value per PICA200 instruction word.
//!
//! [`Inst`] names operations, not encodings: a format-1 operation keeps its [`Form`] (which source
//! is the wide, 7-bit one) because the form decides which slot may hold a constant register, and
//! MAD keeps its form for the same reason. The checked constructors ([`Inst::binary`],
//! [`Inst::mad`], …) pick the form picasso picks and refuse operands no form can encode;
//! [`Inst::validate`] states every rule and is run again by the encoder, so an instruction built
//! field by field cannot be mis-encoded either.
//!
//! Operand descriptors are not part of an instruction: [`crate::encode::encode_program`]
//! allocates them for a whole program, the way picasso does.

use crate::error::InstError;
use crate::operand::{
    BoolReg, CmpOp, Condition, Dest, IntReg, Mask, RelIndex, Source, SrcReg, Target,
};

/// Every opcode, with its value in the 6-bit opcode field (CMP, MADI and MAD use fewer bits, so
/// they own several values; this enum names the lowest).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opcode {
    /// `add`, format 1.
    Add = 0x00,
    /// `dp3`, format 1.
    Dp3 = 0x01,
    /// `dp4`, format 1.
    Dp4 = 0x02,
    /// `dph`, format 1.
    Dph = 0x03,
    /// `dst`, format 1.
    Dst = 0x04,
    /// `ex2`, format 1u.
    Ex2 = 0x05,
    /// `lg2`, format 1u.
    Lg2 = 0x06,
    /// `litp`, format 1u.
    Litp = 0x07,
    /// `mul`, format 1.
    Mul = 0x08,
    /// `sge`, format 1.
    Sge = 0x09,
    /// `slt`, format 1.
    Slt = 0x0A,
    /// `flr`, format 1u.
    Flr = 0x0B,
    /// `max`, format 1.
    Max = 0x0C,
    /// `min`, format 1.
    Min = 0x0D,
    /// `rcp`, format 1u.
    Rcp = 0x0E,
    /// `rsq`, format 1u.
    Rsq = 0x0F,
    /// `mova`, format 1u.
    Mova = 0x12,
    /// `mov`, format 1u.
    Mov = 0x13,
    /// `dphi`, format 1i.
    Dphi = 0x18,
    /// `dsti`, format 1i.
    Dsti = 0x19,
    /// `sgei`, format 1i.
    Sgei = 0x1A,
    /// `slti`, format 1i.
    Slti = 0x1B,
    /// `break`, format 0.
    Break = 0x20,
    /// `nop`, format 0.
    Nop = 0x21,
    /// `end`, format 0.
    End = 0x22,
    /// `breakc`, format 2.
    Breakc = 0x23,
    /// `call`, format 2.
    Call = 0x24,
    /// `callc`, format 2.
    Callc = 0x25,
    /// `callu`, format 3.
    Callu = 0x26,
    /// `ifu`, format 3.
    Ifu = 0x27,
    /// `ifc`, format 2.
    Ifc = 0x28,
    /// `loop`, format 3.
    Loop = 0x29,
    /// `emit`, format 0.
    Emit = 0x2A,
    /// `setemit`, format 4.
    Setemit = 0x2B,
    /// `jmpc`, format 2.
    Jmpc = 0x2C,
    /// `jmpu`, format 3.
    Jmpu = 0x2D,
    /// `cmp`, format 1c (0x2E-0x2F).
    Cmp = 0x2E,
    /// `madi`, format 5i (0x30-0x37).
    Madi = 0x30,
    /// `mad`, format 5 (0x38-0x3F).
    Mad = 0x38,
}

impl Opcode {
    /// The opcode of a word (its top six bits), if it names one.
    pub fn of_word(word: u32) -> Option<Opcode> {
        use Opcode::*;
        Some(match word >> 26 {
            0x00 => Add,
            0x01 => Dp3,
            0x02 => Dp4,
            0x03 => Dph,
            0x04 => Dst,
            0x05 => Ex2,
            0x06 => Lg2,
            0x07 => Litp,
            0x08 => Mul,
            0x09 => Sge,
            0x0A => Slt,
            0x0B => Flr,
            0x0C => Max,
            0x0D => Min,
            0x0E => Rcp,
            0x0F => Rsq,
            0x12 => Mova,
            0x13 => Mov,
            0x18 => Dphi,
            0x19 => Dsti,
            0x1A => Sgei,
            0x1B => Slti,
            0x20 => Break,
            0x21 => Nop,
            0x22 => End,
            0x23 => Breakc,
            0x24 => Call,
            0x25 => Callc,
            0x26 => Callu,
            0x27 => Ifu,
            0x28 => Ifc,
            0x29 => Loop,
            0x2A => Emit,
            0x2B => Setemit,
            0x2C => Jmpc,
            0x2D => Jmpu,
            0x2E | 0x2F => Cmp,
            0x30..=0x37 => Madi,
            0x38..=0x3F => Mad,
            _ => return None,
        })
    }

    /// The mnemonic, in lower case (`dphi`, `madi` for the inverted forms).
    pub fn name(self) -> &'static str {
        use Opcode::*;
        match self {
            Add => "add",
            Dp3 => "dp3",
            Dp4 => "dp4",
            Dph => "dph",
            Dst => "dst",
            Ex2 => "ex2",
            Lg2 => "lg2",
            Litp => "litp",
            Mul => "mul",
            Sge => "sge",
            Slt => "slt",
            Flr => "flr",
            Max => "max",
            Min => "min",
            Rcp => "rcp",
            Rsq => "rsq",
            Mova => "mova",
            Mov => "mov",
            Dphi => "dphi",
            Dsti => "dsti",
            Sgei => "sgei",
            Slti => "slti",
            Break => "break",
            Nop => "nop",
            End => "end",
            Breakc => "breakc",
            Call => "call",
            Callc => "callc",
            Callu => "callu",
            Ifu => "ifu",
            Ifc => "ifc",
            Loop => "loop",
            Emit => "emit",
            Setemit => "setemit",
            Jmpc => "jmpc",
            Jmpu => "jmpu",
            Cmp => "cmp",
            Madi => "madi",
            Mad => "mad",
        }
    }
}

/// A two-source format-1 operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `dst = src1 + src2`.
    Add,
    /// Three-component dot product.
    Dp3,
    /// Four-component dot product.
    Dp4,
    /// `dot(vec4(src1.xyz, 1), src2)`.
    Dph,
    /// `(1, src1.y * src2.y, src1.z, src2.w)`.
    Dst,
    /// `src1 * src2`.
    Mul,
    /// `src1 >= src2 ? 1 : 0`.
    Sge,
    /// `src1 < src2 ? 1 : 0`.
    Slt,
    /// `src1 > src2 ? src1 : src2` (operand order matters for NaN).
    Max,
    /// `src1 < src2 ? src1 : src2` (operand order matters for NaN).
    Min,
}

impl BinaryOp {
    /// The opcode of the normal form (format 1).
    pub fn opcode(self) -> Opcode {
        match self {
            BinaryOp::Add => Opcode::Add,
            BinaryOp::Dp3 => Opcode::Dp3,
            BinaryOp::Dp4 => Opcode::Dp4,
            BinaryOp::Dph => Opcode::Dph,
            BinaryOp::Dst => Opcode::Dst,
            BinaryOp::Mul => Opcode::Mul,
            BinaryOp::Sge => Opcode::Sge,
            BinaryOp::Slt => Opcode::Slt,
            BinaryOp::Max => Opcode::Max,
            BinaryOp::Min => Opcode::Min,
        }
    }

    /// The opcode of the inverted form (format 1i), for the four operations that have one.
    pub fn inverted_opcode(self) -> Option<Opcode> {
        match self {
            BinaryOp::Dph => Some(Opcode::Dphi),
            BinaryOp::Dst => Some(Opcode::Dsti),
            BinaryOp::Sge => Some(Opcode::Sgei),
            BinaryOp::Slt => Some(Opcode::Slti),
            _ => None,
        }
    }
}

/// A one-source format-1u operation (MOVA has its own variant).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `2^src.x` in every lane.
    Ex2,
    /// `log2(src.x)` in every lane.
    Lg2,
    /// Partial lighting; also sets the CMP flags.
    Litp,
    /// Floor, per component.
    Flr,
    /// `1 / src.x` in every lane.
    Rcp,
    /// `1 / sqrt(src.x)` in every lane.
    Rsq,
    /// Copy.
    Mov,
}

impl UnaryOp {
    /// The opcode.
    pub fn opcode(self) -> Opcode {
        match self {
            UnaryOp::Ex2 => Opcode::Ex2,
            UnaryOp::Lg2 => Opcode::Lg2,
            UnaryOp::Litp => Opcode::Litp,
            UnaryOp::Flr => Opcode::Flr,
            UnaryOp::Rcp => Opcode::Rcp,
            UnaryOp::Rsq => Opcode::Rsq,
            UnaryOp::Mov => Opcode::Mov,
        }
    }
}

/// Which source of a two- or three-source instruction gets the wide (7-bit, indexable) field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// Format 1 (src1 wide) or MAD (src2 wide).
    Normal,
    /// Format 1i (src2 wide) or MADI (src3 wide).
    Inverted,
}

/// One PICA200 instruction with physical operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Inst {
    /// ADD DP3 DP4 DPH DST MUL SGE SLT MAX MIN, and DPHI DSTI SGEI SLTI when `form` is inverted.
    Binary {
        /// The operation.
        op: BinaryOp,
        /// Which source is wide.
        form: Form,
        /// Destination.
        dst: Dest,
        /// First source.
        src1: Source,
        /// Second source.
        src2: Source,
    },
    /// EX2 LG2 LITP FLR RCP RSQ MOV.
    Unary {
        /// The operation.
        op: UnaryOp,
        /// Destination.
        dst: Dest,
        /// Source (wide).
        src: Source,
    },
    /// MOVA: `a0.x`/`a0.y` = truncated `src.x`/`src.y`, for the components in `mask` (x, y).
    Mova {
        /// Which address registers are written (x = a0.x, y = a0.y).
        mask: Mask,
        /// Source (wide).
        src: Source,
    },
    /// CMP: sets `cmp.x = src1.x <x> src2.x` and `cmp.y = src1.y <y> src2.y`.
    Cmp {
        /// First source (wide).
        src1: Source,
        /// Operator for x.
        x: CmpOp,
        /// Operator for y.
        y: CmpOp,
        /// Second source (narrow).
        src2: Source,
    },
    /// MAD (`form` normal, src2 wide) or MADI (`form` inverted, src3 wide):
    /// `dst = src1 * src2 + src3`.
    Mad {
        /// Which source is wide.
        form: Form,
        /// Destination.
        dst: Dest,
        /// First factor (narrow).
        src1: Source,
        /// Second factor.
        src2: Source,
        /// Addend.
        src3: Source,
    },
    /// NOP.
    Nop,
    /// END: the vertex (or primitive) is done.
    End,
    /// EMIT (geometry shaders).
    Emit,
    /// BREAK out of the innermost loop.
    Break,
    /// BREAKC: break if `cond`.
    BreakC {
        /// The condition.
        cond: Condition,
    },
    /// CALL the `num` words at `target`.
    Call {
        /// Procedure start.
        target: Target,
        /// Procedure length in words.
        num: u8,
    },
    /// CALLC: call if `cond`.
    CallC {
        /// The condition.
        cond: Condition,
        /// Procedure start.
        target: Target,
        /// Procedure length in words.
        num: u8,
    },
    /// CALLU: call if `b` is true.
    CallU {
        /// The boolean uniform.
        b: BoolReg,
        /// Procedure start.
        target: Target,
        /// Procedure length in words.
        num: u8,
    },
    /// IFC: if `cond`, run up to `dst` then skip `num` words; else jump to `dst`.
    IfC {
        /// The condition.
        cond: Condition,
        /// First word after the then-part (start of the else-part).
        dst: Target,
        /// Length of the else-part.
        num: u8,
    },
    /// IFU: like IFC on a boolean uniform.
    IfU {
        /// The boolean uniform.
        b: BoolReg,
        /// First word after the then-part (start of the else-part).
        dst: Target,
        /// Length of the else-part.
        num: u8,
    },
    /// LOOP over the body up to `last` (inclusive), `i.x + 1` times; aL = i.y, += i.z.
    Loop {
        /// The integer uniform with the loop parameters.
        i: IntReg,
        /// The body's last word.
        last: Target,
    },
    /// JMPC: jump to `target` if `cond`.
    JmpC {
        /// The condition.
        cond: Condition,
        /// Where to jump.
        target: Target,
    },
    /// JMPU: jump to `target` if `b` (or if not `b`, when `if_false`).
    JmpU {
        /// The boolean uniform.
        b: BoolReg,
        /// Jump when `b` is false instead (NUM bit 0).
        if_false: bool,
        /// Where to jump.
        target: Target,
    },
    /// SETEMIT (geometry shaders).
    SetEmit {
        /// Vertex id within the primitive (2 bits).
        vertex: u8,
        /// Emit a primitive with the next EMIT.
        primitive: bool,
        /// Inverted winding.
        winding: bool,
    },
}

fn no_index(slot: &'static str, s: &Source) -> Result<(), InstError> {
    if s.index == RelIndex::None {
        Ok(())
    } else {
        Err(InstError::IndexInNarrowSlot { slot })
    }
}

fn narrow(slot: &'static str, s: &Source) -> Result<(), InstError> {
    if !s.reg.is_narrow() {
        return Err(InstError::ConstInNarrowSlot { slot, reg: s.reg });
    }
    no_index(slot, s)
}

fn index_on_constant(slot: &'static str, s: &Source) -> Result<(), InstError> {
    if s.index != RelIndex::None && s.reg.is_narrow() {
        return Err(InstError::IndexOnNonConstant { slot, reg: s.reg });
    }
    Ok(())
}

fn one_input(sources: &[&Source]) -> Result<(), InstError> {
    let mut seen: Option<SrcReg> = None;
    for s in sources {
        if let SrcReg::Input(_) = s.reg {
            match seen {
                Some(a) if a != s.reg => return Err(InstError::TwoInputs { a, b: s.reg }),
                _ => seen = Some(s.reg),
            }
        }
    }
    Ok(())
}

impl Inst {
    /// A two-source operation in the form picasso picks: inverted when the operation has an
    /// inverted form, `src1` is an input or temporary and `src2` a constant; normal otherwise.
    pub fn binary(op: BinaryOp, dst: Dest, src1: Source, src2: Source) -> Result<Inst, InstError> {
        let inverted =
            op.inverted_opcode().is_some() && src1.reg.is_narrow() && !src2.reg.is_narrow();
        let form = if inverted {
            Form::Inverted
        } else {
            Form::Normal
        };
        let inst = Inst::Binary {
            op,
            form,
            dst,
            src1,
            src2,
        };
        inst.validate()?;
        Ok(inst)
    }

    /// A one-source operation.
    pub fn unary(op: UnaryOp, dst: Dest, src: Source) -> Result<Inst, InstError> {
        let inst = Inst::Unary { op, dst, src };
        inst.validate()?;
        Ok(inst)
    }

    /// MOVA into the address registers in `mask` (x = a0.x, y = a0.y).
    pub fn mova(mask: Mask, src: Source) -> Result<Inst, InstError> {
        let inst = Inst::Mova { mask, src };
        inst.validate()?;
        Ok(inst)
    }

    /// CMP with operators `x` and `y`.
    pub fn cmp(src1: Source, x: CmpOp, y: CmpOp, src2: Source) -> Result<Inst, InstError> {
        let inst = Inst::Cmp { src1, x, y, src2 };
        inst.validate()?;
        Ok(inst)
    }

    /// `dst = src1 * src2 + src3` in the form picasso picks: MADI when `src2` is an input or
    /// temporary and `src3` a constant, MAD otherwise.
    pub fn mad(dst: Dest, src1: Source, src2: Source, src3: Source) -> Result<Inst, InstError> {
        let inverted = src2.reg.is_narrow() && !src3.reg.is_narrow();
        let form = if inverted {
            Form::Inverted
        } else {
            Form::Normal
        };
        let inst = Inst::Mad {
            form,
            dst,
            src1,
            src2,
            src3,
        };
        inst.validate()?;
        Ok(inst)
    }

    /// Checks every operand rule: constants and relative indices only in wide slots, relative
    /// indices only on constant registers, at most one distinct input register, an inverted form
    /// only where one exists, SETEMIT's vertex id in range.
    pub fn validate(&self) -> Result<(), InstError> {
        match self {
            Inst::Binary {
                op,
                form,
                src1,
                src2,
                ..
            } => {
                match form {
                    Form::Normal => narrow("src2", src2)?,
                    Form::Inverted => {
                        if op.inverted_opcode().is_none() {
                            return Err(InstError::NoInvertedForm { op: *op });
                        }
                        narrow("src1", src1)?;
                    }
                }
                index_on_constant("src1", src1)?;
                index_on_constant("src2", src2)?;
                one_input(&[src1, src2])
            }
            Inst::Unary { src, .. } | Inst::Mova { src, .. } => index_on_constant("src1", src),
            Inst::Cmp { src1, src2, .. } => {
                narrow("src2", src2)?;
                index_on_constant("src1", src1)?;
                one_input(&[src1, src2])
            }
            Inst::Mad {
                form,
                src1,
                src2,
                src3,
                ..
            } => {
                narrow("src1", src1)?;
                match form {
                    Form::Normal => narrow("src3", src3)?,
                    Form::Inverted => narrow("src2", src2)?,
                }
                index_on_constant("src2", src2)?;
                index_on_constant("src3", src3)?;
                one_input(&[src1, src2, src3])
            }
            Inst::SetEmit { vertex, .. } if *vertex > 3 => Err(InstError::EmitVertex(*vertex)),
            _ => Ok(()),
        }
    }

    /// The opcode this instruction is encoded with.
    pub fn opcode(&self) -> Opcode {
        match self {
            Inst::Binary {
                op,
                form: Form::Normal,
                ..
            } => op.opcode(),
            Inst::Binary {
                op,
                form: Form::Inverted,
                ..
            } => op.inverted_opcode().unwrap_or(op.opcode()),
            Inst::Unary { op, .. } => op.opcode(),
            Inst::Mova { .. } => Opcode::Mova,
            Inst::Cmp { .. } => Opcode::Cmp,
            Inst::Mad {
                form: Form::Normal, ..
            } => Opcode::Mad,
            Inst::Mad {
                form: Form::Inverted,
                ..
            } => Opcode::Madi,
            Inst::Nop => Opcode::Nop,
            Inst::End => Opcode::End,
            Inst::Emit => Opcode::Emit,
            Inst::Break => Opcode::Break,
            Inst::BreakC { .. } => Opcode::Breakc,
            Inst::Call { .. } => Opcode::Call,
            Inst::CallC { .. } => Opcode::Callc,
            Inst::CallU { .. } => Opcode::Callu,
            Inst::IfC { .. } => Opcode::Ifc,
            Inst::IfU { .. } => Opcode::Ifu,
            Inst::Loop { .. } => Opcode::Loop,
            Inst::JmpC { .. } => Opcode::Jmpc,
            Inst::JmpU { .. } => Opcode::Jmpu,
            Inst::SetEmit { .. } => Opcode::Setemit,
        }
    }

    /// Whether the instruction names an operand descriptor.
    pub fn uses_descriptor(&self) -> bool {
        matches!(
            self,
            Inst::Binary { .. }
                | Inst::Unary { .. }
                | Inst::Mova { .. }
                | Inst::Cmp { .. }
                | Inst::Mad { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operand::{DstReg, SrcReg};

    fn v(n: u8) -> Source {
        Source::new(SrcReg::Input(n))
    }
    fn r(n: u8) -> Source {
        Source::new(SrcReg::Temp(n))
    }
    fn c(n: u8) -> Source {
        Source::new(SrcReg::Const(n))
    }
    fn o0() -> Dest {
        Dest::new(DstReg::Output(0))
    }

    #[test]
    fn form_selection() {
        let i = Inst::binary(BinaryOp::Dph, o0(), v(0), c(1)).unwrap();
        assert_eq!(i.opcode(), Opcode::Dphi);
        let i = Inst::binary(BinaryOp::Dph, o0(), c(1), v(0)).unwrap();
        assert_eq!(i.opcode(), Opcode::Dph);
        let i = Inst::mad(o0(), v(0), r(1), c(2)).unwrap();
        assert_eq!(i.opcode(), Opcode::Madi);
        let i = Inst::mad(o0(), v(0), c(2), r(1)).unwrap();
        assert_eq!(i.opcode(), Opcode::Mad);
    }

    #[test]
    fn constant_in_narrow_slot() {
        let e = Inst::binary(BinaryOp::Add, o0(), v(0), c(1)).unwrap_err();
        assert_eq!(
            e,
            InstError::ConstInNarrowSlot {
                slot: "src2",
                reg: SrcReg::Const(1)
            }
        );
        let e = Inst::binary(BinaryOp::Mul, o0(), c(0), c(1)).unwrap_err();
        assert!(matches!(
            e,
            InstError::ConstInNarrowSlot { slot: "src2", .. }
        ));
        let e = Inst::mad(o0(), c(0), v(0), r(1)).unwrap_err();
        assert!(matches!(
            e,
            InstError::ConstInNarrowSlot { slot: "src1", .. }
        ));
        let e = Inst::mad(o0(), v(0), c(1), c(2)).unwrap_err();
        assert!(matches!(
            e,
            InstError::ConstInNarrowSlot { slot: "src3", .. }
        ));
        let e = Inst::cmp(c(0), CmpOp::Eq, CmpOp::Eq, c(1)).unwrap_err();
        assert!(matches!(
            e,
            InstError::ConstInNarrowSlot { slot: "src2", .. }
        ));
        let bad = Inst::Binary {
            op: BinaryOp::Add,
            form: Form::Inverted,
            dst: o0(),
            src1: v(0),
            src2: c(0),
        };
        assert_eq!(
            bad.validate(),
            Err(InstError::NoInvertedForm { op: BinaryOp::Add })
        );
    }

    #[test]
    fn two_inputs_and_indices() {
        let e = Inst::binary(BinaryOp::Add, o0(), v(0), v(1)).unwrap_err();
        assert!(matches!(e, InstError::TwoInputs { .. }));
        assert!(Inst::binary(BinaryOp::Add, o0(), v(1), v(1)).is_ok());
        let e = Inst::mad(o0(), v(0), c(0), v(2)).unwrap_err();
        assert!(matches!(e, InstError::TwoInputs { .. }));
        let e = Inst::unary(UnaryOp::Mov, o0(), r(0).indexed(RelIndex::A0X)).unwrap_err();
        assert!(matches!(e, InstError::IndexOnNonConstant { .. }));
        // An index on the narrow slot of the inverted form.
        let e = Inst::Binary {
            op: BinaryOp::Dph,
            form: Form::Normal,
            dst: o0(),
            src1: c(0),
            src2: r(0).indexed(RelIndex::A0X),
        }
        .validate()
        .unwrap_err();
        assert_eq!(e, InstError::IndexInNarrowSlot { slot: "src2" });
        assert!(
            Inst::SetEmit {
                vertex: 4,
                primitive: false,
                winding: false
            }
            .validate()
            .is_err()
        );
    }
}
