//! The vocabulary of virtual instructions both instruction sets share: what an instruction
//! writes ([`VDst`]), and what allocation asks of one ([`VInst`]: the temporaries it reads,
//! what it writes, and from those its regalloc2 operands).

use regalloc2::{Operand, VReg};

use crate::select::Piece;

/// What an instruction writes: `M` is the instruction set's lane mask, `O` a register of
/// its own files (an output, a varying) written in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VDst<M, O> {
    /// A new temporary (its other lanes undefined).
    Temp(VReg, M),
    /// More lanes of a temporary: `new` is `prev` with the lanes of `mask` written;
    /// allocation gives both one register.
    Tied {
        /// The value so far.
        prev: VReg,
        /// The value with these lanes written.
        new: VReg,
        /// The lanes written.
        mask: M,
    },
    /// A register of the instruction set's own (an output), written in place.
    Out(O, M),
}

impl<M: Copy, O> VDst<M, O> {
    /// The lanes written.
    pub fn mask(&self) -> M {
        match *self {
            VDst::Temp(_, m) | VDst::Tied { mask: m, .. } | VDst::Out(_, m) => m,
        }
    }

    /// The destination of a piece of a vector (see [`Piece`]), writing `mask`.
    pub fn piece(piece: Piece, mask: M) -> Self {
        match piece {
            Piece::Fresh(new) => VDst::Temp(new, mask),
            Piece::Tied { prev, new } => VDst::Tied { prev, new, mask },
        }
    }
}

/// A virtual instruction, as allocation sees it.
pub trait VInst {
    /// Its lane mask.
    type Mask: Copy;
    /// Its registers written in place.
    type Out;
    /// The temporaries its sources read, in the order the emitter reads their allocations
    /// back.
    fn temps_read(&self) -> Vec<VReg>;
    /// What it writes, if anything.
    fn dst(&self) -> Option<VDst<Self::Mask, Self::Out>>;
    /// The regalloc2 operands, in the order the emitter reads the allocations back: a use
    /// per temporary read, the tied previous value, then the definition.
    fn operands(&self) -> Vec<Operand> {
        plain_operands(self)
    }
}

/// The regalloc2 operands of `inst` from what it reads and writes ([`VInst::operands`]'s
/// default, for an instruction set whose own override handles a few instructions apart).
pub fn plain_operands<V: VInst + ?Sized>(inst: &V) -> Vec<Operand> {
    let mut out: Vec<Operand> = inst
        .temps_read()
        .into_iter()
        .map(Operand::reg_use)
        .collect();
    match inst.dst() {
        Some(VDst::Temp(v, _)) => out.push(Operand::reg_def(v)),
        Some(VDst::Tied { prev, new, .. }) => {
            let idx = out.len();
            out.push(Operand::reg_use(prev));
            out.push(Operand::reg_reuse_def(new, idx));
        }
        Some(VDst::Out(..)) | None => {}
    }
    out
}
