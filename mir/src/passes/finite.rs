//! Which values may be infinite or NaN although every input, uniform and constant is finite:
//! the results of operations that divide, take roots or logarithms or exponentials, and what
//! is computed from them.
//!
//! Targets blend the two arms of a converted `if` (and the two operands of a `select`) as
//! `c * a + (1 - c) * b`: exact when both are finite, but `0 * inf` is NaN on AGAL's IEEE
//! hardware (the PICA200 gives 0, the MIR interpreter NaN). Where a target can branch, a
//! `select` of a value that may be non-finite therefore becomes an `if` again (the `bools`
//! pass) instead of a blend. Overflow of ordinary arithmetic is not tracked.

use crate::hash::HashSet;

use crate::func::{Function, Value};
use crate::inst::Op;

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
                let creates = matches!(
                    inst.op,
                    Op::Rcp
                        | Op::Rsq
                        | Op::Div
                        | Op::Sqrt
                        | Op::Log2
                        | Op::Exp2
                        | Op::Pow
                        | Op::Normalize
                );
                if creates || inst.args.iter().any(|a| out.contains(&a.value)) {
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
