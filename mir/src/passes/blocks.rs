//! Block merging: a block whose only predecessor jumps to it unconditionally joins that
//! predecessor, unless a structured region names it (a merge block or continue target keeps
//! its place). A header may move up into its predecessor with its annotation.
//!
//! Jump threading: a branch to a block that does nothing but jump on (an empty `then {
//! break; }` arm) goes straight to where that block jumps, so a loop's exit is a branch in
//! its header rather than a jump from an empty arm.

use crate::func::{Function, Replacements, Structure, Terminator};

/// Merges straight-line block pairs and threads branches through empty blocks. Returns
/// whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let mut changed = thread(f);
    let mut preds = f.predecessors();
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
    // One walk: each block swallows the chain of blocks it alone jumps to, keeping the
    // predecessor lists up to date as terminators move.
    let mut removed = vec![false; f.blocks.len()];
    let mut replace = Replacements::default();
    for a in f.layout.clone() {
        if removed[a.index()] {
            continue;
        }
        while let Terminator::Jump(e) = &f.blocks[a].term {
            let b = e.target;
            if b == a || b == f.entry || named[b.index()] || preds[b.index()].len() != 1 {
                break;
            }
            if f.blocks[b].structure.is_some() && f.blocks[a].structure.is_some() {
                break;
            }
            // B's parameters are A's arguments.
            for (&p, &arg) in f.blocks[b].params.iter().zip(&e.args) {
                replace.insert(p, arg);
            }
            f.blocks[b].params.clear();
            let insts = std::mem::take(&mut f.blocks[b].insts);
            f.blocks[a].insts.extend(insts);
            f.blocks[a].term = std::mem::replace(&mut f.blocks[b].term, Terminator::Unreachable);
            if let Some(s) = f.blocks[b].structure.take() {
                f.blocks[a].structure = Some(s);
            }
            for s in f.blocks[a].term.successors() {
                for p in &mut preds[s.index()] {
                    if *p == b {
                        *p = a;
                    }
                }
            }
            removed[b.index()] = true;
            changed = true;
        }
    }
    f.layout.retain(|&x| !removed[x.index()]);
    replace.finish(f);
    changed
}

/// Retargets conditional-branch edges that lead to an empty forwarding block (no
/// instructions, parameters or annotation, one predecessor, named by no region) to that
/// block's own target. Returns whether anything changed.
fn thread(f: &mut Function) -> bool {
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
            }
            None => {}
        }
    }
    let mut changed = false;
    for b in f.layout.clone() {
        let Terminator::Branch { .. } = f.blocks[b].term else {
            continue;
        };
        let mut term = f.blocks[b].term.clone();
        for k in 0..2 {
            let other = term.successors()[1 - k];
            let e = &mut term.edges_mut()[k];
            let t = e.target;
            let block = &f.blocks[t];
            let forwards = block.insts.is_empty()
                && block.params.is_empty()
                && block.structure.is_none()
                && !named[t.index()]
                && preds[t.index()].len() == 1
                && e.args.is_empty();
            if let (true, Terminator::Jump(next)) = (forwards, &block.term) {
                // Not onto the other edge's target: a branch needs two places to go.
                if next.target != t && next.target != b && next.target != other {
                    **e = next.clone();
                    changed = true;
                }
            }
        }
        if changed {
            f.blocks[b].term = term;
        }
    }
    changed
}
