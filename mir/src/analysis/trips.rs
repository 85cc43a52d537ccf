//! Trip counts: whether a loop runs a number of times known at compile time, and how many.
//!
//! A loop qualifies when it leaves only through one conditional branch that runs on every
//! iteration (its block dominates the continue block), its only back edge comes from the
//! continue block, and the branch's condition can be computed from constants alone,
//! iteration by iteration (a `for (int i = 0; i < 4; i++)` counter). The iterations are
//! simulated with the interpreter's semantics. The unroller ([`crate::passes::unroll`])
//! copies such loops out; back ends run them a counted number of times.

use crate::hash::{HashMap, HashSet};

use crate::analysis::cfg::Dominators;
use crate::analysis::regions::Regions;
use crate::eval::{Lanes, apply};
use crate::func::{BlockId, Function, Structure, Terminator, Value};
use crate::inst::{Op, Operand};
use crate::types::Kind;

/// A loop: its header, merge and continue blocks, its blocks in layout order, and the
/// header's predecessors.
pub(crate) struct Shape<'a> {
    pub(crate) header: BlockId,
    pub(crate) merge: BlockId,
    pub(crate) cont: BlockId,
    pub(crate) blocks: &'a [BlockId],
    pub(crate) preds: &'a [BlockId],
}

/// The trip count of the loop headed by `header` (at most `max`), when it qualifies as for
/// unrolling (one exit, from a branch that runs every iteration, decided by constants
/// alone), with the block holding that branch. Back ends use it to run a loop a counted
/// number of times without testing its condition.
pub fn trip_count(f: &Function, header: BlockId, max: u32) -> Option<(u32, BlockId)> {
    planned(f, header, max, false).map(|plan| (plan.trips, plan.exit_block))
}

/// The most trips the loop headed by `header` makes (at most `max`): [`trip_count`] for a
/// loop that may also leave early, through breaks to its merge besides its counter test
/// (the exit branch that runs every iteration). A break only shortens the loop.
pub fn max_trips(f: &Function, header: BlockId, max: u32) -> Option<u32> {
    planned(f, header, max, true).map(|plan| plan.trips)
}

/// The plan of the loop headed by `header` on a fresh analysis (see [`plan_with`]).
fn planned(f: &Function, header: BlockId, max: u32, breaks: bool) -> Option<Plan> {
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
    let preds = f.predecessors();
    let shape = Shape {
        header,
        merge,
        cont,
        blocks: &blocks,
        preds: &preds[header.index()],
    };
    plan_with(f, &regions.doms, &shape, max, usize::MAX, 0, breaks)
}

/// What unrolling a loop needs to know.
pub(crate) struct Plan {
    /// How many times the body runs.
    pub(crate) trips: u32,
    /// The block with the exit branch, and whether its `then` edge stays in the loop.
    pub(crate) exit_block: BlockId,
    pub(crate) stay_on_true: bool,
    /// The continue block (the only back-edge source).
    pub(crate) cont: BlockId,
}

/// Whether the loop qualifies, and how many trips it makes; `count` is the function's
/// instruction count now.
pub(crate) fn plan(
    f: &Function,
    doms: &Dominators,
    shape: &Shape,
    max_trips: u32,
    max_insts: usize,
    count: usize,
) -> Option<Plan> {
    plan_with(f, doms, shape, max_trips, max_insts, count, false)
}

/// [`plan`]; with `breaks`, other exits to the merge are allowed beside the counter test (the
/// exit that dominates the continue block), and the trips are the most the loop makes.
fn plan_with(
    f: &Function,
    doms: &Dominators,
    shape: &Shape,
    max_trips: u32,
    max_insts: usize,
    count: usize,
    breaks: bool,
) -> Option<Plan> {
    let &Shape {
        header,
        merge,
        cont,
        blocks,
        preds,
    } = shape;
    let inside: HashSet<BlockId> = blocks.iter().copied().collect();
    // Exactly one edge leaves the loop, from a branch that runs every iteration.
    let mut exit = None;
    let mut exits = Vec::new();
    for &b in blocks {
        for s in f.blocks[b].term.successors() {
            if !inside.contains(&s) {
                if s != merge || (exit.is_some() && !breaks) {
                    return None;
                }
                exit = Some(b);
                exits.push(b);
            }
        }
        // The only back edge comes from the continue block.
        if b != cont && f.blocks[b].term.successors().contains(&header) {
            return None;
        }
    }
    // With breaks: the counter test is the exit on every iteration's way to the others.
    let exit_block = if breaks {
        exits
            .iter()
            .copied()
            .find(|&t| doms.dominates(t, cont) && exits.iter().all(|&x| doms.dominates(t, x)))?
    } else {
        exit?
    };
    if !doms.dominates(exit_block, cont) {
        return None;
    }
    let Terminator::Branch { cond, then, .. } = &f.blocks[exit_block].term else {
        return None;
    };
    let stay_on_true = then.target != merge;
    // Simulate: values known from constants and the header's parameters.
    let outside_edge = preds.iter().find(|p| !inside.contains(p))?;
    let entry_args = edge_to(f, *outside_edge, header)?;
    let Terminator::Jump(back) = &f.blocks[cont].term else {
        return None;
    };
    if back.target != header {
        return None;
    }
    let mut defined: HashSet<Value> = HashSet::default();
    for &b in blocks {
        defined.extend(f.blocks[b].params.iter().copied());
        for &i in &f.blocks[b].insts {
            defined.extend(f.insts[i].results.iter().copied());
        }
    }
    let mut known: HashMap<Value, Lanes> = HashMap::default();
    let mut params: Vec<Option<Lanes>> = entry_args.iter().map(|a| read(f, &known, a)).collect();
    let mut trips = 0;
    loop {
        known.retain(|v, _| !defined.contains(v));
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
                            | Op::InstanceIndex
                            | Op::FragCoord
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
    if count.saturating_add(size.saturating_mul(trips as usize)) > max_insts {
        return None;
    }
    Some(Plan {
        trips,
        exit_block,
        stay_on_true,
        cont,
    })
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
        .or_else(|| crate::analysis::constants::constant(f, &Operand::new(op.value)))?;
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
