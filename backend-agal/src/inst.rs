//! The typed instruction: an opcode and the operands its [`Shape`] calls for, with
//! constructors that refuse a shape mismatch, and the exact conversion to and from a token.
//!
//! Conversions are exact both ways: `decode(encode(i)) == i`, and a token that decodes
//! re-encodes to the same 24 bytes. Tokens that no instruction describes (unknown opcode,
//! reserved bits set, stray fields in unused operands) are refused with a [`DecodeErrorKind`];
//! the validator, which works on raw fields, reports those as Flash does.

use crate::opcode::{Opcode, Shape};
use crate::operand::{Address, Component, Dest, Indirect, Mask, RegType, Source, Swizzle};
use crate::program::{DecodeErrorKind, Field};
use crate::sampler::{Dimension, Filter, Format, Mipmap, Sampler, Special, Wrap};
use crate::token::{RawDest, RawSampler, RawSource, RawToken};
use std::fmt;

/// One AGAL instruction (one token).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Inst {
    opcode: Opcode,
    dest: Option<Dest>,
    src1: Option<Source>,
    src2: Option<Operand2>,
}

/// What source 2 holds: a register, or the sampler of `tex`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand2 {
    /// A register source.
    Source(Source),
    /// The sampler of `tex`.
    Sampler(Sampler),
}

/// An instruction whose operands do not fit its opcode's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShapeError {
    /// The opcode.
    pub opcode: Opcode,
    /// The shape it has.
    pub expected: Shape,
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.expected {
            Shape::Unary => "a destination and one source",
            Shape::Binary => "a destination and two sources",
            Shape::Matrix => "a destination, a source and a matrix register",
            Shape::Texture => "a destination, coordinates and a sampler",
            Shape::Kill => "one source and no destination",
            Shape::Condition => "two sources and no destination",
            Shape::Bare => "no operands",
        };
        write!(f, "`{}` takes {what}", self.opcode)
    }
}

impl std::error::Error for ShapeError {}

impl Inst {
    /// An instruction from its parts, if they fit the opcode's shape.
    pub fn new(
        opcode: Opcode,
        dest: Option<Dest>,
        src1: Option<Source>,
        src2: Option<Operand2>,
    ) -> Result<Inst, ShapeError> {
        let shape = opcode.shape();
        let ok = match shape {
            Shape::Unary => dest.is_some() && src1.is_some() && src2.is_none(),
            Shape::Binary | Shape::Matrix => {
                dest.is_some() && src1.is_some() && matches!(src2, Some(Operand2::Source(_)))
            }
            Shape::Texture => {
                dest.is_some() && src1.is_some() && matches!(src2, Some(Operand2::Sampler(_)))
            }
            Shape::Kill => dest.is_none() && src1.is_some() && src2.is_none(),
            Shape::Condition => {
                dest.is_none() && src1.is_some() && matches!(src2, Some(Operand2::Source(_)))
            }
            Shape::Bare => dest.is_none() && src1.is_none() && src2.is_none(),
        };
        if ok {
            Ok(Inst {
                opcode,
                dest,
                src1,
                src2,
            })
        } else {
            Err(ShapeError {
                opcode,
                expected: shape,
            })
        }
    }

    /// `op dest, a` for a one-source opcode (`mov`, `rcp`, `nrm`, `ddx` …).
    pub fn unary(opcode: Opcode, dest: Dest, a: Source) -> Result<Inst, ShapeError> {
        Inst::new(opcode, Some(dest), Some(a), None)
    }

    /// `op dest, a, b` for a two-source opcode, matrix operations included.
    pub fn binary(opcode: Opcode, dest: Dest, a: Source, b: Source) -> Result<Inst, ShapeError> {
        Inst::new(opcode, Some(dest), Some(a), Some(Operand2::Source(b)))
    }

    /// `tex dest, coord, fsN <flags>`.
    pub fn tex(dest: Dest, coord: Source, sampler: Sampler) -> Inst {
        Inst {
            opcode: Opcode::Tex,
            dest: Some(dest),
            src1: Some(coord),
            src2: Some(Operand2::Sampler(sampler)),
        }
    }

    /// `kil a` (the swizzle should replicate one lane).
    pub fn kil(a: Source) -> Inst {
        Inst {
            opcode: Opcode::Kil,
            dest: None,
            src1: Some(a),
            src2: None,
        }
    }

    /// `ife`/`ine`/`ifg`/`ifl a, b`.
    pub fn condition(opcode: Opcode, a: Source, b: Source) -> Result<Inst, ShapeError> {
        Inst::new(opcode, None, Some(a), Some(Operand2::Source(b)))
    }

    /// `els`.
    pub const fn els() -> Inst {
        Inst {
            opcode: Opcode::Els,
            dest: None,
            src1: None,
            src2: None,
        }
    }

    /// `eif`.
    pub const fn eif() -> Inst {
        Inst {
            opcode: Opcode::Eif,
            dest: None,
            src1: None,
            src2: None,
        }
    }

    /// The opcode.
    pub const fn opcode(&self) -> Opcode {
        self.opcode
    }

    /// The destination, for opcodes that have one.
    pub const fn dest(&self) -> Option<&Dest> {
        self.dest.as_ref()
    }

    /// Source 1.
    pub const fn src1(&self) -> Option<&Source> {
        self.src1.as_ref()
    }

    /// Source 2 when it is a register.
    pub const fn src2(&self) -> Option<&Source> {
        match &self.src2 {
            Some(Operand2::Source(s)) => Some(s),
            _ => None,
        }
    }

    /// The sampler of `tex`.
    pub const fn sampler(&self) -> Option<&Sampler> {
        match &self.src2 {
            Some(Operand2::Sampler(s)) => Some(s),
            _ => None,
        }
    }

    /// The token's fields.
    pub(crate) fn to_raw(self) -> RawToken {
        RawToken {
            opcode: self.opcode.code(),
            dest: self
                .dest
                .map_or(0, |d| RawDest::pack(d.index, d.mask.bits(), d.reg.code())),
            src1: self.src1.map_or(0, pack_source),
            src2: match self.src2 {
                None => 0,
                Some(Operand2::Source(s)) => pack_source(s),
                Some(Operand2::Sampler(s)) => pack_sampler(s),
            },
        }
    }

    /// The 24 bytes of the token.
    pub fn encode(&self) -> [u8; crate::header::TOKEN_LEN] {
        self.to_raw().to_bytes()
    }

    /// The instruction a token describes, if it describes one exactly.
    pub(crate) fn from_raw(t: RawToken) -> Result<Inst, DecodeErrorKind> {
        let opcode = Opcode::from_code(t.opcode).ok_or(DecodeErrorKind::UnknownOpcode(t.opcode))?;
        let shape = opcode.shape();
        let dest = if shape.has_dest() {
            Some(decode_dest(t.dest)?)
        } else if t.dest != 0 {
            return Err(DecodeErrorKind::UnusedNotZero(Field::Destination));
        } else {
            None
        };
        let src1 = if shape.sources() >= 1 {
            Some(decode_source(t.src1, Field::Source1)?)
        } else if t.src1 != 0 {
            return Err(DecodeErrorKind::UnusedNotZero(Field::Source1));
        } else {
            None
        };
        let src2 = match shape {
            Shape::Texture => Some(Operand2::Sampler(decode_sampler(t.src2)?)),
            _ if shape.sources() >= 2 => {
                Some(Operand2::Source(decode_source(t.src2, Field::Source2)?))
            }
            _ if t.src2 != 0 => return Err(DecodeErrorKind::UnusedNotZero(Field::Source2)),
            _ => None,
        };
        Ok(Inst {
            opcode,
            dest,
            src1,
            src2,
        })
    }
}

fn pack_source(s: Source) -> u64 {
    let (number, offset, index_ty, select, indirect) = match s.address {
        Address::Direct(n) => (n, 0, 0, 0, false),
        Address::Indirect(i) => (
            i.index,
            i.offset,
            i.reg.code(),
            i.select.index() as u8,
            true,
        ),
    };
    RawSource {
        number,
        offset,
        swizzle: s.swizzle.bits(),
        ty: s.reg.code(),
        index_ty,
        select,
        indirect,
        reserved: 0,
    }
    .pack()
}

fn pack_sampler(s: Sampler) -> u64 {
    RawSampler {
        number: s.index,
        bias: s.lod_bias,
        ty: RegType::Sampler.code(),
        format: s.format.code(),
        dimension: s.dimension.code(),
        special: s.special.bits(),
        wrap: s.wrap.code(),
        mipmap: s.mipmap.code(),
        filter: s.filter.code(),
        reserved: 0,
    }
    .pack()
}

fn decode_dest(d: u32) -> Result<Dest, DecodeErrorKind> {
    let r = RawDest::unpack(d);
    if r.reserved != 0 {
        return Err(DecodeErrorKind::ReservedBits(Field::Destination));
    }
    let reg = RegType::from_code(r.ty)
        .ok_or(DecodeErrorKind::UnknownRegister(Field::Destination, r.ty))?;
    let mask = Mask::new(r.mask).ok_or(DecodeErrorKind::ZeroMask)?;
    Ok(Dest::new(reg, r.number, mask))
}

fn decode_source(s: u64, field: Field) -> Result<Source, DecodeErrorKind> {
    let r = RawSource::unpack(s);
    if r.reserved != 0 {
        return Err(DecodeErrorKind::ReservedBits(field));
    }
    let reg = RegType::from_code(r.ty).ok_or(DecodeErrorKind::UnknownRegister(field, r.ty))?;
    let swizzle = Swizzle::from_bits(r.swizzle);
    if !r.indirect {
        if r.offset != 0 || r.index_ty != 0 || r.select != 0 {
            return Err(DecodeErrorKind::StrayIndirectFields(field));
        }
        return Ok(Source::new(reg, r.number, swizzle));
    }
    let index_reg = RegType::from_code(r.index_ty)
        .ok_or(DecodeErrorKind::UnknownRegister(field, r.index_ty))?;
    Ok(Source::indirect(
        reg,
        Indirect {
            reg: index_reg,
            index: r.number,
            select: Component::from_bits(r.select),
            offset: r.offset,
        },
        swizzle,
    ))
}

fn decode_sampler(s: u64) -> Result<Sampler, DecodeErrorKind> {
    let r = RawSampler::unpack(s);
    if r.reserved != 0 {
        return Err(DecodeErrorKind::ReservedBits(Field::Source2));
    }
    if r.ty != RegType::Sampler.code() {
        return Err(DecodeErrorKind::NotASampler(r.ty));
    }
    let bad = |what: &'static str, v: u8| DecodeErrorKind::SamplerFlag(what, v);
    Ok(Sampler {
        index: r.number,
        dimension: Dimension::from_code(r.dimension).ok_or(bad("dimension", r.dimension))?,
        filter: Filter::from_code(r.filter).ok_or(bad("filter", r.filter))?,
        mipmap: Mipmap::from_code(r.mipmap).ok_or(bad("mipmap", r.mipmap))?,
        wrap: Wrap::from_code(r.wrap).ok_or(bad("wrap", r.wrap))?,
        format: Format::from_code(r.format).ok_or(bad("format", r.format))?,
        special: Special::new(r.special).ok_or(bad("special", r.special))?,
        lod_bias: r.bias,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_checked() {
        let d = Dest::full(RegType::Temporary, 0);
        let a = Source::reg(RegType::Attribute, 0);
        assert!(Inst::unary(Opcode::Mov, d, a).is_ok());
        assert!(Inst::unary(Opcode::Add, d, a).is_err());
        assert!(Inst::binary(Opcode::M44, d, a, a).is_ok());
        assert!(Inst::binary(Opcode::Tex, d, a, a).is_err());
        assert!(Inst::condition(Opcode::Ife, a, a).is_ok());
        assert!(Inst::condition(Opcode::Mov, a, a).is_err());
        let e = Inst::unary(Opcode::Kil, d, a).unwrap_err();
        assert_eq!(e.to_string(), "`kil` takes one source and no destination");
    }

    #[test]
    fn raw_round_trip() {
        let i = Inst::binary(
            Opcode::Add,
            Dest::new(RegType::Output, 0, Mask::XYZW),
            Source::indirect(
                RegType::Constant,
                Indirect {
                    reg: RegType::Attribute,
                    index: 1,
                    select: Component::Y,
                    offset: 6,
                },
                Swizzle::IDENTITY,
            ),
            Source::new(RegType::Temporary, 1, Swizzle::splat(Component::W)),
        )
        .unwrap();
        assert_eq!(Inst::from_raw(i.to_raw()), Ok(i));
        let t = Inst::tex(
            Dest::full(RegType::Temporary, 1),
            Source::reg(RegType::Varying, 0),
            Sampler::new(2),
        );
        assert_eq!(Inst::from_raw(t.to_raw()), Ok(t));
        assert_eq!(Inst::from_raw(Inst::eif().to_raw()), Ok(Inst::eif()));
    }
}
