//! Makes early exits structured: every jump to a `Region`'s merge from inside a nested
//! construct (an early `return` of an inlined function or of the entry point, a `break`
//! out of a switch) becomes a flag and a chain of structured exits, and the region goes.
//!
//! For a region R with merge M, and an exit X → M from inside construct C:
//! 1. X sets R's flag and jumps to C's own exit instead (an `if`'s merge, a loop's merge);
//! 2. wherever control continues after C — at C's merge — a guard tests the flag: inside a
//!    loop it breaks out; inside an `if` or R itself it skips the rest (`if (!flag) {rest}`,
//!    the rest then meets the skipping path at a new block J just before the enclosing merge);
//!    an unreached merge (both ways out of C already left) simply jumps on;
//! 3. constructs are handled innermost first, up to R, and R's annotation is removed.
//!
//! Values M receives as parameters go through locals, so the redirected paths need not carry
//! them; mem2reg turns the flag and these locals back into SSA values.

use crate::analysis::regions::{Construct, Regions};
use crate::func::{BlockId, Edge, Function, Structure, Terminator};
use crate::inst::{Op, Operand};
use crate::types::Ty;

/// Removes every `Region`, making its exits structured. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let mut changed = split_conditional_exits(f);
    loop {
        let regions = Regions::new(f);
        let innermost = regions
            .constructs
            .iter()
            .filter(|c| matches!(c.structure, Structure::Region { .. }))
            .max_by_key(|c| regions.doms.depth(c.header))
            .copied();
        let Some(r) = innermost else {
            // Regions whose header is unreachable: just drop the annotation.
            for &b in &f.layout.clone() {
                if matches!(f.blocks[b].structure, Some(Structure::Region { .. })) {
                    f.blocks[b].structure = None;
                    changed = true;
                }
            }
            return changed;
        };
        lower_region(f, &regions, r);
        changed = true;
    }
}

/// Gives every conditional branch into a region's merge a block of its own on that edge, so
/// that an exit is always a block that jumps to the merge (and the flag it sets, and the
/// values it passes, are set on that path only). The front end makes such blocks (a `break`
/// is a block); after jump threading, a region made later (the `once` pass) may lack them.
fn split_conditional_exits(f: &mut Function) -> bool {
    let merges: Vec<BlockId> = f
        .layout
        .iter()
        .filter_map(|&b| match f.blocks[b].structure {
            Some(Structure::Region { merge }) => Some(merge),
            _ => None,
        })
        .collect();
    let mut changed = false;
    for b in f.layout.clone() {
        if !matches!(f.blocks[b].term, Terminator::Branch { .. }) {
            continue;
        }
        let span = f.blocks[b].span;
        let edges: Vec<(usize, Edge)> = f.blocks[b]
            .term
            .edges_mut()
            .into_iter()
            .enumerate()
            .filter(|(_, e)| merges.contains(&e.target))
            .map(|(i, e)| (i, e.clone()))
            .collect();
        for (i, edge) in edges {
            let exit = f.new_block(span);
            f.blocks[exit].term = Terminator::Jump(edge);
            if let Some(e) = f.blocks[b].term.edges_mut().into_iter().nth(i) {
                *e = Edge::to(exit);
            }
            changed = true;
        }
    }
    changed
}

fn lower_region(f: &mut Function, regions: &Regions, r: Construct) {
    let m = r.merge();
    // Exits from nested constructs.
    let mut exits: Vec<(BlockId, Construct)> = Vec::new();
    for &x in &f.layout {
        if !regions.doms.reachable(x) || !regions.contains(&r, x) {
            continue;
        }
        if !f.blocks[x].term.successors().contains(&m) {
            continue;
        }
        // A construct that merges where the region does (the test of a loop demoted by the
        // `once` pass) is the region's own level: reaching its merge is leaving the region.
        match regions.innermost(x, None) {
            Some(c) if c.header != r.header && c.merge() != m => exits.push((x, c)),
            _ => {}
        }
    }
    f.blocks[r.header].structure = None;
    if exits.is_empty() {
        return;
    }
    let span = f.blocks[r.header].span;
    values_through_locals(f, &regions.doms, r.header);
    demote_params(f, m);
    let flag = f.add_local(Ty::bool(1), "exit");
    let no = f.create_inst(Op::Const([0; 4]), Vec::new(), &[Ty::bool(1)], span);
    let no_value = f.insts[no].results[0];
    let store = f.create_inst(
        Op::StoreLocal(flag),
        vec![Operand::new(no_value)],
        &[],
        span,
    );
    f.blocks[r.header].insts.splice(0..0, [no, store]);

    // The constructs between each exit and R, innermost first.
    let mut pending: Vec<Construct> = Vec::new();
    for &(x, c) in &exits {
        let yes = f.create_inst(Op::Const([1, 0, 0, 0]), Vec::new(), &[Ty::bool(1)], span);
        let yes_value = f.insts[yes].results[0];
        let set = f.create_inst(
            Op::StoreLocal(flag),
            vec![Operand::new(yes_value)],
            &[],
            span,
        );
        f.blocks[x].insts.extend([yes, set]);
        let target = c.merge();
        let args = zero_args(f, x, target);
        for e in f.blocks[x].term.edges_mut() {
            if e.target == m {
                *e = Edge {
                    target,
                    args: args.clone(),
                };
            }
        }
        let mut cur = Some(c);
        while let Some(k) = cur {
            if k.header == r.header || k.merge() == m {
                break;
            }
            if !pending.iter().any(|p| p.header == k.header) {
                pending.push(k);
            }
            cur = regions.parent(&k);
        }
    }
    pending.sort_by_key(|c| std::cmp::Reverse(regions.doms.depth(c.header)));
    for c in pending {
        let parent = regions.parent(&c).filter(|p| p.merge() != m).unwrap_or(r);
        continue_after(f, c, parent, r, flag);
    }
}

/// After construct `c` (inside `parent`), control continues at `c`'s merge: make it leave
/// `parent` when the flag is set.
fn continue_after(
    f: &mut Function,
    c: Construct,
    parent: Construct,
    region: Construct,
    flag: crate::func::LocalId,
) {
    let span = f.blocks[c.header].span;
    let mc = current_merge(f, c);
    let pm = current_merge(f, parent);
    let parent_is_loop =
        matches!(parent.structure, Structure::Loop { .. }) && parent.header != region.header;
    // A merge nothing reached before: every way out of `c` had left already; continue out.
    let block = &f.blocks[mc];
    if block.insts.is_empty() && block.term == Terminator::Unreachable && block.params.is_empty() {
        let args = zero_args(f, mc, pm);
        f.blocks[mc].term = Terminator::Jump(Edge { target: pm, args });
        return;
    }
    // A guard block G takes every edge into the merge from inside `c`.
    let doms = crate::analysis::cfg::Dominators::new(f);
    let g = f.new_block(span);
    let mut g_params = Vec::new();
    for &p in &f.blocks[mc].params.clone() {
        let ty = f.ty(p);
        g_params.push(f.add_param(g, ty));
    }
    for b in f.layout.clone() {
        if b == g || !doms.dominates(c.header, b) {
            continue;
        }
        let inside = !doms.dominates(mc, b) || b == c.header;
        if !inside {
            continue;
        }
        for e in f.blocks[b].term.edges_mut() {
            if e.target == mc {
                e.target = g;
            }
        }
    }
    set_merge(f, c.header, g);
    let load = f.create_inst(Op::LoadLocal(flag), Vec::new(), &[Ty::bool(1)], span);
    let set = Operand::new(f.insts[load].results[0]);
    f.blocks[g].insts.push(load);
    let forward = Edge {
        target: mc,
        args: g_params.iter().map(|&p| Operand::new(p)).collect(),
    };
    // G leads on to the merge before the dominators below are computed: without the edge,
    // the merge and all after it would look unreachable.
    f.blocks[g].term = Terminator::Jump(forward.clone());
    if parent_is_loop {
        // Inside a loop: break out when the flag is set.
        let args = zero_args(f, g, pm);
        f.blocks[g].term = Terminator::Branch {
            cond: set,
            then: Edge { target: pm, args },
            otherwise: forward,
        };
        f.blocks[g].structure = Some(Structure::If { merge: mc });
    } else {
        // Inside an `if` or the region: skip the rest up to a new block J before the
        // parent's merge.
        let doms = crate::analysis::cfg::Dominators::new(f);
        let j = f.new_block(span);
        let mut j_params = Vec::new();
        for &p in &f.blocks[pm].params.clone() {
            let ty = f.ty(p);
            j_params.push(f.add_param(j, ty));
        }
        for b in f.layout.clone() {
            if b == j || b == g || !doms.dominates(mc, b) {
                continue;
            }
            for e in f.blocks[b].term.edges_mut() {
                if e.target == pm {
                    e.target = j;
                }
            }
        }
        f.blocks[j].term = Terminator::Jump(Edge {
            target: pm,
            args: j_params.iter().map(|&p| Operand::new(p)).collect(),
        });
        let args = zero_args(f, g, j);
        f.blocks[g].term = Terminator::Branch {
            cond: set,
            then: Edge { target: j, args },
            otherwise: forward,
        };
        f.blocks[g].structure = Some(Structure::If { merge: j });
    }
}

/// A construct's merge as its header says now (guards move merges).
fn current_merge(f: &Function, c: Construct) -> BlockId {
    match f.blocks[c.header].structure {
        Some(
            Structure::If { merge } | Structure::Loop { merge, .. } | Structure::Region { merge },
        ) => merge,
        // The region being lowered has lost its annotation already.
        None => c.merge(),
    }
}

fn set_merge(f: &mut Function, header: BlockId, merge: BlockId) {
    if let Some(s) = &mut f.blocks[header].structure {
        match s {
            Structure::If { merge: m }
            | Structure::Loop { merge: m, .. }
            | Structure::Region { merge: m } => *m = merge,
        }
    }
}

/// Zero arguments for every parameter of `target`, made at the end of `block`.
fn zero_args(f: &mut Function, block: BlockId, target: BlockId) -> Vec<Operand> {
    let tys: Vec<Ty> = f.blocks[target].params.iter().map(|&p| f.ty(p)).collect();
    tys.into_iter()
        .map(|ty| {
            let span = f.blocks[block].span;
            Operand::new(f.ins(block, Op::Const([0; 4]), Vec::new(), ty, span))
        })
        .collect()
}

/// Every value defined inside the region (in a block `header` dominates) and used in another
/// block goes through a local: stored where it is defined, loaded at the start of each block
/// that uses it. The guards this pass adds reroute paths, so a definition need not dominate
/// its uses any more; through locals, mem2reg rebuilds SSA with the right parameters. (The
/// front end's own values are locals already; SSA input, like `spirv-opt -O`'s, is not.)
pub(crate) fn values_through_locals(
    f: &mut Function,
    doms: &crate::analysis::cfg::Dominators,
    header: BlockId,
) {
    use crate::func::{LocalId, Value};
    use crate::hash::HashMap;
    let mut defined_in: HashMap<Value, BlockId> = HashMap::default();
    for &b in &f.layout {
        if !doms.dominates(header, b) {
            continue;
        }
        for &p in &f.blocks[b].params {
            defined_in.insert(p, b);
        }
        for &i in &f.blocks[b].insts {
            for &v in &f.insts[i].results {
                defined_in.insert(v, b);
            }
        }
    }
    // The values used outside their block, in first-use order.
    let mut crossing: Vec<Value> = Vec::new();
    let mut locals: HashMap<Value, LocalId> = HashMap::default();
    for b in f.layout.clone() {
        let mut used: Vec<Value> = f.blocks[b]
            .insts
            .iter()
            .flat_map(|&i| f.insts[i].args.iter().map(|a| a.value))
            .collect();
        used.extend(f.blocks[b].term.operands().iter().map(|a| a.value));
        for v in used {
            if defined_in.get(&v).is_some_and(|&d| d != b) && !locals.contains_key(&v) {
                let ty = f.ty(v);
                let l = f.add_local(ty, "crossing");
                locals.insert(v, l);
                crossing.push(v);
            }
        }
    }
    if crossing.is_empty() {
        return;
    }
    // Stores after each definition.
    for &v in &crossing {
        let b = defined_in[&v];
        let at = f.blocks[b]
            .insts
            .iter()
            .position(|&i| f.insts[i].results.contains(&v))
            .map_or(0, |k| k + 1);
        let span = f.blocks[b].span;
        let store = f.create_inst(Op::StoreLocal(locals[&v]), vec![Operand::new(v)], &[], span);
        f.blocks[b].insts.insert(at, store);
    }
    // Loads at the start of each other block that reads one.
    for b in f.layout.clone() {
        let mut loaded: HashMap<Value, Value> = HashMap::default();
        let mut reads: Vec<Value> = f.blocks[b]
            .insts
            .iter()
            .flat_map(|&i| f.insts[i].args.iter().map(|a| a.value))
            .collect();
        reads.extend(f.blocks[b].term.operands().iter().map(|a| a.value));
        let span = f.blocks[b].span;
        let mut loads = Vec::new();
        for v in reads {
            if defined_in.get(&v).is_some_and(|&d| d != b) && !loaded.contains_key(&v) {
                let ty = f.ty(v);
                let load = f.create_inst(Op::LoadLocal(locals[&v]), Vec::new(), &[ty], span);
                loaded.insert(v, f.insts[load].results[0]);
                loads.push(load);
            }
        }
        if loaded.is_empty() {
            continue;
        }
        for &i in &f.blocks[b].insts.clone() {
            // The stores just added read their own block's values, never a loaded one.
            for a in &mut f.insts[i].args {
                if let Some(&n) = loaded.get(&a.value) {
                    a.value = n;
                }
            }
        }
        for a in f.blocks[b].term.operands_mut() {
            if let Some(&n) = loaded.get(&a.value) {
                a.value = n;
            }
        }
        f.blocks[b].insts.splice(0..0, loads);
    }
}

/// Passes `m`'s parameters through locals instead: every edge stores its arguments, `m`
/// loads them.
fn demote_params(f: &mut Function, m: BlockId) {
    let params = std::mem::take(&mut f.blocks[m].params);
    if params.is_empty() {
        return;
    }
    let span = f.blocks[m].span;
    let locals: Vec<_> = params
        .iter()
        .map(|&p| f.add_local(f.ty(p), "merged"))
        .collect();
    for b in f.layout.clone() {
        let mut stores = Vec::new();
        for e in f.blocks[b].term.edges_mut() {
            if e.target == m {
                for (arg, &l) in std::mem::take(&mut e.args).into_iter().zip(&locals) {
                    stores.push((l, arg));
                }
            }
        }
        for (l, arg) in stores {
            let s = f.create_inst(Op::StoreLocal(l), vec![arg], &[], span);
            f.blocks[b].insts.push(s);
        }
    }
    let mut loads = Vec::new();
    for (&p, &l) in params.iter().zip(&locals) {
        let ty = f.ty(p);
        let load = f.create_inst(Op::LoadLocal(l), Vec::new(), &[ty], span);
        let v = f.insts[load].results[0];
        loads.push(load);
        f.replace_uses(p, Operand::new(v));
    }
    f.blocks[m].insts.splice(0..0, loads);
}
