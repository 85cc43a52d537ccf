//! Instruction selection: MIR (after the PICA200 pipeline) to [`VInst`]s in a [`VCode`], as
//! the PICA200's [`Hooks`] on the machine layer's driver (`machine::select`).
//!
//! Inputs, uniforms and literals are read where they live (`v`, `c`, `c[a0.x + n]`); only
//! computed values get virtual registers. Values go straight into their output register or
//! a construct's lanes where they can, and with lane packing on (`machine::lanes`, used when
//! the program needs more than sixteen temporaries) small values share registers. Each instruction is made legal for its encoding
//! here, before allocation, so that any extra move is a virtual register like the rest:
//! - one constant register per instruction, in the wide slot (src1; src2 of the inverted
//!   forms DPHI/DSTI/SGEI/SLTI; src2 or src3 of MAD/MADI), commuting ADD/MUL/DP3/DP4 and the
//!   MAD factors to get it there, and moving it to a temporary otherwise;
//! - never two different input registers in one instruction;
//! - MIN and MAX take their operands swapped (GLSL's `max(x, y)` is the PICA200's
//!   `MAX y, x`: both give `x` when either is NaN), which also puts the `0.0` of
//!   `max(x, 0.0)` in the wide slot; where that leaves a constant in the narrow slot they
//!   commute back instead of copying it (which operand a NaN gives is undefined in GLSL and
//!   SPIR-V);
//! - RCP, RSQ, EX2 and LG2 read one component and broadcast: one instruction per lane;
//! - no abs modifier: `|x|` is `max(x, -x)` in a temporary.
//!
//! What a branch tests is set up at the end of its block (CMP, or nothing for a bool
//! uniform) and recorded in [`Selected::branches`] for the emitter.

use crate::rules::Rule;
use machine::inst::VInst as _;
use mir::hash::{HashMap, HashSet};

use machine::lower::{self, Lower};
use machine::select::{self as driver, Chain, Hooks, Placement, returned_once};
use machine::vcode::VCode;
use mir::func::{BlockId, Function, Value, ValueDef};
use mir::inst::{CmpOp as MirCmp, Op};
use mir::{Diagnostic, Module};
use regalloc2::VReg;

use super::flags::{Arm, Carried, Wide};
use super::outline::Outline;
use super::pool::Pool;
use super::vinst::MAX_PARAMS;
use super::vinst::{VDst, VInst, VOp, VSrc};
use crate::inst::{BinaryOp, UnaryOp};
use crate::operand::{CmpOp, Component, Condition, Mask, RelIndex, Swizzle};

/// What a block's conditional branch tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Test {
    /// A condition on the CMP flags, true when the branch's condition is: `cmp.x` set by
    /// the CMP just before the branch, or the flags the arms of the `if` before it set
    /// (see [`super::flags`]).
    Cmp(Condition),
    /// Bool uniform `bN`.
    Bool(u8),
}

/// What is being selected.
#[derive(Clone, Copy, Debug)]
pub enum Role<'o> {
    /// A program.
    Program,
    /// A program whose runs call a procedure (see [`super::outline`]), which writes
    /// `clobbers`.
    Caller {
        /// The procedure and its calls.
        outline: &'o Outline,
        /// The registers the procedure writes.
        clobbers: &'o [usize],
    },
    /// The procedure: its entry block's parameters arrive in `r0`, `r1`, ….
    Procedure,
}

/// Where an output goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputSlot {
    /// `oN`.
    pub reg: u8,
    /// Components written.
    pub mask: Mask,
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
    inputs: &HashMap<usize, VSrc>,
    emits: &HashMap<mir::InstId, VInst>,
    outputs: &[Option<OutputSlot>],
    pool: &mut Pool,
    pack_lanes: bool,
    role: Role<'_>,
) -> Result<Selected, Vec<Diagnostic>> {
    let f = &module.function;
    let mut s = Selector {
        role,
        m: module,
        lo: Lower::new(f, pack_lanes),
        pool,
        inputs,
        emits,
        outputs,
        a0: [None; 2],
        a0_next: 0,
        indices: Vec::new(),
        index_cursor: 0,
        abs: HashMap::default(),
        splat_outputs: HashSet::default(),
        splat: false,
        branches: HashMap::default(),
        lane: 0,
        shift_count: 1,
        merged_outputs: HashSet::default(),
        kept: HashMap::default(),
        mad_descriptors: Vec::new(),
        carried: super::flags::carried(f),
    };
    s.lo.outputs_at = s.output_places();
    s.splat_outputs =
        s.lo.outputs_at
            .keys()
            .filter(|v| f.ty(**v).lanes == 1)
            .copied()
            .collect();
    if module.stage == mir::Stage::Geometry {
        let at = s.emit_places();
        s.lo.outputs_at.extend(at);
    }
    driver::drive(&mut s);
    let branches = s.branches;
    s.lo.finish().map(|code| Selected { code, branches })
}

struct Selector<'a> {
    /// What is being selected.
    role: Role<'a>,
    m: &'a Module,
    /// The state the machine layer's driver shares: outputs are [`OutputSlot`]s, a chain
    /// keeps the output register it is written to instead, if any, and constant registers
    /// `cN` are copied by `N`.
    lo: Lower<'a, VInst, OutputSlot, Option<u8>, u8>,
    pool: &'a mut Pool,
    /// Each input's register (`vN`, or `cN` for a fixed-mode geometry program), by the
    /// input's index.
    inputs: &'a HashMap<usize, VSrc>,
    /// The SETEMIT of each `EmitVertex` (geometry programs).
    emits: &'a HashMap<mir::InstId, VInst>,
    /// Where each output of the module goes.
    outputs: &'a [Option<OutputSlot>],
    /// The index value each address register holds in the current block.
    a0: [Option<mir::Operand>; 2],
    /// Which address register to overwrite next when both hold something.
    a0_next: usize,
    /// The indices the current block's instructions read constants at, in order (see
    /// `address`), and how many of them the instructions selected so far come after.
    indices: Vec<mir::Operand>,
    index_cursor: usize,
    /// `|v|` computed in the current block.
    abs: HashMap<Value, VReg>,
    /// Scalars returned splat (`vec4(s)`) that are computed into every lane of their output.
    splat_outputs: HashSet<Value>,
    /// The current instruction writes a scalar to every lane of its destination: its
    /// lane-wise sources are read broadcast.
    splat: bool,
    branches: HashMap<BlockId, Test>,
    /// The lane the current instruction's result starts at, and how many lanes it has,
    /// when it is placed in a construct's lanes (see [`Selector::dest`]).
    lane: u8,
    shift_count: u8,
    /// The operand descriptors the MADs so far need (at most 32).
    mad_descriptors: Vec<MadKey>,
    /// Block parameters returned as outputs whose incoming values are all computed straight
    /// into the output: not passed in a register.
    merged_outputs: HashSet<Value>,
    /// The current block's constructs written into the register of a vector whose lanes
    /// they keep in place, with that vector.
    kept: HashMap<Value, Value>,
    /// Branch conditions the arms of an `if` set in the flags.
    carried: Carried,
}

/// Where a value is computed, when not into a register of its own: a construct's lanes, or
/// an output register.
type Place = lower::Place<OutputSlot>;

/// Where a block's values go (see [`driver::plan`]): a value the return alone reads goes
/// into its output register; a value only a construct reads goes into the construct's lanes
/// (the construct's other lanes are moved in after), and the construct itself into its
/// output register when it has one.
impl<'a> Placement<'a> for Selector<'a> {
    fn lower_ref(&self) -> &Lower<'a, VInst, OutputSlot, Option<u8>, u8> {
        &self.lo
    }

    fn fits(&self, v: Value, d: &mir::Inst, _lane: u8, count: u8) -> bool {
        writes(self.lo.f, v) && d.op != Op::Construct && (count == 1 || lanewise(d.op))
    }

    fn start(
        &mut self,
        c: Value,
        args: &[mir::Operand],
        placed: &[(Value, u8, u8)],
        here: &HashMap<Value, usize>,
    ) -> Chain<Option<u8>> {
        let output = self.lo.output(c).map(|o| o.reg);
        // A vector whose lanes the construct keeps where they are starts the chain (not for
        // a construct written to an output register, which has no lanes to keep).
        // Only one the construct alone reads: the construct overwrites its register, so one
        // read later would need a copy, which is the move the construct saves.
        let uses = &self.lo.uses;
        let read_elsewhere =
            |v: Value| uses.get(&v).copied() != Some(args.iter().filter(|a| a.value == v).count());
        let base = output
            .is_none()
            .then(|| driver::kept_base(&self.lo, c, args, 0, placed, here, read_elsewhere))
            .flatten();
        if let Some(b) = base {
            self.kept.insert(c, b);
        }
        Chain {
            prev: base.map(|v| self.lo.vreg(v)),
            left: self.groups(c, args).len(),
            extra: output,
        }
    }

    fn unpacked(&self, exclude: &mut HashSet<Value>) {
        // Vectors kept in place hold a register of their own.
        exclude.extend(self.kept.values().copied());
        // Values the flags carry instead are never computed.
        exclude.extend(self.carried.skipped.iter().copied());
    }

    fn packable(op: Op, lanes: u8) -> bool {
        packable(op, lanes)
    }
}

/// The PICA swizzle of a MIR one.
fn swizzle(s: mir::Swizzle) -> Swizzle {
    Swizzle::new(s.0.map(|l| Component::from_index(l as usize)))
}

/// The mask of the first `n` components.
fn first(n: u8) -> Mask {
    Mask::new((1u8 << n) - 1).unwrap_or(Mask::XYZW)
}

impl<'a> Hooks<'a> for Selector<'a> {
    type Inst = VInst;
    type Output = OutputSlot;
    type Extra = Option<u8>;
    type CopyKey = u8;

    fn lower(&mut self) -> &mut Lower<'a, VInst, OutputSlot, Option<u8>, u8> {
        &mut self.lo
    }

    /// MIR operand `op` in a plain virtual register (a move when it is anything else, or
    /// what `src` reads where it lives).
    fn in_vreg(&mut self, op: &mir::Operand, _param: Value) -> VReg {
        if let Some(r) = self.lo.own_vreg(op, Op::is_input_uniform_or_constant) {
            return r;
        }
        let src = self.src(op);
        let t = self.lo.code.vreg();
        self.emit(VInst::Unary {
            op: UnaryOp::Mov,
            dst: VDst::Temp(t, Mask::XYZW),
            src,
        });
        t
    }

    fn passed(&self, param: Value) -> bool {
        // A procedure's parameters arrive in registers (`VInst::Params`).
        let arrives = matches!(self.role, Role::Procedure)
            && self.lo.f.blocks[self.lo.f.entry].params.contains(&param);
        !self.merged_outputs.contains(&param) && !self.carried.skipped.contains(&param) && !arrives
    }

    fn start_block(&mut self) {
        self.a0 = [None; 2];
        self.abs.clear();
        self.kept.clear();
    }

    fn block(&mut self, b: BlockId) {
        let f = self.lo.f;
        if matches!(self.role, Role::Procedure) && b == f.entry {
            self.parameters();
        }
        driver::plan(self, b);
        // The indices read in this block, and where each instruction's start.
        self.indices.clear();
        let mut starts = Vec::with_capacity(f.blocks[b].insts.len());
        for &i in &f.blocks[b].insts {
            starts.push(self.indices.len());
            for a in &f.insts[i].args {
                if let Some(d) = f.def_inst(a.value) {
                    if matches!(d.op, Op::LoadUniform { .. }) && d.args.len() == 1 {
                        self.indices.push(index_key(&d.args[0]));
                    }
                }
            }
        }
        for (&i, start) in f.blocks[b].insts.iter().zip(starts) {
            self.index_cursor = start;
            self.inst(i);
        }
        // A merged output this block passes a value to that is not computed in place
        // (see `merged_output_places`): moved into the output here.
        if let mir::Terminator::Jump(e) = &f.blocks[b].term {
            self.move_merged_outputs(&e.args, e.target);
            self.set_flags(b, e.target);
        }
    }

    fn edge(&mut self, from: BlockId, to: BlockId) {
        // The same on a branch's split edge.
        let f = self.lo.f;
        if let Some(e) = f.blocks[from]
            .term
            .edges()
            .into_iter()
            .find(|e| e.target == to)
        {
            let args = e.args.clone();
            self.move_merged_outputs(&args, to);
        }
        self.set_flags(from, to);
    }

    fn test(&mut self, b: BlockId, cond: &mir::Operand, _then: BlockId, _otherwise: BlockId) {
        self.fresh();
        self.branch_test(b, cond);
    }

    fn ret(&mut self, _b: BlockId, values: &[mir::Operand]) {
        self.fresh();
        for (slot, v) in self.outputs.iter().zip(values) {
            let Some(slot) = slot else { continue };
            if self.lo.outputs_at.contains_key(&v.value) {
                continue;
            }
            self.lo.at_definition(v.value);
            let src = self.src(v);
            self.emit(VInst::Unary {
                op: UnaryOp::Mov,
                dst: VDst::Out(slot.reg, slot.mask),
                src,
            });
        }
    }
}

impl Selector<'_> {
    /// Forgets the placement of the instruction selected last (the lane its result lands
    /// in, a broadcast): each MIR instruction and each terminator starts from none.
    fn fresh(&mut self) {
        self.lane = 0;
        self.shift_count = 1;
        self.splat = false;
    }

    /// Values an `EmitVertex` alone reads that can be computed straight into their output
    /// register: whole values, computed in the emit's block after the EMIT before it (so no
    /// EMIT runs between their computation and theirs).
    fn emit_places(&self) -> HashMap<Value, OutputSlot> {
        let f = self.lo.f;
        let mut out = HashMap::default();
        for &b in &f.layout {
            let mut since_emit: HashSet<Value> = HashSet::default();
            for &i in &f.blocks[b].insts {
                let inst = &f.insts[i];
                // A call writes the outputs; the emits it replaces write nothing here.
                if let Role::Caller { outline, .. } = self.role {
                    if outline.calls.contains_key(&i) || outline.removed.contains(&i) {
                        if !inst.op.is_pure() {
                            since_emit.clear();
                        }
                        continue;
                    }
                }
                match inst.op {
                    Op::EmitVertex => {
                        for (slot, v) in self.outputs.iter().zip(&inst.args) {
                            let Some(slot) = slot else { continue };
                            let lanes = slot.mask.bits().count_ones() as u8;
                            let whole = v.swizzle == mir::Swizzle::IDENTITY && !v.neg && !v.abs;
                            if whole
                                && since_emit.contains(&v.value)
                                && self.lo.uses.get(&v.value) == Some(&1)
                                && f.ty(v.value).lanes == lanes
                                && writes(f, v.value)
                            {
                                out.insert(v.value, *slot);
                            }
                        }
                        since_emit.clear();
                    }
                    Op::EndPrimitive => {}
                    _ => {
                        if let Some(r) = inst.result() {
                            since_emit.insert(r);
                        }
                    }
                }
            }
        }
        out
    }

    /// A procedure's parameters, arriving in `r0`, `r1`, …: the virtual registers of the
    /// entry block's parameters are defined there.
    fn parameters(&mut self) {
        let f = self.lo.f;
        let params = &f.blocks[f.entry].params;
        let mut regs = [VReg::invalid(); MAX_PARAMS];
        for (k, &p) in params.iter().enumerate().take(MAX_PARAMS) {
            regs[k] = self.lo.vreg(p);
        }
        let inst = VInst::Params {
            regs,
            count: params.len().min(MAX_PARAMS) as u8,
        };
        let ops = inst.operands();
        self.lo.code.push(inst, &ops, self.lo.span);
    }

    /// The call that takes the place of a run: its arguments in virtual registers, which
    /// allocation moves into `r0`, `r1`, …; no value lives in `clobbers` across it.
    fn call(&mut self, args: &[mir::Operand], clobbers: &[usize]) {
        self.fresh();
        let mut regs = [VReg::invalid(); MAX_PARAMS];
        for (k, a) in args.iter().enumerate().take(MAX_PARAMS) {
            regs[k] = self.in_vreg(a, a.value);
        }
        let inst = VInst::Call {
            args: regs,
            count: args.len().min(MAX_PARAMS) as u8,
        };
        let ops = inst.operands();
        let at = self.lo.code.push(inst, &ops, self.lo.span);
        self.lo.code.clobber(at, clobbers.iter().copied());
    }

    /// SETEMIT, every output written from its current value (unless computed there
    /// already), EMIT.
    fn emit_vertex(&mut self, i: mir::InstId, values: &[mir::Operand]) {
        let Some(&setemit) = self.emits.get(&i) else {
            self.error(self.lo.span, "internal: an EmitVertex without its SETEMIT");
            return;
        };
        self.emit(setemit);
        for (slot, v) in self.outputs.iter().zip(values) {
            let Some(slot) = slot else { continue };
            if self.lo.outputs_at.contains_key(&v.value) {
                continue;
            }
            let src = self.src(v);
            self.emit(VInst::Unary {
                op: UnaryOp::Mov,
                dst: VDst::Out(slot.reg, slot.mask),
                src,
            });
        }
        self.emit(VInst::Emit);
    }

    fn error(&mut self, span: mir::Span, message: impl Into<String>) {
        self.lo
            .error(Diagnostic::error(Rule::Unsupported, message).with_span(span));
    }

    /// Values the return alone reads that can be computed straight into their output
    /// register: whole values read in order, computed in a block that runs exactly once
    /// (outside every `if` and loop), so the output is written once on every path.
    fn output_places(&mut self) -> HashMap<Value, OutputSlot> {
        let f = self.lo.f;
        let regions = mir::analysis::regions::Regions::new(f);
        let mut out = HashMap::default();
        // A scalar returned splat (`vec4(s)`), computed once by an instruction that can
        // write it to every lane (lane-wise, its sources broadcast, or a dot product):
        // straight into the whole output, with no copy after.
        for (k, v, d) in driver::returned_splat(f, &self.lo.uses, &regions) {
            let Some(Some(slot)) = self.outputs.get(k) else {
                continue;
            };
            let fits = matches!(
                d.op,
                Op::Add
                    | Op::Sub
                    | Op::Mul
                    | Op::Mad
                    | Op::Min
                    | Op::Max
                    | Op::Mov
                    | Op::Floor
                    | Op::Dot(_)
                    | Op::Dph
            );
            if fits && slot.mask.bits().count_ones() > 1 {
                out.insert(v, *slot);
            }
        }
        out.extend(self.merged_output_places(&regions));
        for (k, v, _) in returned_once(f, &self.m.outputs, &self.lo.uses, &regions) {
            let Some(Some(slot)) = self.outputs.get(k) else {
                continue;
            };
            let lanes = slot.mask.bits().count_ones() as u8;
            // Lanes no semantic carries (`pica.output-dropped`) are not computed at all: a
            // lane-wise instruction writes the carried ones only.
            let n = f.ty(v.value).lanes;
            let narrowed = n > lanes
                && f.def_inst(v.value)
                    .is_some_and(|d| lanewise(d.op) || d.op == Op::Construct);
            if (n == lanes || narrowed) && writes(f, v.value) {
                out.insert(v.value, *slot);
            }
        }
        out
    }

    /// Moves into their outputs the values `args` pass to merged outputs of `to` that are
    /// not computed in place.
    fn move_merged_outputs(&mut self, args: &[mir::Operand], to: BlockId) {
        let f = self.lo.f;
        for (a, p) in args.iter().zip(&f.blocks[to].params) {
            if !self.merged_outputs.contains(p) || self.lo.outputs_at.contains_key(&a.value) {
                continue;
            }
            let Some(&OutputSlot { reg, mask }) = self.lo.outputs_at.get(p) else {
                continue;
            };
            self.fresh();
            let src = self.src(a);
            self.emit(VInst::Unary {
                op: UnaryOp::Mov,
                dst: VDst::Out(reg, mask),
                src,
            });
        }
    }

    /// Outputs returned from a merge (`if (c) o = a; else o = b;`): a value coming in that
    /// is computed by an instruction, in the block that passes it, for the merge alone, and
    /// outside loops, is computed straight into the output register on its own path; any
    /// other is moved into the output at the end of the block that passes it (the move the
    /// merge's register would have needed; on a branch's edge, in the block splitting it).
    /// Values are computed in place only in blocks that jump to the merge, so that each path
    /// writes the output once. The merge receives nothing: the
    /// parameter is the output itself (the PICA200 writes outputs under a condition as
    /// anywhere else).
    fn merged_output_places(
        &mut self,
        regions: &mir::analysis::regions::Regions,
    ) -> Vec<(Value, OutputSlot)> {
        let f = self.lo.f;
        let in_loop = |b: BlockId| regions.in_loop(b);
        let Some((rb, values)) = f.layout.iter().find_map(|&b| match &f.blocks[b].term {
            mir::Terminator::Return(values) => Some((b, values)),
            _ => None,
        }) else {
            return Vec::new();
        };
        if in_loop(rb) {
            return Vec::new();
        }
        let preds = f.predecessors();
        let mut out = Vec::new();
        for (k, v) in values.iter().enumerate() {
            let Some(Some(slot)) = self.outputs.get(k) else {
                continue;
            };
            let ValueDef::Param(pb, index) = f.values[v.value].def else {
                continue;
            };
            let lanes = f.ty(v.value).lanes;
            let plain = pb == rb
                && !v.neg
                && !v.abs
                && v.swizzle.is_identity(lanes)
                && self.lo.uses.get(&v.value) == Some(&1)
                && lanes == slot.mask.bits().count_ones() as u8;
            if !plain || preds[rb.index()].is_empty() {
                continue;
            }
            // Each incoming value: computed straight into the output (`Some`), or moved
            // there at the end of the block that jumps (`None`: a literal, a value from
            // elsewhere; that move replaces the one the merge's register would need).
            let incoming: Option<Vec<Option<Value>>> = preds[rb.index()]
                .iter()
                .map(|&p| {
                    // In place only in a block that jumps: its write is then the last on
                    // its path (a branch's other path could reach the merge through a block
                    // that writes again, and an output written twice freezes the GPU). A
                    // branch's edge to the merge is split (the merge has another
                    // predecessor): what it passes is moved there.
                    let (a, jump) = match &f.blocks[p].term {
                        mir::Terminator::Jump(e) => (e.args.get(index as usize)?, true),
                        mir::Terminator::Branch {
                            then, otherwise, ..
                        } if (then.target == rb) != (otherwise.target == rb) => {
                            let e = if then.target == rb { then } else { otherwise };
                            (e.args.get(index as usize)?, false)
                        }
                        _ => return None,
                    };
                    let defined_here = f.blocks[p]
                        .insts
                        .iter()
                        .any(|&i| f.insts[i].results.contains(&a.value));
                    let whole = !a.neg && !a.abs && a.swizzle.is_identity(lanes);
                    let in_place = whole
                        && defined_here
                        && !in_loop(p)
                        && self.lo.uses.get(&a.value) == Some(&1)
                        && writes(f, a.value)
                        && f.ty(a.value).lanes == lanes;
                    Some((in_place && jump).then_some(a.value))
                })
                .collect();
            let Some(incoming) = incoming else { continue };
            // Nothing is saved unless some value is computed in place.
            if incoming.iter().all(Option::is_none) {
                continue;
            }
            out.extend(incoming.into_iter().flatten().map(|a| (a, *slot)));
            out.push((v.value, *slot));
            self.merged_outputs.insert(v.value);
        }
        out
    }

    /// The next piece of the vector `c`, writing `mask`.
    fn piece(&mut self, c: Value, mask: Mask) -> VDst {
        if let Some(reg) = self.lo.chains.get(c).and_then(|st| st.extra) {
            self.lo.chains.count_down(c);
            return VDst::Out(reg, mask);
        }
        match self
            .lo
            .chains
            .next(c, &mut self.lo.code, &mut self.lo.vregs)
        {
            Some(piece) => VDst::piece(piece, mask),
            None => {
                self.error(
                    self.lo.span,
                    "internal: a piece of a vector that is not being built",
                );
                VDst::Temp(self.lo.code.vreg(), mask)
            }
        }
    }

    /// Where the instruction computing `r` (`n` lanes) writes, and the lane its one-lane
    /// result lands in (lane-wise sources are read through a broadcast then).
    fn dest(&mut self, r: Value, n: u8) -> (VDst, u8) {
        match self.lo.places.get(&r).copied() {
            Some(Place::Lane { chain, lane, count }) => {
                let mask = Mask::of(
                    &(lane..lane + count)
                        .map(|l| Component::from_index(l as usize))
                        .collect::<Vec<_>>(),
                );
                self.shift_count = count;
                (self.piece(chain, mask), lane)
            }
            Some(Place::Output(OutputSlot { reg, mask })) => {
                self.splat = self.splat_outputs.contains(&r) && mask.bits().count_ones() > 1;
                (VDst::Out(reg, mask), 0)
            }
            None => match self.lo.packs.write(r, &mut self.lo.code) {
                Some((piece, offset)) => {
                    let mask = Mask::of(
                        &(offset..offset + n)
                            .map(|l| Component::from_index(l as usize))
                            .collect::<Vec<_>>(),
                    );
                    self.shift_count = n;
                    (VDst::piece(piece, mask), offset)
                }
                None => (VDst::Temp(self.lo.vreg(r), first(n)), 0),
            },
        }
    }

    /// The CMP that sets the flags a later branch tests, at the end of edge `from` → `to`
    /// into an `if`'s merge (see [`super::flags`]).
    fn set_flags(&mut self, from: BlockId, to: BlockId) {
        let Some(&arm) = self.carried.arms.get(&(from, to)) else {
            return;
        };
        self.fresh();
        let inst = match arm {
            // `x < x` is false for every x.
            Arm::False => {
                let v0 = VOp {
                    src: VSrc::Input(0),
                    swizzle: Swizzle::IDENTITY,
                    neg: false,
                };
                VInst::Cmp {
                    a: v0,
                    x: CmpOp::Lt,
                    y: CmpOp::Lt,
                    b: v0,
                }
            }
            Arm::Cmp { wide, x, y, narrow } => {
                let a = match wide {
                    Wide::Value(o) => self.src(&o),
                    Wide::Literals(k) => {
                        let p = self.pool.place(&k);
                        VOp {
                            src: VSrc::Const(p.reg),
                            swizzle: p.swizzle,
                            neg: p.neg,
                        }
                    }
                };
                let b = self.src(&narrow);
                VInst::Cmp {
                    a,
                    x: cmp_op(x),
                    y: cmp_op(y),
                    b,
                }
            }
        };
        self.emit(inst);
    }

    /// Sets up the test of a conditional branch ending block `b`.
    fn branch_test(&mut self, b: BlockId, cond: &mir::Operand) {
        if let Some(&c) = self.carried.tests.get(&b) {
            self.branches.insert(b, Test::Cmp(c));
            return;
        }
        let def = self.lo.f.def_inst(cond.value).cloned();
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
                self.branches.insert(b, Test::Cmp(Condition::x(true)));
            }
            Some(Op::LoadBoolUniform { register }) => {
                self.branches.insert(b, Test::Bool(register as u8));
            }
            _ => self.error(
                self.lo.f.blocks[b].span,
                "internal: a branch on a value that is not a comparison or a bool uniform",
            ),
        }
    }

    /// A source operand for MIR operand `op` (may emit a MOVA or an abs).
    fn src(&mut self, op: &mir::Operand) -> VOp {
        let v = op.value;
        if let Some((pack, offset)) = self.lo.packs.read(v) {
            // Lane j of the value is lane offset + j of its pack.
            let sw = Swizzle::new(
                op.swizzle
                    .0
                    .map(|l| Component::from_index(usize::from((offset + l).min(3)))),
            );
            if op.abs {
                return self.abs_of(v, VSrc::Temp(pack), sw, op.neg);
            }
            return VOp {
                src: VSrc::Temp(pack),
                swizzle: sw,
                neg: op.neg,
            };
        }
        let sw = swizzle(op.swizzle);
        let base = match self.lo.f.values[v].def {
            ValueDef::Param(..) => VSrc::Temp(self.lo.vreg(v)),
            ValueDef::Inst(i, _) => {
                let inst = self.lo.f.insts[i].clone();
                match inst.op {
                    Op::LoadInput(id) => {
                        let loc = self.m.inputs[id].location;
                        self.inputs
                            .get(&id.index())
                            .copied()
                            .unwrap_or(VSrc::Input(loc as u8))
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
                        let lanes = self.lo.f.ty(v).lanes.max(1) as usize;
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
                    _ => VSrc::Temp(self.lo.vreg(v)),
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
                let t = self.lo.code.vreg();
                let x = VOp {
                    src: base,
                    swizzle: Swizzle::IDENTITY,
                    neg: false,
                };
                self.emit(VInst::Binary {
                    op: BinaryOp::Max,
                    dst: VDst::Temp(t, Mask::XYZW),
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
    ///
    /// When the next other index the block reads is another lane of the same value, and the
    /// other address register holds nothing the block reads again, one MOVA loads both
    /// (`mova a0.xy, r0.xy`: four bones' indices in two words, not four). When both hold
    /// something, the one the block reads again later (or never) is overwritten.
    fn address(&mut self, idx: &mir::Operand) -> RelIndex {
        let want = index_key(idx);
        let names = [RelIndex::A0X, RelIndex::A0Y];
        if let Some(k) = self.a0.iter().position(|h| *h == Some(want)) {
            return names[k];
        }
        let ahead = &self.indices[self.index_cursor.min(self.indices.len())..];
        let next_use = |h: &Option<mir::Operand>| {
            h.and_then(|h| ahead.iter().position(|x| *x == h))
                .unwrap_or(usize::MAX)
        };
        let k = match self.a0.iter().position(Option::is_none) {
            Some(k) => k,
            None if ahead.is_empty() => self.a0_next,
            None if next_use(&self.a0[0]) >= next_use(&self.a0[1]) => 0,
            None => 1,
        };
        self.a0_next = 1 - k;
        let other = 1 - k;
        let free = next_use(&self.a0[other]) == usize::MAX;
        let pair =
            ahead.iter().find(|x| **x != want).copied().filter(|u| {
                free && u.value == want.value && u.neg == want.neg && u.abs == want.abs
            });
        let src = self.src(&want);
        let lane = src.swizzle.lane(Component::X);
        let (mask, src) = match pair {
            Some(u) => {
                let theirs = self.src(&u).swizzle.lane(Component::X);
                let lanes = if k == 0 {
                    [lane, theirs]
                } else {
                    [theirs, lane]
                };
                self.a0[other] = Some(u);
                let mask = Mask::of(&[Component::X, Component::Y]);
                let swizzle = Swizzle::new([lanes[0], lanes[1], lanes[1], lanes[1]]);
                (mask, VOp { swizzle, ..src })
            }
            // MOVA a0.y reads the source's y component.
            None if k == 1 => (
                Mask::of(&[Component::Y]),
                VOp {
                    swizzle: Swizzle::broadcast(lane),
                    ..src
                },
            ),
            None => (Mask::of(&[Component::X]), src),
        };
        self.emit(VInst::Mova { mask, src });
        self.a0[k] = Some(want);
        names[k]
    }

    /// Selects one MIR instruction.
    fn inst(&mut self, i: mir::InstId) {
        let inst = self.lo.f.insts[i].clone();
        let span = inst.span;
        self.lo.span = span;
        self.fresh();
        if inst
            .result()
            .is_some_and(|r| self.carried.skipped.contains(&r))
        {
            return;
        }
        if let Role::Caller { outline, clobbers } = self.role {
            if let Some(args) = outline.calls.get(&i) {
                return self.call(args, clobbers);
            }
            if outline.removed.contains(&i) {
                return;
            }
        }
        let Some(r) = inst.result() else {
            match inst.op {
                Op::Kill => self.error(span, "discard in a vertex program"),
                Op::EmitVertex => self.emit_vertex(i, &inst.args),
                Op::EndPrimitive => {}
                _ => self.error(span, format!("internal: {} has no result", inst.op.name())),
            }
            return;
        };
        let ty = self.lo.f.ty(r);
        let n = ty.lanes;
        if ty.kind == mir::Kind::Bool {
            // Conditions: the branch sets them up (CMP), or they are bool uniforms.
            return;
        }
        let args = inst.args.clone();
        // Where the result goes; a one-lane result placed in lane k of a vector reads its
        // lane-wise sources through a broadcast.
        let dst = |s: &mut Self| {
            let (d, lane) = s.dest(r, n);
            s.lane = lane;
            d
        };
        match inst.op {
            // Read where they live (see `src`).
            Op::LoadInput(_) | Op::LoadUniform { .. } | Op::Const(_) => {}
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
                if n == 1 {
                    let src = self.src(&args[0]);
                    let d = dst(self);
                    self.emit(VInst::Unary { op, dst: d, src });
                    return;
                }
                let output = self.lo.output(r).map(|o| o.reg);
                let v = self.lo.vreg(r);
                let mut prev: Option<VReg> = None;
                for lane in 0..n {
                    let one = mir::Operand {
                        swizzle: mir::Swizzle::splat(args[0].swizzle.lane(lane as usize)),
                        ..args[0]
                    };
                    let src = self.src(&one);
                    let mask = Mask::of(&[Component::from_index(lane as usize)]);
                    let d = match output {
                        Some(reg) => VDst::Out(reg, mask),
                        None => {
                            let new = if lane + 1 == n {
                                v
                            } else {
                                self.lo.code.vreg()
                            };
                            let d = match prev {
                                None => VDst::Temp(new, mask),
                                Some(p) => VDst::Tied { prev: p, new, mask },
                            };
                            prev = Some(new);
                            d
                        }
                    };
                    self.emit(VInst::Unary { op, dst: d, src });
                }
            }
            Op::Sat => {
                // clamp(x, 0, 1): MAX 0, x then MIN 1, t (GLSL operand order, see above).
                let x = self.src(&args[0]);
                let zero = self.constant(0.0);
                let one = self.constant(1.0);
                let t = self.lo.code.vreg();
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
            Op::InstanceIndex => self.error(
                span,
                "gl_InstanceIndex: the PICA200 draws one instance at a time and has no \
                 register that numbers them (pass the instance's data in a uniform)",
            ),
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
        let Some(def) = self.lo.f.def_inst(cond.value).cloned() else {
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
        let dest = |s: &mut Self| {
            let (d, lane) = s.dest(r, n);
            s.lane = lane;
            d
        };
        let set = |s: &mut Self, op: BinaryOp, dst: VDst, x: VOp, y: VOp| {
            s.emit(VInst::Binary {
                op,
                dst,
                a: x,
                b: y,
            });
        };
        match c {
            MirCmp::Lt => {
                let d = dest(self);
                set(self, BinaryOp::Slt, d, a, b)
            }
            MirCmp::Ge => {
                let d = dest(self);
                set(self, BinaryOp::Sge, d, a, b)
            }
            MirCmp::Gt => {
                let d = dest(self);
                set(self, BinaryOp::Slt, d, b, a)
            }
            MirCmp::Le => {
                let d = dest(self);
                set(self, BinaryOp::Sge, d, b, a)
            }
            MirCmp::Eq | MirCmp::Ne => {
                // a == b: (a >= b) * (b >= a); a != b: (a < b) + (b < a).
                let op = if c == MirCmp::Eq {
                    BinaryOp::Sge
                } else {
                    BinaryOp::Slt
                };
                let (t1, t2) = (self.lo.code.vreg(), self.lo.code.vreg());
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
                let d = dest(self);
                set(self, combine, d, temp(t1), temp(t2));
            }
        }
    }

    /// The lanes of construct `c` still to be moved in (those not computed in place),
    /// grouped by what they read: one MOV per group.
    fn groups(&self, c: Value, args: &[mir::Operand]) -> Vec<(Option<mir::Operand>, Vec<usize>)> {
        let mut groups: Vec<(Option<mir::Operand>, Vec<usize>)> = Vec::new();
        // A vector built in an output register writes only the lanes its semantic carries.
        let carried = self
            .lo
            .output(c)
            .map_or(4, |o| o.mask.bits().count_ones() as usize);
        for (l, a) in args.iter().enumerate().take(carried) {
            if self.lo.in_chain(a.value, c) {
                continue;
            }
            // A lane of the vector the construct keeps in place.
            let kept = self.kept.get(&c) == Some(&a.value);
            if kept && !a.neg && !a.abs && a.swizzle.lane(0) == l as u8 {
                continue;
            }
            let constant = matches!(
                self.lo.f.def_inst(a.value).map(|d| d.op),
                Some(Op::Const(_))
            );
            let key = if constant {
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
        groups
    }

    /// A vector from lanes: the lanes computed in place are there already; one MOV per
    /// group of the others.
    fn construct(&mut self, r: Value, args: &[mir::Operand]) {
        for (key, lanes) in self.groups(r, args) {
            let mask = Mask::of(
                &lanes
                    .iter()
                    .map(|&l| Component::from_index(l))
                    .collect::<Vec<_>>(),
            );
            // Lane l of the destination reads lane 0 of args[l] (through its swizzle).
            let src = match key {
                Some(base) => {
                    let mut sw = [0u8; 4];
                    for &l in &lanes {
                        sw[l] = args[l].swizzle.lane(0);
                    }
                    let op = mir::Operand {
                        swizzle: mir::Swizzle(sw),
                        ..base
                    };
                    self.src(&op)
                }
                None => {
                    let mut values = [0.0f32; 4];
                    for &l in &lanes {
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
            let dst = self.piece(r, mask);
            self.emit(VInst::Unary {
                op: UnaryOp::Mov,
                dst,
                src,
            });
        }
    }

    /// The value of a constant scalar operand (its lane 0, modifiers applied).
    fn const_lane(&self, o: &mir::Operand) -> f32 {
        mir::analysis::constants::scalar(self.lo.f, o).unwrap_or(0.0)
    }

    /// Appends `inst`, legalised.
    fn emit(&mut self, inst: VInst) {
        let inst = if self.splat {
            broadcast(inst)
        } else {
            shifted(inst, self.lane, self.shift_count)
        };
        let inst = self.legalize(inst);
        // A MAD can only use operand descriptors 0-31: past 32 distinct ones, a multiply-add
        // is a MUL and an ADD.
        if let VInst::Mad { dst, a, b, c } = inst {
            let key = mad_descriptor(&inst);
            if !self.mad_descriptors.contains(&key) {
                if self.mad_descriptors.len() == crate::limits::MAD_DESCRIPTOR_LIMIT {
                    let t = self.lo.code.vreg();
                    let mask = dst.mask();
                    self.emit(VInst::Binary {
                        op: BinaryOp::Mul,
                        dst: VDst::Temp(t, mask),
                        a,
                        b,
                    });
                    let product = VOp {
                        src: VSrc::Temp(t),
                        swizzle: Swizzle::IDENTITY,
                        neg: false,
                    };
                    self.emit(VInst::Binary {
                        op: BinaryOp::Add,
                        dst,
                        a: c,
                        b: product,
                    });
                    return;
                }
                self.mad_descriptors.push(key);
            }
        }
        let ops = inst.operands();
        self.lo.code.push(inst, &ops, self.lo.span);
    }

    /// Moves `op` into a fresh temporary and reads it from there (a constant register once
    /// per block: a later copy of it reads the first).
    fn via_temp(&mut self, op: VOp) -> VOp {
        let key = match op.src {
            VSrc::Const(n) => Some(n),
            _ => None,
        };
        let mov = |t| VInst::Unary {
            op: UnaryOp::Mov,
            dst: VDst::Temp(t, Mask::XYZW),
            src: VOp {
                neg: false,
                swizzle: Swizzle::IDENTITY,
                ..op
            },
        };
        let t = self.lo.copy(key, Mask::XYZW.bits(), mov);
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
                // MIN and MAX commute too: which operand a NaN gives is undefined
                // (GLSL.std.450 FMin/FMax, GLSL's min/max), so their GLSL operand order
                // is kept only where it costs nothing.
                let commutes = matches!(
                    op,
                    BinaryOp::Add
                        | BinaryOp::Mul
                        | BinaryOp::Dp3
                        | BinaryOp::Dp4
                        | BinaryOp::Min
                        | BinaryOp::Max
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

/// An index operand as the address registers hold it: the one lane it reads.
fn index_key(idx: &mir::Operand) -> mir::Operand {
    mir::Operand {
        swizzle: mir::Swizzle::splat(idx.swizzle.lane(0)),
        ..*idx
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

/// Whether `v` is computed by an instruction that writes a register (so it can write
/// another place instead): a float, not a read of an input, uniform or literal.
fn writes(f: &Function, v: Value) -> bool {
    f.ty(v).kind == mir::Kind::Float
        && f.def_inst(v)
            .is_some_and(|d| !d.op.is_input_uniform_or_constant())
}

/// Whether the selector writes an operation's result of `n` lanes at any lanes of a
/// register (a packed value, see `machine::lanes`): lane-wise operations (their sources
/// shifted), those writing one value to every lane of the mask, and one-lane results of
/// those that broadcast.
fn packable(op: Op, n: u8) -> bool {
    lanewise(op)
        || matches!(op, Op::Dot(3 | 4) | Op::Dph)
        || (n == 1
            && matches!(
                op,
                Op::Rcp | Op::Rsq | Op::Exp2 | Op::Log2 | Op::BoolToFloat
            ))
}

/// Whether an operation computes each lane from the same lanes of its sources (so its
/// result can be placed at other lanes by shifting the sources' swizzles).
fn lanewise(op: Op) -> bool {
    matches!(
        op,
        Op::Mov | Op::Add | Op::Sub | Op::Mul | Op::Mad | Op::Min | Op::Max | Op::Floor | Op::Sat
    )
}

/// `inst` with its lane-wise sources read `lane` lanes further on, for a `count`-lane result
/// placed at lanes `lane..lane + count` (operations that read fixed lanes or broadcast need
/// no change).
fn shifted(inst: VInst, lane: u8, count: u8) -> VInst {
    if lane == 0 {
        return inst;
    }
    reindexed(inst, lane, count)
}

/// `inst` with lane `d` of each lane-wise source reading the source's lane
/// `clamp(d - lane, 0, count - 1)` (see [`shifted`] and [`broadcast`]).
fn reindexed(inst: VInst, lane: u8, count: u8) -> VInst {
    let b = |o: VOp| {
        let old = o.swizzle.lanes();
        let lanes: [Component; 4] = std::array::from_fn(|d| {
            let j = (d as i32 - lane as i32).clamp(0, count as i32 - 1);
            old[j as usize]
        });
        VOp {
            swizzle: Swizzle::new(lanes),
            ..o
        }
    };
    match inst {
        VInst::Binary { op, dst, a, b: b2 }
            if !matches!(
                op,
                BinaryOp::Dp3 | BinaryOp::Dp4 | BinaryOp::Dph | BinaryOp::Dst
            ) =>
        {
            VInst::Binary {
                op,
                dst,
                a: b(a),
                b: b(b2),
            }
        }
        VInst::Unary {
            op: op @ (UnaryOp::Mov | UnaryOp::Flr),
            dst,
            src,
        } => VInst::Unary {
            op,
            dst,
            src: b(src),
        },
        VInst::Mad { dst, a, b: b2, c } => VInst::Mad {
            dst,
            a: b(a),
            b: b(b2),
            c: b(c),
        },
        other => other,
    }
}

/// `inst` writing a one-lane result to every lane of its mask: its lane-wise sources read
/// their lane 0 in every lane (dot products and the one-source functions broadcast already).
fn broadcast(inst: VInst) -> VInst {
    reindexed(inst, 0, 1)
}

/// What a MAD's operand descriptor holds: the write mask and each source's negation and
/// swizzle (lanes the mask does not write are don't-care, so they are left out).
type MadKey = (u8, [(bool, [Component; 4]); 3]);

fn mad_descriptor(inst: &VInst) -> MadKey {
    let VInst::Mad { dst, a, b, c } = inst else {
        return (0, [(false, [Component::X; 4]); 3]);
    };
    let mask = dst.mask();
    let read = |o: &VOp| {
        let lanes = o.swizzle.lanes();
        let kept: [Component; 4] = std::array::from_fn(|l| {
            if mask.has(Component::from_index(l)) {
                lanes[l]
            } else {
                Component::X
            }
        });
        (o.neg, kept)
    };
    (mask.bits(), [read(a), read(b), read(c)])
}
