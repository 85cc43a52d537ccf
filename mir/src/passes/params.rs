//! Block parameters that carry one value only: a parameter every edge passes the same
//! operand to (or passes itself, around a loop) is that operand.

use crate::func::{BlockId, Function, Replacements, Terminator, Value};
use crate::inst::Operand;

/// Replaces trivial parameters by their one value, until none is left. Returns whether
/// anything changed.
pub fn fold_trivial(f: &mut Function) -> bool {
    let mut changed = false;
    // Each round removes every parameter that is trivial now; removing one can make
    // another trivial (a loop parameter passed a folded one), hence the rounds.
    loop {
        let preds = incoming(f);
        let mut replace = Replacements::default();
        let mut dropped: Vec<(BlockId, Vec<bool>)> = Vec::new();
        for &b in &f.layout {
            if b == f.entry {
                continue;
            }
            let mut drop = vec![false; f.blocks[b].params.len()];
            for (k, &p) in f.blocks[b].params.iter().enumerate() {
                if let Some(o) = one_value(f, p, preds[b.index()].iter().map(|args| args[k])) {
                    drop[k] = replace.insert(p, o);
                }
            }
            if drop.contains(&true) {
                dropped.push((b, drop));
            }
        }
        if dropped.is_empty() {
            return changed;
        }
        remove_params(f, &dropped);
        replace.finish(f);
        changed = true;
    }
}

/// The one operand every edge passes to parameter `p` (ignoring edges that pass `p`
/// itself), if there is exactly one.
fn one_value(f: &Function, p: Value, args: impl Iterator<Item = Operand>) -> Option<Operand> {
    let mut one: Option<Operand> = None;
    for a in args {
        if a.value == p && a.swizzle.is_identity(f.ty(p).lanes) && !a.neg && !a.abs {
            continue;
        }
        match one {
            None => one = Some(a),
            Some(o) if o == a => {}
            Some(_) => return None,
        }
    }
    one
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
    let mut drop = vec![false; f.blocks[b].params.len()];
    drop[k] = true;
    remove_params(f, &[(b, drop)]);
}

/// Removes the parameters marked in each block's mask, and the matching arguments of every
/// edge into those blocks, in one walk.
pub fn remove_params(f: &mut Function, dropped: &[(BlockId, Vec<bool>)]) {
    let mut masks: Vec<Option<&[bool]>> = vec![None; f.blocks.len()];
    for (b, drop) in dropped {
        masks[b.index()] = Some(drop);
        let mut k = 0;
        f.blocks[*b].params.retain(|_| {
            k += 1;
            !drop[k - 1]
        });
        for (i, &p) in f.blocks[*b].params.clone().iter().enumerate() {
            f.values[p].def = crate::func::ValueDef::Param(*b, i as u32);
        }
    }
    for blk in f.layout.clone() {
        if let Terminator::Jump(_) | Terminator::Branch { .. } = f.blocks[blk].term {
            for e in f.blocks[blk].term.edges_mut() {
                let Some(drop) = masks[e.target.index()] else {
                    continue;
                };
                let mut k = 0;
                e.args.retain(|_| {
                    k += 1;
                    !drop.get(k - 1).copied().unwrap_or(false)
                });
            }
        }
    }
}

/// Whether `v` is a parameter of some block.
pub fn is_param(f: &Function, v: Value) -> bool {
    matches!(f.values[v].def, crate::func::ValueDef::Param(..))
}
