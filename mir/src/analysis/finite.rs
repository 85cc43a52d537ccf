//! Which values may be infinite or NaN although every input, uniform and constant is finite:
//! the results of operations that divide, take roots or logarithms or exponentials, and what
//! is computed from them.
//!
//! Targets blend the two arms of a converted `if` (and the two operands of a `select`) as
//! `c * a + (1 - c) * b`: exact when both are finite, but `0 * inf` is NaN on AGAL's IEEE
//! hardware (the PICA200 gives 0, the MIR interpreter NaN). Where a target can branch, a
//! `select` of a value that may be non-finite therefore becomes an `if` again (the `bools`
//! pass) instead of a blend. Overflow of ordinary arithmetic is not tracked.
//!
//! A comparison is a bool and a flag 0 or 1 whatever it compares: neither carries a
//! non-finite value on.
//!
//! A division, reciprocal, root or logarithm whose operand is known to be in its domain
//! (see `sign`) creates nothing: `x / (d + float(d == 0.0))`, `inversesqrt(max(l, 1e-6))`
//! and `sqrt(dot(v, v))` are finite for finite operands.

use crate::hash::HashSet;

use crate::func::{Function, Value};
use crate::inst::{CmpOp, Op, Operand};

use crate::analysis::constants::lane;

/// The values that may be non-finite.
pub fn maybe_non_finite(f: &Function) -> HashSet<Value> {
    let mut out: HashSet<Value> = HashSet::default();
    // Parameters take what their edges pass: iterate until nothing new (loops).
    loop {
        let before = out.len();
        for &b in &f.layout {
            for &i in &f.blocks[b].insts {
                let inst = &f.insts[i];
                let Some(r) = inst.result() else { continue };
                let lanes = f.ty(r).lanes;
                let all = |k: usize, want: Sign| {
                    let a = &inst.args[k];
                    (0..lanes).all(|l| sign(f, a, a.swizzle.lane(usize::from(l)), 0).is(want))
                };
                let creates = match inst.op {
                    Op::Rcp => !all(0, Sign::NonZero),
                    Op::Div => !all(1, Sign::NonZero),
                    Op::Rsq | Op::Log2 => !all(0, Sign::Positive),
                    Op::Sqrt => !all(0, Sign::NonNegative),
                    Op::Exp2 | Op::Pow | Op::Normalize => true,
                    _ => false,
                };
                // Comparisons and flags are bools or 0/1 whatever they compare; a select
                // carries only what it chooses between.
                let carried = match inst.op {
                    Op::Cmp(_) | Op::BoolToFloat | Op::And | Op::Or | Op::Not => &[][..],
                    Op::Select => &inst.args[1..],
                    _ => &inst.args[..],
                };
                if creates || carried.iter().any(|a| out.contains(&a.value)) {
                    out.insert(r);
                }
            }
            for e in f.blocks[b].term.edges() {
                for (a, &p) in e.args.iter().zip(&f.blocks[e.target].params) {
                    if out.contains(&a.value) {
                        out.insert(p);
                    }
                }
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

/// What is known of a lane's sign (for finite operands).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sign {
    /// Nothing.
    Any,
    /// Not 0.
    NonZero,
    /// At least 0.
    NonNegative,
    /// Above 0.
    Positive,
}

impl Sign {
    /// Whether this implies `want`.
    fn is(self, want: Sign) -> bool {
        self == want || self == Sign::Positive && want != Sign::Any || want == Sign::Any
    }
}

/// The sign of lane `l` of operand `a` (its modifiers applied), from the instructions that
/// compute it: constants, `sat`, `abs`, flags, `max` with something positive, squares, sums
/// of those, and `d + float(d == 0)` (what shaders divide by to avoid 0).
fn sign(f: &Function, a: &Operand, l: u8, depth: u32) -> Sign {
    let inner = value_sign(f, a.value, l, depth);
    match (a.abs, a.neg) {
        (true, false) if inner.is(Sign::NonZero) => Sign::Positive,
        (true, false) => Sign::NonNegative,
        (true, true) | (false, true) if inner.is(Sign::NonZero) => Sign::NonZero,
        (true, true) | (false, true) => Sign::Any,
        (false, false) => inner,
    }
}

fn value_sign(f: &Function, v: Value, l: u8, depth: u32) -> Sign {
    if let Some(x) = lane(f, v, l) {
        return if x > 0.0 {
            Sign::Positive
        } else if x == 0.0 {
            Sign::NonNegative
        } else if x.is_nan() {
            Sign::Any
        } else {
            Sign::NonZero
        };
    }
    let Some(inst) = f.def_inst(v) else {
        return Sign::Any;
    };
    if depth > 8 {
        return Sign::Any;
    }
    let arg = |k: usize| {
        sign(
            f,
            &inst.args[k],
            inst.args[k].swizzle.lane(usize::from(l)),
            depth + 1,
        )
    };
    let same = |x: &Operand, y: &Operand| x.value == y.value && x.swizzle == y.swizzle;
    match inst.op {
        Op::Sat | Op::BoolToFloat => Sign::NonNegative,
        Op::Construct => {
            let a = &inst.args[usize::from(l)];
            sign(f, a, a.swizzle.lane(0), depth + 1)
        }
        Op::Max => {
            let (x, y) = (arg(0), arg(1));
            if x == Sign::Positive || y == Sign::Positive {
                Sign::Positive
            } else if x.is(Sign::NonNegative) || y.is(Sign::NonNegative) {
                Sign::NonNegative
            } else {
                Sign::Any
            }
        }
        Op::Add => {
            let (x, y) = (arg(0), arg(1));
            let nonneg = x.is(Sign::NonNegative) && y.is(Sign::NonNegative);
            if nonneg && (x == Sign::Positive || y == Sign::Positive) {
                Sign::Positive
            } else if nonneg {
                Sign::NonNegative
            } else if guarded(f, &inst.args[0], &inst.args[1], l)
                || guarded(f, &inst.args[1], &inst.args[0], l)
            {
                Sign::NonZero
            } else {
                Sign::Any
            }
        }
        Op::Mul => {
            let (x, y) = (arg(0), arg(1));
            let square = same(&inst.args[0], &inst.args[1]) && inst.args[0].neg == inst.args[1].neg;
            if x == Sign::Positive && y == Sign::Positive {
                Sign::Positive
            } else if square || x.is(Sign::NonNegative) && y.is(Sign::NonNegative) {
                Sign::NonNegative
            } else if x.is(Sign::NonZero) && y.is(Sign::NonZero) {
                Sign::NonZero
            } else {
                Sign::Any
            }
        }
        Op::Dot(_) if same(&inst.args[0], &inst.args[1]) => Sign::NonNegative,
        _ => Sign::Any,
    }
}

/// Whether `flag` (lane `l`) is `float(d == 0)` for the `d` lane `d` reads: then `d + flag`
/// is never 0.
fn guarded(f: &Function, d: &Operand, flag: &Operand, l: u8) -> bool {
    if flag.neg || flag.abs {
        return false;
    }
    let Some(b2f) = f.def_inst(flag.value).filter(|i| i.op == Op::BoolToFloat) else {
        return false;
    };
    let c = &b2f.args[0];
    let Some(cmp) = f.def_inst(c.value).filter(|i| i.op == Op::Cmp(CmpOp::Eq)) else {
        return false;
    };
    let cmp_lane = usize::from(
        c.swizzle
            .lane(usize::from(flag.swizzle.lane(usize::from(l)))),
    );
    let d_lane = d.swizzle.lane(usize::from(l));
    let is_d = |o: &Operand| o.value == d.value && !o.abs && o.swizzle.lane(cmp_lane) == d_lane;
    let is_zero = |o: &Operand| lane(f, o.value, o.swizzle.lane(cmp_lane)) == Some(0.0);
    (is_d(&cmp.args[0]) && is_zero(&cmp.args[1])) || (is_d(&cmp.args[1]) && is_zero(&cmp.args[0]))
}
