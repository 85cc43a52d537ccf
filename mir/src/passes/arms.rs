//! Work that only one side of a branch needs moves into that side. A branch that passes a
//! computed value straight to its merge (`branch c, m(v), e`: the `if` the `bools` pass
//! makes of a select whose operand may be infinite, `q = s > 0 ? f(s) : q0`) computes `v`
//! before it branches, on both paths; moved into an arm of its own, it is computed on the
//! path that uses it only, and a value the merge returns can then be computed straight into
//! its output there (the PICA200's merged outputs). Only instructions that nothing else
//! reads move (the value and what only it and its kind read), in their order.
//!
//! Targets whose branches have rules about what an arm may hold (AGAL's conditional blocks)
//! do not run it.

use crate::hash::HashSet;

use crate::func::{BlockId, Edge, Function, Terminator, Value};

/// Moves what it can. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let mut changed = false;
    for h in f.layout.clone() {
        for side in [true, false] {
            let Terminator::Branch {
                then, otherwise, ..
            } = &f.blocks[h].term
            else {
                break;
            };
            let e = if side { then } else { otherwise };
            if e.args.is_empty() {
                continue;
            }
            let uses = f.use_counts();
            let here: HashSet<Value> = f.blocks[h]
                .insts
                .iter()
                .filter_map(|&i| f.insts[i].result())
                .collect();
            // The values this edge alone reads, defined here.
            let mut moved: HashSet<Value> = e
                .args
                .iter()
                .map(|a| a.value)
                .filter(|v| here.contains(v))
                .filter(|v| {
                    let on_edge = e.args.iter().filter(|a| a.value == *v).count();
                    uses.get(v) == Some(&on_edge)
                })
                .collect();
            // Upwards: an instruction whose every reader moves, moves too.
            let insts = f.blocks[h].insts.clone();
            let mut readers_moved: crate::hash::HashMap<Value, usize> = Default::default();
            let mut take = vec![false; insts.len()];
            for (k, &i) in insts.iter().enumerate().rev() {
                let inst = &f.insts[i];
                let Some(r) = inst.result() else { continue };
                if !inst.op.is_pure() {
                    continue;
                }
                let all_readers_move = moved.contains(&r)
                    || readers_moved
                        .get(&r)
                        .is_some_and(|&n| uses.get(&r) == Some(&n));
                if !all_readers_move {
                    continue;
                }
                moved.insert(r);
                take[k] = true;
                for a in &inst.args {
                    *readers_moved.entry(a.value).or_default() += 1;
                }
            }
            let work = insts
                .iter()
                .zip(&take)
                .any(|(&i, &t)| t && !f.insts[i].op.is_input_uniform_or_constant());
            if !work {
                continue;
            }
            let span = f.blocks[h].span;
            let arm: BlockId = f.new_block(span);
            f.blocks[arm].insts = insts
                .iter()
                .zip(&take)
                .filter(|&(_, &t)| t)
                .map(|(&i, _)| i)
                .collect();
            f.blocks[h].insts = insts
                .iter()
                .zip(&take)
                .filter(|&(_, &t)| !t)
                .map(|(&i, _)| i)
                .collect();
            let Terminator::Branch {
                then, otherwise, ..
            } = &mut f.blocks[h].term
            else {
                unreachable!("matched above");
            };
            let e = if side { then } else { otherwise };
            let to_merge = std::mem::replace(e, Edge::to(arm));
            f.blocks[arm].term = Terminator::Jump(to_merge);
            // The arm goes right after its header in the layout (a new block comes last).
            f.layout.retain(|&b| b != arm);
            let at = f
                .layout
                .iter()
                .position(|&b| b == h)
                .map_or(f.layout.len(), |p| p + 1);
            f.layout.insert(at, arm);
            changed = true;
        }
    }
    changed
}
