//! Lane updates in place: once a vector is built (`c = vec2(x + step, uv.y)`), the lanes it
//! holds are read from it, not from where they came. A vector one of whose lanes changes
//! (`c.x += step`, each tap of a blur) then keeps its other lanes where they are: the next
//! vector reads them from this one in the same lanes, so the back ends write it into this
//! one's register with only the changed lane computed; and the changed lane's value, now
//! read by its vector alone, is computed straight into it.
//!
//! After construct `c` of a block has `x.l` (lane `l` of value `x`) at its lane `j`, a later
//! construct's lane `j` that reads `x.l` reads `c.j` instead (unless `x` is a literal), and
//! so does a lane-wise operation with one result lane that reads `x.l` when `x` is computed
//! (an input's, uniform's or literal's lane is read where it lives). Runs after the clean-up passes,
//! which fold such reads back.

use crate::func::{Function, Value};
use crate::hash::HashMap;
use crate::inst::{Op, Operand};
use crate::types::{Kind, Swizzle};

/// Rewrites the reads. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let mut changed = false;
    for b in f.layout.clone() {
        // (value, lane) → the latest construct holding it, and its lane.
        let mut held: HashMap<(Value, u8), (Value, u8)> = HashMap::default();
        for i in f.blocks[b].insts.clone() {
            let op = f.insts[i].op;
            let Some(result) = f.insts[i].result() else {
                continue;
            };
            let construct = op == Op::Construct;
            let scalar = f.ty(result).lanes == 1 && op.is_lanewise_float();
            // Each argument's lane as read before the rewrite: the construct holds that too.
            let before: Vec<(Value, u8)> = f.insts[i]
                .args
                .iter()
                .map(|a| (a.value, a.swizzle.lane(0)))
                .collect();
            if construct || scalar {
                let defs: Vec<Option<Op>> = f.insts[i]
                    .args
                    .iter()
                    .map(|a| f.def_inst(a.value).map(|d| d.op))
                    .collect();
                for (k, a) in f.insts[i].args.iter_mut().enumerate() {
                    let l = a.swizzle.lane(0);
                    // A construct's lane from the same lane of an earlier construct (its
                    // register is then kept), unless a literal; an operation's read of a
                    // computed value (which then has its construct alone as reader), not of
                    // an input's, uniform's or literal's lane, read where it lives.
                    let wanted = |j: u8| match defs[k] {
                        Some(Op::Const(_)) => false,
                        _ if construct => usize::from(j) == k,
                        Some(op) => !op.is_input_uniform_or_constant(),
                        None => true,
                    };
                    let found = held.get(&(a.value, l)).filter(|&&(_, j)| wanted(j));
                    if let Some(&(c, j)) = found {
                        *a = Operand {
                            value: c,
                            swizzle: Swizzle::splat(j),
                            ..*a
                        };
                        changed = true;
                    }
                }
            }
            if !construct || f.ty(result).kind != Kind::Float {
                continue;
            }
            let args = f.insts[i].args.clone();
            for (j, a) in args.iter().enumerate() {
                if a.neg || a.abs {
                    continue;
                }
                held.insert((a.value, a.swizzle.lane(0)), (result, j as u8));
                held.insert(before[j], (result, j as u8));
            }
        }
    }
    changed
}
