//! Flags as a hand-writer keeps them: the selects that predication and if-conversion leave
//! on truth values become `and`/`or`, and a predicated update changes only what changes.
//! Each is a rewrite of one instruction (a clean-up pass):
//! - `c ? true : d` and `c ? c : d` are `c || d`; `c ? d : false` and `c ? d : c` are
//!   `c && d`; `c ? false : d` is `!c && d`; `c ? d : true` is `!c || d`;
//! - `a || (a || b)` is `a || b`, and `a && (a && b)` is `a && b` (a flag already set);
//! - `!(a || b)` is `!a && !b` and `!(a && b)` is `!a || !b`, when every reader of the
//!   inner value negates it and the negations reach comparisons read only as truth values
//!   (their inverses cost no more): a chain of "broken" flags becomes one of "still
//!   running" flags;
//! - a float `c ? x : x + y` is `x + (c ? 0 : y)`, and `c ? x + y : x` is `x + (c ? y : 0)`:
//!   exact (adding 0 changes nothing, and `x + y` is computed the same way), and a select
//!   with a zero arm is one multiply by the flag where a blend of two values takes four;
//! - `c ? 0 : y` is `!c ? y : 0` when `c` is itself an `or` or a `not` whose negation the
//!   rules above push to its comparisons for free.
//!
//! Together they turn an unrolled loop with an early exit (`acc += t; if (acc > limit)
//! break;`) into `acc += running * t; running *= acc' <= limit` once bools are floats.

use crate::analysis::constants::constant_n;
use crate::func::{Function, Replacements, Value};
use crate::hash::HashMap;
use crate::inst::{Op, Operand};
use crate::types::{Swizzle, Ty};

/// Rewrites what it can. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let mut changed = false;
    let negations = negations(f);
    let reads = Reads {
        uses: f.use_counts(),
        flags: flag_reads(f),
    };
    let mut replace = Replacements::default();
    for b in f.layout.clone() {
        let mut at = 0;
        while at < f.blocks[b].insts.len() {
            let i = f.blocks[b].insts[at];
            at += 1;
            replace.apply(f, i);
            let Some(result) = f.insts[i].result() else {
                continue;
            };
            let ty = f.ty(result);
            let args = f.insts[i].args.clone();
            let span = f.insts[i].span;
            let whole = |o: &Operand| o.swizzle.is_identity(ty.lanes) && !o.neg && !o.abs;
            let is = |o: &Operand, v: f32| {
                constant_n(f, o, ty.lanes)
                    .is_some_and(|c| c[..ty.lanes as usize] == vec![v; ty.lanes as usize][..])
            };
            let op = f.insts[i].op;
            // Truth values.
            if !ty.is_float() && ty.lanes == 1 {
                let new = match op {
                    Op::Select if is(&args[1], 1.0) || args[1] == args[0] => {
                        Some((Op::Or, vec![args[0], args[2]]))
                    }
                    Op::Select if is(&args[2], 0.0) || args[2] == args[0] => {
                        Some((Op::And, vec![args[0], args[1]]))
                    }
                    Op::Select if is(&args[1], 0.0) => {
                        let not = not_before(f, b, &mut at, args[0]);
                        Some((Op::And, vec![not, args[2]]))
                    }
                    Op::Select if is(&args[2], 1.0) => {
                        let not = not_before(f, b, &mut at, args[0]);
                        Some((Op::Or, vec![not, args[1]]))
                    }
                    Op::Or | Op::And => {
                        // With a constant: `a || false` is a, `a || true` true (and so on).
                        let unit = if op == Op::Or { 0.0 } else { 1.0 };
                        let constant = (0..2).find_map(|k| {
                            if is(&args[k], unit) {
                                Some(args[1 - k])
                            } else if is(&args[k], 1.0 - unit) {
                                Some(args[k])
                            } else {
                                None
                            }
                        });
                        // a op (a op b), in either order.
                        let absorbed = constant.or_else(|| {
                            (0..2).find_map(|k| {
                                let inner = f.def_inst(args[k].value)?;
                                (inner.op == op
                                    && whole(&args[k])
                                    && inner.args.contains(&args[1 - k]))
                                .then_some(args[k])
                            })
                        });
                        if let Some(r) = absorbed {
                            changed |= replace.insert(result, r);
                            continue;
                        }
                        None
                    }
                    Op::Not if whole(&args[0]) => match f.def_inst(args[0].value) {
                        Some(inner)
                            if matches!(inner.op, Op::Or | Op::And)
                                && reads.uses.get(&args[0].value)
                                    == negations.get(&args[0].value)
                                && negates_freely(f, args[0].value, &reads, 8) =>
                        {
                            let flipped = if inner.op == Op::Or { Op::And } else { Op::Or };
                            let (a, c) = (inner.args[0], inner.args[1]);
                            let na = not_before(f, b, &mut at, a);
                            let nc = not_before(f, b, &mut at, c);
                            Some((flipped, vec![na, nc]))
                        }
                        _ => None,
                    },
                    _ => None,
                };
                if let Some((op, a)) = new {
                    let inst = &mut f.insts[i];
                    inst.op = op;
                    inst.args = a;
                    changed = true;
                }
                continue;
            }
            if op != Op::Select || !ty.is_float() {
                continue;
            }
            let cond = args[0];
            // c ? x : x + y, and c ? x + y : x.
            let sum_of = |f: &Function, sum: &Operand, x: &Operand| -> Option<Operand> {
                let inner = f.def_inst(sum.value)?;
                if inner.op != Op::Add || !whole(sum) || f.ty(sum.value) != ty {
                    return None;
                }
                (0..2).find_map(|k| (inner.args[k] == *x).then_some(inner.args[1 - k]))
            };
            // An `or` of flags (`broken`), whose negation is an `and` (`running`): a product
            // of flags. (An `and` stays: its negation, an `or`, is no cheaper than `1 - c`.)
            let flag = matches!(f.def_inst(cond.value).map(|d| d.op), Some(Op::Or | Op::Not));
            let zero_then = is(&args[1], 0.0) && !is(&args[2], 0.0);
            let rewritten = if let Some(y) = sum_of(f, &args[2], &args[1]) {
                let zero = zero_before(f, b, &mut at, ty);
                Some((args[1], vec![cond, zero, y]))
            } else if let Some(y) = sum_of(f, &args[1], &args[2]) {
                let zero = zero_before(f, b, &mut at, ty);
                Some((args[2], vec![cond, y, zero]))
            } else {
                None
            };
            if let Some((x, select_args)) = rewritten {
                let s = f.create_inst(Op::Select, select_args, &[ty], span);
                f.blocks[b].insts.insert(at - 1, s);
                at += 1;
                let s = Operand::new(f.insts[s].results[0]);
                let inst = &mut f.insts[i];
                inst.op = Op::Add;
                inst.args = vec![x, s];
                changed = true;
                continue;
            }
            // c ? 0 : y is !c ? y : 0, when c's negation goes on to its comparisons.
            if flag
                && zero_then
                && whole_scalar(&cond)
                && f.ty(cond.value).lanes == 1
                && negates_freely(f, cond.value, &reads, 8)
            {
                let not = not_before(f, b, &mut at, cond);
                f.insts[i].args = vec![not, args[2], args[1]];
                changed = true;
            }
        }
    }
    changed
}

/// A function's reads of each value: all of them, and those as a truth value.
struct Reads {
    uses: HashMap<Value, usize>,
    flags: HashMap<Value, usize>,
}

/// Whether `!v` costs nothing more than `v`: `v` is a comparison read only as a truth value
/// (by `and`, `or`, `not` and as a select's condition, which as floats read `1 - c`, the
/// inverted comparison, anyway), a `not` (the two cancel), or an `and`/`or` of such (De
/// Morgan), `depth` deep.
fn negates_freely(f: &Function, v: Value, reads: &Reads, depth: u8) -> bool {
    let Some(d) = f.def_inst(v) else {
        return false;
    };
    match d.op {
        Op::Cmp(_) => reads.uses.get(&v) <= reads.flags.get(&v),
        Op::Not => true,
        Op::And | Op::Or if depth > 0 => d
            .args
            .iter()
            .all(|a| negates_freely(f, a.value, reads, depth - 1)),
        _ => false,
    }
}

/// Reads of each value as a truth value: by an `and`, `or` or `not`, or as a select's
/// condition.
fn flag_reads(f: &Function) -> HashMap<Value, usize> {
    let mut n: HashMap<Value, usize> = HashMap::default();
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            let inst = &f.insts[i];
            match inst.op {
                Op::And | Op::Or | Op::Not => {
                    for a in &inst.args {
                        *n.entry(a.value).or_default() += 1;
                    }
                }
                Op::Select => *n.entry(inst.args[0].value).or_default() += 1,
                _ => {}
            }
        }
    }
    n
}

/// Reads of each value by a `not`.
fn negations(f: &Function) -> HashMap<Value, usize> {
    let mut n: HashMap<Value, usize> = HashMap::default();
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            let inst = &f.insts[i];
            if inst.op == Op::Not {
                *n.entry(inst.args[0].value).or_default() += 1;
            }
        }
    }
    n
}

/// A scalar operand read as it is.
fn whole_scalar(o: &Operand) -> bool {
    !o.neg && !o.abs && o.swizzle.lane(0) == 0
}

/// `!x`, inserted before the instruction at `*at - 1` of `block` (`*at` moves past it).
fn not_before(
    f: &mut Function,
    block: crate::func::BlockId,
    at: &mut usize,
    x: Operand,
) -> Operand {
    let span = f.insts[f.blocks[block].insts[*at - 1]].span;
    let x = Operand {
        swizzle: Swizzle::splat(x.swizzle.lane(0)),
        ..x
    };
    let not = f.create_inst(Op::Not, vec![x], &[Ty::bool(1)], span);
    f.blocks[block].insts.insert(*at - 1, not);
    *at += 1;
    Operand::new(f.insts[not].results[0])
}

/// A float zero of `ty`, inserted like [`not_before`].
fn zero_before(f: &mut Function, block: crate::func::BlockId, at: &mut usize, ty: Ty) -> Operand {
    let span = f.insts[f.blocks[block].insts[*at - 1]].span;
    let zero = f.create_inst(
        Op::float_const(&vec![0.0; ty.lanes as usize]),
        Vec::new(),
        &[ty],
        span,
    );
    f.blocks[block].insts.insert(*at - 1, zero);
    *at += 1;
    Operand::new(f.insts[zero].results[0])
}
