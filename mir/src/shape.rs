//! How many lanes each operand of an instruction reads, and what shape its result has: the
//! typing rules, in one place for the verifier, the printer, the interpreter and the passes.

use crate::func::Function;
use crate::inst::{Inst, Op};
use crate::module::Module;
use crate::types::Kind;

/// The number of lanes operand `i` of `inst` reads.
pub fn operand_lanes(f: &Function, module: Option<&Module>, inst: &Inst, i: usize) -> u8 {
    let result_lanes = inst.result().map_or(1, |v| f.ty(v).lanes);
    match inst.op {
        Op::Dot(n) => n,
        Op::Dph => {
            if i == 0 {
                3
            } else {
                4
            }
        }
        Op::Cross => 3,
        Op::MatVec(n) => {
            if i < n as usize {
                result_lanes
            } else {
                n
            }
        }
        Op::Normalize => result_lanes,
        Op::Construct | Op::Kill => 1,
        Op::Select if i == 0 => {
            // A scalar condition, or one lane per result lane.
            let cond = f.ty(inst.args[0].value);
            if cond.lanes == 1 { 1 } else { result_lanes }
        }
        Op::LoadUniform { .. } => 1,
        Op::Sample { proj, .. } => {
            if i == 0 {
                let dim_lanes = module
                    .and_then(|m| match inst.op {
                        Op::Sample { sampler, .. } => m.samplers.get(sampler),
                        _ => None,
                    })
                    .map_or(2, |s| match s.dim {
                        crate::module::TextureDim::D2 => 2,
                        crate::module::TextureDim::Cube => 3,
                    });
                dim_lanes + proj as u8
            } else {
                1
            }
        }
        Op::StoreLocal(l) => f.locals[l].ty.lanes,
        Op::EmitVertex => module.and_then(|m| m.outputs.get(i)).map_or(4, |o| o.lanes),
        _ => result_lanes,
    }
}

/// The kind operand `i` of `op` must have, when fixed.
pub fn operand_kind(op: Op, i: usize) -> Option<Kind> {
    match op {
        Op::And | Op::Or | Op::Not | Op::BoolToFloat | Op::Kill => Some(Kind::Bool),
        Op::Select => (i == 0).then_some(Kind::Bool),
        Op::Construct | Op::StoreLocal(_) | Op::EmitVertex => None,
        _ => Some(Kind::Float),
    }
}
