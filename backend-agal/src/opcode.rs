//! The AGAL opcode table, numbered as the 2015 table has it (AGALMiniAssembler v3, the AIR SDK
//! bytecode documentation): 0x00–0x19 arithmetic, 0x1a/0x1b derivatives, 0x1c–0x21 AGAL 2
//! conditionals, 0x27 `kil`, 0x28 `tex`, 0x29–0x2d comparisons.
//!
//! Two opcodes the assemblers know are left out on purpose: `sgn` (0x2b) is not in the
//! bytecode documentation and Flash-compatible runtimes reject it, and `ted` (0x26) is disabled
//! in the 2015 assembler ("not available in AGAL2"). The 2011 control-flow numbering (ifz, rep,
//! brk …) is obsolete and reuses numbers that mean something else today.
//!
//! Each opcode has one [`Shape`], which says which of the token's three operand fields it uses
//! and how; the encoder, the decoder, the validator and the assembler all go by it.

use crate::header::Version;
use crate::operand::Mask;
use std::fmt;

/// Which operand fields an opcode uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// Destination and one source; source 2 is zero (`mov`, `rcp`, `nrm`, `ddx` …).
    Unary,
    /// Destination and two sources (`add`, `dp3`, `crs`, `slt` …).
    Binary,
    /// Destination, a vector source and the first register of a matrix (`m33`, `m34`, `m44`).
    Matrix,
    /// Destination, coordinates, and a sampler in source 2 (`tex`).
    Texture,
    /// No destination; one scalar source (`kil`).
    Kill,
    /// No destination; two scalar sources compared (`ife`, `ine`, `ifg`, `ifl`).
    Condition,
    /// No operands at all (`els`, `eif`).
    Bare,
}

impl Shape {
    /// Whether the destination field is used.
    pub const fn has_dest(self) -> bool {
        !matches!(self, Shape::Kill | Shape::Condition | Shape::Bare)
    }

    /// How many source fields are used (the sampler counts as one).
    pub const fn sources(self) -> usize {
        match self {
            Shape::Bare => 0,
            Shape::Unary | Shape::Kill => 1,
            Shape::Binary | Shape::Matrix | Shape::Texture | Shape::Condition => 2,
        }
    }

    /// The operand count the assemblers give the opcode (destination included).
    pub const fn operand_count(self) -> usize {
        self.sources() + if self.has_dest() { 1 } else { 0 }
    }
}

macro_rules! opcodes {
    ($($variant:ident $name:literal $code:literal $shape:ident $ver:ident $frag:literal $xyz:literal;)*) => {
        /// An AGAL operation.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(missing_docs)] // the table below documents each one
        pub enum Opcode { $($variant,)* }

        impl Opcode {
            /// Every opcode, in numeric order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant,)*];

            /// The opcode number written in the token's first u32.
            pub const fn code(self) -> u32 {
                match self { $(Opcode::$variant => $code,)* }
            }

            /// The mnemonic (`mov`, `m44`, `tex` …).
            pub const fn name(self) -> &'static str {
                match self { $(Opcode::$variant => $name,)* }
            }

            /// Which operand fields the opcode uses.
            pub const fn shape(self) -> Shape {
                match self { $(Opcode::$variant => Shape::$shape,)* }
            }

            /// The first AGAL version that has the opcode.
            pub const fn min_version(self) -> Version {
                match self { $(Opcode::$variant => Version::$ver,)* }
            }

            /// Whether the opcode is allowed only in fragment programs.
            pub const fn fragment_only(self) -> bool {
                match self { $(Opcode::$variant => $frag,)* }
            }

            /// Whether the result has only x, y and z, so that the destination must not write w
            /// (`nrm`, `crs`, `m33`, `m34`; Flash error #3628).
            pub const fn xyz_only(self) -> bool {
                match self { $(Opcode::$variant => $xyz,)* }
            }

            /// The opcode with this number, if the 2015 table has one.
            pub const fn from_code(code: u32) -> Option<Opcode> {
                match code { $($code => Some(Opcode::$variant),)* _ => None }
            }
        }
    };
}

opcodes! {
    // variant name  code  shape     ver frag   xyz
    Mov "mov" 0x00 Unary     V1 false false;
    Add "add" 0x01 Binary    V1 false false;
    Sub "sub" 0x02 Binary    V1 false false;
    Mul "mul" 0x03 Binary    V1 false false;
    Div "div" 0x04 Binary    V1 false false;
    Rcp "rcp" 0x05 Unary     V1 false false;
    Min "min" 0x06 Binary    V1 false false;
    Max "max" 0x07 Binary    V1 false false;
    Frc "frc" 0x08 Unary     V1 false false;
    Sqt "sqt" 0x09 Unary     V1 false false;
    Rsq "rsq" 0x0a Unary     V1 false false;
    Pow "pow" 0x0b Binary    V1 false false;
    Log "log" 0x0c Unary     V1 false false;
    Exp "exp" 0x0d Unary     V1 false false;
    Nrm "nrm" 0x0e Unary     V1 false true;
    Sin "sin" 0x0f Unary     V1 false false;
    Cos "cos" 0x10 Unary     V1 false false;
    Crs "crs" 0x11 Binary    V1 false true;
    Dp3 "dp3" 0x12 Binary    V1 false false;
    Dp4 "dp4" 0x13 Binary    V1 false false;
    Abs "abs" 0x14 Unary     V1 false false;
    Neg "neg" 0x15 Unary     V1 false false;
    Sat "sat" 0x16 Unary     V1 false false;
    M33 "m33" 0x17 Matrix    V1 false true;
    M44 "m44" 0x18 Matrix    V1 false false;
    M34 "m34" 0x19 Matrix    V1 false true;
    Ddx "ddx" 0x1a Unary     V2 true  false;
    Ddy "ddy" 0x1b Unary     V2 true  false;
    Ife "ife" 0x1c Condition V2 false false;
    Ine "ine" 0x1d Condition V2 false false;
    Ifg "ifg" 0x1e Condition V2 false false;
    Ifl "ifl" 0x1f Condition V2 false false;
    Els "els" 0x20 Bare      V2 false false;
    Eif "eif" 0x21 Bare      V2 false false;
    Kil "kil" 0x27 Kill      V1 true  false;
    Tex "tex" 0x28 Texture   V1 true  false;
    Sge "sge" 0x29 Binary    V1 false false;
    Slt "slt" 0x2a Binary    V1 false false;
    Seq "seq" 0x2c Binary    V1 false false;
    Sne "sne" 0x2d Binary    V1 false false;
}

impl Opcode {
    /// The highest opcode number in the table (`sne`). Numbers above it are "out of range"
    /// (#3620); holes below it are "not implemented" (#3621).
    pub const MAX_CODE: u32 = 0x2d;

    /// The opcode with this mnemonic.
    pub fn from_name(name: &str) -> Option<Opcode> {
        Opcode::ALL.iter().copied().find(|op| op.name() == name)
    }

    /// For `m33`/`m34`/`m44`, how many consecutive registers source 2 names (3, 3, 4).
    pub const fn matrix_rows(self) -> Option<u16> {
        match self {
            Opcode::M33 | Opcode::M34 => Some(3),
            Opcode::M44 => Some(4),
            _ => None,
        }
    }

    /// Whether the opcode opens a conditional block (`ife`, `ine`, `ifg`, `ifl`).
    pub const fn opens_block(self) -> bool {
        matches!(self.shape(), Shape::Condition)
    }

    /// Which destination lanes the operation produces; lanes outside it are left alone even
    /// when the write mask names them.
    pub const fn result_lanes(self) -> Mask {
        if self.xyz_only() {
            Mask::XYZ
        } else {
            Mask::XYZW
        }
    }

    /// Which lanes of a source's swizzle the operation reads, given the destination mask.
    ///
    /// Component-wise operations read the lanes they write. Dot products, cross products,
    /// `nrm` and the matrix operations read fixed lanes (three or four) of every operand, and
    /// every row of a matrix operand; `kil` and the conditionals read lane x (their swizzle
    /// must be a replicated one). `tex` reads x and y for a 2D sampler and x, y and z for a cube
    /// map; this returns the 2D case (the caller widens it for cubes).
    pub const fn source_lanes(self, dest_mask: Mask) -> Mask {
        match self {
            Opcode::Nrm | Opcode::Crs | Opcode::Dp3 | Opcode::M33 => Mask::XYZ,
            Opcode::Dp4 | Opcode::M44 | Opcode::M34 => Mask::XYZW,
            Opcode::Kil | Opcode::Ife | Opcode::Ine | Opcode::Ifg | Opcode::Ifl => Mask::X,
            Opcode::Tex => Mask::XY,
            Opcode::Els | Opcode::Eif => Mask::NONE,
            _ => dest_mask,
        }
    }

    /// For a matrix operand (source 2 of `m33`/`m34`/`m44`), the lanes of each row that are
    /// read.
    pub const fn matrix_row_lanes(self) -> Mask {
        match self {
            Opcode::M33 => Mask::XYZ,
            _ => Mask::XYZW,
        }
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_consistent() {
        for &op in Opcode::ALL {
            assert_eq!(Opcode::from_code(op.code()), Some(op));
            assert_eq!(Opcode::from_name(op.name()), Some(op));
            assert!(op.code() <= Opcode::MAX_CODE);
        }
        assert_eq!(Opcode::ALL.len(), 40);
        // Never the legacy or disputed numbers.
        assert_eq!(Opcode::from_code(0x26), None); // ted
        assert_eq!(Opcode::from_code(0x2b), None); // sgn
        assert_eq!(Opcode::from_name("sgn"), None);
        assert_eq!(Opcode::from_code(0x1a), Some(Opcode::Ddx));
        assert_eq!(Opcode::from_code(0x20), Some(Opcode::Els));
    }

    #[test]
    fn operand_counts_match_the_assemblers() {
        assert_eq!(Opcode::Mov.shape().operand_count(), 2);
        assert_eq!(Opcode::M44.shape().operand_count(), 3);
        assert_eq!(Opcode::Tex.shape().operand_count(), 3);
        assert_eq!(Opcode::Kil.shape().operand_count(), 1);
        assert_eq!(Opcode::Ife.shape().operand_count(), 2);
        assert_eq!(Opcode::Eif.shape().operand_count(), 0);
    }
}
