//! Constant facts: the lanes of a value or an operand that are known at compile time (from
//! constants, through constructs, with swizzles and modifiers applied).

use crate::eval::Lanes;
use crate::func::{Function, Value};
use crate::inst::{Op, Operand};
use crate::types::Kind;

/// The constant value of lane `lane` of `v`: from a constant, or through a `Construct`.
pub fn lane(f: &Function, v: Value, lane: u8) -> Option<f32> {
    lane_depth(f, v, lane, 0)
}

fn lane_depth(f: &Function, v: Value, lane: u8, depth: u32) -> Option<f32> {
    let inst = f.def_inst(v)?;
    match inst.op {
        Op::Const(bits) => {
            let b = bits[lane as usize & 3];
            Some(match f.ty(v).kind {
                Kind::Float => f32::from_bits(b),
                Kind::Bool => (b != 0) as u8 as f32,
            })
        }
        Op::Construct if depth < 8 => {
            let a = inst.args.get(lane as usize)?;
            let x = lane_depth(f, a.value, a.swizzle.lane(0), depth + 1)?;
            Some(modify(f, a, x))
        }
        _ => None,
    }
}

fn modify(f: &Function, op: &Operand, mut x: f32) -> f32 {
    if f.ty(op.value).kind == Kind::Float {
        if op.abs {
            x = x.abs();
        }
        if op.neg {
            x = -x;
        }
    }
    x
}

/// The first `n` lanes of an operand (swizzle and modifiers applied) when they are all
/// constant; the other lanes are 0.
pub fn constant_n(f: &Function, op: &Operand, n: u8) -> Option<Lanes> {
    let mut out = [0.0; 4];
    for (l, slot) in out.iter_mut().enumerate().take(n as usize) {
        *slot = modify(f, op, lane(f, op.value, op.swizzle.lane(l))?);
    }
    Some(out)
}

/// Whether `x` is ±2^k (a normal float whose mantissa is 1): multiplying or dividing by it
/// is exact.
pub fn is_power_of_two(x: f32) -> bool {
    x.is_normal() && x.to_bits() & 0x007f_ffff == 0
}

/// All four lanes of an operand, when constant.
pub fn constant(f: &Function, op: &Operand) -> Option<Lanes> {
    constant_n(f, op, 4)
}

/// Lane 0 of an operand (swizzle and modifiers applied) when it is constant: a scalar
/// operand's value.
pub fn scalar(f: &Function, op: &Operand) -> Option<f32> {
    constant_n(f, op, 1).map(|l| l[0])
}
