//! Bools become floats, except where a target tests them directly.
//!
//! Neither target has bool registers for computed values: a truth value is a float 0.0 or
//! 1.0 (`sge`/`slt` on the PICA200, `sge`/`slt`/`seq`/`sne` in AGAL). What stays a bool is a
//! *condition*: a scalar comparison, a bool uniform or a constant whose every use is a
//! branch, a kill, or a `bool_to_float` (which the back ends fuse with the comparison into
//! one set-on-compare instruction). Every other bool value gets a float twin:
//!
//! | bool | float |
//! |---|---|
//! | `cmp(a, b)` | `bool_to_float(cmp(a, b))` |
//! | constant | 1.0 / 0.0 |
//! | `a && b`, `a \|\| b`, `!a` | `a * b`, `max(a, b)`, `1 - a` |
//! | `select(c, a, b)` | `c * a + (1 - c) * b` |
//! | a bool uniform | an `if` on it choosing 1.0 or 0.0 |
//! | a block parameter | a float parameter |
//!
//! A float `select(c, a, b)` becomes `c * a + (1 - c) * b`, exact because one product is
//! zero; `1 - c` is the inverted comparison when `c` is one. A branch or kill on a value that
//! is not a condition tests `twin != 0`.

use crate::hash::HashMap;

use crate::func::{BlockId, Edge, Function, InstId, Replacements, Structure, Terminator, Value};
use crate::inst::{CmpOp, Op, Operand};
use crate::span::Span;
use crate::types::{Kind, Swizzle, Ty};

/// Converts bools to floats; with `branches` (a target that can branch), selects that may
/// blend a non-finite value become `if`s first. Returns whether anything changed.
pub fn run(f: &mut Function, branches: bool) -> bool {
    run_with(f, branches, false)
}

/// [`run`]; with `all_selects` too, every float select on a scalar condition becomes an
/// `if` (for a try that counts branches against blends).
pub fn run_with(f: &mut Function, branches: bool, all_selects: bool) -> bool {
    let mut changed = branches && branch_selects(f, all_selects);
    changed |= split_bool_uniforms(f);
    let keep = conditions(f);
    let mut twin: HashMap<Value, Value> = HashMap::default();
    // Parameters first (a parameter may be read before its block's instructions).
    for b in f.layout.clone() {
        for p in f.blocks[b].params.clone() {
            if f.ty(p).kind == Kind::Bool {
                f.values[p].ty.kind = Kind::Float;
                twin.insert(p, p);
                changed = true;
            }
        }
    }
    // Float results computed anew (selects, conversions): applied once at the end.
    let mut replaced: HashMap<Value, Operand> = HashMap::default();
    // Definitions before uses: dominance order (the blocks `branch_selects` and
    // `split_bool_uniforms` add stand after their readers in the layout), then any
    // unreachable rest.
    let mut order = crate::analysis::cfg::reverse_post_order(f);
    let seen: crate::hash::HashSet<BlockId> = order.iter().copied().collect();
    order.extend(f.layout.iter().copied().filter(|b| !seen.contains(b)));
    for b in order {
        let old = std::mem::take(&mut f.blocks[b].insts);
        let mut out: Vec<InstId> = Vec::with_capacity(old.len());
        for i in old {
            let inst = f.insts[i].clone();
            if inst.op == Op::Kill && !keep.contains_key(&inst.args[0].value) {
                // A kill on a value that is not a condition tests `twin != 0`.
                let mut e = Emit {
                    out: &mut out,
                    span: inst.span,
                };
                let test = nonzero(f, &mut e, read(&twin, inst.args[0]));
                f.insts[i].args[0] = test;
                out.push(i);
                changed = true;
                continue;
            }
            out.push(i);
            let mut e = Emit {
                out: &mut out,
                span: inst.span,
            };
            let Some(r) = inst.result() else { continue };
            let ty = f.ty(r);
            if ty.kind == Kind::Bool {
                if !keep.contains_key(&r) {
                    // Its float twin, right after it.
                    let t = float_twin(f, &mut e, &inst, r, ty.lanes, &twin, &keep);
                    twin.insert(r, t);
                    changed = true;
                    // Its twin replaces it at every use; unless the twin reads it (a
                    // comparison's), it goes now: it may read a parameter just made a float,
                    // where it no longer type-checks.
                    if !matches!(inst.op, Op::Cmp(_)) {
                        out.retain(|&x| x != i);
                    }
                }
                continue;
            }
            let replacement = match inst.op {
                Op::BoolToFloat if !keep.contains_key(&inst.args[0].value) => {
                    Some(read(&twin, inst.args[0]))
                }
                Op::Select => Some(select(f, &mut e, &inst.args, ty.lanes, &twin, &keep)),
                _ => None,
            };
            if let Some(op) = replacement {
                replaced.insert(r, op);
                changed = true;
                // Replaced at every use: it goes now (as above).
                out.retain(|&x| x != i);
            }
        }
        // A branch on a value that is not a condition tests `twin != 0`.
        if let Terminator::Branch { cond, .. } = f.blocks[b].term.clone() {
            if !keep.contains_key(&cond.value) {
                let mut e = Emit {
                    out: &mut out,
                    span: f.blocks[b].span,
                };
                let test = nonzero(f, &mut e, read(&twin, cond));
                if let Terminator::Branch { cond, .. } = &mut f.blocks[b].term {
                    *cond = test;
                }
                changed = true;
            }
        }
        f.blocks[b].insts = out;
    }
    // Edge arguments to (now float) parameters.
    for b in f.layout.clone() {
        let mut term = f.blocks[b].term.clone();
        for e in term.edges_mut() {
            for a in &mut e.args {
                if f.ty(a.value).kind == Kind::Bool {
                    *a = read(&twin, *a);
                }
            }
        }
        f.blocks[b].term = term;
    }
    f.replace_uses_all(&replaced);
    changed
}

/// The bool values that stay bools: scalar comparisons, bool uniforms and constants read
/// only as conditions (or by `bool_to_float`, for comparisons and constants).
fn conditions(f: &Function) -> HashMap<Value, ()> {
    let mut candidates: HashMap<Value, bool> = HashMap::default();
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            let inst = &f.insts[i];
            let Some(r) = inst.result() else { continue };
            let ty = f.ty(r);
            if ty.kind != Kind::Bool {
                continue;
            }
            let ok = match inst.op {
                Op::Cmp(_) => ty.lanes == 1,
                Op::LoadBoolUniform { .. } | Op::Const(_) => true,
                _ => false,
            };
            candidates.insert(r, ok);
        }
    }
    // Disqualify by use.
    for &b in &f.layout {
        for &i in &f.blocks[b].insts {
            let inst = &f.insts[i];
            for (k, a) in inst.args.iter().enumerate() {
                let Some(ok) = candidates.get_mut(&a.value) else {
                    continue;
                };
                let fine = match inst.op {
                    Op::Kill => true,
                    Op::BoolToFloat => !matches!(
                        f.def_inst(a.value).map(|d| d.op),
                        Some(Op::LoadBoolUniform { .. })
                    ),
                    Op::Select => {
                        k == 0 && matches!(f.def_inst(a.value).map(|d| d.op), Some(Op::Cmp(_)))
                    }
                    _ => false,
                };
                if !fine || !a.swizzle.is_identity(1) {
                    *ok = false;
                }
            }
        }
        match &f.blocks[b].term {
            Terminator::Branch {
                cond,
                then,
                otherwise,
            } => {
                if cond.neg || cond.abs || !cond.swizzle.is_identity(1) {
                    if let Some(ok) = candidates.get_mut(&cond.value) {
                        *ok = false;
                    }
                }
                for a in then.args.iter().chain(&otherwise.args) {
                    if let Some(ok) = candidates.get_mut(&a.value) {
                        *ok = false;
                    }
                }
            }
            term => {
                for a in term.operands() {
                    if let Some(ok) = candidates.get_mut(&a.value) {
                        *ok = false;
                    }
                }
            }
        }
    }
    candidates
        .into_iter()
        .filter(|&(_, ok)| ok)
        .map(|(v, _)| (v, ()))
        .collect()
}

/// Instructions appended to a block being rebuilt.
struct Emit<'a> {
    out: &'a mut Vec<InstId>,
    span: Span,
}

impl Emit<'_> {
    fn op(&mut self, f: &mut Function, op: Op, args: Vec<Operand>, ty: Ty) -> Operand {
        let id = f.create_inst(op, args, &[ty], self.span);
        self.out.push(id);
        Operand::new(f.insts[id].results[0])
    }
}

/// A use of bool `op` read through its float twin (same lanes).
fn read(twin: &HashMap<Value, Value>, op: Operand) -> Operand {
    match twin.get(&op.value) {
        Some(&t) => Operand {
            value: t,
            neg: false,
            abs: false,
            ..op
        },
        None => op,
    }
}

/// The float twin of bool instruction `inst` (result `r`).
fn float_twin(
    f: &mut Function,
    e: &mut Emit,
    inst: &crate::inst::Inst,
    r: Value,
    lanes: u8,
    twin: &HashMap<Value, Value>,
    keep: &HashMap<Value, ()>,
) -> Value {
    let ty = Ty::float(lanes);
    let arg = |k: usize| read(twin, inst.args[k]);
    let t = match inst.op {
        Op::Cmp(_) => e.op(f, Op::BoolToFloat, vec![Operand::new(r)], ty),
        Op::Const(bits) => {
            let values: Vec<f32> = bits[..lanes as usize]
                .iter()
                .map(|&b| if b != 0 { 1.0 } else { 0.0 })
                .collect();
            e.op(f, Op::float_const(&values), Vec::new(), ty)
        }
        Op::And => e.op(f, Op::Mul, vec![arg(0), arg(1)], ty),
        Op::Or => e.op(f, Op::Max, vec![arg(0), arg(1)], ty),
        Op::Not => {
            let one = e.op(
                f,
                Op::float_const(&vec![1.0; lanes as usize]),
                Vec::new(),
                ty,
            );
            e.op(f, Op::Sub, vec![one, arg(0)], ty)
        }
        Op::Select => {
            let args = [inst.args[0], arg(1), arg(2)];
            select(f, e, &args, lanes, twin, keep)
        }
        // Bool uniforms used as values were split into `if`s; nothing else makes bools.
        _ => e.op(
            f,
            Op::float_const(&vec![0.0; lanes as usize]),
            Vec::new(),
            ty,
        ),
    };
    t.value
}

/// `select(c, a, b)` on floats: `c * a + (1 - c) * b`, or one product when an arm is zero.
fn select(
    f: &mut Function,
    e: &mut Emit,
    args: &[Operand],
    lanes: u8,
    twin: &HashMap<Value, Value>,
    keep: &HashMap<Value, ()>,
) -> Operand {
    let ty = Ty::float(lanes);
    let cond = args[0];
    // The condition as a float, and its complement, broadcast over the result's lanes.
    let (c, not_c) = condition_pair(f, e, cond, twin, keep);
    let broadcast = |o: Operand| -> Operand {
        let scalar = f.ty(cond.value).lanes == 1;
        if scalar {
            o.reswizzled(Swizzle::splat(0))
        } else {
            o
        }
    };
    let (c, not_c) = (broadcast(c), broadcast(not_c));
    let zero = |o: &Operand| {
        crate::analysis::constants::constant_n(f, o, lanes)
            .is_some_and(|k| k[..lanes as usize].iter().all(|&x| x == 0.0))
    };
    match (zero(&args[1]), zero(&args[2])) {
        (_, true) => e.op(f, Op::Mul, vec![c, args[1]], ty),
        (true, false) => e.op(f, Op::Mul, vec![not_c, args[2]], ty),
        _ => {
            let p = e.op(f, Op::Mul, vec![c, args[1]], ty);
            e.op(f, Op::Mad, vec![not_c, args[2], p], ty)
        }
    }
}

/// `(cond, !cond)` as floats: two set-on-compare instructions for a comparison, else the
/// twin and `1 - twin`.
fn condition_pair(
    f: &mut Function,
    e: &mut Emit,
    cond: Operand,
    twin: &HashMap<Value, Value>,
    keep: &HashMap<Value, ()>,
) -> (Operand, Operand) {
    let lanes = f.ty(cond.value).lanes;
    let ty = Ty::float(lanes);
    if let Some(inst) = f.def_inst(cond.value).cloned() {
        if let Op::Cmp(c) = inst.op {
            let yes = if keep.contains_key(&cond.value) {
                e.op(f, Op::BoolToFloat, vec![Operand::new(cond.value)], ty)
            } else {
                read(twin, Operand::new(cond.value))
            };
            let inverse = e.op(f, Op::Cmp(c.inverted()), inst.args.clone(), Ty::bool(lanes));
            let no = e.op(f, Op::BoolToFloat, vec![inverse], ty);
            let sw = |o: Operand| Operand {
                swizzle: cond.swizzle,
                ..o
            };
            return (sw(yes), sw(no));
        }
    }
    let yes = read(twin, cond);
    let one = e.op(
        f,
        Op::float_const(&vec![1.0; lanes as usize]),
        Vec::new(),
        ty,
    );
    let no = e.op(
        f,
        Op::Sub,
        vec![
            one,
            Operand {
                swizzle: Swizzle::IDENTITY,
                ..yes
            },
        ],
        ty,
    );
    (
        yes,
        Operand {
            swizzle: cond.swizzle,
            ..no
        },
    )
}

/// `x != 0` (a condition), for the first lane of `x`.
fn nonzero(f: &mut Function, e: &mut Emit, x: Operand) -> Operand {
    let zero = e.op(f, Op::float_const(&[0.0]), Vec::new(), Ty::float(1));
    let scalar = Operand {
        swizzle: Swizzle::splat(x.swizzle.lane(0)),
        ..x
    };
    e.op(f, Op::Cmp(CmpOp::Ne), vec![scalar, zero], Ty::bool(1))
}

/// Where the target can branch, a float `select` on a scalar condition whose operands may be
/// infinite or NaN (any, with `all`) becomes an `if` choosing between them: the arithmetic
/// blend would give NaN (see [`crate::analysis::finite`]).
fn branch_selects(f: &mut Function, all: bool) -> bool {
    sums_chosen(f, all);
    // One analysis serves every split: the parameter that takes a select's place carries
    // the same value, so it is as unsafe as the select was, and nothing else changes.
    let mut unsafe_values = crate::analysis::finite::maybe_non_finite(f);
    let mut replace = Replacements::default();
    let mut work = f.layout.clone();
    let mut next = 0;
    while let Some(&b) = work.get(next) {
        next += 1;
        let found = f.blocks[b].insts.iter().position(|&i| {
            let inst = &f.insts[i];
            inst.op == Op::Select
                && inst.result().is_some_and(|r| f.ty(r).is_float())
                && f.ty(inst.args[0].value).lanes == 1
                && (all
                    || inst.args[1..]
                        .iter()
                        .any(|a| unsafe_values.contains(&a.value)))
        });
        let Some(pos) = found else {
            continue;
        };
        let i = f.blocks[b].insts[pos];
        let inst = f.insts[i].clone();
        let r = inst.results[0];
        // b: ...before | h: branch | t, e | m(p): rest.
        let h = f.split_block(b, pos);
        let m = f.split_block(h, 1);
        f.blocks[h].insts.clear();
        let p = f.add_param(m, f.ty(r));
        let (t, e) = (f.new_block(inst.span), f.new_block(inst.span));
        for (block, x) in [(t, inst.args[1]), (e, inst.args[2])] {
            f.blocks[block].term = Terminator::Jump(Edge {
                target: m,
                args: vec![x],
            });
        }
        f.blocks[h].term = Terminator::Branch {
            cond: Operand {
                swizzle: Swizzle::splat(inst.args[0].swizzle.lane(0)),
                ..inst.args[0]
            },
            then: Edge::to(t),
            otherwise: Edge::to(e),
        };
        f.blocks[h].structure = Some(Structure::If { merge: m });
        unsafe_values.insert(p);
        replace.insert(r, Operand::new(p));
        // The rest of the block may hold more.
        work.push(m);
    }
    replace.finish(f)
}

/// `x + (c ? 0 : y)` (the `flags` pass's predicated update, a multiply by a flag once
/// blended) becomes `c ? x : x + y` again where the select becomes a branch (`all`, or `y`
/// may be non-finite): a branch then moves the sum or keeps `x`, where it would otherwise
/// zero `y` and add it anyway.
fn sums_chosen(f: &mut Function, all: bool) {
    let uses = f.use_counts();
    let unsafe_values = crate::analysis::finite::maybe_non_finite(f);
    for b in f.layout.clone() {
        let mut at = 0;
        while at < f.blocks[b].insts.len() {
            let i = f.blocks[b].insts[at];
            at += 1;
            let inst = &f.insts[i];
            let Some(r) = inst.result() else { continue };
            if inst.op != Op::Add || !f.ty(r).is_float() {
                continue;
            }
            let ty = f.ty(r);
            let picked = (0..2).find_map(|k| {
                let s = inst.args[k];
                if s.neg
                    || s.abs
                    || !s.swizzle.is_identity(ty.lanes)
                    || uses.get(&s.value) != Some(&1)
                {
                    return None;
                }
                let d = f.def_inst(s.value).filter(|d| d.op == Op::Select)?;
                if f.ty(s.value) != ty || f.ty(d.args[0].value).lanes != 1 {
                    return None;
                }
                let zero = |o: &Operand| {
                    crate::analysis::constants::constant_n(f, o, ty.lanes)
                        .is_some_and(|c| c[..usize::from(ty.lanes)].iter().all(|&v| v == 0.0))
                };
                // (x, y, whether the sum is taken when the condition holds)
                if zero(&d.args[1]) {
                    Some((inst.args[1 - k], d.args[2], d.args[0], false))
                } else if zero(&d.args[2]) {
                    Some((inst.args[1 - k], d.args[1], d.args[0], true))
                } else {
                    None
                }
            });
            let Some((x, y, c, sum_when_true)) = picked else {
                continue;
            };
            if !all && !unsafe_values.contains(&y.value) {
                continue;
            }
            let span = f.insts[i].span;
            let sum = f.create_inst(Op::Add, vec![x, y], &[ty], span);
            f.blocks[b].insts.insert(at - 1, sum);
            at += 1;
            let sum = Operand::new(f.insts[sum].results[0]);
            let (then, otherwise) = if sum_when_true { (sum, x) } else { (x, sum) };
            let inst = &mut f.insts[i];
            inst.op = Op::Select;
            inst.args = vec![c, then, otherwise];
        }
    }
}

/// Bool uniforms read as values (not as conditions) become `if (b) 1.0 else 0.0`: the
/// uniform is then a branch condition (an IFU on the PICA200), and the value a parameter.
fn split_bool_uniforms(f: &mut Function) -> bool {
    let mut changed = false;
    loop {
        let Some((b, pos)) = find_bool_uniform_value(f) else {
            return changed;
        };
        changed = true;
        let i = f.blocks[b].insts[pos];
        let r = f.insts[i].results[0];
        let span = f.insts[i].span;
        // b: ...before | h: uniform; branch | t, e | m(p): rest.
        let h = f.split_block(b, pos);
        let m = f.split_block(h, 1);
        let p = f.add_param(m, Ty::float(1));
        let (t, e) = (f.new_block(span), f.new_block(span));
        for (block, x) in [(t, 1.0), (e, 0.0)] {
            let k = f.ins(block, Op::float_const(&[x]), Vec::new(), Ty::float(1), span);
            f.blocks[block].term = Terminator::Jump(Edge {
                target: m,
                args: vec![Operand::new(k)],
            });
        }
        f.blocks[h].term = Terminator::Branch {
            cond: Operand::new(r),
            then: Edge::to(t),
            otherwise: Edge::to(e),
        };
        f.blocks[h].structure = Some(Structure::If { merge: m });
        // Every use of the uniform but the branch reads the parameter (as a float).
        let mut map = HashMap::default();
        map.insert(r, Operand::new(p));
        let branch = std::mem::replace(&mut f.blocks[h].term, Terminator::Unreachable);
        f.replace_uses_all(&map);
        f.blocks[h].term = branch;
        // Uses that wanted a bool (and, or, not, select conditions, branches) now read a
        // float: compare it with zero where a bool is needed.
        rebool_uses(f, p);
    }
}

/// A bool uniform whose result has a use other than as a condition.
fn find_bool_uniform_value(f: &Function) -> Option<(BlockId, usize)> {
    for &b in &f.layout {
        for (pos, &i) in f.blocks[b].insts.iter().enumerate() {
            if !matches!(f.insts[i].op, Op::LoadBoolUniform { .. }) {
                continue;
            }
            let r = f.insts[i].results[0];
            let mut value_use = false;
            for &c in &f.layout {
                for &j in &f.blocks[c].insts {
                    if f.insts[j].args.iter().any(|a| a.value == r) && f.insts[j].op != Op::Kill {
                        value_use = true;
                    }
                }
                match &f.blocks[c].term {
                    Terminator::Branch {
                        cond,
                        then,
                        otherwise,
                    } => {
                        if then
                            .args
                            .iter()
                            .chain(&otherwise.args)
                            .any(|a| a.value == r)
                            || (cond.value == r && !cond.swizzle.is_identity(1))
                        {
                            value_use = true;
                        }
                    }
                    term => {
                        if term.operands().iter().any(|a| a.value == r) {
                            value_use = true;
                        }
                    }
                }
            }
            if value_use {
                return Some((b, pos));
            }
        }
    }
    None
}

/// After a bool value was replaced by float parameter `p`, operations that need a bool
/// operand (logic, select conditions, kills, branches) read `p != 0` instead; bool block
/// parameters fed by `p` read its value unchanged (they become floats later).
fn rebool_uses(f: &mut Function, p: Value) {
    let users: Vec<(BlockId, InstId)> = f
        .layout
        .iter()
        .flat_map(|&b| f.blocks[b].insts.iter().map(move |&i| (b, i)))
        .filter(|&(_, i)| f.insts[i].args.iter().any(|a| a.value == p))
        .collect();
    for (b, i) in users {
        let op = f.insts[i].op;
        let wants_bool = matches!(op, Op::And | Op::Or | Op::Not | Op::Kill | Op::BoolToFloat)
            || (op == Op::Select);
        if !wants_bool {
            continue;
        }
        let span = f.insts[i].span;
        let pos = f.blocks[b].insts.iter().position(|&x| x == i).unwrap_or(0);
        let zero = f.create_inst(Op::float_const(&[0.0]), Vec::new(), &[Ty::float(1)], span);
        let zv = f.insts[zero].results[0];
        let args = f.insts[i].args.clone();
        let mut new = vec![zero];
        for (k, a) in args.iter().enumerate() {
            if a.value != p || (op == Op::Select && k != 0) {
                continue;
            }
            let c = f.create_inst(
                Op::Cmp(CmpOp::Ne),
                vec![*a, Operand::new(zv)],
                &[Ty::bool(1)],
                span,
            );
            new.push(c);
            f.insts[i].args[k] = Operand::new(f.insts[c].results[0]);
        }
        f.blocks[b].insts.splice(pos..pos, new);
    }
    // Terminators: a branch on `p`, or `p` passed to a bool parameter.
    for b in f.layout.clone() {
        let span = f.blocks[b].span;
        let mut extra = Vec::new();
        let mut e = Emit {
            out: &mut extra,
            span,
        };
        let mut term = f.blocks[b].term.clone();
        if let Terminator::Branch { cond, .. } = &mut term {
            if cond.value == p {
                *cond = nonzero(f, &mut e, *cond);
            }
        }
        for edge in term.edges_mut() {
            let target = edge.target;
            for (k, a) in edge.args.iter_mut().enumerate() {
                let param = f.blocks[target].params[k];
                if a.value == p && f.ty(param).kind == Kind::Bool {
                    *a = nonzero(f, &mut e, *a);
                }
            }
        }
        f.blocks[b].insts.extend(extra);
        f.blocks[b].term = term;
    }
}
