//! The selection driver and value placement, shared by the back ends.
//!
//! [`drive`] walks a MIR function into a [`VCode`]: it gives every block its parameters
//! first (a branch passes arguments to blocks not yet selected), then fills the blocks and
//! split edges in layout order, passing block arguments in plain virtual registers. The
//! instruction set's [`Hooks`] select each block's instructions and what its terminator
//! tests, returns and discards.
//!
//! Value placement: only computed values get virtual registers ([`Values`]); a value can
//! instead be computed straight into its final place:
//! - the output register, when the program's end alone reads it whole and a block that runs
//!   once computes it ([`returned_once`]);
//! - lanes of the vector a construct builds, when the construct alone reads it, in order
//!   ([`construct_lanes`]); the vector is then written piece by piece ([`Chains`]), each
//!   piece's destination tied to the previous one so that allocation keeps them in one
//!   register ([`plan`] places a block's values, the instruction set's [`Placement`]
//!   deciding what fits and how each vector starts);
//! - lanes of a register shared with other small values ([`Packs`], see [`crate::lanes`]).

use mir::analysis::liveness::is_temporary;
use mir::analysis::regions::Regions;
use mir::func::{BlockId, Function, Terminator, Value, ValueDef};
use mir::hash::{HashMap, HashSet};
use mir::inst::{Inst, Op, Operand};
use mir::module::Output;
use regalloc2::VReg;

use crate::lanes::{self, Packed};
use crate::lower::{Lower, Place};
use crate::vcode::{Origin, VCode};

/// What an instruction set's selector does for the driver.
pub trait Hooks<'f> {
    /// The virtual instruction.
    type Inst;
    /// An output in the instruction set's terms (see [`crate::lower::Place`]).
    type Output: Copy;
    /// What the instruction set keeps beside a chain.
    type Extra: Copy;
    /// What names a register copied into a temporary.
    type CopyKey;
    /// The lowering state: the function, the code being filled, the values' registers.
    fn lower(&mut self) -> &mut Lower<'f, Self::Inst, Self::Output, Self::Extra, Self::CopyKey>;
    /// `op` in a plain virtual register (a move when it is anything else): a block argument
    /// passed to `param`. The move writes every lane of `param`'s type, which is wider than
    /// `op`'s value where the argument is a splat or a lane selection (`s.xxxx` for a vec4).
    fn in_vreg(&mut self, op: &Operand, param: Value) -> VReg;
    /// A new virtual block starts: forget what the previous block computed, beyond what
    /// [`Lower::start_block`] forgets (nothing by default).
    fn start_block(&mut self) {}
    /// Selects block `b`'s instructions (its terminator is the driver's).
    fn block(&mut self, b: BlockId);
    /// Sets up what block `b`'s conditional branch tests.
    fn test(&mut self, b: BlockId, cond: &Operand, then: BlockId, otherwise: BlockId);
    /// Writes the returned values to the outputs.
    fn ret(&mut self, b: BlockId, values: &[Operand]);
    /// What a discarding block does before it ends the program (nothing by default).
    fn discard(&mut self, _b: BlockId) {}
    /// Whether block parameter `param` is passed in a register (all are by default; one
    /// whose every incoming value the instruction set computes straight into its final place,
    /// such as an output, is not).
    fn passed(&self, _param: Value) -> bool {
        true
    }
    /// What the block splitting the edge `from` → `to` does before it passes the arguments
    /// (nothing by default).
    fn edge(&mut self, _from: BlockId, _to: BlockId) {}
}

/// What an instruction set decides when [`plan`] places a block's values.
pub trait Placement<'f>: Hooks<'f> {
    /// The lowering state, to read.
    fn lower_ref(&self) -> &Lower<'f, Self::Inst, Self::Output, Self::Extra, Self::CopyKey>;
    /// The first lane of construct `c` that may be computed in place: the lanes before it
    /// are the instruction set's (none by default).
    fn first_lane(&self, _c: Value) -> usize {
        0
    }
    /// Whether `v` has a place of the instruction set's own, beside the block's places
    /// (none by default).
    fn taken(&self, _v: Value) -> bool {
        false
    }
    /// Whether `d`, computing `v`, can write it to lanes `lane..lane + count` of a vector.
    fn fits(&self, v: Value, d: &Inst, lane: u8, count: u8) -> bool;
    /// How construct `c` (arguments `args`) starts its chain, its `placed` values now
    /// computed in its lanes (each with its first lane and lane count; `here`: where the
    /// block's results are defined). The chain's `left` counts the pieces besides those
    /// values.
    fn start(
        &mut self,
        c: Value,
        args: &[Operand],
        placed: &[(Value, u8, u8)],
        here: &HashMap<Value, usize>,
    ) -> Chain<Self::Extra>;
    /// Adds to `exclude` the values lane packing leaves alone beside those with a place
    /// (none by default).
    fn unpacked(&self, _exclude: &mut HashSet<Value>) {}
    /// Whether the instruction set writes an operation's result of `lanes` lanes at any
    /// lanes (for lane packing).
    fn packable(op: Op, lanes: u8) -> bool;
}

/// Decides which values of block `b` go straight into their final place: its outputs, then
/// each float construct's lanes ([`construct_lanes`], with the instruction set's
/// [`Placement`]), each construct's chain started; then packs the rest, when lane packing
/// is on.
pub fn plan<'f, P: Placement<'f>>(p: &mut P, b: BlockId) {
    let f = p.lower().f;
    let here = p.lower().place_outputs(b);
    for (pos, &i) in f.blocks[b].insts.iter().enumerate() {
        let inst = &f.insts[i];
        if inst.op != Op::Construct {
            continue;
        }
        let Some(c) = inst.result() else { continue };
        if f.ty(c).kind != mir::Kind::Float {
            continue;
        }
        let construct = Construct {
            args: &inst.args,
            pos,
            from: p.first_lane(c),
        };
        let lo = p.lower_ref();
        let placed = construct_lanes(
            f,
            construct,
            &here,
            &lo.uses,
            |v| p.taken(v) || lo.places.contains_key(&v),
            |v, d, lane, count| p.fits(v, d, lane, count),
        );
        for &(v, lane, count) in &placed {
            let place = Place::Lane {
                chain: c,
                lane,
                count,
            };
            p.lower().places.insert(v, place);
        }
        let mut chain = p.start(c, &inst.args, &placed, &here);
        chain.left += placed.len();
        // A construct that keeps a vector's lanes and adds none is that vector.
        if let (0, Some(prev)) = (chain.left, chain.prev) {
            p.lower().vregs.set(c, prev);
        }
        p.lower().chains.start(c, chain);
    }
    if p.lower().pack_lanes {
        let mut exclude = p.lower().placed();
        p.unpacked(&mut exclude);
        p.lower().packs.plan(f, b, &exclude, P::packable);
    }
}

/// The arguments of edge `e` whose parameters are passed in registers, each in a plain
/// virtual register.
fn pass_args<'f, H: Hooks<'f>>(h: &mut H, f: &Function, e: &mir::func::Edge) -> Vec<VReg> {
    let params = &f.blocks[e.target].params;
    let passed: Vec<(Operand, Value)> = e
        .args
        .iter()
        .zip(params)
        .filter(|&(_, &p)| h.passed(p))
        .map(|(a, &p)| (*a, p))
        .collect();
    passed.iter().map(|(a, p)| h.in_vreg(a, *p)).collect()
}

/// Selects every block of the hooks' function, in layout order, with the split edges.
pub fn drive<'f, H: Hooks<'f>>(h: &mut H) {
    let f = h.lower().f;
    for &b in &f.layout {
        let passed: Vec<Value> = f.blocks[b]
            .params
            .iter()
            .copied()
            .filter(|&p| h.passed(p))
            .collect();
        let lo = h.lower();
        let params: Vec<VReg> = passed.into_iter().map(|p| lo.vreg(p)).collect();
        if let Some(vb) = lo.code.block_of(Origin::Block(b)) {
            lo.code.set_params(vb, params);
        }
    }
    let origins: Vec<Origin> = h.lower().code.origins().collect();
    for origin in origins {
        let Some(vb) = h.lower().code.block_of(origin) else {
            continue;
        };
        h.lower().code.start(vb);
        h.lower().start_block();
        h.start_block();
        let b = match origin {
            Origin::Block(b) => b,
            Origin::Edge(from, to) => {
                h.edge(from, to);
                let regs = f.blocks[from]
                    .term
                    .edges()
                    .into_iter()
                    .find(|e| e.target == to)
                    .map(|e| pass_args(h, f, e))
                    .unwrap_or_default();
                h.lower().code.end_branch(vec![regs]);
                continue;
            }
        };
        h.block(b);
        match &f.blocks[b].term {
            Terminator::Jump(e) => {
                let regs = pass_args(h, f, e);
                h.lower().code.end_branch(vec![regs]);
            }
            Terminator::Branch {
                cond,
                then,
                otherwise,
            } => {
                h.test(b, cond, then.target, otherwise.target);
                let mut args = Vec::new();
                for e in [then, otherwise] {
                    // A split edge passes the arguments from its own block.
                    let split = h.lower().code.block_of(Origin::Edge(b, e.target)).is_some();
                    args.push(if split {
                        Vec::new()
                    } else {
                        pass_args(h, f, e)
                    });
                }
                h.lower().code.end_branch(args);
            }
            Terminator::Return(values) => {
                h.ret(b, values);
                h.lower().code.end_return();
            }
            Terminator::Discard => {
                h.discard(b);
                h.lower().code.end_return();
            }
            Terminator::Unreachable => h.lower().code.end_return(),
        }
    }
}

/// The virtual register of each computed MIR value.
#[derive(Clone, Debug, Default)]
pub struct Values(HashMap<Value, VReg>);

impl Values {
    /// The virtual register of `v`, made on first ask.
    pub fn get<I>(&mut self, code: &mut VCode<I>, v: Value) -> VReg {
        *self.0.entry(v).or_insert_with(|| code.vreg())
    }

    /// Makes `r` the virtual register of `v` (a value that is another's register, such as a
    /// construct that keeps a vector's lanes and adds none).
    pub fn set(&mut self, v: Value, r: VReg) {
        self.0.insert(v, r);
    }
}

/// Where in block `b` each of its results is defined (instruction positions).
pub fn positions(f: &Function, b: BlockId) -> HashMap<Value, usize> {
    f.blocks[b]
        .insts
        .iter()
        .enumerate()
        .filter_map(|(k, &i)| f.insts[i].result().map(|r| (r, k)))
        .collect()
}

/// Whether the instruction defining `v` is in a block that runs once per program run
/// (outside every `if` and loop; a header runs once per entry to its own construct, so only
/// enclosing constructs count).
pub fn runs_once(f: &Function, regions: &Regions, v: Value) -> bool {
    match f.values[v].def {
        ValueDef::Inst(i, _) => f
            .layout
            .iter()
            .find(|&&b| f.blocks[b].insts.contains(&i))
            .is_some_and(|&b| regions.innermost(b, Some(b)).is_none()),
        ValueDef::Param(..) => false,
    }
}

/// What the program returns (the operands of its return; none for a function that only
/// discards).
fn returned(f: &Function) -> &[Operand] {
    f.layout
        .iter()
        .find_map(|&b| match &f.blocks[b].term {
            Terminator::Return(values) => Some(values.as_slice()),
            _ => None,
        })
        .unwrap_or(&[])
}

/// The values the program's return alone reads, whole and unmodified (with the lanes of
/// their output among `outputs`: a vec3 read as a vec4 output is not whole), computed by an
/// instruction in a block that runs once: each with the index of the output it is, and the
/// instruction. The instruction set picks those its instruction can write to the output
/// register directly (the output is then written once on every path).
pub fn returned_once<'f>(
    f: &'f Function,
    outputs: &[Output],
    uses: &HashMap<Value, usize>,
    regions: &Regions,
) -> Vec<(usize, Operand, &'f Inst)> {
    returned(f)
        .iter()
        .enumerate()
        .filter_map(|(k, v)| {
            let def = f.def_inst(v.value)?;
            let lanes = f.ty(v.value).lanes;
            let plain = !v.neg
                && !v.abs
                && outputs.get(k).is_some_and(|o| o.lanes == lanes)
                && v.swizzle.is_identity(lanes)
                && uses.get(&v.value) == Some(&1)
                && is_temporary(f, v.value);
            (plain && runs_once(f, regions, v.value)).then_some((k, *v, def))
        })
        .collect()
}

/// The scalars the program's return alone reads splat (`vec4(s)`: every lane of the operand
/// reads lane 0), unmodified, computed by an instruction in a block that runs once: each
/// with the index of the output it fills and the instruction. An instruction that writes
/// one value to every lane of its destination (lane-wise with its sources read replicated,
/// or a dot product) computes such a scalar straight into its whole output, with no copy
/// after; the instruction set picks those.
pub fn returned_splat<'f>(
    f: &'f Function,
    uses: &HashMap<Value, usize>,
    regions: &Regions,
) -> Vec<(usize, Value, &'f Inst)> {
    returned(f)
        .iter()
        .enumerate()
        .filter_map(|(k, v)| {
            let def = f.def_inst(v.value)?;
            let splat = (0..4).all(|l| v.swizzle.lane(l) == 0);
            let plain = splat
                && !v.neg
                && !v.abs
                && f.ty(v.value).lanes == 1
                && f.ty(v.value).kind == mir::Kind::Float
                && uses.get(&v.value) == Some(&1)
                && is_temporary(f, v.value);
            (plain && runs_once(f, regions, v.value)).then_some((k, v.value, def))
        })
        .collect()
}

/// The vector construct `c` (arguments `args`) can keep lanes of where they are: one whose
/// lane `i` feeds the construct's lane `i` unmodified, from lane `from` on, held in a
/// temporary of its own (not `taken` by another place, not placed in this block), and
/// defined before the first of the values `placed` in the construct's lanes (`here`: where
/// the block's results are defined). Of several, the one that keeps the most lanes. The construct is then written into that vector's register (its chain starts
/// with it), with no move for the lanes kept.
pub fn kept_base<I, O, X: Copy, K>(
    lo: &Lower<'_, I, O, X, K>,
    c: Value,
    args: &[Operand],
    from: usize,
    placed: &[(Value, u8, u8)],
    here: &HashMap<Value, usize>,
    taken: impl Fn(Value) -> bool,
) -> Option<Value> {
    let f = lo.f;
    let first_piece = placed
        .iter()
        .filter_map(|(v, ..)| here.get(v).copied())
        .min()
        .unwrap_or(usize::MAX);
    let in_place = |k: usize, x: &Operand| !x.neg && !x.abs && x.swizzle.lane(0) == k as u8;
    let mut best: Option<(Value, usize)> = None;
    for (l, a) in args.iter().enumerate().skip(from) {
        if lo.in_chain(a.value, c) || !in_place(l, a) || f.ty(a.value).lanes <= l as u8 {
            continue;
        }
        let own = match f.values[a.value].def {
            ValueDef::Param(..) => true,
            ValueDef::Inst(_, _) => {
                is_temporary(f, a.value) && !taken(a.value) && !lo.places.contains_key(&a.value)
            }
        };
        let before = here.get(&a.value).is_none_or(|&p| p < first_piece);
        if !own || !before {
            continue;
        }
        let count = args
            .iter()
            .enumerate()
            .filter(|(k, x)| x.value == a.value && in_place(*k, x))
            .count();
        if best.is_none_or(|(_, n)| count > n) {
            best = Some((a.value, count));
        }
    }
    best.map(|(v, _)| v)
}

/// A construct, for [`construct_lanes`].
#[derive(Clone, Copy, Debug)]
pub struct Construct<'a> {
    /// Its arguments, one per lane.
    pub args: &'a [Operand],
    /// Its position in its block.
    pub pos: usize,
    /// The first lane that may be computed in place (the lanes before it are the
    /// instruction set's).
    pub from: usize,
}

/// The arguments of construct `c` that can be computed straight into its lanes: values the
/// construct alone reads, all of them, in order (`a.x, a.y, a.z` at consecutive lanes),
/// defined earlier in the block (`here`: positions of the block's results), not `taken` by
/// another place, and whose instruction `fits` at those lanes (`lane`, `count`). Each with
/// its first lane and lane count.
pub fn construct_lanes(
    f: &Function,
    c: Construct<'_>,
    here: &HashMap<Value, usize>,
    uses: &HashMap<Value, usize>,
    taken: impl Fn(Value) -> bool,
    fits: impl Fn(Value, &Inst, u8, u8) -> bool,
) -> Vec<(Value, u8, u8)> {
    let Construct { args, pos, from } = c;
    let mut out: Vec<(Value, u8, u8)> = Vec::new();
    let mut lane = from;
    while lane < args.len() {
        let a = args[lane];
        let k = f.ty(a.value).lanes as usize;
        let in_order = lane + k <= args.len()
            && (0..k).all(|j| {
                let x = args[lane + j];
                x.value == a.value && !x.neg && !x.abs && x.swizzle.lane(0) == j as u8
            });
        let placed = in_order
            && here.get(&a.value).is_some_and(|&p| p < pos)
            && uses.get(&a.value) == Some(&k)
            && !taken(a.value)
            && !out.iter().any(|(v, ..)| *v == a.value)
            && f.def_inst(a.value)
                .is_some_and(|d| fits(a.value, d, lane as u8, k as u8));
        if placed {
            out.push((a.value, lane as u8, k as u8));
            lane += k;
        } else {
            lane += 1;
        }
    }
    out
}

/// A vector written piece by piece; `X` is what the instruction set keeps beside it.
#[derive(Clone, Copy, Debug)]
pub struct Chain<X> {
    /// The previous piece's virtual register (a kept vector's, to start with).
    pub prev: Option<VReg>,
    /// Pieces still to come.
    pub left: usize,
    /// The instruction set's own.
    pub extra: X,
}

/// Where a piece of a vector (or a value in a pack) is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece {
    /// A register of its own (the first piece).
    Fresh(VReg),
    /// The register of the previous piece, under a new name (tied: the same register).
    Tied {
        /// The previous piece.
        prev: VReg,
        /// This piece (the register after the write).
        new: VReg,
    },
}

/// The vectors of the current block being written piece by piece.
#[derive(Clone, Debug)]
pub struct Chains<X>(HashMap<Value, Chain<X>>);

impl<X> Default for Chains<X> {
    fn default() -> Self {
        Chains(HashMap::default())
    }
}

impl<X: Copy> Chains<X> {
    /// Starts the chain of vector `c`.
    pub fn start(&mut self, c: Value, chain: Chain<X>) {
        self.0.insert(c, chain);
    }

    /// The chain of `c`.
    pub fn get(&self, c: Value) -> Option<&Chain<X>> {
        self.0.get(&c)
    }

    /// The chains.
    pub fn iter(&self) -> impl Iterator<Item = &Chain<X>> {
        self.0.values()
    }

    /// Forgets every chain (a new block).
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Counts a piece of `c` written elsewhere (not to a register of the chain).
    pub fn count_down(&mut self, c: Value) {
        if let Some(st) = self.0.get_mut(&c) {
            st.left = st.left.saturating_sub(1);
        }
    }

    /// The next piece of `c`: the last one is the register of `c` itself. `None` when `c`
    /// is not being built (a bug in the caller).
    pub fn next<I>(&mut self, c: Value, code: &mut VCode<I>, values: &mut Values) -> Option<Piece> {
        let st = self.0.get_mut(&c)?;
        st.left = st.left.saturating_sub(1);
        let new = if st.left == 0 {
            values.get(code, c)
        } else {
            code.vreg()
        };
        let piece = match st.prev {
            None => Piece::Fresh(new),
            Some(prev) => Piece::Tied { prev, new },
        };
        st.prev = Some(new);
        Some(piece)
    }
}

/// The packed values of the current block (see [`crate::lanes`]) and each pack's current
/// register.
#[derive(Clone, Debug, Default)]
pub struct Packs {
    packed: HashMap<Value, Packed>,
    versions: HashMap<usize, VReg>,
}

impl Packs {
    /// Packs block `b`'s values, except `exclude`; `placeable`: whether the instruction set
    /// writes an operation's result of so many lanes at any lanes.
    pub fn plan(
        &mut self,
        f: &Function,
        b: BlockId,
        exclude: &HashSet<Value>,
        placeable: impl Fn(Op, u8) -> bool,
    ) {
        self.packed = lanes::plan(f, b, exclude, placeable);
    }

    /// Forgets the block's packs.
    pub fn clear(&mut self) {
        self.packed.clear();
        self.versions.clear();
    }

    /// Where `v` is packed, if it is.
    pub fn get(&self, v: Value) -> Option<Packed> {
        self.packed.get(&v).copied()
    }

    /// Whether `v` is packed.
    pub fn contains(&self, v: Value) -> bool {
        self.packed.contains_key(&v)
    }

    /// The register holding packed value `v` now, and the lane of its lane 0.
    pub fn read(&self, v: Value) -> Option<(VReg, u8)> {
        let p = self.packed.get(&v)?;
        Some((*self.versions.get(&p.pack)?, p.offset))
    }

    /// The write of packed value `v` to its pack: the piece and the lane of its lane 0.
    pub fn write<I>(&mut self, v: Value, code: &mut VCode<I>) -> Option<(Piece, u8)> {
        let p = *self.packed.get(&v)?;
        let new = code.vreg();
        let prev = if p.fresh {
            None
        } else {
            self.versions.get(&p.pack).copied()
        };
        self.versions.insert(p.pack, new);
        let piece = match prev {
            Some(prev) => Piece::Tied { prev, new },
            None => Piece::Fresh(new),
        };
        Some((piece, p.offset))
    }
}
