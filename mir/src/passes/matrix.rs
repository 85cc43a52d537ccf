//! Matrix times vector, two ways.
//!
//! - **Rows of dot products** when every column is gathered lane by lane from the same row
//!   values (a row-major uniform: lane i of column j is lane j of register i): lane i of
//!   the result is `dot(row_i, v)`, one `dp4` per row on the PICA200, and a single `m44`
//!   where AGAL can fuse them. (With `v = vec4(p, 1)` simplify turns each into a `dph`.)
//! - **Columns of multiply-adds** otherwise (a column-major uniform or computed columns):
//!   `c0 * v.x + c1 * v.y + ...`, one `mul` and N-1 `mad`s.

use crate::func::{Function, InstId};
use crate::inst::{Op, Operand};
use crate::types::{Swizzle, Ty};

/// Expands every `MatVec`. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let mut changed = false;
    let mut replacements = Vec::new();
    for b in f.layout.clone() {
        let mut out: Vec<InstId> = Vec::new();
        for i in std::mem::take(&mut f.blocks[b].insts) {
            let Op::MatVec(n) = f.insts[i].op else {
                out.push(i);
                continue;
            };
            changed = true;
            let n = n as usize;
            let args = f.insts[i].args.clone();
            let (cols, v) = (&args[..n], args[n]);
            let result = f.insts[i].results[0];
            let rows = f.ty(result).lanes;
            let span = f.insts[i].span;
            let mut emit = |f: &mut Function, op: Op, a: Vec<Operand>, ty: Ty| -> Operand {
                let id = f.create_inst(op, a, &[ty], span);
                out.push(id);
                Operand::new(f.insts[id].results[0])
            };
            let replacement = match gathered_rows(f, cols, rows) {
                Some(row_values) => {
                    let dots: Vec<Operand> = row_values
                        .iter()
                        .map(|&r| emit(f, Op::Dot(n as u8), vec![r, v], Ty::float(1)))
                        .collect();
                    if rows == 1 {
                        dots[0]
                    } else {
                        emit(f, Op::Construct, dots, Ty::float(rows))
                    }
                }
                None => {
                    let mut acc = emit(
                        f,
                        Op::Mul,
                        vec![cols[0], v.reswizzled(Swizzle::splat(0))],
                        Ty::float(rows),
                    );
                    for (j, &c) in cols.iter().enumerate().skip(1) {
                        acc = emit(
                            f,
                            Op::Mad,
                            vec![c, v.reswizzled(Swizzle::splat(j as u8)), acc],
                            Ty::float(rows),
                        );
                    }
                    acc
                }
            };
            replacements.push((result, replacement));
        }
        f.blocks[b].insts = out;
    }
    // Uses are rewritten once every block has its instructions back.
    for (result, replacement) in replacements {
        f.replace_uses(result, replacement);
    }
    changed
}

/// The row values when every column j is `construct(row_0.j, row_1.j, ...)` (or the
/// operand reads such a construct's lanes in order).
fn gathered_rows(f: &Function, cols: &[Operand], rows: u8) -> Option<Vec<Operand>> {
    let mut row_values: Vec<Option<Operand>> = vec![None; rows as usize];
    for (j, col) in cols.iter().enumerate() {
        if col.neg || col.abs || !col.swizzle.is_identity(rows) {
            return None;
        }
        let inst = f.def_inst(col.value)?;
        // A wider construct read through its first lanes (mat3(m) of a mat4) counts too.
        if inst.op != Op::Construct || inst.args.len() < rows as usize {
            return None;
        }
        for (i, lane) in inst.args.iter().enumerate().take(rows as usize) {
            if lane.neg || lane.abs || lane.swizzle.lane(0) != j as u8 {
                return None;
            }
            let row = Operand::new(lane.value);
            match row_values[i] {
                None => row_values[i] = Some(row),
                Some(r) if r == row => {}
                Some(_) => return None,
            }
        }
    }
    row_values.into_iter().collect()
}
