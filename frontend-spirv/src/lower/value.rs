//! What a SPIR-V id stands for while lowering: a MIR operand for scalars and vectors, a tree
//! of them for composites (struct members, array elements, matrix columns), a pointer into a
//! variable, or an opaque texture handle.

use mir::inst::Operand;
use mir::module::SamplerId;

/// A lowered SPIR-V value.
#[derive(Clone, Debug)]
pub enum Val {
    /// A scalar or vector: `lanes` lanes read from a MIR value (float or bool).
    Vector {
        /// The MIR operand.
        op: Operand,
        /// How many lanes the SPIR-V type has.
        lanes: u8,
    },
    /// Struct members, array elements or matrix columns, in order.
    Composite(Vec<Val>),
    /// A pointer into a variable.
    Pointer(Place),
    /// A sampled image (or the image or sampler half of one): which MIR sampler it is.
    Texture(TextureRef),
    /// An element of an array of textures chosen by a computed index (a float holding an
    /// integer): sampling it samples every element and selects, which folds to one sample
    /// once the index is known (a loop over the array, unrolled).
    Textures(Vec<TextureRef>, Operand),
}

/// A scalar or vector value.
pub fn vector(op: Operand, lanes: u8) -> Val {
    Val::Vector { op, lanes }
}

/// An image, a sampler, or both combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureRef {
    /// A combined image sampler (or an image combined with a sampler by `OpSampledImage`).
    Sampled(SamplerId),
    /// An image alone, waiting for `OpSampledImage`.
    Image(SamplerId),
    /// A sampler alone (its state comes from the image's binding on both targets).
    Sampler,
}

impl Val {
    /// The operand of a scalar or vector value.
    pub fn vector(&self) -> Option<(Operand, u8)> {
        match self {
            Val::Vector { op, lanes } => Some((*op, *lanes)),
            _ => None,
        }
    }
}

/// Where a pointer points: a variable and the path of indices into it.
#[derive(Clone, Debug)]
pub struct Place {
    /// Index of the variable in the lowering's variable table.
    pub var: usize,
    /// The indices, outermost first.
    pub path: Vec<Index>,
}

/// One step of an access chain.
#[derive(Clone, Debug)]
pub enum Index {
    /// A constant index (struct members always are).
    Const(u32),
    /// A computed index: a float scalar holding an integer.
    Dynamic(Operand),
}
