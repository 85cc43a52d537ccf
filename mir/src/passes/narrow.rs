//! Narrowing of constructs whose last lanes nobody reads: `(m * vec4(n, 0)).xyz` needs only
//! three of the four row dot products, and `vec4(p.xyz, 1.0).xy` no move of the constant.
//! The lanes dropped are then dead code for DCE.

use crate::hash::HashMap;

use crate::func::{Function, Terminator, Value};
use crate::inst::{Op, Operand};
use crate::shape::operand_lanes;

/// Narrows what it can. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    // The highest lane each value is read at, over every use.
    let mut read: HashMap<Value, u8> = HashMap::default();
    let mut note = |v: Value, top: u8| {
        let e = read.entry(v).or_insert(0);
        *e = (*e).max(top);
    };
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            let inst = &f.insts[i];
            for (k, a) in inst.args.iter().enumerate() {
                // Sampling coordinates: assume all four (the dimension is the module's).
                let lanes = match inst.op {
                    Op::Sample { .. } => 4,
                    _ => operand_lanes(f, None, inst, k),
                };
                let top = (0..lanes as usize)
                    .map(|l| a.swizzle.lane(l))
                    .max()
                    .unwrap_or(0);
                note(a.value, top);
            }
        }
        // Terminators pass whole operands: as many lanes as the parameter they go to, which
        // a swizzle may fill from fewer (`v.xxyz` of a vec3 to a vec4), so not the value's
        // count; outputs: every lane the swizzle names; a condition: its one lane.
        let term = &f.blocks[b].term;
        let mut passed: Vec<(Operand, u8)> = match term {
            Terminator::Return(values) => values.iter().map(|&v| (v, 4)).collect(),
            Terminator::Branch { cond, .. } => vec![(*cond, 1)],
            _ => Vec::new(),
        };
        for e in term.edges() {
            for (a, &p) in e.args.iter().zip(&f.blocks[e.target].params) {
                passed.push((*a, f.ty(p).lanes));
            }
        }
        for (a, lanes) in passed {
            let top = (0..lanes as usize)
                .map(|l| a.swizzle.lane(l))
                .max()
                .unwrap_or(0);
            note(a.value, top);
        }
    }
    let mut changed = false;
    for b in f.layout.clone() {
        for i in f.blocks[b].insts.clone() {
            if f.insts[i].op != Op::Construct {
                continue;
            }
            let Some(r) = f.insts[i].result() else {
                continue;
            };
            let Some(&top) = read.get(&r) else { continue };
            let keep = top as usize + 1;
            if keep < f.insts[i].args.len() {
                f.insts[i].args.truncate(keep);
                f.values[r].ty.lanes = keep as u8;
                changed = true;
            }
        }
    }
    changed
}
