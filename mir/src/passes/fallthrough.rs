//! Tail duplication of unstructured joins: a `switch` case that falls through into the next
//! (`case 0: a += 1; case 1: a *= 3; break;`) makes the next case's first block a join that
//! no construct declares: reached from its own test and from the case before. A target that
//! must flatten every branch (AGAL) cannot nest that; with a copy of the joined blocks for
//! the case that falls through, each case is a tree of its own, whose breaks the `exits`
//! pass makes structured. Runs before `exits`, on the front end's output; a target with
//! branches (the PICA200) does not need it.
//!
//! A join is a block with two predecessors or more that is no construct's header, merge or
//! continue target. The blocks copied are those reachable from it without passing a
//! declared merge (the copy ends where control leaves the case). Values defined in the
//! copied blocks go through locals first, so the copies need no new parameters.

use crate::analysis::cfg::Dominators;
use crate::func::{BlockId, Function, Structure, Value};
use crate::hash::{HashMap, HashSet};
use crate::inst::Operand;

/// The most instructions the copies may add to a function.
const BUDGET: usize = 4096;

/// Duplicates the tails of unstructured joins. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let mut changed = false;
    let mut added = 0usize;
    // Each round copies one join for one predecessor; a chain of fall-throughs takes a
    // round per link.
    for _ in 0..256 {
        let Some((join, from)) = find_join(f) else {
            return changed;
        };
        let tail = tail_of(f, join);
        let size: usize = tail.iter().map(|&b| f.blocks[b].insts.len() + 1).sum();
        added += size;
        if added > BUDGET {
            return changed;
        }
        if !changed {
            // Once, before the first copy: values crossing blocks go through locals.
            let doms = Dominators::new(f);
            super::exits::values_through_locals(f, &doms, f.entry);
        }
        copy_for(f, &tail, join, from);
        changed = true;
    }
    changed
}

/// The blocks constructs declare: headers, merges, continue targets.
fn declared(f: &Function) -> HashSet<BlockId> {
    let mut out = HashSet::default();
    out.insert(f.entry);
    for &b in &f.layout {
        if let Some(s) = f.blocks[b].structure {
            out.insert(b);
            match s {
                Structure::If { merge } | Structure::Region { merge } => {
                    out.insert(merge);
                }
                Structure::Loop { merge, cont } => {
                    out.insert(merge);
                    out.insert(cont);
                }
            }
        }
    }
    out
}

/// A join no construct declares, and one of its predecessors (the last in layout order: the
/// case that falls through comes after the test that enters the case).
fn find_join(f: &Function) -> Option<(BlockId, BlockId)> {
    let doms = Dominators::new(f);
    let declared = declared(f);
    let preds = f.predecessors();
    f.layout.iter().copied().find_map(|b| {
        if declared.contains(&b) || !doms.reachable(b) {
            return None;
        }
        let ps: Vec<BlockId> = preds[b.index()]
            .iter()
            .copied()
            .filter(|&p| doms.reachable(p))
            .collect();
        // A back edge into it would make it a loop header: not a join of cases.
        if ps.len() < 2 || ps.iter().any(|&p| doms.dominates(b, p)) {
            return None;
        }
        let pos = |x: BlockId| f.layout.iter().position(|&y| y == x);
        let from = ps.iter().copied().max_by_key(|&p| pos(p))?;
        Some((b, from))
    })
}

/// The blocks reachable from `join` before a declared merge (the copy's extent).
fn tail_of(f: &Function, join: BlockId) -> Vec<BlockId> {
    let declared = declared(f);
    let mut seen: HashSet<BlockId> = HashSet::default();
    let mut stack = vec![join];
    while let Some(b) = stack.pop() {
        if !seen.insert(b) {
            continue;
        }
        for s in f.blocks[b].term.successors() {
            // A construct inside the tail (a header) is copied whole; a merge outside it
            // is where the tail ends.
            let inside_construct = f.blocks[b].structure.is_some();
            if !declared.contains(&s) || inside_construct || is_merge_of_tail(f, &seen, s) {
                stack.push(s);
            }
        }
    }
    f.layout
        .iter()
        .copied()
        .filter(|b| seen.contains(b))
        .collect()
}

/// Whether `s` is the merge (or continue target) of a construct whose header is in `tail`.
fn is_merge_of_tail(f: &Function, tail: &HashSet<BlockId>, s: BlockId) -> bool {
    tail.iter().any(|&h| match f.blocks[h].structure {
        Some(Structure::If { merge } | Structure::Region { merge }) => merge == s,
        Some(Structure::Loop { merge, cont }) => merge == s || cont == s,
        None => false,
    })
}

/// Copies `tail` (which starts at `join`) and sends `from`'s edges to `join` to the copy.
fn copy_for(f: &mut Function, tail: &[BlockId], join: BlockId, from: BlockId) {
    let mut bmap: HashMap<BlockId, BlockId> = HashMap::default();
    for &b in tail {
        let span = f.blocks[b].span;
        bmap.insert(b, f.new_block(span));
    }
    let mut vmap: HashMap<Value, Value> = HashMap::default();
    for &b in tail {
        let nb = bmap[&b];
        for &p in &f.blocks[b].params.clone() {
            let ty = f.ty(p);
            let np = f.add_param(nb, ty);
            vmap.insert(p, np);
        }
    }
    let remap = |op: &Operand, vmap: &HashMap<Value, Value>| match vmap.get(&op.value) {
        Some(&v) => Operand { value: v, ..*op },
        None => *op,
    };
    for &b in tail {
        let nb = bmap[&b];
        for &i in &f.blocks[b].insts.clone() {
            let inst = f.insts[i].clone();
            let args = inst.args.iter().map(|a| remap(a, &vmap)).collect();
            let tys: Vec<_> = inst.results.iter().map(|&r| f.ty(r)).collect();
            let ni = f.push(nb, inst.op, args, &tys, inst.span);
            for (&r, &nr) in inst.results.iter().zip(&f.insts[ni].results.clone()) {
                vmap.insert(r, nr);
            }
        }
    }
    let m = |b: BlockId| bmap.get(&b).copied().unwrap_or(b);
    for &b in tail {
        let nb = bmap[&b];
        let mut term = f.blocks[b].term.clone();
        for op in term.operands_mut() {
            *op = remap(op, &vmap);
        }
        for e in term.edges_mut() {
            e.target = m(e.target);
        }
        f.blocks[nb].term = term;
        f.blocks[nb].structure = f.blocks[b].structure.map(|s| match s {
            Structure::If { merge } => Structure::If { merge: m(merge) },
            Structure::Loop { merge, cont } => Structure::Loop {
                merge: m(merge),
                cont: m(cont),
            },
            Structure::Region { merge } => Structure::Region { merge: m(merge) },
        });
    }
    let copy = bmap[&join];
    for e in f.blocks[from].term.edges_mut() {
        if e.target == join {
            e.target = copy;
        }
    }
}
