//! The 24-byte token and the bit layout of its fields, in one place.
//!
//! ```text
//! token       [opcode u32][destination u32][source 1 u64][source 2 or sampler u64]  (LE)
//! destination ----TTTT ----MMMM NNNNNNNN NNNNNNNN         T type, M mask, N number
//! source      D------- ------QQ ----IIII ----TTTT SSSSSSSS OOOOOOOO N(16)
//!             D indirect, Q index lane, I index type, T type, S swizzle, O offset, N number
//! sampler     FFFFMMMM WWWWSSSS DDDDffff ----TTTT -------- BBBBBBBB N(16)
//!             F filter, M mip, W wrap, S special, D dimension, f format, T type (5),
//!             B LOD bias (signed eighths), N sampler number
//! ```
//!
//! Everything here works on plain integers, so that the validator can look at any bytes,
//! including ones that no typed [`Inst`](crate::Inst) describes.

use crate::header::TOKEN_LEN;

/// The four fields of a token, unchecked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct RawToken {
    pub opcode: u32,
    pub dest: u32,
    pub src1: u64,
    pub src2: u64,
}

impl RawToken {
    /// Splits 24 bytes into fields.
    pub fn from_bytes(b: &[u8; TOKEN_LEN]) -> RawToken {
        let [
            o0,
            o1,
            o2,
            o3,
            d0,
            d1,
            d2,
            d3,
            a0,
            a1,
            a2,
            a3,
            a4,
            a5,
            a6,
            a7,
            b0,
            b1,
            b2,
            b3,
            b4,
            b5,
            b6,
            b7,
        ] = *b;
        RawToken {
            opcode: u32::from_le_bytes([o0, o1, o2, o3]),
            dest: u32::from_le_bytes([d0, d1, d2, d3]),
            src1: u64::from_le_bytes([a0, a1, a2, a3, a4, a5, a6, a7]),
            src2: u64::from_le_bytes([b0, b1, b2, b3, b4, b5, b6, b7]),
        }
    }

    /// Joins the fields into 24 bytes.
    pub fn to_bytes(self) -> [u8; TOKEN_LEN] {
        let mut out = [0u8; TOKEN_LEN];
        let parts = self
            .opcode
            .to_le_bytes()
            .into_iter()
            .chain(self.dest.to_le_bytes())
            .chain(self.src1.to_le_bytes())
            .chain(self.src2.to_le_bytes());
        for (slot, byte) in out.iter_mut().zip(parts) {
            *slot = byte;
        }
        out
    }

    /// The tokens of a byte slice (whole tokens only).
    pub fn split(body: &[u8]) -> impl Iterator<Item = RawToken> + '_ {
        body.chunks_exact(TOKEN_LEN).filter_map(|c| {
            let arr: &[u8; TOKEN_LEN] = c.try_into().ok()?;
            Some(RawToken::from_bytes(arr))
        })
    }
}

/// The destination field's parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawDest {
    pub number: u16,
    pub mask: u8,
    pub ty: u8,
    /// Bits that must be zero (20–23, 28–31), in place.
    pub reserved: u32,
}

pub(crate) const DEST_RESERVED: u32 = 0xf0f0_0000;

impl RawDest {
    pub fn unpack(d: u32) -> RawDest {
        RawDest {
            number: (d & 0xffff) as u16,
            mask: ((d >> 16) & 0xf) as u8,
            ty: ((d >> 24) & 0xf) as u8,
            reserved: d & DEST_RESERVED,
        }
    }

    pub fn pack(number: u16, mask: u8, ty: u8) -> u32 {
        u32::from(number) | u32::from(mask & 0xf) << 16 | u32::from(ty & 0xf) << 24
    }
}

/// The source field's parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawSource {
    pub number: u16,
    pub offset: u8,
    pub swizzle: u8,
    pub ty: u8,
    pub index_ty: u8,
    pub select: u8,
    pub indirect: bool,
    /// Bits that must be zero (36–39, 44–47, 50–62), in place.
    pub reserved: u64,
}

pub(crate) const SOURCE_RESERVED: u64 = 0x7ffc_f0f0_0000_0000;

impl RawSource {
    pub fn unpack(s: u64) -> RawSource {
        RawSource {
            number: (s & 0xffff) as u16,
            offset: ((s >> 16) & 0xff) as u8,
            swizzle: ((s >> 24) & 0xff) as u8,
            ty: ((s >> 32) & 0xf) as u8,
            index_ty: ((s >> 40) & 0xf) as u8,
            select: ((s >> 48) & 0x3) as u8,
            indirect: s >> 63 != 0,
            reserved: s & SOURCE_RESERVED,
        }
    }

    pub fn pack(self) -> u64 {
        u64::from(self.number)
            | u64::from(self.offset) << 16
            | u64::from(self.swizzle) << 24
            | u64::from(self.ty & 0xf) << 32
            | u64::from(self.index_ty & 0xf) << 40
            | u64::from(self.select & 0x3) << 48
            | u64::from(self.indirect) << 63
    }
}

/// The sampler field's parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawSampler {
    pub number: u16,
    pub bias: i8,
    pub ty: u8,
    pub format: u8,
    pub dimension: u8,
    pub special: u8,
    pub wrap: u8,
    pub mipmap: u8,
    pub filter: u8,
    /// Bits that must be zero (24–31, 36–39), in place.
    pub reserved: u64,
}

pub(crate) const SAMPLER_RESERVED: u64 = 0x0000_00f0_ff00_0000;

impl RawSampler {
    pub fn unpack(s: u64) -> RawSampler {
        RawSampler {
            number: (s & 0xffff) as u16,
            bias: ((s >> 16) & 0xff) as u8 as i8,
            ty: ((s >> 32) & 0xf) as u8,
            format: ((s >> 40) & 0xf) as u8,
            dimension: ((s >> 44) & 0xf) as u8,
            special: ((s >> 48) & 0xf) as u8,
            wrap: ((s >> 52) & 0xf) as u8,
            mipmap: ((s >> 56) & 0xf) as u8,
            filter: ((s >> 60) & 0xf) as u8,
            reserved: s & SAMPLER_RESERVED,
        }
    }

    pub fn pack(self) -> u64 {
        u64::from(self.number)
            | u64::from(self.bias as u8) << 16
            | u64::from(self.ty & 0xf) << 32
            | u64::from(self.format & 0xf) << 40
            | u64::from(self.dimension & 0xf) << 44
            | u64::from(self.special & 0xf) << 48
            | u64::from(self.wrap & 0xf) << 52
            | u64::from(self.mipmap & 0xf) << 56
            | u64::from(self.filter & 0xf) << 60
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_fields() {
        // vc[va0.x+5] from relative_vertex.agal: 00 00 05 e4 01 00 00 80
        let s = u64::from_le_bytes([0x00, 0x00, 0x05, 0xe4, 0x01, 0x00, 0x00, 0x80]);
        let r = RawSource::unpack(s);
        assert_eq!((r.number, r.offset, r.swizzle, r.ty), (0, 5, 0xe4, 1));
        assert!(r.indirect && r.reserved == 0 && r.index_ty == 0 && r.select == 0);
        assert_eq!(r.pack(), s);
        // fs0 <cube,linear,mipnone,clamp>: 00 00 00 00 05 10 00 10
        let s = u64::from_le_bytes([0, 0, 0, 0, 0x05, 0x10, 0x00, 0x10]);
        let r = RawSampler::unpack(s);
        assert_eq!(
            (r.ty, r.dimension, r.filter, r.mipmap, r.wrap),
            (5, 1, 1, 0, 0)
        );
        assert_eq!(r.pack(), s);
        let d = RawDest::unpack(0x030f_0000);
        assert_eq!((d.number, d.mask, d.ty, d.reserved), (0, 0xf, 3, 0));
    }

    #[test]
    fn bytes_round_trip() {
        let t = RawToken {
            opcode: 0x18,
            dest: 0x030f_0000,
            src1: 0xe400_0000,
            src2: 0x1_e400_0000,
        };
        assert_eq!(RawToken::from_bytes(&t.to_bytes()), t);
    }
}
