//! A point built from lanes of several values with a last lane of 1 (`vec4(xy, z, 1.0)`,
//! what 2D code and mixes of positions feed a matrix) and read only by 4-lane dot products
//! is built with three lanes and each product becomes `dph` (for targets that have it, the
//! PICA200): the move that writes the 1 disappears. The simplifier does this when the three
//! lanes are lanes of one value (`vec4(p.xyz, 1.0)`, see [`super::simplify`]); here they
//! need a construct of their own, so every use must become a `dph`, or the 4-lane vector
//! would stay and the 3-lane one would cost more.

use crate::func::{Function, InstId, Value};
use crate::hash::HashMap;
use crate::inst::{Op, Operand};
use crate::types::{Swizzle, Ty};

use super::simplify::point_lanes;

/// Rewrites such products. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let uses = f.use_counts();
    // For each 4-lane construct with a last lane of 1: the products that read it so.
    let mut reads: HashMap<Value, Vec<(InstId, usize)>> = HashMap::default();
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            let inst = &f.insts[i];
            if inst.op != Op::Dot(4) {
                continue;
            }
            for (k, a) in inst.args.iter().enumerate() {
                if point(f, a).is_some() && inst.args[1 - k].value != a.value {
                    reads.entry(a.value).or_default().push((i, k));
                }
            }
        }
    }
    let mut changed = false;
    for b in f.layout.clone() {
        let mut out = Vec::with_capacity(f.blocks[b].insts.len());
        for i in f.blocks[b].insts.clone() {
            let rewrite = f.insts[i].args.iter().enumerate().find_map(|(k, a)| {
                let all = reads.get(&a.value)?;
                (all.len() == uses.get(&a.value).copied().unwrap_or(0) && all.contains(&(i, k)))
                    .then_some(k)
            });
            let Some(k) = rewrite else {
                out.push(i);
                continue;
            };
            let a = f.insts[i].args[k];
            let other = f.insts[i].args[1 - k];
            let xyz = point(f, &a).expect("checked when collected");
            let span = f.insts[i].span;
            let c = f.create_inst(Op::Construct, xyz, &[Ty::float(3)], span);
            out.push(c);
            let p = Operand {
                swizzle: Swizzle([0, 1, 2, 2]),
                ..Operand::new(f.insts[c].results[0])
            };
            f.insts[i].op = Op::Dph;
            f.insts[i].args = vec![p, other];
            out.push(i);
            changed = true;
        }
        f.blocks[b].insts = out;
    }
    changed
}

/// The three lanes `a` reads first, when it reads a point (see
/// [`super::simplify::point_lanes`]) whose lanes are not all of one value (those the
/// simplifier takes).
fn point(f: &Function, a: &Operand) -> Option<Vec<Operand>> {
    let xyz = point_lanes(f, a)?;
    let one_value = xyz
        .iter()
        .all(|o| o.value == xyz[0].value && o.neg == xyz[0].neg && o.abs == xyz[0].abs);
    (!one_value).then(|| xyz.to_vec())
}
