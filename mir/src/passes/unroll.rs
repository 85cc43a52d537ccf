//! Unrolling of loops with a constant trip count.
//!
//! A loop qualifies when it leaves only through one conditional branch that runs on every
//! iteration (its block dominates the continue block), its only back edge comes from the
//! continue block, and the branch's condition can be computed from constants alone,
//! iteration by iteration (a `for (int i = 0; i < 4; i++)` counter). The iterations are
//! simulated with the interpreter's semantics to count the trips; the loop's blocks are then
//! copied once per trip, each copy's exit branch fixed to the way it goes, and the last
//! copy leaves to the merge block. Loops inside are unrolled first.
//!
//! `max_trips` and `max_insts` (instructions after unrolling) bound the growth.

use crate::hash::{HashMap, HashSet};

use crate::analysis::regions::{Construct, Regions};
use crate::analysis::trips::{Plan, Shape, plan};
use crate::func::{BlockId, Function, Replacements, Structure, Terminator, Value};
use crate::inst::Operand;

/// Unrolls qualifying loops. Returns whether anything changed.
///
/// Works in rounds: each finds the innermost loops still in question (disjoint, so one
/// analysis serves them all) and unrolls or refuses each; a refused loop's parent is in
/// question in the next round. A loop next to one unrolled in the same round (sharing an
/// edge with it) waits for the next round, as the analysis no longer describes its
/// surroundings. The cost is a few walks over the function per nesting level, not per loop.
pub fn run(f: &mut Function, max_trips: u32, max_insts: usize) -> bool {
    let mut changed = false;
    let mut refused: HashSet<BlockId> = HashSet::default();
    loop {
        let regions = Regions::new(f);
        let preds = f.predecessors();
        // Innermost loops first: a loop with no other loop (still in question) inside it.
        let open = |c: &Construct| {
            matches!(c.structure, Structure::Loop { .. }) && !refused.contains(&c.header)
        };
        let mut outer: HashSet<BlockId> = HashSet::default();
        for c in regions.constructs.iter().filter(|c| open(c)) {
            let mut up = regions.parent(c);
            while let Some(p) = up {
                if !outer.insert(p.header) {
                    break;
                }
                up = regions.parent(&p);
            }
        }
        let loops: Vec<Construct> = regions
            .constructs
            .iter()
            .filter(|c| open(c) && !outer.contains(&c.header))
            .copied()
            .collect();
        if loops.is_empty() {
            return changed;
        }
        // Each loop's blocks, in layout order: the nearest loop in question holding each.
        let mut blocks: HashMap<BlockId, Vec<BlockId>> = HashMap::default();
        for &b in &f.layout {
            let mut c = regions.innermost(b, None);
            while let Some(x) = c {
                if open(&x) && !outer.contains(&x.header) {
                    blocks.entry(x.header).or_default().push(b);
                    break;
                }
                c = regions.parent(&x);
            }
        }
        let mut count = f.inst_count();
        let mut replace = Replacements::default();
        let mut touched: HashSet<BlockId> = HashSet::default();
        let mut removed: HashSet<BlockId> = HashSet::default();
        for l in loops {
            let Structure::Loop { merge, cont } = l.structure else {
                unreachable!("filtered")
            };
            let inside = blocks.remove(&l.header).unwrap_or_default();
            let near = |b: &BlockId| touched.contains(b);
            if inside.iter().any(near) || preds[l.header.index()].iter().any(near) {
                continue;
            }
            // Bring the loop up to date with the replacements made so far this round.
            for &b in &inside {
                for i in f.blocks[b].insts.clone() {
                    replace.apply(f, i);
                }
                for op in f.blocks[b].term.operands_mut() {
                    *op = replace.resolve(*op);
                }
            }
            let shape = Shape {
                header: l.header,
                merge,
                cont,
                blocks: &inside,
                preds: &preds[l.header.index()],
            };
            match plan(f, &regions.doms, &shape, max_trips, max_insts, count) {
                Some(plan) => {
                    count += unroll(f, &shape, plan, &mut replace);
                    touched.extend(inside.iter().copied());
                    touched.extend(preds[l.header.index()].iter().copied());
                    removed.extend(inside.iter().copied());
                    changed = true;
                }
                None => {
                    refused.insert(l.header);
                }
            }
        }
        if !removed.is_empty() {
            f.layout.retain(|b| !removed.contains(b));
            replace.finish(f);
            // The last copies' blocks after their exit branch are dead.
            super::order::run(f);
        }
    }
}

/// Copies the loop once per trip (and once more for the final test); the uses of its
/// values after the loop go into `replace`, and the caller drops its blocks from the
/// layout. Returns how many instructions were added.
fn unroll(f: &mut Function, shape: &Shape, plan: Plan, replace: &mut Replacements) -> usize {
    let &Shape {
        header,
        blocks,
        preds,
        ..
    } = shape;
    let inside: HashSet<BlockId> = blocks.iter().copied().collect();
    let mut added = 0;
    let copies = plan.trips as usize + 1;
    let mut maps: Vec<(HashMap<BlockId, BlockId>, HashMap<Value, Value>)> =
        Vec::with_capacity(copies);
    for _ in 0..copies {
        let mut bmap = HashMap::default();
        for &b in blocks {
            let span = f.blocks[b].span;
            bmap.insert(b, f.new_block(span));
        }
        maps.push((bmap, HashMap::default()));
    }
    for (k, (bmap, vmap)) in maps.iter_mut().enumerate() {
        // Parameters and instructions, in layout (dominance) order.
        for &b in blocks {
            let nb = bmap[&b];
            for &p in &f.blocks[b].params.clone() {
                let ty = f.ty(p);
                let np = f.add_param(nb, ty);
                vmap.insert(p, np);
            }
        }
        for &b in blocks {
            let nb = bmap[&b];
            for &i in &f.blocks[b].insts.clone() {
                let inst = f.insts[i].clone();
                let args = inst.args.iter().map(|a| remap(a, vmap)).collect();
                let tys: Vec<_> = inst.results.iter().map(|&r| f.ty(r)).collect();
                let ni = f.push(nb, inst.op, args, &tys, inst.span);
                added += 1;
                for (&r, &nr) in inst.results.iter().zip(&f.insts[ni].results.clone()) {
                    vmap.insert(r, nr);
                }
            }
        }
        for &b in blocks {
            let nb = bmap[&b];
            let mut term = f.blocks[b].term.clone();
            for op in term.operands_mut() {
                *op = remap(op, vmap);
            }
            for e in term.edges_mut() {
                if let Some(&t) = bmap.get(&e.target) {
                    e.target = t;
                }
            }
            if b == plan.exit_block {
                // This copy's test is known: stay for every trip, leave after the last.
                if let Terminator::Branch {
                    then, otherwise, ..
                } = &term
                {
                    let (stay, leave) = if plan.stay_on_true {
                        (then.clone(), otherwise.clone())
                    } else {
                        (otherwise.clone(), then.clone())
                    };
                    term = Terminator::Jump(if k < plan.trips as usize { stay } else { leave });
                }
            }
            f.blocks[nb].term = term;
            f.blocks[nb].structure = match f.blocks[b].structure {
                Some(Structure::Loop { .. }) if b == header => None,
                // The exit test became a jump: an `if` it opened (naga's
                // `if (i < n) {} else { break; }`) has one way left, and is no `if`.
                Some(Structure::If { .. }) if b == plan.exit_block => None,
                Some(s) => Some(remap_structure(s, bmap)),
                None => None,
            };
        }
    }
    // Chain the copies: copy k's back edge enters copy k+1's header.
    for k in 0..copies {
        let cont_k = maps[k].0[&plan.cont];
        let next = maps.get(k + 1).map(|(bmap, _)| bmap[&header]);
        if let Terminator::Jump(e) = &mut f.blocks[cont_k].term {
            match next {
                Some(h) => e.target = h,
                None => f.blocks[cont_k].term = Terminator::Unreachable,
            }
        }
    }
    // Enter the first copy; uses after the loop read the last copy's values.
    let first = maps[0].0[&header];
    for &b in preds {
        if inside.contains(&b) {
            continue;
        }
        for e in f.blocks[b].term.edges_mut() {
            if e.target == header {
                e.target = first;
            }
        }
    }
    for (&old, &new) in &maps[copies - 1].1 {
        replace.insert(old, Operand::new(new));
    }
    added
}

fn remap(op: &Operand, vmap: &HashMap<Value, Value>) -> Operand {
    match vmap.get(&op.value) {
        Some(&v) => Operand { value: v, ..*op },
        None => *op,
    }
}

fn remap_structure(s: Structure, bmap: &HashMap<BlockId, BlockId>) -> Structure {
    let m = |b: BlockId| bmap.get(&b).copied().unwrap_or(b);
    match s {
        Structure::If { merge } => Structure::If { merge: m(merge) },
        Structure::Loop { merge, cont } => Structure::Loop {
            merge: m(merge),
            cont: m(cont),
        },
        Structure::Region { merge } => Structure::Region { merge: m(merge) },
    }
}
