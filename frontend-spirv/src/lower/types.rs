//! SPIR-V types as the lowering sees them: how many MIR values a type becomes, and the
//! std140 facts (sizes, strides) that place uniforms in registers.

use spirv::Word;

use crate::validate::{Type, TypeTable};

/// The shape of a SPIR-V value type, resolved through the type table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A float or integer scalar or vector (integers are carried in floats).
    Float(u8),
    /// A bool scalar or vector.
    Bool(u8),
    /// A matrix: `cols` columns of `rows` floats.
    Matrix {
        /// Columns.
        cols: u8,
        /// Rows (the column vector's size).
        rows: u8,
    },
    /// An array of `len` elements.
    Array {
        /// The element type.
        element: Word,
        /// The length.
        len: u32,
    },
    /// A structure.
    Struct {
        /// Member types.
        members: Vec<Word>,
    },
    /// An image, sampler or sampled image.
    Opaque,
    /// Something lowering does not take (void, pointers, runtime arrays...).
    Other,
}

/// Resolves `ty` to its shape.
pub fn shape(types: &TypeTable, ty: Word) -> Shape {
    match types.get(ty) {
        Some(Type::Float { .. } | Type::Int { .. }) => Shape::Float(1),
        Some(Type::Bool) => Shape::Bool(1),
        Some(Type::Vector { component, count }) => match types.get(*component) {
            Some(Type::Bool) => Shape::Bool(*count as u8),
            _ => Shape::Float(*count as u8),
        },
        Some(Type::Matrix { column, count }) => {
            let rows = match types.get(*column) {
                Some(Type::Vector { count, .. }) => *count as u8,
                _ => 4,
            };
            Shape::Matrix {
                cols: *count as u8,
                rows,
            }
        }
        Some(Type::Array { element, length }) => Shape::Array {
            element: *element,
            len: *length as u32,
        },
        Some(Type::Struct { members }) => Shape::Struct {
            members: members.clone(),
        },
        Some(Type::Image { .. } | Type::Sampler | Type::SampledImage { .. }) => Shape::Opaque,
        _ => Shape::Other,
    }
}

/// Whether the scalar (or vector component) type of `ty` is a signed integer, an unsigned
/// integer, or neither.
pub fn int_signedness(types: &TypeTable, ty: Word) -> Option<bool> {
    let scalar = match types.get(ty) {
        Some(Type::Vector { component, .. }) => *component,
        _ => ty,
    };
    match types.get(scalar) {
        Some(Type::Int { signed, .. }) => Some(*signed),
        _ => None,
    }
}

/// A GLSL-style name for a type, for reflection (`mat4`, `vec3`, `float[8]`).
pub fn glsl_name(types: &TypeTable, ty: Word) -> String {
    match shape(types, ty) {
        Shape::Float(1) => match types.get(ty) {
            Some(Type::Int { signed: true, .. }) => "int".into(),
            Some(Type::Int { signed: false, .. }) => "uint".into(),
            _ => "float".into(),
        },
        Shape::Bool(1) => "bool".into(),
        Shape::Float(n) => {
            let prefix = match int_signedness(types, ty) {
                Some(true) => "i",
                Some(false) => "u",
                None => "",
            };
            format!("{prefix}vec{n}")
        }
        Shape::Bool(n) => format!("bvec{n}"),
        Shape::Matrix { cols, rows } if cols == rows => format!("mat{cols}"),
        Shape::Matrix { cols, rows } => format!("mat{cols}x{rows}"),
        Shape::Array { element, len } => format!("{}[{len}]", glsl_name(types, element)),
        Shape::Struct { .. } => "struct".into(),
        Shape::Opaque => "sampler".into(),
        Shape::Other => "?".into(),
    }
}
