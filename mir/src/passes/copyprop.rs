//! Copy and swizzle propagation: a `Mov` is its operand, so its uses read that operand
//! directly (swizzles and modifiers compose); a `Construct` whose lanes read lanes of one
//! value with the same modifiers is a swizzle of that value.

use crate::func::{Function, Replacements};
use crate::inst::{Op, Operand};
use crate::types::Swizzle;

/// Propagates copies. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let changed = forward_construct_lanes(f);
    // Each instruction is brought up to date before it is looked at, so a chain of copies
    // collapses in one run: a later copy reads its operand as the earlier one rewrote it.
    let mut replace = Replacements::default();
    for b in f.layout.clone() {
        for i in f.blocks[b].insts.clone() {
            replace.apply(f, i);
            let inst = &f.insts[i];
            let Some(result) = inst.result() else {
                continue;
            };
            let replacement = match inst.op {
                Op::Mov => Some(inst.args[0]),
                Op::Construct => {
                    let first = inst.args[0];
                    let same = inst.args.iter().all(|a| {
                        a.value == first.value && a.neg == first.neg && a.abs == first.abs
                    });
                    same.then(|| {
                        let mut sw = [0u8; 4];
                        for (l, a) in inst.args.iter().enumerate() {
                            sw[l] = a.swizzle.lane(0);
                        }
                        for l in inst.args.len()..4 {
                            sw[l] = sw[inst.args.len() - 1];
                        }
                        Operand {
                            swizzle: Swizzle(sw),
                            ..first
                        }
                    })
                }
                _ => None,
            };
            if let Some(op) = replacement {
                // The instruction is now unused; DCE removes it.
                replace.insert(result, op);
            }
        }
    }
    replace.finish(f) | changed
}

/// An operand reading lanes of a `Construct` that all come from lanes of one value (one
/// lane i in every position, `c.xxxx`, or several, `c.xz`) reads that value instead: `construct(c.x, ...)` of `c = construct(a.y,
/// ...)` becomes `construct(a.y, ...)`, transposes of gathered matrices collapse back to
/// registers, and `m * vec4(p.x, q, p.z, 1)` multiplies the columns by `p.xxxx` directly,
/// so the construct often dies.
fn forward_construct_lanes(f: &mut Function) -> bool {
    let mut changed = false;
    for b in f.layout.clone() {
        for i in f.blocks[b].insts.clone() {
            for k in 0..f.insts[i].args.len() {
                let a = f.insts[i].args[k];
                let Some(inner) = f.def_inst(a.value) else {
                    continue;
                };
                if inner.op != Op::Construct {
                    continue;
                }
                // The construct's operand at each lane the swizzle reads: all of them lanes of
                // one value with the same modifiers (`c.xz` of `c = construct(p.x, q, p.y)`
                // is `p.xy`).
                let picked: Option<Vec<Operand>> = (0..4)
                    .map(|p| inner.args.get(a.swizzle.lane(p) as usize).copied())
                    .collect();
                let Some(picked) = picked else { continue };
                let first = picked[0];
                if picked
                    .iter()
                    .any(|x| x.value != first.value || x.neg != first.neg || x.abs != first.abs)
                {
                    continue;
                }
                let source = Operand {
                    swizzle: Swizzle(std::array::from_fn(|p| picked[p].swizzle.lane(0))),
                    ..first
                };
                f.insts[i].args[k] = crate::func::compose(
                    source,
                    Operand {
                        swizzle: Swizzle::IDENTITY,
                        ..a
                    },
                );
                changed = true;
            }
        }
    }
    changed
}
