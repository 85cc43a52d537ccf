//! A whole program: header plus instructions, and its byte encoding.
//!
//! [`Program::encode`] cannot fail: the typed instructions are encodable by construction.
//! [`Program::decode`] accepts exactly the byte strings `encode` can produce and says, with a
//! typed [`DecodeError`], why it refuses anything else. Whether a decodable program is one
//! Flash accepts is a separate question, answered by [`crate::validate()`].

use crate::header::{HEADER_LEN, Header, MAGIC, RawHeader, Stage, TOKEN_LEN, TYPE_TAG, Version};
use crate::inst::Inst;
use crate::token::RawToken;
use std::fmt;

/// An AGAL program.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Program {
    /// The AGAL version written in the header.
    pub version: Version,
    /// Vertex or fragment.
    pub stage: Stage,
    /// The tokens, in order.
    pub instructions: Vec<Inst>,
}

/// A token field, for error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// The opcode (first u32).
    Opcode,
    /// The destination (second u32).
    Destination,
    /// Source 1 (first u64).
    Source1,
    /// Source 2 or the sampler (second u64).
    Source2,
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Field::Opcode => "opcode",
            Field::Destination => "destination operand",
            Field::Source1 => "source operand 1",
            Field::Source2 => "source operand 2",
        })
    }
}

/// Why some bytes are not an encoded [`Program`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeErrorKind {
    /// Fewer than the 7 header bytes.
    TooShort(usize),
    /// The first byte is not 0xa0.
    BadMagic(u8),
    /// The version is not 1, 2 or 3.
    BadVersion(u32),
    /// The sixth byte is not 0xa1.
    BadTypeTag(u8),
    /// The shader type is neither 0 (vertex) nor 1 (fragment).
    BadStage(u8),
    /// The bytes after the header are not a whole number of 24-byte tokens.
    PartialToken(usize),
    /// No opcode has this number in the 2015 table.
    UnknownOpcode(u32),
    /// A field the opcode does not use is not zero.
    UnusedNotZero(Field),
    /// Bits that must be zero are set.
    ReservedBits(Field),
    /// A register type code above 7.
    UnknownRegister(Field, u8),
    /// A destination with write mask 0.
    ZeroMask,
    /// A direct source with a non-zero offset, index type or index lane.
    StrayIndirectFields(Field),
    /// The sampler operand of `tex` has this register type instead of 5.
    NotASampler(u8),
    /// A sampler flag group holds a value with no name.
    SamplerFlag(&'static str, u8),
}

/// A [`DecodeErrorKind`] and the token it is in (1-based, as Flash counts; `None` for the
/// header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// What is wrong.
    pub kind: DecodeErrorKind,
    /// The token, counting from 1.
    pub token: Option<usize>,
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DecodeErrorKind::TooShort(n) => {
                write!(f, "{n} bytes is shorter than the {HEADER_LEN}-byte header")
            }
            DecodeErrorKind::BadMagic(b) => write!(f, "magic byte is {b:#04x}, not 0xa0"),
            DecodeErrorKind::BadVersion(v) => write!(f, "AGAL version {v} (only 1, 2 and 3 exist)"),
            DecodeErrorKind::BadTypeTag(b) => write!(f, "shader type tag is {b:#04x}, not 0xa1"),
            DecodeErrorKind::BadStage(b) => {
                write!(f, "shader type {b} is neither 0 (vertex) nor 1 (fragment)")
            }
            DecodeErrorKind::PartialToken(n) => {
                write!(
                    f,
                    "{n} bytes after the header are not a whole number of 24-byte tokens"
                )
            }
            DecodeErrorKind::UnknownOpcode(c) => write!(f, "opcode {c:#x} is not an AGAL opcode"),
            DecodeErrorKind::UnusedNotZero(field) => {
                write!(f, "the {field} is not used by this opcode but is not zero")
            }
            DecodeErrorKind::ReservedBits(field) => {
                write!(f, "reserved bits of the {field} are set")
            }
            DecodeErrorKind::UnknownRegister(field, t) => {
                write!(f, "the {field} has register type {t}, which does not exist")
            }
            DecodeErrorKind::ZeroMask => f.write_str("the destination write mask is zero"),
            DecodeErrorKind::StrayIndirectFields(field) => write!(
                f,
                "the {field} is direct but has a non-zero index offset, type or lane"
            ),
            DecodeErrorKind::NotASampler(t) => {
                write!(
                    f,
                    "source operand 2 of tex has register type {t}, not 5 (sampler)"
                )
            }
            DecodeErrorKind::SamplerFlag(what, v) => write!(f, "unknown sampler {what} {v}"),
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.token {
            Some(t) => write!(f, "token {t}: {}", self.kind),
            None => write!(f, "header: {}", self.kind),
        }
    }
}

impl std::error::Error for DecodeError {}

impl Program {
    /// An empty program.
    pub const fn new(version: Version, stage: Stage) -> Program {
        Program {
            version,
            stage,
            instructions: Vec::new(),
        }
    }

    /// The header.
    pub const fn header(&self) -> Header {
        Header {
            version: self.version,
            stage: self.stage,
        }
    }

    /// Appends an instruction.
    pub fn push(&mut self, inst: Inst) {
        self.instructions.push(inst);
    }

    /// The bytes: header, then 24 bytes per instruction.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN + TOKEN_LEN * self.instructions.len());
        out.extend_from_slice(&self.header().to_bytes());
        for inst in &self.instructions {
            out.extend_from_slice(&inst.encode());
        }
        out
    }

    /// Decodes a header alone, checking magic, version, tag and shader type.
    pub fn decode_header(bytes: &[u8]) -> Result<Header, DecodeError> {
        let err = |kind| DecodeError { kind, token: None };
        let raw = RawHeader::read(bytes).ok_or(err(DecodeErrorKind::TooShort(bytes.len())))?;
        if raw.magic != MAGIC {
            return Err(err(DecodeErrorKind::BadMagic(raw.magic)));
        }
        let version = Version::from_number(raw.version)
            .ok_or(err(DecodeErrorKind::BadVersion(raw.version)))?;
        if raw.tag != TYPE_TAG {
            return Err(err(DecodeErrorKind::BadTypeTag(raw.tag)));
        }
        let stage = Stage::from_byte(raw.stage).ok_or(err(DecodeErrorKind::BadStage(raw.stage)))?;
        Ok(Header { version, stage })
    }

    /// Decodes a program. Only byte strings that [`Program::encode`] produces are accepted.
    pub fn decode(bytes: &[u8]) -> Result<Program, DecodeError> {
        let header = Program::decode_header(bytes)?;
        let body = bytes.get(HEADER_LEN..).unwrap_or_default();
        if !body.len().is_multiple_of(TOKEN_LEN) {
            return Err(DecodeError {
                kind: DecodeErrorKind::PartialToken(body.len()),
                token: None,
            });
        }
        let instructions = RawToken::split(body)
            .enumerate()
            .map(|(i, t)| {
                Inst::from_raw(t).map_err(|kind| DecodeError {
                    kind,
                    token: Some(i + 1),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Program {
            version: header.version,
            stage: header.stage,
            instructions,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opcode::Opcode;
    use crate::operand::{Dest, RegType, Source};

    #[test]
    fn encode_decode() {
        let mut p = Program::new(Version::V1, Stage::Vertex);
        p.push(
            Inst::binary(
                Opcode::M44,
                Dest::full(RegType::Output, 0),
                Source::reg(RegType::Attribute, 0),
                Source::reg(RegType::Constant, 0),
            )
            .unwrap(),
        );
        let bytes = p.encode();
        assert_eq!(bytes.len(), 31);
        assert_eq!(Program::decode(&bytes).unwrap(), p);
    }

    #[test]
    fn decode_errors() {
        let k = |b: &[u8]| Program::decode(b).unwrap_err().kind;
        assert_eq!(k(&[]), DecodeErrorKind::TooShort(0));
        assert_eq!(
            k(&[0xa1, 1, 0, 0, 0, 0xa1, 0]),
            DecodeErrorKind::BadMagic(0xa1)
        );
        assert_eq!(
            k(&[0xa0, 4, 0, 0, 0, 0xa1, 0]),
            DecodeErrorKind::BadVersion(4)
        );
        assert_eq!(
            k(&[0xa0, 1, 0, 0, 0, 0xa2, 0]),
            DecodeErrorKind::BadTypeTag(0xa2)
        );
        assert_eq!(
            k(&[0xa0, 1, 0, 0, 0, 0xa1, 2]),
            DecodeErrorKind::BadStage(2)
        );
        assert_eq!(
            k(&[0xa0, 1, 0, 0, 0, 0xa1, 0, 9]),
            DecodeErrorKind::PartialToken(1)
        );
        let mut t = vec![0xa0, 1, 0, 0, 0, 0xa1, 1];
        t.extend_from_slice(&[0xff; 24]);
        let e = Program::decode(&t).unwrap_err();
        assert_eq!(e.token, Some(1));
        assert_eq!(e.kind, DecodeErrorKind::UnknownOpcode(0xffff_ffff));
    }
}
