//! A fragment program's MIR as one expression per lane: the colour's r, g, b and a, and
//! the discard condition, over the values the combiners can read (the colour varying, the
//! texture units' samples, uniforms) and numbers. The expressions are hash-consed, so equal
//! subexpressions are one node, and each node keeps the span of the instruction that first
//! made it, for diagnostics.

use std::collections::HashMap;

use mir::Span;
use mir::func::{Terminator, Value};
use mir::inst::{CmpOp, Op, Operand, SampleKind};
use mir::module::{Module, TextureDim};

use super::config::{TextureKind, TextureUnit};

/// A node of the expression graph.
pub type E = u32;

/// What an expression reads: the only values a combiner has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Leaf {
    /// An input (varying) read as a value: the colour varying.
    Input(usize),
    /// A texture unit's sample.
    Texture(u8),
    /// A uniform register.
    Uniform(u32),
}

/// One node: a lane's value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// A number (f32 bits).
    Num(u32),
    /// One lane (0–3) of a leaf.
    Leaf(Leaf, u8),
    /// `a + b`.
    Add(E, E),
    /// `a - b`.
    Sub(E, E),
    /// `a * b`.
    Mul(E, E),
    /// `-a`.
    Neg(E),
    /// `|a|`.
    Abs(E),
    /// `min(a, b)`.
    Min(E, E),
    /// `max(a, b)`.
    Max(E, E),
    /// `clamp(a, 0, 1)`.
    Sat(E),
    /// `Σ a_i * b_i` (a dot product).
    Dot(Vec<(E, E)>),
    /// What the combiners cannot compute, and why.
    Bad(String),
}

/// The discard condition: the fragment is discarded when `a OP b`.
#[derive(Clone, Copy, Debug)]
pub struct Kill {
    /// The comparison.
    pub op: CmpOp,
    /// Its operands.
    pub a: E,
    /// Its operands.
    pub b: E,
    /// Where.
    pub span: Span,
}

/// The program as lane expressions.
pub struct Lanes {
    /// The nodes.
    pub nodes: Vec<Node>,
    /// Each node's span.
    pub spans: Vec<Span>,
    map: HashMap<Node, E>,
    /// The colour output's four lanes.
    pub color: [E; 4],
    /// Where the output was written.
    pub color_span: Span,
    /// The discard, if any: `Err` when the program always discards.
    pub kill: Option<Result<Kill, Span>>,
    /// The texture units, by unit number.
    pub textures: Vec<TextureUnit>,
    /// Input whose value a texture unit reads, by input index.
    pub coordinates: Vec<usize>,
}

/// Why the program is not lane expressions at all, and where.
pub type Refusal = (String, Span);

impl Lanes {
    /// Builds the lanes of `m`'s single block.
    pub fn of(m: &Module) -> Result<Lanes, Refusal> {
        let f = &m.function;
        let mut l = Lanes {
            nodes: Vec::new(),
            spans: Vec::new(),
            map: HashMap::new(),
            color: [0; 4],
            color_span: Span::default(),
            kill: None,
            textures: Vec::new(),
            coordinates: Vec::new(),
        };
        if f.layout.len() != 1 {
            // A loop left after unrolling, or a branch left after if-conversion.
            let looped = f.layout.iter().find(|b| {
                matches!(
                    f.blocks[**b].structure,
                    Some(mir::func::Structure::Loop { .. })
                )
            });
            if let Some(b) = looped {
                return Err((
                    "a loop that does not unroll (its trip count is not a constant, or it runs \
                     more than 64 times, or unrolled it is too large): the combiners compute a \
                     fixed sequence of at most six stages"
                        .into(),
                    f.blocks[*b].span,
                ));
            }
            let at = f
                .layout
                .get(1)
                .map_or(Span::default(), |b| f.blocks[*b].span);
            return Err((
                "a branch that does not fold away: the combiners compute every stage for \
                 every fragment, so an `if` must become a choice of values, and these are \
                 comparisons the combiners cannot make"
                    .into(),
                at,
            ));
        }
        let block = &f.blocks[f.layout[0]];
        let mut values: HashMap<Value, [E; 4]> = HashMap::new();
        for &i in &block.insts {
            let inst = &f.insts[i];
            let span = inst.span;
            let read = |l: &mut Lanes, values: &HashMap<Value, [E; 4]>, o: &Operand| {
                l.read(values, o, span)
            };
            let bad = |l: &mut Lanes, why: String| {
                let e = l.node(Node::Bad(why), span);
                [e; 4]
            };
            let lanes: [E; 4] = match inst.op {
                Op::Const(bits) => bits.map(|b| l.node(Node::Num(b), span)),
                Op::LoadInput(id) => {
                    let k = id.index() as u8;
                    std::array::from_fn(|lane| {
                        l.node(Node::Leaf(Leaf::Input(k as usize), lane as u8), span)
                    })
                }
                Op::LoadUniform { register } if inst.args.is_empty() => {
                    std::array::from_fn(|lane| {
                        l.node(Node::Leaf(Leaf::Uniform(register), lane as u8), span)
                    })
                }
                Op::LoadUniform { .. } => bad(
                    &mut l,
                    "a uniform array read at a computed index (a combiner stage's constant \
                     is one fixed colour)"
                        .into(),
                ),
                Op::Sample {
                    sampler,
                    kind,
                    proj,
                } => match l.sample(m, values_input(f, &inst.args[0]), sampler, kind, proj) {
                    Ok(unit) => std::array::from_fn(|lane| {
                        l.node(Node::Leaf(Leaf::Texture(unit), lane as u8), span)
                    }),
                    Err(why) => bad(&mut l, why),
                },
                Op::Mov => read(&mut l, &values, &inst.args[0]),
                Op::Add | Op::Sub | Op::Mul | Op::Min | Op::Max | Op::Div => {
                    let a = read(&mut l, &values, &inst.args[0]);
                    let b = read(&mut l, &values, &inst.args[1]);
                    let mut out = [0; 4];
                    for k in 0..4 {
                        out[k] = match inst.op {
                            Op::Add => l.node(Node::Add(a[k], b[k]), span),
                            Op::Sub => l.node(Node::Sub(a[k], b[k]), span),
                            Op::Mul => l.node(Node::Mul(a[k], b[k]), span),
                            Op::Min => l.node(Node::Min(a[k], b[k]), span),
                            Op::Max => l.node(Node::Max(a[k], b[k]), span),
                            _ => match l.nodes[b[k] as usize] {
                                Node::Num(bits) if f32::from_bits(bits) != 0.0 => {
                                    let r = l.node(
                                        Node::Num((1.0 / f32::from_bits(bits)).to_bits()),
                                        span,
                                    );
                                    l.node(Node::Mul(a[k], r), span)
                                }
                                _ => l.node(
                                    Node::Bad(
                                        "a division by a value that is not a constant (the \
                                         combiners multiply, add and subtract; they cannot \
                                         divide)"
                                            .into(),
                                    ),
                                    span,
                                ),
                            },
                        };
                    }
                    out
                }
                Op::Mad => {
                    let a = read(&mut l, &values, &inst.args[0]);
                    let b = read(&mut l, &values, &inst.args[1]);
                    let c = read(&mut l, &values, &inst.args[2]);
                    std::array::from_fn(|k| {
                        let p = l.node(Node::Mul(a[k], b[k]), span);
                        l.node(Node::Add(p, c[k]), span)
                    })
                }
                Op::Sat => {
                    let a = read(&mut l, &values, &inst.args[0]);
                    a.map(|x| l.node(Node::Sat(x), span))
                }
                Op::Dot(n) => {
                    let a = read(&mut l, &values, &inst.args[0]);
                    let b = read(&mut l, &values, &inst.args[1]);
                    let pairs = (0..n as usize).map(|k| (a[k], b[k])).collect();
                    let d = l.node(Node::Dot(pairs), span);
                    [d; 4]
                }
                Op::Construct => {
                    let mut out = [0; 4];
                    for (k, o) in inst.args.iter().enumerate().take(4) {
                        out[k] = read(&mut l, &values, o)[0];
                    }
                    out
                }
                Op::Kill => {
                    l.kill(f, &values, &inst.args[0], span)?;
                    continue;
                }
                other => {
                    let why = match other {
                        Op::Sin | Op::Cos => "a sine or cosine",
                        Op::Pow | Op::Exp2 | Op::Log2 => "a power, exponential or logarithm",
                        Op::Sqrt | Op::Rsq | Op::Normalize => "a square root (or normalize)",
                        Op::Rcp => "a reciprocal (a division by a varying value)",
                        Op::Floor
                        | Op::Ceil
                        | Op::Fract
                        | Op::Trunc
                        | Op::Round
                        | Op::RoundEven
                        | Op::Sign => "a rounding (floor, fract, step …)",
                        Op::Ddx | Op::Ddy => "a derivative",
                        Op::FragCoord => "gl_FragCoord",
                        Op::Cmp(_) | Op::Select | Op::BoolToFloat | Op::And | Op::Or | Op::Not => {
                            "a comparison that chooses a value (the only comparison the fragment \
                             stage makes is the alpha test, of the final alpha against a constant)"
                        }
                        Op::Cross | Op::MatVec(_) | Op::Dph => "a matrix or cross product",
                        _ => "an operation",
                    };
                    let why = format!(
                        "{why} ({}), which no combiner function computes: the combiners \
                         multiply, add, subtract, interpolate and take dot3 products of 8-bit \
                         values in [0, 1]",
                        other.name()
                    );
                    bad(&mut l, why)
                }
            };
            if let Some(r) = inst.result() {
                values.insert(r, lanes);
            }
        }
        match &block.term {
            Terminator::Return(outs) => {
                if m.outputs.len() > 1 {
                    return Err((
                        format!(
                            "{} outputs ({}): the fragment stage writes one colour",
                            m.outputs.len(),
                            m.outputs
                                .iter()
                                .map(|o| o.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        block.span,
                    ));
                }
                let mut color = None;
                for (o, out) in outs.iter().zip(&m.outputs) {
                    if out.builtin.is_some() || out.location.unwrap_or(0) != 0 {
                        return Err((
                            format!(
                                "the output '{}' is not the colour at location 0: the fragment \
                                 stage writes one colour",
                                out.name
                            ),
                            block.span,
                        ));
                    }
                    color = Some(l.read(&values, o, block.span));
                }
                let Some(mut c) = color else {
                    return Err(("the program writes no colour".into(), block.span));
                };
                let lanes = m.outputs.first().map_or(4, |o| o.lanes) as usize;
                // A vec3 output: alpha 1, as a UNORM framebuffer writes it.
                for lane in c.iter_mut().skip(lanes) {
                    *lane = l.node(Node::Num(1.0f32.to_bits()), block.span);
                }
                l.color = c;
                l.color_span = f.def_inst(outs[0].value).map_or(block.span, |i| i.span);
            }
            Terminator::Discard => {
                // Every fragment is discarded: the colour does not matter.
                let zero = l.node(Node::Num(0), block.span);
                l.color = [zero; 4];
                l.color_span = block.span;
                l.kill = Some(Err(block.span));
            }
            _ => return Err(("the program does not end".into(), block.span)),
        }
        Ok(l)
    }

    fn node(&mut self, n: Node, span: Span) -> E {
        if let Some(&e) = self.map.get(&n) {
            return e;
        }
        let e = self.nodes.len() as E;
        self.nodes.push(n.clone());
        self.spans.push(span);
        self.map.insert(n, e);
        e
    }

    fn read(&mut self, values: &HashMap<Value, [E; 4]>, o: &Operand, span: Span) -> [E; 4] {
        let base = values.get(&o.value).copied().unwrap_or_else(|| {
            let e = self.node(Node::Bad("a value from another block".into()), span);
            [e; 4]
        });
        std::array::from_fn(|k| {
            let mut e = base[o.swizzle.lane(k) as usize];
            if o.abs {
                e = self.node(Node::Abs(e), span);
            }
            if o.neg {
                e = self.node(Node::Neg(e), span);
            }
            e
        })
    }

    /// The unit a sample reads; the coordinate must be a varying as it arrives.
    fn sample(
        &mut self,
        m: &Module,
        coordinate: Option<(usize, Operand)>,
        sampler: mir::module::SamplerId,
        kind: SampleKind,
        proj: bool,
    ) -> Result<u8, String> {
        let s = &m.samplers[sampler];
        if proj {
            return Err("a projective texture read (textureProj)".into());
        }
        if kind != SampleKind::Implicit {
            return Err(
                "a texture read with a bias or level of detail (the combiners' texture units \
                 choose the level themselves)"
                    .into(),
            );
        }
        let kind = match s.dim {
            TextureDim::D2 => TextureKind::D2,
            TextureDim::Cube => TextureKind::Cube,
            #[allow(unreachable_patterns)]
            _ => return Err(format!("a texture of kind {:?}", s.dim)),
        };
        let lanes = if kind == TextureKind::Cube { 3 } else { 2 };
        let as_it_arrives =
            |o: &Operand| !o.neg && !o.abs && (0..lanes).all(|k| o.swizzle.lane(k) as usize == k);
        let Some(input) = coordinate.filter(|(_, o)| as_it_arrives(o)).map(|(i, _)| i) else {
            return Err(format!(
                "a texture read of '{}' at a computed coordinate: a texture unit reads its \
                 coordinate from the vertex program's texcoord output as it arrives, so compute \
                 it in the vertex shader",
                s.name
            ));
        };
        let name = &m.inputs[mir::module::InputId::new(input)].name;
        if let Some(t) = self.textures.iter().find(|t| t.binding == s.binding) {
            if t.varying != *name {
                return Err(format!(
                    "'{}' read at two coordinates ('{}' and '{name}'): a texture unit reads one \
                     coordinate per fragment",
                    s.name, t.varying
                ));
            }
            return Ok(t.unit);
        }
        if self.textures.len() == 3 {
            return Err(format!(
                "a fourth texture ('{}'): the PICA200 has 3 texture units (0, 1, 2)",
                s.name
            ));
        }
        let unit = self.textures.len() as u8;
        self.textures.push(TextureUnit {
            unit,
            sampler: s.name.clone(),
            binding: s.binding,
            varying: name.clone(),
            location: m.inputs[mir::module::InputId::new(input)].location,
            kind,
        });
        self.coordinates.push(input);
        Ok(unit)
    }

    fn kill(
        &mut self,
        f: &mir::func::Function,
        values: &HashMap<Value, [E; 4]>,
        cond: &Operand,
        span: Span,
    ) -> Result<(), Refusal> {
        if self.kill.is_some() {
            return Err((
                "a second discard: the alpha test is one comparison of the final alpha".into(),
                span,
            ));
        }
        let Some(def) = f.def_inst(cond.value) else {
            return Err(("a discard whose condition is not a comparison".into(), span));
        };
        let Op::Cmp(op) = def.op else {
            return Err((
                "a discard whose condition is not one comparison of the colour's alpha with a \
                 constant (the alpha test)"
                    .into(),
                span,
            ));
        };
        let lane = cond.swizzle.lane(0) as usize;
        let a = self.read(values, &def.args[0], def.span)[lane];
        let b = self.read(values, &def.args[1], def.span)[lane];
        self.kill = Some(Ok(Kill { op, a, b, span }));
        Ok(())
    }
}

/// The input an operand reads unchanged, and whether its lanes come in order.
fn values_input(f: &mir::func::Function, o: &Operand) -> Option<(usize, Operand)> {
    let def = f.def_inst(o.value)?;
    let Op::LoadInput(id) = def.op else {
        return None;
    };
    Some((id.index(), *o))
}
