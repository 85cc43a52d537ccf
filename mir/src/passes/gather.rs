//! A lane-wise operation on a vector gathered from lanes of different uniform registers
//! (`transpose(mat3(m))[0] * r.x`, a matrix read by column where it is stored by row) is
//! done lane by lane: `construct(c4.x · r.x, c5.x · r.x, c6.x · r.x)`, each product reading
//! its register's lane in place, where the back ends would first move every lane into a
//! temporary and then operate once. Hand-written PICA200 code reads matrix elements so
//! (`mul r2.x, modelView[0].x, iRadius.x`). The back ends compute each scalar straight into
//! its lane of the construct, so the vector costs one instruction per lane instead of one
//! move per lane and the operation.
//!
//! Only where it saves: every lane from a different register, the vector read by this
//! operation alone, and the other operand computed or an input (a second uniform or literal
//! in one instruction would need a copy on both targets).

use crate::func::{Function, Value};
use crate::inst::{Op, Operand};
use crate::types::{Swizzle, Ty};

/// Distributes such operations. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let uses = f.use_counts();
    let mut changed = false;
    for b in f.layout.clone() {
        let mut out = Vec::with_capacity(f.blocks[b].insts.len());
        for i in f.blocks[b].insts.clone() {
            let Some((k, lanes)) = plan(f, i, &uses) else {
                out.push(i);
                continue;
            };
            let inst = f.insts[i].clone();
            let gathered = f
                .def_inst(inst.args[k].value)
                .expect("planned")
                .args
                .clone();
            let other = inst.args[1 - k];
            let span = inst.span;
            let mut scalars = Vec::with_capacity(lanes);
            for (l, g) in gathered.iter().enumerate().take(lanes) {
                let o = Operand {
                    swizzle: Swizzle::splat(other.swizzle.lane(l)),
                    ..other
                };
                let args = if k == 0 { vec![*g, o] } else { vec![o, *g] };
                let s = f.create_inst(inst.op, args, &[Ty::float(1)], span);
                out.push(s);
                scalars.push(Operand::new(f.insts[s].results[0]));
            }
            f.insts[i].op = Op::Construct;
            f.insts[i].args = scalars;
            out.push(i);
            changed = true;
        }
        f.blocks[b].insts = out;
    }
    changed
}

/// For a two-operand lane-wise instruction with a gathered operand: which operand it is and
/// the lanes.
fn plan(
    f: &Function,
    i: crate::func::InstId,
    uses: &crate::hash::HashMap<Value, usize>,
) -> Option<(usize, usize)> {
    let inst = &f.insts[i];
    if !matches!(inst.op, Op::Add | Op::Sub | Op::Mul | Op::Min | Op::Max) {
        return None;
    }
    let r = inst.result()?;
    let lanes = f.ty(r).lanes as usize;
    if !f.ty(r).is_float() || lanes < 2 {
        return None;
    }
    (0..2).find_map(|k| {
        let a = inst.args[k];
        let other = inst.args[1 - k];
        let c = f.def_inst(a.value)?;
        let gathered = c.op == Op::Construct
            && c.args.len() == lanes
            && !a.neg
            && !a.abs
            && a.swizzle.is_identity(lanes as u8)
            && uses.get(&a.value) == Some(&1)
            && c.args.iter().enumerate().all(|(l, x)| {
                !x.abs
                    && matches!(
                        f.def_inst(x.value).map(|d| d.op),
                        Some(Op::LoadUniform { .. })
                    )
                    && c.args[..l].iter().all(|y| y.value != x.value)
            });
        let cheap_other = !matches!(
            f.def_inst(other.value).map(|d| d.op),
            Some(Op::LoadUniform { .. } | Op::Const(_))
        );
        (gathered && cheap_other).then_some((k, lanes))
    })
}
