//! Rematerialisation: a value computed from inputs, uniforms and constants alone (no
//! temporary) is computed again right before each instruction that reads it, instead of
//! held in a register from its definition to its last use. Back ends run it when a program
//! does not fit the registers: it trades instructions for live ranges. Not part of the
//! default pipeline.

use crate::analysis::liveness::is_temporary;
use crate::func::{Function, InstId, Value};
use crate::inst::{Op, Operand};

/// Recomputes each such value at its readers. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let mut changed = false;
    for b in f.layout.clone() {
        let mut out: Vec<InstId> = Vec::with_capacity(f.blocks[b].insts.len());
        for i in f.blocks[b].insts.clone() {
            // Each operand computed cheaply from register files gets its own copy here.
            let args = f.insts[i].args.clone();
            for (k, a) in args.iter().enumerate() {
                let Some(def) = cheap_def(f, a.value) else {
                    continue;
                };
                let inst = f.insts[def].clone();
                let tys: Vec<_> = inst.results.iter().map(|&r| f.ty(r)).collect();
                let copy = f.create_inst(inst.op, inst.args, &tys, inst.span);
                out.push(copy);
                let value = f.insts[copy].results[0];
                f.insts[i].args[k] = Operand { value, ..*a };
                changed = true;
            }
            out.push(i);
        }
        f.blocks[b].insts = out;
    }
    changed
}

/// The defining instruction of `v` when it reads no temporary and recomputing it is cheap
/// (one pure instruction, not a texture read).
fn cheap_def(f: &Function, v: Value) -> Option<InstId> {
    if !is_temporary(f, v) {
        return None;
    }
    let crate::func::ValueDef::Inst(i, _) = f.values[v].def else {
        return None;
    };
    let inst = &f.insts[i];
    let cheap = inst.op.is_pure()
        && !matches!(inst.op, Op::Sample { .. } | Op::Construct | Op::MatVec(_))
        && inst.results.len() == 1
        && inst.args.iter().all(|a| !is_temporary(f, a.value));
    cheap.then_some(i)
}
