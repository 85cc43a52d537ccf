//! The 7-byte program header: magic `a0`, the AGAL version as a little-endian u32, the tag `a1`,
//! and the shader type (`00` vertex, `01` fragment).
//!
//! [`Version`] and [`Stage`] live here because the header is where a program declares them;
//! everything else (opcode availability, limits, register names) is keyed on these two.

use std::fmt;

/// The byte every AGAL program starts with.
pub const MAGIC: u8 = 0xa0;
/// The byte that precedes the shader type.
pub const TYPE_TAG: u8 = 0xa1;
/// The size of the header in bytes.
pub const HEADER_LEN: usize = 7;
/// The size of one token in bytes.
pub const TOKEN_LEN: usize = 24;

/// An AGAL version: 1 (baseline profiles), 2 (standard and standardConstrained) or 3
/// (standardExtended).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Version {
    /// AGAL 1: no conditionals, no derivatives, 8 temporaries.
    V1,
    /// AGAL 2: `ife`/`ine`/`ifg`/`ifl`/`els`/`eif`, `ddx`/`ddy`, `od`, up to four colour outputs.
    V2,
    /// AGAL 3: AGAL 2 with 16 attributes, 200 fragment constants and the instance id register.
    V3,
}

impl Version {
    /// Every version, lowest first.
    pub const ALL: [Version; 3] = [Version::V1, Version::V2, Version::V3];

    /// The number written in the header.
    pub const fn number(self) -> u32 {
        match self {
            Version::V1 => 1,
            Version::V2 => 2,
            Version::V3 => 3,
        }
    }

    /// The version a header number names, if any.
    pub const fn from_number(n: u32) -> Option<Version> {
        match n {
            1 => Some(Version::V1),
            2 => Some(Version::V2),
            3 => Some(Version::V3),
            _ => None,
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number())
    }
}

/// Which programmable stage a program is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// A vertex program (`Context3DProgramType.VERTEX`, header byte 0).
    Vertex,
    /// A fragment program (`Context3DProgramType.FRAGMENT`, header byte 1).
    Fragment,
}

impl Stage {
    /// The shader-type byte of the header.
    pub const fn byte(self) -> u8 {
        match self {
            Stage::Vertex => 0,
            Stage::Fragment => 1,
        }
    }

    /// The stage a shader-type byte names, if any.
    pub const fn from_byte(b: u8) -> Option<Stage> {
        match b {
            0 => Some(Stage::Vertex),
            1 => Some(Stage::Fragment),
            _ => None,
        }
    }

    /// The word Flash uses in its messages ("vertex" or "fragment").
    pub const fn name(self) -> &'static str {
        match self {
            Stage::Vertex => "vertex",
            Stage::Fragment => "fragment",
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A decoded header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    /// The AGAL version.
    pub version: Version,
    /// The stage.
    pub stage: Stage,
}

impl Header {
    /// The seven header bytes.
    pub fn to_bytes(self) -> [u8; HEADER_LEN] {
        let v = self.version.number().to_le_bytes();
        [MAGIC, v[0], v[1], v[2], v[3], TYPE_TAG, self.stage.byte()]
    }
}

/// The header fields as they are in the bytes, before any of them is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RawHeader {
    pub magic: u8,
    pub version: u32,
    pub tag: u8,
    pub stage: u8,
}

impl RawHeader {
    /// Reads the first seven bytes, if there are that many.
    pub fn read(bytes: &[u8]) -> Option<RawHeader> {
        let h: &[u8; HEADER_LEN] = bytes.get(..HEADER_LEN)?.try_into().ok()?;
        let [magic, v0, v1, v2, v3, tag, stage] = *h;
        Some(RawHeader {
            magic,
            version: u32::from_le_bytes([v0, v1, v2, v3]),
            tag,
            stage,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_bytes() {
        let h = Header {
            version: Version::V2,
            stage: Stage::Fragment,
        };
        assert_eq!(h.to_bytes(), [0xa0, 2, 0, 0, 0, 0xa1, 1]);
        let raw = RawHeader::read(&h.to_bytes()).unwrap();
        assert_eq!(raw.version, 2);
        assert_eq!(raw.stage, 1);
        assert!(RawHeader::read(&[0xa0, 1]).is_none());
    }
}
