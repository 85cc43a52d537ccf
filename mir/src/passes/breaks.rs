//! Predicated breaks: a loop that leaves early (`if (acc > limit) break;`, or a `return` the
//! `exits` pass made a break) becomes a loop with one exit, its counter test, so that a
//! constant trip count can still unroll it. For targets with no loop instruction (AGAL); a
//! target with `break` (the PICA200's `breakc`) keeps the loop as it is.
//!
//! For loop L (header H, merge M, continue C) whose exits are the counter test T (the exit
//! block that dominates C and every other exit) and breaks X₁ … Xₙ:
//! 1. a local `broken`, false when L is entered, is set true at each break, which stores the
//!    values it passes to M in locals and jumps to the end of the iteration instead;
//! 2. the iteration after T (from T's way on to C) is a `Region` whose merge C′ stands just
//!    before C; at its top a guard skips the iteration when `broken` is set, and each break
//!    is an exit from a construct nested in it, which the `exits` pass (run next) makes
//!    structured;
//! 3. T passes M `broken ? stored : its own` for each of M's parameters.
//!
//! Iterations after a break then do nothing but count, so the loop computes what it did;
//! `mem2reg` makes the locals values again. Loops are taken innermost first; a loop of
//! another shape is left alone (the target refuses it if it cannot run it).

use crate::analysis::cfg::Dominators;
use crate::analysis::regions::{Construct, Regions};
use crate::func::{BlockId, Edge, Function, Structure, Terminator, Value};
use crate::inst::{Op, Operand};
use crate::types::Ty;

/// Predicates the breaks of every loop of the right shape. Returns whether anything
/// changed; the caller runs `exits` and `mem2reg` after it.
pub fn run(f: &mut Function) -> bool {
    let mut changed = false;
    // One loop at a time, innermost first, each on a fresh analysis (a transformation adds
    // blocks); a transformed loop has one exit and no longer qualifies.
    loop {
        let regions = Regions::new(f);
        let mut loops: Vec<Construct> = regions
            .constructs
            .iter()
            .filter(|c| matches!(c.structure, Structure::Loop { .. }))
            .copied()
            .collect();
        loops.sort_by_key(|c| std::cmp::Reverse(regions.doms.depth(c.header)));
        let Some((l, shape)) = loops
            .into_iter()
            .find_map(|l| shape(f, &regions, l).map(|s| (l, s)))
        else {
            return changed;
        };
        let nested = regions
            .parent(&l)
            .is_some_and(|p| regions.in_loop(p.header));
        predicate(f, l, shape);
        // An enclosing loop's shape is read from SSA values: the locals this one's
        // predication made (crossing values, in the enclosing continue block too) go first.
        // Only then: on a top-level loop it would cost a pass over the function each.
        if nested {
            super::exits::run(f);
            super::mem2reg::run(f);
        }
        changed = true;
    }
}

/// A loop's exits.
struct Shape {
    /// The counter test: the exit block that dominates the continue block and the others.
    test: BlockId,
    /// Every other block with an edge to the merge.
    breaks: Vec<BlockId>,
}

/// Loop `l`'s exits (the blocks with an edge to its merge) and its counter test: the first
/// exit on every iteration's way, which dominates the continue block and every other exit.
pub(super) fn exits_and_test(
    f: &Function,
    regions: &Regions,
    l: Construct,
) -> Option<(Vec<BlockId>, BlockId)> {
    let Structure::Loop { merge, cont } = l.structure else {
        return None;
    };
    let doms = &regions.doms;
    let exits: Vec<BlockId> = f
        .layout
        .iter()
        .copied()
        .filter(|&b| {
            doms.reachable(b)
                && regions.contains(&l, b)
                && f.blocks[b].term.successors().contains(&merge)
        })
        .collect();
    let test = exits
        .iter()
        .copied()
        .find(|&t| doms.dominates(t, cont) && exits.iter().all(|&x| doms.dominates(t, x)))?;
    Some((exits, test))
}

fn shape(f: &Function, regions: &Regions, l: Construct) -> Option<Shape> {
    let Structure::Loop { merge, cont } = l.structure else {
        return None;
    };
    let doms = &regions.doms;
    let (exits, test) = exits_and_test(f, regions, l)?;
    let breaks: Vec<BlockId> = exits.into_iter().filter(|&b| b != test).collect();
    // The continue block runs on skipped iterations too: it may only count (`bounds`
    // moves the rest of its work into the iteration where it can).
    let Terminator::Jump(back) = &f.blocks[cont].term else {
        return None;
    };
    let counts = f.blocks[cont].insts.iter().all(|&i| {
        let inst = &f.insts[i];
        inst.op == Op::Add
            && inst
                .result()
                .is_some_and(|r| back.args.iter().any(|a| a.value == r))
    });
    if !counts {
        return None;
    }
    // An exit in the continue construct (a `do { } while` test after a break) is the
    // loop's own test at its end, not a break: such a loop is left alone.
    if breaks.iter().any(|&x| doms.dominates(cont, x)) {
        return None;
    }
    // A loop whose header is its own continue block (`do { } while` in one block) has no
    // iteration to guard apart from the back edge: left alone.
    // A loop with neither breaks nor `continue`s (jumps to the continue block from inside a
    // construct nested in the body) already has one exit. One with `continue`s alone still
    // needs the iteration's region: each `continue` is an exit from it, which `exits` makes
    // structured.
    let continues = f.layout.iter().any(|&b| {
        doms.reachable(b)
            && regions.contains(&l, b)
            && b != cont
            && f.blocks[b].term.successors().contains(&cont)
            && regions
                .innermost(b, None)
                .is_some_and(|c| c.header != l.header)
    });
    if (breaks.is_empty() && !continues) || test == cont || cont == l.header {
        return None;
    }
    // The test branches: out to the merge, or on into the iteration. Its own `if` (if any)
    // must merge where the iteration goes on, so that the iteration can start there.
    let Terminator::Branch {
        then, otherwise, ..
    } = &f.blocks[test].term
    else {
        return None;
    };
    let on = if then.target == merge {
        otherwise.target
    } else {
        then.target
    };
    if on == merge {
        return None;
    }
    match f.blocks[test].structure {
        Some(Structure::If { merge: m }) if m == on => {}
        Some(Structure::Loop { .. }) if test == l.header => {}
        _ => return None,
    }
    // Breaks must be at most two-way branches or jumps; a break from an inner loop's
    // body cannot exist (its merge is the inner loop's).
    Some(Shape { test, breaks })
}

fn predicate(f: &mut Function, l: Construct, shape: Shape) {
    let Structure::Loop { merge, cont } = l.structure else {
        return;
    };
    let span = f.blocks[l.header].span;
    recount_in_continue(f, l.header, cont);
    // What the loop leaves to the code after it goes through the merge's parameters, so
    // that it is what the exit taken passed (step 3), not what the skipped iterations left.
    exits_as_params(f, l.header, merge);
    // What the loop carries that a break leaves as it is (read before the values go through
    // locals, below).
    let carried = carried_at_breaks(f, &l, &shape);
    // The paths change: values the loop defines go through locals, so that no use depends
    // on a definition dominating it (mem2reg rebuilds SSA after).
    let doms = Dominators::new(f);
    super::exits::values_through_locals(f, &doms, l.header);
    let inside = |_: &Function, b: BlockId| {
        doms.reachable(b) && doms.dominates(l.header, b) && !doms.dominates(merge, b)
    };

    // 1. `broken`, false on entry (in each block that enters the loop from outside).
    let broken = f.add_local(Ty::bool(1), "broken");
    for b in f.layout.clone() {
        if inside(f, b) || !f.blocks[b].term.successors().contains(&l.header) {
            continue;
        }
        let no = f.create_inst(Op::Const([0; 4]), Vec::new(), &[Ty::bool(1)], span);
        let v = f.insts[no].results[0];
        let store = f.create_inst(Op::StoreLocal(broken), vec![Operand::new(v)], &[], span);
        f.blocks[b].insts.extend([no, store]);
    }
    let exit_tys: Vec<Ty> = f.blocks[merge].params.iter().map(|&p| f.ty(p)).collect();
    // A local for each value the breaks pass that the loop does not carry on as it is.
    let stored: Vec<Option<_>> = exit_tys
        .iter()
        .zip(&carried)
        .map(|(&ty, c)| c.is_none().then(|| f.add_local(ty, "break_value")))
        .collect();

    // 2. C′ before C: every edge into C from the loop goes to C′.
    let c2 = f.new_block(span);
    let c_params: Vec<Ty> = f.blocks[cont].params.iter().map(|&p| f.ty(p)).collect();
    let c2_params: Vec<Operand> = c_params
        .iter()
        .map(|&ty| Operand::new(f.add_param(c2, ty)))
        .collect();
    // Unreachable blocks too: an `if`'s merge that folding left unreached (`if (c) { …
    // continue; } … if (true) break;`) jumps on to C, and becomes reachable again when
    // `exits` sends the construct's exits through it.
    for b in f.layout.clone() {
        if b == c2 || (doms.reachable(b) && !inside(f, b)) {
            continue;
        }
        for e in f.blocks[b].term.edges_mut() {
            if e.target == cont {
                e.target = c2;
            }
        }
    }
    f.blocks[c2].term = Terminator::Jump(Edge {
        target: cont,
        args: c2_params,
    });

    // Each break stores what it passes and jumps to C′ instead (a conditional one gets a
    // block of its own on the edge).
    for x in shape.breaks {
        let conditional = matches!(f.blocks[x].term, Terminator::Branch { .. });
        let from = if conditional {
            let e = f.new_block(span);
            let mut args = Vec::new();
            for edge in f.blocks[x].term.edges_mut() {
                if edge.target == merge {
                    args = std::mem::take(&mut edge.args);
                    edge.target = e;
                }
            }
            f.blocks[e].term = Terminator::Jump(Edge {
                target: merge,
                args,
            });
            e
        } else {
            x
        };
        let args = match &f.blocks[from].term {
            Terminator::Jump(e) => e.args.clone(),
            _ => Vec::new(),
        };
        let mut to_c = zeros(f, from, &c_params);
        for ((arg, local), c) in args.into_iter().zip(&stored).zip(&carried) {
            match (local, c) {
                (Some(local), _) => {
                    let s = f.create_inst(Op::StoreLocal(*local), vec![arg], &[], span);
                    f.blocks[from].insts.push(s);
                }
                // Carried on through C's parameter: the break passes its value there.
                (None, Some(Carried::Through { j, .. })) => to_c[*j] = arg,
                (None, _) => {}
            }
        }
        let yes = f.create_inst(Op::Const([1, 0, 0, 0]), Vec::new(), &[Ty::bool(1)], span);
        let v = f.insts[yes].results[0];
        let set = f.create_inst(Op::StoreLocal(broken), vec![Operand::new(v)], &[], span);
        f.blocks[from].insts.extend([yes, set]);
        f.blocks[from].term = Terminator::Jump(Edge {
            target: c2,
            args: to_c,
        });
    }

    // 3. The counter test passes M the stored values once broken.
    let mut selects = Vec::new();
    let test_args: Vec<Operand> = f.blocks[shape.test]
        .term
        .edges()
        .into_iter()
        .find(|e| e.target == merge)
        .map(|e| e.args.clone())
        .unwrap_or_default();
    if !test_args.is_empty() {
        let test = shape.test;
        let flag = f.ins(test, Op::LoadLocal(broken), Vec::new(), Ty::bool(1), span);
        for ((arg, local), &ty) in test_args.iter().zip(&stored).zip(&exit_tys) {
            // What the loop carries is what the break left: the test passes it as it is.
            let Some(local) = *local else {
                selects.push(*arg);
                continue;
            };
            let kept = f.ins(test, Op::LoadLocal(local), Vec::new(), ty, span);
            let s = f.ins(
                test,
                Op::Select,
                vec![Operand::new(flag), Operand::new(kept), *arg],
                ty,
                span,
            );
            selects.push(Operand::new(s));
        }
        for e in f.blocks[test].term.edges_mut() {
            if e.target == merge {
                e.args = selects.clone();
            }
        }
    }

    // The iteration: R0 (the region, merging at C′) → G (skip when broken) → on.
    let test = shape.test;
    let on_edge = f.blocks[test]
        .term
        .edges()
        .into_iter()
        .find(|e| e.target != merge)
        .cloned();
    let Some(on_edge) = on_edge else { return };
    let on = on_edge.target;
    let on_tys: Vec<Ty> = f.blocks[on].params.iter().map(|&p| f.ty(p)).collect();
    let r0 = f.new_block(span);
    let g = f.new_block(span);
    let skip = f.new_block(span);
    let r0_params: Vec<Operand> = on_tys
        .iter()
        .map(|&ty| Operand::new(f.add_param(r0, ty)))
        .collect();
    let g_params: Vec<Operand> = on_tys
        .iter()
        .map(|&ty| Operand::new(f.add_param(g, ty)))
        .collect();
    for e in f.blocks[test].term.edges_mut() {
        if e.target == on {
            e.target = r0;
        }
    }
    if let Some(Structure::If { merge: m }) = &mut f.blocks[test].structure {
        *m = r0;
    }
    f.blocks[r0].structure = Some(Structure::Region { merge: c2 });
    f.blocks[r0].term = Terminator::Jump(Edge {
        target: g,
        args: r0_params,
    });
    let flag = f.ins(g, Op::LoadLocal(broken), Vec::new(), Ty::bool(1), span);
    f.blocks[g].structure = Some(Structure::If { merge: on });
    f.blocks[g].term = Terminator::Branch {
        cond: Operand::new(flag),
        then: Edge::to(skip),
        otherwise: Edge {
            target: on,
            args: g_params,
        },
    };
    // A skipped iteration carries on what the break left.
    let mut args = zeros(f, skip, &c_params);
    for c in carried.iter().flatten() {
        if let Carried::Through { j, header } = *c {
            args[j] = Operand::new(header);
        }
    }
    f.blocks[skip].term = Terminator::Jump(Edge { target: c2, args });
}

/// How the loop carries a value a break passes to its merge unchanged into the iterations
/// that follow (which then do nothing), so that the counter test can pass what the loop
/// carries instead of a copy of what the break passed.
#[derive(Clone, Copy, Debug)]
enum Carried {
    /// The back edge passes the very value every break passes (it is defined on every
    /// iteration's way to the continue block, and goes through a local: skipped iterations
    /// leave the local as the break left it).
    Same,
    /// The back edge passes the continue block's parameter `j` to header parameter
    /// `header`: a break passes its value to `j`, and a skipped iteration `header` itself.
    Through { j: usize, header: Value },
}

/// For each parameter of the loop's merge, whether the loop carries what the breaks pass
/// (see [`Carried`]): the counter test passes header parameter `h`, and every break passes
/// the value the back edge gives `h`, or the back edge gives `h` a parameter of the continue
/// block that each break can pass.
fn carried_at_breaks(f: &Function, l: &Construct, shape: &Shape) -> Vec<Option<Carried>> {
    let Structure::Loop { merge, cont } = l.structure else {
        return Vec::new();
    };
    let n = f.blocks[merge].params.len();
    let to_merge = |b: BlockId| -> Option<Vec<Operand>> {
        f.blocks[b]
            .term
            .edges()
            .into_iter()
            .find(|e| e.target == merge)
            .map(|e| e.args.clone())
    };
    let (Some(test_args), Terminator::Jump(back)) = (to_merge(shape.test), &f.blocks[cont].term)
    else {
        return vec![None; n];
    };
    let header = &f.blocks[l.header].params;
    let breaks: Option<Vec<Vec<Operand>>> = shape.breaks.iter().map(|&x| to_merge(x)).collect();
    let Some(breaks) = breaks else {
        return vec![None; n];
    };
    let cont_params = &f.blocks[cont].params;
    // `next` does not change on a skipped iteration: it is header parameter `h` itself, or
    // is computed in the iteration the guard skips (after the test, before the continue
    // block), not in the part every iteration runs.
    let doms = Dominators::new(f);
    let skipped = |b: BlockId| {
        b != shape.test && b != cont && doms.reachable(b) && doms.dominates(shape.test, b)
    };
    let guarded = |next: crate::func::Value, h: usize| match f.values[next].def {
        crate::func::ValueDef::Param(b, _) => header[h] == next || skipped(b),
        crate::func::ValueDef::Inst(i, _) => f
            .layout
            .iter()
            .any(|&b| skipped(b) && f.blocks[b].insts.contains(&i)),
    };
    let mut through_used = Vec::new();
    (0..n)
        .map(|k| {
            let h = header.iter().position(|&p| p == test_args[k].value)?;
            let next = back.args.get(h)?.value;
            if breaks.iter().all(|a| a[k].value == next) && guarded(next, h) {
                return Some(Carried::Same);
            }
            let j = cont_params.iter().position(|&p| p == next)?;
            // One merge parameter per continue parameter (two would disagree on skips).
            if through_used.contains(&j) {
                return None;
            }
            through_used.push(j);
            Some(Carried::Through {
                j,
                header: header[h],
            })
        })
        .collect()
}

/// Every value the loop (header `header`, merge `merge`) defines and the code after it
/// reads becomes a parameter of the merge, passed by every exit (its definition dominates
/// the merge, so every exit).
fn exits_as_params(f: &mut Function, header: BlockId, merge: BlockId) {
    use crate::func::Value;
    use crate::hash::HashSet;
    let doms = Dominators::new(f);
    let inside =
        |b: BlockId| doms.reachable(b) && doms.dominates(header, b) && !doms.dominates(merge, b);
    let mut defined: HashSet<Value> = HashSet::default();
    for &b in f.layout.iter().filter(|&&b| inside(b)) {
        defined.extend(f.blocks[b].params.iter().copied());
        for &i in &f.blocks[b].insts {
            defined.extend(f.insts[i].results.iter().copied());
        }
    }
    let mut leaving: Vec<Value> = Vec::new();
    for &b in f
        .layout
        .iter()
        .filter(|&&b| doms.reachable(b) && !inside(b))
    {
        let block = &f.blocks[b];
        let reads = block
            .insts
            .iter()
            .flat_map(|&i| f.insts[i].args.iter())
            .chain(block.term.operands());
        for a in reads {
            if defined.contains(&a.value) && !leaving.contains(&a.value) {
                leaving.push(a.value);
            }
        }
    }
    for v in leaving {
        let ty = f.ty(v);
        let p = f.add_param(merge, ty);
        for b in f.layout.clone() {
            if !inside(b) {
                continue;
            }
            for e in f.blocks[b].term.edges_mut() {
                if e.target == merge {
                    e.args.push(Operand::new(v));
                }
            }
        }
        // Reads after the loop (the merge and what it dominates, or anything outside).
        for b in f.layout.clone() {
            if inside(b) {
                continue;
            }
            for &i in &f.blocks[b].insts.clone() {
                for a in &mut f.insts[i].args {
                    if a.value == v {
                        a.value = p;
                    }
                }
            }
            for a in f.blocks[b].term.operands_mut() {
                if a.value == v {
                    a.value = p;
                }
            }
        }
    }
}

/// Zeros of `tys`, made at the end of `block`.
pub(super) fn zeros(f: &mut Function, block: BlockId, tys: &[Ty]) -> Vec<Operand> {
    let span = f.blocks[block].span;
    tys.iter()
        .map(|&ty| Operand::new(f.ins(block, Op::Const([0; 4]), Vec::new(), ty, span)))
        .collect()
}

/// The back edge's arguments that the iteration computes (the counter's `i + 1`, which CSE
/// may have taken from the continue block for the body's `float(i) + 1.0`) are computed
/// again in the continue block: a predicated iteration may be skipped, and the count must go
/// on. Only instructions whose operands hold in the continue block (the header's parameters,
/// values from before the loop) are recomputed; others are left as they are.
fn recount_in_continue(f: &mut Function, header: BlockId, cont: BlockId) {
    use crate::func::ValueDef;
    let Terminator::Jump(back) = f.blocks[cont].term.clone() else {
        return;
    };
    let doms = Dominators::new(f);
    let mut block_of = crate::hash::HashMap::default();
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            block_of.insert(i, b);
        }
    }
    let available = |f: &Function, o: &Operand| match f.values[o.value].def {
        ValueDef::Param(b, _) => b == header || doms.dominates(b, header),
        ValueDef::Inst(i, _) => block_of
            .get(&i)
            .is_some_and(|&b| b != header && doms.dominates(b, header)),
    };
    let mut args = back.args.clone();
    let mut changed = false;
    for a in &mut args {
        let ValueDef::Inst(i, _) = f.values[a.value].def else {
            continue;
        };
        let Some(&b) = block_of.get(&i) else { continue };
        if b == cont || b == header || !doms.dominates(header, b) {
            continue;
        }
        let inst = f.insts[i].clone();
        if !matches!(inst.op, Op::Add | Op::Sub)
            || inst.results.len() != 1
            || !inst.args.iter().all(|o| available(f, o))
        {
            continue;
        }
        let ty = f.ty(a.value);
        let r = f.ins(cont, inst.op, inst.args.clone(), ty, inst.span);
        a.value = r;
        changed = true;
    }
    if changed {
        f.blocks[cont].term = Terminator::Jump(Edge {
            target: back.target,
            args,
        });
    }
}
