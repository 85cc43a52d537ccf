//! Expansion of operations a target lacks into ones it has, chosen by the target's
//! [`Expand`] flags. Each expansion is a formula over other MIR operations, so the result
//! still runs in the interpreter and the optimiser cleans it up like any other code (the
//! two `sin` polynomials of a `sincos` pack into one, `pow(x, 2.0)` was `x * x` already).
//!
//! | operation | becomes | for |
//! |---|---|---|
//! | `a - b` | `a + -b` | (the PICA200's instruction selection does it) |
//! | `mad(a, b, c)` | `a * b + c` | AGAL (no MAD) |
//! | `a / b` | `a * rcp(b)` | PICA200 |
//! | `sqrt(x)` | `rcp(rsq(x))` (exact at 0, where `x * rsq(x)` is not) | PICA200 |
//! | `pow(a, b)` | `exp2(b * log2(a))` | PICA200 |
//! | `sin`, `cos` | range reduction with `fract`, then an odd polynomial of degree 11 | PICA200 |
//! | `floor(x)` | `x - fract(x)` | AGAL |
//! | `fract(x)` | `x - floor(x)` | PICA200 |
//! | `ceil`, `trunc`, `round`, `roundEven`, `sign` | `floor`, comparisons and arithmetic | both |
//! | `sat(x)` | `min(max(x, 0), 1)` | (the PICA200's instruction selection does it) |
//! | `dph(a, b)` | `dot3(a, b) + b.w` | (AGAL's back end, which fuses matrix rows first) |
//! | `cross(a, b)` | `a.yzx * b.zxy - a.zxy * b.yzx` | PICA200 |
//! | `normalize(x)` | `x * rsq(dot(x, x))` | PICA200; AGAL except 3 lanes (`nrm`) |
//! | `dot2(a, b)` | `a.x * b.x + a.y * b.y` | both (neither has a 2-lane dot) |
//!
//! Expansions may produce operations that expand in turn (`round` uses `sign` and `floor`);
//! the pass runs until nothing is left to expand.

use crate::hash::HashMap;

use crate::func::{Function, InstId, Value};
use crate::inst::{CmpOp, Op, Operand};
use crate::span::Span;
use crate::types::{Swizzle, Ty};

/// Which operations to expand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Expand {
    /// `a - b` to `a + -b`.
    pub sub: bool,
    /// `mad` to a multiply and an add.
    pub mad: bool,
    /// Division to a reciprocal and a multiply.
    pub div: bool,
    /// `sqrt` to reciprocals.
    pub sqrt: bool,
    /// `pow` to `exp2` and `log2`.
    pub pow: bool,
    /// `sin` and `cos` to polynomials.
    pub sin_cos: bool,
    /// `floor` through `fract`.
    pub floor: bool,
    /// `fract` through `floor`.
    pub fract: bool,
    /// `ceil`, `trunc`, `round`, `roundEven` and `sign`.
    pub rounding: bool,
    /// `sat` to `min` and `max`.
    pub sat: bool,
    /// `dph` to a 3-lane dot product and an add.
    pub dph: bool,
    /// `cross` to multiplies.
    pub cross: bool,
    /// `normalize` of these lane counts (bit n for n lanes).
    pub normalize: u8,
    /// 2-lane dot products to a multiply and a multiply-add.
    pub dot2: bool,
}

/// Expands until nothing is left to expand. Returns whether anything changed.
///
/// # Panics
/// If `floor` and `fract` are both to be expanded (each is the other's expansion).
pub fn run(f: &mut Function, what: &Expand) -> bool {
    assert!(
        !(what.floor && what.fract),
        "floor and fract cannot both be expanded"
    );
    let mut changed = false;
    while round(f, what) {
        changed = true;
    }
    changed
}

/// One pass over the function.
fn round(f: &mut Function, what: &Expand) -> bool {
    let mut replaced: HashMap<Value, Operand> = HashMap::default();
    for b in f.layout.clone() {
        let old = std::mem::take(&mut f.blocks[b].insts);
        let mut out: Vec<InstId> = Vec::with_capacity(old.len());
        for i in old {
            let span = f.insts[i].span;
            let mut e = Emitter {
                out: &mut out,
                span,
            };
            match expand(f, &mut e, i, what) {
                Some(value) => {
                    let result = f.insts[i].results[0];
                    replaced.insert(result, value);
                }
                None => out.push(i),
            }
        }
        f.blocks[b].insts = out;
    }
    let changed = !replaced.is_empty();
    f.replace_uses_all(&replaced);
    changed
}

/// Appends new instructions to a block being rebuilt.
struct Emitter<'a> {
    out: &'a mut Vec<InstId>,
    span: Span,
}

impl Emitter<'_> {
    fn op(&mut self, f: &mut Function, op: Op, args: Vec<Operand>, lanes: u8) -> Operand {
        let id = f.create_inst(op, args, &[Ty::float(lanes)], self.span);
        self.out.push(id);
        Operand::new(f.insts[id].results[0])
    }

    fn cmp(&mut self, f: &mut Function, c: CmpOp, a: Operand, b: Operand, lanes: u8) -> Operand {
        let id = f.create_inst(Op::Cmp(c), vec![a, b], &[Ty::bool(lanes)], self.span);
        self.out.push(id);
        Operand::new(f.insts[id].results[0])
    }

    /// A float constant of `lanes` lanes, each `x`.
    fn splat(&mut self, f: &mut Function, x: f32, lanes: u8) -> Operand {
        let values = vec![x; lanes as usize];
        self.op(f, Op::float_const(&values), Vec::new(), lanes)
    }

    /// `cond ? 1.0 : 0.0`.
    fn as_float(&mut self, f: &mut Function, cond: Operand, lanes: u8) -> Operand {
        self.op(f, Op::BoolToFloat, vec![cond], lanes)
    }
}

/// The expansion of instruction `i`, if it has one.
fn expand(f: &mut Function, e: &mut Emitter, i: InstId, what: &Expand) -> Option<Operand> {
    let inst = f.insts[i].clone();
    let result = inst.result()?;
    let n = f.ty(result).lanes;
    if !f.ty(result).is_float() {
        return None;
    }
    let a = inst.args.first().copied();
    let arg = |k: usize| inst.args[k];
    Some(match inst.op {
        Op::Sub if what.sub => e.op(f, Op::Add, vec![arg(0), arg(1).negated()], n),
        Op::Mad if what.mad => {
            let p = e.op(f, Op::Mul, vec![arg(0), arg(1)], n);
            e.op(f, Op::Add, vec![p, arg(2)], n)
        }
        Op::Div if what.div => {
            let r = e.op(f, Op::Rcp, vec![arg(1)], n);
            e.op(f, Op::Mul, vec![arg(0), r], n)
        }
        Op::Sqrt if what.sqrt => {
            let r = e.op(f, Op::Rsq, vec![a?], n);
            e.op(f, Op::Rcp, vec![r], n)
        }
        Op::Pow if what.pow => {
            let l = e.op(f, Op::Log2, vec![arg(0)], n);
            let m = e.op(f, Op::Mul, vec![arg(1), l], n);
            e.op(f, Op::Exp2, vec![m], n)
        }
        Op::Sin if what.sin_cos => sine(f, e, a?, n, 0.5),
        // cos(x) = sin(x + pi/2): a quarter turn more.
        Op::Cos if what.sin_cos => sine(f, e, a?, n, 0.75),
        Op::Floor if what.floor => {
            let fr = e.op(f, Op::Fract, vec![a?], n);
            e.op(f, Op::Sub, vec![a?, fr], n)
        }
        Op::Fract if what.fract => {
            let fl = e.op(f, Op::Floor, vec![a?], n);
            e.op(f, Op::Sub, vec![a?, fl], n)
        }
        Op::Ceil if what.rounding => {
            let fl = e.op(f, Op::Floor, vec![a?.negated()], n);
            e.op(f, Op::Mov, vec![fl.negated()], n)
        }
        Op::Trunc if what.rounding => {
            // trunc(x) = sign(x) * floor(|x|).
            let magnitude = Operand {
                abs: true,
                neg: false,
                ..a?
            };
            let fl = e.op(f, Op::Floor, vec![magnitude], n);
            let s = e.op(f, Op::Sign, vec![a?], n);
            e.op(f, Op::Mul, vec![s, fl], n)
        }
        Op::Round if what.rounding => {
            // Half away from zero: sign(x) * floor(|x| + 0.5).
            let magnitude = Operand {
                abs: true,
                neg: false,
                ..a?
            };
            let half = e.splat(f, 0.5, n);
            let up = e.op(f, Op::Add, vec![magnitude, half], n);
            let fl = e.op(f, Op::Floor, vec![up], n);
            let s = e.op(f, Op::Sign, vec![a?], n);
            e.op(f, Op::Mul, vec![s, fl], n)
        }
        Op::RoundEven if what.rounding => {
            // r = floor(x + 0.5); on a tie (r - x == 0.5) with r odd, r - 1.
            let x = a?;
            let half = e.splat(f, 0.5, n);
            let up = e.op(f, Op::Add, vec![x, half], n);
            let r = e.op(f, Op::Floor, vec![up], n);
            let d = e.op(f, Op::Sub, vec![r, x], n);
            let tie = e.cmp(f, CmpOp::Eq, d, half, n);
            let hr = e.op(f, Op::Mul, vec![r, half], n);
            let hf = e.op(f, Op::Floor, vec![hr], n);
            let odd = e.cmp(f, CmpOp::Ne, hr, hf, n);
            let both = {
                let id = f.create_inst(Op::And, vec![tie, odd], &[Ty::bool(n)], e.span);
                e.out.push(id);
                Operand::new(f.insts[id].results[0])
            };
            let fix = e.as_float(f, both, n);
            e.op(f, Op::Sub, vec![r, fix], n)
        }
        Op::Sign if what.rounding => {
            // (x > 0) - (x < 0).
            let zero = e.splat(f, 0.0, n);
            let pos = e.cmp(f, CmpOp::Gt, a?, zero, n);
            let neg = e.cmp(f, CmpOp::Lt, a?, zero, n);
            let p = e.as_float(f, pos, n);
            let q = e.as_float(f, neg, n);
            e.op(f, Op::Sub, vec![p, q], n)
        }
        Op::Sat if what.sat => {
            let zero = e.splat(f, 0.0, n);
            let one = e.splat(f, 1.0, n);
            let lo = e.op(f, Op::Max, vec![a?, zero], n);
            e.op(f, Op::Min, vec![lo, one], n)
        }
        Op::Dph if what.dph => {
            let d = e.op(f, Op::Dot(3), vec![arg(0), arg(1)], 1);
            e.op(f, Op::Add, vec![d, arg(1).reswizzled(Swizzle::splat(3))], 1)
        }
        Op::Cross if what.cross => {
            let yzx = Swizzle([1, 2, 0, 0]);
            let zxy = Swizzle([2, 0, 1, 1]);
            let p = e.op(
                f,
                Op::Mul,
                vec![arg(0).reswizzled(zxy), arg(1).reswizzled(yzx)],
                3,
            );
            e.op(
                f,
                Op::Mad,
                vec![arg(0).reswizzled(yzx), arg(1).reswizzled(zxy), p.negated()],
                3,
            )
        }
        Op::Normalize if what.normalize & (1 << n) != 0 => {
            let dot = e.op(f, Op::Dot(n), vec![a?, a?], 1);
            let r = e.op(f, Op::Rsq, vec![dot], 1);
            e.op(f, Op::Mul, vec![a?, r.reswizzled(Swizzle::splat(0))], n)
        }
        Op::Dot(2) if what.dot2 => {
            let p = e.op(f, Op::Mul, vec![arg(0), arg(1)], 2);
            e.op(
                f,
                Op::Add,
                vec![
                    p.reswizzled(Swizzle::splat(0)),
                    p.reswizzled(Swizzle::splat(1)),
                ],
                1,
            )
        }
        _ => return None,
    })
}

/// `sin` by range reduction and a polynomial: `t = fract(x / 2pi + phase) - 0.5` lies in
/// [-0.5, 0.5), and the angle `2 pi t` equals `x + 2 pi phase - pi` modulo a turn: `x` itself
/// for phase 0.5, `x + pi/2` (so the result is `cos(x)`) for phase 0.75. The polynomial is
/// odd, of degree 11 ([`SINE`]).
fn sine(f: &mut Function, e: &mut Emitter, x: Operand, n: u8, phase: f32) -> Operand {
    let turn = e.splat(f, std::f32::consts::FRAC_1_PI * 0.5, n);
    let ph = e.splat(f, phase, n);
    let y = e.op(f, Op::Mad, vec![x, turn, ph], n);
    let fr = e.op(f, Op::Fract, vec![y], n);
    let half = e.splat(f, 0.5, n);
    let t = e.op(f, Op::Sub, vec![fr, half], n);
    let t2 = e.op(f, Op::Mul, vec![t, t], n);
    let mut acc = e.splat(f, SINE[0], n);
    for &c in &SINE[1..] {
        let k = e.splat(f, c, n);
        acc = e.op(f, Op::Mad, vec![acc, t2, k], n);
    }
    e.op(f, Op::Mul, vec![acc, t], n)
}

/// `sin(2 pi t) ~ t * P(t^2)` on [-0.5, 0.5], P's coefficients from the highest degree down:
/// a Chebyshev fit of `sin(2 pi sqrt(u)) / sqrt(u)` on [0, 1/4] with six terms (mpmath's
/// `chebyfit`); the largest error of the sine is about 1e-7, below f32 rounding of the sum.
const SINE: [f32; 6] = [
    -12.468_819,
    41.341_366,
    -76.614_14,
    81.599_915,
    -41.341_587,
    // 2 pi to f32 precision (the fit's 6.283184911827347 rounds to it).
    std::f32::consts::TAU,
];
