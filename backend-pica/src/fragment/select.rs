//! From lane expressions to combiner operations: the colour's r, g, b lanes become one
//! expression over whole colours (a channel selection where the lanes read one channel),
//! its alpha another; each is matched against the combiner functions, products and sums
//! flattened first so that `t * 2.0 * c` is one scaled MODULATE, `a + (b - a) * t` one
//! INTERPOLATE, `a * b + c` one MULTIPLY_ADD and `1.0 - x` an operand.
//!
//! Values are checked as GLSL computes them: every leaf (the colour varying, a texture
//! sample, a uniform) is taken to be in [0, 1], and an expression's interval follows. A
//! combiner clamps its result to [0, 1], so a result whose interval leaves [0, 1] may only
//! feed a stage that clamps the same way anyway (a sum of non-negative terms) or be the
//! colour itself (the framebuffer clamps it); anything else is refused rather than compiled
//! into other values.

use std::collections::HashMap;

use super::config::Func;
use super::lanes::{E, Lanes, Leaf, Node};

/// The two halves of a stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Group {
    /// The RGB combiner.
    Rgb,
    /// The alpha combiner.
    Alpha,
}

/// Which channels an operand reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sel {
    /// The group's own: r, g, b for RGB, a for alpha.
    Own,
    /// One channel (0–3), broadcast.
    Chan(u8),
}

/// An expression over whole colours (RGB) or alpha values.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct G {
    /// What it is.
    pub k: GK,
    /// The lane node it came from (the red lane's for RGB), for diagnostics.
    pub at: E,
}

/// The kinds of [`G`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GK {
    /// A leaf's channels.
    Src(Leaf, Sel),
    /// Numbers per lane (f32 bits; 3 for RGB, 1 for alpha).
    Num(Vec<u32>),
    /// `a + b`.
    Add(Box<G>, Box<G>),
    /// `a - b`.
    Sub(Box<G>, Box<G>),
    /// `a * b`.
    Mul(Box<G>, Box<G>),
    /// `-a`.
    Neg(Box<G>),
    /// `|a|`.
    Abs(Box<G>),
    /// `min(a, b)`.
    Min(Box<G>, Box<G>),
    /// `max(a, b)`.
    Max(Box<G>, Box<G>),
    /// `clamp(a, 0, 1)`.
    Sat(Box<G>),
    /// A dot product (a scalar broadcast).
    Dot(Vec<(G, G)>),
}

/// A constant colour a stage must hold.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Konst {
    /// Bytes for some lanes (lane, byte).
    Lanes(Vec<(u8, u8)>),
    /// A uniform register's value.
    Uniform(u32),
}

/// What an operand reads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ref {
    /// A leaf (the colour varying or a texture unit).
    Leaf(Leaf),
    /// The stage's constant colour.
    Const(Konst),
    /// The result of another operation.
    Op(usize),
}

/// One operand of an operation, with the interval of the GLSL value it stands for.
#[derive(Clone, Debug)]
pub struct Arg {
    /// What it reads.
    pub r: Ref,
    /// Which channels.
    pub sel: Sel,
    /// `1 - x`.
    pub one_minus: bool,
    /// The GLSL value's interval.
    pub lo: f64,
    /// The GLSL value's interval.
    pub hi: f64,
    /// Where (for diagnostics).
    pub at: E,
}

/// One combiner operation.
#[derive(Clone, Debug)]
pub struct OpN {
    /// RGB or alpha.
    pub group: Group,
    /// The function.
    pub func: Func,
    /// Its operands (as many as the function reads).
    pub args: Vec<Arg>,
    /// 1, 2 or 4.
    pub scale: u8,
    /// Where (for diagnostics).
    pub at: E,
}

/// Why an expression cannot be compiled, and the node it is about.
pub type Why = (String, E);

/// The operations of both groups and their results.
pub struct Selected {
    /// The operations, each after those it reads.
    pub ops: Vec<OpN>,
    /// The operation that computes the colour's RGB, and the one for its alpha.
    pub roots: [usize; 2],
}

/// Describes node `e` as source text (for diagnostics), at most `depth` levels deep.
pub fn describe(l: &Lanes, e: E, names: &dyn Fn(Leaf) -> String, depth: u32) -> String {
    let d = |x: E| describe(l, x, names, depth.saturating_sub(1));
    if depth == 0 {
        return "…".into();
    }
    match &l.nodes[e as usize] {
        Node::Num(b) => format!("{:?}", f32::from_bits(*b)),
        Node::Leaf(leaf, lane) => {
            format!("{}.{}", names(*leaf), ["r", "g", "b", "a"][*lane as usize])
        }
        Node::Add(a, b) => format!("({} + {})", d(*a), d(*b)),
        Node::Sub(a, b) => format!("({} - {})", d(*a), d(*b)),
        Node::Mul(a, b) => format!("{} * {}", d(*a), d(*b)),
        Node::Neg(a) => format!("-{}", d(*a)),
        Node::Abs(a) => format!("abs({})", d(*a)),
        Node::Min(a, b) => format!("min({}, {})", d(*a), d(*b)),
        Node::Max(a, b) => format!("max({}, {})", d(*a), d(*b)),
        Node::Sat(a) => format!("clamp({}, 0.0, 1.0)", d(*a)),
        Node::Dot(p) => format!(
            "dot({})",
            p.iter()
                .map(|(a, b)| format!("{}·{}", d(*a), d(*b)))
                .collect::<Vec<_>>()
                .join(" + ")
        ),
        Node::Bad(why) => why.clone(),
    }
}

/// Builds the group expressions of `lanes` (`[r, g, b]` or `[a]`).
pub struct Unify<'a> {
    l: &'a Lanes,
    memo: HashMap<Vec<E>, G>,
}

impl<'a> Unify<'a> {
    /// For `l`.
    pub fn new(l: &'a Lanes) -> Self {
        Unify {
            l,
            memo: HashMap::new(),
        }
    }

    /// The expression whose lanes are `lanes`.
    pub fn unify(&mut self, lanes: &[E]) -> Result<G, Why> {
        if let Some(g) = self.memo.get(lanes) {
            return Ok(g.clone());
        }
        let g = self.unify_new(lanes)?;
        self.memo.insert(lanes.to_vec(), g.clone());
        Ok(g)
    }

    fn unify_new(&mut self, lanes: &[E]) -> Result<G, Why> {
        let l = self.l;
        let at = lanes[0];
        let nodes: Vec<&Node> = lanes.iter().map(|&e| &l.nodes[e as usize]).collect();
        if let Some(bad) = lanes.iter().find_map(|&e| match &l.nodes[e as usize] {
            Node::Bad(why) => Some((why.clone(), e)),
            _ => None,
        }) {
            return Err(bad);
        }
        let mismatch = || {
            Err((
                "a colour whose channels are computed differently (another operation per \
                 channel, or channels read in another order, such as `.bgr`): one combiner \
                 computes r, g and b alike, reading a colour as it is or one channel of it"
                    .to_string(),
                at,
            ))
        };
        let same = |f: &dyn Fn(&Node) -> bool| nodes.iter().all(|n| f(n));
        let pair = |n: &Node| match *n {
            Node::Add(a, b)
            | Node::Sub(a, b)
            | Node::Mul(a, b)
            | Node::Min(a, b)
            | Node::Max(a, b) => Some((a, b)),
            _ => None,
        };
        let k = match nodes[0] {
            Node::Leaf(leaf, _) => {
                let mut lane_of = Vec::new();
                for n in &nodes {
                    match n {
                        Node::Leaf(x, c) if x == leaf => lane_of.push(*c),
                        _ => return mismatch(),
                    }
                }
                let own: Vec<u8> = if lanes.len() == 3 {
                    vec![0, 1, 2]
                } else {
                    vec![3]
                };
                if lane_of == own {
                    GK::Src(*leaf, Sel::Own)
                } else if lane_of.iter().all(|c| *c == lane_of[0]) {
                    GK::Src(*leaf, Sel::Chan(lane_of[0]))
                } else {
                    return mismatch();
                }
            }
            Node::Num(_) => {
                let mut bits = Vec::new();
                for n in &nodes {
                    match n {
                        Node::Num(b) => bits.push(*b),
                        _ => return mismatch(),
                    }
                }
                GK::Num(bits)
            }
            Node::Neg(_) | Node::Abs(_) | Node::Sat(_) => {
                let disc = std::mem::discriminant(nodes[0]);
                if !same(&|n| std::mem::discriminant(n) == disc) {
                    return mismatch();
                }
                let inner: Vec<E> = nodes
                    .iter()
                    .map(|n| match n {
                        Node::Neg(a) | Node::Abs(a) | Node::Sat(a) => *a,
                        _ => unreachable!(),
                    })
                    .collect();
                let a = Box::new(self.unify(&inner)?);
                match nodes[0] {
                    Node::Neg(_) => GK::Neg(a),
                    Node::Abs(_) => GK::Abs(a),
                    _ => GK::Sat(a),
                }
            }
            Node::Dot(pairs) => {
                if !lanes.iter().all(|e| *e == at) {
                    return mismatch();
                }
                let mut out = Vec::new();
                for (a, b) in pairs {
                    let a = self.unify(&vec![*a; lanes.len()])?;
                    let b = self.unify(&vec![*b; lanes.len()])?;
                    out.push((a, b));
                }
                GK::Dot(out)
            }
            n0 => {
                let disc = std::mem::discriminant(n0);
                if !same(&|n| std::mem::discriminant(n) == disc) {
                    return mismatch();
                }
                let (mut xs, mut ys) = (Vec::new(), Vec::new());
                for n in &nodes {
                    let Some((a, b)) = pair(n) else {
                        return mismatch();
                    };
                    xs.push(a);
                    ys.push(b);
                }
                let a = Box::new(self.unify(&xs)?);
                let b = Box::new(self.unify(&ys)?);
                match n0 {
                    Node::Add(..) => GK::Add(a, b),
                    Node::Sub(..) => GK::Sub(a, b),
                    Node::Mul(..) => GK::Mul(a, b),
                    Node::Min(..) => GK::Min(a, b),
                    _ => GK::Max(a, b),
                }
            }
        };
        Ok(G { k, at })
    }
}

fn nums(bits: &[u32]) -> Vec<f64> {
    bits.iter().map(|b| f64::from(f32::from_bits(*b))).collect()
}

/// The interval of `g`'s GLSL value, every leaf in [0, 1].
pub fn interval(g: &G) -> (f64, f64) {
    match &g.k {
        GK::Src(..) => (0.0, 1.0),
        GK::Num(b) => {
            let v = nums(b);
            (
                v.iter().copied().fold(f64::INFINITY, f64::min),
                v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            )
        }
        GK::Add(a, b) => {
            let (x, y) = (interval(a), interval(b));
            (x.0 + y.0, x.1 + y.1)
        }
        GK::Sub(a, b) => {
            let (x, y) = (interval(a), interval(b));
            (x.0 - y.1, x.1 - y.0)
        }
        GK::Mul(a, b) => mul(interval(a), interval(b)),
        GK::Neg(a) => {
            let x = interval(a);
            (-x.1, -x.0)
        }
        GK::Abs(a) => {
            let x = interval(a);
            if x.0 >= 0.0 {
                x
            } else if x.1 <= 0.0 {
                (-x.1, -x.0)
            } else {
                (0.0, x.1.max(-x.0))
            }
        }
        GK::Min(a, b) => {
            let (x, y) = (interval(a), interval(b));
            (x.0.min(y.0), x.1.min(y.1))
        }
        GK::Max(a, b) => {
            let (x, y) = (interval(a), interval(b));
            (x.0.max(y.0), x.1.max(y.1))
        }
        GK::Sat(a) => {
            let x = interval(a);
            (x.0.clamp(0.0, 1.0), x.1.clamp(0.0, 1.0))
        }
        GK::Dot(p) => p.iter().fold((0.0, 0.0), |s, (a, b)| {
            let m = mul(interval(a), interval(b));
            (s.0 + m.0, s.1 + m.1)
        }),
    }
}

fn mul(x: (f64, f64), y: (f64, f64)) -> (f64, f64) {
    let c = [x.0 * y.0, x.0 * y.1, x.1 * y.0, x.1 * y.1];
    (
        c.iter().copied().fold(f64::INFINITY, f64::min),
        c.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    )
}

fn within(lo: f64, hi: f64) -> bool {
    lo >= -1e-9 && hi <= 1.0 + 1e-9
}

/// The byte of `v` in [0, 1].
pub fn byte(v: f64) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// A term of a flattened sum.
enum Term<'g> {
    G(&'g G),
    Arg(Arg),
}

/// A flattened product: its factors and numeric coefficient per lane.
struct Product<'g> {
    factors: Vec<&'g G>,
    coefficient: Vec<f64>,
}

fn flatten_sum<'g>(g: &'g G, neg: bool, terms: &mut Vec<(bool, &'g G)>, k: &mut [f64]) {
    match &g.k {
        // A `mix` stays one term: it is one INTERPOLATE, in [0, 1].
        GK::Add(a, b) if mix_parts(a, b, k.len()).is_some() => terms.push((neg, g)),
        GK::Add(a, b) => {
            flatten_sum(a, neg, terms, k);
            flatten_sum(b, neg, terms, k);
        }
        GK::Sub(a, b) => {
            flatten_sum(a, neg, terms, k);
            flatten_sum(b, !neg, terms, k);
        }
        GK::Neg(a) => flatten_sum(a, !neg, terms, k),
        GK::Num(bits) => {
            for (x, v) in k.iter_mut().zip(nums(bits)) {
                *x += if neg { -v } else { v };
            }
        }
        _ => terms.push((neg, g)),
    }
}

/// `x + y` as `mix(a, b, t)`: `a + (b - a) * t` or `a * (1 - t) + b * t`, with `t` a
/// product (its factors and coefficient, which must be in [0, 1]). Returns `(b, a, t)`.
fn mix_parts<'g>(x: &'g G, y: &'g G, lanes: usize) -> Option<(&'g G, &'g G, Product<'g>)> {
    for (a, other) in [(x, y), (y, x)] {
        let p = product(other, lanes);
        if p.coefficient.iter().any(|c| !within(*c, *c)) {
            continue;
        }
        for (i, f) in p.factors.iter().enumerate() {
            let Some((b, a2)) = difference(f) else {
                continue;
            };
            if a2 != a {
                continue;
            }
            let mut t = Product {
                factors: p.factors.clone(),
                coefficient: p.coefficient.clone(),
            };
            t.factors.remove(i);
            return Some((b, a, t));
        }
    }
    let (px, py) = (product(x, lanes), product(y, lanes));
    if all(&px.coefficient, 1.0) && all(&py.coefficient, 1.0) {
        for (pa, pb) in [(&px, &py), (&py, &px)] {
            if pa.factors.len() != 2 || pb.factors.len() != 2 {
                continue;
            }
            for (i, f) in pa.factors.iter().enumerate() {
                let Some(t) = one_minus_of(f) else { continue };
                let Some(j) = pb.factors.iter().position(|h| *h == t) else {
                    continue;
                };
                let weight = Product {
                    factors: vec![t],
                    coefficient: vec![1.0; lanes],
                };
                return Some((pb.factors[1 - j], pa.factors[1 - i], weight));
            }
        }
    }
    None
}

fn flatten_product<'g>(g: &'g G, p: &mut Product<'g>) {
    match &g.k {
        GK::Mul(a, b) => {
            flatten_product(a, p);
            flatten_product(b, p);
        }
        GK::Neg(a) => {
            for c in &mut p.coefficient {
                *c = -*c;
            }
            flatten_product(a, p);
        }
        GK::Num(bits) => {
            for (c, v) in p.coefficient.iter_mut().zip(nums(bits)) {
                *c *= v;
            }
        }
        _ => p.factors.push(g),
    }
}

fn product(g: &G, lanes: usize) -> Product<'_> {
    let mut p = Product {
        factors: Vec::new(),
        coefficient: vec![1.0; lanes],
    };
    flatten_product(g, &mut p);
    p
}

fn all(v: &[f64], x: f64) -> bool {
    v.iter().all(|c| (c - x).abs() < 1e-6)
}

/// Whether `g` is `1 - x` (returns `x`).
fn one_minus_of(g: &G) -> Option<&G> {
    match &g.k {
        GK::Sub(a, b) if matches!(&a.k, GK::Num(n) if all(&nums(n), 1.0)) => Some(b),
        GK::Add(a, b) => match (&a.k, &b.k) {
            (GK::Num(n), GK::Neg(x)) | (GK::Neg(x), GK::Num(n)) if all(&nums(n), 1.0) => Some(x),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `g` is `b - a` (returns `(b, a)`).
fn difference(g: &G) -> Option<(&G, &G)> {
    match &g.k {
        GK::Sub(b, a) => Some((b, a)),
        GK::Add(b, n) => match &n.k {
            GK::Neg(a) => Some((b, a)),
            _ => None,
        },
        _ => None,
    }
}

/// The selector: operations made so far.
#[derive(Default)]
pub struct Select {
    /// The operations.
    pub ops: Vec<OpN>,
    memo: HashMap<(Group, G), Arg>,
}

impl Select {
    /// An empty selector.
    pub fn new() -> Self {
        Select {
            ops: Vec::new(),
            memo: HashMap::new(),
        }
    }

    fn lanes(group: Group) -> usize {
        match group {
            Group::Rgb => 3,
            Group::Alpha => 1,
        }
    }

    /// The operation computing `g` in `group`, made so that its result is the group's
    /// value (a plain operand becomes a REPLACE).
    pub fn root(&mut self, g: &G, group: Group) -> Result<usize, Why> {
        // A constant colour: the framebuffer clamps it, so its bytes may too.
        let a = match &g.k {
            GK::Num(bits) => {
                let v: Vec<f64> = nums(bits).iter().map(|x| x.clamp(0.0, 1.0)).collect();
                self.constant(&v, group, g.at)?
            }
            _ => self.value(g, group)?,
        };
        match a.r {
            Ref::Op(k) if a.sel == Sel::Own && !a.one_minus => Ok(k),
            _ => self.push(group, Func::Replace, vec![a], 1, g.at),
        }
    }

    /// An operand with `g`'s value in `group`, making operations as needed.
    pub fn value(&mut self, g: &G, group: Group) -> Result<Arg, Why> {
        if let Some(a) = self.memo.get(&(group, g.clone())) {
            return Ok(a.clone());
        }
        let a = self.value_new(g, group)?;
        self.memo.insert((group, g.clone()), a.clone());
        Ok(a)
    }

    fn value_new(&mut self, g: &G, group: Group) -> Result<Arg, Why> {
        let (lo, hi) = interval(g);
        let arg = |r: Ref, sel: Sel| Arg {
            r,
            sel,
            one_minus: false,
            lo,
            hi,
            at: g.at,
        };
        match &g.k {
            GK::Src(Leaf::Uniform(reg), sel) => Ok(arg(Ref::Const(Konst::Uniform(*reg)), *sel)),
            GK::Src(leaf, sel) => Ok(arg(Ref::Leaf(*leaf), *sel)),
            GK::Num(bits) => self.constant(&nums(bits), group, g.at),
            GK::Sat(x) => {
                let mut a = self.value(x, group)?;
                if !matches!(a.r, Ref::Op(_)) && !within(a.lo, a.hi) {
                    return Err(self.range(x, a.lo, a.hi));
                }
                a.lo = a.lo.clamp(0.0, 1.0);
                a.hi = a.hi.clamp(0.0, 1.0);
                Ok(a)
            }
            GK::Abs(x) => {
                let a = self.value(x, group)?;
                if a.lo < 0.0 {
                    return Err((
                        "abs() of a value that can be negative: the combiners' values are never \
                         negative"
                            .into(),
                        g.at,
                    ));
                }
                Ok(a)
            }
            GK::Min(x, y) | GK::Max(x, y) => {
                let is_min = matches!(g.k, GK::Min(..));
                let bound = |v: &G, want: f64| matches!(&v.k, GK::Num(n) if all(&nums(n), want));
                let (v, other) = if bound(y, if is_min { 1.0 } else { 0.0 }) {
                    (x, y)
                } else {
                    (y, x)
                };
                let probe = self.value(v, group)?;
                let (vlo, vhi) = (probe.lo, probe.hi);
                let saturates = if is_min {
                    bound(other, 1.0) && vlo >= 0.0
                } else {
                    bound(other, 0.0) && vhi <= 1.0
                };
                if !saturates {
                    return Err((
                        format!(
                            "{}() of two values, which no combiner function computes (min(x, \
                             1.0) of a value that is never negative, and max(x, 0.0) of one \
                             never above 1, are the clamp every stage applies)",
                            if is_min { "min" } else { "max" }
                        ),
                        g.at,
                    ));
                }
                let mut a = self.value(v, group)?;
                if !matches!(a.r, Ref::Op(_)) && !within(a.lo, a.hi) {
                    return Err(self.range(v, a.lo, a.hi));
                }
                a.lo = a.lo.clamp(0.0, 1.0);
                a.hi = a.hi.clamp(0.0, 1.0);
                Ok(a)
            }
            GK::Add(..) | GK::Sub(..) | GK::Neg(..) => self.sum(g, group),
            GK::Mul(..) => {
                let p = product(g, Self::lanes(group));
                self.product(p, group, g)
            }
            GK::Dot(_) => self.dot3(g, &vec![1.0; Self::lanes(group)], group, g),
        }
    }

    fn range(&self, g: &G, lo: f64, hi: f64) -> Why {
        (
            format!(
                "a value that can be {lo:.3} to {hi:.3} here: the combiners clamp every stage's \
                 result to [0, 1], so GLSL's value and theirs would differ; clamp it \
                 (`clamp(x, 0.0, 1.0)`) where that is what you mean, or reorder the arithmetic \
                 so that no intermediate value leaves [0, 1]"
            ),
            g.at,
        )
    }

    fn constant(&mut self, v: &[f64], group: Group, at: E) -> Result<Arg, Why> {
        if let Some(x) = v.iter().find(|x| !within(**x, **x)) {
            return Err((
                format!(
                    "the constant {x} is outside [0, 1]: a combiner's constant colour is four \
                     bytes that stand for 0 to 1"
                ),
                at,
            ));
        }
        let lanes: Vec<(u8, u8)> = match group {
            Group::Rgb => (0..3).map(|k| (k as u8, byte(v[k]))).collect(),
            Group::Alpha => vec![(3, byte(v[0]))],
        };
        let (lo, hi) = (
            v.iter().copied().fold(f64::INFINITY, f64::min),
            v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        );
        Ok(Arg {
            r: Ref::Const(Konst::Lanes(lanes)),
            sel: Sel::Own,
            one_minus: false,
            lo,
            hi,
            at,
        })
    }

    /// Makes an operation (after checking that its operands' values are what the combiner
    /// reads) and returns its index.
    fn push(
        &mut self,
        group: Group,
        func: Func,
        mut args: Vec<Arg>,
        scale: u8,
        at: E,
    ) -> Result<usize, Why> {
        for (k, a) in args.iter().enumerate() {
            if within(a.lo, a.hi) {
                continue;
            }
            // Where the combiner's own clamping of this operand changes nothing: a term of a
            // saturating sum above 1, what is subtracted when above 1 (the difference is
            // below 0 either way), and what is subtracted from when below 0.
            let saturating_sum = !a.one_minus
                && ((a.lo >= -1e-9
                    && match func {
                        Func::Add => true,
                        Func::MultiplyAdd => k == 2,
                        Func::AddMultiply => k < 2,
                        Func::Subtract => k == 1,
                        _ => false,
                    })
                    || (a.hi <= 1.0 + 1e-9 && func == Func::Subtract && k == 0));
            if !saturating_sum {
                return Err((
                    format!(
                        "a value that can be {:.3} to {:.3} here: the combiners clamp every \
                         stage's result to [0, 1], so GLSL's value and theirs would differ; \
                         clamp it (`clamp(x, 0.0, 1.0)`) where that is what you mean, or \
                         reorder the arithmetic so that no intermediate value leaves [0, 1]",
                        a.lo, a.hi
                    ),
                    a.at,
                ));
            }
        }
        // One constant colour per stage: a second distinct constant is made by a stage of
        // its own, read as the previous result.
        let mut first: Option<Konst> = None;
        for a in args.iter_mut() {
            let Ref::Const(c) = &a.r else { continue };
            match &first {
                None => first = Some(c.clone()),
                Some(f) if compatible(f, c).is_some() => first = compatible(f, c),
                Some(_) => {
                    let k = self.push(group, Func::Replace, vec![a.clone()], 1, a.at)?;
                    a.r = Ref::Op(k);
                    a.sel = Sel::Own;
                    a.one_minus = false;
                }
            }
        }
        self.ops.push(OpN {
            group,
            func,
            args,
            scale,
            at,
        });
        Ok(self.ops.len() - 1)
    }

    /// An operand reading operation `k`'s result, whose GLSL interval follows from its
    /// function and its operands' intervals.
    fn op_arg(&mut self, k: usize, at: E) -> Arg {
        let (lo, hi) = op_interval(&self.ops[k]);
        Arg {
            r: Ref::Op(k),
            sel: Sel::Own,
            one_minus: false,
            lo,
            hi,
            at,
        }
    }

    fn sum(&mut self, g: &G, group: Group) -> Result<Arg, Why> {
        let n = Self::lanes(group);
        if let GK::Add(x, y) = &g.k {
            if let Some(a) = self.mix(x, y, group, g)? {
                return Ok(a);
            }
        }
        let mut terms = Vec::new();
        let mut k = vec![0.0; n];
        flatten_sum(g, false, &mut terms, &mut k);
        let mut pos: Vec<Term> = Vec::new();
        let mut neg: Vec<Term> = Vec::new();
        for (is_neg, t) in &terms {
            if *is_neg {
                neg.push(Term::G(t));
            } else {
                pos.push(Term::G(t));
            }
        }
        // `1 - x` is an operand: a constant 1 and a subtracted term make one, and so do a
        // constant -1 and an added term (`x - 1` is `-(1 - x)`).
        if all(&k, 1.0) && !neg.is_empty() {
            let a = self.one_minus(&neg.remove(0), group, g)?;
            if pos.is_empty() && neg.is_empty() {
                return Ok(a);
            }
            pos.push(Term::Arg(a));
            k.iter_mut().for_each(|x| *x = 0.0);
        } else if all(&k, -1.0) && !pos.is_empty() {
            let a = self.one_minus(&pos.remove(0), group, g)?;
            neg.push(Term::Arg(a));
            k.iter_mut().for_each(|x| *x = 0.0);
        }
        // x + y - 0.5: ADD_SIGNED.
        if all(&k, -0.5) && neg.is_empty() && (1..=2).contains(&pos.len()) {
            let mut args = Vec::new();
            for t in &pos {
                args.push(self.term(t, group)?);
            }
            if args.len() == 1 {
                args.push(self.constant(&vec![0.0; n], group, g.at)?);
            }
            let op = self.push(group, Func::AddSigned, args, 1, g.at)?;
            return Ok(self.op_arg(op, g.at));
        }
        // a + c * t with constants a and a + c in [0, 1] (`mix` of two constants, folded):
        // INTERPOLATE [a + c, a, t].
        if neg.is_empty() && pos.len() == 1 && k.iter().any(|x| x.abs() > 1e-9) {
            if let Term::G(x) = &pos[0] {
                let p = product(x, n);
                let b: Vec<f64> = k.iter().zip(&p.coefficient).map(|(a, c)| a + c).collect();
                if !p.factors.is_empty()
                    && p.coefficient.iter().any(|c| *c < 0.0)
                    && b.iter().chain(&k).all(|v| within(*v, *v))
                {
                    let weight = Product {
                        factors: p.factors.clone(),
                        coefficient: vec![1.0; n],
                    };
                    let t = self.weight(weight, group, g)?;
                    let b = self.constant(&b, group, g.at)?;
                    let a = self.constant(&k, group, g.at)?;
                    let op = self.push(group, Func::Interpolate, vec![b, a, t], 1, g.at)?;
                    return Ok(self.op_arg(op, g.at));
                }
            }
        }
        // x + k with k of either sign, k + 0.5 in [0, 1]: ADD_SIGNED with a constant.
        let shifted: Vec<f64> = k.iter().map(|x| x + 0.5).collect();
        if neg.is_empty()
            && pos.len() == 1
            && k.iter().any(|x| *x < -1e-9)
            && shifted.iter().all(|x| within(*x, *x))
        {
            let x = self.term(&pos[0], group)?;
            let c = self.constant(&shifted, group, g.at)?;
            let op = self.push(group, Func::AddSigned, vec![x, c], 1, g.at)?;
            return Ok(self.op_arg(op, g.at));
        }
        if k.iter().any(|x| x.abs() > 1e-9) {
            if k.iter().all(|x| *x >= 0.0) {
                pos.push(Term::Arg(self.constant(&k, group, g.at)?));
            } else if k.iter().all(|x| *x <= 0.0) {
                let m: Vec<f64> = k.iter().map(|x| -x).collect();
                neg.push(Term::Arg(self.constant(&m, group, g.at)?));
            } else {
                return Err((
                    "a constant with positive and negative channels added to a colour".into(),
                    g.at,
                ));
            }
        }
        if pos.is_empty() {
            return Err((
                "a value that is never positive: the combiners' values are in [0, 1]".into(),
                g.at,
            ));
        }
        let p = self.positive_sum(pos, group, g)?;
        if neg.is_empty() {
            return Ok(p);
        }
        let n = self.positive_sum(neg, group, g)?;
        let op = self.push(group, Func::Subtract, vec![p, n], 1, g.at)?;
        Ok(self.op_arg(op, g.at))
    }

    /// `1 - t` as an operand.
    fn one_minus(&mut self, t: &Term, group: Group, g: &G) -> Result<Arg, Why> {
        let mut a = self.term(t, group)?;
        if !within(a.lo, a.hi) {
            return Err(match t {
                Term::G(x) => self.range(x, a.lo, a.hi),
                Term::Arg(_) => self.range(g, a.lo, a.hi),
            });
        }
        a.one_minus = !a.one_minus;
        (a.lo, a.hi) = (1.0 - a.hi, 1.0 - a.lo);
        a.at = g.at;
        Ok(a)
    }

    fn term(&mut self, t: &Term, group: Group) -> Result<Arg, Why> {
        match t {
            Term::G(g) => self.value(g, group),
            Term::Arg(a) => Ok(a.clone()),
        }
    }

    /// The sum of `terms`, all non-negative.
    fn positive_sum(&mut self, mut terms: Vec<Term>, group: Group, g: &G) -> Result<Arg, Why> {
        if terms.len() == 1 {
            let t = terms.pop().unwrap_or(Term::G(g));
            return self.term(&t, group);
        }
        let n = Self::lanes(group);
        if terms.len() == 2 {
            if let (Term::G(x), Term::G(y)) = (&terms[0], &terms[1]) {
                if let Some(a) = self.mix(x, y, group, g)? {
                    return Ok(a);
                }
            }
        }
        // A product term: MULTIPLY_ADD with the sum of the others.
        let prod = terms.iter().position(|t| match t {
            Term::G(x) => {
                let p = product(x, n);
                p.factors.len() + usize::from(!all(&p.coefficient, 1.0)) >= 2
                    && p.coefficient.iter().all(|c| *c >= 0.0 && *c <= 1.0)
            }
            Term::Arg(_) => false,
        });
        if let Some(i) = prod {
            let Term::G(x) = terms.remove(i) else {
                unreachable!()
            };
            let mut p = product(x, n);
            let (a, b) = self.two_factors(&mut p, group, x)?;
            let rest = self.positive_sum(terms, group, g)?;
            let op = self.push(group, Func::MultiplyAdd, vec![a, b, rest], 1, g.at)?;
            return Ok(self.op_arg(op, g.at));
        }
        let last = terms.pop().unwrap_or(Term::G(g));
        let first = self.positive_sum(terms, group, g)?;
        let last = self.term(&last, group)?;

        let op = self.push(group, Func::Add, vec![first, last], 1, g.at)?;
        Ok(self.op_arg(op, g.at))
    }

    /// A product's value as two operands (the first of them the product of all factors
    /// but the last); the coefficient must be in [0, 1].
    fn two_factors(&mut self, p: &mut Product, group: Group, g: &G) -> Result<(Arg, Arg), Why> {
        let mut args: Vec<Arg> = Vec::new();
        if !all(&p.coefficient, 1.0) {
            args.push(self.constant(&p.coefficient.clone(), group, g.at)?);
        }
        for f in p.factors.clone() {
            args.push(self.value(f, group)?);
        }
        while args.len() > 2 {
            let b = args.remove(1);
            let a = args.remove(0);
            let op = self.push(group, Func::Modulate, vec![a, b], 1, g.at)?;
            args.insert(0, self.op_arg(op, g.at));
        }
        let b = args
            .pop()
            .ok_or_else(|| ("an empty product".to_string(), g.at))?;
        let a = args
            .pop()
            .ok_or_else(|| ("an empty product".to_string(), g.at))?;
        Ok((a, b))
    }

    /// `mix(a, b, t)` as `a + (b - a) * t` or `a * (1 - t) + b * t`: INTERPOLATE [b, a, t].
    fn mix(&mut self, x: &G, y: &G, group: Group, g: &G) -> Result<Option<Arg>, Why> {
        let Some((b, a, t)) = mix_parts(x, y, Self::lanes(group)) else {
            return Ok(None);
        };
        let t = self.weight(t, group, g)?;
        self.interpolate(b, a, t, group, g).map(Some)
    }

    /// A product's value as one operand (its coefficient in [0, 1]).
    fn weight(&mut self, mut p: Product, group: Group, g: &G) -> Result<Arg, Why> {
        let constant = !all(&p.coefficient, 1.0);
        match (p.factors.as_slice(), constant) {
            ([], _) => self.constant(&p.coefficient.clone(), group, g.at),
            ([one], false) => self.value(one, group),
            _ => {
                let (a, b) = self.two_factors(&mut p, group, g)?;
                let op = self.push(group, Func::Modulate, vec![a, b], 1, g.at)?;
                Ok(self.op_arg(op, g.at))
            }
        }
    }

    fn interpolate(&mut self, b: &G, a: &G, t: Arg, group: Group, g: &G) -> Result<Arg, Why> {
        let b = self.value(b, group)?;
        let a = self.value(a, group)?;

        let op = self.push(group, Func::Interpolate, vec![b, a, t], 1, g.at)?;
        Ok(self.op_arg(op, g.at))
    }

    fn product(&mut self, mut p: Product, group: Group, g: &G) -> Result<Arg, Why> {
        if p.coefficient.iter().any(|c| *c < 0.0) {
            return Err((
                "a product with a negative factor: the combiners' values are never negative".into(),
                g.at,
            ));
        }
        // The scale: 2 or 4 when the coefficient is above 1.
        let most = p.coefficient.iter().copied().fold(0.0, f64::max);
        let scale: u8 = if most <= 1.0 + 1e-9 {
            1
        } else if most <= 2.0 + 1e-9 {
            2
        } else if most <= 4.0 + 1e-9 {
            4
        } else {
            return Err((
                format!(
                    "a factor of {most}: a stage scales its result by 1, 2 or 4 at most (two \
                     stages would clamp in between)"
                ),
                g.at,
            ));
        };
        for c in &mut p.coefficient {
            *c /= f64::from(scale);
        }
        if let [f] = p.factors.as_slice() {
            if let GK::Dot(_) = f.k {
                let c: Vec<f64> = p.coefficient.iter().map(|c| c * f64::from(scale)).collect();
                return self.dot3(f, &c, group, g);
            }
        }
        // min(x + y, 1) * z: ADD_MULTIPLY.
        if all(&p.coefficient, 1.0) && p.factors.len() == 2 {
            for i in 0..2 {
                if let GK::Min(s, one) = &p.factors[i].k {
                    let (s, one) = if matches!(one.k, GK::Num(_)) {
                        (s, one)
                    } else {
                        (one, s)
                    };
                    if matches!(&one.k, GK::Num(nn) if all(&nums(nn), 1.0)) {
                        if let GK::Add(x, y) = &s.k {
                            let x = self.value(x, group)?;
                            let y = self.value(y, group)?;
                            let z = self.value(p.factors[1 - i], group)?;
                            let op =
                                self.push(group, Func::AddMultiply, vec![x, y, z], scale, g.at)?;
                            return Ok(self.op_arg(op, g.at));
                        }
                    }
                }
            }
        }
        let count = p.factors.len() + usize::from(!all(&p.coefficient, 1.0));
        if count == 1 && scale == 1 {
            return match p.factors.first() {
                Some(f) => self.value(f, group),
                None => self.constant(&p.coefficient.clone(), group, g.at),
            };
        }
        if count == 1 {
            // x * 2 or x * 4: the scale of the stage computing x, or a scaled REPLACE.
            let x = match p.factors.first() {
                Some(f) => self.value(f, group)?,
                None => self.constant(&p.coefficient.clone(), group, g.at)?,
            };
            if let Ref::Op(k) = x.r {
                if x.sel == Sel::Own && !x.one_minus && self.ops[k].scale == 1 && !self.used(k) {
                    let mut op = self.ops[k].clone();
                    op.scale = scale;
                    op.at = g.at;
                    self.ops.push(op);
                    let k2 = self.ops.len() - 1;
                    return Ok(self.op_arg(k2, g.at));
                }
            }
            let op = self.push(group, Func::Replace, vec![x], scale, g.at)?;
            return Ok(self.op_arg(op, g.at));
        }
        let (a, b) = self.two_factors(&mut p, group, g)?;
        let op = self.push(group, Func::Modulate, vec![a, b], scale, g.at)?;
        Ok(self.op_arg(op, g.at))
    }

    /// Whether operation `k` is read by another operation.
    fn used(&self, k: usize) -> bool {
        self.ops
            .iter()
            .any(|o| o.args.iter().any(|a| a.r == Ref::Op(k)))
    }

    /// `coefficient * dot(…)` as DOT3_RGB: each side `k * (x.c - 0.5)` of the r, g and b
    /// channels of one value `x`, and the whole `4 * Σ (x.c - 0.5)(y.c - 0.5)` times 1, 2
    /// or 4.
    fn dot3(&mut self, d: &G, coefficient: &[f64], group: Group, g: &G) -> Result<Arg, Why> {
        let refuse = |why: &str| -> Result<Arg, Why> {
            Err((
                format!(
                    "a dot product the combiners cannot compute ({why}): DOT3 computes \
                     4 · ((a.r - 0.5)(b.r - 0.5) + (a.g - 0.5)(b.g - 0.5) + (a.b - 0.5)(b.b - \
                     0.5)), as in `dot(n.rgb * 2.0 - 1.0, l.rgb * 2.0 - 1.0)`, of a texture, the \
                     colour varying or a constant"
                ),
                g.at,
            ))
        };
        let GK::Dot(pairs) = &d.k else {
            return refuse("not a dot product");
        };
        if group == Group::Alpha {
            return refuse("its result goes to alpha");
        }
        if pairs.len() != 3 {
            return refuse("not over three channels");
        }
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for (p, q) in pairs {
            let (Some(a), Some(b)) = (affine(p), affine(q)) else {
                return refuse("a side is not k * (x - 0.5) of one value's channel");
            };
            x.push(a);
            y.push(b);
        }
        let side = |v: &[(f64, Leaf, u8, f64)]| -> Option<(f64, Leaf)> {
            let (k, leaf, _, m) = v[0];
            let ok = v.iter().enumerate().all(|(c, (k2, l2, ch, m2))| {
                *l2 == leaf
                    && usize::from(*ch) == c
                    && (k2 - k).abs() < 1e-6
                    && (m2 - m).abs() < 1e-6
            }) && (m + k / 2.0).abs() < 1e-6;
            ok.then_some((k, leaf))
        };
        let (Some((kx, lx)), Some((ky, ly))) = (side(&x), side(&y)) else {
            return refuse("its sides are not k * (x - 0.5) of the r, g, b of one value each");
        };
        if coefficient
            .iter()
            .any(|c| (c - coefficient[0]).abs() > 1e-6)
        {
            return refuse("it is scaled differently per channel");
        }
        let total = coefficient[0] * kx * ky / 4.0;
        let scale = [1u8, 2, 4]
            .into_iter()
            .find(|s| (f64::from(*s) - total).abs() < 1e-6);
        let Some(scale) = scale else {
            return refuse(&format!("its factor is {total} of DOT3's, not 1, 2 or 4"));
        };
        let leaf_arg = |leaf: Leaf| -> Arg {
            let r = match leaf {
                Leaf::Uniform(reg) => Ref::Const(Konst::Uniform(reg)),
                l => Ref::Leaf(l),
            };
            Arg {
                r,
                sel: Sel::Own,
                one_minus: false,
                lo: 0.0,
                hi: 1.0,
                at: g.at,
            }
        };
        let a = leaf_arg(lx);
        let b = leaf_arg(ly);
        let op = self.push(group, Func::Dot3Rgb, vec![a, b], scale, g.at)?;
        Ok(self.op_arg(op, g.at))
    }
}

/// The interval of what operation `op` computes, as GLSL computes it from its operands'
/// values (before the stage's clamp).
fn op_interval(op: &OpN) -> (f64, f64) {
    let a = |i: usize| op.args.get(i).map_or((0.0, 1.0), |x| (x.lo, x.hi));
    let add = |x: (f64, f64), y: (f64, f64)| (x.0 + y.0, x.1 + y.1);
    let (lo, hi) = match op.func {
        Func::Replace => a(0),
        Func::Modulate => mul(a(0), a(1)),
        Func::Add => add(a(0), a(1)),
        Func::AddSigned => {
            let s = add(a(0), a(1));
            (s.0 - 0.5, s.1 - 0.5)
        }
        Func::Interpolate => (a(0).0.min(a(1).0), a(0).1.max(a(1).1)),
        Func::Subtract => (a(0).0 - a(1).1, a(0).1 - a(1).0),
        Func::Dot3Rgb | Func::Dot3Rgba => (-3.0, 3.0),
        Func::MultiplyAdd => add(mul(a(0), a(1)), a(2)),
        Func::AddMultiply => {
            let s = add(a(0), a(1));
            mul((s.0.min(1.0), s.1.min(1.0)), a(2))
        }
    };
    let k = f64::from(op.scale);
    (lo * k, hi * k)
}

/// `g` as `k * leaf.channel + m` (a scalar expression).
fn affine(g: &G) -> Option<(f64, Leaf, u8, f64)> {
    let num = |x: &G| match &x.k {
        GK::Num(n) => Some(nums(n)[0]),
        _ => None,
    };
    match &g.k {
        GK::Src(leaf, Sel::Chan(c)) => Some((1.0, *leaf, *c, 0.0)),
        GK::Add(a, b) => {
            if let Some(n) = num(b) {
                affine(a).map(|(k, l, c, m)| (k, l, c, m + n))
            } else {
                let n = num(a)?;
                affine(b).map(|(k, l, c, m)| (k, l, c, m + n))
            }
        }
        GK::Sub(a, b) => {
            if let Some(n) = num(b) {
                affine(a).map(|(k, l, c, m)| (k, l, c, m - n))
            } else {
                let n = num(a)?;
                affine(b).map(|(k, l, c, m)| (-k, l, c, n - m))
            }
        }
        GK::Mul(a, b) => {
            if let Some(n) = num(b) {
                affine(a).map(|(k, l, c, m)| (k * n, l, c, m * n))
            } else {
                let n = num(a)?;
                affine(b).map(|(k, l, c, m)| (k * n, l, c, m * n))
            }
        }
        GK::Neg(a) => affine(a).map(|(k, l, c, m)| (-k, l, c, -m)),
        _ => None,
    }
}

/// Two constant needs merged, if one colour satisfies both.
pub fn compatible(a: &Konst, b: &Konst) -> Option<Konst> {
    match (a, b) {
        (Konst::Uniform(x), Konst::Uniform(y)) if x == y => Some(a.clone()),
        (Konst::Lanes(x), Konst::Lanes(y)) => {
            let mut out = x.clone();
            for &(lane, v) in y {
                match out.iter().find(|(l, _)| *l == lane) {
                    Some((_, w)) if *w != v => return None,
                    Some(_) => {}
                    None => out.push((lane, v)),
                }
            }
            out.sort_unstable();
            Some(Konst::Lanes(out))
        }
        _ => None,
    }
}

/// Selects the operations of `rgb` and `alpha`.
pub fn select(rgb: &G, alpha: &G) -> Result<Selected, Why> {
    let mut s = Select::new();
    let r = s.root(rgb, Group::Rgb)?;
    let a = s.root(alpha, Group::Alpha)?;
    Ok(Selected {
        ops: s.ops,
        roots: [r, a],
    })
}
