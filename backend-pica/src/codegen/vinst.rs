//! PICA200 instructions over virtual registers: what instruction selection produces and
//! register allocation consumes. Sources name a temporary by virtual register, or a register
//! file operand (input, constant, indexed constant) directly: those never occupy a temporary.

use regalloc2::VReg;

use crate::inst::{BinaryOp, UnaryOp};
use crate::operand::{CmpOp, Mask, RelIndex, Swizzle};

/// What a source reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VSrc {
    /// A temporary.
    Temp(VReg),
    /// `vN`.
    Input(u8),
    /// `cN` (a uniform or a pooled literal).
    Const(u8),
    /// `c[base + index]`.
    Indexed {
        /// The first register.
        base: u8,
        /// The address register.
        index: RelIndex,
    },
}

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VOp {
    /// What it reads.
    pub src: VSrc,
    /// Which components feed the four lanes.
    pub swizzle: Swizzle,
    /// Negated.
    pub neg: bool,
}

impl VOp {
    /// Whether only a wide (7-bit) source slot can hold it: constants.
    pub fn wide_only(&self) -> bool {
        matches!(self.src, VSrc::Const(_) | VSrc::Indexed { .. })
    }

    /// The input register it reads, if any.
    pub fn input(&self) -> Option<u8> {
        match self.src {
            VSrc::Input(n) => Some(n),
            _ => None,
        }
    }

    /// The temporary it reads, if any.
    pub fn temp(&self) -> Option<VReg> {
        match self.src {
            VSrc::Temp(v) => Some(v),
            _ => None,
        }
    }
}

/// What an instruction writes: a temporary, or an output register `oN`.
pub type VDst = machine::inst::VDst<Mask, u8>;

/// One instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VInst {
    /// ADD DP3 DP4 DPH DST MUL SGE SLT MAX MIN (the form is chosen at encoding).
    Binary {
        /// The operation.
        op: BinaryOp,
        /// Destination.
        dst: VDst,
        /// First source.
        a: VOp,
        /// Second source.
        b: VOp,
    },
    /// EX2 LG2 FLR RCP RSQ MOV.
    Unary {
        /// The operation.
        op: UnaryOp,
        /// Destination.
        dst: VDst,
        /// Source.
        src: VOp,
    },
    /// `dst = a * b + c`.
    Mad {
        /// Destination.
        dst: VDst,
        /// First factor.
        a: VOp,
        /// Second factor.
        b: VOp,
        /// Addend.
        c: VOp,
    },
    /// MOVA into a0.x (mask x) or a0.y (mask y).
    Mova {
        /// Which address register.
        mask: Mask,
        /// Source.
        src: VOp,
    },
    /// CMP: sets cmp.x and cmp.y.
    Cmp {
        /// First source.
        a: VOp,
        /// Operator for x.
        x: CmpOp,
        /// Operator for y.
        y: CmpOp,
        /// Second source.
        b: VOp,
    },
    /// SETEMIT (geometry programs): the slot of the next emitted vertex, and whether it
    /// completes a triangle (with inverted winding).
    SetEmit {
        /// Vertex slot, 0–2.
        vertex: u8,
        /// The next EMIT makes a triangle of the three slots.
        primitive: bool,
        /// The triangle's winding is inverted.
        winding: bool,
    },
    /// EMIT: the outputs written since the last one become a vertex.
    Emit,
    /// A procedure's parameters arriving: defines `regs[..count]` in `r0`, `r1`, … (no word).
    Params {
        /// The parameters' virtual registers.
        regs: [VReg; MAX_PARAMS],
        /// How many there are.
        count: u8,
    },
    /// CALL the procedure, its parameters `args[..count]` in `r0`, `r1`, ….
    Call {
        /// The parameters' virtual registers.
        args: [VReg; MAX_PARAMS],
        /// How many there are.
        count: u8,
    },
}

/// The most parameters a procedure takes (each a register).
pub const MAX_PARAMS: usize = 6;

/// Hardware register `r` as regalloc2 names it.
fn preg(r: usize) -> regalloc2::PReg {
    regalloc2::PReg::new(r, regalloc2::RegClass::Float)
}

impl VInst {
    /// The sources in slot order.
    pub fn sources(&self) -> Vec<VOp> {
        match *self {
            VInst::Binary { a, b, .. } | VInst::Cmp { a, b, .. } => vec![a, b],
            VInst::Unary { src, .. } | VInst::Mova { src, .. } => vec![src],
            VInst::Mad { a, b, c, .. } => vec![a, b, c],
            VInst::SetEmit { .. } | VInst::Emit | VInst::Params { .. } | VInst::Call { .. } => {
                Vec::new()
            }
        }
    }
}

impl machine::inst::VInst for VInst {
    type Mask = Mask;
    type Out = u8;

    fn temps_read(&self) -> Vec<VReg> {
        match *self {
            VInst::Call { args, count } => args[..usize::from(count)].to_vec(),
            _ => self.sources().iter().filter_map(VOp::temp).collect(),
        }
    }

    fn dst(&self) -> Option<VDst> {
        match *self {
            VInst::Binary { dst, .. } | VInst::Unary { dst, .. } | VInst::Mad { dst, .. } => {
                Some(dst)
            }
            VInst::Mova { .. }
            | VInst::Cmp { .. }
            | VInst::SetEmit { .. }
            | VInst::Emit
            | VInst::Params { .. }
            | VInst::Call { .. } => None,
        }
    }

    fn operands(&self) -> Vec<regalloc2::Operand> {
        match *self {
            VInst::Params { regs, count } => (0..usize::from(count))
                .map(|k| regalloc2::Operand::reg_fixed_def(regs[k], preg(k)))
                .collect(),
            VInst::Call { args, count } => (0..usize::from(count))
                .map(|k| regalloc2::Operand::reg_fixed_use(args[k], preg(k)))
                .collect(),
            _ => machine::inst::plain_operands(self),
        }
    }
}
