//! A module: one entry point, its interface as explicit entities, and its code.
//!
//! Calls are inlined when SPIR-V is lowered (recursion is an error), so a module has one
//! function: SPIR-V passes `in`/`inout` parameters by pointer and lets callees reach globals,
//! and inlining at the source maps those pointers to the caller's variables, so the IR needs
//! no pointers at all.
//!
//! Inputs, outputs, uniforms and samplers are not memory. An input is read by `LoadInput`,
//! a uniform register by `LoadUniform`, a texture by `Sample`; outputs are the operands of the
//! entry function's `Return`, so each output is written exactly once, from a finished value,
//! at the end (what both targets require).

use crate::arena::{Arena, Handle};
use crate::func::Function;

/// An input of the module.
pub type InputId = Handle<Input>;
/// A sampler of the module.
pub type SamplerId = Handle<Sampler>;

/// The pipeline stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// A vertex program.
    Vertex,
    /// A fragment program.
    Fragment,
    /// A geometry program.
    Geometry,
}

impl Stage {
    /// Lower-case name, as the reflection spells it.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Vertex => "vertex",
            Stage::Fragment => "fragment",
            Stage::Geometry => "geometry",
        }
    }
}

/// A built-in variable the targets know.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BuiltIn {
    /// The clip-space position (vertex output).
    Position,
    /// The fragment's depth (fragment output).
    FragDepth,
    /// The point size (vertex output, ignored by both targets).
    PointSize,
}

/// One shader input. A matrix or array input is several inputs, one per location.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    /// The variable's name (with `[i]` for an element of an array or matrix input).
    pub name: String,
    /// Its location (0 for a built-in).
    pub location: u32,
    /// How many lanes the shader reads (the register holds 4).
    pub lanes: u8,
    /// In a geometry program: which vertex of the input primitive it belongs to.
    pub vertex: Option<u32>,
    /// A built-in input (in a geometry program, `gl_in[i].gl_Position`: `Position`).
    pub builtin: Option<BuiltIn>,
}

impl Input {
    /// A user input at `location`.
    pub fn at(name: impl Into<String>, location: u32, lanes: u8) -> Input {
        Input {
            name: name.into(),
            location,
            lanes,
            vertex: None,
            builtin: None,
        }
    }
}

/// The primitive a geometry program reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputPrimitive {
    /// One vertex.
    Points,
    /// Two vertices.
    Lines,
    /// Four vertices (a line with its neighbours).
    LinesAdjacency,
    /// Three vertices.
    Triangles,
    /// Six vertices (a triangle with its neighbours).
    TrianglesAdjacency,
}

impl InputPrimitive {
    /// How many vertices a primitive has.
    pub fn vertices(self) -> u32 {
        match self {
            InputPrimitive::Points => 1,
            InputPrimitive::Lines => 2,
            InputPrimitive::LinesAdjacency => 4,
            InputPrimitive::Triangles => 3,
            InputPrimitive::TrianglesAdjacency => 6,
        }
    }

    /// GLSL's name for it.
    pub fn name(self) -> &'static str {
        match self {
            InputPrimitive::Points => "points",
            InputPrimitive::Lines => "lines",
            InputPrimitive::LinesAdjacency => "lines_adjacency",
            InputPrimitive::Triangles => "triangles",
            InputPrimitive::TrianglesAdjacency => "triangles_adjacency",
        }
    }
}

/// The primitives a geometry program emits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutputPrimitive {
    /// Points.
    Points,
    /// A line strip.
    LineStrip,
    /// A triangle strip.
    TriangleStrip,
}

impl OutputPrimitive {
    /// GLSL's name for it.
    pub fn name(self) -> &'static str {
        match self {
            OutputPrimitive::Points => "points",
            OutputPrimitive::LineStrip => "line_strip",
            OutputPrimitive::TriangleStrip => "triangle_strip",
        }
    }
}

/// What a geometry program declares about its primitives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Geometry {
    /// What it reads.
    pub input: InputPrimitive,
    /// What it emits.
    pub output: OutputPrimitive,
    /// The most vertices one invocation emits (`max_vertices`).
    pub max_vertices: u32,
}

/// One shader output, written once, by the entry function's return.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// The variable's name.
    pub name: String,
    /// Its location, for user outputs.
    pub location: Option<u32>,
    /// Which built-in, for built-in outputs.
    pub builtin: Option<BuiltIn>,
    /// How many lanes the shader writes.
    pub lanes: u8,
}

/// How a matrix uniform is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatrixLayout {
    /// One column per register.
    ColumnMajor,
    /// One row per register.
    RowMajor,
}

impl MatrixLayout {
    /// The reflection's spelling.
    pub fn name(self) -> &'static str {
        match self {
            MatrixLayout::ColumnMajor => "column_major",
            MatrixLayout::RowMajor => "row_major",
        }
    }
}

/// One uniform leaf (a scalar, vector, matrix or array of those) and where it lives.
#[derive(Clone, Debug, PartialEq)]
pub struct Uniform {
    /// The name an application looks it up by: its path in the block (`lights[2].color`),
    /// or the variable's name for a loose uniform.
    pub name: String,
    /// The block's type name, for block members.
    pub block: Option<String>,
    /// The GLSL-style type (`mat4`, `vec3`, `float[8]`).
    pub type_name: String,
    /// Matrix storage, for matrices.
    pub layout: Option<MatrixLayout>,
    /// The first register (float space, or the bool space for bools).
    pub register: u32,
    /// The first component in the first register (0–3).
    pub component: u8,
    /// How many consecutive registers it spans.
    pub count: u32,
    /// Whether it lives in the bool register space (a loose `uniform bool`).
    pub is_bool: bool,
    /// The value the source gives it (GLSL's `uniform float x = 0.5;`), lanes in register
    /// order: what it holds until the application sets it. The registers are the
    /// application's; the reflection lists the value for it to upload.
    pub default: Option<Vec<f32>>,
}

/// The dimension of a sampled texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureDim {
    /// A 2D texture.
    D2,
    /// A cube map.
    Cube,
}

/// A combined image sampler.
#[derive(Clone, Debug, PartialEq)]
pub struct Sampler {
    /// The variable's name.
    pub name: String,
    /// Its binding (the AGAL `fs` register).
    pub binding: u32,
    /// Its dimension.
    pub dim: TextureDim,
}

/// A shader module ready for the back ends.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// The stage.
    pub stage: Stage,
    /// For a geometry program, its primitives.
    pub geometry: Option<Geometry>,
    /// The entry point's name.
    pub entry_point: String,
    /// The inputs.
    pub inputs: Arena<Input>,
    /// The outputs, in the order the entry function returns them.
    pub outputs: Vec<Output>,
    /// The uniforms, for reflection (code refers to registers).
    pub uniforms: Vec<Uniform>,
    /// The samplers.
    pub samplers: Arena<Sampler>,
    /// The entry point's code, with every call inlined; it returns the outputs.
    pub function: Function,
    /// Source file names for spans' `OpLine` positions.
    pub source_files: Vec<String>,
}

impl Module {
    /// The first constant register after every float uniform (bool uniforms, which the
    /// PICA200 keeps in `b` registers, not counted): where literals or moved bools may go.
    pub fn first_free_float_register(&self) -> u32 {
        self.uniforms
            .iter()
            .filter(|u| !u.is_bool)
            .map(|u| u.register + u.count)
            .max()
            .unwrap_or(0)
    }
}
