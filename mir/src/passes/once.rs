//! Loops that cannot repeat: a loop whose continue target is unreachable (`do { …; break; }
//! while (false)`, or a body whose every path leaves once the constant conditions in it fold)
//! runs its body at most once, so it is no loop, and the back ends must never meet one
//! without a back edge.
//!
//! - Before SSA ([`run_before_ssa`], ahead of the `exits` pass): every such loop becomes a
//!   region its breaks leave; `exits` then makes the breaks from nested `if`s structured.
//! - After SSA ([`run`], in the clean-up rounds, where folding makes new ones): a loop whose
//!   exits are plain jumps from its top level (what a folded `if (true) break;` leaves) loses
//!   its annotation; its header's test, if any, becomes an `if` merging where the loop did
//!   (so does a counter test whose other way only goes on to a folded break). One with
//!   conditional exits from nested `if`s becomes a region as before SSA: its values go
//!   through locals, `exits` makes the exits structured, `mem2reg` makes SSA again.
//!   [`remaining`] names any left for the back end's error.

use crate::analysis::cfg::Dominators;
use crate::analysis::regions::Regions;
use crate::func::{BlockId, Function, Structure, Terminator};
use crate::span::Span;

/// The loops that cannot repeat: header, merge.
fn candidates(f: &Function) -> Vec<(BlockId, BlockId)> {
    let doms = Dominators::new(f);
    f.layout
        .iter()
        .filter_map(|&b| match f.blocks[b].structure {
            Some(Structure::Loop { merge, cont }) if doms.reachable(b) && !doms.reachable(cont) => {
                Some((b, merge))
            }
            _ => None,
        })
        .collect()
}

/// Turns the loop at `header` into what it is: straight code whose test, when the header
/// has one, is an `if` merging at `merge`; `region` also makes it a region `merge` ends.
fn demote(f: &mut Function, header: BlockId, merge: BlockId, region: bool) {
    // The continue block, unreached, still jumps back to the header: once `exits` sends a
    // construct's exits through an unreached merge (the rest of a region), it would be
    // reached, a back edge to what is no longer a loop. It goes on to the merge instead
    // (with zeros for its parameters: no path takes it).
    if let Some(Structure::Loop { cont, .. }) = f.blocks[header].structure {
        if cont != header {
            let tys: Vec<crate::types::Ty> =
                f.blocks[merge].params.iter().map(|&p| f.ty(p)).collect();
            let args = super::breaks::zeros(f, cont, &tys);
            f.blocks[cont].term = Terminator::Jump(crate::func::Edge {
                target: merge,
                args,
            });
        }
    }
    if matches!(f.blocks[header].term, Terminator::Branch { .. }) {
        let test = f.split_block(header, 0);
        f.blocks[test].structure = Some(Structure::If { merge });
    }
    f.blocks[header].structure = region.then_some(Structure::Region { merge });
}

/// Before SSA: every loop that cannot repeat becomes a region (for the `exits` pass).
pub fn run_before_ssa(f: &mut Function) -> bool {
    let found = candidates(f);
    for &(header, merge) in &found {
        demote(f, header, merge, true);
    }
    !found.is_empty()
}

/// After SSA: demotes a loop that cannot repeat (see the module comment). Returns whether
/// anything changed.
pub fn run(f: &mut Function) -> bool {
    // One at a time: demoting splits blocks, which the analyses below do not know; the
    // clean-up rounds call again.
    let Some(&(header, merge)) = candidates(f).first() else {
        return false;
    };
    let regions = Regions::new(f);
    let doms = Dominators::new(f);
    let preds = f.predecessors();
    let exits: Vec<BlockId> = f
        .layout
        .iter()
        .copied()
        .filter(|&x| {
            x != header
                && doms.reachable(x)
                && doms.dominates(header, x)
                && f.blocks[x].term.successors().contains(&merge)
        })
        .collect();
    // The counter test of a loop a folded `if (true) break;` ends (`if (i >= n) break;
    // else { break; }`): an `if` at the loop's top level whose other way is its own merge,
    // which only goes on to the loop's merge, is that `if` merging at the loop's merge.
    let mut widened = Vec::new();
    for &x in &exits {
        let (
            Some(Structure::If { merge: m }),
            Terminator::Branch {
                then, otherwise, ..
            },
        ) = (f.blocks[x].structure, &f.blocks[x].term)
        else {
            continue;
        };
        let other = if then.target == merge {
            otherwise.target
        } else {
            then.target
        };
        let top_level = regions
            .innermost(x, Some(x))
            .is_some_and(|c| c.header == header);
        let on_to_merge = matches!(&f.blocks[m].term, Terminator::Jump(e) if e.target == merge)
            && f.blocks[m].params.is_empty();
        if other == m && top_level && on_to_merge && preds[m.index()] == [x] {
            widened.push(x);
        }
    }
    let nested_exit = exits.iter().any(|&x| {
        !widened.contains(&x)
            && (!matches!(f.blocks[x].term, Terminator::Jump(_))
                || regions
                    .innermost(x, None)
                    .is_some_and(|c| c.header != header))
    });
    if nested_exit {
        // Conditional exits from nested `if`s (`if (c) break;` before a folded
        // `if (true) break;`): a region whose exits `exits` makes structured, with the
        // values it defines through locals as before SSA, then SSA again.
        demote(f, header, merge, true);
        let doms = Dominators::new(f);
        super::exits::values_through_locals(f, &doms, header);
        super::exits::run(f);
        super::mem2reg::run(f);
        return true;
    }
    for &x in &widened {
        f.blocks[x].structure = Some(Structure::If { merge });
    }
    demote(f, header, merge, false);
    true
}

/// The loops left that cannot repeat (see the module comment): their headers' spans.
pub fn remaining(f: &Function) -> Vec<Span> {
    candidates(f)
        .into_iter()
        .map(|(h, _)| f.blocks[h].span)
        .collect()
}
