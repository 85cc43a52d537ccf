//! Instruction selection: MIR (after [`super::prepare()`]) to [`VInst`]s in a [`VCode`], as
//! AGAL's [`Hooks`] on the machine layer's driver (`machine::select`).
//!
//! Attributes, varyings, uniforms and literals are read where they live (`va`, `v`, `vc`/`fc`,
//! `vc[vt0.x + n]`); only computed values get virtual registers. Values are computed straight
//! into their final place where they can be: a value only the program's end reads goes into
//! its output (when one instruction computes it and it runs once), a value only a construct
//! reads into the construct's lanes, and a construct starts from a vector it keeps lanes of
//! (`vec4(c.rgb / c.a, c.a)` is one `div` into `c`'s register). With lane packing on (see
//! [`machine::lanes`]) independent small values share registers.
//!
//! Each instruction is made legal before allocation, so that every extra move is a virtual
//! register like the rest (Flash's rules and the habits of the compilers that shipped):
//! - one constant register per instruction (#3625), one relative read (#3626);
//! - a constant source of a one-source operation other than `mov`, a constant `tex`
//!   coordinate, a constant `kil` operand go through a temporary;
//! - no source modifiers: `a + -b` is `sub`, `-a * -b` is `mul`, other negations and
//!   absolute values are `neg`/`abs` into a temporary; negated literals are pooled negated;
//! - swizzles name only the lanes an operation reads (the rest repeat one of them), a
//!   single-lane read is replicated, and `kil` and the conditionals read replicated lanes;
//! - `nrm`, `crs`, `m33` and `m34` write at most `.xyz`.

use crate::rules::CodegenRule;
use machine::inst::VInst as _;
use mir::hash::{HashMap, HashSet};

use machine::lower::{self, Lower};
use machine::select::{self as driver, Chain, Hooks, Placement, returned_once};
use machine::vcode::VCode;
use mir::Diagnostic;
use mir::analysis::regions::Regions;
use mir::func::{BlockId, Function, Structure, Terminator, Value, ValueDef};
use mir::inst::{CmpOp, Op, SampleKind};
use mir::module::{Module, TextureDim};
use regalloc2::VReg;

use super::interface::{Interface, OutputReg};
use super::matrix::{self, MatrixPlan};
use super::pool::Pool;
use super::runtime::Runtime;
use super::samplers::bias_eighths;
use super::vinst::{IndexReg, VDst, VInst, VOp, VSrc};
use crate::header::{Stage, Version};
use crate::limits::Profile;
use crate::opcode::{Opcode, Shape};
use crate::operand::{Component, Mask, RegType, Swizzle};
use crate::sampler::{Mipmap, Sampler};

/// Which operand lane each of the four positions of a source reads (`None`: not read).
type Positions = [Option<u8>; 4];

/// Positions `lane..lane + count` read operand lanes `0..count` (a lane-wise operation whose
/// result is placed at `lane`).
fn lanewise(lane: u8, count: u8) -> Positions {
    std::array::from_fn(|p| {
        let p = p as u8;
        (p >= lane && p < lane + count).then(|| p - lane)
    })
}

/// Positions `0..n` read lanes `0..n` (dot products, matrix vectors, coordinates).
fn fixed(n: u8) -> Positions {
    lanewise(0, n)
}

/// Every position reads lane 0 (`kil`, conditionals: a replicated swizzle).
const REPLICATED: Positions = [Some(0); 4];

/// The swizzle reading lanes `0..count` of a register at positions `lane..lane + count`
/// (the other positions repeat one of them).
fn shifted_identity(lane: u8, count: u8) -> Swizzle {
    let lanes = std::array::from_fn(|p| Component::from_bits((p as u8).saturating_sub(lane)));
    Swizzle::new(lanes).restricted_to(lanes_mask(lane, count))
}

/// The mask of lanes `lane..lane + count`.
fn lanes_mask(lane: u8, count: u8) -> Mask {
    Mask::from_bits_truncate((((1u16 << count) - 1) << lane) as u8)
}

/// Where a value is computed, when not into a register of its own: a construct's lanes, or
/// an output or varying.
type Place = lower::Place<OutputReg>;

/// What an instruction writes, before it is committed.
#[derive(Clone, Copy, Debug)]
enum Target {
    /// A register of its own (lanes from x).
    Own,
    /// A place.
    Place(Place),
    /// Lanes of a pack.
    Pack(u8),
}

/// Selects the instructions of `module` (prepared for `profile`).
pub fn select(
    module: &Module,
    iface: &Interface,
    pool: &mut Pool,
    profile: Profile,
    runtime: Runtime,
    pack_lanes: bool,
) -> Result<VCode<VInst>, Vec<Diagnostic>> {
    let f = &module.function;
    let lo = Lower::new(f, pack_lanes);
    let uses = &lo.uses;
    let mut matrices = HashMap::default();
    let mut padded = HashMap::default();
    let mut fused = HashSet::default();
    let mut shared = HashMap::default();
    let mut plans = Vec::new();
    let mut padded_plans = Vec::new();
    let readers = readers(f);
    let registers = match iface.stage {
        Stage::Vertex => profile.limits().vertex_constants,
        Stage::Fragment => profile.limits().fragment_constants,
    };
    for &b in &f.layout {
        for (pos, &i) in f.blocks[b].insts.iter().enumerate() {
            let inst = &f.insts[i];
            if inst.op != Op::Construct {
                continue;
            }
            // A dot product read again after the construct is read from the matrix
            // instruction's result: `m44` and a swizzle instead of four `dp4` and moves.
            let accept = |d: Value| {
                uses.get(&d) == Some(&1)
                    || readers.get(&d).is_some_and(|at| {
                        at.iter()
                            .all(|&(rb, rpos)| rb != b || rpos == pos || rpos > pos)
                    })
            };
            // Two rows make one `m34`/`m33` writing `.xy` when the register after them
            // exists, except for a vector the return reads (a varying takes one `m44`, its
            // padding lanes from the next registers: `plan_padded`).
            let two_rows = runtime.allows_two_rows()
                && inst.result().is_some_and(|r| {
                    let returned = readers
                        .get(&r)
                        .is_some_and(|at| at.iter().all(|&(_, p)| p == usize::MAX));
                    let third = inst.args.first().and_then(|a| matrix::row_register(f, a));
                    !returned && third.is_some_and(|first| first + 2 < u32::from(registers))
                });
            let plan =
                matrix::plan(f, &inst.args, accept, two_rows).filter(|p| runtime.allows_matrix(p));
            if let (Some(r), Some(plan)) = (inst.result(), plan) {
                plans.push((r, plan));
            } else if let (Some(r), Some(plan)) =
                (inst.result(), matrix::plan_padded(f, &inst.args, uses))
            {
                padded_plans.push((r, plan));
            }
        }
    }
    runtime.keep_matrices(f, &mut plans, &mut padded_plans, u32::from(registers));
    for (r, plan) in plans {
        for (lane, &d) in plan.dots.iter().enumerate() {
            if uses.get(&d) != Some(&1) {
                shared.insert(d, (r, lane as u8));
            }
        }
        fused.extend(plan.dots.iter().copied());
        matrices.insert(r, plan);
    }
    padded.extend(padded_plans);
    let regions = Regions::new(f);
    let mut s = Selector {
        m: module,
        lo,
        iface,
        pool,
        profile,
        version: profile.version(),
        output_constructs: HashMap::default(),
        splat_outputs: HashSet::default(),
        output_pads: HashMap::default(),
        pad_next: None,
        modified: HashMap::default(),
        matrices,
        fused,
        shared,
        sampler_uses: HashMap::default(),
        regions,
    };
    s.lo.outputs_at = s.output_places();
    s.adopt_padded_matrices(&padded);
    driver::drive(&mut s);
    s.lo.finish()
}

struct Selector<'a> {
    m: &'a Module,
    /// The state the machine layer's driver shares: outputs are [`OutputReg`]s, a chain
    /// keeps the vector whose lanes the construct keeps in place, and constant registers are
    /// copied by file and number (with the lanes copied).
    lo: Lower<'a, VInst, OutputReg, Option<Value>, (RegType, u16)>,
    iface: &'a Interface,
    pool: &'a mut Pool,
    profile: Profile,
    version: Version,
    /// Vectors built piece by piece straight into a varying or `op` (each piece writes its
    /// lanes of the output; no temporary and no copy after).
    output_constructs: HashMap<Value, OutputReg>,
    /// Scalars returned splat that are computed into every lane of their output (their
    /// lane-wise sources read replicated).
    splat_outputs: HashSet<Value>,
    /// Pieces of those that also write the output's lanes the vector does not have (Flash
    /// wants all four written; any value will do): the lanes, the piece's last own lane, and
    /// whether its sources are read lane-wise (their swizzles then repeat that lane there).
    output_pads: HashMap<Value, (Mask, u8, bool)>,
    /// The padding of the instruction being committed, for [`Selector::emit`].
    pad_next: Option<(Mask, u8, bool)>,
    /// `-v`, `|v|`, `-|v|` computed in the current block.
    modified: HashMap<(Value, bool, bool), VReg>,
    /// Constructs whose first lanes are one matrix instruction.
    matrices: HashMap<Value, MatrixPlan>,
    /// Dot products those instructions compute.
    fused: HashSet<Value>,
    /// Those of them read again after the construct: the construct and the lane they are
    /// read from.
    shared: HashMap<Value, (Value, u8)>,
    /// Each sampler register's flags at its first use (#3696).
    sampler_uses: HashMap<u16, Sampler>,
    regions: Regions,
}

impl<'a> Hooks<'a> for Selector<'a> {
    type Inst = VInst;
    type Output = OutputReg;
    type Extra = Option<Value>;
    type CopyKey = (RegType, u16);

    fn lower(&mut self) -> &mut Lower<'a, VInst, OutputReg, Option<Value>, (RegType, u16)> {
        &mut self.lo
    }

    /// MIR operand `op` in a plain virtual register (a move when it is anything else, or a
    /// dot product a matrix instruction computes).
    fn in_vreg(&mut self, op: &mir::Operand, param: Value) -> VReg {
        if !self.shared.contains_key(&op.value) {
            if let Some(r) = self.lo.own_vreg(op, Op::is_interface_or_constant) {
                return r;
            }
        }
        // The parameter's lanes, not the argument value's: a splat `s.xxxx` passed to a vec4
        // writes all four.
        let n = self.lo.f.ty(param).lanes;
        let t = self.lo.code.vreg();
        self.unary_into(op, VDst::Temp(t, lanes_mask(0, n)), 0, n);
        t
    }

    fn start_block(&mut self) {
        self.modified.clear();
    }

    fn block(&mut self, b: BlockId) {
        let f = self.lo.f;
        self.lo.span = f.blocks[b].span;
        driver::plan(self, b);
        for &i in &f.blocks[b].insts {
            self.inst(i);
        }
        self.lo.span = f.blocks[b].span;
    }

    fn test(&mut self, b: BlockId, cond: &mir::Operand, then: BlockId, otherwise: BlockId) {
        self.branch_test(b, cond, then, otherwise);
    }

    fn ret(&mut self, _b: BlockId, values: &[mir::Operand]) {
        for (k, v) in values.iter().enumerate() {
            let Some(Some(out)) = self.iface.outputs.get(k).copied() else {
                continue;
            };
            if self.lo.outputs_at.contains_key(&v.value)
                || self.output_constructs.contains_key(&v.value)
            {
                continue;
            }
            // The output's lanes, read through the operand's swizzle (a vec3 returned as a
            // vec4 output reads a fourth lane by its swizzle).
            let n = self
                .m
                .outputs
                .get(k)
                .map_or(self.lo.f.ty(v.value).lanes, |o| o.lanes);
            let dst = VDst::Out((out.reg, out.index), out.mask);
            self.lo.at_definition(v.value);
            self.unary_into(v, dst, 0, n);
        }
    }

    fn discard(&mut self, b: BlockId) {
        // `kil` of a negative number: the whole fragment is discarded.
        let minus_one = self.literal(&[-1.0]);
        self.emit(VInst::Kil { a: minus_one });
        // A program that always discards still writes its outputs (#3634).
        if self.regions.innermost(b, Some(b)).is_none() {
            for out in self.iface.outputs.clone().into_iter().flatten() {
                let zero = self.literal(&[0.0]);
                self.emit(VInst::Alu {
                    op: Opcode::Mov,
                    dst: VDst::Out((out.reg, out.index), out.mask),
                    a: zero,
                    b: None,
                });
            }
        }
    }
}

/// Where a block's values go (see [`driver::plan`] and the module comment): a matrix
/// instruction's lanes are its own, the lanes after them may be computed in place, and a
/// construct starts from the vector it keeps lanes of, or else is built in its output.
impl<'a> Placement<'a> for Selector<'a> {
    fn lower_ref(&self) -> &Lower<'a, VInst, OutputReg, Option<Value>, (RegType, u16)> {
        &self.lo
    }

    fn first_lane(&self, c: Value) -> usize {
        self.matrices.get(&c).map_or(0, MatrixPlan::lanes)
    }

    fn taken(&self, v: Value) -> bool {
        self.fused.contains(&v)
    }

    fn fits(&self, _v: Value, d: &mir::Inst, lane: u8, count: u8) -> bool {
        placeable_at(d.op, lane, count)
    }

    fn start(
        &mut self,
        c: Value,
        args: &[mir::Operand],
        placed: &[(Value, u8, u8)],
        here: &HashMap<Value, usize>,
    ) -> Chain<Option<Value>> {
        let matrix_lanes = self.first_lane(c);
        // A vector whose lanes the construct keeps where they are starts the chain.
        let base = driver::kept_base(&self.lo, c, args, matrix_lanes, placed, here, |v| {
            self.fused.contains(&v)
        });
        let rest = self.groups(c, args, base).len();
        if base.is_none() {
            self.adopt_output_construct(c, args.len(), rest);
        }
        Chain {
            prev: base.map(|v| self.lo.vreg(v)),
            left: usize::from(matrix_lanes > 0) + rest,
            extra: base,
        }
    }

    fn unpacked(&self, exclude: &mut HashSet<Value>) {
        // Vectors kept in place, dot products a matrix instruction computes, vectors built in
        // their output, and constructs whose matrix lanes are read again.
        exclude.extend(self.lo.chains.iter().filter_map(|c| c.extra));
        exclude.extend(self.fused.iter().copied());
        exclude.extend(self.output_constructs.keys().copied());
        exclude.extend(self.shared.values().map(|&(c, _)| c));
    }

    fn packable(op: Op, _lanes: u8) -> bool {
        writes_any_lanes(op)
    }
}

impl Selector<'_> {
    fn error(&mut self, rule: CodegenRule, message: impl Into<String>) {
        self.lo.error(Diagnostic::error(rule, message));
    }

    fn internal(&mut self, message: impl Into<String>) {
        let message = format!("internal error (this is a bug): {}", message.into());
        self.error(CodegenRule::Internal, message);
    }

    // --------------------------------------------------------------------------------------
    // Placement.
    // --------------------------------------------------------------------------------------

    /// Two rows of a matrix product returned to an output that is written in all four lanes
    /// (a `vec2` varying): one `m44` into the output (see `matrix::plan_padded`), when the
    /// two registers after the rows exist.
    fn adopt_padded_matrices(&mut self, padded: &HashMap<Value, MatrixPlan>) {
        let limits = self.profile.limits();
        let registers = u32::from(match self.iface.stage {
            Stage::Vertex => limits.vertex_constants,
            Stage::Fragment => limits.fragment_constants,
        });
        let returned = returned_once(self.lo.f, &self.m.outputs, &self.lo.uses, &self.regions);
        for (k, v, _) in returned {
            let Some(plan) = padded.get(&v.value) else {
                continue;
            };
            let Some(Some(slot)) = self.iface.outputs.get(k).copied() else {
                continue;
            };
            if slot.mask != Mask::XYZW
                || plan.register + 3 >= registers
                || self.lo.outputs_at.contains_key(&v.value)
            {
                continue;
            }
            self.fused.extend(plan.dots.iter().copied());
            self.matrices.insert(v.value, plan.clone());
            self.lo.outputs_at.insert(v.value, slot);
        }
    }

    /// A vector of `lanes` lanes built from pieces (`groups` of them moved in by the
    /// construct itself) that the end of the program alone reads, in a block that runs
    /// once, into a varying or `op`: built straight into the output. Flash tracks those
    /// lane by lane (#3633, #3635), so the pieces may write it in several instructions; the
    /// colour output must be written at once (#3701, #3744) and keeps its copy. Lanes the
    /// vector does not have are padded by the construct's last move, so there must be one.
    fn adopt_output_construct(&mut self, c: Value, lanes: usize, groups: usize) {
        let returned = returned_once(self.lo.f, &self.m.outputs, &self.lo.uses, &self.regions);
        let Some((k, ..)) = returned.into_iter().find(|(_, v, _)| v.value == c) else {
            return;
        };
        let Some(Some(slot)) = self.iface.outputs.get(k).copied() else {
            return;
        };
        let lane_wise_output = matches!(slot.reg, RegType::Varying)
            || (slot.reg == RegType::Output && self.iface.stage == Stage::Vertex);
        let mut covered = lanes == slot.mask.bits().count_ones() as usize || groups > 0;
        // No move of the construct's own to pad with: the piece computing its last lanes
        // writes the rest too, if it writes lanes freely.
        let pad = Mask::from_bits_truncate(slot.mask.bits() & !lanes_mask(0, lanes as u8).bits());
        if !covered && !pad.is_empty() {
            let last = self.lo.places.iter().find_map(|(&v, p)| match *p {
                Place::Lane { chain, lane, count }
                    if chain == c && usize::from(lane + count) == lanes =>
                {
                    Some((v, lane + count - 1))
                }
                _ => None,
            });
            let op = last.and_then(|(v, _)| self.lo.f.def_inst(v)).map(|d| d.op);
            if let (Some((v, lane)), Some(op)) = (last, op) {
                let lanewise = op.is_lanewise_float() && op != Op::Sat;
                if lanewise || matches!(op, Op::Dot(_)) {
                    self.output_pads.insert(v, (pad, lane, lanewise));
                    covered = true;
                }
            }
        }
        let shared = self.matrices.get(&c).is_some_and(|p| self.is_shared(p));
        if lane_wise_output && covered && !shared && !self.lo.outputs_at.contains_key(&c) {
            self.output_constructs.insert(c, slot);
        }
    }

    /// Whether a matrix instruction's lanes are read again after its construct (which then
    /// needs a register of its own).
    fn is_shared(&self, plan: &MatrixPlan) -> bool {
        plan.dots.iter().any(|d| self.shared.contains_key(d))
    }

    /// Values that the end of the program alone reads and one instruction computes, in a
    /// block that runs once: computed straight into their output.
    fn output_places(&mut self) -> HashMap<Value, OutputReg> {
        let mut out = HashMap::default();
        // A scalar returned splat (`vec4(s)`) that a lane-wise instruction (its sources read
        // replicated) or a dot product computes: straight into every lane of its output, in
        // one write (as Flash wants the colour output written).
        for (k, v, d) in driver::returned_splat(self.lo.f, &self.lo.uses, &self.regions) {
            let Some(Some(slot)) = self.iface.outputs.get(k).copied() else {
                continue;
            };
            let fits = matches!(
                d.op,
                Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Min | Op::Max | Op::Dot(3 | 4)
            );
            if fits && slot.mask.bits().count_ones() > 1 && !self.fused.contains(&v) {
                out.insert(v, slot);
                self.splat_outputs.insert(v);
            }
        }
        for (k, v, def) in returned_once(self.lo.f, &self.m.outputs, &self.lo.uses, &self.regions) {
            let Some(Some(slot)) = self.iface.outputs.get(k).copied() else {
                continue;
            };
            let single = match def.op {
                Op::Construct => self.matrices.get(&v.value).is_some_and(|p| {
                    p.op == Opcode::M44 && def.args.len() == 4 && !self.is_shared(p)
                }),
                Op::Sample { proj, kind, .. } => !proj && kind != SampleKind::Lod,
                Op::Dph => true,
                op => writes_any_lanes(op),
            };
            if single && !self.fused.contains(&v.value) {
                out.insert(v.value, slot);
            }
        }
        out
    }

    /// Sets up the test of a conditional branch ending block `b` (AGAL 2 and 3).
    fn branch_test(&mut self, b: BlockId, cond: &mir::Operand, then: BlockId, otherwise: BlockId) {
        let def = self.lo.f.def_inst(cond.value).cloned();
        let Some(d) = def.filter(|d| matches!(d.op, Op::Cmp(_))) else {
            return self.internal("a branch on a value that is not a comparison");
        };
        let Op::Cmp(c) = d.op else { return };
        let pick = |o: mir::Operand| mir::Operand {
            swizzle: mir::Swizzle::splat(o.swizzle.lane(cond.swizzle.lane(0) as usize)),
            ..o
        };
        let (x, y) = (pick(d.args[0]), pick(d.args[1]));
        let merge = match self.lo.f.blocks[b].structure {
            Some(Structure::If { merge }) => merge,
            _ => return self.internal("a branch outside a structured `if`"),
        };
        let then_code = self.arm_has_code(b, then, merge);
        let else_code = self.arm_has_code(b, otherwise, merge);
        // ifl is the one ordered test (Flash's ifg is documented as >= but implemented as >
        // elsewhere): a >= b is ifl with the arms swapped, which needs code in the other arm.
        let direct = match c {
            CmpOp::Eq => Some((Opcode::Ife, x, y, true)),
            CmpOp::Ne => Some((Opcode::Ine, x, y, true)),
            CmpOp::Lt if then_code => Some((Opcode::Ifl, x, y, true)),
            CmpOp::Gt if then_code => Some((Opcode::Ifl, y, x, true)),
            CmpOp::Ge if else_code => Some((Opcode::Ifl, x, y, false)),
            CmpOp::Le if else_code => Some((Opcode::Ifl, y, x, false)),
            _ => None,
        };
        if let Some((op, x, y, then_first)) = direct {
            let a = self.src(&x, REPLICATED);
            let b2 = self.src(&y, REPLICATED);
            self.emit(VInst::If {
                op,
                a,
                b: b2,
                then_first,
            });
            return;
        }
        // Otherwise test a 0/1 flag, which ife/ine compare either way round.
        let (p, q, taken_when_set) = match c {
            CmpOp::Lt => (x, y, true),
            CmpOp::Gt => (y, x, true),
            CmpOp::Ge => (x, y, false),
            _ => (y, x, false),
        };
        let a = self.src(&p, fixed(1));
        let b2 = self.src(&q, fixed(1));
        let flag = self.lo.code.vreg();
        self.emit(VInst::Alu {
            op: Opcode::Slt,
            dst: VDst::Temp(flag, Mask::X),
            a,
            b: Some(b2),
        });
        let zero = self.literal(&[0.0]);
        self.emit(VInst::If {
            op: if taken_when_set {
                Opcode::Ine
            } else {
                Opcode::Ife
            },
            a: VOp {
                src: VSrc::Temp(flag),
                swizzle: Swizzle::splat(Component::X),
            },
            b: zero,
            then_first: true,
        });
    }

    /// Whether the arm of the `if` headed by `h` that starts at `start` emits an
    /// instruction of its own (moves aside).
    fn arm_has_code(&self, h: BlockId, start: BlockId, merge: BlockId) -> bool {
        if start == merge {
            return false;
        }
        let Some(construct) = self
            .regions
            .constructs
            .iter()
            .find(|c| c.header == h)
            .copied()
        else {
            return true;
        };
        let f = self.lo.f;
        f.layout.iter().any(|&b| {
            self.regions.doms.dominates(start, b)
                && self.regions.contains(&construct, b)
                && (matches!(f.blocks[b].term, Terminator::Discard)
                    || f.blocks[b].insts.iter().any(|&i| {
                        // Reads of the interface and literals emit nothing (`gl_FragCoord`
                        // is computed before selection, by `position`), nor do
                        // comparisons, which their users read.
                        let inst = &f.insts[i];
                        !inst.op.is_interface_or_constant()
                            && inst
                                .result()
                                .is_none_or(|r| f.ty(r).is_float() && !self.fused.contains(&r))
                    }))
        })
    }

    // --------------------------------------------------------------------------------------
    // Sources.
    // --------------------------------------------------------------------------------------

    /// A source operand for MIR operand `op`, read at `positions`.
    fn src(&mut self, op: &mir::Operand, positions: Positions) -> VOp {
        let v = op.value;
        if let Some(Op::Const(bits)) = self.lo.f.def_inst(v).map(|d| d.op) {
            let lanes = usize::from(self.lo.f.ty(v).lanes.max(1));
            let want = positions.map(|p| {
                p.map(|j| {
                    let mut x = f32::from_bits(bits[op.swizzle.lane(j as usize) as usize % lanes]);
                    if op.abs {
                        x = x.abs();
                    }
                    if op.neg {
                        x = -x;
                    }
                    x
                })
            });
            let (reg, swizzle) = self.pool.place(want);
            return VOp {
                src: VSrc::Reg(RegType::Constant, reg),
                swizzle,
            };
        }
        let (src, offset) = if op.neg || op.abs {
            (VSrc::Temp(self.modified_vreg(v, op.neg, op.abs)), 0)
        } else {
            self.location(v)
        };
        let mut lanes = [Component::X; 4];
        let mut read = 0u8;
        for (p, pos) in positions.iter().enumerate() {
            if let Some(j) = pos {
                lanes[p] = Component::from_bits(offset + op.swizzle.lane(*j as usize));
                read |= 1 << p;
            }
        }
        VOp {
            src,
            swizzle: Swizzle::new(lanes).restricted_to(Mask::from_bits_truncate(read)),
        }
    }

    /// Where value `v` is read from, and the register lane of its lane 0.
    fn location(&mut self, v: Value) -> (VSrc, u8) {
        if let Some(&(c, lane)) = self.shared.get(&v) {
            return (VSrc::Temp(self.lo.vreg(c)), lane);
        }
        if let Some((r, offset)) = self.lo.packs.read(v) {
            return (VSrc::Temp(r), offset);
        }
        let ValueDef::Inst(i, _) = self.lo.f.values[v].def else {
            return (VSrc::Temp(self.lo.vreg(v)), 0);
        };
        let inst = self.lo.f.insts[i].clone();
        match inst.op {
            Op::LoadInput(id) => {
                let (reg, n) = self.iface.inputs.get(id.index()).copied().unwrap_or((
                    match self.iface.stage {
                        Stage::Vertex => RegType::Attribute,
                        Stage::Fragment => RegType::Varying,
                    },
                    0,
                ));
                (VSrc::Reg(reg, n), 0)
            }
            // `interface::assign` refused it where there is no `iid`.
            Op::InstanceIndex => (VSrc::Reg(RegType::InstanceId, 0), 0),
            Op::LoadUniform { register } if inst.args.is_empty() => (
                VSrc::Reg(RegType::Constant, register.min(u32::from(u16::MAX)) as u16),
                0,
            ),
            Op::LoadUniform { register } => (self.indexed(register, &inst.args[0]), 0),
            _ => (VSrc::Temp(self.lo.vreg(v)), 0),
        }
    }

    /// `vc[index + register]` (vertex programs only).
    fn indexed(&mut self, register: u32, index: &mir::Operand) -> VSrc {
        if self.iface.stage == Stage::Fragment {
            self.error(
                CodegenRule::Unsupported,
                "dynamic indexing of a uniform array in a fragment program: AGAL reads \
                 constants by a computed index (vc[vt0.x + n]) only in vertex programs (#3639)",
            );
        }
        let Ok(offset) = u8::try_from(register) else {
            self.error(
                CodegenRule::Limit,
                format!(
                    "a uniform array at vc{register} read by a computed index: AGAL's relative \
                     addressing reaches registers 0 to 255 from the index (offset {register} \
                     does not fit in the token's 8 bits)"
                ),
            );
            return VSrc::Reg(RegType::Constant, 0);
        };
        let lane0 = mir::Operand {
            swizzle: mir::Swizzle::splat(index.swizzle.lane(0)),
            ..*index
        };
        // The index register: an attribute, a constant or a temporary, read as it is.
        let direct = !lane0.neg
            && !lane0.abs
            && !matches!(
                self.lo.f.def_inst(lane0.value).map(|d| d.op),
                Some(Op::Const(_))
            )
            && !matches!(
                self.lo.f.def_inst(lane0.value),
                Some(d) if matches!(d.op, Op::LoadUniform { .. }) && !d.args.is_empty()
            );
        let (reg, lane) = if direct {
            match self.location(lane0.value) {
                (VSrc::Temp(t), off) => (IndexReg::Temp(t), off + lane0.swizzle.lane(0)),
                (VSrc::Reg(r, n), off) => (IndexReg::Reg(r, n), off + lane0.swizzle.lane(0)),
                (VSrc::Indexed { .. }, _) => (IndexReg::Temp(self.lo.code.vreg()), 0),
            }
        } else {
            let op = self.src(&lane0, fixed(1));
            let t = self.lo.code.vreg();
            self.emit(VInst::Alu {
                op: Opcode::Mov,
                dst: VDst::Temp(t, Mask::X),
                a: op,
                b: None,
            });
            (IndexReg::Temp(t), 0)
        };
        VSrc::Indexed {
            offset,
            index: reg,
            lane: Component::from_bits(lane),
        }
    }

    /// A virtual register holding `-v`, `|v|` or `-|v|` (lanes from x), computed once per
    /// block.
    fn modified_vreg(&mut self, v: Value, neg: bool, abs: bool) -> VReg {
        if let Some(&t) = self.modified.get(&(v, neg, abs)) {
            return t;
        }
        let n = self.lo.f.ty(v).lanes;
        let t = self.lo.code.vreg();
        let a = if neg && abs {
            let inner = self.modified_vreg(v, false, true);
            VOp {
                src: VSrc::Temp(inner),
                swizzle: Swizzle::IDENTITY.restricted_to(lanes_mask(0, n)),
            }
        } else {
            self.src(&mir::Operand::new(v), fixed(n))
        };
        let op = if neg { Opcode::Neg } else { Opcode::Abs };
        self.emit(VInst::Alu {
            op,
            dst: VDst::Temp(t, lanes_mask(0, n)),
            a,
            b: None,
        });
        self.modified.insert((v, neg, abs), t);
        t
    }

    /// A pooled literal (its lanes read at positions 0, 1 …; replicated when one).
    fn literal(&mut self, values: &[f32]) -> VOp {
        let want = std::array::from_fn(|p| {
            if values.len() == 1 {
                values.first().copied()
            } else {
                values.get(p).copied()
            }
        });
        let (reg, swizzle) = self.pool.place(want);
        VOp {
            src: VSrc::Reg(RegType::Constant, reg),
            swizzle,
        }
    }

    /// `dst = op` (a move, or `neg`/`abs` for a modified operand), `op`'s `count` lanes read
    /// from position `lane` on.
    fn unary_into(&mut self, op: &mir::Operand, dst: VDst, lane: u8, count: u8) {
        let constant = matches!(
            self.lo.f.def_inst(op.value).map(|d| d.op),
            Some(Op::Const(_))
        );
        let (opcode, plain) = match (op.neg && !constant, op.abs && !constant) {
            (false, false) => (Opcode::Mov, *op),
            (true, false) => (Opcode::Neg, mir::Operand { neg: false, ..*op }),
            (false, true) => (Opcode::Abs, mir::Operand { abs: false, ..*op }),
            (true, true) => (Opcode::Neg, mir::Operand { neg: false, ..*op }),
        };
        let a = self.src(&plain, lanewise(lane, count));
        self.emit(VInst::Alu {
            op: opcode,
            dst,
            a,
            b: None,
        });
    }

    // --------------------------------------------------------------------------------------
    // Destinations.
    // --------------------------------------------------------------------------------------

    /// Where the instruction computing `r` writes (without committing to it).
    fn target(&self, r: Value) -> Target {
        if let Some(p) = self.lo.places.get(&r) {
            return Target::Place(*p);
        }
        if let Some(o) = self.lo.outputs_at.get(&r) {
            return Target::Place(Place::Output(*o));
        }
        match self.lo.packs.get(r) {
            Some(p) => Target::Pack(p.offset),
            None => Target::Own,
        }
    }

    /// The first lane and the lane count of `r`'s result in its target.
    fn target_lanes(&self, r: Value) -> (u8, u8) {
        let n = self.lo.f.ty(r).lanes;
        match self.target(r) {
            Target::Place(Place::Lane { lane, count, .. }) => (lane, count),
            Target::Pack(offset) => (offset, n),
            _ => (0, n),
        }
    }

    /// Commits the destination of `r`, writing `mask` when given (else the value's lanes).
    fn commit(&mut self, r: Value, fixed_mask: Option<Mask>) -> VDst {
        let n = self.lo.f.ty(r).lanes;
        match self.target(r) {
            Target::Own => VDst::Temp(self.lo.vreg(r), fixed_mask.unwrap_or(lanes_mask(0, n))),
            Target::Place(Place::Output(out)) => VDst::Out((out.reg, out.index), out.mask),
            Target::Place(Place::Lane { chain, lane, count }) => {
                let mask = fixed_mask.unwrap_or(lanes_mask(lane, count));
                match self.output_pads.get(&r).copied() {
                    Some((pad, last, lanewise)) if self.output_constructs.contains_key(&chain) => {
                        self.pad_next = Some((pad, last, lanewise));
                        self.piece(chain, Mask::from_bits_truncate(mask.bits() | pad.bits()))
                    }
                    _ => self.piece(chain, mask),
                }
            }
            Target::Pack(offset) => {
                let mask = fixed_mask.unwrap_or(lanes_mask(offset, n));
                match self.lo.packs.write(r, &mut self.lo.code) {
                    Some((piece, _)) => VDst::piece(piece, mask),
                    None => VDst::Temp(self.lo.code.vreg(), mask),
                }
            }
        }
    }

    /// The next piece of the vector `c`, writing `mask`.
    fn piece(&mut self, c: Value, mask: Mask) -> VDst {
        if let Some(out) = self.output_constructs.get(&c) {
            return VDst::Out((out.reg, out.index), mask);
        }
        match self
            .lo
            .chains
            .next(c, &mut self.lo.code, &mut self.lo.vregs)
        {
            Some(piece) => VDst::piece(piece, mask),
            None => {
                self.internal("a piece of a vector that is not being built");
                VDst::Temp(self.lo.code.vreg(), mask)
            }
        }
    }

    // --------------------------------------------------------------------------------------
    // Instructions.
    // --------------------------------------------------------------------------------------

    /// Selects one MIR instruction.
    fn inst(&mut self, i: mir::InstId) {
        let inst = self.lo.f.insts[i].clone();
        self.lo.span = inst.span;
        // An output piece's padding belongs to the instruction committed with it only.
        self.pad_next = None;
        let Some(r) = inst.result() else {
            match inst.op {
                Op::Kill if self.iface.stage == Stage::Vertex => self.error(
                    CodegenRule::Unsupported,
                    "discard in a vertex program: kil exists only in fragment programs",
                ),
                Op::Kill => self.kill(&inst.args[0]),
                other => self.internal(format!("{} has no result", other.name())),
            }
            return;
        };
        let ty = self.lo.f.ty(r);
        if ty.kind == mir::Kind::Bool {
            // Conditions: branches, kills and set instructions read the comparison.
            if !matches!(inst.op, Op::Cmp(_) | Op::Const(_)) {
                self.internal(format!("a bool {} reached selection", inst.op.name()));
            }
            return;
        }
        if self.fused.contains(&r) {
            return;
        }
        let args = inst.args.clone();
        match inst.op {
            // Read where they live (see `location`).
            Op::LoadInput(_) | Op::LoadUniform { .. } | Op::InstanceIndex | Op::Const(_) => {}
            Op::Mov => {
                let (lane, count) = self.target_lanes(r);
                let op = args[0];
                let constant = matches!(
                    self.lo.f.def_inst(op.value).map(|d| d.op),
                    Some(Op::Const(_))
                );
                let (opcode, plain) = match (op.neg && !constant, op.abs && !constant) {
                    (false, false) => (Opcode::Mov, op),
                    (true, false) => (Opcode::Neg, mir::Operand { neg: false, ..op }),
                    (false, true) => (Opcode::Abs, mir::Operand { abs: false, ..op }),
                    (true, true) => (Opcode::Neg, mir::Operand { neg: false, ..op }),
                };
                let a = self.src(&plain, lanewise(lane, count));
                let dst = self.commit(r, None);
                self.emit(VInst::Alu {
                    op: opcode,
                    dst,
                    a,
                    b: None,
                });
            }
            Op::Fract
            | Op::Rcp
            | Op::Rsq
            | Op::Sqrt
            | Op::Exp2
            | Op::Log2
            | Op::Sin
            | Op::Cos
            | Op::Sat
            | Op::Ddx
            | Op::Ddy => {
                if matches!(inst.op, Op::Ddx | Op::Ddy) && self.version < Version::V2 {
                    return self.error(
                        CodegenRule::Unsupported,
                        format!(
                            "a screen-space derivative ({}): ddx and ddy need AGAL 2, and the \
                             {} profile is AGAL 1 (use standardConstrained, standard or \
                             standardExtended)",
                            if inst.op == Op::Ddx { "dFdx" } else { "dFdy" },
                            self.profile
                        ),
                    );
                }
                let opcode = unary_opcode(inst.op);
                let (lane, count) = self.target_lanes(r);
                let a = self.src(&args[0], lanewise(lane, count));
                let dst = self.commit(r, None);
                self.emit(VInst::Alu {
                    op: opcode,
                    dst,
                    a,
                    b: None,
                });
            }
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Min | Op::Max | Op::Pow => {
                self.binary(r, inst.op, args[0], args[1])
            }
            Op::Mad => {
                // AGAL has no multiply-add (simplify may form one after expansion): a
                // multiply into a temporary, then the add into the place.
                let (lane, count) = self.target_lanes(r);
                let n = ty.lanes;
                let a = self.src(&args[0], fixed(n));
                let b = self.src(&args[1], fixed(n));
                let t = self.lo.code.vreg();
                self.emit(VInst::Alu {
                    op: Opcode::Mul,
                    dst: VDst::Temp(t, lanes_mask(0, n)),
                    a,
                    b: Some(b),
                });
                let p = VOp {
                    src: VSrc::Temp(t),
                    swizzle: shifted_identity(lane, count),
                };
                let c = self.src(&args[2], lanewise(lane, count));
                let dst = self.commit(r, None);
                self.emit(VInst::Alu {
                    op: Opcode::Add,
                    dst,
                    a: p,
                    b: Some(c),
                });
            }
            Op::Dot(n @ (3 | 4)) => {
                let a = self.src(&args[0], fixed(n));
                let b = self.src(&args[1], fixed(n));
                let dst = self.commit(r, None);
                let op = if n == 3 { Opcode::Dp3 } else { Opcode::Dp4 };
                self.emit(VInst::Alu {
                    op,
                    dst,
                    a,
                    b: Some(b),
                });
            }
            Op::Dph => {
                // dot3(p, r) + r.w.
                let a = self.src(&args[0], fixed(3));
                let b = self.src(&args[1], fixed(3));
                let t = self.lo.code.vreg();
                self.emit(VInst::Alu {
                    op: Opcode::Dp3,
                    dst: VDst::Temp(t, Mask::X),
                    a,
                    b: Some(b),
                });
                let (lane, count) = self.target_lanes(r);
                let w = self.src(
                    &args[1].reswizzled(mir::Swizzle::splat(3)),
                    lanewise(lane, count),
                );
                let dst = self.commit(r, None);
                self.emit(VInst::Alu {
                    op: Opcode::Add,
                    dst,
                    a: VOp {
                        src: VSrc::Temp(t),
                        swizzle: Swizzle::splat(Component::X),
                    },
                    b: Some(w),
                });
            }
            Op::Cross => {
                let a = self.src(&args[0], fixed(3));
                let b = self.src(&args[1], fixed(3));
                let dst = self.commit(r, Some(Mask::XYZ));
                self.emit(VInst::Alu {
                    op: Opcode::Crs,
                    dst,
                    a,
                    b: Some(b),
                });
            }
            Op::Normalize if ty.lanes == 3 => {
                let a = self.src(&args[0], fixed(3));
                let dst = self.commit(r, Some(Mask::XYZ));
                self.emit(VInst::Alu {
                    op: Opcode::Nrm,
                    dst,
                    a,
                    b: None,
                });
            }
            Op::BoolToFloat => self.bool_to_float(r, &args[0]),
            Op::Sample {
                sampler,
                kind,
                proj,
            } => self.sample(r, sampler, kind, proj, &args),
            Op::Construct => self.construct(r, &args),
            other => self.internal(format!(
                "the operation `{}` reached selection (the AGAL pipeline expands it)",
                other.name()
            )),
        }
    }

    /// A two-source lane-wise operation, with negations folded where the opcode allows.
    fn binary(&mut self, r: Value, op: Op, x: mir::Operand, y: mir::Operand) {
        let plain = |o: mir::Operand| mir::Operand { neg: false, ..o };
        let (opcode, x, y) = match (op, x.neg && !x.abs, y.neg && !y.abs) {
            (Op::Add, false, true) => (Opcode::Sub, x, plain(y)),
            (Op::Add, true, false) => (Opcode::Sub, y, plain(x)),
            (Op::Sub, false, true) => (Opcode::Add, x, plain(y)),
            (Op::Mul | Op::Div, true, true) => (binary_opcode(op), plain(x), plain(y)),
            _ => (binary_opcode(op), x, y),
        };
        let (lane, count) = self.target_lanes(r);
        let positions = if self.splat_outputs.contains(&r) {
            REPLICATED
        } else {
            lanewise(lane, count)
        };
        let a = self.src(&x, positions);
        let b = self.src(&y, positions);
        let dst = self.commit(r, None);
        self.emit(VInst::Alu {
            op: opcode,
            dst,
            a,
            b: Some(b),
        });
    }

    /// `cond ? 1.0 : 0.0` for a comparison: one set instruction.
    fn bool_to_float(&mut self, r: Value, cond: &mir::Operand) {
        let Some(def) = self.lo.f.def_inst(cond.value).cloned() else {
            return self.internal("bool_to_float of a parameter");
        };
        let Op::Cmp(c) = def.op else {
            return self.internal("bool_to_float of a value that is not a comparison");
        };
        let through = |o: mir::Operand| mir::Operand {
            swizzle: o.swizzle.then(cond.swizzle),
            ..o
        };
        let (x, y) = (through(def.args[0]), through(def.args[1]));
        let (op, x, y) = set_op(c, x, y);
        let (lane, count) = self.target_lanes(r);
        let a = self.src(&x, lanewise(lane, count));
        let b = self.src(&y, lanewise(lane, count));
        let dst = self.commit(r, None);
        self.emit(VInst::Alu {
            op,
            dst,
            a,
            b: Some(b),
        });
    }

    /// `kil` of a comparison: discards when it holds.
    fn kill(&mut self, cond: &mir::Operand) {
        let Some(def) = self.lo.f.def_inst(cond.value).cloned() else {
            return self.internal("a kill of a parameter");
        };
        // A condition known when compiling (an unconditional `demote`, a folded test).
        if let Op::Const(bits) = def.op {
            if bits[cond.swizzle.lane(0) as usize & 3] != 0 {
                let minus_one = self.literal(&[-1.0]);
                self.emit(VInst::Kil { a: minus_one });
            }
            return;
        }
        let Op::Cmp(c) = def.op else {
            return self.internal("a kill of a value that is not a comparison");
        };
        let pick = |o: mir::Operand| mir::Operand {
            swizzle: mir::Swizzle::splat(o.swizzle.lane(cond.swizzle.lane(0) as usize)),
            ..o
        };
        let (x, y) = (pick(def.args[0]), pick(def.args[1]));
        let zero = |s: &Self, o: &mir::Operand| {
            matches!(s.lo.f.def_inst(o.value).map(|d| d.op), Some(Op::Const(bits))
                if f32::from_bits(bits[o.swizzle.lane(0) as usize & 3]) == 0.0)
        };
        // x < y discards when x - y < 0; x > y when y - x < 0.
        let less = match c {
            CmpOp::Lt => Some((x, y)),
            CmpOp::Gt => Some((y, x)),
            _ => None,
        };
        if let Some((p, q)) = less {
            if zero(self, &q) {
                let a = self.src(&p, REPLICATED);
                return self.emit(VInst::Kil { a });
            }
            let a = self.src(&p, fixed(1));
            let b = self.src(&q, fixed(1));
            let t = self.lo.code.vreg();
            self.emit(VInst::Alu {
                op: Opcode::Sub,
                dst: VDst::Temp(t, Mask::X),
                a,
                b: Some(b),
            });
            return self.emit(VInst::Kil {
                a: VOp {
                    src: VSrc::Temp(t),
                    swizzle: Swizzle::splat(Component::X),
                },
            });
        }
        // Otherwise: the 0/1 flag, negated (-1 discards; -0 does not).
        let (op, p, q) = set_op(c, x, y);
        let a = self.src(&p, fixed(1));
        let b = self.src(&q, fixed(1));
        let flag = self.lo.code.vreg();
        self.emit(VInst::Alu {
            op,
            dst: VDst::Temp(flag, Mask::X),
            a,
            b: Some(b),
        });
        let t = self.lo.code.vreg();
        self.emit(VInst::Alu {
            op: Opcode::Neg,
            dst: VDst::Temp(t, Mask::X),
            a: VOp {
                src: VSrc::Temp(flag),
                swizzle: Swizzle::splat(Component::X),
            },
            b: None,
        });
        self.emit(VInst::Kil {
            a: VOp {
                src: VSrc::Temp(t),
                swizzle: Swizzle::splat(Component::X),
            },
        });
    }

    /// `tex`, with the coordinates divided first for a projective lookup.
    fn sample(
        &mut self,
        r: Value,
        sampler: mir::module::SamplerId,
        kind: SampleKind,
        proj: bool,
        args: &[mir::Operand],
    ) {
        let Some(mut flags) = self.iface.samplers.get(sampler.index()).copied() else {
            return self.internal("a sampler without flags");
        };
        let cube = self.m.samplers.get(sampler).map(|s| s.dim) == Some(TextureDim::Cube);
        let dims: u8 = if cube { 3 } else { 2 };
        let name = self
            .m
            .samplers
            .get(sampler)
            .map_or(String::new(), |s| s.name.clone());
        let constant = |s: &Self, o: &mir::Operand| match s.lo.f.def_inst(o.value).map(|d| d.op) {
            Some(Op::Const(bits)) => Some(f32::from_bits(bits[o.swizzle.lane(0) as usize & 3])),
            _ => None,
        };
        match kind {
            SampleKind::Implicit => {}
            SampleKind::Bias => match args.get(1).and_then(|b| constant(self, b)) {
                Some(b) => match bias_eighths(b) {
                    Some(e) => flags.lod_bias = e,
                    None => {
                        return self.error(
                            CodegenRule::Unsupported,
                            format!(
                                "texture `{name}` sampled with LOD bias {b}: AGAL holds the \
                                 bias in the sampler, in eighths from -16 to 15.875"
                            ),
                        );
                    }
                },
                None => {
                    return self.error(
                        CodegenRule::Unsupported,
                        format!(
                            "texture `{name}` sampled with a computed LOD bias: AGAL's bias is \
                             a constant in the sampler's flags"
                        ),
                    );
                }
            },
            SampleKind::Lod => {
                let level = args.get(1).and_then(|b| constant(self, b));
                if level != Some(0.0) || flags.mipmap != Mipmap::None {
                    return self.error(
                        CodegenRule::Unsupported,
                        format!(
                            "texture `{name}` sampled at an explicit level of detail: AGAL \
                             samples at the level the hardware chooses (plus a constant bias); \
                             only level 0 of a sampler without mipmapping (mipnone) is \
                             available"
                        ),
                    );
                }
            }
        }
        match self.sampler_uses.get(&flags.index) {
            Some(first) if *first != flags => {
                return self.error(
                    CodegenRule::Unsupported,
                    format!(
                        "texture `{name}` (fs{}) is sampled with different flags (LOD biases): \
                         Flash requires every use of a sampler register to have the same flags \
                         (#3696)",
                        flags.index
                    ),
                );
            }
            Some(_) => {}
            None => {
                self.sampler_uses.insert(flags.index, flags);
            }
        }
        let coord = if proj {
            // (c.xy / c.q), into a temporary.
            let q = mir::Operand {
                swizzle: mir::Swizzle::splat(args[0].swizzle.lane(dims as usize)),
                ..args[0]
            };
            let a = self.src(&args[0], fixed(dims));
            let b = self.src(&q, fixed(dims));
            let t = self.lo.code.vreg();
            self.emit(VInst::Alu {
                op: Opcode::Div,
                dst: VDst::Temp(t, lanes_mask(0, dims)),
                a,
                b: Some(b),
            });
            VOp {
                src: VSrc::Temp(t),
                swizzle: Swizzle::IDENTITY.restricted_to(lanes_mask(0, dims)),
            }
        } else {
            self.src(&args[0], fixed(dims))
        };
        let dst = self.commit(r, Some(Mask::XYZW));
        self.emit(VInst::Tex {
            dst,
            coord,
            sampler: flags,
        });
    }

    /// The lanes of construct `c` still to be written at the construct (not computed in
    /// place, not kept from its base vector, not the matrix instruction's), grouped by what
    /// they read: one instruction per group. `None` is the group of literals.
    fn groups(
        &self,
        c: Value,
        args: &[mir::Operand],
        base: Option<Value>,
    ) -> Vec<(Option<mir::Operand>, Vec<usize>)> {
        let from = self.matrices.get(&c).map_or(0, MatrixPlan::lanes);
        let mut groups: Vec<(Option<mir::Operand>, Vec<usize>)> = Vec::new();
        for (l, a) in args.iter().enumerate().skip(from) {
            if self.lo.in_chain(a.value, c) {
                continue;
            }
            if Some(a.value) == base && !a.neg && !a.abs && a.swizzle.lane(0) == l as u8 {
                continue;
            }
            let constant = matches!(
                self.lo.f.def_inst(a.value).map(|d| d.op),
                Some(Op::Const(_))
            );
            let key = (!constant).then_some(mir::Operand {
                swizzle: mir::Swizzle::IDENTITY,
                ..self.canonical(a)
            });
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, lanes)) => lanes.push(l),
                None => groups.push((key, vec![l])),
            }
        }
        groups
    }

    /// A scalar lane of a matrix instruction's result read as the lane of that result, so
    /// that lanes of one matrix product are moved together (`mov v1.xy, vt0.zw`).
    fn canonical(&self, a: &mir::Operand) -> mir::Operand {
        match self.shared.get(&a.value) {
            Some(&(c, lane)) => mir::Operand {
                value: c,
                swizzle: mir::Swizzle([lane + a.swizzle.lane(0); 4]),
                ..*a
            },
            None => *a,
        }
    }

    /// A vector from lanes: the matrix instruction's lanes, the lanes computed in place and
    /// those kept from its base are there already; one instruction per group of the others.
    fn construct(&mut self, r: Value, args: &[mir::Operand]) {
        let base = self.lo.chains.get(r).and_then(|c| c.extra);
        if let Some(plan) = self.matrices.get(&r).cloned() {
            let width = if plan.op == Opcode::M33 { 3 } else { 4 };
            let a = self.src(&plan.vector, fixed(width));
            let rows = match plan.index {
                Some(index) => self.indexed(plan.register, &index),
                None => VSrc::Reg(
                    RegType::Constant,
                    plan.register.min(u32::from(u16::MAX)) as u16,
                ),
            };
            let mask = lanes_mask(0, plan.lanes() as u8);
            let dst = match self.lo.outputs_at.get(&r) {
                Some(out) => VDst::Out((out.reg, out.index), out.mask),
                None => self.piece(r, mask),
            };
            self.emit(VInst::Alu {
                op: plan.op,
                dst,
                a,
                b: Some(VOp {
                    src: rows,
                    swizzle: Swizzle::IDENTITY,
                }),
            });
        }
        let groups = self.groups(r, args, base);
        let last = groups.len().saturating_sub(1);
        // Built straight into an output with more lanes than the vector: the last move
        // also writes them, repeating its last lane (any value will do; Flash wants them
        // written).
        let pad: Vec<usize> = match self.output_constructs.get(&r) {
            Some(out) => (args.len()..4)
                .filter(|&l| out.mask.bits() & (1 << l) != 0)
                .collect(),
            None => Vec::new(),
        };
        for (g, (key, mut lanes)) in groups.into_iter().enumerate() {
            let own = lanes.clone();
            if g == last {
                lanes.extend(&pad);
            }
            let mask = Mask::from_bits_truncate(lanes.iter().fold(0u8, |m, &l| m | 1 << l));
            let positions: Positions =
                std::array::from_fn(|p| lanes.contains(&p).then_some(p as u8));
            let source_lane = |l: usize| {
                if l < args.len() {
                    l
                } else {
                    own[own.len() - 1]
                }
            };
            match key {
                Some(k) => {
                    let mut sw = [0u8; 4];
                    for &l in &lanes {
                        sw[l] = self.canonical(&args[source_lane(l)]).swizzle.lane(0);
                    }
                    let op = mir::Operand {
                        swizzle: mir::Swizzle(sw),
                        ..k
                    };
                    let (opcode, plain) = match (op.neg, op.abs) {
                        (false, false) => (Opcode::Mov, op),
                        (true, false) => (Opcode::Neg, mir::Operand { neg: false, ..op }),
                        (false, true) => (Opcode::Abs, mir::Operand { abs: false, ..op }),
                        (true, true) => (Opcode::Neg, mir::Operand { neg: false, ..op }),
                    };
                    let a = self.src(&plain, positions);
                    let dst = self.piece(r, mask);
                    self.emit(VInst::Alu {
                        op: opcode,
                        dst,
                        a,
                        b: None,
                    });
                }
                None => {
                    let want = std::array::from_fn(|p| {
                        lanes
                            .contains(&p)
                            .then(|| self.const_lane(&args[source_lane(p)]))
                    });
                    let (reg, swizzle) = self.pool.place(want);
                    let dst = self.piece(r, mask);
                    self.emit(VInst::Alu {
                        op: Opcode::Mov,
                        dst,
                        a: VOp {
                            src: VSrc::Reg(RegType::Constant, reg),
                            swizzle,
                        },
                        b: None,
                    });
                }
            }
        }
    }

    /// The value of a constant scalar operand (its lane 0, modifiers applied).
    fn const_lane(&self, o: &mir::Operand) -> f32 {
        mir::analysis::constants::scalar(self.lo.f, o).unwrap_or(0.0)
    }

    // --------------------------------------------------------------------------------------
    // Legalisation.
    // --------------------------------------------------------------------------------------

    /// Appends `inst`, legalised.
    fn emit(&mut self, inst: VInst) {
        // The padding of an output piece is this instruction's (not a copy legalising adds).
        let pad = self.pad_next.take();
        let mut inst = self.legalize(inst);
        if let (Some((pad, last, true)), VInst::Alu { a, b, .. }) = (pad, &mut inst) {
            for op in std::iter::once(a).chain(b.as_mut()) {
                let mut lanes = op.swizzle.lanes();
                for p in 0..4 {
                    if pad.bits() & (1 << p) != 0 {
                        lanes[p] = lanes[usize::from(last)];
                    }
                }
                op.swizzle = Swizzle::new(lanes);
            }
        }
        let ops = inst.operands();
        self.lo.code.push(inst, &ops, self.lo.span);
    }

    /// Copies the lanes a source reads into a fresh temporary, in place, and reads them from
    /// there through the same swizzle (a constant register's lanes once per block: a later
    /// copy of lanes already copied reads the first).
    fn via_temp(&mut self, op: VOp) -> VOp {
        let read = op.swizzle.read_lanes(Mask::XYZW);
        let key = match op.src {
            VSrc::Reg(file @ RegType::Constant, n) => Some((file, n)),
            _ => None,
        };
        let mov = |t| VInst::Alu {
            op: Opcode::Mov,
            dst: VDst::Temp(t, read),
            a: VOp {
                src: op.src,
                swizzle: Swizzle::IDENTITY.restricted_to(read),
            },
            b: None,
        };
        let t = self.lo.copy(key, read.bits(), mov);
        VOp {
            src: VSrc::Temp(t),
            swizzle: op.swizzle,
        }
    }

    /// Makes the operands fit Flash's rules (see the module comment).
    fn legalize(&mut self, inst: VInst) -> VInst {
        let mut s = inst.sources();
        match inst {
            VInst::Alu { op, .. } => {
                if op.shape() == Shape::Unary && op != Opcode::Mov && s[0].is_constant() {
                    s[0] = self.via_temp(s[0]);
                }
                if s.len() == 2 && s[0].is_constant() && s[1].is_constant() {
                    // The matrix operand must stay a constant; otherwise either may move.
                    if op.shape() == Shape::Matrix {
                        s[0] = self.via_temp(s[0]);
                    } else {
                        s[1] = self.via_temp(s[1]);
                    }
                }
            }
            VInst::Tex { .. } | VInst::Kil { .. } => {
                if s[0].is_constant() {
                    s[0] = self.via_temp(s[0]);
                }
            }
            VInst::If { .. } => {
                if s[0].is_constant() && s[1].is_constant() {
                    s[0] = self.via_temp(s[0]);
                }
                if s[0] == s[1] {
                    s[1] = self.via_temp(s[1]);
                }
            }
        }
        inst.with_sources(&s)
    }
}

/// Whether an operation's instruction can write its result at any lanes: lane-wise
/// operations (their sources are read through shifted swizzles) and the ones that write
/// one value to every lane of the mask.
fn writes_any_lanes(op: Op) -> bool {
    op.is_lanewise_float() || matches!(op, Op::Dot(_) | Op::Dph | Op::BoolToFloat)
}

/// Whether an operation's `count`-lane result can be computed at lanes `lane..lane + count`
/// of a construct.
fn placeable_at(op: Op, lane: u8, count: u8) -> bool {
    writes_any_lanes(op)
        || (lane == 0 && count == 3 && matches!(op, Op::Cross | Op::Normalize))
        || (lane == 0 && count == 4 && matches!(op, Op::Sample { proj: false, .. }))
}

fn unary_opcode(op: Op) -> Opcode {
    match op {
        Op::Fract => Opcode::Frc,
        Op::Rcp => Opcode::Rcp,
        Op::Rsq => Opcode::Rsq,
        Op::Sqrt => Opcode::Sqt,
        Op::Exp2 => Opcode::Exp,
        Op::Log2 => Opcode::Log,
        Op::Sin => Opcode::Sin,
        Op::Cos => Opcode::Cos,
        Op::Sat => Opcode::Sat,
        Op::Ddx => Opcode::Ddx,
        Op::Ddy => Opcode::Ddy,
        _ => Opcode::Mov,
    }
}

fn binary_opcode(op: Op) -> Opcode {
    match op {
        Op::Add => Opcode::Add,
        Op::Sub => Opcode::Sub,
        Op::Mul => Opcode::Mul,
        Op::Div => Opcode::Div,
        Op::Min => Opcode::Min,
        Op::Max => Opcode::Max,
        _ => Opcode::Pow,
    }
}

/// The set instruction for a comparison, with its operands in order.
fn set_op(c: CmpOp, x: mir::Operand, y: mir::Operand) -> (Opcode, mir::Operand, mir::Operand) {
    match c {
        CmpOp::Lt => (Opcode::Slt, x, y),
        CmpOp::Ge => (Opcode::Sge, x, y),
        CmpOp::Gt => (Opcode::Slt, y, x),
        CmpOp::Le => (Opcode::Sge, y, x),
        CmpOp::Eq => (Opcode::Seq, x, y),
        CmpOp::Ne => (Opcode::Sne, x, y),
    }
}

/// Where each value is read: its readers' blocks and positions (`usize::MAX` for the
/// terminator).
fn readers(f: &Function) -> HashMap<Value, Vec<(BlockId, usize)>> {
    let mut at: HashMap<Value, Vec<(BlockId, usize)>> = HashMap::default();
    for &b in &f.layout {
        for (pos, &i) in f.blocks[b].insts.iter().enumerate() {
            for a in &f.insts[i].args {
                at.entry(a.value).or_default().push((b, pos));
            }
        }
        for a in f.blocks[b].term.operands() {
            at.entry(a.value).or_default().push((b, usize::MAX));
        }
    }
    at
}
