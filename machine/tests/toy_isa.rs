//! The machine layer on a toy instruction set of a few opcodes, from MIR text to machine
//! code that runs: the driver and the lowering state ([`Lower`]), value placement (a value
//! returned once computed straight into its output, a construct's pieces computed into its
//! lanes, lane packing when registers run short), the per-block copy cache, allocation with
//! its retries, and the moves regalloc2 asks for (block arguments on branch edges and loop
//! back edges). Each program's machine code runs in the toy's own simulator, and every
//! output lane is compared with the MIR interpreter's.
//!
//! The toy ISA: vec4 registers, lane masks on destinations, swizzles and negation on
//! sources; inputs and literals are read where they live, but an instruction reads at most
//! one input (as on the PICA200), so a second input is copied into a temporary first.

use machine::inst::{VDst, VInst};
use machine::lower::Lower;
use machine::retry::{self, Packing, Policy};
use machine::select::{Chain, Hooks, Placement, drive, plan, returned_once};
use machine::structured::{Exit, Layout, Loop, Walk, has_code};
use machine::vcode::{Allocated, Item, Origin, VCode};
use mir::analysis::regions::Regions;
use mir::eval::{Env, NoTextures, Outcome};
use mir::func::BlockId;
use mir::inst::{CmpOp, Op, Operand};
use mir::{Module, Value};
use regalloc2::{Function as _, VReg};

/// An ALU operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Alu {
    Mov,
    Add,
    Mul,
    Min,
    Max,
    /// 1.0 where `a < b`, else 0.0.
    Slt,
    /// 1.0 where `a >= b`, else 0.0.
    Sge,
}

/// Where a source reads.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Reg {
    Temp(VReg),
    Input(usize),
    Literal([f32; 4]),
}

/// A source: a register read through a swizzle, maybe negated.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Src {
    reg: Reg,
    swizzle: [u8; 4],
    neg: bool,
    abs: bool,
}

/// Where a result goes: a temporary or an output, with a lane mask (lane `l` at bit `l`).
type Dst = VDst<u8, usize>;

/// A virtual instruction.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Toy {
    Alu {
        op: Alu,
        dst: Dst,
        a: Src,
        b: Option<Src>,
    },
    /// Sets the flag the block's branch tests: `a.x != 0`.
    Test { a: Src },
}

impl Toy {
    fn sources(&self) -> Vec<Src> {
        match *self {
            Toy::Alu { a, b, .. } => [Some(a), b].into_iter().flatten().collect(),
            Toy::Test { a } => vec![a],
        }
    }
}

impl VInst for Toy {
    type Mask = u8;
    type Out = usize;

    fn temps_read(&self) -> Vec<VReg> {
        self.sources()
            .iter()
            .filter_map(|s| match s.reg {
                Reg::Temp(v) => Some(v),
                _ => None,
            })
            .collect()
    }

    fn dst(&self) -> Option<Dst> {
        match *self {
            Toy::Alu { dst, .. } => Some(dst),
            Toy::Test { .. } => None,
        }
    }
}

/// Where a value is computed other than into a register of its own (an output by its
/// index).
type Place = machine::lower::Place<usize>;

fn lanewise(op: Op) -> bool {
    matches!(op, Op::Add | Op::Sub | Op::Mul | Op::Min | Op::Max)
}

fn mask(lane: u8, count: u8) -> u8 {
    ((1u8 << count) - 1) << lane
}

struct Selector<'f> {
    m: &'f Module,
    lo: Lower<'f, Toy, usize, (), usize>,
    /// Copies of inputs made this block (to count them).
    copies_made: usize,
    /// The result lane the current instruction starts at (placed in a construct or pack).
    shift: u8,
}

impl<'f> Hooks<'f> for Selector<'f> {
    type Inst = Toy;
    type Output = usize;
    type Extra = ();
    type CopyKey = usize;

    fn lower(&mut self) -> &mut Lower<'f, Toy, usize, (), usize> {
        &mut self.lo
    }

    fn in_vreg(&mut self, op: &Operand, param: Value) -> VReg {
        if let Some(r) = self.lo.own_vreg(op, Op::is_interface_or_constant) {
            return r;
        }
        let lanes = self.lo.f.ty(param).lanes;
        let t = self.lo.code.vreg();
        self.shift = 0;
        let a = self.src(op);
        self.push(Toy::Alu {
            op: Alu::Mov,
            dst: Dst::Temp(t, mask(0, lanes)),
            a,
            b: None,
        });
        t
    }

    fn block(&mut self, b: BlockId) {
        plan(self, b);
        let f = self.lo.f;
        for &i in &f.blocks[b].insts {
            self.lo.span = f.insts[i].span;
            self.inst(i);
        }
    }

    fn test(&mut self, _b: BlockId, cond: &Operand, _then: BlockId, _otherwise: BlockId) {
        self.shift = 0;
        let a = self.src(cond);
        self.push(Toy::Test { a });
    }

    fn ret(&mut self, _b: BlockId, values: &[Operand]) {
        self.shift = 0;
        for (k, v) in values.iter().enumerate() {
            if self.lo.outputs_at.contains_key(&v.value) {
                continue;
            }
            let lanes = self.m.outputs[k].lanes;
            let a = self.src(v);
            self.push(Toy::Alu {
                op: Alu::Mov,
                dst: Dst::Out(k, mask(0, lanes)),
                a,
                b: None,
            });
        }
    }
}

impl<'f> Placement<'f> for Selector<'f> {
    fn lower_ref(&self) -> &Lower<'f, Toy, usize, (), usize> {
        &self.lo
    }

    fn fits(&self, _v: Value, d: &mir::Inst, _lane: u8, _count: u8) -> bool {
        lanewise(d.op)
    }

    /// Each lane no value is computed into is moved in, one piece each.
    fn start(
        &mut self,
        c: Value,
        _args: &[Operand],
        placed: &[(Value, u8, u8)],
        _here: &mir::hash::HashMap<Value, usize>,
    ) -> Chain<()> {
        let covered: u8 = placed.iter().map(|&(.., n)| n).sum();
        Chain {
            prev: None,
            left: usize::from(self.lo.f.ty(c).lanes - covered),
            extra: (),
        }
    }

    fn packable(op: Op, _lanes: u8) -> bool {
        lanewise(op)
    }
}

impl Selector<'_> {
    fn push(&mut self, inst: Toy) {
        let inst = self.legalize(inst);
        let ops = inst.operands();
        self.lo.code.push(inst, &ops, self.lo.span);
    }

    /// One input per instruction: a second is read from a copy, made once per block.
    fn legalize(&mut self, inst: Toy) -> Toy {
        let Toy::Alu {
            op,
            dst,
            a,
            b: Some(b),
        } = inst
        else {
            return inst;
        };
        let (Reg::Input(x), Reg::Input(y)) = (a.reg, b.reg) else {
            return inst;
        };
        if x == y {
            return inst;
        }
        self.copies_made += usize::from(self.lo.copies.get(&y, 0xf).is_none());
        let copy = self.lo.copy(Some(y), 0xf, |t| Toy::Alu {
            op: Alu::Mov,
            dst: Dst::Temp(t, 0xf),
            a: Src {
                reg: Reg::Input(y),
                swizzle: [0, 1, 2, 3],
                neg: false,
                abs: false,
            },
            b: None,
        });
        Toy::Alu {
            op,
            dst,
            a,
            b: Some(Src {
                reg: Reg::Temp(copy),
                ..b
            }),
        }
    }

    /// The destination of value `r` of `n` lanes.
    fn dest(&mut self, r: Value, n: u8) -> Dst {
        match self.lo.places.get(&r).copied() {
            Some(Place::Lane { chain, lane, count }) => self.piece(chain, mask(lane, count)),
            Some(Place::Output(k)) => Dst::Out(k, mask(0, n)),
            None => match self.lo.packs.write(r, &mut self.lo.code) {
                Some((piece, lane)) => Dst::piece(piece, mask(lane, n)),
                None => Dst::Temp(self.lo.vreg(r), mask(0, n)),
            },
        }
    }

    /// The lane `r`'s lane 0 lands in.
    fn first_lane(&self, r: Value) -> u8 {
        match self.lo.places.get(&r) {
            Some(Place::Lane { lane, .. }) => *lane,
            Some(Place::Output(_)) => 0,
            None => self.lo.packs.get(r).map_or(0, |p| p.offset),
        }
    }

    fn piece(&mut self, chain: Value, mask: u8) -> Dst {
        let lo = &mut self.lo;
        let piece = lo
            .chains
            .next(chain, &mut lo.code, &mut lo.vregs)
            .expect("a construct being built");
        Dst::piece(piece, mask)
    }

    /// Operand `op` as a source, its lane 0 read at result lane `self.shift`.
    fn src(&mut self, op: &Operand) -> Src {
        let f = self.lo.f;
        let mut lanes = op.swizzle.0;
        let reg = match f.def_inst(op.value).map(|d| d.op) {
            Some(Op::LoadInput(h)) => Reg::Input(h.index()),
            Some(Op::Const(bits)) => Reg::Literal(bits.map(f32::from_bits)),
            _ => match self.lo.packs.read(op.value) {
                Some((reg, offset)) => {
                    // Lanes past the value's own are read by nothing that matters.
                    lanes = lanes.map(|l| (l + offset).min(3));
                    Reg::Temp(reg)
                }
                None => Reg::Temp(self.lo.vreg(op.value)),
            },
        };
        // Result lane `shift + k` reads lane `k` of the operand.
        let s = usize::from(self.shift);
        let swizzle = std::array::from_fn(|l| lanes[l.saturating_sub(s).min(3)]);
        Src {
            reg,
            swizzle,
            neg: op.neg,
            abs: op.abs,
        }
    }

    fn inst(&mut self, i: mir::InstId) {
        let f = self.lo.f;
        let inst = &f.insts[i];
        if inst.op.is_interface_or_constant() {
            return;
        }
        let Some(r) = inst.result() else {
            panic!("the toy ISA selects no {:?}", inst.op)
        };
        let n = f.ty(r).lanes;
        if inst.op == Op::Construct {
            return self.construct(r, &inst.args);
        }
        let (op, args) = match inst.op {
            Op::Add => (Alu::Add, [inst.args[0], inst.args[1]]),
            Op::Sub => (Alu::Add, [inst.args[0], inst.args[1].negated()]),
            Op::Mul => (Alu::Mul, [inst.args[0], inst.args[1]]),
            Op::Min => (Alu::Min, [inst.args[0], inst.args[1]]),
            Op::Max => (Alu::Max, [inst.args[0], inst.args[1]]),
            Op::Cmp(CmpOp::Lt) => (Alu::Slt, [inst.args[0], inst.args[1]]),
            Op::Cmp(CmpOp::Gt) => (Alu::Slt, [inst.args[1], inst.args[0]]),
            Op::Cmp(CmpOp::Ge) => (Alu::Sge, [inst.args[0], inst.args[1]]),
            Op::Cmp(CmpOp::Le) => (Alu::Sge, [inst.args[1], inst.args[0]]),
            op => panic!("the toy ISA selects no {op:?}"),
        };
        // The sources first: they may read the pack the result is written to, as it is
        // before the write.
        self.shift = self.first_lane(r);
        let a = self.src(&args[0]);
        let b = self.src(&args[1]);
        self.shift = 0;
        let dst = self.dest(r, n);
        self.push(Toy::Alu {
            op,
            dst,
            a,
            b: Some(b),
        });
    }

    /// The lanes of construct `c` no value was computed into, one move each.
    fn construct(&mut self, c: Value, args: &[Operand]) {
        for (l, a) in args.iter().enumerate() {
            let placed = matches!(self.lo.places.get(&a.value),
                Some(Place::Lane { chain, .. }) if *chain == c);
            if placed {
                continue;
            }
            let piece = self.piece(c, 1 << l);
            self.shift = l as u8;
            let one = Operand {
                swizzle: mir::Swizzle::splat(a.swizzle.lane(0)),
                ..*a
            };
            let src = self.src(&one);
            self.shift = 0;
            self.push(Toy::Alu {
                op: Alu::Mov,
                dst: piece,
                a: src,
                b: None,
            });
        }
    }
}

/// A machine instruction of the toy.
#[derive(Clone, Copy, Debug, PartialEq)]
enum M {
    Alu {
        op: Alu,
        /// A register, or an output (`None` with `out`).
        dst: Option<usize>,
        out: Option<usize>,
        mask: u8,
        a: (MReg, [u8; 4], bool, bool),
        b: Option<(MReg, [u8; 4], bool, bool)>,
    },
    /// Copy register `from` to `to`.
    Move {
        from: usize,
        to: usize,
    },
    /// Sets the flag: `a.x != 0`.
    Test {
        a: (MReg, [u8; 4], bool, bool),
    },
    /// To block `to` when the flag is clear.
    JumpIfClear {
        to: usize,
    },
    Jump {
        to: usize,
    },
    End,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum MReg {
    R(usize),
    Input(usize),
    Literal([f32; 4]),
}

/// What selecting and allocating a module made.
struct Compiled {
    code: Vec<M>,
    /// The first instruction of each virtual block.
    starts: Vec<usize>,
    registers: usize,
    packed: bool,
    copies_made: usize,
    /// The same code laid out by regions (see [`Structured`]).
    structured: Vec<S>,
}

fn compile(m: &mut Module, registers: usize, packing: Packing) -> Result<Compiled, String> {
    let policy = Policy {
        registers,
        smaller_first: Vec::new(),
        packing,
        rematerialise: false,
    };
    let fitted = retry::allocate(m, &policy, |m, pack| {
        let f = &m.function;
        let mut s = Selector {
            m,
            lo: Lower::new(f, pack),
            copies_made: 0,
            shift: 0,
        };
        let regions = Regions::new(f);
        for (k, v, d) in returned_once(f, &m.outputs, &s.lo.uses, &regions) {
            if lanewise(d.op) {
                s.lo.outputs_at.insert(v.value, k);
            }
        }
        drive(&mut s);
        let copies = s.copies_made;
        s.lo.finish().map(|code| (code, copies))
    })
    .map_err(|e| match e {
        retry::Failure::TooManyLive { needed, .. } => format!("{needed} registers needed"),
        retry::Failure::Select(e) => format!("{e:?}"),
        retry::Failure::Internal(e) => e,
    })?;
    let (code, alloc) = (&fitted.code, &fitted.alloc);
    let mut out = Vec::new();
    let mut starts = Vec::new();
    let mut used = 0;
    for b in 0..code.num_blocks() {
        let vb = regalloc2::Block::new(b);
        starts.push(out.len());
        lower_items(code, alloc, vb, &mut out, &mut used);
        // The block's terminator.
        let succs = code.block_succs(vb).to_vec();
        match succs.as_slice() {
            [] => out.push(M::End),
            [one] => out.push(M::Jump { to: one.index() }),
            [then, otherwise] => {
                out.push(M::JumpIfClear {
                    to: otherwise.index(),
                });
                out.push(M::Jump { to: then.index() });
            }
            _ => panic!("a block with more than two successors"),
        }
    }
    let mut layout = Structured {
        code,
        alloc,
        out: Vec::new(),
        used: 0,
    };
    Walk::new(&m.function)
        .function(&mut layout)
        .expect("every region reaches its end");
    Ok(Compiled {
        code: out,
        starts,
        registers: used.max(layout.used),
        packed: fitted.packed,
        copies_made: fitted.selected,
        structured: layout.out,
    })
}

/// The machine code of virtual block `vb`'s instructions and moves (not its terminator),
/// appended to `out`; `used` grows to the registers they use.
fn lower_items(
    code: &VCode<Toy>,
    alloc: &Allocated,
    vb: regalloc2::Block,
    out: &mut Vec<M>,
    used: &mut usize,
) {
    for item in alloc.block_items(code, vb) {
        match item {
            Item::Move { from, to } => {
                *used = (*used).max(from.max(to) + 1);
                out.push(M::Move { from, to });
            }
            Item::Inst(i) => {
                let Some(inst) = code.inst(i) else { continue };
                let mut k = 0;
                let mut read = |s: Src| {
                    let reg = match s.reg {
                        Reg::Temp(_) => {
                            let r = alloc.reg(i, k);
                            k += 1;
                            *used = (*used).max(r + 1);
                            MReg::R(r)
                        }
                        Reg::Input(n) => MReg::Input(n),
                        Reg::Literal(v) => MReg::Literal(v),
                    };
                    (reg, s.swizzle, s.neg, s.abs)
                };
                match *inst {
                    Toy::Test { a } => out.push(M::Test { a: read(a) }),
                    Toy::Alu { op, dst, a, b } => {
                        let (a, b) = (read(a), b.map(&mut read));
                        let mask = dst.mask();
                        let (dst, out_k) = match dst {
                            Dst::Temp(..) => (Some(alloc.reg(i, k)), None),
                            Dst::Tied { .. } => (Some(alloc.reg(i, k + 1)), None),
                            Dst::Out(o, _) => (None, Some(o)),
                        };
                        if let Some(r) = dst {
                            *used = (*used).max(r + 1);
                        }
                        out.push(M::Alu {
                            op,
                            dst,
                            out: out_k,
                            mask,
                            a,
                            b,
                        });
                    }
                }
            }
        }
    }
}

/// Structured machine code of the toy, as a target without jumps has it: `if`/`else`/`end
/// if` on the flag, `loop`/`end loop`, and a break on the flag.
#[derive(Clone, Debug, PartialEq)]
enum S {
    Code(M),
    /// Runs what follows up to `Else` or `EndIf` when the flag is set.
    If,
    Else,
    EndIf,
    Loop,
    /// Leaves the innermost loop when the flag is `when`.
    Break {
        when: bool,
    },
    EndLoop,
}

/// The toy's structured emission, by [`Walk`].
struct Structured<'a> {
    code: &'a VCode<Toy>,
    alloc: &'a Allocated,
    out: Vec<S>,
    used: usize,
}

impl Structured<'_> {
    fn emit(&mut self, origin: Origin) {
        let Some(vb) = self.code.block_of(origin) else {
            return;
        };
        let mut flat = Vec::new();
        lower_items(self.code, self.alloc, vb, &mut flat, &mut self.used);
        self.out.extend(flat.into_iter().map(S::Code));
    }
}

impl Layout for Structured<'_> {
    type Items = ();

    fn items(&mut self, _walk: &Walk<'_>, origin: Origin) {
        self.emit(origin);
    }

    fn branch(
        &mut self,
        walk: &mut Walk<'_>,
        b: BlockId,
        then: BlockId,
        otherwise: BlockId,
        _items: (),
    ) -> Option<BlockId> {
        if let Some(l) = walk.innermost() {
            let t = walk.skip_empty(self.code, self.alloc, b, then, l.merge);
            let e = walk.skip_empty(self.code, self.alloc, b, otherwise, l.merge);
            if t == l.merge || e == l.merge {
                let (when, other) = if t == l.merge { (true, e) } else { (false, t) };
                self.out.push(S::Break { when });
                self.emit(Origin::Edge(b, other));
                return Some(other);
            }
        }
        let Some(mir::func::Structure::If { merge }) = walk.f.blocks[b].structure else {
            panic!("a branch outside an if or a loop's exit");
        };
        self.out.push(S::If);
        for (k, arm) in [then, otherwise].into_iter().enumerate() {
            if k == 1 {
                self.out.push(S::Else);
            }
            self.emit(Origin::Edge(b, arm));
            if arm != merge {
                assert_eq!(walk.region(self, arm, Some(merge)), Exit::Merge);
            }
        }
        self.out.push(S::EndIf);
        Some(merge)
    }

    fn looped(&mut self, walk: &mut Walk<'_>, l: Loop) {
        self.out.push(S::Loop);
        // The body's top level goes round: it ends at the back edge.
        assert_eq!(walk.body(self, l), Exit::Continue);
        self.out.push(S::EndLoop);
        // The moves of the exit edge, once the loop is done.
        for &x in &walk.f.layout {
            if has_code(self.code, self.alloc, Origin::Edge(x, l.merge)) {
                self.emit(Origin::Edge(x, l.merge));
            }
        }
    }

    fn end(&mut self, _b: BlockId) {
        self.out.push(S::Code(M::End));
    }
}

/// The machine state of a run.
struct State<'a> {
    r: Vec<[f32; 4]>,
    o: Vec<[f32; 4]>,
    flag: bool,
    inputs: &'a [[f32; 4]],
}

impl<'a> State<'a> {
    /// Zeroed registers and outputs.
    fn new(c: &Compiled, inputs: &'a [[f32; 4]], outputs: usize) -> Self {
        State {
            r: vec![[0.0; 4]; c.registers.max(1)],
            o: vec![[0.0; 4]; outputs],
            flag: false,
            inputs,
        }
    }

    fn read(&self, (reg, sw, neg, abs): (MReg, [u8; 4], bool, bool)) -> [f32; 4] {
        let v = match reg {
            MReg::R(n) => self.r[n],
            MReg::Input(n) => self.inputs[n],
            MReg::Literal(v) => v,
        };
        sw.map(|l| {
            let x = v[usize::from(l)];
            let x = if abs { x.abs() } else { x };
            if neg { -x } else { x }
        })
    }

    /// Runs an instruction that is not control flow.
    fn step(&mut self, m: M) {
        match m {
            M::Alu {
                op,
                dst,
                out,
                mask,
                a,
                b,
            } => {
                let a = self.read(a);
                let b = b.map(|b| self.read(b)).unwrap_or([0.0; 4]);
                let v: [f32; 4] = std::array::from_fn(|l| match op {
                    Alu::Mov => a[l],
                    Alu::Add => a[l] + b[l],
                    Alu::Mul => a[l] * b[l],
                    Alu::Min => a[l].min(b[l]),
                    Alu::Max => a[l].max(b[l]),
                    Alu::Slt => f32::from(u8::from(a[l] < b[l])),
                    Alu::Sge => f32::from(u8::from(a[l] >= b[l])),
                });
                let target = match (dst, out) {
                    (Some(d), _) => &mut self.r[d],
                    (None, Some(k)) => &mut self.o[k],
                    (None, None) => unreachable!("a write to nowhere"),
                };
                for (l, t) in target.iter_mut().enumerate() {
                    if mask & (1 << l) != 0 {
                        *t = v[l];
                    }
                }
            }
            M::Move { from, to } => self.r[to] = self.r[from],
            M::Test { a } => self.flag = self.read(a)[0] != 0.0,
            other => unreachable!("{other:?} is control flow"),
        }
    }
}

/// Runs the toy's flat machine code on `inputs`; the outputs.
fn run(c: &Compiled, inputs: &[[f32; 4]], outputs: usize) -> Vec<[f32; 4]> {
    let mut st = State::new(c, inputs, outputs);
    let mut pc = 0;
    for _ in 0..10_000 {
        match c.code[pc] {
            M::JumpIfClear { to } if !st.flag => {
                pc = c.starts[to];
                continue;
            }
            M::JumpIfClear { .. } => {}
            M::Jump { to } => {
                pc = c.starts[to];
                continue;
            }
            M::End => return st.o,
            m => st.step(m),
        }
        pc += 1;
    }
    panic!("the program does not end");
}

/// Runs structured toy code on `inputs`; the outputs.
fn run_structured(c: &Compiled, inputs: &[[f32; 4]], outputs: usize) -> Vec<[f32; 4]> {
    let code = &c.structured;
    // Where each construct's parts are.
    let mut matching = vec![0; code.len()];
    let mut elses = vec![None; code.len()];
    let mut open = Vec::new();
    for (k, s) in code.iter().enumerate() {
        match s {
            S::If | S::Loop => open.push(k),
            S::Else => elses[*open.last().expect("an else in an if")] = Some(k),
            S::EndIf | S::EndLoop => {
                let start = open.pop().expect("a construct to close");
                matching[start] = k;
                if let Some(e) = elses[start] {
                    matching[e] = k;
                }
            }
            _ => {}
        }
    }
    assert!(open.is_empty(), "every construct is closed");
    let mut st = State::new(c, inputs, outputs);
    let mut loops: Vec<usize> = Vec::new();
    let mut pc = 0;
    for _ in 0..10_000 {
        match &code[pc] {
            S::Code(M::End) => return st.o,
            S::Code(m) => st.step(*m),
            S::If if !st.flag => pc = elses[pc].unwrap_or(matching[pc]),
            S::If | S::EndIf => {}
            S::Else => pc = matching[pc],
            S::Loop => loops.push(pc),
            S::Break { when } if st.flag == *when => {
                let start = loops.pop().expect("a break in a loop");
                pc = matching[start];
            }
            S::Break { .. } => {}
            S::EndLoop => pc = *loops.last().expect("a loop to repeat"),
        }
        pc += 1;
    }
    panic!("the program does not end");
}

/// Reads `text`, compiles it with `registers` temporaries, and compares every output lane
/// with the interpreter's on each of `cases`.
fn check(text: &str, registers: usize, packing: Packing, cases: &[&[[f32; 4]]]) -> Compiled {
    let mut m = mir::read::read_module(text).unwrap_or_else(|e| panic!("{e}"));
    mir::verify::verify(&m).unwrap_or_else(|e| panic!("{e}"));
    let reference = m.clone();
    let c = compile(&mut m, registers, packing).unwrap_or_else(|e| panic!("{e}"));
    assert!(c.registers <= registers, "{} registers used", c.registers);
    for inputs in cases {
        let env = Env {
            inputs,
            uniforms: &[],
            bools: &[],
            textures: &NoTextures,
        };
        let Ok(Outcome::Outputs(want)) = mir::eval::run(&reference, &env) else {
            panic!("the interpreter runs it");
        };
        let flat = run(&c, inputs, want.len());
        let structured = run_structured(&c, inputs, want.len());
        for (k, w) in want.iter().enumerate() {
            let lanes = usize::from(reference.outputs[k].lanes);
            assert_eq!(
                &flat[k][..lanes],
                &w[..lanes],
                "output {k} on {inputs:?}\n{:#?}",
                c.code
            );
            assert_eq!(
                &structured[k][..lanes],
                &w[..lanes],
                "output {k} on {inputs:?}, structured\n{:#?}",
                c.structured
            );
        }
    }
    c
}

fn writes_output(c: &Compiled) -> Vec<&M> {
    c.code
        .iter()
        .filter(|m| matches!(m, M::Alu { out: Some(_), .. }))
        .collect()
}

const HEADER: &str = "vertex \"main\"
  input i0 \"a\" location 0 vec4
  input i1 \"b\" location 1 vec4
  output \"out\" location 0 vec4
";

const A: [f32; 4] = [1.0, -2.0, 3.5, 0.25];
const B: [f32; 4] = [4.0, 0.5, -1.0, 2.0];

#[test]
fn a_value_returned_once_is_computed_into_its_output() {
    let text = format!(
        "{HEADER}
fn main() -> (vec4) {{
b0:
  v0: vec4 = input 0
  v1: vec4 = input 1
  v2: vec4 = add v0, v1
  v3: vec4 = mul v2, v0
  return v3
}}
"
    );
    let c = check(&text, 8, Packing::WhenNeeded, &[&[A, B]]);
    let outs = writes_output(&c);
    assert_eq!(outs.len(), 1, "{:#?}", c.code);
    assert!(
        matches!(outs[0], M::Alu { op: Alu::Mul, .. }),
        "the multiply writes the output, no move after it: {:#?}",
        c.code
    );
}

#[test]
fn a_constructs_pieces_are_computed_into_its_lanes_in_one_register() {
    let text = format!(
        "{HEADER}
fn main() -> (vec4) {{
b0:
  v0: vec4 = input 0
  v1: vec4 = input 1
  v2: f32 = mul v0.x, v1.y
  v3: f32 = add v0.y, v1.x
  v4: f32 = const 1.0
  v5: vec4 = construct v2, v3, v0.z, v4
  v6: vec4 = max v5, v1
  return v6
}}
"
    );
    let c = check(&text, 8, Packing::Off, &[&[A, B]]);
    // The multiply and the add write lanes x and y of the construct's register; z and w are
    // moved in; no move copies a whole computed value.
    let alu: Vec<(Alu, u8)> = c
        .code
        .iter()
        .filter_map(|m| match *m {
            M::Alu {
                op,
                mask,
                dst: Some(_),
                ..
            } => Some((op, mask)),
            _ => None,
        })
        .collect();
    assert!(alu.contains(&(Alu::Mul, 0b0001)), "{alu:?}");
    assert!(alu.contains(&(Alu::Add, 0b0010)), "{alu:?}");
    assert!(
        !c.code.iter().any(|m| matches!(m, M::Move { .. })),
        "{:#?}",
        c.code
    );
    assert!(c.registers <= 2, "{} registers", c.registers);
}

#[test]
fn a_second_input_is_copied_once_per_block() {
    let text = format!(
        "{HEADER}
fn main() -> (vec4) {{
b0:
  v0: vec4 = input 0
  v1: vec4 = input 1
  v2: vec4 = add v0, v1
  v3: vec4 = mul v0, v1
  v4: vec4 = min v2, v3
  v5: vec4 = const 0.0, 0.0, 0.0, 0.0
  v6: bool = cmp.lt v5.x, v4.x
  branch v6, b1, b2
b1:
  v7: vec4 = max v0, v1
  jump b3(v7)
b2:
  jump b3(v4)
b3(v8: vec4):
  return v8
}}
"
    )
    .replace("b0:\n", "b0:  ; if, merge b3\n");
    let c = check(&text, 8, Packing::WhenNeeded, &[&[A, B], &[B, A]]);
    // `b` is copied for the add and reused by the multiply; the `max` in another block
    // copies it again.
    assert_eq!(c.copies_made, 2, "{:#?}", c.code);
    assert!(
        [S::If, S::Else, S::EndIf]
            .iter()
            .all(|x| c.structured.contains(x)),
        "{:#?}",
        c.structured
    );
}

#[test]
fn a_loops_values_travel_on_its_back_edge() {
    let text = format!(
        "{HEADER}
fn main() -> (vec4) {{
b0:
  v0: vec4 = input 0
  v1: f32 = const 0.0
  v2: vec4 = const 0.0, 0.0, 0.0, 0.0
  jump b1(v1, v2)
b1(v3: f32, v4: vec4):  ; loop, merge b3, continue b2
  v5: f32 = const 4.0
  v6: bool = cmp.lt v3, v5
  branch v6, b2, b3
b2:
  v7: vec4 = add v4, v0
  v8: f32 = const 1.0
  v9: f32 = add v3, v8
  jump b1(v9, v7)
b3:
  return v4
}}
"
    );
    let c = check(&text, 8, Packing::WhenNeeded, &[&[A, B]]);
    assert!(
        c.code.iter().any(|m| matches!(m, M::JumpIfClear { .. })),
        "{:#?}",
        c.code
    );
    // Laid out by regions: one loop, left by a break on the flag.
    let shape: Vec<&S> = c
        .structured
        .iter()
        .filter(|s| !matches!(s, S::Code(_)))
        .collect();
    assert_eq!(
        shape,
        [&S::Loop, &S::Break { when: false }, &S::EndLoop],
        "{:#?}",
        c.structured
    );
}

#[test]
fn scalars_share_a_registers_lanes_when_registers_run_short() {
    // Four scalars live at once, then summed: more values than two registers hold unless
    // they share lanes.
    let text = format!(
        "{HEADER}
fn main() -> (vec4) {{
b0:
  v0: vec4 = input 0
  v1: vec4 = input 1
  v2: f32 = mul v0.x, v0.y
  v3: f32 = mul v0.z, v0.w
  v4: f32 = add v0.x, v0.z
  v5: f32 = add v0.y, v0.w
  v6: f32 = add v2, v3
  v7: f32 = add v4, v5
  v8: f32 = mul v6, v7
  v9: vec4 = construct v8, v8, v8, v8
  v10: vec4 = add v9, v1
  return v10
}}
"
    );
    let roomy = check(&text, 8, Packing::Off, &[&[A, B], &[B, A]]);
    assert!(!roomy.packed);
    assert!(roomy.registers > 2, "{} registers", roomy.registers);
    let mut m = mir::read::read_module(&text).unwrap_or_else(|e| panic!("{e}"));
    let refused = compile(&mut m, 2, Packing::Off).err().unwrap_or_default();
    assert!(refused.ends_with("registers needed"), "{refused}");
    let tight = check(&text, 2, Packing::WhenNeeded, &[&[A, B], &[B, A]]);
    assert!(tight.packed, "packing was needed");
}

/// The toy's machine code has a start for every virtual block (edge blocks included).
#[test]
fn every_virtual_block_is_emitted() {
    let text = format!(
        "{HEADER}
fn main() -> (vec4) {{
b0:  ; if, merge b2
  v0: vec4 = input 0
  v1: vec4 = input 1
  v2: bool = cmp.lt v0.x, v1.x
  branch v2, b1, b2(v0)
b1:
  v3: vec4 = mul v0, v1
  jump b2(v3)
b2(v4: vec4):
  return v4
}}
"
    );
    let m = mir::read::read_module(&text).unwrap_or_else(|e| panic!("{e}"));
    let code: VCode<Toy> = VCode::new(&m.function);
    let origins: Vec<Origin> = code.origins().collect();
    // The critical edge b0 → b2 is split.
    assert!(
        origins.contains(&Origin::Edge(BlockId::new(0), BlockId::new(2))),
        "{origins:?}"
    );
    let c = check(&text, 8, Packing::WhenNeeded, &[&[A, B], &[B, A]]);
    assert_eq!(c.starts.len(), origins.len());
}

/// A cycle no loop declares (which the verifier refuses) never reaches an end: the walk says
/// so instead of laying out code with a part missing.
#[test]
fn a_region_that_never_ends_is_reported() {
    struct Blocks(usize);
    impl Layout for Blocks {
        type Items = ();
        fn items(&mut self, _walk: &Walk<'_>, _origin: Origin) {
            self.0 += 1;
        }
        fn branch(
            &mut self,
            _: &mut Walk<'_>,
            _: BlockId,
            _: BlockId,
            _: BlockId,
            _: (),
        ) -> Option<BlockId> {
            None
        }
        fn looped(&mut self, _walk: &mut Walk<'_>, _l: Loop) {}
        fn end(&mut self, _b: BlockId) {}
    }
    let text = format!(
        "{HEADER}
fn main() -> (vec4) {{
b0:
  v0: vec4 = input 0
  jump b1
b1:
  jump b0
}}
"
    );
    let m = mir::read::read_module(&text).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        mir::verify::verify(&m).is_err(),
        "the verifier refuses the cycle"
    );
    let mut blocks = Blocks(0);
    assert_eq!(Walk::new(&m.function).function(&mut blocks), None);
    assert!(blocks.0 > 0);
}
