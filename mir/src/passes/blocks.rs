//! Block merging: a block whose only predecessor jumps to it unconditionally joins that
//! predecessor, unless a structured region names it (a merge block or continue target keeps
//! its place). A header may move up into its predecessor with its annotation.

use crate::func::{Function, Structure, Terminator};

/// Merges straight-line block pairs. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let mut changed = false;
    loop {
        let preds = f.predecessors();
        let mut named = vec![false; f.blocks.len()];
        for &b in &f.layout {
            match f.blocks[b].structure {
                Some(Structure::If { merge } | Structure::Region { merge }) => {
                    named[merge.index()] = true
                }
                Some(Structure::Loop { merge, cont }) => {
                    named[merge.index()] = true;
                    named[cont.index()] = true;
                    named[b.index()] = true; // the back edge's target
                }
                None => {}
            }
        }
        let mut pair = None;
        for &a in &f.layout {
            let Terminator::Jump(e) = &f.blocks[a].term else {
                continue;
            };
            let b = e.target;
            if b == a || b == f.entry || named[b.index()] || preds[b.index()].len() != 1 {
                continue;
            }
            if f.blocks[b].structure.is_some() && f.blocks[a].structure.is_some() {
                continue;
            }
            pair = Some((a, b));
            break;
        }
        let Some((a, b)) = pair else { return changed };
        // B's parameters are A's arguments.
        let Terminator::Jump(e) = f.blocks[a].term.clone() else {
            unreachable!("checked above")
        };
        for (&p, arg) in f.blocks[b].params.clone().iter().zip(e.args) {
            f.replace_uses(p, arg);
        }
        f.blocks[b].params.clear();
        let insts = std::mem::take(&mut f.blocks[b].insts);
        f.blocks[a].insts.extend(insts);
        f.blocks[a].term = std::mem::replace(&mut f.blocks[b].term, Terminator::Unreachable);
        if let Some(s) = f.blocks[b].structure.take() {
            f.blocks[a].structure = Some(s);
        }
        f.layout.retain(|&x| x != b);
        changed = true;
    }
}
