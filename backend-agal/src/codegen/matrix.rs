//! Matrix instructions: `m44`, `m34` and `m33` compute dot products of one vector with three
//! or four consecutive constant registers (`d.i = dot(a, c[n + i])`). After the matrix pass a
//! row-major uniform matrix times a vector (or a vector times a column-major one) is a
//! construct of dot products with consecutive uniform registers; this finds them, so that
//! the selector writes the construct's first lanes with one instruction.

use mir::hash::HashMap;

use mir::func::{Function, Value, ValueDef};
use mir::inst::{Op, Operand};

use crate::opcode::Opcode;

/// A construct whose first lanes one matrix instruction computes.
#[derive(Clone, Debug, PartialEq)]
pub struct MatrixPlan {
    /// `m44`, `m34` or `m33`.
    pub op: Opcode,
    /// The vector.
    pub vector: Operand,
    /// The register of the first row.
    pub register: u32,
    /// The dynamic index of the rows, if they are read relatively.
    pub index: Option<Operand>,
    /// The dot products it replaces (lanes 0, 1, 2 …).
    pub dots: Vec<Value>,
}

impl MatrixPlan {
    /// How many lanes of the construct it writes.
    pub fn lanes(&self) -> usize {
        self.dots.len()
    }
}

/// The plan for the construct with these operands, if its first lanes are rows of a
/// uniform matrix times one vector; `accept`: whether a dot product may be fused into the
/// matrix instruction (read by the construct alone, or also after it, from its lanes).
///
/// With `two_rows`, two rows also make a plan: `m34` (`m33` for three-lane dots) writing
/// `.xy`, which reads a third register it does not use (the caller checks it exists).
pub fn plan(
    f: &Function,
    args: &[Operand],
    accept: impl Fn(Value) -> bool,
    two_rows: bool,
) -> Option<MatrixPlan> {
    let mut rows: Vec<(Value, Operand, u32, Option<Operand>, u8)> = Vec::new();
    for (i, a) in args.iter().enumerate().take(4) {
        let Some(row) = dot_row(f, a, &accept) else {
            break;
        };
        if let Some(first) = rows.first() {
            if row.1 != first.1
                || row.2 != first.2 + i as u32
                || row.3 != first.3
                || row.4 != first.4
            {
                break;
            }
        }
        rows.push(row);
    }
    let width = rows.first()?.4;
    let op = match (width, rows.len()) {
        (4, 4) => Opcode::M44,
        (4, 3) => Opcode::M34,
        (3, 3 | 4) => Opcode::M33,
        (4, 2) if two_rows && rows[0].3.is_none() => Opcode::M34,
        (3, 2) if two_rows && rows[0].3.is_none() => Opcode::M33,
        _ => return None,
    };
    rows.truncate(if op == Opcode::M44 { 4 } else { 3 });
    let first = rows.first()?;
    Some(MatrixPlan {
        op,
        vector: first.1,
        register: first.2,
        index: first.3,
        dots: rows.iter().map(|r| r.0).collect(),
    })
}

/// For a construct of two dot products of one vector with consecutive whole uniform
/// registers that goes to an output written in all four lanes anyway: one `m44` computes its
/// lanes (and two lanes of padding from the next two registers), where two `dp4` and the
/// padding `mov` would take three tokens. The caller checks the output and that the two
/// registers after the rows exist.
pub fn plan_padded(
    f: &Function,
    args: &[Operand],
    uses: &HashMap<Value, usize>,
) -> Option<MatrixPlan> {
    if args.len() != 2 {
        return None;
    }
    let once = |v: Value| uses.get(&v) == Some(&1);
    let a = dot_row(f, &args[0], &once)?;
    let b = dot_row(f, &args[1], &once)?;
    let consecutive = a.1 == b.1 && b.2 == a.2 + 1 && a.3.is_none() && b.3.is_none();
    (consecutive && a.4 == 4 && b.4 == 4).then(|| MatrixPlan {
        op: Opcode::M44,
        vector: a.1,
        register: a.2,
        index: None,
        dots: vec![a.0, b.0],
    })
}

/// The register of the row a construct lane's dot product reads, if it is one.
pub fn row_register(f: &Function, a: &Operand) -> Option<u32> {
    dot_row(f, a, &|_| true).map(|row| row.2)
}

/// For a construct lane that reads a dot product of a vector with a whole uniform register
/// (one `accept`ed): the dot's value, the vector, the register, its dynamic index and the
/// width.
fn dot_row(
    f: &Function,
    a: &Operand,
    accept: &impl Fn(Value) -> bool,
) -> Option<(Value, Operand, u32, Option<Operand>, u8)> {
    if a.neg || a.abs || a.swizzle.lane(0) != 0 || !accept(a.value) {
        return None;
    }
    let ValueDef::Inst(id, _) = f.values[a.value].def else {
        return None;
    };
    let d = &f.insts[id];
    let Op::Dot(n @ (3 | 4)) = d.op else {
        return None;
    };
    for (row, vector) in [(d.args[1], d.args[0]), (d.args[0], d.args[1])] {
        if row.neg || row.abs || !row.swizzle.is_identity(n) {
            continue;
        }
        let Some(load) = f.def_inst(row.value) else {
            continue;
        };
        let Op::LoadUniform { register } = load.op else {
            continue;
        };
        return Some((a.value, vector, register, load.args.first().copied(), n));
    }
    None
}
