//! Operand descriptors and the table picasso builds of them.
//!
//! A descriptor (one 32-bit word) holds what does not fit in an instruction word: the destination
//! write mask, and for each of up to three sources its negation bit and swizzle selector:
//!
//! ```text
//!  30......23 22 21......14 13 12.......5  4  3..0
//! | src3 sel |n3| src2 sel |n2| src1 sel |n1| mask |   mask: bit 3 = x … bit 0 = w
//! ```
//!
//! picasso shares descriptors between instructions. Each instruction brings a descriptor and a
//! *care mask* of the bits it actually depends on: the write mask always (except CMP, which
//! writes no register), the negation bit of each source it reads, and only those swizzle lanes
//! its operation reads (component-wise operations read the lanes they write; DP3 ignores lane w;
//! DPH ignores lane w of src1; EX2/LG2/RCP/RSQ read lane x; MOVA the lanes of its mask; CMP lanes
//! x and y of src1 but all of src2; DP4, DST and LITP read everything). The table is searched
//! first-fit for an entry that agrees on the bits both care about; the match then takes over the
//! newcomer's cared bits and cares about them too. Bits nobody cares about keep whatever the
//! entry's first user wrote, which is why listings show stray lanes.
//!
//! MAD and MADI have a 5-bit descriptor field. When a MAD's descriptor lands at 32 or above, it
//! is swapped with the first entry below 32 that no MAD uses, and every other instruction naming
//! either entry is renumbered ([`DescTable::alloc`] reports the swap so the caller can do that).

use crate::inst::{BinaryOp, Inst, UnaryOp};
use crate::limits;
use crate::operand::{Mask, Source, Swizzle};

/// What one instruction needs from the table: the descriptor and the bits it depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DescRequest {
    /// The descriptor as the instruction spells it (unused sources are zero).
    pub value: u32,
    /// The bits of `value` the instruction depends on.
    pub care: u32,
    /// Whether it comes from a MAD/MADI (5-bit descriptor field).
    pub mad: bool,
}

/// The 9 bits of one source: negation in bit 0, selector in bits 1–8.
fn source_bits(s: &Source) -> u32 {
    u32::from(s.negate) | (u32::from(s.swizzle.selector()) << 1)
}

/// Packs a descriptor from its fields (`mask` in descriptor order, sources as 9-bit groups).
fn pack(mask: u32, src1: u32, src2: u32, src3: u32) -> u32 {
    mask | (src1 << 4) | (src2 << 13) | (src3 << 22)
}

/// Care bits of one source group whose swizzle lanes `lanes` (bit i = lane i, x = bit 0) are read.
fn lane_care(lanes: u8) -> u32 {
    let mut care = 1; // the negation bit
    for lane in 0..4 {
        if lanes & (1 << lane) != 0 {
            care |= 3 << (1 + 6 - 2 * lane);
        }
    }
    care
}

/// The descriptor request of an instruction, or `None` for flow-control instructions.
pub fn request(inst: &Inst) -> Option<DescRequest> {
    const ALL: u8 = 0xF;
    let (value, care, mad) = match inst {
        Inst::Binary {
            op,
            dst,
            src1,
            src2,
            ..
        } => {
            let written = dst.mask.bits();
            let (l1, l2) = match op {
                BinaryOp::Add
                | BinaryOp::Mul
                | BinaryOp::Sge
                | BinaryOp::Slt
                | BinaryOp::Max
                | BinaryOp::Min => (written, written),
                BinaryOp::Dp3 => (0x7, 0x7),
                BinaryOp::Dph => (0x7, ALL),
                BinaryOp::Dp4 | BinaryOp::Dst => (ALL, ALL),
            };
            let m = u32::from(dst.mask.descriptor_bits());
            (
                pack(m, source_bits(src1), source_bits(src2), 0),
                pack(0xF, lane_care(l1), lane_care(l2), 0),
                false,
            )
        }
        Inst::Unary { op, dst, src } => {
            let l1 = match op {
                UnaryOp::Flr | UnaryOp::Mov => dst.mask.bits(),
                UnaryOp::Ex2 | UnaryOp::Lg2 | UnaryOp::Rcp | UnaryOp::Rsq => 0x1,
                UnaryOp::Litp => ALL,
            };
            let m = u32::from(dst.mask.descriptor_bits());
            (
                pack(m, source_bits(src), 0, 0),
                pack(0xF, lane_care(l1), 0, 0),
                false,
            )
        }
        Inst::Mova { mask, src } => {
            let m = u32::from(mask.descriptor_bits());
            let l1 = mask.bits() & 0x3;
            (
                pack(m, source_bits(src), 0, 0),
                pack(0xF, lane_care(l1), 0, 0),
                false,
            )
        }
        Inst::Cmp { src1, src2, .. } => (
            pack(0, source_bits(src1), source_bits(src2), 0),
            pack(0, lane_care(0x3), lane_care(ALL), 0),
            false,
        ),
        Inst::Mad {
            dst,
            src1,
            src2,
            src3,
            ..
        } => {
            let l = lane_care(dst.mask.bits());
            let m = u32::from(dst.mask.descriptor_bits());
            (
                pack(m, source_bits(src1), source_bits(src2), source_bits(src3)),
                pack(0xF, l, l, l),
                true,
            )
        }
        _ => return None,
    };
    Some(DescRequest { value, care, mad })
}

/// A descriptor's fields, for decoding and listings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DescFields {
    /// The destination write mask.
    pub mask: Mask,
    /// Negation and swizzle of src1, src2 and src3.
    pub src: [(bool, Swizzle); 3],
}

impl DescFields {
    /// Splits a descriptor word into its fields.
    pub fn unpack(word: u32) -> DescFields {
        let group = |i: u32| {
            let g = word >> (4 + 9 * i);
            (g & 1 == 1, Swizzle::from_selector((g >> 1) as u8))
        };
        DescFields {
            mask: Mask::from_descriptor_bits((word & 0xF) as u8),
            src: [group(0), group(1), group(2)],
        }
    }
}

/// A swap the MAD rule performed: entries `a` and `b` traded places.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Swap {
    /// The low entry (below 32) that was free of MADs.
    pub low: usize,
    /// The entry the MAD was first given (32 or more).
    pub high: usize,
}

/// Why [`DescTable::alloc`] failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocError {
    /// The table is full (128 entries).
    Full,
    /// A MAD needs an entry below 32 and all of them are used by MADs.
    NoMadSlot,
}

/// picasso's descriptor table under construction.
#[derive(Clone, Debug, Default)]
pub struct DescTable {
    entries: Vec<u32>,
    care: Vec<u32>,
    mad_used: u32,
}

impl DescTable {
    /// An empty table.
    pub fn new() -> DescTable {
        DescTable::default()
    }

    /// The descriptor words so far.
    pub fn entries(&self) -> &[u32] {
        &self.entries
    }

    /// Consumes the table, giving its words.
    pub fn into_entries(self) -> Vec<u32> {
        self.entries
    }

    /// Finds or adds an entry for `req` (first fit), applying the MAD swap. Returns the entry
    /// number and, when a swap happened, which entries traded places: every *non-MAD*
    /// instruction already pointing at one of them must then point at the other.
    pub fn alloc(&mut self, req: DescRequest) -> Result<(usize, Option<Swap>), AllocError> {
        let mut id = None;
        for (i, (entry, care)) in self
            .entries
            .iter_mut()
            .zip(self.care.iter_mut())
            .enumerate()
        {
            let common = req.care & *care;
            if req.value & common == *entry & common {
                *entry = (*entry & !req.care) | (req.value & req.care);
                *care |= req.care;
                id = Some(i);
                break;
            }
        }
        let id = match id {
            Some(i) => i,
            None => {
                if self.entries.len() == limits::MAX_OPERAND_DESCRIPTORS {
                    return Err(AllocError::Full);
                }
                self.entries.push(req.value);
                self.care.push(req.care);
                self.entries.len() - 1
            }
        };
        if !req.mad {
            return Ok((id, None));
        }
        let (id, swap) = if id >= limits::MAD_DESCRIPTOR_LIMIT {
            let low = (0..limits::MAD_DESCRIPTOR_LIMIT)
                .find(|&i| self.mad_used & (1 << i) == 0)
                .ok_or(AllocError::NoMadSlot)?;
            // `low` may lie beyond the table when it has fewer than 32 entries; that cannot
            // happen here because `id` >= 32 implies at least 33 entries.
            self.entries.swap(low, id);
            self.care.swap(low, id);
            (low, Some(Swap { low, high: id }))
        } else {
            (id, None)
        };
        self.mad_used |= 1 << id;
        Ok((id, swap))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operand::{Component, Dest, DstReg, Source, SrcReg};

    #[test]
    fn simple_tri_descriptors() {
        // shbin-format.md §1.10: `mov r0.xyz, v0` then `mov r0.w, c95.yyyy`.
        let mut t = DescTable::new();
        let xyz = Mask::of(&[Component::X, Component::Y, Component::Z]);
        let r0 = Dest::new(DstReg::Temp(0));
        let mov1 =
            Inst::unary(UnaryOp::Mov, r0.masked(xyz), Source::new(SrcReg::Input(0))).unwrap();
        let w = Mask::of(&[Component::W]);
        let c95y = Source::new(SrcReg::Const(95)).swizzled(Swizzle::broadcast(Component::Y));
        let mov2 = Inst::unary(UnaryOp::Mov, r0.masked(w), c95y).unwrap();
        assert_eq!(t.alloc(request(&mov1).unwrap()), Ok((0, None)));
        assert_eq!(t.alloc(request(&mov2).unwrap()), Ok((1, None)));
        assert_eq!(t.entries(), &[0x36E, 0xAA1]);
    }
}
