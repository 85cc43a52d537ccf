//! Algebraic simplification and peepholes, each a rewrite of one instruction:
//! - identities: `x + 0`, `x - 0`, `x * 1`, `x / 1`, `mad(x, 1, y)`, `mad(x, y, 0)`,
//!   `mad(x, 0, y)`, `x * -1`, `min(x, x)`, `select(c, x, x)`, `not(not(x))`, `sat(sat(x))`;
//! - strength: `x * 0` is 0 (shader arithmetic is not IEEE-strict: both targets flush, and
//!   the PICA200 gives 0 for inf·0 itself), `x / 2^k` is `x * 2^-k` (exact), `pow(x, 1)`,
//!   `pow(x, 2)` is `x * x`, `pow(x, 0.5)` is `sqrt(x)`, `x - y` with constant y is `x + (-y)`;
//! - `c ? true : false` is `c`, `c ? false : true` is `!c`, `!(a < b)` is `a >= b`;
//! - `a - b == 0` is `a == b` (and `!=`), the difference read only there;
//! - `x < k ? k : x` is `max(x, k)` (and the other spellings of min and max); on equal
//!   operands both pick the same value, and NaN is no concern of shaders here;
//! - `min(max(x, 0), 1)` is `sat(x)`;
//! - `dot4(v, r)` where a lane 3 is 0 is `dot3(v, r)`; `dot4(vec4(p.xyz, 1), r)` is
//!   `dph(p, r)` (the PICA200 instruction; AGAL's back end
//!   expands it again);
//! - `(x + k1) * k2` is `mad(x, k2, k1 * k2)` when the sum has no other use;
//! - `x * k + y * k` is `(x + y) * k` when `k` is a power of two (exact);
//! - `mad(-a, b, c)` and such keep their modifiers: negation is free on both targets.

use crate::func::{Function, Replacements};
use crate::inst::{CmpOp, Op, Operand};
use crate::types::{Swizzle, Ty};

use crate::analysis::constants::{constant_n, is_power_of_two, lane};

/// Simplifies what it can. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let mut changed = false;
    // Counts only fall as rewrites remove uses, and a stale count only misses a rewrite.
    let uses = f.use_counts();
    let mut replace = Replacements::default();
    for b in f.layout.clone() {
        for i in f.blocks[b].insts.clone() {
            replace.apply(f, i);
            let Some(result) = f.insts[i].result() else {
                continue;
            };
            let lanes = f.ty(result).lanes;
            let args = f.insts[i].args.clone();
            let is = |op: &Operand, v: f32| {
                constant_n(f, op, lanes).is_some_and(|c| (0..lanes as usize).all(|l| c[l] == v))
            };
            let replacement: Option<Operand> = match f.insts[i].op {
                Op::Add if is(&args[1], 0.0) => Some(args[0]),
                Op::Add if is(&args[0], 0.0) => Some(args[1]),
                Op::Sub if is(&args[1], 0.0) => Some(args[0]),
                Op::Sub if is(&args[0], 0.0) => Some(args[1].negated()),
                Op::Mul if is(&args[1], 1.0) => Some(args[0]),
                Op::Mul if is(&args[0], 1.0) => Some(args[1]),
                Op::Mul if is(&args[1], -1.0) => Some(args[0].negated()),
                Op::Mul if is(&args[0], -1.0) => Some(args[1].negated()),
                Op::Div if is(&args[1], 1.0) => Some(args[0]),
                Op::Min | Op::Max if args[0] == args[1] => Some(args[0]),
                Op::Select if args[1] == args[2] => Some(args[1]),
                // `c ? true : false` is c (the flags of structured early exits).
                Op::Select
                    if is(&args[1], 1.0) && is(&args[2], 0.0) && !f.ty(result).is_float() =>
                {
                    Some(args[0])
                }
                Op::Pow if is(&args[1], 1.0) => Some(args[0]),
                // 1 / (1 / x) is x (each `rcp` only approximates: x itself is nearer).
                Op::Rcp if lanes == 1 && !args[0].abs => match f.def_inst(args[0].value) {
                    Some(inner)
                        if inner.op == Op::Rcp
                            && f.ty(args[0].value).lanes == 1
                            && !inner.args[0].abs =>
                    {
                        let x = inner.args[0];
                        let x = Operand {
                            swizzle: Swizzle::splat(x.swizzle.lane(0)),
                            ..x
                        };
                        Some(if args[0].neg { x.negated() } else { x })
                    }
                    _ => None,
                },
                // `float(c) != 0` is c (a bool made a float and compared back).
                Op::Cmp(CmpOp::Ne) if is(&args[1], 0.0) => bool_of_float(f, &args[0], lanes),
                Op::Cmp(CmpOp::Ne) if is(&args[0], 0.0) => bool_of_float(f, &args[1], lanes),
                // `x * 0 + c` is c, as `x * 0` is 0 (see above): a matrix times a
                // vector whose last lane is a constant 0 loses its last column.
                Op::Mad if is(&args[0], 0.0) || is(&args[1], 0.0) => Some(args[2]),
                Op::Not => match f.def_inst(args[0].value) {
                    Some(inner) if inner.op == Op::Not && args[0].swizzle.is_identity(lanes) => {
                        Some(inner.args[0])
                    }
                    _ => None,
                },
                Op::Sat => match f.def_inst(args[0].value) {
                    Some(inner) if inner.op == Op::Sat && !args[0].neg && !args[0].abs => {
                        Some(args[0])
                    }
                    _ => None,
                },
                _ => None,
            };
            if let Some(r) = replacement {
                changed |= replace.insert(result, r);
                continue;
            }
            // Rewrites in place.
            let new: Option<(Op, Vec<Operand>)> = match f.insts[i].op {
                // !(a < b) is a >= b (shader comparisons do not promise NaN behaviour).
                Op::Not => match f.def_inst(args[0].value) {
                    Some(inner) if args[0].swizzle.is_identity(lanes) => match inner.op {
                        Op::Cmp(c) => Some((Op::Cmp(c.inverted()), inner.args.clone())),
                        _ => None,
                    },
                    _ => None,
                },
                Op::Mul if is(&args[0], 0.0) || is(&args[1], 0.0) => {
                    Some((Op::float_const(&vec![0.0; lanes as usize]), Vec::new()))
                }
                Op::Mad if is(&args[1], 1.0) => Some((Op::Add, vec![args[0], args[2]])),
                Op::Mad if is(&args[0], 1.0) => Some((Op::Add, vec![args[1], args[2]])),
                Op::Mad if is(&args[2], 0.0) => Some((Op::Mul, vec![args[0], args[1]])),
                // a - b == 0 is a == b (and != likewise), when the difference is read only
                // here: `1 - flag != 0` of a predicated loop's test compares the flag.
                Op::Cmp(c @ (CmpOp::Eq | CmpOp::Ne))
                    if is(&args[1], 0.0)
                        && !args[0].abs
                        && uses.get(&args[0].value) == Some(&1) =>
                {
                    match f.def_inst(args[0].value) {
                        Some(d) if d.op == Op::Sub => Some((
                            Op::Cmp(c),
                            vec![
                                crate::func::compose(d.args[0], args[0]),
                                crate::func::compose(d.args[1], args[0]),
                            ],
                        )),
                        _ => None,
                    }
                }
                Op::Pow if is(&args[1], 2.0) => Some((Op::Mul, vec![args[0], args[0]])),
                Op::Pow if is(&args[1], 0.5) => Some((Op::Sqrt, vec![args[0]])),
                // A fourth lane that is a constant 0 adds nothing: dot3 (`m * vec4(n, 0)`).
                Op::Dot(4) if last_lane_zero(f, &args[0]) || last_lane_zero(f, &args[1]) => {
                    Some((Op::Dot(3), args.clone()))
                }
                Op::Dot(4) => dph(f, &args),
                Op::Select
                    if is(&args[1], 0.0) && is(&args[2], 1.0) && !f.ty(result).is_float() =>
                {
                    Some((Op::Not, vec![args[0]]))
                }
                Op::Select => min_max(f, &args, lanes),
                op @ (Op::Min | Op::Max) => saturate(f, op, &args, lanes),
                // A computed register index that turned out constant.
                Op::LoadUniform { register } if args.len() == 1 => {
                    match constant_n(f, &args[0], 1) {
                        Some(c) if c[0].fract() == 0.0 && register as f32 + c[0] >= 0.0 => Some((
                            Op::LoadUniform {
                                register: (register as f32 + c[0]) as u32,
                            },
                            Vec::new(),
                        )),
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some((op, a)) = new {
                let inst = &mut f.insts[i];
                inst.op = op;
                inst.args = a;
                changed = true;
                continue;
            }
            // (x + k1) * k2 is x * k2 + k1 * k2: one multiply-add, when the sum is read
            // only here.
            if f.insts[i].op == Op::Mul {
                if let Some((x, k2, product)) = scaled_sum(f, &args, lanes, &uses) {
                    let k = constant_before(f, b, i, &product);
                    let inst = &mut f.insts[i];
                    inst.op = Op::Mad;
                    inst.args = vec![x, k2, k];
                    changed = true;
                    continue;
                }
            }
            // dot(-a, b) is -dot(a, b), and -a * b is -(a * b): the negation moves to the
            // readers (a modifier on the PICA200; AGAL, which has none, absorbs it in a
            // `sub` or cancels it against another), and dot(n, -l) is then the dot(n, l)
            // computed anyway (`reflect(-l, n)` beside `dot(n, l)`).
            let op = f.insts[i].op;
            if matches!(op, Op::Dot(_) | Op::Mul) && args.iter().any(|a| a.neg) {
                let negated = args.iter().filter(|a| a.neg).count() == 1;
                let plain: Vec<Operand> =
                    args.iter().map(|a| Operand { neg: false, ..*a }).collect();
                let span = f.insts[i].span;
                let d = f.create_inst(op, plain, &[f.ty(result)], span);
                let pos = f.blocks[b].insts.iter().position(|&x| x == i).unwrap_or(0);
                f.blocks[b].insts.insert(pos, d);
                let d = Operand {
                    neg: negated,
                    ..Operand::new(f.insts[d].results[0])
                };
                changed |= replace.insert(result, d);
                continue;
            }
            // x * k + y * k is (x + y) * k when k is a power of two (exact: both products
            // are, and scaling the rounded sum is), each product read only here: the
            // weights of a box filter's taps, applied once.
            if f.insts[i].op == Op::Add {
                if let Some((x, y, k)) = common_scale(f, &args, lanes, &uses) {
                    let span = f.insts[i].span;
                    let sum = f.create_inst(Op::Add, vec![x, y], &[f.ty(result)], span);
                    let pos = f.blocks[b].insts.iter().position(|&x| x == i).unwrap_or(0);
                    f.blocks[b].insts.insert(pos, sum);
                    let sum = Operand::new(f.insts[sum].results[0]);
                    let inst = &mut f.insts[i];
                    inst.op = Op::Mul;
                    inst.args = vec![sum, k];
                    changed = true;
                    continue;
                }
            }
            // (x * k1) * k2 is x * (k1 * k2) when k1 or k2 is a power of two (exact), and
            // the inner product is read only here.
            if f.insts[i].op == Op::Mul {
                if let Some((x, product)) = scaled_product(f, &args, lanes, &uses) {
                    let k = constant_before(f, b, i, &product);
                    f.insts[i].args = vec![x, k];
                    changed = true;
                    continue;
                }
            }
            // x / 2^k → x * 2^-k, exactly.
            if f.insts[i].op == Op::Div {
                if let Some(c) = constant_n(f, &args[1], lanes) {
                    if (0..lanes as usize).all(|l| is_power_of_two(c[l])) {
                        let recip: Vec<f32> = (0..lanes as usize).map(|l| 1.0 / c[l]).collect();
                        let k = constant_before(f, b, i, &recip);
                        let inst = &mut f.insts[i];
                        inst.op = Op::Mul;
                        inst.args = vec![args[0], k];
                        changed = true;
                    }
                }
            }
        }
    }
    let finished = replace.finish(f);
    finished | changed | scalar_splats(f)
}

/// A lane-wise operation whose operands each read one lane in every lane (`rcp(d.xxx)`,
/// what `v / d` becomes) computes one value: it becomes a scalar, read splat. The PICA200's
/// `rcp`, `rsq`, `ex2` and `lg2` write one result per instruction, so a vec3 of them was
/// three.
fn scalar_splats(f: &mut Function) -> bool {
    let mut found = Vec::new();
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            let inst = &f.insts[i];
            let Some(r) = inst.result() else { continue };
            let n = f.ty(r).lanes;
            let splat =
                |a: &Operand| (1..usize::from(n)).all(|l| a.swizzle.lane(l) == a.swizzle.lane(0));
            if inst.op.is_lanewise_float()
                && n > 1
                && inst.results.len() == 1
                && f.ty(r).is_float()
                && inst.args.iter().all(splat)
            {
                found.push((i, r));
            }
        }
    }
    for &(i, r) in &found {
        for a in &mut f.insts[i].args {
            a.swizzle = Swizzle::splat(a.swizzle.lane(0));
        }
        f.values[r].ty.lanes = 1;
        f.replace_uses(
            r,
            Operand {
                swizzle: Swizzle::splat(0),
                ..Operand::new(r)
            },
        );
    }
    !found.is_empty()
}

/// A new constant of `values`, placed just before instruction `i` of block `b`.
fn constant_before(
    f: &mut Function,
    b: crate::func::BlockId,
    i: crate::func::InstId,
    values: &[f32],
) -> Operand {
    let span = f.insts[i].span;
    let k = f.create_inst(
        Op::float_const(values),
        Vec::new(),
        &[Ty::float(values.len() as u8)],
        span,
    );
    let pos = f.blocks[b].insts.iter().position(|&x| x == i).unwrap_or(0);
    f.blocks[b].insts.insert(pos, k);
    Operand::new(f.insts[k].results[0])
}

/// For `(x * k1) * k2` (either operand order at both levels, the inner product read only
/// here, without `abs`): `x` as the outer product reads it, and `k1 * k2` lane by lane, when
/// in every lane one of the two is a power of two (so the product is exact).
fn scaled_product(
    f: &Function,
    args: &[Operand],
    lanes: u8,
    uses: &crate::hash::HashMap<crate::func::Value, usize>,
) -> Option<(Operand, Vec<f32>)> {
    for (k, other) in [(0usize, 1usize), (1, 0)] {
        let Some(outer) = constant_n(f, &args[k], lanes) else {
            continue;
        };
        let o = args[other];
        if o.abs || uses.get(&o.value) != Some(&1) {
            continue;
        }
        let Some(inner) = f.def_inst(o.value).filter(|d| d.op == Op::Mul) else {
            continue;
        };
        let inner_lanes = f.ty(o.value).lanes;
        for (k2, xi) in [(0usize, 1usize), (1, 0)] {
            let Some(c2) = constant_n(f, &inner.args[k2], inner_lanes) else {
                continue;
            };
            let x = inner.args[xi];
            if constant_n(f, &x, inner_lanes).is_some() {
                continue;
            }
            let product: Vec<f32> = (0..usize::from(lanes))
                .map(|l| outer[l] * c2[usize::from(o.swizzle.lane(l))])
                .collect();
            let exact = (0..usize::from(lanes)).all(|l| {
                let inner_k = c2[usize::from(o.swizzle.lane(l))];
                (is_power_of_two(outer[l]) || is_power_of_two(inner_k)) && product[l].is_finite()
            });
            if exact {
                return Some((crate::func::compose(x, o), product));
            }
        }
    }
    None
}

/// For `x * k + y * k` (products read only here, as they are, by the sum): `x`, `y` and `k`,
/// when `k` is the same power of two in every lane of both.
fn common_scale(
    f: &Function,
    args: &[Operand],
    lanes: u8,
    uses: &crate::hash::HashMap<crate::func::Value, usize>,
) -> Option<(Operand, Operand, Operand)> {
    let product = |o: &Operand| -> Option<(Operand, Operand, Vec<f32>)> {
        if o.neg || o.abs || !o.swizzle.is_identity(lanes) || uses.get(&o.value) != Some(&1) {
            return None;
        }
        let d = f.def_inst(o.value).filter(|d| d.op == Op::Mul)?;
        if f.ty(o.value).lanes != lanes {
            return None;
        }
        (0..2).find_map(|k| {
            let c = constant_n(f, &d.args[k], lanes)?;
            let x = d.args[1 - k];
            (constant_n(f, &x, lanes).is_none()
                && c[..usize::from(lanes)].iter().all(|&v| is_power_of_two(v)))
            .then(|| (x, d.args[k], c[..usize::from(lanes)].to_vec()))
        })
    };
    let (x, k, kx) = product(&args[0])?;
    let (y, _, ky) = product(&args[1])?;
    (kx == ky).then_some((x, y, k))
}

/// `x < k ? k : x` is `max(x, k)`, and the other seven spellings of a clamp to one side
/// (`if (d <= 0.0) d = 0.0;` after if-conversion).
fn min_max(f: &Function, args: &[Operand], lanes: u8) -> Option<(Op, Vec<Operand>)> {
    let c = args[0];
    let cmp = f.def_inst(c.value)?;
    let Op::Cmp(op) = cmp.op else { return None };
    // The condition must compare lane for lane what the select picks from.
    if c.neg || c.abs || !c.swizzle.is_identity(lanes) || f.ty(c.value).lanes != lanes {
        return None;
    }
    let (x, k) = (cmp.args[0], cmp.args[1]);
    let picks_first = if args[1] == x && args[2] == k {
        true
    } else if args[1] == k && args[2] == x {
        false
    } else {
        return None;
    };
    // Which of x, k the select returns when x is the smaller.
    let max = match op {
        CmpOp::Lt | CmpOp::Le => !picks_first,
        CmpOp::Gt | CmpOp::Ge => picks_first,
        CmpOp::Eq | CmpOp::Ne => return None,
    };
    Some((if max { Op::Max } else { Op::Min }, vec![x, k]))
}

/// `min(max(x, 0), 1)` and `max(min(x, 1), 0)` are `sat(x)` (GLSL's `clamp(x, 0.0, 1.0)`):
/// one AGAL instruction, and the PICA200 back end splits it again.
fn saturate(f: &Function, outer: Op, args: &[Operand], lanes: u8) -> Option<(Op, Vec<Operand>)> {
    let is = |op: &Operand, v: f32| {
        constant_n(f, op, lanes).is_some_and(|c| (0..lanes as usize).all(|l| c[l] == v))
    };
    for (inner, bound) in [(args[0], args[1]), (args[1], args[0])] {
        let Some(def) = f.def_inst(inner.value) else {
            continue;
        };
        if inner.neg || inner.abs || !inner.swizzle.is_identity(lanes) {
            continue;
        }
        let (inner_bound, outer_bound) = match (outer, def.op) {
            (Op::Min, Op::Max) => (0.0, 1.0),
            (Op::Max, Op::Min) => (1.0, 0.0),
            _ => continue,
        };
        if !is(&bound, outer_bound) {
            continue;
        }
        for (x, k) in [(def.args[0], def.args[1]), (def.args[1], def.args[0])] {
            if is(&k, inner_bound) {
                return Some((Op::Sat, vec![x]));
            }
        }
    }
    None
}

/// `(x + k1) * k2` as `mad(x, k2, k1 * k2)` (either factor order): `x`, `k2` and the
/// product's lanes.
fn scaled_sum(
    f: &Function,
    args: &[Operand],
    lanes: u8,
    uses: &crate::hash::HashMap<crate::func::Value, usize>,
) -> Option<(Operand, Operand, Vec<f32>)> {
    for (sum, k2) in [(args[0], args[1]), (args[1], args[0])] {
        let Some(c2) = constant_n(f, &k2, lanes) else {
            continue;
        };
        let Some(def) = f.def_inst(sum.value) else {
            continue;
        };
        if def.op != Op::Add || sum.abs || uses.get(&sum.value) != Some(&1) {
            continue;
        }
        for (x, k1) in [(def.args[0], def.args[1]), (def.args[1], def.args[0])] {
            let k1 = k1.reswizzled(sum.swizzle);
            let Some(c1) = constant_n(f, &k1, lanes) else {
                continue;
            };
            let x = x.reswizzled(sum.swizzle);
            let x = if sum.neg { x.negated() } else { x };
            let sign = if sum.neg { -1.0 } else { 1.0 };
            let product: Vec<f32> = (0..lanes as usize).map(|l| sign * c1[l] * c2[l]).collect();
            return Some((x, k2, product));
        }
    }
    None
}

/// Whether lane 3 of `op` (as read) is the constant 0.
fn last_lane_zero(f: &Function, op: &Operand) -> bool {
    lane(f, op.value, op.swizzle.lane(3)) == Some(0.0)
}

/// `dot4(vec4(p.xyz, 1), r)` → `dph(p.xyz, r)` (either operand order).
fn dph(f: &Function, args: &[Operand]) -> Option<(Op, Vec<Operand>)> {
    for (k, other) in [(0usize, 1usize), (1, 0)] {
        let Some(xyz) = point_lanes(f, &args[k]) else {
            continue;
        };
        // The three lanes must come from one vector, in some order, unmodified alike.
        let first = xyz[0];
        if !xyz
            .iter()
            .all(|o| o.value == first.value && o.neg == first.neg && o.abs == first.abs)
        {
            continue;
        }
        let sw = Swizzle([
            xyz[0].swizzle.lane(0),
            xyz[1].swizzle.lane(0),
            xyz[2].swizzle.lane(0),
            xyz[2].swizzle.lane(0),
        ]);
        let p = Operand {
            swizzle: sw,
            ..first
        };
        return Some((Op::Dph, vec![p, args[other]]));
    }
    None
}

/// When `a` (unmodified) reads a 4-lane construct whose lane it reads last is the constant
/// 1 (a point, `vec4(p, 1.0)`): the construct's operands for the three lanes it reads
/// first. `dph` of those is the dot product (see also [`super::homogeneous`]).
pub(super) fn point_lanes(f: &Function, a: &Operand) -> Option<[Operand; 3]> {
    if a.neg || a.abs {
        return None;
    }
    let inst = f.def_inst(a.value)?;
    if inst.op != Op::Construct || inst.args.len() != 4 {
        return None;
    }
    let w = inst.args[a.swizzle.lane(3) as usize];
    let one = lane(f, w.value, w.swizzle.lane(0)).map(|x| if w.neg { -x } else { x });
    if w.abs || one != Some(1.0) {
        return None;
    }
    Some(std::array::from_fn(|l| {
        inst.args[a.swizzle.lane(l) as usize]
    }))
}

/// The bool `c` read in every lane, when `x` reads lane 0 of `float(c)` (a one-lane
/// `BoolToFloat`) in every lane and has no modifiers: `float(c) != 0` is then `c`.
fn bool_of_float(f: &Function, x: &Operand, lanes: u8) -> Option<Operand> {
    let inner = f.def_inst(x.value)?;
    let scalar = f.ty(x.value).lanes == 1
        && (0..usize::from(lanes)).all(|l| x.swizzle.lane(l) == 0)
        && !x.neg
        && !x.abs;
    (inner.op == Op::BoolToFloat && scalar).then(|| {
        let c = inner.args[0];
        Operand {
            swizzle: Swizzle::splat(c.swizzle.lane(0)),
            ..c
        }
    })
}
