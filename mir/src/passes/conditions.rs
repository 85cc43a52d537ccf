//! What a branch's condition says on each side of it:
//! - a merge parameter passed 1.0 from one side of a branch and 0.0 from the other (`c ? 1.0 :
//!   0.0` written as an `if`, or a bool the `bools` pass made a float) is the condition as a
//!   float; `true` and `false`, the condition itself (`!c` the other way round);
//! - an argument an edge passes that is computed from the condition alone, in more than one
//!   step, is a constant on that edge (`1 - float(c)` where `c` is false is 1).
//!
//! `accepted = !b || test` on a bool uniform `b` becomes "1, or the test under `ifu b`"
//! instead of materialising `b` as 0/1, comparing it back and computing on both paths.

use crate::func::{BlockId, Function, Replacements, Terminator, Value};
use crate::inst::{Op, Operand};
use crate::types::{Kind, Swizzle, Ty};

use crate::analysis::constants::lane;

/// Applies both, then drops the `if`s that are left choosing between nothing. Returns
/// whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let a = merges(f);
    let b = edges(f);
    let c = empty_ifs(f);
    a | b | c
}

/// An `if` whose two sides reach its merge with no code and the same arguments is a jump.
fn empty_ifs(f: &mut Function) -> bool {
    let preds = f.predecessors();
    let mut removed = Vec::new();
    for h in f.layout.clone() {
        let Some(crate::func::Structure::If { merge }) = f.blocks[h].structure else {
            continue;
        };
        let Terminator::Branch {
            then, otherwise, ..
        } = f.blocks[h].term.clone()
        else {
            continue;
        };
        // Where a side leads: the merge with these arguments, directly or through an
        // empty arm that only jumps.
        let reach = |e: &crate::func::Edge| -> Option<(Vec<Operand>, Option<BlockId>)> {
            if e.target == merge {
                return Some((e.args.clone(), None));
            }
            let arm = &f.blocks[e.target];
            let empty = arm.insts.is_empty()
                && arm.params.is_empty()
                && arm.structure.is_none()
                && preds[e.target.index()] == [h]
                && e.args.is_empty();
            match &arm.term {
                Terminator::Jump(j) if empty && j.target == merge => {
                    Some((j.args.clone(), Some(e.target)))
                }
                _ => None,
            }
        };
        let (Some((a, arm_a)), Some((b, arm_b))) = (reach(&then), reach(&otherwise)) else {
            continue;
        };
        if a != b || then.target == otherwise.target {
            continue;
        }
        f.blocks[h].term = Terminator::Jump(crate::func::Edge {
            target: merge,
            args: a,
        });
        f.blocks[h].structure = None;
        removed.extend(arm_a.into_iter().chain(arm_b));
    }
    for &r in &removed {
        f.blocks[r].term = Terminator::Unreachable;
    }
    f.layout.retain(|b| !removed.contains(b));
    !removed.is_empty()
}

/// One side of a branch reaching a merge: the branching block and whether it is the `then`
/// side, with the arguments the merge receives from it.
fn side(
    f: &Function,
    preds: &[Vec<BlockId>],
    p: BlockId,
    m: BlockId,
) -> Option<(BlockId, bool, Vec<Operand>)> {
    match &f.blocks[p].term {
        Terminator::Branch {
            then, otherwise, ..
        } if (then.target == m) != (otherwise.target == m) => {
            let e = if then.target == m { then } else { otherwise };
            Some((p, then.target == m, e.args.clone()))
        }
        Terminator::Jump(e)
            if e.target == m
                && f.blocks[p]
                    .insts
                    .iter()
                    .all(|&i| matches!(f.insts[i].op, Op::Const(_))) =>
        {
            let [h] = preds[p.index()][..] else {
                return None;
            };
            match &f.blocks[h].term {
                Terminator::Branch {
                    then, otherwise, ..
                } if (then.target == p) != (otherwise.target == p) => {
                    Some((h, then.target == p, e.args.clone()))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Merge parameters that are the condition (or its negation), as a bool or a float.
fn merges(f: &mut Function) -> bool {
    let preds = f.predecessors();
    let mut replace = Replacements::default();
    let mut changed = false;
    for m in f.layout.clone() {
        if f.blocks[m].params.is_empty() || preds[m.index()].len() != 2 {
            continue;
        }
        let sides: Option<Vec<_>> = preds[m.index()]
            .iter()
            .map(|&p| side(f, &preds, p, m))
            .collect();
        let Some(sides) = sides else { continue };
        let (h, first_then) = (sides[0].0, sides[0].1);
        if sides[1].0 != h || sides[1].1 == first_then {
            continue;
        }
        let Terminator::Branch { cond, .. } = f.blocks[h].term.clone() else {
            continue;
        };
        let (then_args, else_args) = if first_then {
            (&sides[0].2, &sides[1].2)
        } else {
            (&sides[1].2, &sides[0].2)
        };
        let params = f.blocks[m].params.clone();
        let mut added = Vec::new();
        for (k, &p) in params.iter().enumerate() {
            let ty = f.ty(p);
            if ty.lanes != 1 {
                continue;
            }
            let value = |a: &Operand| {
                lane(f, a.value, a.swizzle.lane(0))
                    .map(|x| if a.neg && ty.is_float() { -x } else { x })
            };
            let (Some(t), Some(e)) = (
                then_args.get(k).and_then(value),
                else_args.get(k).and_then(value),
            ) else {
                continue;
            };
            let negated = match (t, e) {
                (1.0, 0.0) => false,
                (0.0, 1.0) => true,
                _ => continue,
            };
            let span = f.blocks[m].span;
            let mut c = cond;
            if negated {
                let not = f.create_inst(Op::Not, vec![cond], &[Ty::bool(1)], span);
                added.push(not);
                c = Operand::new(f.insts[not].results[0]);
            }
            let operand = if ty.kind == Kind::Bool {
                c
            } else {
                let b2f = f.create_inst(Op::BoolToFloat, vec![c], &[Ty::float(1)], span);
                added.push(b2f);
                Operand::new(f.insts[b2f].results[0])
            };
            changed |= replace.insert(p, operand);
        }
        if !added.is_empty() {
            added.extend(f.blocks[m].insts.iter().copied());
            f.blocks[m].insts = added;
        }
    }
    replace.finish(f) | changed
}

/// The value of lane `l` of `v` when the condition `c` (a bool operand) is `is`, if `v` is
/// computed from `c` and constants alone.
fn given(f: &Function, v: Value, l: u8, c: Operand, is: bool, depth: u32) -> Option<f32> {
    if v == c.value && l == c.swizzle.lane(0) {
        return Some(if is { 1.0 } else { 0.0 });
    }
    if depth > 4 {
        return None;
    }
    let inst = f.def_inst(v)?;
    let arg = |k: usize| -> Option<f32> {
        let a = inst.args.get(k)?;
        let x = given(f, a.value, a.swizzle.lane(usize::from(l)), c, is, depth + 1)?;
        Some(if a.neg && f.ty(a.value).is_float() {
            -x
        } else {
            x
        })
    };
    match inst.op {
        Op::Const(_) => lane(f, v, l),
        Op::BoolToFloat => arg(0),
        Op::Not => arg(0).map(|x| 1.0 - x),
        Op::Add => Some(arg(0)? + arg(1)?),
        Op::Sub => Some(arg(0)? - arg(1)?),
        Op::Mul => Some(arg(0)? * arg(1)?),
        _ => None,
    }
}

/// Edge arguments computed from the branch's condition alone: constants on that edge.
fn edges(f: &mut Function) -> bool {
    let mut changed = false;
    for h in f.layout.clone() {
        let Terminator::Branch { cond, .. } = f.blocks[h].term.clone() else {
            continue;
        };
        for is in [true, false] {
            let args = match &f.blocks[h].term {
                Terminator::Branch {
                    then, otherwise, ..
                } => {
                    if is {
                        then.args.clone()
                    } else {
                        otherwise.args.clone()
                    }
                }
                _ => unreachable!("matched above"),
            };
            for (k, a) in args.iter().enumerate() {
                // A literal or the condition itself costs nothing to pass; `float(c)` or
                // `!c` one instruction, about what a literal on the edge costs (a move, and
                // on AGAL an `els`): only longer computations are worth replacing.
                let def = f.def_inst(a.value).map(|d| d.op);
                if a.value == cond.value
                    || matches!(def, Some(Op::Const(_) | Op::BoolToFloat | Op::Not))
                {
                    continue;
                }
                let ty = f.ty(a.value);
                let Some(x) = given(f, a.value, a.swizzle.lane(0), cond, is, 0) else {
                    continue;
                };
                if ty.lanes != 1 && !(0..4).all(|l| a.swizzle.lane(l) == a.swizzle.lane(0)) {
                    continue;
                }
                let x = if a.neg && ty.is_float() { -x } else { x };
                let span = f.blocks[h].span;
                let op = if ty.is_float() {
                    Op::float_const(&[x])
                } else {
                    Op::Const([u32::from(x != 0.0), 0, 0, 0])
                };
                let k_ty = if ty.is_float() {
                    Ty::float(1)
                } else {
                    Ty::bool(1)
                };
                let konst = f.create_inst(op, vec![], &[k_ty], span);
                f.blocks[h].insts.push(konst);
                let value = f.insts[konst].results[0];
                let new = Operand {
                    value,
                    swizzle: Swizzle::splat(0),
                    neg: false,
                    abs: false,
                };
                if let Terminator::Branch {
                    then, otherwise, ..
                } = &mut f.blocks[h].term
                {
                    let e = if is { then } else { otherwise };
                    e.args[k] = new;
                }
                changed = true;
            }
        }
    }
    changed
}
