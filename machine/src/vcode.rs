//! Code with virtual registers, shared by the back ends: each back end selects its own
//! instructions (`I`) with regalloc2 operands, in blocks laid out from a MIR function, and
//! this module runs regalloc2 on them and answers where each operand landed.
//!
//! Layout: the MIR blocks in layout order (reverse post-order after the `order` pass), each
//! critical edge (from a block with two successors to one with two predecessors) split by an
//! *edge block* placed right after its source, since regalloc2 needs somewhere to put the
//! moves that edge may need. Edge blocks hold nothing but their jump; the back end's
//! emitter places their moves where the structured code takes that edge.
//!
//! Terminators are pseudo-instructions without operands (what a branch tests is computed by
//! ordinary instructions before it), so block arguments are the only values that cross an
//! edge, as regalloc2 requires.
//!
//! Registers: one class (float vec4), `registers` of them. The targets have no memory, so a
//! spill slot is a failure (regalloc2 spills rather than fail); [`VCode::allocate`] reports
//! how many temporaries the program would need instead.

use mir::hash::{HashMap, HashSet};
use std::ops::Range;

use regalloc2::{
    Allocation, Block, Edit, Function as RaFunction, Inst, InstOrEdit, InstRange, MachineEnv,
    Operand, Output, PReg, PRegSet, RegClass, RegallocOptions, VReg,
};

use mir::func::{BlockId, Function};
use mir::span::Span;

/// Where a block of virtual code comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// A MIR block.
    Block(BlockId),
    /// The critical edge between two MIR blocks (split).
    Edge(BlockId, BlockId),
}

/// One block.
#[derive(Clone, Debug)]
pub struct VBlock {
    /// Its MIR origin.
    pub origin: Origin,
    /// Its instructions (the last is the terminator).
    insts: Range<usize>,
    /// Successors, in the order of the MIR terminator's edges.
    succs: Vec<Block>,
    /// Predecessors.
    preds: Vec<Block>,
    /// Parameters.
    params: Vec<VReg>,
    /// Arguments passed to each successor's parameters.
    args: Vec<Vec<VReg>>,
}

/// What a virtual instruction is to regalloc2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Normal,
    Branch,
    Return,
}

/// Instructions of type `I` with virtual registers, in blocks.
#[derive(Clone, Debug)]
pub struct VCode<I> {
    insts: Vec<Option<I>>,
    kinds: Vec<Kind>,
    spans: Vec<Span>,
    operand_ranges: Vec<Range<u32>>,
    operands: Vec<Operand>,
    blocks: Vec<VBlock>,
    /// The virtual block of each MIR block and split edge.
    index: HashMap<Origin, Block>,
    vregs: usize,
    /// The block being filled (blocks are filled in order).
    current: usize,
    /// Registers an instruction overwrites beside its operands (a call's procedure's), by
    /// virtual index.
    clobbers: HashMap<usize, PRegSet>,
    /// Hardware registers the code names itself (fixed operands, clobbers): allocation
    /// keeps their numbers.
    reserved: Vec<usize>,
}

/// Why allocation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AllocError {
    /// More values live at once than registers: the most live at one point, and the first
    /// instruction (virtual index) where that many are live.
    TooManyLive {
        /// Registers the program needs.
        needed: usize,
        /// Where (the virtual instruction).
        at: usize,
    },
    /// regalloc2 rejected the code (a back-end bug).
    Internal(String),
}

/// Where every operand of every instruction landed.
pub struct Allocated {
    output: Output,
    /// The register each of regalloc2's register numbers is renamed to: numbered in the
    /// order the code first names them. regalloc2 spreads its picks over the register file
    /// (r3, r14 …); renaming a register everywhere changes nothing the program computes,
    /// and the listings then read, and the temporaries count, as in hand-written code.
    renamed: Vec<usize>,
}

impl<I> VCode<I> {
    /// The empty blocks for MIR function `f`: its blocks in layout order, and after each
    /// block the edge blocks of its critical out-edges.
    pub fn new(f: &Function) -> VCode<I> {
        let preds = f.predecessors();
        let mut origins = Vec::new();
        let mut split = HashSet::default();
        for &b in &f.layout {
            origins.push(Origin::Block(b));
            let succs = f.blocks[b].term.successors();
            if succs.len() > 1 {
                for s in succs {
                    let edge = Origin::Edge(b, s);
                    if preds[s.index()].len() > 1 && split.insert(edge) {
                        origins.push(edge);
                    }
                }
            }
        }
        let index: HashMap<Origin, Block> = origins
            .iter()
            .enumerate()
            .map(|(i, &o)| (o, Block::new(i)))
            .collect();
        let mut blocks: Vec<VBlock> = origins
            .iter()
            .map(|&origin| VBlock {
                origin,
                insts: 0..0,
                succs: Vec::new(),
                preds: Vec::new(),
                params: Vec::new(),
                args: Vec::new(),
            })
            .collect();
        // Successors: through the edge block where there is one.
        for (i, &origin) in origins.iter().enumerate() {
            let succs: Vec<Block> = match origin {
                Origin::Block(b) => f.blocks[b]
                    .term
                    .successors()
                    .into_iter()
                    .map(|s| {
                        index
                            .get(&Origin::Edge(b, s))
                            .copied()
                            .unwrap_or(index[&Origin::Block(s)])
                    })
                    .collect(),
                Origin::Edge(_, to) => vec![index[&Origin::Block(to)]],
            };
            for s in &succs {
                blocks[s.index()].preds.push(Block::new(i));
            }
            blocks[i].succs = succs;
        }
        VCode {
            insts: Vec::new(),
            kinds: Vec::new(),
            spans: Vec::new(),
            operand_ranges: Vec::new(),
            operands: Vec::new(),
            blocks,
            index,
            vregs: 0,
            current: 0,
            clobbers: HashMap::default(),
            reserved: Vec::new(),
        }
    }

    /// A fresh virtual register.
    pub fn vreg(&mut self) -> VReg {
        self.vregs += 1;
        VReg::new(self.vregs - 1, RegClass::Float)
    }

    /// The virtual blocks in order, with their origins.
    pub fn origins(&self) -> impl Iterator<Item = Origin> + '_ {
        self.blocks.iter().map(|b| b.origin)
    }

    /// The virtual block of `origin`.
    pub fn block_of(&self, origin: Origin) -> Option<Block> {
        self.index.get(&origin).copied()
    }

    /// Gives block `b` its parameters.
    pub fn set_params(&mut self, b: Block, params: Vec<VReg>) {
        self.blocks[b.index()].params = params;
    }

    /// Starts filling block `b`, which must be the next one in order.
    pub fn start(&mut self, b: Block) {
        debug_assert_eq!(b.index(), self.current, "blocks are filled in order");
        let at = self.insts.len();
        self.blocks[b.index()].insts = at..at;
    }

    /// Says that instruction `i` overwrites hardware registers `registers` beside its
    /// operands (a call: what its procedure writes), so that no value lives there across it.
    pub fn clobber(&mut self, i: usize, registers: impl IntoIterator<Item = usize>) {
        let set = self.clobbers.entry(i).or_insert_with(PRegSet::empty);
        for r in registers {
            set.add(PReg::new(r, RegClass::Float));
            if !self.reserved.contains(&r) {
                self.reserved.push(r);
            }
        }
    }

    /// Appends an instruction with its operands to the current block; `span` is the MIR
    /// instruction it comes from.
    pub fn push(&mut self, inst: I, operands: &[Operand], span: Span) -> usize {
        self.push_kind(Some(inst), operands, Kind::Normal, span)
    }

    fn push_kind(
        &mut self,
        inst: Option<I>,
        operands: &[Operand],
        kind: Kind,
        span: Span,
    ) -> usize {
        self.spans.push(span);
        for op in operands {
            if let regalloc2::OperandConstraint::FixedReg(r) = op.constraint() {
                if !self.reserved.contains(&r.hw_enc()) {
                    self.reserved.push(r.hw_enc());
                }
            }
        }
        let start = self.operands.len() as u32;
        self.operands.extend_from_slice(operands);
        self.operand_ranges.push(start..self.operands.len() as u32);
        self.insts.push(inst);
        self.kinds.push(kind);
        let b = &mut self.blocks[self.current];
        b.insts.end = self.insts.len();
        self.insts.len() - 1
    }

    /// Ends the current block with a branch to its successors, passing `args` (one list per
    /// successor, in the order of the MIR terminator's edges). Where a critical edge was
    /// split, the source passes nothing to the edge block and the edge block passes the MIR
    /// edge's arguments to the target.
    pub fn end_branch(&mut self, args: Vec<Vec<VReg>>) {
        let b = self.current;
        let n = self.blocks[b].succs.len();
        let mut args = args;
        args.resize(n, Vec::new());
        self.blocks[b].args = args;
        self.push_kind(None, &[], Kind::Branch, Span::default());
        self.current += 1;
    }

    /// Ends the current block with a return.
    pub fn end_return(&mut self) {
        self.push_kind(None, &[], Kind::Return, Span::default());
        self.current += 1;
    }

    /// The target instruction at virtual index `i` (`None` for a terminator).
    pub fn inst(&self, i: usize) -> Option<&I> {
        self.insts[i].as_ref()
    }

    /// Where virtual instruction `i` comes from.
    pub fn span(&self, i: usize) -> Span {
        self.spans[i]
    }

    /// Number of virtual instructions.
    pub fn len(&self) -> usize {
        self.insts.len()
    }

    /// Whether there are no instructions.
    pub fn is_empty(&self) -> bool {
        self.insts.is_empty()
    }

    /// Allocates `registers` registers (hardware numbers 0..registers).
    pub fn allocate(&self, registers: usize) -> Result<Allocated, AllocError> {
        let all: Vec<PReg> = (0..registers)
            .map(|r| PReg::new(r, RegClass::Float))
            .collect();
        // First without a scratch register; if regalloc2 then needs a spill slot (a cycle of
        // moves with every register taken), with the last register as scratch.
        let mut attempts = vec![(all.clone(), None)];
        if registers > 1 {
            attempts.push((all[..registers - 1].to_vec(), Some(all[registers - 1])));
        }
        // regalloc2 panics on a register used but never defined; that is a bug of the code
        // generator, and users get it as an error, not a crash.
        if let Some(v) = self.undefined_use() {
            return Err(AllocError::Internal(format!(
                "virtual register {v:?} is used but never defined"
            )));
        }
        for (regs, scratch) in attempts {
            let mut preferred = PRegSet::empty();
            for &r in &regs {
                preferred.add(r);
            }
            let env = MachineEnv {
                preferred_regs_by_class: [PRegSet::empty(), preferred, PRegSet::empty()],
                non_preferred_regs_by_class: [PRegSet::empty(); 3],
                scratch_by_class: [None, scratch, None],
                fixed_stack_slots: Vec::new(),
            };
            let options = RegallocOptions {
                verbose_log: false,
                validate_ssa: cfg!(debug_assertions),
                algorithm: regalloc2::Algorithm::Ion,
            };
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                regalloc2::run(self, &env, &options)
            }));
            let Ok(run) = run else {
                return Err(AllocError::Internal("register allocation failed".into()));
            };
            match run {
                Ok(output) if output.num_spillslots == 0 => {
                    return Ok(Allocated::new(self, output, registers));
                }
                Ok(_) | Err(regalloc2::RegAllocError::TooManyLiveRegs) => continue,
                Err(e) => return Err(AllocError::Internal(format!("{e:?}"))),
            }
        }
        let (needed, at) = self.max_live();
        Err(AllocError::TooManyLive {
            needed: needed.max(registers + 1),
            at,
        })
    }

    /// A virtual register some instruction reads that no instruction or block parameter
    /// defines, if there is one.
    fn undefined_use(&self) -> Option<VReg> {
        let mut defined = HashSet::default();
        for b in 0..self.num_blocks() {
            let b = Block::new(b);
            defined.extend(self.block_params(b).iter().copied());
            for i in self.block_insns(b).iter() {
                for op in self.inst_operands(i) {
                    if op.kind() == regalloc2::OperandKind::Def {
                        defined.insert(op.vreg());
                    }
                }
            }
        }
        for b in 0..self.num_blocks() {
            let b = Block::new(b);
            for i in self.block_insns(b).iter() {
                for op in self.inst_operands(i) {
                    if op.kind() == regalloc2::OperandKind::Use && !defined.contains(&op.vreg()) {
                        return Some(op.vreg());
                    }
                }
            }
            let last = self.block_insns(b).last();
            for s in 0..self.block_succs(b).len() {
                for &v in self.branch_blockparams(b, last, s) {
                    if !defined.contains(&v) {
                        return Some(v);
                    }
                }
            }
        }
        None
    }

    /// The most virtual registers live at once (a back-to-front liveness walk), and the
    /// instruction where that happens.
    pub fn max_live(&self) -> (usize, usize) {
        let n = self.blocks.len();
        let mut live_in: Vec<HashSet<VReg>> = vec![Default::default(); n];
        let mut worst = (0, 0);
        for _round in 0..n + 2 {
            let mut changed = false;
            for bi in (0..n).rev() {
                let b = &self.blocks[bi];
                let mut live: HashSet<VReg> = Default::default();
                for (k, s) in b.succs.iter().enumerate() {
                    live.extend(live_in[s.index()].iter().copied());
                    for p in &self.blocks[s.index()].params {
                        live.remove(p);
                    }
                    live.extend(b.args.get(k).into_iter().flatten().copied());
                }
                for i in b.insts.clone().rev() {
                    let ops = &self.operands[self.operand_ranges[i].start as usize
                        ..self.operand_ranges[i].end as usize];
                    for op in ops {
                        if op.kind() == regalloc2::OperandKind::Def {
                            live.remove(&op.vreg());
                        }
                    }
                    for op in ops {
                        if op.kind() == regalloc2::OperandKind::Use {
                            live.insert(op.vreg());
                        }
                    }
                    let defs = ops
                        .iter()
                        .filter(|o| o.kind() == regalloc2::OperandKind::Def)
                        .count();
                    if live.len() + defs > worst.0 {
                        worst = (live.len() + defs, i);
                    }
                }
                for p in &b.params {
                    live.remove(p);
                }
                if live != live_in[bi] {
                    live_in[bi] = live;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        worst
    }
}

impl Allocated {
    fn new<I>(code: &VCode<I>, output: Output, registers: usize) -> Allocated {
        // Registers the code names itself (a procedure's parameters, what a call
        // overwrites) keep their numbers; the others take the free numbers in order.
        // (A fixed register may lie past the `registers` allocation chose among.)
        let size = code
            .reserved
            .iter()
            .map(|&r| r + 1)
            .fold(registers, usize::max);
        let mut renamed = vec![usize::MAX; size];
        for &r in &code.reserved {
            if let Some(slot) = renamed.get_mut(r) {
                *slot = r;
            }
        }
        let reserved = &code.reserved;
        let mut next = 0;
        let mut name = |a: Allocation| {
            if let Some(r) = a.as_reg() {
                if renamed[r.hw_enc()] == usize::MAX {
                    while reserved.contains(&next) {
                        next += 1;
                    }
                    renamed[r.hw_enc()] = next;
                    next += 1;
                }
            }
        };
        for b in 0..code.blocks.len() {
            for item in output.block_insts_and_edits(code, Block::new(b)) {
                match item {
                    InstOrEdit::Inst(i) => output.inst_allocs(i).iter().for_each(|&a| name(a)),
                    InstOrEdit::Edit(Edit::Move { from, to }) => {
                        name(*from);
                        name(*to);
                    }
                }
            }
        }
        Allocated { output, renamed }
    }

    fn hw(&self, a: Allocation) -> Option<usize> {
        a.as_reg().map(|r| self.renamed[r.hw_enc()])
    }

    /// The hardware register of operand `k` of virtual instruction `i`.
    pub fn reg(&self, i: usize, k: usize) -> usize {
        self.hw(self.output.inst_allocs(Inst::new(i))[k])
            .unwrap_or(0)
    }

    /// The instructions (by virtual index) and register moves `(from, to)` of block `b`,
    /// in order; moves that do not move are left out.
    pub fn block_items<I>(&self, code: &VCode<I>, b: Block) -> Vec<Item> {
        self.output
            .block_insts_and_edits(code, b)
            .filter_map(|item| match item {
                InstOrEdit::Inst(i) => Some(Item::Inst(i.index())),
                InstOrEdit::Edit(Edit::Move { from, to }) => {
                    let (from, to) = (self.hw(*from)?, self.hw(*to)?);
                    (from != to).then_some(Item::Move { from, to })
                }
            })
            .collect()
    }
}

/// One step of an allocated block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    /// A virtual instruction, by index.
    Inst(usize),
    /// Copy register `from` to register `to`.
    Move {
        /// Source register.
        from: usize,
        /// Destination register.
        to: usize,
    },
}

impl<I> RaFunction for VCode<I> {
    fn num_insts(&self) -> usize {
        self.insts.len()
    }

    fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    fn entry_block(&self) -> Block {
        Block::new(0)
    }

    fn block_insns(&self, block: Block) -> InstRange {
        let r = &self.blocks[block.index()].insts;
        InstRange::new(Inst::new(r.start), Inst::new(r.end))
    }

    fn block_succs(&self, block: Block) -> &[Block] {
        &self.blocks[block.index()].succs
    }

    fn block_preds(&self, block: Block) -> &[Block] {
        &self.blocks[block.index()].preds
    }

    fn block_params(&self, block: Block) -> &[VReg] {
        &self.blocks[block.index()].params
    }

    fn is_ret(&self, insn: Inst) -> bool {
        self.kinds[insn.index()] == Kind::Return
    }

    fn is_branch(&self, insn: Inst) -> bool {
        self.kinds[insn.index()] == Kind::Branch
    }

    fn branch_blockparams(&self, block: Block, _insn: Inst, succ_idx: usize) -> &[VReg] {
        self.blocks[block.index()]
            .args
            .get(succ_idx)
            .map_or(&[], |a| a.as_slice())
    }

    fn inst_operands(&self, insn: Inst) -> &[Operand] {
        let r = &self.operand_ranges[insn.index()];
        &self.operands[r.start as usize..r.end as usize]
    }

    fn inst_clobbers(&self, insn: Inst) -> PRegSet {
        self.clobbers
            .get(&insn.index())
            .copied()
            .unwrap_or_else(PRegSet::empty)
    }

    fn num_vregs(&self) -> usize {
        self.vregs
    }

    fn spillslot_size(&self, _regclass: RegClass) -> usize {
        1
    }
}
