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

use std::collections::{HashMap, HashSet};

use crate::cfg::Dominators;
use crate::eval::{Lanes, apply};
use crate::func::{BlockId, Function, Structure, Terminator, Value, ValueDef};
use crate::inst::{Op, Operand};
use crate::regions::Regions;
use crate::types::Kind;

/// Unrolls qualifying loops. Returns whether anything changed.
pub fn run(f: &mut Function, max_trips: u32, max_insts: usize) -> bool {
    let mut changed = false;
    let mut refused: HashSet<BlockId> = HashSet::new();
    loop {
        let regions = Regions::new(f);
        // Innermost loops first: a loop with no other loop header inside it.
        let loops: Vec<_> = regions
            .constructs
            .iter()
            .filter(|c| {
                matches!(c.structure, Structure::Loop { .. }) && !refused.contains(&c.header)
            })
            .copied()
            .collect();
        let innermost = loops.iter().find(|l| {
            !loops
                .iter()
                .any(|o| o.header != l.header && regions.contains(l, o.header))
        });
        let Some(l) = innermost.copied() else {
            return changed;
        };
        let Structure::Loop { merge, cont } = l.structure else {
            unreachable!("filtered")
        };
        let blocks: Vec<BlockId> = f
            .layout
            .iter()
            .copied()
            .filter(|&b| regions.contains(&l, b))
            .collect();
        match plan(
            f,
            &regions.doms,
            l.header,
            merge,
            cont,
            &blocks,
            max_trips,
            max_insts,
        ) {
            Some(plan) => {
                unroll(f, l.header, &blocks, plan);
                changed = true;
            }
            None => {
                refused.insert(l.header);
            }
        }
    }
}

/// The trip count of the loop headed by `header` (at most `max`), when it qualifies as for
/// unrolling (one exit, from a branch that runs every iteration, decided by constants
/// alone), with the block holding that branch. Back ends use it to run a loop a counted
/// number of times without testing its condition.
pub fn trip_count(f: &Function, header: BlockId, max: u32) -> Option<(u32, BlockId)> {
    let regions = Regions::new(f);
    let l = regions.constructs.iter().find(|c| c.header == header)?;
    let Structure::Loop { merge, cont } = l.structure else {
        return None;
    };
    let blocks: Vec<BlockId> = f
        .layout
        .iter()
        .copied()
        .filter(|&b| regions.contains(l, b))
        .collect();
    let plan = plan(
        f,
        &regions.doms,
        header,
        merge,
        cont,
        &blocks,
        max,
        usize::MAX,
    )?;
    Some((plan.trips, plan.exit_block))
}

/// What unrolling a loop needs to know.
struct Plan {
    /// How many times the body runs.
    trips: u32,
    /// The block with the exit branch, and whether its `then` edge stays in the loop.
    exit_block: BlockId,
    stay_on_true: bool,
    /// The continue block (the only back-edge source).
    cont: BlockId,
}

#[allow(clippy::too_many_arguments)]
fn plan(
    f: &Function,
    doms: &Dominators,
    header: BlockId,
    merge: BlockId,
    cont: BlockId,
    blocks: &[BlockId],
    max_trips: u32,
    max_insts: usize,
) -> Option<Plan> {
    let inside: HashSet<BlockId> = blocks.iter().copied().collect();
    // Exactly one edge leaves the loop, from a branch that runs every iteration.
    let mut exit = None;
    for &b in blocks {
        for s in f.blocks[b].term.successors() {
            if !inside.contains(&s) {
                if s != merge || exit.is_some() {
                    return None;
                }
                exit = Some(b);
            }
        }
        // The only back edge comes from the continue block.
        if b != cont && f.blocks[b].term.successors().contains(&header) {
            return None;
        }
    }
    let exit_block = exit?;
    if !doms.dominates(exit_block, cont) {
        return None;
    }
    let Terminator::Branch { cond, then, .. } = &f.blocks[exit_block].term else {
        return None;
    };
    let stay_on_true = then.target != merge;
    // Simulate: values known from constants and the header's parameters.
    let preds = f.predecessors();
    let outside_edge = preds[header.index()].iter().find(|p| !inside.contains(p))?;
    let entry_args = edge_to(f, *outside_edge, header)?;
    let Terminator::Jump(back) = &f.blocks[cont].term else {
        return None;
    };
    if back.target != header {
        return None;
    }
    let mut known: HashMap<Value, Lanes> = HashMap::new();
    let mut params: Vec<Option<Lanes>> = entry_args.iter().map(|a| read(f, &known, a)).collect();
    let mut trips = 0;
    loop {
        known.retain(|v, _| !defined_in(f, *v, &inside));
        for (&p, v) in f.blocks[header].params.iter().zip(&params) {
            if let Some(v) = v {
                known.insert(p, *v);
            }
        }
        for &b in blocks {
            for &i in &f.blocks[b].insts {
                let inst = &f.insts[i];
                let Some(r) = inst.result() else { continue };
                if !inst.op.is_pure()
                    || matches!(
                        inst.op,
                        Op::LoadUniform { .. }
                            | Op::LoadInput(_)
                            | Op::LoadBoolUniform { .. }
                            | Op::Sample { .. }
                    )
                {
                    continue;
                }
                let args: Option<Vec<Lanes>> =
                    inst.args.iter().map(|a| read(f, &known, a)).collect();
                if let Some(v) = args.and_then(|a| apply(f, None, inst, &a)) {
                    known.insert(r, v);
                }
            }
        }
        let c = read(f, &known, cond)?[0] != 0.0;
        if c != stay_on_true {
            break;
        }
        trips += 1;
        if trips > max_trips {
            return None;
        }
        params = back.args.iter().map(|a| read(f, &known, a)).collect();
    }
    let size: usize = blocks.iter().map(|&b| f.blocks[b].insts.len() + 1).sum();
    if f.inst_count()
        .saturating_add(size.saturating_mul(trips as usize))
        > max_insts
    {
        return None;
    }
    Some(Plan {
        trips,
        exit_block,
        stay_on_true,
        cont,
    })
}

fn defined_in(f: &Function, v: Value, inside: &HashSet<BlockId>) -> bool {
    match f.values[v].def {
        ValueDef::Param(b, _) => inside.contains(&b),
        ValueDef::Inst(i, _) => inside.iter().any(|&b| f.blocks[b].insts.contains(&i)),
    }
}

fn edge_to(f: &Function, from: BlockId, to: BlockId) -> Option<Vec<Operand>> {
    f.blocks[from]
        .term
        .edges()
        .into_iter()
        .find(|e| e.target == to)
        .map(|e| e.args.clone())
}

fn read(f: &Function, known: &HashMap<Value, Lanes>, op: &Operand) -> Option<Lanes> {
    let raw = known
        .get(&op.value)
        .copied()
        .or_else(|| super::fold::constant(f, &Operand::new(op.value)))?;
    let float = f.ty(op.value).kind == Kind::Float;
    Some(std::array::from_fn(|l| {
        let mut x = raw[op.swizzle.0[l] as usize & 3];
        if float {
            if op.abs {
                x = x.abs();
            }
            if op.neg {
                x = -x;
            }
        }
        x
    }))
}

/// Copies the loop once per trip (and once more for the final test).
fn unroll(f: &mut Function, header: BlockId, blocks: &[BlockId], plan: Plan) {
    let inside: HashSet<BlockId> = blocks.iter().copied().collect();
    let copies = plan.trips as usize + 1;
    let mut maps: Vec<(HashMap<BlockId, BlockId>, HashMap<Value, Value>)> =
        Vec::with_capacity(copies);
    for _ in 0..copies {
        let mut bmap = HashMap::new();
        for &b in blocks {
            let span = f.blocks[b].span;
            bmap.insert(b, f.new_block(span));
        }
        maps.push((bmap, HashMap::new()));
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
    for b in f.layout.clone() {
        if inside.contains(&b) {
            continue;
        }
        for e in f.blocks[b].term.edges_mut() {
            if e.target == header {
                e.target = first;
            }
        }
    }
    let last = maps[copies - 1].1.clone();
    for (&old, &new) in &last {
        f.replace_uses(old, Operand::new(new));
    }
    f.layout.retain(|b| !inside.contains(b));
    // The last copy's blocks after its exit branch are dead.
    super::order::run(f);
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
