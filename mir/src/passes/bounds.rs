//! Loops bounded by an array: `for (int i = 0; i < lightCount; ++i)` over
//! `uniform Light lights[4]` runs at most four times, as every iteration reads `lights[i]`.
//! For targets without a loop instruction (AGAL), such a loop gets a constant test in front
//! of its own (`i < 4`, then `i < lightCount` as a break), so that [`super::breaks`]
//! predicates the iterations past `lightCount` and the loop unrolls four times.
//!
//! A loop qualifies when its counter test (the exit that dominates the continue block and
//! every other exit) compares a counter (a header parameter entered with a constant and
//! stepped by a constant in the continue block) with a value not known at compile time,
//! and an instruction that runs on every iteration reads a uniform array by an index
//! computed from the counter: the array (the uniform read, or the uniforms named `name[k]…`
//! for an array of structures) bounds the count, as reading past it is undefined in GLSL.

use crate::analysis::cfg::Dominators;
use crate::analysis::regions::{Construct, Regions};
use crate::eval::{Lanes, apply};
use crate::func::{BlockId, Edge, Function, Structure, Terminator, Value, ValueDef};
use crate::inst::{CmpOp, Op, Operand};
use crate::module::Module;
use crate::types::Ty;

/// The most iterations looked for.
const MAX_TRIPS: u32 = 256;

/// Gives every qualifying loop its array's bound. Returns whether anything changed.
pub fn run(m: &mut Module) -> bool {
    let mut changed = back_edges_alone(&mut m.function);
    changed |= isolate_steps(&mut m.function);
    // One loop at a time, each on a fresh analysis.
    let mut done: Vec<BlockId> = Vec::new();
    loop {
        let regions = Regions::new(&m.function);
        let found = regions.constructs.iter().find_map(|l| {
            if done.contains(&l.header) || !matches!(l.structure, Structure::Loop { .. }) {
                return None;
            }
            plan(m, &regions, *l).map(|p| (*l, p))
        });
        let Some((l, p)) = found else {
            return changed;
        };
        done.push(l.header);
        bound(&mut m.function, &p);
        changed = true;
    }
}

/// Gives each `do { } while (c)` loop (whose continue block tests and branches back or out)
/// a continue block of its own that only jumps back: the test is then an exit inside the
/// iteration, and `unroll` counts its trips like a `for` loop's. Returns whether anything
/// changed.
pub(super) fn back_edges_alone(f: &mut Function) -> bool {
    let regions = Regions::new(f);
    let mut changed = false;
    for l in &regions.constructs {
        let Structure::Loop { merge, cont } = l.structure else {
            continue;
        };
        let Terminator::Branch {
            then, otherwise, ..
        } = &f.blocks[cont].term
        else {
            continue;
        };
        let targets = [then.target, otherwise.target];
        if !(targets.contains(&l.header) && targets.contains(&merge)) {
            continue;
        }
        // A loop of one block (spirv-opt's `do { } while`): its body moves to a block of
        // its own after the header, which keeps the parameters and the loop annotation.
        let cont = if cont == l.header {
            f.split_block(l.header, 0)
        } else {
            cont
        };
        if f.blocks[cont].structure.is_some() {
            continue;
        }
        let span = f.blocks[cont].span;
        let back = f.new_block(span);
        let Terminator::Branch {
            then, otherwise, ..
        } = &mut f.blocks[cont].term
        else {
            continue;
        };
        let e = if then.target == l.header {
            then
        } else {
            otherwise
        };
        let args = std::mem::take(&mut e.args);
        e.target = back;
        f.blocks[back].term = Terminator::Jump(Edge {
            target: l.header,
            args,
        });
        f.blocks[cont].structure = Some(Structure::If { merge: back });
        f.blocks[l.header].structure = Some(Structure::Loop { merge, cont: back });
        changed = true;
    }
    changed
}

/// Leaves each loop's continue block only the stepping of its counters (`p + constant`
/// passed back as `p`): the rest of what it computes (`spirv-opt` merges a loop's body into
/// its continue block) moves into a block of the iteration before it. An iteration can then
/// be skipped or predicated off without skipping the count. Returns whether anything
/// changed.
pub(super) fn isolate_steps(f: &mut Function) -> bool {
    let regions = Regions::new(f);
    let uses = f.use_counts();
    let mut changed = false;
    for l in &regions.constructs {
        let Structure::Loop { merge, cont } = l.structure else {
            continue;
        };
        if cont == l.header || !f.blocks[cont].params.is_empty() {
            continue;
        }
        let Terminator::Jump(back) = &f.blocks[cont].term else {
            continue;
        };
        if back.target != l.header {
            continue;
        }
        let header_params = &f.blocks[l.header].params;
        let is_step = |i: crate::func::InstId| {
            let inst = &f.insts[i];
            let Some(r) = inst.result() else { return false };
            let Some(k) = back.args.iter().position(|a| a.value == r) else {
                return false;
            };
            let plain = |a: &Operand| !a.neg && !a.abs;
            inst.op == Op::Add
                && uses.get(&r) == Some(&1)
                && plain(&back.args[k])
                && inst
                    .args
                    .iter()
                    .any(|a| Some(&a.value) == header_params.get(k) && plain(a))
                && inst
                    .args
                    .iter()
                    .any(|a| crate::analysis::constants::constant(f, a).is_some())
        };
        let insts = f.blocks[cont].insts.clone();
        let steps: Vec<_> = insts.iter().copied().filter(|&i| is_step(i)).collect();
        if steps.len() == insts.len() {
            continue;
        }
        let span = f.blocks[cont].span;
        let counting = f.new_block(span);
        f.blocks[cont].insts.retain(|i| !steps.contains(i));
        f.blocks[counting].insts = steps;
        let term = std::mem::replace(
            &mut f.blocks[cont].term,
            Terminator::Jump(Edge::to(counting)),
        );
        f.blocks[counting].term = term;
        f.blocks[l.header].structure = Some(Structure::Loop {
            merge,
            cont: counting,
        });
        changed = true;
    }
    changed
}

/// What to do with a loop.
struct Plan {
    /// The counter test.
    test: BlockId,
    /// The counter.
    counter: Value,
    /// The counter's value when the bound stops the loop.
    stop: f32,
    /// Whether the counter grows (else it falls).
    up: bool,
    /// Whether the old test, once it leaves, leaves on every later iteration too (`i >= n`
    /// for a growing counter and a loop-invariant `n`): it can then skip the iteration
    /// instead of breaking, with no flag to carry.
    monotone: bool,
    /// The loop's continue block.
    cont: BlockId,
}

fn plan(m: &Module, regions: &Regions, l: Construct) -> Option<Plan> {
    let f = &m.function;
    let Structure::Loop { merge, cont } = l.structure else {
        return None;
    };
    let doms = &regions.doms;
    let (_, test) = super::breaks::exits_and_test(f, regions, l)?;
    if test == cont || cont == l.header {
        return None;
    }
    match f.blocks[test].structure {
        Some(Structure::If { .. }) => {}
        Some(Structure::Loop { .. }) if test == l.header => {}
        _ => return None,
    }
    let Terminator::Branch { cond, then, .. } = &f.blocks[test].term else {
        return None;
    };
    let exit_on_true = then.target == merge;
    let def = f.def_inst(cond.value)?;
    let Op::Cmp(op) = def.op else { return None };
    // One side is a counter, the other unknown.
    let counter = def.args.iter().find_map(|a| {
        let is_param = matches!(f.values[a.value].def, ValueDef::Param(b, _) if b == l.header);
        (is_param && !a.neg && !a.abs).then_some(a.value)
    })?;
    let other = def.args.iter().find(|a| a.value != counter)?;
    if crate::analysis::constants::constant(f, &Operand::new(other.value)).is_some() {
        // A constant bound: `unroll` counts it.
        return None;
    }
    let (start, step) = counter_steps(f, l, cont, counter)?;
    // The exit as a test of the counter: `counter <op> other`.
    let op = if def.args[0].value == counter {
        op
    } else {
        op.swapped()
    };
    let leaves = if exit_on_true { op } else { op.inverted() };
    let invariant = f.def_inst(other.value).is_some_and(|d| {
        matches!(d.op, Op::LoadUniform { .. } | Op::LoadInput(_)) && d.args.is_empty()
    });
    let monotone = invariant
        && if step > 0.0 {
            matches!(leaves, CmpOp::Ge | CmpOp::Gt)
        } else {
            matches!(leaves, CmpOp::Le | CmpOp::Lt)
        };
    // The array reads that run on every iteration, and the bound each gives.
    let mut trips: Option<u32> = None;
    for &b in &f.layout {
        if !doms.reachable(b) || !regions.contains(&l, b) || !doms.dominates(b, cont) {
            continue;
        }
        // Only reads after the test (the iterations the test lets through).
        if !doms.dominates(test, b) || b == test {
            continue;
        }
        for &i in &f.blocks[b].insts {
            let inst = &f.insts[i];
            let Op::LoadUniform { register } = inst.op else {
                continue;
            };
            let Some(index) = inst.args.first() else {
                continue;
            };
            let Some((first, last)) = array_of(m, register) else {
                continue;
            };
            // The first trip whose index leaves the array.
            let mut value = start;
            for t in 0..MAX_TRIPS {
                let Some(k) = evaluate(f, index, counter, value) else {
                    break;
                };
                let reg = register as f32 + k.floor();
                if reg < first as f32 || reg > last as f32 || !k.is_finite() {
                    trips = Some(trips.map_or(t, |x| x.min(t)));
                    break;
                }
                value += step;
            }
        }
    }
    let trips = trips?;
    Some(Plan {
        test,
        counter,
        stop: start + step * trips as f32,
        up: step > 0.0,
        monotone,
        cont,
    })
}

/// The counter's first value and step: entered with a constant, and the continue block
/// passes it plus a constant back to the header.
fn counter_steps(f: &Function, l: Construct, cont: BlockId, counter: Value) -> Option<(f32, f32)> {
    let ValueDef::Param(_, k) = f.values[counter].def else {
        return None;
    };
    let k = k as usize;
    let doms = Dominators::new(f);
    let mut start = None;
    let mut step = None;
    for &b in &f.layout {
        for e in f.blocks[b].term.edges() {
            if e.target != l.header {
                continue;
            }
            let arg = e.args.get(k)?;
            if b == cont {
                let def = f.def_inst(arg.value)?;
                if def.op != Op::Add || arg.neg || arg.abs {
                    return None;
                }
                let s = def.args.iter().find(|a| a.value != counter)?;
                if !def
                    .args
                    .iter()
                    .any(|a| a.value == counter && !a.neg && !a.abs)
                {
                    return None;
                }
                let c = crate::analysis::constants::constant(f, s)?;
                step = Some(c[0]);
            } else if doms.dominates(l.header, b) {
                // Another back edge.
                return None;
            } else {
                let c = crate::analysis::constants::constant(f, arg)?[0];
                if start.is_some_and(|s| s != c) {
                    return None;
                }
                start = Some(c);
            }
        }
    }
    let step = step.filter(|s| *s != 0.0 && s.is_finite())?;
    Some((start?, step))
}

/// The uniform array holding `register`: the registers of the uniform holding it (an array
/// of vectors or a matrix is one uniform), or of every uniform named `name[k]…` when it is
/// a member of an array of structures.
fn array_of(m: &Module, register: u32) -> Option<(u32, u32)> {
    let range = |x: &crate::module::Uniform| (x.register, x.register + x.count.max(1) - 1);
    let u = m.uniforms.iter().find(|u| {
        let (first, last) = range(u);
        (first..=last).contains(&register)
    })?;
    let Some(open) = u.name.find('[') else {
        return Some(range(u));
    };
    let prefix = &u.name[..=open];
    let members = m.uniforms.iter().filter(|x| x.name.starts_with(prefix));
    let (first, last) = members.fold((u32::MAX, 0), |(lo, hi), x| {
        let (a, b) = range(x);
        (lo.min(a), hi.max(b))
    });
    Some((first, last))
}

/// Operand `op` (lane 0) with the counter at `value`, when it is computed from the counter
/// and constants alone.
fn evaluate(f: &Function, op: &Operand, counter: Value, value: f32) -> Option<f32> {
    fn go(f: &Function, v: Value, counter: Value, value: f32, depth: u32) -> Option<Lanes> {
        if v == counter {
            return Some([value; 4]);
        }
        if let Some(c) = crate::analysis::constants::constant(f, &Operand::new(v)) {
            return Some(c);
        }
        let def = f.def_inst(v)?;
        if depth > 8 || def.results.len() != 1 {
            return None;
        }
        let mut args = Vec::new();
        for a in &def.args {
            let raw = go(f, a.value, counter, value, depth + 1)?;
            args.push(std::array::from_fn(|l| {
                let mut x = raw[a.swizzle.0[l] as usize & 3];
                if a.abs {
                    x = x.abs();
                }
                if a.neg {
                    x = -x;
                }
                x
            }));
        }
        apply(f, None, def, &args)
    }
    let raw = go(f, op.value, counter, value, 0)?;
    let mut x = raw[op.swizzle.0[0] as usize & 3];
    if op.abs {
        x = x.abs();
    }
    if op.neg {
        x = -x;
    }
    Some(x)
}

/// Makes the old test skip the rest of the iteration instead of leaving (it leaves on
/// every later iteration too, so the iterations it skips are the loop's last): a join J
/// before the continue block takes the iteration's values, or the header's unchanged ones
/// from the skip. Left a break when the continue block reads what the iteration computes
/// other than to pass it back to the header.
fn skip_instead(f: &mut Function, p: &Plan, old: BlockId, merge: BlockId) {
    use crate::hash::HashSet;
    let cont = p.cont;
    let span = f.blocks[old].span;
    let Terminator::Jump(back) = f.blocks[cont].term.clone() else {
        return;
    };
    let header = back.target;
    if !f.blocks[cont].params.is_empty() || back.args.len() != f.blocks[header].params.len() {
        return;
    }
    let doms = Dominators::new(f);
    // The iteration: the blocks `old` dominates (the continue block is not among them
    // until the iteration's values are its parameters).
    let iteration: HashSet<BlockId> = f
        .layout
        .iter()
        .copied()
        .filter(|&b| doms.reachable(b) && doms.dominates(old, b) && b != cont)
        .filter(|&b| !doms.dominates(merge, b))
        .collect();
    let mut computed: HashSet<crate::func::Value> = HashSet::default();
    for &b in &iteration {
        computed.extend(f.blocks[b].params.iter().copied());
        for &i in &f.blocks[b].insts {
            computed.extend(f.insts[i].results.iter().copied());
        }
    }
    let reads_iteration = f.blocks[cont]
        .insts
        .iter()
        .any(|&i| f.insts[i].args.iter().any(|a| computed.contains(&a.value)));
    if reads_iteration || !doms.dominates(old, cont) {
        return;
    }
    // What the continue block computes is only the counting (see `isolate_steps`).
    let counts = f.blocks[cont].insts.iter().all(|&i| {
        let inst = &f.insts[i];
        inst.op == Op::Add
            && inst
                .result()
                .is_some_and(|r| back.args.iter().any(|a| a.value == r))
    });
    if !counts {
        return;
    }
    // The header arguments the iteration computes go through J.
    let carried: Vec<usize> = back
        .args
        .iter()
        .enumerate()
        .filter(|(_, a)| computed.contains(&a.value))
        .map(|(k, _)| k)
        .collect();
    let j = f.new_block(span);
    let j_params: Vec<crate::func::Value> = carried
        .iter()
        .map(|&k| {
            let ty = f.ty(back.args[k].value);
            f.add_param(j, ty)
        })
        .collect();
    for &b in &iteration {
        for e in f.blocks[b].term.edges_mut() {
            if e.target == cont {
                e.target = j;
                e.args = carried
                    .iter()
                    .map(|&k| Operand::new(back.args[k].value))
                    .collect();
            }
        }
    }
    for &b in &iteration {
        if let Some(Structure::If { merge: m } | Structure::Region { merge: m }) =
            &mut f.blocks[b].structure
        {
            if *m == cont {
                *m = j;
            }
        }
    }
    f.blocks[j].term = Terminator::Jump(Edge::to(cont));
    if let Terminator::Jump(e) = &mut f.blocks[cont].term {
        for (&k, &param) in carried.iter().zip(&j_params) {
            e.args[k] = Operand {
                value: param,
                ..e.args[k]
            };
        }
    }
    // The old test skips to J with the header's values.
    let skip = f.new_block(span);
    let unchanged: Vec<Operand> = carried
        .iter()
        .map(|&k| Operand::new(f.blocks[header].params[k]))
        .collect();
    f.blocks[skip].term = Terminator::Jump(Edge {
        target: j,
        args: unchanged,
    });
    if let Terminator::Branch {
        then, otherwise, ..
    } = &mut f.blocks[old].term
    {
        for e in [then, otherwise] {
            if e.target == merge {
                *e = Edge::to(skip);
            }
        }
    }
    f.blocks[old].structure = Some(Structure::If { merge: j });
}

/// Puts the constant test in front: the test block compares the counter with the bound and
/// goes on to a new block that holds the old test (now a break).
fn bound(f: &mut Function, p: &Plan) {
    let test = p.test;
    let span = f.blocks[test].span;
    let Terminator::Branch {
        cond,
        then,
        otherwise,
    } = f.blocks[test].term.clone()
    else {
        return;
    };
    let merge_of_loop = {
        let regions = Regions::new(f);
        regions
            .constructs
            .iter()
            .filter(|c| matches!(c.structure, Structure::Loop { .. }) && regions.contains(c, test))
            .max_by_key(|c| regions.doms.depth(c.header))
            .map(|c| c.merge())
    };
    let Some(merge) = merge_of_loop else { return };
    let (exit, on) = if then.target == merge {
        (then.clone(), otherwise.clone())
    } else {
        (otherwise.clone(), then.clone())
    };
    let old = f.new_block(span);
    // The old test, now after the bound: the `if` that merges where the iteration goes on.
    let structure = match f.blocks[test].structure {
        Some(Structure::If { merge }) => Some(Structure::If { merge }),
        _ => Some(Structure::If { merge: on.target }),
    };
    f.blocks[old].structure = structure;
    f.blocks[old].term = Terminator::Branch {
        cond,
        then,
        otherwise,
    };

    // The bound: leave once the counter reaches `stop`.
    let stop = f.ins(
        test,
        Op::float_const(&[p.stop]),
        Vec::new(),
        Ty::float(1),
        span,
    );
    let cmp = if p.up { CmpOp::Ge } else { CmpOp::Le };
    let done = f.ins(
        test,
        Op::Cmp(cmp),
        vec![Operand::new(p.counter), Operand::new(stop)],
        Ty::bool(1),
        span,
    );
    f.blocks[test].term = Terminator::Branch {
        cond: Operand::new(done),
        then: exit,
        otherwise: Edge::to(old),
    };
    // A loop header that tests keeps its loop annotation; the old test is its own `if`.
    if let Some(Structure::If { merge }) = &mut f.blocks[test].structure {
        *merge = old;
    }
    if p.monotone {
        skip_instead(f, p, old, merge);
    }
}
