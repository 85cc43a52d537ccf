//! If-conversion: an `if` whose arms are single blocks becomes straight-line code with
//! selects. Both arms run; each value the merge receives is `select(cond, then, else)`.
//!
//! Cost model: an `if` is converted when its arms hold at most `max_cost` instructions
//! together (a branch costs about as much as a few selects on both targets); with `None`
//! every `if` is converted, as AGAL 1 (which has no branches) requires. Inner `if`s go first;
//! block merging then makes the outer arms single blocks.
//!
//! A select is exact in MIR; where a target blends it arithmetically and a value may be
//! infinite or NaN, the `bools` pass turns it back into a branch (see [`crate::analysis::finite`]).
//!
//! Arms must be safe to run unconditionally: a kill in an arm becomes a kill of
//! `cond && x`, and an arm that discards becomes `kill(cond)` (or `kill(!cond)`).

use crate::func::{BlockId, Edge, Function, Structure, Terminator};
use crate::inst::{Op, Operand};
use crate::types::Ty;

/// Converts the `if`s the cost model allows (and, with `keep_uniform`, none that tests a
/// bool uniform). Returns whether anything changed.
pub fn run(f: &mut Function, max_cost: Option<usize>, keep_uniform: bool) -> bool {
    let mut changed = false;
    // One walk: converting an `if` changes only its own blocks and its merge's
    // predecessors, which are kept up to date here. (An outer `if` becomes a candidate
    // once block merging has made its arms single blocks: the caller runs this again.)
    let mut preds = f.predecessors();
    for h in f.layout.clone() {
        let Some(Structure::If { merge }) = f.blocks[h].structure else {
            continue;
        };
        let Terminator::Branch {
            cond,
            then,
            otherwise,
        } = &f.blocks[h].term
        else {
            continue;
        };
        if keep_uniform
            && matches!(
                f.def_inst(cond.value).map(|d| d.op),
                Some(Op::LoadBoolUniform { .. })
            )
        {
            continue;
        }
        let (Some(then_arm), Some(else_arm)) = (
            arm(f, &preds, h, then, merge),
            arm(f, &preds, h, otherwise, merge),
        ) else {
            continue;
        };
        let cost = then_arm.cost(f) + else_arm.cost(f);
        if max_cost.is_some_and(|m| cost > m) {
            continue;
        }
        let cond = *cond;
        let arms = [then_arm.block, else_arm.block];
        let merge_preds = &mut preds[merge.index()];
        merge_preds.retain(|&p| p != h && !arms.contains(&Some(p)));
        convert(f, h, cond, merge, then_arm, else_arm);
        if matches!(f.blocks[h].term, Terminator::Jump(_)) {
            preds[merge.index()].push(h);
        }
        changed = true;
    }
    changed
}

/// One arm of an `if`: empty (the edge goes straight to the merge) or one block.
struct Arm {
    /// The arm's block, if it has one.
    block: Option<BlockId>,
    /// The arguments the merge receives along this arm (`None` when the arm discards).
    merge_args: Option<Vec<Operand>>,
}

impl Arm {
    fn cost(&self, f: &Function) -> usize {
        self.block.map_or(0, |b| f.blocks[b].insts.len())
    }
}

fn arm(
    f: &Function,
    preds: &[Vec<BlockId>],
    header: BlockId,
    edge: &Edge,
    merge: BlockId,
) -> Option<Arm> {
    if edge.target == merge {
        return Some(Arm {
            block: None,
            merge_args: Some(edge.args.clone()),
        });
    }
    let b = edge.target;
    let block = &f.blocks[b];
    if block.structure.is_some() || preds[b.index()] != [header] || !block.params.is_empty() {
        return None;
    }
    let merge_args = match &block.term {
        Terminator::Jump(e) if e.target == merge => Some(e.args.clone()),
        Terminator::Discard => None,
        _ => return None,
    };
    // Everything in the arm must be safe to run on the other path too.
    let safe = block.insts.iter().all(|&i| {
        let op = f.insts[i].op;
        op.is_pure() || op == Op::Kill
    });
    safe.then_some(Arm {
        block: Some(b),
        merge_args,
    })
}

fn convert(
    f: &mut Function,
    h: BlockId,
    cond: Operand,
    merge: BlockId,
    then_arm: Arm,
    else_arm: Arm,
) {
    let span = f.blocks[h].span;
    let not_cond = |f: &mut Function| -> Operand {
        let id = f.create_inst(Op::Not, vec![cond], &[Ty::bool(1)], span);
        f.blocks[h].insts.push(id);
        Operand::new(f.insts[id].results[0])
    };
    for (arm, taken) in [(&then_arm, true), (&else_arm, false)] {
        let Some(b) = arm.block else { continue };
        let guard = if taken { cond } else { not_cond(f) };
        for i in std::mem::take(&mut f.blocks[b].insts) {
            if f.insts[i].op == Op::Kill {
                // kill(x) in the arm: kill(guard && x).
                let x = f.insts[i].args[0];
                let and = f.create_inst(Op::And, vec![guard, x], &[Ty::bool(1)], span);
                f.blocks[h].insts.push(and);
                f.insts[i].args[0] = Operand::new(f.insts[and].results[0]);
            }
            f.blocks[h].insts.push(i);
        }
        if arm.merge_args.is_none() {
            // The arm discarded: kill when it would have run.
            f.push(h, Op::Kill, vec![guard], &[], span);
        }
        f.blocks[b].term = Terminator::Unreachable;
    }
    let params: Vec<Ty> = f.blocks[merge].params.iter().map(|&p| f.ty(p)).collect();
    let args: Vec<Operand> = match (&then_arm.merge_args, &else_arm.merge_args) {
        (Some(t), Some(e)) => t
            .iter()
            .zip(e)
            .zip(&params)
            .map(|((&a, &b), &ty)| {
                if a == b {
                    a
                } else {
                    Operand::new(f.ins(h, Op::Select, vec![cond, a, b], ty, span))
                }
            })
            .collect(),
        (Some(t), None) => t.clone(),
        (None, Some(e)) => e.clone(),
        (None, None) => {
            f.blocks[h].term = Terminator::Discard;
            f.blocks[h].structure = None;
            return;
        }
    };
    f.blocks[h].term = Terminator::Jump(Edge {
        target: merge,
        args,
    });
    f.blocks[h].structure = None;
}
