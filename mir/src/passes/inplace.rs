//! Lane updates in place: once a vector is built (`c = vec2(x + step, uv.y)`), the lanes it
//! holds are read from it, not from where they came. A vector one of whose lanes changes
//! (`c.x += step`, each tap of a blur) then keeps its other lanes where they are: the next
//! vector reads them from this one in the same lanes, so the back ends write it into this
//! one's register with only the changed lane computed; and the changed lane's value, now
//! read by its vector alone, is computed straight into it.
//!
//! After construct `c` of a block has `x.l` (lane `l` of value `x`) at its lane `j`, a later
//! construct's lane `j` that reads `x.l` reads `c.j` instead (unless `x` is a literal, or `c`
//! is read after this construct: keeping `c`'s register would then copy it first), and
//! so does a lane-wise operation with one result lane that reads `x.l` when `x` is computed
//! (an input's, uniform's or literal's lane is read where it lives). Runs after the clean-up passes,
//! which fold such reads back.

use crate::func::{Function, Value};
use crate::hash::{HashMap, HashSet};
use crate::inst::{Op, Operand};
use crate::types::{Kind, Swizzle};

/// Rewrites the reads. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let mut changed = false;
    // Values read outside the block that defines them, or by a terminator.
    let mut live_out: HashSet<Value> = HashSet::default();
    for &b in &f.layout {
        let here: HashSet<Value> = f.blocks[b]
            .insts
            .iter()
            .flat_map(|&i| f.insts[i].results.iter().copied())
            .collect();
        for &i in &f.blocks[b].insts {
            live_out.extend(
                f.insts[i]
                    .args
                    .iter()
                    .map(|a| a.value)
                    .filter(|v| !here.contains(v)),
            );
        }
        live_out.extend(f.blocks[b].term.operands().iter().map(|a| a.value));
    }
    for b in f.layout.clone() {
        // (value, lane) → the latest construct holding it, and its lane.
        let mut held: HashMap<(Value, u8), (Value, u8)> = HashMap::default();
        // Where each value is last read in the block, as it was.
        let mut last: HashMap<Value, usize> = HashMap::default();
        for (pos, &i) in f.blocks[b].insts.iter().enumerate() {
            for a in &f.insts[i].args {
                last.insert(a.value, pos);
            }
        }
        for (pos, i) in f.blocks[b].insts.clone().into_iter().enumerate() {
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
            // A construct keeps an earlier one's register only where that one is read no
            // more (else the register is copied first, a move more).
            let dies_here =
                |c: Value| !live_out.contains(&c) && last.get(&c).is_none_or(|&p| p <= pos);
            if construct {
                // The lanes an earlier construct `c` holds in place, when the others are at
                // most one lane computed from `c` itself: a lane update.
                let args = f.insts[i].args.clone();
                let from: Vec<Option<Value>> = args
                    .iter()
                    .enumerate()
                    .map(|(k, a)| {
                        let literal = f
                            .def_inst(a.value)
                            .is_some_and(|d| matches!(d.op, Op::Const(_)));
                        let &(c, j) = held.get(&(a.value, a.swizzle.lane(0)))?;
                        (!literal && usize::from(j) == k && dies_here(c)).then_some(c)
                    })
                    .collect();
                let Some(c) = from
                    .iter()
                    .flatten()
                    .copied()
                    .max_by_key(|c| from.iter().filter(|x| **x == Some(*c)).count())
                else {
                    record(&mut held, f, i, result, &before);
                    continue;
                };
                let updated: Vec<usize> = (0..args.len()).filter(|&k| from[k] != Some(c)).collect();
                let reads_c = |k: usize| {
                    f.ty(args[k].value).lanes == 1
                        && f.def_inst(args[k].value)
                            .is_some_and(|d| d.args.iter().any(|x| x.value == c))
                };
                if updated.len() <= 1 && updated.iter().all(|&k| reads_c(k)) {
                    for (k, a) in f.insts[i].args.iter_mut().enumerate() {
                        if from[k] == Some(c) {
                            *a = Operand {
                                value: c,
                                swizzle: Swizzle::splat(k as u8),
                                ..*a
                            };
                            changed = true;
                        }
                    }
                }
            } else if scalar {
                // An operation's read of a computed value's lane (which then has its
                // construct alone as reader); an input's, uniform's or literal's lane is read
                // where it lives.
                let computed: Vec<bool> = f.insts[i]
                    .args
                    .iter()
                    .map(|a| {
                        f.def_inst(a.value)
                            .is_some_and(|d| !d.op.is_input_uniform_or_constant())
                    })
                    .collect();
                for (k, a) in f.insts[i].args.iter_mut().enumerate() {
                    let found = held.get(&(a.value, a.swizzle.lane(0)));
                    if let Some(&(c, j)) = found.filter(|_| computed[k]) {
                        *a = Operand {
                            value: c,
                            swizzle: Swizzle::splat(j),
                            ..*a
                        };
                        changed = true;
                    }
                }
            }
            if construct {
                record(&mut held, f, i, result, &before);
            }
        }
    }
    changed
}

/// Records the lanes float construct `i` (result `c`) holds: each argument's, as it reads it
/// now and as it read it `before` the rewrite.
fn record(
    held: &mut HashMap<(Value, u8), (Value, u8)>,
    f: &Function,
    i: crate::func::InstId,
    c: Value,
    before: &[(Value, u8)],
) {
    if f.ty(c).kind != Kind::Float {
        return;
    }
    for (j, a) in f.insts[i].args.iter().enumerate() {
        if a.neg || a.abs {
            continue;
        }
        held.insert((a.value, a.swizzle.lane(0)), (c, j as u8));
        held.insert(before[j], (c, j as u8));
    }
}
