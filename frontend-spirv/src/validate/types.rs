//! Types: the table of declared types, checks that declarations are well formed, and checks of
//! the operand and result types of every instruction lowering handles. After this phase,
//! lowering can take an operand's type from its definition and trust it.

use mir::hash::HashMap;

use rspirv::dr::Operand;
use spirv::{Dim, GlslStd450Op, Op, StorageClass, Word};

use super::{Checker, Def, Place};
use crate::module::{Function, Inst};
use crate::rules::Rule;

/// A declared type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    /// `OpTypeVoid`.
    Void,
    /// `OpTypeBool`.
    Bool,
    /// `OpTypeInt`.
    Int {
        /// Bits.
        width: u32,
        /// Signedness as declared (it affects only some instructions).
        signed: bool,
    },
    /// `OpTypeFloat`.
    Float {
        /// Bits.
        width: u32,
    },
    /// `OpTypeVector`.
    Vector {
        /// The component type.
        component: Word,
        /// 2 to 4.
        count: u32,
    },
    /// `OpTypeMatrix`: `count` columns of type `column`.
    Matrix {
        /// The column type (a float vector).
        column: Word,
        /// Number of columns, 2 to 4.
        count: u32,
    },
    /// `OpTypeImage`.
    Image {
        /// The sampled type.
        sampled_type: Word,
        /// Dimensionality.
        dim: Dim,
        /// 1 for a depth image.
        depth: u32,
        /// Whether it is an array image.
        arrayed: bool,
        /// Whether it is multisampled.
        multisampled: bool,
    },
    /// `OpTypeSampler`.
    Sampler,
    /// `OpTypeSampledImage`.
    SampledImage {
        /// The image type.
        image: Word,
    },
    /// `OpTypeArray`.
    Array {
        /// Element type.
        element: Word,
        /// The length (the value of the length constant, or its default for a spec constant).
        length: u64,
    },
    /// `OpTypeRuntimeArray`.
    RuntimeArray {
        /// Element type.
        element: Word,
    },
    /// `OpTypeStruct`.
    Struct {
        /// Member types.
        members: Vec<Word>,
    },
    /// `OpTypePointer`.
    Pointer {
        /// Storage class.
        storage: StorageClass,
        /// Pointee type.
        pointee: Word,
    },
    /// `OpTypeFunction`.
    Function {
        /// Return type.
        ret: Word,
        /// Parameter types.
        params: Vec<Word>,
    },
    /// Any other type declaration (events, queues, ...), which no shader of ours uses.
    Other(Op),
}

/// The declared types by id.
#[derive(Clone, Debug, Default)]
pub struct TypeTable {
    types: HashMap<Word, Type>,
    /// Scalar/vector/column leaves of each type, saturating (see [`TypeTable::leaves`]).
    leaves: HashMap<Word, u64>,
}

/// How deeply types may nest (an array of structs of arrays ...). Every shader type
/// is a few levels deep; the bound keeps the recursive walks over types within the stack.
pub const MAX_TYPE_DEPTH: u32 = 64;

/// How many vector leaves (scalars, vectors, matrix columns) a type may have. The largest
/// register file of either target holds 250 vectors, so no usable variable, constant or
/// uniform comes near this; the bound keeps lowering, which expands aggregates leaf by
/// leaf, linear in the module's size.
pub const MAX_TYPE_LEAVES: u64 = 4096;

impl TypeTable {
    /// The type declared with id `id`.
    pub fn get(&self, id: Word) -> Option<&Type> {
        self.types.get(&id)
    }

    /// How many registers' worth of leaves (scalars, vectors, matrix columns) a value of
    /// type `id` has, saturating at `u64::MAX`: lowering refuses variables too large for
    /// any target before expanding them.
    pub fn leaves(&self, id: Word) -> u64 {
        self.leaves.get(&id).copied().unwrap_or(0)
    }

    /// Scalar component type and count: a scalar is itself with count 1; a vector its
    /// component and size.
    pub fn scalar_count(&self, id: Word) -> Option<(Word, u32)> {
        match self.get(id)? {
            Type::Bool | Type::Int { .. } | Type::Float { .. } => Some((id, 1)),
            Type::Vector { component, count } => Some((*component, *count)),
            _ => None,
        }
    }

    fn is_float(&self, id: Word) -> bool {
        matches!(self.get(id), Some(Type::Float { .. }))
    }

    fn is_int(&self, id: Word) -> bool {
        matches!(self.get(id), Some(Type::Int { .. }))
    }

    fn is_bool(&self, id: Word) -> bool {
        matches!(self.get(id), Some(Type::Bool))
    }

    /// A readable name: GLSL's where there is one (`vec4`, `ivec2`, `mat3`), else a
    /// description.
    pub fn name(&self, id: Word) -> String {
        match self.get(id) {
            None => format!("%{id}"),
            Some(t) => match t {
                Type::Void => "void".into(),
                Type::Bool => "bool".into(),
                Type::Int { width: 32, signed } => if *signed { "int" } else { "uint" }.into(),
                Type::Int { width, signed } => {
                    format!("{}{width}", if *signed { "int" } else { "uint" })
                }
                Type::Float { width: 32 } => "float".into(),
                Type::Float { width } => format!("float{width}"),
                Type::Vector { component, count } => {
                    let prefix = match self.get(*component) {
                        Some(Type::Float { width: 32 }) => "",
                        Some(Type::Int { signed: true, .. }) => "i",
                        Some(Type::Int { signed: false, .. }) => "u",
                        Some(Type::Bool) => "b",
                        _ => return format!("vector of {count} {}", self.name(*component)),
                    };
                    format!("{prefix}vec{count}")
                }
                Type::Matrix { column, count } => match self.scalar_count(*column) {
                    Some((_, rows)) if rows == *count => format!("mat{count}"),
                    Some((_, rows)) => format!("mat{count}x{rows}"),
                    None => format!("matrix of {count} {}", self.name(*column)),
                },
                Type::Image { dim, .. } => format!("image ({dim:?})"),
                Type::Sampler => "sampler".into(),
                Type::SampledImage { .. } => "sampled image".into(),
                Type::Array { element, length } => format!("{}[{length}]", self.name(*element)),
                Type::RuntimeArray { element } => format!("{}[]", self.name(*element)),
                Type::Struct { .. } => format!("struct %{id}"),
                Type::Pointer { storage, pointee } => {
                    format!("pointer to {storage:?} {}", self.name(*pointee))
                }
                Type::Function { .. } => "function type".into(),
                Type::Other(op) => format!("Op{op:?}"),
            },
        }
    }
}

/// Builds the type table, checking each declaration.
pub(super) fn collect(c: &mut Checker<'_>, defs: &HashMap<Word, Def>) -> TypeTable {
    let mut table = TypeTable::default();
    let mut depth: HashMap<Word, u32> = HashMap::default();
    let module = c.module;
    for inst in &module.globals {
        let op = inst.opcode();
        if !op.is_type() {
            continue;
        }
        let Some(id) = inst.result_id() else { continue };
        let lit = |i| inst.literal_operand(i).unwrap_or(0);
        let ids: Vec<Word> = (0..inst.op.operands.len())
            .filter_map(|i| inst.id_operand(i))
            .collect();
        let bad = |c: &mut Checker<'_>, message: String| {
            c.error(Rule::TypeDeclaration, inst, Place::Global, message);
        };
        let ty = match op {
            Op::TypeVoid => Type::Void,
            Op::TypeBool => Type::Bool,
            Op::TypeInt => {
                let (width, signed) = (lit(0), lit(1));
                if width != 32 {
                    bad(
                        c,
                        format!(
                            "{width}-bit integers are not supported: integers are carried in floats, so only 32-bit ones are accepted"
                        ),
                    );
                }
                if signed > 1 {
                    bad(c, format!("signedness must be 0 or 1, not {signed}"));
                }
                Type::Int {
                    width,
                    signed: signed == 1,
                }
            }
            Op::TypeFloat => {
                let width = lit(0);
                if width != 32 {
                    bad(
                        c,
                        format!(
                            "{width}-bit floats are not supported: the targets compute in 32-bit (AGAL) and 24-bit (PICA200) floats"
                        ),
                    );
                }
                Type::Float { width }
            }
            Op::TypeVector => {
                let (component, count) = (ids[0], lit(1));
                if !matches!(
                    table.get(component),
                    Some(Type::Bool | Type::Int { .. } | Type::Float { .. })
                ) {
                    bad(
                        c,
                        format!(
                            "a vector's components must be scalars, not {}",
                            table.name(component)
                        ),
                    );
                }
                if !(2..=4).contains(&count) {
                    bad(c, format!("a vector has 2, 3 or 4 components, not {count}"));
                }
                Type::Vector { component, count }
            }
            Op::TypeMatrix => {
                let (column, count) = (ids[0], lit(1));
                let float_column = matches!(
                    table.get(column),
                    Some(Type::Vector { component, .. }) if table.is_float(*component)
                );
                if !float_column {
                    bad(
                        c,
                        format!(
                            "a matrix's columns must be float vectors, not {}",
                            table.name(column)
                        ),
                    );
                }
                if !(2..=4).contains(&count) {
                    bad(c, format!("a matrix has 2, 3 or 4 columns, not {count}"));
                }
                Type::Matrix { column, count }
            }
            Op::TypeImage => {
                let dim = match inst.op.operands.get(1) {
                    Some(Operand::Dim(d)) => *d,
                    _ => Dim::Dim2D,
                };
                Type::Image {
                    sampled_type: ids[0],
                    dim,
                    depth: lit(2),
                    arrayed: lit(3) == 1,
                    multisampled: lit(4) == 1,
                }
            }
            Op::TypeSampler => Type::Sampler,
            Op::TypeSampledImage => {
                if !matches!(table.get(ids[0]), Some(Type::Image { .. })) {
                    bad(
                        c,
                        format!(
                            "a sampled image's type must be an image type, not {}",
                            table.name(ids[0])
                        ),
                    );
                }
                Type::SampledImage { image: ids[0] }
            }
            Op::TypeArray => {
                let (element, length_id) = (ids[0], ids[1]);
                element_type(c, &table, inst, element);
                match constant_uint(c, defs, length_id, &table) {
                    Some(0) => {
                        bad(c, "an array's length must be at least 1".into());
                        Type::Array { element, length: 0 }
                    }
                    Some(length) => Type::Array { element, length },
                    None => {
                        bad(
                            c,
                            format!(
                                "an array's length must be an integer constant; {} is not one",
                                c.id(length_id)
                            ),
                        );
                        Type::Array { element, length: 0 }
                    }
                }
            }
            Op::TypeRuntimeArray => {
                element_type(c, &table, inst, ids[0]);
                Type::RuntimeArray { element: ids[0] }
            }
            Op::TypeStruct => {
                for &member in &ids {
                    element_type(c, &table, inst, member);
                }
                Type::Struct { members: ids }
            }
            Op::TypePointer => {
                let storage = match inst.op.operands.first() {
                    Some(Operand::StorageClass(s)) => *s,
                    _ => StorageClass::Function,
                };
                Type::Pointer {
                    storage,
                    pointee: ids.first().copied().unwrap_or(0),
                }
            }
            Op::TypeFunction => {
                let ret = ids[0];
                for &param in &ids[1..] {
                    if matches!(table.get(param), Some(Type::Void)) {
                        bad(c, "a function parameter cannot be void".into());
                    }
                }
                Type::Function {
                    ret,
                    params: ids[1..].to_vec(),
                }
            }
            other => Type::Other(other),
        };
        // Types are declared before use (§2.4), so the children's metrics are known.
        let children: Vec<Word> = match &ty {
            Type::Vector { component, .. } => vec![*component],
            Type::Matrix { column, .. } => vec![*column],
            Type::SampledImage { image } => vec![*image],
            Type::Array { element, .. } | Type::RuntimeArray { element } => vec![*element],
            Type::Struct { members } => members.clone(),
            Type::Pointer { pointee, .. } => vec![*pointee],
            Type::Function { ret, params } => std::iter::once(*ret)
                .chain(params.iter().copied())
                .collect(),
            _ => Vec::new(),
        };
        let d = 1 + children
            .iter()
            .map(|c| depth.get(c).copied().unwrap_or(0))
            .max()
            .unwrap_or(0);
        if d == MAX_TYPE_DEPTH + 1 {
            bad(
                c,
                format!("types nest {d} deep here; this compiler accepts at most {MAX_TYPE_DEPTH}"),
            );
        }
        depth.insert(id, d);
        let leaves = match &ty {
            Type::Bool | Type::Int { .. } | Type::Float { .. } | Type::Vector { .. } => 1,
            Type::Matrix { count, .. } => u64::from(*count),
            Type::Array { element, length } => table.leaves(*element).saturating_mul(*length),
            Type::Struct { members } => members
                .iter()
                .fold(0u64, |n, m| n.saturating_add(table.leaves(*m))),
            _ => 1,
        };
        if leaves > MAX_TYPE_LEAVES && children.iter().all(|c| table.leaves(*c) <= MAX_TYPE_LEAVES)
        {
            // A valid module, too large for any target: a limit, not a malformed type.
            c.error(
                Rule::TypeLimit,
                inst,
                Place::Global,
                format!(
                    "this type has {leaves} vector components; neither target can hold more than {MAX_TYPE_LEAVES} (their largest register file is 250 vectors)"
                ),
            );
        }
        table.leaves.insert(id, leaves);
        table.types.insert(id, ty);
    }
    table
}

fn element_type(c: &mut Checker<'_>, table: &TypeTable, inst: &Inst, element: Word) {
    if matches!(
        table.get(element),
        Some(Type::Void) | Some(Type::Function { .. })
    ) {
        c.error(
            Rule::TypeDeclaration,
            inst,
            Place::Global,
            format!(
                "{} cannot be an element or member type",
                table.name(element)
            ),
        );
    }
}

/// The value of an integer constant (a spec constant's default, or a spec-constant
/// expression), if `id` is one and it is not negative.
fn constant_uint(
    c: &Checker<'_>,
    defs: &HashMap<Word, Def>,
    id: Word,
    table: &TypeTable,
) -> Option<u64> {
    let value = super::consteval::int_value(c.module, defs, table, id)?;
    u64::try_from(value).ok()
}

/// Checks the operand and result types of every instruction lowering handles.
pub(super) fn check(c: &mut Checker<'_>, defs: &HashMap<Word, Def>, table: &TypeTable) {
    let module = c.module;
    for inst in &module.globals {
        if inst.opcode().is_constant() || inst.opcode() == Op::Variable {
            Typer {
                c,
                defs,
                table,
                function: None,
            }
            .check(inst, Place::Global);
        }
    }
    for f in &module.functions {
        let mut t = Typer {
            c,
            defs,
            table,
            function: Some(f),
        };
        t.check(&f.def, Place::Function(f));
        for p in &f.params {
            t.check(p, Place::Function(f));
        }
        for b in &f.blocks {
            for inst in &b.insts {
                t.check(inst, Place::Block(f, b));
            }
        }
    }
}

struct Typer<'a, 'm> {
    c: &'a mut Checker<'m>,
    defs: &'a HashMap<Word, Def>,
    table: &'a TypeTable,
    function: Option<&'m Function>,
}

/// What went wrong with an instruction's types, as a sentence.
type Mismatch = String;

impl Typer<'_, '_> {
    /// The type of value `id` (validated earlier to be a value).
    fn ty(&self, id: Word) -> Word {
        self.defs.get(&id).and_then(|d| d.result_type).unwrap_or(0)
    }

    fn name(&self, ty: Word) -> String {
        self.table.name(ty)
    }

    /// `%x (vec4)`.
    fn describe(&self, id: Word) -> String {
        format!("{} ({})", self.c.id(id), self.name(self.ty(id)))
    }

    fn check(&mut self, inst: &Inst, place: Place<'_>) {
        if let Err(message) = self.check_inst(inst) {
            self.c.error(Rule::TypeOperand, inst, place, message);
        }
    }

    fn check_inst(&self, inst: &Inst) -> Result<(), Mismatch> {
        use Op::*;
        let t = self.table;
        let rt = inst.result_type().unwrap_or(0);
        let ops: Vec<Word> = (0..inst.op.operands.len())
            .map(|i| inst.id_operand(i).unwrap_or(0))
            .collect();
        let op = inst.opcode();
        let name = |i: usize| -> std::string::String { self.describe(ops[i]) };
        match op {
            FAdd | FSub | FMul | FDiv | FRem | FMod | FNegate => {
                self.numeric_result(rt, op, |c| t.is_float(c))?;
                self.all_operands_are(inst, &ops, rt)
            }
            IAdd | ISub | IMul | SDiv | UDiv | SRem | SMod | UMod | SNegate | Not | BitwiseAnd
            | BitwiseOr | BitwiseXor => {
                self.numeric_result(rt, op, |c| t.is_int(c))?;
                self.all_operands_int_like(inst, &ops, rt)
            }
            ShiftLeftLogical | ShiftRightLogical | ShiftRightArithmetic => {
                self.numeric_result(rt, op, |c| t.is_int(c))?;
                let n = self.count(rt);
                for &o in &ops {
                    if !self.int_with(self.ty(o), n) {
                        return Err(format!(
                            "Op{op:?} needs integer operands with {n} component(s); {} is not",
                            self.describe(o)
                        ));
                    }
                }
                Ok(())
            }
            FOrdEqual
            | FUnordEqual
            | FOrdNotEqual
            | FUnordNotEqual
            | FOrdLessThan
            | FUnordLessThan
            | FOrdGreaterThan
            | FUnordGreaterThan
            | FOrdLessThanEqual
            | FUnordLessThanEqual
            | FOrdGreaterThanEqual
            | FUnordGreaterThanEqual => {
                self.numeric_result(rt, op, |c| t.is_bool(c))?;
                let n = self.count(rt);
                let a = self.ty(ops[0]);
                if !self.float_with(a, n) || self.ty(ops[1]) != a {
                    return Err(format!(
                        "Op{op:?} compares {} with {}; both must be the same float type with {n} component(s)",
                        name(0),
                        name(1)
                    ));
                }
                Ok(())
            }
            IEqual | INotEqual | SGreaterThan | SGreaterThanEqual | SLessThan | SLessThanEqual
            | UGreaterThan | UGreaterThanEqual | ULessThan | ULessThanEqual => {
                self.numeric_result(rt, op, |c| t.is_bool(c))?;
                let n = self.count(rt);
                if !self.int_with(self.ty(ops[0]), n) || !self.int_with(self.ty(ops[1]), n) {
                    return Err(format!(
                        "Op{op:?} compares {} with {}; both must be integers with {n} component(s)",
                        name(0),
                        name(1)
                    ));
                }
                Ok(())
            }
            LogicalAnd | LogicalOr | LogicalEqual | LogicalNotEqual | LogicalNot => {
                self.numeric_result(rt, op, |c| t.is_bool(c))?;
                self.all_operands_are(inst, &ops, rt)
            }
            IsNan | IsInf => {
                self.numeric_result(rt, op, |c| t.is_bool(c))?;
                if !self.float_with(self.ty(ops[0]), self.count(rt)) {
                    return Err(format!(
                        "Op{op:?} tests {}, which must be a float with as many components as the result",
                        name(0)
                    ));
                }
                Ok(())
            }
            Select => {
                let cond = self.ty(ops[0]);
                let cond_ok = t.is_bool(cond)
                    || matches!(t.scalar_count(cond), Some((c, n)) if t.is_bool(c) && Some(n) == t.scalar_count(rt).map(|s| s.1));
                if !cond_ok {
                    return Err(format!(
                        "OpSelect's condition {} must be a bool, or a bool vector as wide as the result",
                        name(0)
                    ));
                }
                for &o in &ops[1..3] {
                    if self.ty(o) != rt {
                        return Err(format!(
                            "OpSelect chooses {}, which is not the result type {}",
                            self.describe(o),
                            self.name(rt)
                        ));
                    }
                }
                Ok(())
            }
            ConvertFToS | ConvertFToU => {
                self.numeric_result(rt, op, |c| t.is_int(c))?;
                if !self.float_with(self.ty(ops[0]), self.count(rt)) {
                    return Err(format!(
                        "Op{op:?} converts {}, which must be a float with as many components as the result",
                        name(0)
                    ));
                }
                Ok(())
            }
            ConvertSToF | ConvertUToF => {
                self.numeric_result(rt, op, |c| t.is_float(c))?;
                if !self.int_with(self.ty(ops[0]), self.count(rt)) {
                    return Err(format!(
                        "Op{op:?} converts {}, which must be an integer with as many components as the result",
                        name(0)
                    ));
                }
                Ok(())
            }
            Bitcast => {
                // Every scalar type accepted here is 32 bits wide, so equal counts mean equal sizes.
                let from = t.scalar_count(self.ty(ops[0])).map(|s| s.1);
                if from.is_none() || from != t.scalar_count(rt).map(|s| s.1) {
                    return Err(format!(
                        "OpBitcast from {} to {}: both must be scalars or vectors with the same number of components",
                        name(0),
                        self.name(rt)
                    ));
                }
                Ok(())
            }
            CopyObject => {
                if self.ty(ops[0]) != rt {
                    return Err(format!(
                        "OpCopyObject copies {} into {}",
                        name(0),
                        self.name(rt)
                    ));
                }
                Ok(())
            }
            Dot => {
                let a = self.ty(ops[0]);
                let ok = t.is_float(rt)
                    && matches!(t.get(a), Some(Type::Vector { component, .. }) if *component == rt)
                    && self.ty(ops[1]) == a;
                if !ok {
                    return Err(format!(
                        "OpDot multiplies {} with {}; both must be the same float vector, of the result's component type",
                        name(0),
                        name(1)
                    ));
                }
                Ok(())
            }
            VectorTimesScalar => {
                let ok = matches!(t.get(rt), Some(Type::Vector { component, .. }) if t.is_float(*component) && self.ty(ops[1]) == *component)
                    && self.ty(ops[0]) == rt;
                if !ok {
                    return Err(format!(
                        "OpVectorTimesScalar multiplies {} by {}; the vector must have the result type {} and the scalar its component type",
                        name(0),
                        name(1),
                        self.name(rt)
                    ));
                }
                Ok(())
            }
            MatrixTimesScalar => {
                let ok = self.ty(ops[0]) == rt
                    && self
                        .matrix(rt)
                        .is_some_and(|(_, _, comp)| comp == self.ty(ops[1]));
                if !ok {
                    return Err(format!(
                        "OpMatrixTimesScalar multiplies {} by {}; the matrix must have the result type and the scalar its component type",
                        name(0),
                        name(1)
                    ));
                }
                Ok(())
            }
            MatrixTimesVector => {
                let (cols, rows, comp) = self.matrix(self.ty(ops[0])).ok_or_else(|| {
                    format!("OpMatrixTimesVector needs a matrix first, not {}", name(0))
                })?;
                let ok = self.vector(self.ty(ops[1])) == Some((comp, cols))
                    && self.vector(rt) == Some((comp, rows));
                if !ok {
                    return Err(format!(
                        "OpMatrixTimesVector multiplies {} ({cols} columns of {rows}) by {}; the vector needs {cols} components and the result ({}) {rows}",
                        name(0),
                        name(1),
                        self.name(rt)
                    ));
                }
                Ok(())
            }
            VectorTimesMatrix => {
                let (cols, rows, comp) = self.matrix(self.ty(ops[1])).ok_or_else(|| {
                    format!("OpVectorTimesMatrix needs a matrix second, not {}", name(1))
                })?;
                let ok = self.vector(self.ty(ops[0])) == Some((comp, rows))
                    && self.vector(rt) == Some((comp, cols));
                if !ok {
                    return Err(format!(
                        "OpVectorTimesMatrix multiplies {} by {} ({cols} columns of {rows}); the vector needs {rows} components and the result ({}) {cols}",
                        name(0),
                        name(1),
                        self.name(rt)
                    ));
                }
                Ok(())
            }
            MatrixTimesMatrix => {
                let a = self.matrix(self.ty(ops[0]));
                let b = self.matrix(self.ty(ops[1]));
                let r = self.matrix(rt);
                let ok = matches!((a, b, r), (Some((ac, ar, x)), Some((bc, br, y)), Some((rc, rr, z))) if x == y && y == z && ac == br && rc == bc && rr == ar);
                if !ok {
                    return Err(format!(
                        "OpMatrixTimesMatrix multiplies {} by {} into {}: the sizes do not agree",
                        name(0),
                        name(1),
                        self.name(rt)
                    ));
                }
                Ok(())
            }
            OuterProduct => {
                let r = self.matrix(rt);
                let ok = matches!(r, Some((cols, rows, comp)) if self.vector(self.ty(ops[0])) == Some((comp, rows)) && self.vector(self.ty(ops[1])) == Some((comp, cols)));
                if !ok {
                    return Err(format!(
                        "OpOuterProduct of {} and {} cannot give {}",
                        name(0),
                        name(1),
                        self.name(rt)
                    ));
                }
                Ok(())
            }
            Transpose => {
                let ok = matches!((self.matrix(rt), self.matrix(self.ty(ops[0]))), (Some((rc, rr, x)), Some((ac, ar, y))) if x == y && rc == ar && rr == ac);
                if !ok {
                    return Err(format!(
                        "OpTranspose of {} cannot give {}",
                        name(0),
                        self.name(rt)
                    ));
                }
                Ok(())
            }
            CompositeConstruct | ConstantComposite | SpecConstantComposite => {
                self.construct(rt, &ops, op)
            }
            CompositeExtract => {
                let indices: Vec<u32> = inst.op.operands[1..].iter().filter_map(lit).collect();
                let ty = self.walk(self.ty(ops[0]), &indices)?;
                if ty != rt {
                    return Err(format!(
                        "OpCompositeExtract of {} at {indices:?} gives {}, not the result type {}",
                        name(0),
                        self.name(ty),
                        self.name(rt)
                    ));
                }
                Ok(())
            }
            CompositeInsert => {
                let indices: Vec<u32> = inst.op.operands[2..].iter().filter_map(lit).collect();
                if self.ty(ops[1]) != rt {
                    return Err(format!(
                        "OpCompositeInsert into {}: the composite must have the result type {}",
                        name(1),
                        self.name(rt)
                    ));
                }
                let ty = self.walk(rt, &indices)?;
                if ty != self.ty(ops[0]) {
                    return Err(format!(
                        "OpCompositeInsert puts {} at {indices:?}, where the composite holds {}",
                        name(0),
                        self.name(ty)
                    ));
                }
                Ok(())
            }
            VectorShuffle => {
                let (a, b) = (self.vector(self.ty(ops[0])), self.vector(self.ty(ops[1])));
                let (Some((ca, na)), Some((cb, nb))) = (a, b) else {
                    return Err(format!(
                        "OpVectorShuffle shuffles {} and {}; both must be vectors",
                        name(0),
                        name(1)
                    ));
                };
                let components: Vec<u32> = inst.op.operands[2..].iter().filter_map(lit).collect();
                if ca != cb || self.vector(rt) != Some((ca, components.len() as u32)) {
                    return Err(format!(
                        "OpVectorShuffle of {} and {} picks {} components, which does not give {}",
                        name(0),
                        name(1),
                        components.len(),
                        self.name(rt)
                    ));
                }
                if let Some(c) = components.iter().find(|&&c| c != u32::MAX && c >= na + nb) {
                    return Err(format!(
                        "OpVectorShuffle component {c} is out of range: the two vectors have {} components",
                        na + nb
                    ));
                }
                Ok(())
            }
            VectorExtractDynamic => {
                let ok = self.vector(self.ty(ops[0])).is_some_and(|(c, _)| c == rt)
                    && t.is_int(self.ty(ops[1]));
                if !ok {
                    return Err(format!(
                        "OpVectorExtractDynamic takes a component of type {} from {} at integer index {}",
                        self.name(rt),
                        name(0),
                        name(1)
                    ));
                }
                Ok(())
            }
            VectorInsertDynamic => {
                let ok = self.ty(ops[0]) == rt
                    && self.vector(rt).is_some_and(|(c, _)| c == self.ty(ops[1]))
                    && t.is_int(self.ty(ops[2]));
                if !ok {
                    return Err(format!(
                        "OpVectorInsertDynamic puts {} into {} at {}: types do not agree",
                        name(1),
                        name(0),
                        name(2)
                    ));
                }
                Ok(())
            }
            Load => match t.get(self.ty(ops[0])) {
                Some(Type::Pointer { pointee, .. }) if *pointee == rt => Ok(()),
                Some(Type::Pointer { pointee, .. }) => Err(format!(
                    "OpLoad from {} gives {}, not the result type {}",
                    name(0),
                    self.name(*pointee),
                    self.name(rt)
                )),
                _ => Err(format!("OpLoad needs a pointer, not {}", name(0))),
            },
            Store => match t.get(self.ty(ops[0])) {
                Some(Type::Pointer { pointee, .. }) if *pointee == self.ty(ops[1]) => Ok(()),
                Some(Type::Pointer { pointee, .. }) => Err(format!(
                    "OpStore writes {} through {}, which points to {}",
                    name(1),
                    name(0),
                    self.name(*pointee)
                )),
                _ => Err(format!("OpStore needs a pointer, not {}", name(0))),
            },
            AccessChain | InBoundsAccessChain => {
                let Some(Type::Pointer { storage, pointee }) = t.get(self.ty(ops[0])) else {
                    return Err(format!("Op{op:?} needs a pointer base, not {}", name(0)));
                };
                let mut ty = *pointee;
                for &index in &ops[1..] {
                    ty = match t.get(ty) {
                        Some(Type::Struct { members }) => {
                            let Some(i) = self.constant_index(index) else {
                                return Err(format!(
                                    "Op{op:?} indexes a structure with {}, which must be an integer constant",
                                    self.describe(index)
                                ));
                            };
                            *members.get(i as usize).ok_or_else(|| {
                                format!(
                                    "Op{op:?} selects member {i} of {}, which has {}",
                                    self.name(ty),
                                    members.len()
                                )
                            })?
                        }
                        Some(Type::Vector { component, .. }) => *component,
                        Some(Type::Matrix { column, .. }) => *column,
                        Some(Type::Array { element, .. } | Type::RuntimeArray { element }) => {
                            *element
                        }
                        _ => {
                            return Err(format!(
                                "Op{op:?} indexes into {}, which is not a composite",
                                self.name(ty)
                            ));
                        }
                    };
                    if !t.is_int(self.ty(index)) {
                        return Err(format!(
                            "Op{op:?} index {} must be an integer",
                            self.describe(index)
                        ));
                    }
                }
                match t.get(rt) {
                    Some(Type::Pointer {
                        storage: s,
                        pointee: p,
                    }) if s == storage && *p == ty => Ok(()),
                    _ => Err(format!(
                        "Op{op:?} reaches a {:?} {}, so its result type must point to that, not be {}",
                        storage,
                        self.name(ty),
                        self.name(rt)
                    )),
                }
            }
            Variable => {
                let storage = match inst.op.operands.first() {
                    Some(Operand::StorageClass(s)) => *s,
                    _ => return Ok(()),
                };
                match t.get(rt) {
                    Some(Type::Pointer {
                        storage: s,
                        pointee,
                    }) if *s == storage => {
                        if let Some(&init) = ops.get(1) {
                            if self.ty(init) != *pointee {
                                return Err(format!(
                                    "OpVariable's initializer {} is not a {}",
                                    self.describe(init),
                                    self.name(*pointee)
                                ));
                            }
                        }
                        Ok(())
                    }
                    _ => Err(format!(
                        "OpVariable of storage class {storage:?} needs a result type that points to {storage:?}, not {}",
                        self.name(rt)
                    )),
                }
            }
            Phi => {
                for pair in ops.chunks(2) {
                    if self.ty(pair[0]) != rt {
                        return Err(format!(
                            "OpPhi merges {}, which is not of the result type {}",
                            self.describe(pair[0]),
                            self.name(rt)
                        ));
                    }
                }
                Ok(())
            }
            Function => match t.get(ops.get(1).copied().unwrap_or(0)) {
                Some(Type::Function { ret, .. }) if *ret == rt => Ok(()),
                Some(Type::Function { ret, .. }) => Err(format!(
                    "OpFunction returns {} but its function type returns {}",
                    self.name(rt),
                    self.name(*ret)
                )),
                _ => Err("OpFunction's last operand must be an OpTypeFunction".into()),
            },
            FunctionParameter => Ok(()),
            FunctionCall => {
                let callee = self.defs.get(&ops[0]).map(|d| self.c.def_inst(d));
                let Some(callee) = callee else { return Ok(()) };
                let Some(Type::Function { ret, params }) = t.get(callee.id_operand(1).unwrap_or(0))
                else {
                    return Ok(());
                };
                if *ret != rt {
                    return Err(format!(
                        "the call returns {} but {} returns {}",
                        self.name(rt),
                        self.c.id(ops[0]),
                        self.name(*ret)
                    ));
                }
                let args = &ops[1..];
                if args.len() != params.len() {
                    return Err(format!(
                        "the call passes {} argument(s) but {} takes {}",
                        args.len(),
                        self.c.id(ops[0]),
                        params.len()
                    ));
                }
                for (i, (&a, &p)) in args.iter().zip(params).enumerate() {
                    if self.ty(a) != p {
                        return Err(format!(
                            "argument {} is {}, but parameter {} of {} is {}",
                            i + 1,
                            self.describe(a),
                            i + 1,
                            self.c.id(ops[0]),
                            self.name(p)
                        ));
                    }
                }
                Ok(())
            }
            ReturnValue => {
                let ret = self
                    .function
                    .map_or(0, |f| f.def.result_type().unwrap_or(0));
                if self.ty(ops[0]) != ret {
                    return Err(format!(
                        "OpReturnValue returns {}, but the function returns {}",
                        name(0),
                        self.name(ret)
                    ));
                }
                Ok(())
            }
            Return => {
                let ret = self
                    .function
                    .map_or(0, |f| f.def.result_type().unwrap_or(0));
                if !matches!(t.get(ret), Some(Type::Void)) {
                    return Err(format!(
                        "OpReturn in a function that returns {}; use OpReturnValue",
                        self.name(ret)
                    ));
                }
                Ok(())
            }
            BranchConditional => {
                if !t.is_bool(self.ty(ops[0])) {
                    return Err(format!(
                        "OpBranchConditional's condition {} must be a bool",
                        name(0)
                    ));
                }
                Ok(())
            }
            Switch => {
                if !t.is_int(self.ty(ops[0])) {
                    return Err(format!(
                        "OpSwitch's selector {} must be an integer scalar",
                        name(0)
                    ));
                }
                Ok(())
            }
            ConstantTrue | ConstantFalse | SpecConstantTrue | SpecConstantFalse => {
                if !t.is_bool(rt) {
                    return Err(format!(
                        "Op{op:?} must have type bool, not {}",
                        self.name(rt)
                    ));
                }
                Ok(())
            }
            Constant | SpecConstant => {
                let wide = matches!(inst.op.operands.first(), Some(Operand::LiteralBit64(_)));
                match t.get(rt) {
                    Some(Type::Int { width, .. } | Type::Float { width })
                        if (*width == 64) == wide =>
                    {
                        Ok(())
                    }
                    Some(Type::Int { .. } | Type::Float { .. }) => Err(format!(
                        "the literal of Op{op:?} does not match its type {}",
                        self.name(rt)
                    )),
                    _ => Err(format!(
                        "Op{op:?} must have an integer or float type, not {}",
                        self.name(rt)
                    )),
                }
            }
            SampledImage => {
                // The result's image type is the image's, except that its Depth operand may
                // say otherwise: glslang combines a `texture2D` with a `samplerShadow` so
                // (`sampler2DShadow(t, s)`), and spirv-val accepts it.
                let image = self.ty(ops[0]);
                let same_but_depth = |a: Word, b: Word| {
                    a == b
                        || matches!(
                            (t.get(a), t.get(b)),
                            (
                                Some(Type::Image { sampled_type: s1, dim: d1, arrayed: a1, multisampled: m1, .. }),
                                Some(Type::Image { sampled_type: s2, dim: d2, arrayed: a2, multisampled: m2, .. }),
                            ) if s1 == s2 && d1 == d2 && a1 == a2 && m1 == m2
                        )
                };
                let ok = matches!(t.get(rt), Some(Type::SampledImage { image: r }) if same_but_depth(*r, image))
                    && matches!(t.get(self.ty(ops[1])), Some(Type::Sampler));
                if !ok {
                    return Err(format!(
                        "OpSampledImage combines {} and {} into {}: the image type and a sampler must match the result",
                        name(0),
                        name(1),
                        self.name(rt)
                    ));
                }
                Ok(())
            }
            Image => {
                let ok = matches!(t.get(self.ty(ops[0])), Some(Type::SampledImage { image }) if *image == rt);
                if !ok {
                    return Err(format!(
                        "OpImage takes the image out of {}, which must be a sampled image of type {}",
                        name(0),
                        self.name(rt)
                    ));
                }
                Ok(())
            }
            ImageSampleImplicitLod
            | ImageSampleExplicitLod
            | ImageSampleProjImplicitLod
            | ImageSampleProjExplicitLod
            | ImageSampleDrefImplicitLod
            | ImageSampleDrefExplicitLod
            | ImageSampleProjDrefImplicitLod
            | ImageSampleProjDrefExplicitLod => {
                let Some(Type::SampledImage { image }) = t.get(self.ty(ops[0])) else {
                    return Err(format!(
                        "Op{op:?} samples {}, which must be a sampled image",
                        name(0)
                    ));
                };
                let Some(Type::Image { sampled_type, .. }) = t.get(*image) else {
                    return Ok(());
                };
                let dref = matches!(
                    op,
                    ImageSampleDrefImplicitLod
                        | ImageSampleDrefExplicitLod
                        | ImageSampleProjDrefImplicitLod
                        | ImageSampleProjDrefExplicitLod
                );
                let result_ok = if dref {
                    rt == *sampled_type
                } else {
                    self.vector(rt) == Some((*sampled_type, 4))
                };
                if !result_ok {
                    return Err(format!(
                        "Op{op:?} gives {}; it must give {} of the image's sampled type {}",
                        self.name(rt),
                        if dref {
                            "a scalar"
                        } else {
                            "a 4-component vector"
                        },
                        self.name(*sampled_type)
                    ));
                }
                let coord = self.ty(ops[1]);
                if !t.scalar_count(coord).is_some_and(|(c, _)| t.is_float(c)) {
                    return Err(format!(
                        "Op{op:?}'s coordinate {} must be a float scalar or vector",
                        name(1)
                    ));
                }
                Ok(())
            }
            ExtInst => self.glsl(inst, rt, &ops),
            _ => Ok(()),
        }
    }

    /// A result that is a scalar or vector whose component satisfies `component_ok`.
    fn numeric_result(
        &self,
        rt: Word,
        op: Op,
        component_ok: impl Fn(Word) -> bool,
    ) -> Result<(), Mismatch> {
        match self.table.scalar_count(rt) {
            Some((c, _)) if component_ok(c) => Ok(()),
            _ => Err(format!("Op{op:?} cannot produce a {}", self.name(rt))),
        }
    }

    fn all_operands_are(&self, inst: &Inst, ops: &[Word], rt: Word) -> Result<(), Mismatch> {
        for &o in ops {
            if self.ty(o) != rt {
                return Err(format!(
                    "Op{:?} takes {}, but its operands must have the result type {}",
                    inst.opcode(),
                    self.describe(o),
                    self.name(rt)
                ));
            }
        }
        Ok(())
    }

    /// Integer operations allow operands of either signedness with the result's shape.
    fn all_operands_int_like(&self, inst: &Inst, ops: &[Word], rt: Word) -> Result<(), Mismatch> {
        let n = self.count(rt);
        for &o in ops {
            if !self.int_with(self.ty(o), n) {
                return Err(format!(
                    "Op{:?} takes {}, but its operands must be integers shaped like the result {}",
                    inst.opcode(),
                    self.describe(o),
                    self.name(rt)
                ));
            }
        }
        Ok(())
    }

    fn count(&self, ty: Word) -> u32 {
        self.table.scalar_count(ty).map_or(0, |s| s.1)
    }

    fn float_with(&self, ty: Word, n: u32) -> bool {
        matches!(self.table.scalar_count(ty), Some((c, m)) if m == n && self.table.is_float(c))
    }

    fn int_with(&self, ty: Word, n: u32) -> bool {
        matches!(self.table.scalar_count(ty), Some((c, m)) if m == n && self.table.is_int(c))
    }

    /// (component, count) of a vector type.
    fn vector(&self, ty: Word) -> Option<(Word, u32)> {
        match self.table.get(ty)? {
            Type::Vector { component, count } => Some((*component, *count)),
            _ => None,
        }
    }

    /// (columns, rows, component) of a matrix type.
    fn matrix(&self, ty: Word) -> Option<(u32, u32, Word)> {
        match self.table.get(ty)? {
            Type::Matrix { column, count } => {
                let (component, rows) = self.vector(*column)?;
                Some((*count, rows, component))
            }
            _ => None,
        }
    }

    fn constant_index(&self, id: Word) -> Option<u64> {
        constant_uint(self.c, self.defs, id, self.table)
    }

    /// The type reached by literal `indices` into `ty`.
    fn walk(&self, mut ty: Word, indices: &[u32]) -> Result<Word, Mismatch> {
        for &i in indices {
            let (next, len) = match self.table.get(ty) {
                Some(Type::Vector { component, count }) => (*component, *count as u64),
                Some(Type::Matrix { column, count }) => (*column, *count as u64),
                Some(Type::Array { element, length }) => (*element, *length),
                Some(Type::Struct { members }) => {
                    let m = members.get(i as usize).copied().unwrap_or(0);
                    (m, members.len() as u64)
                }
                _ => {
                    return Err(format!(
                        "index {i} goes into {}, which is not a composite",
                        self.name(ty)
                    ));
                }
            };
            if u64::from(i) >= len {
                return Err(format!(
                    "index {i} is out of range for {}, which has {len} element(s)",
                    self.name(ty)
                ));
            }
            ty = next;
        }
        Ok(ty)
    }

    /// `OpCompositeConstruct` and composite constants.
    fn construct(&self, rt: Word, parts: &[Word], op: Op) -> Result<(), Mismatch> {
        let t = self.table;
        let wrong =
            |detail: String| Err(format!("Op{op:?} builds {} from {}", self.name(rt), detail));
        let list = || {
            parts
                .iter()
                .map(|&p| self.describe(p))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match t.get(rt) {
            Some(Type::Vector { component, count }) => {
                let mut total = 0;
                for &p in parts {
                    match t.scalar_count(self.ty(p)) {
                        Some((c, n)) if c == *component => total += n,
                        _ => {
                            return wrong(format!(
                                "{}; each part must be a {} or a vector of them",
                                list(),
                                self.name(*component)
                            ));
                        }
                    }
                }
                if total != *count {
                    return wrong(format!("{} ({total} components); it needs {count}", list()));
                }
                Ok(())
            }
            Some(Type::Matrix { column, count }) => {
                if parts.len() != *count as usize || parts.iter().any(|&p| self.ty(p) != *column) {
                    return wrong(format!(
                        "{}; it needs {count} columns of {}",
                        list(),
                        self.name(*column)
                    ));
                }
                Ok(())
            }
            Some(Type::Array { element, length }) => {
                if parts.len() as u64 != *length || parts.iter().any(|&p| self.ty(p) != *element) {
                    return wrong(format!(
                        "{}; it needs {length} elements of {}",
                        list(),
                        self.name(*element)
                    ));
                }
                Ok(())
            }
            Some(Type::Struct { members }) => {
                if parts.len() != members.len()
                    || parts.iter().zip(members).any(|(&p, &m)| self.ty(p) != m)
                {
                    return wrong(format!(
                        "{}; the members are {}",
                        list(),
                        members
                            .iter()
                            .map(|&m| self.name(m))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
                Ok(())
            }
            _ => Err(format!("Op{op:?} cannot build a {}", self.name(rt))),
        }
    }

    /// GLSL.std.450 instructions: operand count and types.
    fn glsl(&self, inst: &Inst, rt: Word, ops: &[Word]) -> Result<(), Mismatch> {
        use GlslStd450Op as G;
        let t = self.table;
        let Some(number) = inst.literal_operand(1) else {
            return Ok(());
        };
        let Some(g) = G::from_u32(number) else {
            return Err(format!("{number} is not a GLSL.std.450 instruction"));
        };
        let args = &ops[2..];
        let name = format!("GLSL.std.450 {g:?}");
        let float_rt = t.scalar_count(rt).is_some_and(|(c, _)| t.is_float(c));
        let int_rt = t.scalar_count(rt).is_some_and(|(c, _)| t.is_int(c));
        let same = |n: usize, want_float: bool| -> Result<(), Mismatch> {
            if args.len() != n {
                return Err(format!("{name} takes {n} operand(s), not {}", args.len()));
            }
            if want_float && !float_rt || !want_float && !int_rt {
                return Err(format!("{name} cannot produce a {}", self.name(rt)));
            }
            for &a in args {
                if self.ty(a) != rt {
                    let kind = if want_float { "float" } else { "integer" };
                    return Err(format!(
                        "{name} takes {}, but its operands must be {kind}s of the result type {}",
                        self.describe(a),
                        self.name(rt)
                    ));
                }
            }
            Ok(())
        };
        let float_vector_arg = |n: usize| -> Result<Word, Mismatch> {
            if args.len() != n {
                return Err(format!("{name} takes {n} operand(s), not {}", args.len()));
            }
            let a = self.ty(args[0]);
            match t.scalar_count(a) {
                Some((c, _)) if t.is_float(c) => Ok(a),
                _ => Err(format!(
                    "{name} needs float operands, not {}",
                    self.describe(args[0])
                )),
            }
        };
        match g {
            G::Round
            | G::RoundEven
            | G::Trunc
            | G::FAbs
            | G::FSign
            | G::Floor
            | G::Ceil
            | G::Fract
            | G::Radians
            | G::Degrees
            | G::Sin
            | G::Cos
            | G::Tan
            | G::Asin
            | G::Acos
            | G::Atan
            | G::Sinh
            | G::Cosh
            | G::Tanh
            | G::Asinh
            | G::Acosh
            | G::Atanh
            | G::Exp
            | G::Log
            | G::Exp2
            | G::Log2
            | G::Sqrt
            | G::InverseSqrt
            | G::Normalize => same(1, true),
            G::Atan2 | G::Pow | G::FMin | G::FMax | G::Step | G::NMin | G::NMax => same(2, true),
            G::FClamp | G::FMix | G::SmoothStep | G::Fma | G::NClamp | G::FaceForward => {
                same(3, true)
            }
            G::SAbs | G::SSign => same(1, false),
            G::SMin | G::SMax | G::UMin | G::UMax => same(2, false),
            G::SClamp | G::UClamp => same(3, false),
            G::Length => {
                let a = float_vector_arg(1)?;
                if t.scalar_count(a).map(|s| s.0) != Some(rt) {
                    return Err(format!(
                        "{name} of {} gives a {}, not {}",
                        self.describe(args[0]),
                        self.name(t.scalar_count(a).map_or(0, |s| s.0)),
                        self.name(rt)
                    ));
                }
                Ok(())
            }
            G::Distance => {
                let a = float_vector_arg(2)?;
                if self.ty(args[1]) != a || t.scalar_count(a).map(|s| s.0) != Some(rt) {
                    return Err(format!(
                        "{name} needs two operands of the same float type and gives their component type"
                    ));
                }
                Ok(())
            }
            G::Cross => {
                if self.vector(rt).map(|v| v.1) != Some(3) || !float_rt {
                    return Err(format!("{name} gives a float vec3, not {}", self.name(rt)));
                }
                same(2, true)
            }
            G::Reflect => same(2, true),
            G::Refract => {
                if args.len() != 3 {
                    return Err(format!("{name} takes 3 operands, not {}", args.len()));
                }
                let comp = t.scalar_count(rt).map(|s| s.0);
                if self.ty(args[0]) != rt
                    || self.ty(args[1]) != rt
                    || Some(self.ty(args[2])) != comp
                    || !float_rt
                {
                    return Err(format!(
                        "{name} takes I and N of the result type and a scalar eta"
                    ));
                }
                Ok(())
            }
            G::Determinant => {
                let ok = args.len() == 1
                    && self
                        .matrix(self.ty(args[0]))
                        .is_some_and(|(c, r, comp)| c == r && comp == rt);
                if !ok {
                    return Err(format!(
                        "{name} takes one square float matrix and gives its component type"
                    ));
                }
                Ok(())
            }
            G::MatrixInverse => {
                let ok = args.len() == 1
                    && self.ty(args[0]) == rt
                    && self.matrix(rt).is_some_and(|(c, r, _)| c == r);
                if !ok {
                    return Err(format!(
                        "{name} takes one square float matrix of the result type"
                    ));
                }
                Ok(())
            }
            // Everything else is rejected by lowering with its name; no types to trust here.
            _ => Ok(()),
        }
    }
}

fn lit(operand: &Operand) -> Option<u32> {
    match operand {
        Operand::LiteralBit32(v) => Some(*v),
        _ => None,
    }
}
