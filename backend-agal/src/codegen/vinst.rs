//! AGAL instructions over virtual registers: what instruction selection produces and register
//! allocation consumes. A source names a temporary by virtual register, or a register of
//! another file (attribute, varying, constant, relative constant) directly: those never
//! occupy a temporary. Swizzles are already the machine's (register lanes), restricted to the
//! lanes the operation reads.

use regalloc2::VReg;

use crate::opcode::Opcode;
use crate::operand::{Component, Mask, RegType, Swizzle};
use crate::sampler::Sampler;

/// The register holding a relative index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexReg {
    /// A temporary.
    Temp(VReg),
    /// An attribute or a constant.
    Reg(RegType, u16),
}

/// What a source reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VSrc {
    /// A temporary.
    Temp(VReg),
    /// An attribute, varying or constant register.
    Reg(RegType, u16),
    /// `vc[index.lane + offset]`.
    Indexed {
        /// The register added to the index (the token has no other base).
        offset: u8,
        /// The index register.
        index: IndexReg,
        /// Its lane.
        lane: Component,
    },
}

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VOp {
    /// What it reads.
    pub src: VSrc,
    /// Which register lanes feed the four positions.
    pub swizzle: Swizzle,
}

impl VOp {
    /// Whether it reads a constant register (directly or relatively): Flash allows one per
    /// instruction (#3625).
    pub fn is_constant(&self) -> bool {
        matches!(
            self.src,
            VSrc::Reg(RegType::Constant, _) | VSrc::Indexed { .. }
        )
    }

    /// Whether it is a relative read (#3626 allows one per instruction).
    pub fn is_indirect(&self) -> bool {
        matches!(self.src, VSrc::Indexed { .. })
    }

    /// The temporaries it reads, in operand order (the register, then the index register).
    pub fn temps(&self) -> Vec<VReg> {
        match self.src {
            VSrc::Temp(v) => vec![v],
            VSrc::Indexed {
                index: IndexReg::Temp(v),
                ..
            } => vec![v],
            _ => Vec::new(),
        }
    }
}

/// What an instruction writes: a temporary, or an output (`op`, `oc`, `od`) or varying
/// register, written once.
pub type VDst = machine::inst::VDst<Mask, (RegType, u16)>;

/// One instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VInst {
    /// An arithmetic, comparison or matrix operation (`b` is the matrix's first row).
    Alu {
        /// The operation.
        op: Opcode,
        /// Destination.
        dst: VDst,
        /// First source.
        a: VOp,
        /// Second source, for two-source opcodes.
        b: Option<VOp>,
    },
    /// `tex dst, coord, fsN <flags>`.
    Tex {
        /// Destination.
        dst: VDst,
        /// Coordinates.
        coord: VOp,
        /// The sampler and its flags.
        sampler: Sampler,
    },
    /// `kil a` (a replicated swizzle).
    Kil {
        /// The tested lane.
        a: VOp,
    },
    /// The test of the conditional branch ending the block (`ife`, `ine` or `ifl`). The
    /// emitter places it after the block's register moves, and may invert `ife`/`ine` (with
    /// the arms swapped) so that the first arm is never empty.
    If {
        /// `ife`, `ine` or `ifl`.
        op: Opcode,
        /// First source.
        a: VOp,
        /// Second source.
        b: VOp,
        /// Whether the machine's first arm is the MIR branch's `then` edge.
        then_first: bool,
    },
}

impl VInst {
    /// The sources in operand order.
    pub fn sources(&self) -> Vec<VOp> {
        match *self {
            VInst::Alu { a, b, .. } => std::iter::once(a).chain(b).collect(),
            VInst::Tex { coord, .. } => vec![coord],
            VInst::Kil { a } => vec![a],
            VInst::If { a, b, .. } => vec![a, b],
        }
    }

    /// A copy of the instruction with other sources (same count and order).
    pub fn with_sources(self, s: &[VOp]) -> VInst {
        let get = |i: usize, d: VOp| s.get(i).copied().unwrap_or(d);
        match self {
            VInst::Alu { op, dst, a, b } => VInst::Alu {
                op,
                dst,
                a: get(0, a),
                b: b.map(|b| get(1, b)),
            },
            VInst::Tex {
                dst,
                coord,
                sampler,
            } => VInst::Tex {
                dst,
                coord: get(0, coord),
                sampler,
            },
            VInst::Kil { a } => VInst::Kil { a: get(0, a) },
            VInst::If {
                op,
                a,
                b,
                then_first,
            } => VInst::If {
                op,
                a: get(0, a),
                b: get(1, b),
                then_first,
            },
        }
    }
}

impl machine::inst::VInst for VInst {
    type Mask = Mask;
    type Out = (RegType, u16);

    fn temps_read(&self) -> Vec<VReg> {
        self.sources().iter().flat_map(VOp::temps).collect()
    }

    fn dst(&self) -> Option<VDst> {
        match *self {
            VInst::Alu { dst, .. } | VInst::Tex { dst, .. } => Some(dst),
            VInst::Kil { .. } | VInst::If { .. } => None,
        }
    }
}
