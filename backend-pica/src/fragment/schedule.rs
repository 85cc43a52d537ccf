//! Stages for the selected operations: each operation gets a stage, one RGB and one alpha
//! operation per stage, both results in the last stage, every operand read either as the
//! previous stage's result or from the combiner buffer, which a stage 0–3 writes and a stage
//! two or more later reads (until another write lands), and one constant colour per stage.
//! The fewest stages win; among equals, the first found with each operation as early as it
//! can be.

use super::select::{Group, Konst, Ref, Selected, compatible};

/// Where each operation runs.
#[derive(Clone, Debug)]
pub struct Placement {
    /// The stage of each operation (`None` for operations nothing reads).
    pub stage: Vec<Option<usize>>,
    /// The last stage that computes (both roots are in it).
    pub last: usize,
    /// Whether each operation's result is written to the buffer.
    pub buffered: Vec<bool>,
    /// Each stage's constant colour.
    pub constants: Vec<Option<Konst>>,
}

/// The number of stages.
pub const STAGES: usize = 6;

/// Places `s`'s operations, or says how many RGB and alpha operations did not fit. When a
/// result cannot be computed in the last stage (its constant colour clashes with the other
/// half's there), it is computed earlier and carried on by a REPLACE in the last stage,
/// which `s` then holds.
pub fn place(s: &mut Selected) -> Result<Placement, (usize, usize)> {
    let plain = place_exactly(s);
    if plain.is_ok() {
        return plain;
    }
    // Relays: carry the RGB result, the alpha one or both into the last stage.
    for relay in [[false, true], [true, false], [true, true]] {
        let mut t = Selected {
            ops: s.ops.clone(),
            roots: s.roots,
        };
        for (g, on) in relay.iter().enumerate() {
            if *on {
                let root = t.roots[g];
                let mut op = t.ops[root].clone();
                op.func = super::config::Func::Replace;
                op.scale = 1;
                op.args = vec![super::select::Arg {
                    r: Ref::Op(root),
                    sel: super::select::Sel::Own,
                    one_minus: false,
                    lo: 0.0,
                    hi: 1.0,
                    at: op.at,
                }];
                t.ops.push(op);
                t.roots[g] = t.ops.len() - 1;
            }
        }
        if let Ok(p) = place_exactly(&t) {
            *s = t;
            return Ok(p);
        }
    }
    plain
}

fn place_exactly(s: &Selected) -> Result<Placement, (usize, usize)> {
    let n = s.ops.len();
    // Operations the roots read, directly or not.
    let mut live = vec![false; n];
    let mut stack: Vec<usize> = s.roots.to_vec();
    while let Some(k) = stack.pop() {
        if std::mem::replace(&mut live[k], true) {
            continue;
        }
        for a in &s.ops[k].args {
            if let Ref::Op(p) = a.r {
                stack.push(p);
            }
        }
    }
    let order: Vec<usize> = (0..n).filter(|k| live[*k]).collect();
    // The longest chain to each operation: a lower bound on its stage.
    let mut depth = vec![0usize; n];
    for &k in &order {
        depth[k] = s.ops[k]
            .args
            .iter()
            .filter_map(|a| match a.r {
                Ref::Op(p) => Some(depth[p] + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0);
    }
    let per_group = |g: Group| order.iter().filter(|k| s.ops[**k].group == g).count();
    let least = depth[s.roots[0]]
        .max(depth[s.roots[1]])
        .max(per_group(Group::Rgb) - 1)
        .max(per_group(Group::Alpha) - 1);
    for last in least..STAGES {
        let mut p = Search {
            s,
            order: &order,
            last,
            stage: vec![None; n],
            slots: [[None; STAGES]; 2],
            constants: vec![None; STAGES],
        };
        if p.search(0) {
            let buffered = buffered(s, &p.stage);
            return Ok(Placement {
                stage: p.stage,
                last,
                buffered,
                constants: p.constants,
            });
        }
    }
    Err((per_group(Group::Rgb), per_group(Group::Alpha)))
}

struct Search<'a> {
    s: &'a Selected,
    order: &'a [usize],
    last: usize,
    stage: Vec<Option<usize>>,
    /// The operation in each group's slot of each stage.
    slots: [[Option<usize>; STAGES]; 2],
    constants: Vec<Option<Konst>>,
}

impl Search<'_> {
    fn search(&mut self, i: usize) -> bool {
        let Some(&k) = self.order.get(i) else {
            return buffers_work(self.s, &self.stage);
        };
        let op = &self.s.ops[k];
        let from = op
            .args
            .iter()
            .filter_map(|a| match a.r {
                Ref::Op(p) => self.stage[p].map(|x| x + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let is_root = self.s.roots.contains(&k);
        let (lo, hi) = if is_root {
            (self.last, self.last)
        } else {
            (from, self.last.saturating_sub(1))
        };
        if from > lo {
            return false;
        }
        let g = op.group as usize;
        let konst = op.args.iter().find_map(|a| match &a.r {
            Ref::Const(c) => Some(c.clone()),
            _ => None,
        });
        for st in lo.max(from)..=hi {
            if self.slots[g][st].is_some() {
                continue;
            }
            let before = self.constants[st].clone();
            if let Some(c) = &konst {
                match &before {
                    None => self.constants[st] = Some(c.clone()),
                    Some(b) => match compatible(b, c) {
                        Some(m) => self.constants[st] = Some(m),
                        None => continue,
                    },
                }
            }
            self.slots[g][st] = Some(k);
            self.stage[k] = Some(st);
            if self.search(i + 1) {
                return true;
            }
            self.slots[g][st] = None;
            self.stage[k] = None;
            self.constants[st] = before;
        }
        false
    }
}

/// The reads that go through the buffer: (producer, consumer).
fn buffer_reads(s: &Selected, stage: &[Option<usize>]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (c, op) in s.ops.iter().enumerate() {
        let Some(sc) = stage[c] else { continue };
        for a in &op.args {
            if let Ref::Op(p) = a.r {
                if let Some(sp) = stage[p] {
                    if sc >= sp + 2 {
                        out.push((p, c));
                    }
                }
            }
        }
    }
    out
}

fn buffered(s: &Selected, stage: &[Option<usize>]) -> Vec<bool> {
    let mut b = vec![false; s.ops.len()];
    for (p, _) in buffer_reads(s, stage) {
        b[p] = true;
    }
    b
}

/// Whether every buffered read sees its producer: the producer is in stages 0–3, and no
/// other write of the same half of the buffer lands in between.
fn buffers_work(s: &Selected, stage: &[Option<usize>]) -> bool {
    let reads = buffer_reads(s, stage);
    let writers = buffered(s, stage);
    reads.iter().all(|&(p, c)| {
        let (Some(sp), Some(sc)) = (stage[p], stage[c]) else {
            return false;
        };
        sp <= 3
            && (0..s.ops.len()).all(|q| {
                q == p
                    || !writers[q]
                    || s.ops[q].group != s.ops[p].group
                    || stage[q].is_none_or(|sq| sq <= sp || sq + 2 > sc)
            })
    })
}
