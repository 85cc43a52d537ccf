//! A vector built from lanes of one vector, some negated, and zeros (`vec4(r.x, -r.y, r.y,
//! 0.0)`) is that vector, swizzled, times a constant of ±1 and 0: one multiply, where the
//! back ends would move each group of lanes in (a lane of one sign, its negation, the zeros:
//! two or three moves). Hand-written PICA200 code does exactly this (`mul o, k.ywyx, v.xyy`).
//!
//! `0 * x` is 0 only for finite `x`, so the vector must not be one that may be infinite or
//! NaN ([`crate::analysis::finite`]). It runs after the passes that read constructs' lanes (the
//! matrix pass, `dph`), and leaves alone a construct that a dot product reads, whose zero
//! lane those use.

use crate::func::Function;
use crate::inst::{Op, Operand};
use crate::types::{Swizzle, Ty};

use crate::analysis::constants::lane;
use crate::analysis::finite::maybe_non_finite;

/// Rewrites such constructs. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let non_finite = maybe_non_finite(f);
    // Constructs a dot product reads.
    let mut dotted = crate::hash::HashSet::default();
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            let inst = &f.insts[i];
            if matches!(inst.op, Op::Dot(_) | Op::Dph | Op::MatVec(_)) {
                dotted.extend(inst.args.iter().map(|a| a.value));
            }
        }
    }
    let mut changed = false;
    for b in f.layout.clone() {
        let mut out = Vec::with_capacity(f.blocks[b].insts.len());
        for i in f.blocks[b].insts.clone() {
            let inst = &f.insts[i];
            let plan = match (inst.op, inst.result()) {
                (Op::Construct, Some(r)) if !dotted.contains(&r) && f.ty(r).is_float() => {
                    plan(f, &inst.args).filter(|(v, ..)| !non_finite.contains(v))
                }
                _ => None,
            };
            let Some((value, swizzle, factors)) = plan else {
                out.push(i);
                continue;
            };
            let n = factors.len();
            let span = f.insts[i].span;
            let k = f.create_inst(
                Op::float_const(&factors),
                vec![],
                &[Ty::float(n as u8)],
                span,
            );
            out.push(k);
            let k = f.insts[k].results[0];
            f.insts[i].op = Op::Mul;
            f.insts[i].args = vec![
                Operand {
                    swizzle,
                    ..Operand::new(value)
                },
                Operand::new(k),
            ];
            out.push(i);
            changed = true;
        }
        f.blocks[b].insts = out;
    }
    changed
}

/// For construct lanes that are lanes of one value (negated or not, no `abs`) or the
/// constant 0, with a zero lane or both signs: the value, the swizzle reading its lanes in
/// the construct's order, and the factors (1, -1, 0).
fn plan(f: &Function, args: &[Operand]) -> Option<(crate::func::Value, Swizzle, Vec<f32>)> {
    let mut value = None;
    let mut lanes = [0u8; 4];
    let mut factors = Vec::with_capacity(args.len());
    for (l, a) in args.iter().enumerate() {
        if let Some(x) = lane(f, a.value, a.swizzle.lane(0)) {
            if x != 0.0 {
                return None;
            }
            factors.push(0.0);
            continue;
        }
        if a.abs || value.is_some_and(|v| v != a.value) {
            return None;
        }
        value = Some(a.value);
        lanes[l] = a.swizzle.lane(0);
        factors.push(if a.neg { -1.0 } else { 1.0 });
    }
    let value = value?;
    let zero = factors.contains(&0.0);
    let signs = factors.contains(&1.0) && factors.contains(&-1.0);
    if !(zero || signs) {
        return None;
    }
    // Zero lanes read a lane the others read (any will do: it is multiplied by 0).
    let some = (0..args.len())
        .find(|&l| factors[l] != 0.0)
        .map_or(0, |l| lanes[l]);
    for l in 0..4 {
        if l >= args.len() || factors[l] == 0.0 {
            lanes[l] = if l >= args.len() {
                lanes[args.len() - 1]
            } else {
                some
            };
        }
    }
    Some((value, Swizzle(lanes), factors))
}
