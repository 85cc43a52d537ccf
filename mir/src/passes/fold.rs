//! Constant folding: a pure operation whose operands are all constants becomes a constant
//! (computed by [`crate::eval::apply`], so folding and the interpreter agree to the bit), a
//! select on a constant condition becomes the chosen operand, and a branch on a constant
//! condition becomes a jump (its `if` annotation goes with it).

use crate::eval::{Lanes, apply};
use crate::func::{Function, Replacements, Terminator};
use crate::inst::Op;
use crate::types::Kind;

use crate::analysis::constants::{constant, constant_n, lane};

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
