//! Instruction selection: MIR (after the PICA200 pipeline) to [`VInst`]s in a [`VCode`].
//!
//! Inputs, uniforms and literals are read where they live (`v`, `c`, `c[a0.x + n]`); only
//! computed values get virtual registers. Each instruction is made legal for its encoding
//! here, before allocation, so that any extra move is a virtual register like the rest:
//! - one constant register per instruction, in the wide slot (src1; src2 of the inverted
//!   forms DPHI/DSTI/SGEI/SLTI; src2 or src3 of MAD/MADI), commuting ADD/MUL/DP3/DP4 and the
//!   MAD factors to get it there, and moving it to a temporary otherwise;
//! - never two different input registers in one instruction;
//! - MIN and MAX take their operands swapped (GLSL's `max(x, y)` is the PICA200's
//!   `MAX y, x`: both give `x` when either is NaN), which also puts the `0.0` of
//!   `max(x, 0.0)` in the wide slot;
//! - RCP, RSQ, EX2 and LG2 read one component and broadcast: one instruction per lane;
//! - no abs modifier: `|x|` is `max(x, -x)` in a temporary.
//!
//! What a branch tests is set up at the end of its block (CMP, or nothing for a bool
//! uniform) and recorded in [`Selected::branches`] for the emitter.

use std::collections::HashMap;

use mir::func::{BlockId, Function, Terminator, Value, ValueDef};
use mir::inst::{CmpOp as MirCmp, Op};
use mir::vcode::{Origin, VCode};
use mir::{Diagnostic, Module};
use regalloc2::VReg;

use super::pool::Pool;
use super::vinst::{VDst, VInst, VOp, VSrc};
use crate::inst::{BinaryOp, UnaryOp};
use crate::operand::{CmpOp, Component, RelIndex, Swizzle, WriteMask};

/// What a block's conditional branch tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Test {
    /// `cmp.x`, set by the CMP just before the branch.
    Cmp,
    /// Bool uniform `bN`.
    Bool(u8),
}

/// Where an output goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputSlot {
    /// `oN`.
    pub reg: u8,
    /// Components written.
    pub mask: WriteMask,
}

/// The result of instruction selection.
pub struct Selected {
    /// The code.
    pub code: VCode<VInst>,
    /// The test of each block ending in a conditional branch.
    pub branches: HashMap<BlockId, Test>,
}

/// Selects instructions for `module` (optimised with the PICA200 options).
pub fn select(
    module: &Module,
    inputs: &HashMap<u32, u8>,
    outputs: &[Option<OutputSlot>],
    pool: &mut Pool,
) -> Result<Selected, Vec<Diagnostic>> {
    let f = &module.function;
    let mut s = Selector {
        m: module,
        f,
        code: VCode::new(f),
        vregs: HashMap::new(),
        pool,
        inputs,
        errors: Vec::new(),
        a0: [None; 2],
        a0_next: 0,
        abs: HashMap::new(),
        branches: HashMap::new(),
        span: mir::Span::default(),
    };
    // Block parameters first: a branch passes arguments to blocks not yet selected.
    for &b in &f.layout {
        let params: Vec<VReg> = f.blocks[b].params.iter().map(|&p| s.vreg(p)).collect();
        if let Some(vb) = s.code.block_of(Origin::Block(b)) {
            s.code.set_params(vb, params);
        }
    }
    let origins: Vec<Origin> = s.code.origins().collect();
    for origin in origins {
        let vb = s.code.block_of(origin).expect("laid out");
        s.code.start(vb);
        s.a0 = [None; 2];
        s.abs.clear();
        match origin {
            Origin::Block(b) => s.block(b, outputs),
            Origin::Edge(from, to) => {
                let args = f.blocks[from]
                    .term
                    .edges()
                    .into_iter()
                    .find(|e| e.target == to)
                    .map(|e| e.args.clone())
                    .unwrap_or_default();
                let regs = args.iter().map(|a| s.in_vreg(a)).collect();
                s.code.end_branch(vec![regs]);
            }
        }
    }
    if s.errors.is_empty() {
        Ok(Selected {
            code: s.code,
            branches: s.branches,
        })
    } else {
        Err(s.errors)
    }
}

struct Selector<'a> {
    m: &'a Module,
    f: &'a Function,
    code: VCode<VInst>,
    vregs: HashMap<Value, VReg>,
    pool: &'a mut Pool,
    inputs: &'a HashMap<u32, u8>,
    errors: Vec<Diagnostic>,
    /// The index value each address register holds in the current block.
    a0: [Option<mir::Operand>; 2],
    /// Which address register to overwrite next when both hold something.
    a0_next: usize,
    /// `|v|` computed in the current block.
    abs: HashMap<Value, VReg>,
    branches: HashMap<BlockId, Test>,
    /// The MIR instruction being selected.
    span: mir::Span,
}

/// The PICA swizzle of a MIR one.
fn swizzle(s: mir::Swizzle) -> Swizzle {
    Swizzle::new(s.0.map(|l| Component::from_index(l as usize)))
}

/// The mask of the first `n` components.
fn first(n: u8) -> WriteMask {
    WriteMask::new((1u8 << n) - 1).unwrap_or(WriteMask::XYZW)
}

impl Selector<'_> {
    fn vreg(&mut self, v: Value) -> VReg {
        if let Some(&r) = self.vregs.get(&v) {
            return r;
        }
        let r = self.code.vreg();
        self.vregs.insert(v, r);
        r
    }

    fn error(&mut self, span: mir::Span, message: impl Into<String>) {
        self.errors
            .push(Diagnostic::error("pica.unsupported", message).with_span(span));
    }

    fn block(&mut self, b: BlockId, outputs: &[Option<OutputSlot>]) {
        let f = self.f;
        for &i in &f.blocks[b].insts {
            self.inst(i);
        }
        match &f.blocks[b].term {
            Terminator::Jump(e) => {
                let regs = e.args.iter().map(|a| self.in_vreg(a)).collect();
                self.code.end_branch(vec![regs]);
            }
            Terminator::Branch {
                cond,
                then,
                otherwise,
            } => {
                self.test(b, cond);
                let mut args = Vec::new();
                for e in [then, otherwise] {
                    let split = self.code.block_of(Origin::Edge(b, e.target)).is_some();
                    args.push(if split {
                        Vec::new()
                    } else {
                        e.args.iter().map(|a| self.in_vreg(a)).collect()
                    });
                }
                self.code.end_branch(args);
            }
            Terminator::Return(values) => {
                for (slot, v) in outputs.iter().zip(values) {
                    let Some(slot) = slot else { continue };
                    let src = self.src(v);
                    self.emit(VInst::Unary {
                        op: UnaryOp::Mov,
                        dst: VDst::Output(slot.reg, slot.mask),
                        src,
                    });
                }
                self.code.end_return();
            }
            Terminator::Discard | Terminator::Unreachable => self.code.end_return(),
        }
    }

    /// Sets up the test of a conditional branch ending block `b`.
    fn test(&mut self, b: BlockId, cond: &mir::Operand) {
        let def = self.f.def_inst(cond.value).cloned();
        match def.as_ref().map(|d| d.op) {
            Some(Op::Cmp(c)) => {
                let d = def.expect("matched");
                let lane = cond.swizzle.lane(0);
                let pick = |o: mir::Operand| mir::Operand {
                    swizzle: mir::Swizzle::splat(o.swizzle.lane(lane as usize)),
                    ..o
                };
                let (a, b2) = (self.src(&pick(d.args[0])), self.src(&pick(d.args[1])));
                let op = cmp_op(c);
                // CMP's second source is narrow: swap a constant into the first.
                let (a, op, b2) = if b2.wide_only() && !a.wide_only() {
                    (b2, cmp_op(c.swapped()), a)
                } else {
                    (a, op, b2)
                };
                self.emit(VInst::Cmp {
                    a,
                    x: op,
                    y: op,
                    b: b2,
                });
                self.branches.insert(b, Test::Cmp);
            }
            Some(Op::LoadBoolUniform { register }) => {
                self.branches.insert(b, Test::Bool(register as u8));
            }
            _ => self.error(
                self.f.blocks[b].span,
                "internal: a branch on a value that is not a comparison or a bool uniform",
            ),
        }
    }

    /// A source operand for MIR operand `op` (may emit a MOVA or an abs).
    fn src(&mut self, op: &mir::Operand) -> VOp {
        let v = op.value;
        let sw = swizzle(op.swizzle);
        let base = match self.f.values[v].def {
            ValueDef::Param(..) => VSrc::Temp(self.vreg(v)),
            ValueDef::Inst(i, _) => {
                let inst = self.f.insts[i].clone();
                match inst.op {
                    Op::LoadInput(id) => {
                        let loc = self.m.inputs[id].location;
                        VSrc::Input(self.inputs.get(&loc).copied().unwrap_or(loc as u8))
                    }
                    Op::LoadUniform { register } if inst.args.is_empty() => {
                        VSrc::Const(register as u8)
                    }
                    Op::LoadUniform { register } => {
                        let index = self.address(&inst.args[0]);
                        VSrc::Indexed {
                            base: register as u8,
                            index,
                        }
                    }
                    Op::Const(bits) => {
                        // The lanes the operand reads, as values.
                        let lanes = self.f.ty(v).lanes.max(1) as usize;
                        let values: Vec<f32> = (0..4)
                            .map(|l| f32::from_bits(bits[op.swizzle.lane(l) as usize % lanes]))
                            .collect();
                        let placed = self.pool.place(&values);
                        let op2 = VOp {
                            src: VSrc::Const(placed.reg),
                            swizzle: placed.swizzle,
                            neg: placed.neg ^ op.neg,
                        };
                        if op.abs {
                            let abs: Vec<f32> = values.iter().map(|x| x.abs()).collect();
                            let p = self.pool.place(&abs);
                            return VOp {
                                src: VSrc::Const(p.reg),
                                swizzle: p.swizzle,
                                neg: p.neg ^ op.neg,
                            };
                        }
                        return op2;
                    }
                    _ => VSrc::Temp(self.vreg(v)),
                }
            }
        };
        if op.abs {
            return self.abs_of(v, base, sw, op.neg);
        }
        VOp {
            src: base,
            swizzle: sw,
            neg: op.neg,
        }
    }

    /// `|v|` (read through `sw`, negated if `neg`): `max(v, -v)` in a temporary.
    fn abs_of(&mut self, v: Value, base: VSrc, sw: Swizzle, neg: bool) -> VOp {
        let t = match self.abs.get(&v) {
            Some(&t) => t,
            None => {
                let t = self.code.vreg();
                let x = VOp {
                    src: base,
                    swizzle: Swizzle::IDENTITY,
                    neg: false,
                };
                self.emit(VInst::Binary {
                    op: BinaryOp::Max,
                    dst: VDst::Temp(t, WriteMask::XYZW),
                    a: x,
                    b: VOp { neg: true, ..x },
                });
                self.abs.insert(v, t);
                t
            }
        };
        VOp {
            src: VSrc::Temp(t),
            swizzle: sw,
            neg,
        }
    }

    /// The address register holding index `idx` (a MOVA first when neither does). An
    /// instruction has one wide source, so it reads at most one indexed constant: the
    /// other address register may be overwritten.
    fn address(&mut self, idx: &mir::Operand) -> RelIndex {
        let want = mir::Operand {
            swizzle: mir::Swizzle::splat(idx.swizzle.lane(0)),
            ..*idx
        };
        let names = [RelIndex::A0X, RelIndex::A0Y];
        if let Some(k) = self.a0.iter().position(|h| *h == Some(want)) {
            return names[k];
        }
        let k = self
            .a0
            .iter()
            .position(Option::is_none)
            .unwrap_or(self.a0_next);
        self.a0_next = 1 - k;
        let src = self.src(&want);
        let mask = WriteMask::of(&[Component::from_index(k)]);
        // MOVA a0.y reads the source's y component.
        let src = if k == 1 {
            VOp {
                swizzle: Swizzle::broadcast(src.swizzle.lane(Component::X)),
                ..src
            }
        } else {
            src
        };
        self.emit(VInst::Mova { mask, src });
        self.a0[k] = Some(want);
        names[k]
    }

    /// MIR operand `op` in a plain virtual register (a move when it is anything else).
    fn in_vreg(&mut self, op: &mir::Operand) -> VReg {
        let plain = !op.neg && !op.abs && op.swizzle == mir::Swizzle::IDENTITY;
        if plain && matches!(self.f.values[op.value].def, ValueDef::Param(..)) {
            return self.vreg(op.value);
        }
        if plain {
            if let ValueDef::Inst(i, _) = self.f.values[op.value].def {
                if !matches!(
                    self.f.insts[i].op,
                    Op::LoadInput(_) | Op::LoadUniform { .. } | Op::Const(_)
                ) {
                    return self.vreg(op.value);
                }
            }
        }
        let src = self.src(op);
        let t = self.code.vreg();
        self.emit(VInst::Unary {
            op: UnaryOp::Mov,
            dst: VDst::Temp(t, WriteMask::XYZW),
            src,
        });
        t
    }

    /// Selects one MIR instruction.
    fn inst(&mut self, i: mir::InstId) {
        let inst = self.f.insts[i].clone();
        let span = inst.span;
        self.span = span;
        let Some(r) = inst.result() else {
            match inst.op {
                Op::Kill => self.error(span, "discard in a vertex program"),
                _ => self.error(span, format!("internal: {} has no result", inst.op.name())),
            }
            return;
        };
        let ty = self.f.ty(r);
        let n = ty.lanes;
        if ty.kind == mir::Kind::Bool {
            // Conditions: the branch sets them up (CMP), or they are bool uniforms.
            return;
        }
        let args = inst.args.clone();
        let dst = |s: &mut Self| VDst::Temp(s.vreg(r), first(n));
        match inst.op {
            Op::LoadInput(_)
            | Op::LoadUniform { .. }
            | Op::LoadBoolUniform { .. }
            | Op::Const(_) => {}
            Op::Mov => {
                let src = self.src(&args[0]);
                let d = dst(self);
                self.emit(VInst::Unary {
                    op: UnaryOp::Mov,
                    dst: d,
                    src,
                });
            }
            Op::Add | Op::Sub | Op::Mul => {
                let a = self.src(&args[0]);
                let mut b = self.src(&args[1]);
                if inst.op == Op::Sub {
                    b.neg = !b.neg;
                }
                let op = if inst.op == Op::Mul {
                    BinaryOp::Mul
                } else {
                    BinaryOp::Add
                };
                let d = dst(self);
                self.emit(VInst::Binary { op, dst: d, a, b });
            }
            Op::Min | Op::Max => {
                let a = self.src(&args[0]);
                let b = self.src(&args[1]);
                let op = if inst.op == Op::Min {
                    BinaryOp::Min
                } else {
                    BinaryOp::Max
                };
                let d = dst(self);
                self.emit(VInst::Binary {
                    op,
                    dst: d,
                    a: b,
                    b: a,
                });
            }
            Op::Mad => {
                let a = self.src(&args[0]);
                let b = self.src(&args[1]);
                let c = self.src(&args[2]);
                let d = dst(self);
                self.emit(VInst::Mad { dst: d, a, b, c });
            }
            Op::Dot(3 | 4) | Op::Dph => {
                let a = self.src(&args[0]);
                let b = self.src(&args[1]);
                let op = match inst.op {
                    Op::Dot(3) => BinaryOp::Dp3,
                    Op::Dot(_) => BinaryOp::Dp4,
                    _ => BinaryOp::Dph,
                };
                let d = dst(self);
                self.emit(VInst::Binary { op, dst: d, a, b });
            }
            Op::Floor => {
                let src = self.src(&args[0]);
                let d = dst(self);
                self.emit(VInst::Unary {
                    op: UnaryOp::Flr,
                    dst: d,
                    src,
                });
            }
            Op::Rcp | Op::Rsq | Op::Exp2 | Op::Log2 => {
                let op = match inst.op {
                    Op::Rcp => UnaryOp::Rcp,
                    Op::Rsq => UnaryOp::Rsq,
                    Op::Exp2 => UnaryOp::Ex2,
                    _ => UnaryOp::Lg2,
                };
                // One component in, broadcast out: one instruction per lane.
                let v = self.vreg(r);
                let mut prev: Option<VReg> = None;
                for lane in 0..n {
                    let one = mir::Operand {
                        swizzle: mir::Swizzle::splat(args[0].swizzle.lane(lane as usize)),
                        ..args[0]
                    };
                    let src = self.src(&one);
                    let mask = WriteMask::of(&[Component::from_index(lane as usize)]);
                    let last = lane + 1 == n;
                    let new = if last { v } else { self.code.vreg() };
                    let d = match prev {
                        None => VDst::Temp(new, mask),
                        Some(p) => VDst::Tied { prev: p, new, mask },
                    };
                    self.emit(VInst::Unary { op, dst: d, src });
                    prev = Some(new);
                }
            }
            Op::Sat => {
                // clamp(x, 0, 1): MAX 0, x then MIN 1, t (GLSL operand order, see above).
                let x = self.src(&args[0]);
                let zero = self.constant(0.0);
                let one = self.constant(1.0);
                let t = self.code.vreg();
                self.emit(VInst::Binary {
                    op: BinaryOp::Max,
                    dst: VDst::Temp(t, first(n)),
                    a: zero,
                    b: x,
                });
                let d = dst(self);
                self.emit(VInst::Binary {
                    op: BinaryOp::Min,
                    dst: d,
                    a: one,
                    b: VOp {
                        src: VSrc::Temp(t),
                        swizzle: Swizzle::IDENTITY,
                        neg: false,
                    },
                });
            }
            Op::BoolToFloat => self.bool_to_float(r, n, &args[0]),
            Op::Construct => self.construct(r, &args),
            other => self.error(
                span,
                format!(
                    "{} is not supported in PICA200 vertex programs",
                    describe(other)
                ),
            ),
        }
    }

    /// A pooled constant broadcast to every lane.
    fn constant(&mut self, x: f32) -> VOp {
        let p = self.pool.place(&[x]);
        VOp {
            src: VSrc::Const(p.reg),
            swizzle: p.swizzle,
            neg: p.neg,
        }
    }

    /// `cond ? 1.0 : 0.0` for a comparison: SGE/SLT, or two and a combine for `==`, `!=`.
    fn bool_to_float(&mut self, r: Value, n: u8, cond: &mir::Operand) {
        let Some(def) = self.f.def_inst(cond.value).cloned() else {
            return self.error(
                mir::Span::default(),
                "internal: bool_to_float of a parameter",
            );
        };
        let Op::Cmp(c) = def.op else {
            return self.error(
                def.span,
                "internal: bool_to_float of a value that is not a comparison",
            );
        };
        let through = |o: mir::Operand| mir::Operand {
            swizzle: o.swizzle.then(cond.swizzle),
            ..o
        };
        let a = self.src(&through(def.args[0]));
        let b = self.src(&through(def.args[1]));
        let d = VDst::Temp(self.vreg(r), first(n));
        let set = |s: &mut Self, op: BinaryOp, dst: VDst, x: VOp, y: VOp| {
            s.emit(VInst::Binary {
                op,
                dst,
                a: x,
                b: y,
            });
        };
        match c {
            MirCmp::Lt => set(self, BinaryOp::Slt, d, a, b),
            MirCmp::Ge => set(self, BinaryOp::Sge, d, a, b),
            MirCmp::Gt => set(self, BinaryOp::Slt, d, b, a),
            MirCmp::Le => set(self, BinaryOp::Sge, d, b, a),
            MirCmp::Eq | MirCmp::Ne => {
                // a == b: (a >= b) * (b >= a); a != b: (a < b) + (b < a).
                let op = if c == MirCmp::Eq {
                    BinaryOp::Sge
                } else {
                    BinaryOp::Slt
                };
                let (t1, t2) = (self.code.vreg(), self.code.vreg());
                set(self, op, VDst::Temp(t1, first(n)), a, b);
                set(self, op, VDst::Temp(t2, first(n)), b, a);
                let combine = if c == MirCmp::Eq {
                    BinaryOp::Mul
                } else {
                    BinaryOp::Add
                };
                let temp = |v: VReg| VOp {
                    src: VSrc::Temp(v),
                    swizzle: Swizzle::IDENTITY,
                    neg: false,
                };
                set(self, combine, d, temp(t1), temp(t2));
            }
        }
    }

    /// A vector from lanes: one MOV per run of lanes read from the same place.
    fn construct(&mut self, r: Value, args: &[mir::Operand]) {
        // Group lanes by source value and modifiers; constant lanes together.
        let mut groups: Vec<(Option<mir::Operand>, Vec<usize>)> = Vec::new();
        let is_const = |s: &Self, o: &mir::Operand| {
            matches!(s.f.def_inst(o.value).map(|d| d.op), Some(Op::Const(_)))
        };
        for (l, a) in args.iter().enumerate() {
            let key = if is_const(self, a) {
                None
            } else {
                Some(mir::Operand {
                    swizzle: mir::Swizzle::IDENTITY,
                    ..*a
                })
            };
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, lanes)) => lanes.push(l),
                None => groups.push((key, vec![l])),
            }
        }
        let v = self.vreg(r);
        let mut prev: Option<VReg> = None;
        for (k, (key, lanes)) in groups.iter().enumerate() {
            let mask = WriteMask::of(
                &lanes
                    .iter()
                    .map(|&l| Component::from_index(l))
                    .collect::<Vec<_>>(),
            );
            // Lane l of the destination reads lane 0 of args[l] (through its swizzle).
            let src = match key {
                Some(base) => {
                    let mut sw = [0u8; 4];
                    for &l in lanes {
                        sw[l] = args[l].swizzle.lane(0);
                    }
                    let op = mir::Operand {
                        swizzle: mir::Swizzle(sw),
                        ..*base
                    };
                    self.src(&op)
                }
                None => {
                    let mut values = [0.0f32; 4];
                    for &l in lanes {
                        values[l] = self.const_lane(&args[l]);
                    }
                    // Lanes not written read anything: repeat a written one.
                    let fill = values[lanes[0]];
                    for (l, x) in values.iter_mut().enumerate() {
                        if !lanes.contains(&l) {
                            *x = fill;
                        }
                    }
                    let p = self.pool.place(&values);
                    VOp {
                        src: VSrc::Const(p.reg),
                        swizzle: p.swizzle,
                        neg: p.neg,
                    }
                }
            };
            let last = k + 1 == groups.len();
            let new = if last { v } else { self.code.vreg() };
            let dst = match prev {
                None => VDst::Temp(new, mask),
                Some(p) => VDst::Tied { prev: p, new, mask },
            };
            self.emit(VInst::Unary {
                op: UnaryOp::Mov,
                dst,
                src,
            });
            prev = Some(new);
        }
    }

    /// The value of a constant scalar operand (its lane 0, modifiers applied).
    fn const_lane(&self, o: &mir::Operand) -> f32 {
        let Some(Op::Const(bits)) = self.f.def_inst(o.value).map(|d| d.op) else {
            return 0.0;
        };
        let mut x = f32::from_bits(bits[o.swizzle.lane(0) as usize & 3]);
        if o.abs {
            x = x.abs();
        }
        if o.neg {
            x = -x;
        }
        x
    }

    /// Appends `inst`, legalised.
    fn emit(&mut self, inst: VInst) {
        let inst = self.legalize(inst);
        let ops = inst.operands();
        self.code.push(inst, &ops, self.span);
    }

    /// Moves `op` into a fresh temporary and reads it from there.
    fn via_temp(&mut self, op: VOp) -> VOp {
        let t = self.code.vreg();
        let mov = VInst::Unary {
            op: UnaryOp::Mov,
            dst: VDst::Temp(t, WriteMask::XYZW),
            src: VOp {
                neg: false,
                swizzle: Swizzle::IDENTITY,
                ..op
            },
        };
        let ops = mov.operands();
        self.code.push(mov, &ops, self.span);
        VOp {
            src: VSrc::Temp(t),
            ..op
        }
    }

    /// Makes the operands fit the encodings (see the module comment).
    fn legalize(&mut self, inst: VInst) -> VInst {
        let inst = self.one_input(inst);
        match inst {
            VInst::Binary { op, dst, a, b } => {
                let commutes = matches!(
                    op,
                    BinaryOp::Add | BinaryOp::Mul | BinaryOp::Dp3 | BinaryOp::Dp4
                );
                let inverted = op.inverted_opcode().is_some();
                let (mut a, mut b) = (a, b);
                if b.wide_only() && !a.wide_only() && commutes {
                    std::mem::swap(&mut a, &mut b);
                }
                if b.wide_only() && (a.wide_only() || !inverted) {
                    b = self.via_temp(b);
                }
                VInst::Binary { op, dst, a, b }
            }
            VInst::Mad { dst, a, b, c } => {
                let (mut a, mut b, mut c) = (a, b, c);
                // src1 is always narrow: a constant factor goes second.
                if a.wide_only() && !b.wide_only() {
                    std::mem::swap(&mut a, &mut b);
                }
                if a.wide_only() {
                    a = self.via_temp(a);
                }
                if b.wide_only() && c.wide_only() {
                    c = self.via_temp(c);
                }
                VInst::Mad { dst, a, b, c }
            }
            VInst::Cmp { a, x, y, b } => {
                if b.wide_only() {
                    if a.wide_only() {
                        let b = self.via_temp(b);
                        return VInst::Cmp { a, x, y, b };
                    }
                    return VInst::Cmp {
                        a: b,
                        x: swap_cmp(x),
                        y: swap_cmp(y),
                        b: a,
                    };
                }
                VInst::Cmp { a, x, y, b }
            }
            other => other,
        }
    }

    /// Moves all but one input register into temporaries.
    fn one_input(&mut self, inst: VInst) -> VInst {
        let sources = inst.sources();
        let first = sources.iter().find_map(|s| s.input());
        if sources
            .iter()
            .all(|s| s.input().is_none() || s.input() == first)
        {
            return inst;
        }
        let mut fix = |s: VOp| {
            if s.input().is_some() && s.input() != first {
                self.via_temp(s)
            } else {
                s
            }
        };
        match inst {
            VInst::Binary { op, dst, a, b } => VInst::Binary {
                op,
                dst,
                a: fix(a),
                b: fix(b),
            },
            VInst::Mad { dst, a, b, c } => VInst::Mad {
                dst,
                a: fix(a),
                b: fix(b),
                c: fix(c),
            },
            VInst::Cmp { a, x, y, b } => VInst::Cmp {
                a: fix(a),
                x,
                y,
                b: fix(b),
            },
            other => other,
        }
    }
}

fn cmp_op(c: MirCmp) -> CmpOp {
    match c {
        MirCmp::Lt => CmpOp::Lt,
        MirCmp::Le => CmpOp::Le,
        MirCmp::Gt => CmpOp::Gt,
        MirCmp::Ge => CmpOp::Ge,
        MirCmp::Eq => CmpOp::Eq,
        MirCmp::Ne => CmpOp::Ne,
    }
}

fn swap_cmp(c: CmpOp) -> CmpOp {
    match c {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        other => other,
    }
}

/// How an operation is named in messages.
fn describe(op: Op) -> String {
    match op {
        Op::Sample { .. } => {
            "texture sampling (PICA200 vertex programs cannot read textures)".into()
        }
        Op::Ddx | Op::Ddy => "a screen-space derivative".into(),
        other => format!("the operation `{}`", other.name()),
    }
}
