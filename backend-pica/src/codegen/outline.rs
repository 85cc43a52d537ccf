//! Procedures: a run of emitted vertices that repeats with different values becomes one
//! procedure that each run CALLs, as a hand-writer writes devkitPro's `geoshader` (a
//! procedure per triangle, its corners moved into registers first).
//!
//! The runs are found on the MIR of a straight-line program (one block): consecutive,
//! equally long runs of `EmitVertex`/`EndPrimitive` with the same SETEMITs, whose values
//! are the same computation of different leaves. The computation is the expression trees
//! under the runs' emits, unfolded through the shared DAG and anti-unified: where every run
//! has the same operation with the same operand modifiers it is the procedure's; where they
//! differ (or a computed value is the same in every run) the runs' values are parameters,
//! moved into `r0`, `r1`, … before each CALL. Inputs, uniforms and literals stay where they
//! are. So the procedure recomputes what the runs computed (a projected corner that two
//! triangles share is projected twice), and each call costs its moves and the CALL: the
//! code generator compiles the program both ways and keeps the procedure only when it
//! saves at least as many words as it adds executed steps ([`worth`]).

use mir::func::{Function, InstId, Terminator, Value};
use mir::hash::{HashMap, HashSet};
use mir::inst::Op;
use mir::types::{Kind, Swizzle};

use super::vinst::{MAX_PARAMS, VInst};

/// A procedure and the runs that call it.
#[derive(Clone, Debug)]
pub struct Outline {
    /// The procedure: its entry block's parameters are its parameters (in `r0`, `r1`, …);
    /// it ends in a return with no values.
    pub body: Function,
    /// The SETEMIT of each of the body's emits.
    pub body_emits: HashMap<InstId, VInst>,
    /// In the main function: each run's last effect, which the call takes the place of,
    /// with the call's arguments.
    pub calls: HashMap<InstId, Vec<mir::Operand>>,
    /// The main function's instructions that no longer run there: the runs' other effects
    /// and the values only the runs read.
    pub removed: HashSet<InstId>,
    /// How many times the procedure is called.
    pub runs: usize,
}

/// Whether a program with a procedure (`words`, `steps`) is worth it against the program
/// without (`plain_words`, `plain_steps`): shorter, by at least as many words as it adds
/// executed steps.
pub fn worth(words: usize, steps: usize, plain_words: usize, plain_steps: usize) -> bool {
    words < plain_words && plain_words - words >= steps.saturating_sub(plain_steps)
}

/// Operand modifiers: what a use reads of a value.
type Modifiers = (Swizzle, bool, bool);

fn modifiers(o: &mir::Operand) -> Modifiers {
    (o.swizzle, o.neg, o.abs)
}

/// A node of the procedure's computation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Node {
    /// An input, uniform or literal (its operation and shape), the same in every run: read
    /// where it lives.
    Copy(Op, mir::Ty),
    /// Parameter `k`.
    Param(usize),
    /// An operation of nodes (with each operand's modifiers).
    Inst {
        op: Op,
        args: Vec<(usize, Modifiers)>,
        ty: mir::Ty,
    },
}

/// One effect of the procedure: an emit of nodes with its SETEMIT, or the end of a
/// primitive.
#[derive(Clone, Debug)]
enum Effect {
    Emit(Vec<(usize, Modifiers)>, VInst),
    End,
}

/// The runs' computation, anti-unified.
struct Template<'f> {
    f: &'f Function,
    nodes: Vec<Node>,
    memo: HashMap<Vec<Value>, usize>,
    /// Each node by what it is: runs' values computed alike are one node (the runs' code
    /// may have shared a value in one run and recomputed it in another).
    same: HashMap<Node, usize>,
    /// Each parameter's value in each run.
    params: Vec<Vec<Value>>,
    /// The effects, each with how many nodes come before it (those made for it and the
    /// effects before it: the body computes each vertex just before emitting it).
    effects: Vec<(Effect, usize)>,
}

impl<'f> Template<'f> {
    fn new(f: &'f Function) -> Self {
        Template {
            f,
            nodes: Vec::new(),
            memo: HashMap::default(),
            same: HashMap::default(),
            params: Vec::new(),
            effects: Vec::new(),
        }
    }

    fn push(&mut self, key: Vec<Value>, node: Node) -> usize {
        let k = match self.same.get(&node) {
            Some(&k) => k,
            None => {
                self.nodes.push(node.clone());
                self.same.insert(node, self.nodes.len() - 1);
                self.nodes.len() - 1
            }
        };
        self.memo.insert(key, k);
        k
    }

    fn param(&mut self, values: &[Value]) -> Option<usize> {
        if values.iter().any(|&v| self.f.ty(v).kind != Kind::Float) {
            return None;
        }
        if self.params.len() == MAX_PARAMS {
            return None;
        }
        self.params.push(values.to_vec());
        let k = self.params.len() - 1;
        Some(self.push(values.to_vec(), Node::Param(k)))
    }

    /// The node computing `values` (one per run).
    fn unify(&mut self, values: &[Value]) -> Option<usize> {
        if let Some(&k) = self.memo.get(values) {
            return Some(k);
        }
        let f = self.f;
        let first = values[0];
        if values.iter().all(|&v| v == first) {
            return match f.def_inst(first) {
                Some(d) if d.op.is_interface_or_constant() && d.args.is_empty() => {
                    let node = Node::Copy(d.op, f.ty(first));
                    Some(self.push(values.to_vec(), node))
                }
                _ => self.param(values),
            };
        }
        let defs: Option<Vec<&mir::Inst>> = values.iter().map(|&v| f.def_inst(v)).collect();
        let same_shape = defs.as_ref().is_some_and(|defs| {
            let d0 = defs[0];
            d0.op.is_pure()
                && d0.results.len() == 1
                && !matches!(d0.op, Op::LoadInput(_) | Op::Const(_))
                && defs.iter().zip(values).all(|(d, &v)| {
                    d.op == d0.op
                        && d.results.len() == 1
                        && d.args.len() == d0.args.len()
                        && f.ty(v) == f.ty(first)
                        && d.args
                            .iter()
                            .zip(&d0.args)
                            .all(|(a, b)| modifiers(a) == modifiers(b))
                })
        });
        let Some(defs) = defs.filter(|_| same_shape) else {
            return self.param(values);
        };
        let d0 = defs[0].clone();
        let mut args = Vec::with_capacity(d0.args.len());
        for (k, a) in d0.args.iter().enumerate() {
            let column: Vec<Value> = defs.iter().map(|d| d.args[k].value).collect();
            args.push((self.unify(&column)?, modifiers(a)));
        }
        Some(self.push(
            values.to_vec(),
            Node::Inst {
                op: d0.op,
                args,
                ty: f.ty(first),
            },
        ))
    }

    /// Adds effect `i` of the runs (one instruction per run).
    fn effect(&mut self, insts: &[InstId], emits: &HashMap<InstId, VInst>) -> Option<()> {
        let f = self.f;
        let d0 = &f.insts[insts[0]];
        match d0.op {
            Op::EndPrimitive => {
                if insts.iter().any(|&i| f.insts[i].op != Op::EndPrimitive) {
                    return None;
                }
                self.effects.push((Effect::End, self.nodes.len()));
            }
            Op::EmitVertex => {
                let setemit = *emits.get(&insts[0])?;
                if insts.iter().any(|&i| {
                    f.insts[i].op != Op::EmitVertex
                        || emits.get(&i) != Some(&setemit)
                        || f.insts[i]
                            .args
                            .iter()
                            .zip(&d0.args)
                            .any(|(a, b)| modifiers(a) != modifiers(b))
                }) {
                    return None;
                }
                let mut args = Vec::new();
                for (k, a) in d0.args.iter().enumerate() {
                    let column: Vec<Value> =
                        insts.iter().map(|&i| f.insts[i].args[k].value).collect();
                    args.push((self.unify(&column)?, modifiers(a)));
                }
                self.effects
                    .push((Effect::Emit(args, setemit), self.nodes.len()));
            }
            _ => return None,
        }
        Some(())
    }

    /// The words the procedure's body takes, about: an operation each (a construct none: its
    /// lanes are computed in place), and per emit its SETEMIT, EMIT and a MOV per output
    /// read where it lives.
    fn body_words(&self) -> usize {
        let ops = self
            .nodes
            .iter()
            .filter(|n| matches!(n, Node::Inst { op, .. } if *op != Op::Construct))
            .count();
        let emits: usize = self
            .effects
            .iter()
            .map(|(e, _)| match e {
                Effect::Emit(args, _) => {
                    2 + args
                        .iter()
                        .filter(|(n, _)| !matches!(self.nodes[*n], Node::Inst { .. }))
                        .count()
                }
                Effect::End => 0,
            })
            .sum();
        ops + emits
    }
}

/// The effects of `f`'s one block, in order.
fn effects(f: &Function) -> Vec<InstId> {
    f.blocks[f.entry]
        .insts
        .iter()
        .copied()
        .filter(|&i| matches!(f.insts[i].op, Op::EmitVertex | Op::EndPrimitive))
        .collect()
}

/// The template of `count` runs of `len` effects from effect `start`, if they unify.
fn template<'f>(
    f: &'f Function,
    emits: &HashMap<InstId, VInst>,
    effects: &[InstId],
    (start, len, count): (usize, usize, usize),
) -> Option<Template<'f>> {
    let mut t = Template::new(f);
    for i in 0..len {
        let column: Vec<InstId> = (0..count).map(|r| effects[start + r * len + i]).collect();
        t.effect(&column, emits)?;
    }
    // A run that emits nothing is no procedure.
    t.effects
        .iter()
        .any(|(e, _)| matches!(e, Effect::Emit(..)))
        .then_some(t)
}

/// The procedure worth the most words in straight-line program `f` (whose emits have the
/// SETEMITs `emits`), if any looks worth trying.
pub fn plan(f: &Function, emits: &HashMap<InstId, VInst>) -> Option<Outline> {
    if f.layout.len() != 1 {
        return None;
    }
    let effects = effects(f);
    let n = effects.len();
    // What an effect must be for runs to match at all: its operation and its SETEMIT.
    let kinds: Vec<(bool, Option<&VInst>)> = effects
        .iter()
        .map(|&i| (f.insts[i].op == Op::EmitVertex, emits.get(&i)))
        .collect();
    // The templates tried at most (each unifies the runs' trees): a bound on the search.
    let mut budget = 2000usize;
    let mut best: Option<(isize, (usize, usize, usize))> = None;
    for len in 1..=n / 2 {
        for start in 0..=n - 2 * len {
            // As many runs as match, then as many as unify (two, three, … while they do).
            let mut matching = 1;
            while start + (matching + 1) * len <= n
                && (0..len).all(|i| kinds[start + matching * len + i] == kinds[start + i])
            {
                matching += 1;
            }
            let mut found = None;
            let mut count = 1;
            while count < matching && budget > 0 {
                budget -= 1;
                match template(f, emits, &effects, (start, len, count + 1)) {
                    Some(t) => {
                        found = Some(t);
                        count += 1;
                    }
                    None => break,
                }
            }
            let Some(t) = found else { continue };
            // Words saved, about: the runs' bodies but one, less a CALL and the moves per
            // run (a parameter the same in every run is moved once).
            let body = t.body_words() as isize;
            let moves: isize = t
                .params
                .iter()
                .map(|p| {
                    if p.iter().all(|&v| v == p[0]) {
                        1
                    } else {
                        count as isize
                    }
                })
                .sum();
            let saved = (count as isize - 1) * body - count as isize - moves;
            if saved > 0 && best.is_none_or(|(s, _)| saved > s) {
                best = Some((saved, (start, len, count)));
            }
        }
    }
    let (_, shape) = best?;
    let t = template(f, emits, &effects, shape)?;
    Some(outline(f, &effects, shape, &t))
}

/// The procedure of template `t` and what it does to `f`.
fn outline(
    f: &Function,
    effects: &[InstId],
    (start, len, count): (usize, usize, usize),
    t: &Template<'_>,
) -> Outline {
    // The body.
    let mut body = Function::new(format!("{}_procedure", f.name));
    let entry = body.entry;
    let params: Vec<Value> = t
        .params
        .iter()
        .map(|p| body.add_param(entry, f.ty(p[0])))
        .collect();
    let span = f.blocks[f.entry].span;
    let mut values: Vec<Value> = Vec::with_capacity(t.nodes.len());
    let operand = |values: &[Value], (n, (swizzle, neg, abs)): (usize, Modifiers)| mir::Operand {
        value: values[n],
        swizzle,
        neg,
        abs,
    };
    let mut body_emits = HashMap::default();
    for (e, before) in &t.effects {
        for node in &t.nodes[values.len()..*before] {
            let v = match node {
                Node::Copy(op, ty) => body.ins(entry, *op, Vec::new(), *ty, span),
                Node::Param(k) => params[*k],
                Node::Inst { op, args, ty } => {
                    let args = args.iter().map(|&a| operand(&values, a)).collect();
                    body.ins(entry, *op, args, *ty, span)
                }
            };
            values.push(v);
        }
        match e {
            Effect::Emit(args, setemit) => {
                let args = args.iter().map(|&a| operand(&values, a)).collect();
                let i = body.push(entry, Op::EmitVertex, args, &[], span);
                body_emits.insert(i, *setemit);
            }
            Effect::End => {
                body.push(entry, Op::EndPrimitive, Vec::new(), &[], span);
            }
        }
    }
    body.blocks[entry].term = Terminator::Return(Vec::new());

    // The main function: each run's last effect is its call; its other effects go, and so
    // does every value only the runs read.
    let mut calls = HashMap::default();
    let mut removed: HashSet<InstId> = HashSet::default();
    for r in 0..count {
        let run = &effects[start + r * len..start + (r + 1) * len];
        let args: Vec<mir::Operand> = t.params.iter().map(|p| mir::Operand::new(p[r])).collect();
        calls.insert(run[len - 1], args);
        removed.extend(run[..len - 1].iter().copied());
    }
    let block = &f.blocks[f.entry];
    let mut live: HashSet<Value> = block.term.operands().iter().map(|o| o.value).collect();
    for &i in block.insts.iter().rev() {
        let inst = &f.insts[i];
        let reads: Vec<Value> = if let Some(args) = calls.get(&i) {
            args.iter().map(|a: &mir::Operand| a.value).collect()
        } else if removed.contains(&i) {
            continue;
        } else if !inst.op.is_pure() || inst.results.iter().any(|r| live.contains(r)) {
            inst.args.iter().map(|a| a.value).collect()
        } else {
            removed.insert(i);
            continue;
        };
        live.extend(reads);
    }
    Outline {
        body,
        body_emits,
        calls,
        removed,
        runs: count,
    }
}
