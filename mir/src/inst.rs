//! Instructions: an operation, its operands, its results and its span.
//!
//! Operands carry a swizzle and negate/abs modifiers, because both targets apply them to a
//! source for free: `OpVectorShuffle`, `OpCompositeExtract` and `OpFNegate` become operand
//! modifiers rather than instructions (NIR and etnaviv do the same).
//!
//! The operations are the vector math of vertex and fragment shaders, one level above either
//! machine: `Normalize` is one AGAL `nrm` but three PICA200 instructions, `Sin` is one AGAL
//! `sin` but a polynomial on the PICA200. Each back end selects or expands them.

use crate::func::{LocalId, Value};
use crate::module::{InputId, SamplerId};
use crate::span::Span;
use crate::types::Swizzle;

/// A use of a value: which lanes, and whether negated or made absolute (`-|x|` applies abs
/// first). Modifiers apply to float values only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Operand {
    /// The value read.
    pub value: Value,
    /// Which lane of the value feeds each lane of the operand.
    pub swizzle: Swizzle,
    /// Negate the lanes.
    pub neg: bool,
    /// Take the absolute value of the lanes (before negating).
    pub abs: bool,
}

impl Operand {
    /// All lanes of `value`, unmodified.
    pub fn new(value: Value) -> Self {
        Operand {
            value,
            swizzle: Swizzle::IDENTITY,
            neg: false,
            abs: false,
        }
    }

    /// Lane `lane` of `value`, broadcast.
    pub fn lane(value: Value, lane: u8) -> Self {
        Operand {
            swizzle: Swizzle::splat(lane),
            ..Operand::new(value)
        }
    }

    /// `value` read through `swizzle`.
    pub fn swizzled(value: Value, swizzle: Swizzle) -> Self {
        Operand {
            swizzle,
            ..Operand::new(value)
        }
    }

    /// This operand negated.
    pub fn negated(self) -> Self {
        Operand {
            neg: !self.neg,
            ..self
        }
    }

    /// This operand read through a further swizzle.
    pub fn reswizzled(self, outer: Swizzle) -> Self {
        Operand {
            swizzle: self.swizzle.then(outer),
            ..self
        }
    }
}

/// How two floats compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `a < b`.
    Lt,
    /// `a <= b`.
    Le,
    /// `a > b`.
    Gt,
    /// `a >= b`.
    Ge,
    /// `a == b`.
    Eq,
    /// `a != b`.
    Ne,
}

impl CmpOp {
    /// The comparison with its operands swapped (`a < b` is `b > a`).
    pub fn swapped(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            CmpOp::Eq => CmpOp::Eq,
            CmpOp::Ne => CmpOp::Ne,
        }
    }

    /// The negated comparison (`!(a < b)` is `a >= b` for ordered operands).
    pub fn inverted(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Ge => CmpOp::Lt,
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
        }
    }

    /// The printer's spelling.
    pub fn name(self) -> &'static str {
        match self {
            CmpOp::Lt => "lt",
            CmpOp::Le => "le",
            CmpOp::Gt => "gt",
            CmpOp::Ge => "ge",
            CmpOp::Eq => "eq",
            CmpOp::Ne => "ne",
        }
    }
}

/// How a texture is sampled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SampleKind {
    /// Implicit level of detail: `texture(s, uv)`.
    Implicit,
    /// Implicit level of detail with a bias (second operand).
    Bias,
    /// Explicit level of detail (second operand).
    Lod,
}

/// An operation. The comment gives the operands; results have the shape the verifier
/// checks (see `verify.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    // --- lane-wise float, one operand ---
    /// `a` (a copy, or a swizzle/negate of it).
    Mov,
    /// `floor(a)`.
    Floor,
    /// `ceil(a)`.
    Ceil,
    /// `trunc(a)`.
    Trunc,
    /// Round half away from zero.
    Round,
    /// Round half to even.
    RoundEven,
    /// `a - floor(a)`.
    Fract,
    /// `sign(a)`: -1, 0 or 1.
    Sign,
    /// `1 / a`.
    Rcp,
    /// `1 / sqrt(a)`.
    Rsq,
    /// `sqrt(a)`.
    Sqrt,
    /// `2^a`.
    Exp2,
    /// `log2(a)`.
    Log2,
    /// `sin(a)`, radians.
    Sin,
    /// `cos(a)`, radians.
    Cos,
    /// `clamp(a, 0, 1)`.
    Sat,
    /// Screen-space derivative in x (fragment programs).
    Ddx,
    /// Screen-space derivative in y (fragment programs).
    Ddy,
    // --- lane-wise float, two operands ---
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a / b`.
    Div,
    /// `min(a, b)` as GLSL defines it, `b < a ? b : a`: `a` when either is NaN (the
    /// PICA200's MIN returns its second operand then, so it takes them swapped).
    Min,
    /// `max(a, b)` as GLSL defines it, `a < b ? b : a`: `a` when either is NaN.
    Max,
    /// `pow(a, b)`.
    Pow,
    // --- lane-wise float, three operands ---
    /// `a * b + c`.
    Mad,
    // --- reductions and geometry ---
    /// Dot product of the first N lanes (2, 3 or 4): a scalar.
    Dot(u8),
    /// `dot(vec4(a.xyz, 1), b)`: the homogeneous dot product (PICA200 `dph`).
    Dph,
    /// `cross(a.xyz, b.xyz)`.
    Cross,
    /// `normalize(a)` over its lanes.
    Normalize,
    /// A matrix times a vector: the operands are the N columns, then the vector (N lanes);
    /// the result has the columns' width. The `matrix` pass expands it into dot products of
    /// rows or a chain of multiply-adds of columns, whichever the operands make cheaper.
    MatVec(u8),
    // --- comparisons and logic ---
    /// Lane-wise comparison of two floats: bools.
    Cmp(CmpOp),
    /// Lane-wise `a && b` of bools.
    And,
    /// Lane-wise `a || b` of bools.
    Or,
    /// Lane-wise `!a` of bools.
    Not,
    /// `cond ? a : b`, lane-wise (a scalar condition applies to all lanes).
    Select,
    /// Bools to 1.0 / 0.0.
    BoolToFloat,
    // --- building vectors ---
    /// A constant: the bit patterns of its lanes (f32 bits for floats, 0 or 1 for bools).
    Const([u32; 4]),
    /// A vector from scalars: lane i is lane 0 of operand i (after its swizzle).
    Construct,
    // --- the interface ---
    /// The value of an input (no operands).
    LoadInput(InputId),
    /// A float uniform register (4 lanes); an optional operand is a dynamic register index
    /// added to `register` (a float holding an integer).
    LoadUniform {
        /// The register, counted from the start of the uniform space.
        register: u32,
    },
    /// A bool uniform (PICA200 `b` registers): a bool scalar.
    LoadBoolUniform {
        /// The bool register.
        register: u32,
    },
    /// The instance being drawn (`gl_InstanceIndex`; AGAL 3's `iid`): a float scalar.
    InstanceIndex,
    /// The fragment's window position (`gl_FragCoord`: x, y, depth, 1/w), which a back end
    /// computes (AGAL from the position its vertex program passes on).
    FragCoord,
    /// Samples a texture at the first operand's coordinates (with the second operand as
    /// bias or level of detail): 4 floats.
    Sample {
        /// Which sampler.
        sampler: SamplerId,
        /// How the level of detail is chosen.
        kind: SampleKind,
        /// Divide the coordinates by their last lane first (`textureProj`).
        proj: bool,
    },
    /// Discards the fragment when the bool operand is true (no result).
    Kill,
    /// A geometry program emits a vertex: the operands are the outputs' current values, in
    /// the module's output order (no result).
    EmitVertex,
    /// A geometry program ends the primitive it is emitting (no operands, no result).
    EndPrimitive,
    // --- before mem2reg ---
    /// Reads a function-local variable.
    LoadLocal(LocalId),
    /// Writes a function-local variable (one operand, no result).
    StoreLocal(LocalId),
}

impl Op {
    /// A float constant with `lanes` lanes.
    pub fn float_const(lanes: &[f32]) -> Op {
        let mut bits = [0u32; 4];
        for (b, v) in bits.iter_mut().zip(lanes) {
            *b = v.to_bits();
        }
        Op::Const(bits)
    }

    /// The printer's name.
    pub fn name(self) -> String {
        match self {
            Op::Dot(n) => format!("dot{n}"),
            Op::MatVec(n) => format!("matvec{n}"),
            Op::Const(bits) => format!(
                "const {}",
                bits.iter()
                    .map(|&b| format!("{:?}", f32::from_bits(b)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Op::Cmp(c) => format!("cmp.{}", c.name()),
            Op::LoadInput(i) => format!("input {}", i.index()),
            Op::LoadUniform { register } => format!("uniform u{register}"),
            Op::LoadBoolUniform { register } => format!("bool_uniform b{register}"),
            Op::InstanceIndex => "instance_index".into(),
            Op::FragCoord => "frag_coord".into(),
            Op::Sample {
                sampler,
                kind,
                proj,
            } => format!(
                "sample{}{} s{}",
                if proj { ".proj" } else { "" },
                match kind {
                    SampleKind::Implicit => "",
                    SampleKind::Bias => ".bias",
                    SampleKind::Lod => ".lod",
                },
                sampler.index()
            ),
            Op::LoadLocal(l) => format!("load_local l{}", l.index()),
            Op::StoreLocal(l) => format!("store_local l{}", l.index()),
            other => {
                let debug = format!("{other:?}");
                let mut out = String::new();
                for (i, c) in debug.chars().enumerate() {
                    if c.is_ascii_uppercase() && i > 0 {
                        out.push('_');
                    }
                    out.push(c.to_ascii_lowercase());
                }
                out
            }
        }
    }

    /// Whether the operation has no effect besides its result (so it can be removed when
    /// unused, and merged with an identical one).
    pub fn is_pure(self) -> bool {
        !matches!(
            self,
            Op::Kill | Op::StoreLocal(_) | Op::LoadLocal(_) | Op::EmitVertex | Op::EndPrimitive
        )
    }

    /// Whether the operation is a constant or a read of the interface (an input, a uniform,
    /// the instance or the fragment's position): nothing a register must hold, as the
    /// back ends read it where it lives.
    pub fn is_interface_or_constant(self) -> bool {
        matches!(
            self,
            Op::Const(_)
                | Op::LoadInput(_)
                | Op::LoadUniform { .. }
                | Op::LoadBoolUniform { .. }
                | Op::InstanceIndex
                | Op::FragCoord
        )
    }

    /// Whether the operation is a constant or a read of an input or a uniform: what every
    /// target reads where it lives as a source operand. Narrower than
    /// [`Op::is_interface_or_constant`]: a bool uniform is tested by a branch, not read as a
    /// source, and only some targets have a register for the instance (AGAL's `iid`; the
    /// PICA200 has none) or the fragment's position (none does: AGAL computes it).
    pub fn is_input_uniform_or_constant(self) -> bool {
        matches!(
            self,
            Op::Const(_) | Op::LoadInput(_) | Op::LoadUniform { .. }
        )
    }

    /// Whether the operation works lane by lane on float operands of the result's width.
    pub fn is_lanewise_float(self) -> bool {
        matches!(
            self,
            Op::Mov
                | Op::Floor
                | Op::Ceil
                | Op::Trunc
                | Op::Round
                | Op::RoundEven
                | Op::Fract
                | Op::Sign
                | Op::Rcp
                | Op::Rsq
                | Op::Sqrt
                | Op::Exp2
                | Op::Log2
                | Op::Sin
                | Op::Cos
                | Op::Sat
                | Op::Ddx
                | Op::Ddy
                | Op::Add
                | Op::Sub
                | Op::Mul
                | Op::Div
                | Op::Min
                | Op::Max
                | Op::Pow
                | Op::Mad
        )
    }

    /// How many operands the operation takes, when fixed.
    pub fn arity(self) -> Option<usize> {
        Some(match self {
            Op::Mov
            | Op::Floor
            | Op::Ceil
            | Op::Trunc
            | Op::Round
            | Op::RoundEven
            | Op::Fract
            | Op::Sign
            | Op::Rcp
            | Op::Rsq
            | Op::Sqrt
            | Op::Exp2
            | Op::Log2
            | Op::Sin
            | Op::Cos
            | Op::Sat
            | Op::Ddx
            | Op::Ddy
            | Op::Normalize
            | Op::Not
            | Op::BoolToFloat
            | Op::Kill
            | Op::StoreLocal(_) => 1,
            Op::Add
            | Op::Sub
            | Op::Mul
            | Op::Div
            | Op::Min
            | Op::Max
            | Op::Pow
            | Op::Dot(_)
            | Op::Dph
            | Op::Cross
            | Op::Cmp(_)
            | Op::And
            | Op::Or => 2,
            Op::Mad | Op::Select => 3,
            Op::LoadInput(_)
            | Op::LoadBoolUniform { .. }
            | Op::InstanceIndex
            | Op::FragCoord
            | Op::LoadLocal(_)
            | Op::EndPrimitive
            | Op::Const(_) => 0,
            Op::MatVec(n) => n as usize + 1,
            Op::LoadUniform { .. } | Op::Sample { .. } | Op::Construct | Op::EmitVertex => {
                return None;
            }
        })
    }
}

/// One instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    /// What it does.
    pub op: Op,
    /// Its operands.
    pub args: Vec<Operand>,
    /// The values it defines (none or one).
    pub results: Vec<Value>,
    /// Where it came from in the SPIR-V input.
    pub span: Span,
}

impl Inst {
    /// The single result, if there is exactly one.
    pub fn result(&self) -> Option<Value> {
        match self.results.as_slice() {
            [v] => Some(*v),
            _ => None,
        }
    }
}
