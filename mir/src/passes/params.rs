//! Block parameters that carry one value only: a parameter every edge passes the same
//! operand to (or passes itself, around a loop) is that operand.

use crate::func::{BlockId, Function, Terminator, Value};
use crate::inst::Operand;

/// Replaces trivial parameters by their one value, until none is left. Returns whether
/// anything changed.
pub fn fold_trivial(f: &mut Function) -> bool {
    let mut changed = false;
    loop {
        let preds = incoming(f);
        let mut found: Option<(BlockId, usize, Operand)> = None;
        'search: for &b in &f.layout {
            if b == f.entry {
                continue;
            }
            for (k, &p) in f.blocks[b].params.iter().enumerate() {
                let mut one: Option<Operand> = None;
                let mut trivial = true;
                for args in &preds[b.index()] {
                    let a = args[k];
                    if a.value == p && a.swizzle.is_identity(f.ty(p).lanes) && !a.neg && !a.abs {
                        continue;
                    }
                    match one {
                        None => one = Some(a),
                        Some(o) if o == a => {}
                        Some(_) => {
                            trivial = false;
                            break;
                        }
                    }
                }
                if trivial {
                    if let Some(o) = one {
                        found = Some((b, k, o));
                        break 'search;
                    }
                }
            }
        }
        let Some((b, k, value)) = found else {
            return changed;
        };
        let p = f.blocks[b].params[k];
        remove_param(f, b, k);
        f.replace_uses(p, value);
        changed = true;
    }
}

/// The argument lists of every edge into each block.
fn incoming(f: &Function) -> Vec<Vec<Vec<Operand>>> {
    let mut out: Vec<Vec<Vec<Operand>>> = vec![Vec::new(); f.blocks.len()];
    for &b in &f.layout {
        for e in f.blocks[b].term.edges() {
            out[e.target.index()].push(e.args.clone());
        }
    }
    out
}

/// Removes parameter `k` of block `b` and the matching argument of every edge into it.
pub fn remove_param(f: &mut Function, b: BlockId, k: usize) {
    f.blocks[b].params.remove(k);
    for (i, &p) in f.blocks[b].params.clone().iter().enumerate() {
        f.values[p].def = crate::func::ValueDef::Param(b, i as u32);
    }
    for blk in f.layout.clone() {
        if let Terminator::Jump(_) | Terminator::Branch { .. } = f.blocks[blk].term {
            for e in f.blocks[blk].term.edges_mut() {
                if e.target == b && e.args.len() > k {
                    e.args.remove(k);
                }
            }
        }
    }
}

/// Whether `v` is a parameter of some block.
pub fn is_param(f: &Function, v: Value) -> bool {
    matches!(f.values[v].def, crate::func::ValueDef::Param(..))
}
