//! The MIR interpreter: runs a module on inputs, uniforms and textures in f32, as the
//! reference the back-end simulators are compared against.
//!
//! Bools are held as 1.0 / 0.0 lanes. Derivatives are 0 (one invocation has no neighbours).
//! `Min`/`Max` return their second operand when either is NaN, as GLSL leaves it open and the
//! PICA200 does it.

use std::fmt;

use crate::func::{BlockId, Function, Terminator};
use crate::inst::{CmpOp, Op, Operand, SampleKind};
use crate::module::{Module, SamplerId};
use crate::shape::operand_lanes;
use crate::types::Kind;

/// Four lanes of a value (lanes past the value's width are 0).
pub type Lanes = [f32; 4];

/// Supplies texels to `Sample`.
pub trait Textures {
    /// The colour of sampler `sampler` at `coord` (2 or 3 lanes used), with the level of
    /// detail chosen by `kind` and `lod` (bias or level).
    fn sample(&self, sampler: SamplerId, coord: Lanes, kind: SampleKind, lod: f32) -> Lanes;
}

/// No textures: sampling gives (0, 0, 0, 1).
pub struct NoTextures;

impl Textures for NoTextures {
    fn sample(&self, _: SamplerId, _: Lanes, _: SampleKind, _: f32) -> Lanes {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// What the program reads.
pub struct Env<'a> {
    /// Input values by input index.
    pub inputs: &'a [Lanes],
    /// Float uniform registers.
    pub uniforms: &'a [Lanes],
    /// Bool uniform registers.
    pub bools: &'a [bool],
    /// Textures.
    pub textures: &'a dyn Textures,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The outputs, in the module's output order.
    Outputs(Vec<Lanes>),
    /// The fragment was discarded.
    Discarded,
}

/// Why a run could not finish.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalError(pub String);

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MIR interpreter: {}", self.0)
    }
}

impl std::error::Error for EvalError {}

/// How many instructions and edges a run may execute before it is taken for a hang.
const STEP_LIMIT: u64 = 10_000_000;

/// Runs the module's entry function.
pub fn run(module: &Module, env: &Env<'_>) -> Result<Outcome, EvalError> {
    let mut steps: u64 = 0;
    let steps = &mut steps;
    let f = &module.function;
    let mut values: Vec<Lanes> = vec![[0.0; 4]; f.values.len()];
    let mut locals: Vec<Lanes> = vec![[0.0; 4]; f.locals.len()];
    let mut block = f.entry;
    loop {
        for &i in &f.blocks[block].insts {
            *steps += 1;
            if *steps > STEP_LIMIT {
                return Err(EvalError(format!(
                    "more than {STEP_LIMIT} steps (an endless loop?)"
                )));
            }
            let inst = &f.insts[i];
            let read = |k: usize| read_operand(f, &values, &inst.args[k]);
            let result: Option<Lanes> = match inst.op {
                Op::LoadInput(input) => {
                    let v = env.inputs.get(input.index()).copied().ok_or_else(|| {
                        EvalError(format!("no value given for input {}", input.index()))
                    })?;
                    Some(v)
                }
                Op::LoadUniform { register } => {
                    let offset = if inst.args.is_empty() {
                        0
                    } else {
                        read(0)[0] as i64
                    };
                    let index = register as i64 + offset;
                    let v = usize::try_from(index)
                        .ok()
                        .and_then(|i| env.uniforms.get(i))
                        .copied()
                        .ok_or_else(|| {
                            EvalError(format!("uniform register {index} is out of range"))
                        })?;
                    Some(v)
                }
                // The interpreter draws one instance, the first.
                Op::InstanceIndex => Some([0.0; 4]),
                // The interpreter draws no primitive: the window's origin.
                Op::FragCoord => Some([0.0, 0.0, 0.0, 1.0]),
                Op::LoadBoolUniform { register } => {
                    let b = env.bools.get(register as usize).copied().ok_or_else(|| {
                        EvalError(format!("bool uniform {register} is out of range"))
                    })?;
                    Some([b as u8 as f32, 0.0, 0.0, 0.0])
                }
                Op::Sample {
                    sampler,
                    kind,
                    proj,
                } => {
                    let mut coord = read(0);
                    if proj {
                        let n = operand_lanes(f, Some(module), inst, 0) as usize;
                        let q = coord[n - 1];
                        for c in coord.iter_mut().take(n - 1) {
                            *c /= q;
                        }
                    }
                    let lod = if inst.args.len() > 1 { read(1)[0] } else { 0.0 };
                    Some(env.textures.sample(sampler, coord, kind, lod))
                }
                Op::Kill => {
                    if read(0)[0] != 0.0 {
                        return Ok(Outcome::Discarded);
                    }
                    None
                }
                Op::LoadLocal(l) => Some(locals[l.index()]),
                Op::StoreLocal(l) => {
                    locals[l.index()] = read(0);
                    None
                }
                _ => {
                    let args: Vec<Lanes> = (0..inst.args.len()).map(read).collect();
                    apply(f, Some(module), inst, &args)
                }
            };
            if let (Some(v), Some(r)) = (result, inst.result()) {
                values[r.index()] = mask(v, f.ty(r).lanes, f.ty(r).kind);
            }
        }
        *steps += 1;
        match &f.blocks[block].term {
            Terminator::Jump(e) => {
                block = take_edge(f, &mut values, e);
            }
            Terminator::Branch {
                cond,
                then,
                otherwise,
            } => {
                let c = read_operand(f, &values, cond)[0] != 0.0;
                block = take_edge(f, &mut values, if c { then } else { otherwise });
            }
            Terminator::Return(results) => {
                // Each output has its own width; lanes past it are zero.
                return Ok(Outcome::Outputs(
                    results
                        .iter()
                        .zip(&module.outputs)
                        .map(|(r, o)| mask(read_operand(f, &values, r), o.lanes, Kind::Float))
                        .collect(),
                ));
            }
            Terminator::Discard => return Ok(Outcome::Discarded),
            Terminator::Unreachable => {
                return Err(EvalError(format!(
                    "reached b{}, marked unreachable",
                    block.index()
                )));
            }
        }
    }
}

/// The value of a pure, interface-free operation on operand lanes already read (with their
/// swizzles and modifiers applied): the semantics the interpreter and constant folding share.
/// `None` for operations with effects or that read the interface.
pub fn apply(
    f: &Function,
    module: Option<&Module>,
    inst: &crate::inst::Inst,
    args: &[Lanes],
) -> Option<Lanes> {
    let read = |k: usize| args[k];
    let lanes = inst.result().map_or(4, |v| f.ty(v).lanes) as usize;
    let lanewise1 = |g: fn(f32) -> f32| -> Lanes {
        let a = read(0);
        std::array::from_fn(|l| if l < lanes { g(a[l]) } else { 0.0 })
    };
    let lanewise2 = |g: fn(f32, f32) -> f32| -> Lanes {
        let (a, b) = (read(0), read(1));
        std::array::from_fn(|l| if l < lanes { g(a[l], b[l]) } else { 0.0 })
    };
    match inst.op {
        Op::Mov => Some(read(0)),
        Op::Floor => Some(lanewise1(f32::floor)),
        Op::Ceil => Some(lanewise1(f32::ceil)),
        Op::Trunc => Some(lanewise1(f32::trunc)),
        Op::Round => Some(lanewise1(f32::round)),
        Op::RoundEven => Some(lanewise1(f32::round_ties_even)),
        Op::Fract => Some(lanewise1(|x| x - x.floor())),
        Op::Sign => Some(lanewise1(|x| {
            if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                0.0
            }
        })),
        Op::Rcp => Some(lanewise1(|x| 1.0 / x)),
        Op::Rsq => Some(lanewise1(|x| 1.0 / x.sqrt())),
        Op::Sqrt => Some(lanewise1(f32::sqrt)),
        Op::Exp2 => Some(lanewise1(f32::exp2)),
        Op::Log2 => Some(lanewise1(f32::log2)),
        Op::Sin => Some(lanewise1(f32::sin)),
        Op::Cos => Some(lanewise1(f32::cos)),
        Op::Sat => Some(lanewise1(|x| max(min(x, 1.0), 0.0))),
        Op::Ddx | Op::Ddy => Some([0.0; 4]),
        Op::Add => Some(lanewise2(|a, b| a + b)),
        Op::Sub => Some(lanewise2(|a, b| a - b)),
        Op::Mul => Some(lanewise2(|a, b| a * b)),
        Op::Div => Some(lanewise2(|a, b| a / b)),
        Op::Min => Some(lanewise2(min)),
        Op::Max => Some(lanewise2(max)),
        Op::Pow => Some(lanewise2(f32::powf)),
        Op::Mad => {
            let (a, b, c) = (read(0), read(1), read(2));
            Some(std::array::from_fn(|l| {
                if l < lanes { a[l] * b[l] + c[l] } else { 0.0 }
            }))
        }
        Op::Dot(n) => {
            let (a, b) = (read(0), read(1));
            Some([(0..n as usize).map(|l| a[l] * b[l]).sum(), 0.0, 0.0, 0.0])
        }
        Op::Dph => {
            let (a, b) = (read(0), read(1));
            Some([
                a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + b[3],
                0.0,
                0.0,
                0.0,
            ])
        }
        Op::Cross => {
            let (a, b) = (read(0), read(1));
            Some([
                a[1] * b[2] - a[2] * b[1],
                a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0],
                0.0,
            ])
        }
        Op::MatVec(n) => {
            let v = read(n as usize);
            let mut out = [0.0; 4];
            for (c, &scale) in v.iter().enumerate().take(n as usize) {
                let col = read(c);
                for (l, o) in out.iter_mut().enumerate().take(lanes) {
                    *o += col[l] * scale;
                }
            }
            Some(out)
        }
        Op::Normalize => {
            let a = read(0);
            let len = (0..lanes).map(|l| a[l] * a[l]).sum::<f32>().sqrt();
            Some(std::array::from_fn(|l| {
                if l < lanes { a[l] / len } else { 0.0 }
            }))
        }
        Op::Cmp(c) => {
            let (a, b) = (read(0), read(1));
            Some(std::array::from_fn(|l| {
                let t = match c {
                    CmpOp::Lt => a[l] < b[l],
                    CmpOp::Le => a[l] <= b[l],
                    CmpOp::Gt => a[l] > b[l],
                    CmpOp::Ge => a[l] >= b[l],
                    CmpOp::Eq => a[l] == b[l],
                    CmpOp::Ne => a[l] != b[l],
                };
                if l < lanes && t { 1.0 } else { 0.0 }
            }))
        }
        Op::And => Some(lanewise2(|a, b| ((a != 0.0) && (b != 0.0)) as u8 as f32)),
        Op::Or => Some(lanewise2(|a, b| ((a != 0.0) || (b != 0.0)) as u8 as f32)),
        Op::Not => Some(lanewise1(|a| (a == 0.0) as u8 as f32)),
        Op::BoolToFloat => Some(read(0)),
        Op::Select => {
            let (c, a, b) = (read(0), read(1), read(2));
            let scalar =
                f.ty(inst.args[0].value).lanes == 1 && operand_lanes(f, module, inst, 0) == 1;
            Some(std::array::from_fn(|l| {
                let cond = if scalar { c[0] } else { c[l] };
                if cond != 0.0 { a[l] } else { b[l] }
            }))
        }
        Op::Const(bits) => {
            let kind = inst.result().map_or(Kind::Float, |r| f.ty(r).kind);
            Some(bits.map(|b| match kind {
                Kind::Float => f32::from_bits(b),
                Kind::Bool => (b != 0) as u8 as f32,
            }))
        }
        Op::Construct => {
            let mut out = [0.0; 4];
            for (l, slot) in out.iter_mut().enumerate().take(inst.args.len()) {
                *slot = read(l)[0];
            }
            Some(out)
        }
        Op::LoadInput(_)
        | Op::LoadUniform { .. }
        | Op::LoadBoolUniform { .. }
        | Op::InstanceIndex
        | Op::FragCoord
        | Op::Sample { .. }
        | Op::Kill
        | Op::EmitVertex
        | Op::EndPrimitive
        | Op::LoadLocal(_)
        | Op::StoreLocal(_) => None,
    }
}

/// Passes the edge's arguments to the target's parameters (all read before any is written).
fn take_edge(f: &Function, values: &mut [Lanes], e: &crate::func::Edge) -> BlockId {
    let args: Vec<Lanes> = e.args.iter().map(|a| read_operand(f, values, a)).collect();
    for (&p, v) in f.blocks[e.target].params.iter().zip(args) {
        values[p.index()] = mask(v, f.ty(p).lanes, f.ty(p).kind);
    }
    e.target
}

fn read_operand(f: &Function, values: &[Lanes], op: &Operand) -> Lanes {
    let v: Lanes = values[op.value.index()];
    let kind = f.values[op.value].ty.kind;
    std::array::from_fn(|l| {
        let mut x = v[op.swizzle.0[l] as usize & 3];
        if kind == Kind::Float {
            if op.abs {
                x = x.abs();
            }
            if op.neg {
                x = -x;
            }
        }
        x
    })
}

fn mask(v: Lanes, lanes: u8, kind: Kind) -> Lanes {
    std::array::from_fn(|l| {
        if l < lanes as usize {
            if kind == Kind::Bool {
                (v[l] != 0.0) as u8 as f32
            } else {
                v[l]
            }
        } else {
            0.0
        }
    })
}

/// GLSL's `min`: `b < a ? b : a`, so `a` when either is NaN.
fn min(a: f32, b: f32) -> f32 {
    if b < a { b } else { a }
}

/// GLSL's `max`: `a < b ? b : a`, so `a` when either is NaN.
fn max(a: f32, b: f32) -> f32 {
    if a < b { b } else { a }
}
