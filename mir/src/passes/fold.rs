//! Constant folding: a pure operation whose operands are all constants becomes a constant
//! (computed by [`crate::eval::apply`], so folding and the interpreter agree to the bit), a
//! select on a constant condition becomes the chosen operand, and a branch on a constant
//! condition becomes a jump (its `if` annotation goes with it).

use crate::eval::{Lanes, apply};
use crate::func::{Function, Replacements, Terminator, Value};
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

/// Folds what can be folded. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let mut changed = false;
    let mut replace = Replacements::default();
    for b in f.layout.clone() {
        for &i in &f.blocks[b].insts.clone() {
            replace.apply(f, i);
            let inst = &f.insts[i];
            let Some(result) = inst.result() else {
                continue;
            };
            if !inst.op.is_pure()
                || matches!(
                    inst.op,
                    Op::Const(_)
                        | Op::LoadUniform { .. }
                        | Op::LoadInput(_)
                        | Op::LoadBoolUniform { .. }
                        | Op::InstanceIndex
                        | Op::FragCoord
                        | Op::Sample { .. }
                )
            {
                continue;
            }
            if inst.op == Op::Select {
                if let Some(c) = constant(f, &inst.args[0]) {
                    let scalar = f.ty(inst.args[0].value).lanes == 1;
                    let lanes = f.ty(result).lanes as usize;
                    let all = (0..lanes).all(|l| (if scalar { c[0] } else { c[l] }) != 0.0);
                    let none = (0..lanes).all(|l| (if scalar { c[0] } else { c[l] }) == 0.0);
                    if all {
                        replace.insert(result, inst.args[1]);
                        continue;
                    }
                    if none {
                        replace.insert(result, inst.args[2]);
                        continue;
                    }
                }
            }
            if inst.op == Op::Construct
                && inst
                    .args
                    .iter()
                    .all(|a| lane(f, a.value, a.swizzle.lane(0)).is_none())
            {
                continue;
            }
            let args: Option<Vec<Lanes>> = inst
                .args
                .iter()
                .enumerate()
                .map(|(k, a)| constant_n(f, a, crate::shape::operand_lanes(f, None, inst, k)))
                .collect();
            let Some(args) = args else { continue };
            let Some(value) = apply(f, None, inst, &args) else {
                continue;
            };
            let kind = f.ty(result).kind;
            let bits = value.map(|x| match kind {
                Kind::Float => x.to_bits(),
                Kind::Bool => (x != 0.0) as u32,
            });
            let lanes = f.ty(result).lanes as usize;
            let mut masked = [0u32; 4];
            masked[..lanes].copy_from_slice(&bits[..lanes]);
            let inst = &mut f.insts[i];
            inst.op = Op::Const(masked);
            inst.args.clear();
            changed = true;
        }
    }
    changed |= replace.finish(f);
    for b in f.layout.clone() {
        if let Terminator::Branch {
            cond,
            then,
            otherwise,
        } = &f.blocks[b].term
        {
            if let Some(c) = constant(f, cond) {
                let edge = if c[0] != 0.0 {
                    then.clone()
                } else {
                    otherwise.clone()
                };
                f.blocks[b].term = Terminator::Jump(edge);
                if matches!(
                    f.blocks[b].structure,
                    Some(crate::func::Structure::If { .. })
                ) {
                    f.blocks[b].structure = None;
                }
                changed = true;
            }
        }
    }
    changed
}
