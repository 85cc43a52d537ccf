//! Value shapes and lane selection.
//!
//! Both targets are vec4 machines: every value is 1 to 4 lanes of float, or of bool while a
//! comparison result waits to become a branch, a select or a 1.0/0.0 float. Integers from
//! SPIR-V are carried in floats (exact up to 2^24 in f32 and 2^16 on the PICA200's f24), so
//! there is no integer kind.

use std::fmt;

/// What each lane holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A float (f32 in the IR; the PICA200 computes in f24).
    Float,
    /// A truth value.
    Bool,
}

/// The shape of a value: a kind and 1 to 4 lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ty {
    /// What each lane holds.
    pub kind: Kind,
    /// How many lanes, 1 to 4.
    pub lanes: u8,
}

impl Ty {
    /// A float vector of `lanes` lanes (a scalar for 1).
    pub const fn float(lanes: u8) -> Ty {
        Ty {
            kind: Kind::Float,
            lanes,
        }
    }

    /// A bool vector of `lanes` lanes.
    pub const fn bool(lanes: u8) -> Ty {
        Ty {
            kind: Kind::Bool,
            lanes,
        }
    }

    /// Whether this is a float shape.
    pub fn is_float(self) -> bool {
        self.kind == Kind::Float
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.kind, self.lanes) {
            (Kind::Float, 1) => f.write_str("f32"),
            (Kind::Bool, 1) => f.write_str("bool"),
            (Kind::Float, n) => write!(f, "vec{n}"),
            (Kind::Bool, n) => write!(f, "bvec{n}"),
        }
    }
}

/// Which source lane feeds each lane of an operand: `.yzx` is `[1, 2, 0, 0]` (lanes past
/// what the consumer reads are don't-care and kept at the last named lane, as in a shader
/// assembler's shorthand).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Swizzle(pub [u8; 4]);

impl Swizzle {
    /// `.xyzw`.
    pub const IDENTITY: Swizzle = Swizzle([0, 1, 2, 3]);

    /// The same lane everywhere: `.xxxx` for 0.
    pub const fn splat(lane: u8) -> Swizzle {
        Swizzle([lane, lane, lane, lane])
    }

    /// The source lane feeding lane `i`.
    pub fn lane(self, i: usize) -> u8 {
        self.0[i]
    }

    /// Reading `inner` through `self`: `(v.inner).self`.
    pub fn then(self, outer: Swizzle) -> Swizzle {
        Swizzle(outer.0.map(|l| self.0[l as usize & 3]))
    }

    /// Whether the first `lanes` lanes read lanes `0..lanes` in order.
    pub fn is_identity(self, lanes: u8) -> bool {
        (0..lanes as usize).all(|i| self.0[i] == i as u8)
    }

    /// Writes the first `lanes` selectors as `xyzw` letters.
    pub fn letters(self, lanes: u8) -> String {
        (0..lanes as usize)
            .map(|i| ['x', 'y', 'z', 'w'][self.0[i] as usize & 3])
            .collect()
    }
}

impl Default for Swizzle {
    fn default() -> Self {
        Swizzle::IDENTITY
    }
}
