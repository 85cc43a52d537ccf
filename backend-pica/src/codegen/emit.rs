//! Emission: allocated virtual code to PICA200 instructions, laid out by the MIR's
//! structured regions.
//!
//! - An `if` is IFC (on `cmp.x`, which the CMP at the end of its block set) or IFU (on a
//!   bool uniform), its then-part, and an else-part; an arm that only continues the loop
//!   makes the continue block the merge of both arms.
//! - A loop with a known trip count is LOOP over an integer constant of that count, without
//!   its test; a loop whose one exit is its test at the end of an iteration is a JMPC back
//!   to its start, and one whose one exit is its test at the top is turned round (the test,
//!   a JMPC past the loop, the body, the test again, a JMPC back to the body): no bound on
//!   their trips; any other loop is LOOP over 256 iterations (the most one LOOP can run)
//!   with BREAKC at each exit. Exits must be at the loop's top level
//!   (BREAK inside an IF is undefined on the hardware).
//! - A program that calls a procedure ([`super::outline`]) has a CALL where each run was;
//!   the procedure, emitted as [`Unit::Procedure`] (no END), goes right after the program.
//! - Register moves that regalloc2 asks for become MOVs where they belong: in the block, in
//!   an arm (for a split edge), or after the loop (for its exit edge).
//! - Padding NOPs go where picasso puts them ([`crate::padding`]), and a NOP between two
//!   MOVAs, so that the listing of the result assembles to the same words.

use crate::rules::Rule;
use machine::inst::VInst as _;
use mir::hash::HashMap;

use machine::structured::{Exit, Layout, Loop, Walk, has_code, has_moves};
use machine::vcode::{Allocated, Item, Origin, VCode};
use mir::func::{BlockId, Function, Structure, Terminator};
use mir::{Diagnostic, Span};

use super::select::Test;
use super::vinst::{VDst, VInst, VOp, VSrc};
use crate::inst::{Inst, UnaryOp};
use crate::limits;
use crate::operand::{BoolReg, Condition, Dest, DstReg, IntReg, RelIndex, Source, SrcReg, Target};
use crate::padding::{Closing, needs_nop};

/// What emission produces.
pub struct Emitted {
    /// The code of `main`, ending in END (and its procedure after it, if any).
    pub code: Vec<Inst>,
    /// Where `main` ends (its procedure starts).
    pub entry_end: usize,
    /// Integer constants the loops need: `(iN, [count - 1, start, step, 0])`.
    pub int_constants: Vec<(u8, [u8; 4])>,
    /// Temporaries used (the highest register number plus one).
    pub temporaries: usize,
    /// For each word of `code`, the MIR span it was selected from (control flow: the span of
    /// the block that opens it; `None` for padding and the final END).
    pub spans: Vec<Option<Span>>,
}

/// What is being emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A program, ending in END; its calls run a procedure of `procedure_words` words,
    /// which goes right after it.
    Program {
        /// The procedure's length (0 without one).
        procedure_words: u8,
    },
    /// A procedure: no END (its caller goes on after it).
    Procedure,
}

/// Emits `code` (allocated as `alloc`) for function `f`.
pub fn emit(
    f: &Function,
    code: &VCode<VInst>,
    alloc: &Allocated,
    branches: &HashMap<BlockId, Test>,
    unit: Unit,
) -> Result<Emitted, Vec<Diagnostic>> {
    let mut e = Emitter {
        unit,
        calls: Vec::new(),
        f,
        code,
        alloc,
        branches,
        out: Vec::new(),
        spans: Vec::new(),
        current: None,
        closed: false,
        errors: Vec::new(),
        frames: Vec::new(),
        if_depth: 0,
        int_constants: Vec::new(),
        temporaries: 0,
    };
    if Walk::new(f).function(&mut e).is_none() {
        e.errors.push(Diagnostic::error(
            Rule::Internal,
            "internal error (this is a bug): a region of the program never reached its end",
        ));
    }
    match unit {
        Unit::Program { .. } => {
            if e.out.last() != Some(&Inst::End) {
                e.current = None;
                e.push(Inst::End);
            }
            // The procedure goes right after the program.
            let calls = std::mem::take(&mut e.calls);
            if !calls.is_empty() {
                let at = e.target(e.out.len());
                for k in calls {
                    if let Inst::Call { target, .. } = &mut e.out[k] {
                        *target = at;
                    }
                }
            }
        }
        Unit::Procedure => e.pad(Closing::Proc, 0),
    }
    if e.errors.is_empty() {
        Ok(Emitted {
            entry_end: e.out.len(),
            temporaries: e.temporaries,
            code: e.out,
            spans: e.spans,
            int_constants: e.int_constants,
        })
    } else {
        Err(e.errors)
    }
}

/// A loop's one way out (see `Emitter::one_exit`).
struct OneExit {
    /// The block whose branch leaves.
    test: BlockId,
    /// Its branch's targets.
    then: BlockId,
    otherwise: BlockId,
    /// The loop's blocks.
    inside: Vec<BlockId>,
}

/// A loop tested at its top, to be laid out turned round (see `Emitter::emit_rotated`).
struct Rotated {
    /// Its header and the blocks after it up to its test, each jumping to the next.
    top: Vec<BlockId>,
    /// Where its body starts.
    into: BlockId,
    /// Whether the test leaves on its then-side.
    out_then: bool,
}

/// What this back end keeps of the loop being emitted (the walk keeps its blocks).
#[derive(Clone, Copy)]
struct Frame {
    /// IF depth at the loop's top level.
    if_depth: usize,
    /// For a counted loop, the block whose exit test LOOP's count replaces.
    counted: Option<BlockId>,
    /// For a loop tested only at its end (a `do … while`), the address of its first word and
    /// the block of its test: no LOOP opens it, and its test is a JMPC back there.
    back_to: Option<(usize, BlockId)>,
}

struct Emitter<'a> {
    unit: Unit,
    /// Where the CALLs are (their target is known once the program is).
    calls: Vec<usize>,
    f: &'a Function,
    code: &'a VCode<VInst>,
    alloc: &'a Allocated,
    branches: &'a HashMap<BlockId, Test>,
    out: Vec<Inst>,
    /// The span of each word of `out`.
    spans: Vec<Option<Span>>,
    /// The span the next word comes from.
    current: Option<Span>,
    /// The last thing emitted closed an IF or LOOP (picasso pads the next `.end`/`.else`).
    closed: bool,
    errors: Vec<Diagnostic>,
    frames: Vec<Frame>,
    if_depth: usize,
    int_constants: Vec<(u8, [u8; 4])>,
    temporaries: usize,
}

impl Layout for Emitter<'_> {
    type Items = ();

    fn items(&mut self, _walk: &Walk<'_>, origin: Origin) {
        self.emit_items(origin);
    }

    fn branch(
        &mut self,
        walk: &mut Walk<'_>,
        b: BlockId,
        then: BlockId,
        otherwise: BlockId,
        _items: (),
    ) -> Option<BlockId> {
        self.emit_if(walk, b, then, otherwise)
    }

    fn looped(&mut self, walk: &mut Walk<'_>, l: Loop) {
        self.emit_loop(walk, l);
    }

    fn end(&mut self, _b: BlockId) {
        if self.unit != Unit::Procedure {
            self.push(Inst::End);
        }
    }
}

impl Emitter<'_> {
    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.errors
            .push(Diagnostic::error(Rule::ControlFlow, message).with_span(span));
    }

    fn push(&mut self, inst: Inst) {
        // Two MOVAs in a row do not work on the hardware.
        if matches!(inst, Inst::Mova { .. }) && matches!(self.out.last(), Some(Inst::Mova { .. })) {
            self.out.push(Inst::Nop);
            self.spans.push(None);
        }
        self.out.push(inst);
        self.spans.push(self.current);
        self.closed = false;
    }

    /// A padding NOP where picasso would put one, closing a block opened at `start`.
    fn pad(&mut self, closing: Closing, start: usize) {
        if needs_nop(&self.out, closing, start, self.closed) {
            self.out.push(Inst::Nop);
            self.spans.push(None);
        }
        self.closed = false;
    }

    fn target(&mut self, addr: usize) -> Target {
        Target::new(addr as u32).unwrap_or_else(|| {
            self.errors.push(Diagnostic::error(
                Rule::Limit,
                format!(
                    "the program needs more than {} words of code",
                    limits::MAX_CODE_WORDS
                ),
            ));
            Target::from_field(0)
        })
    }

    /// Emits the instructions and moves of a virtual block (not its terminator).
    fn emit_items(&mut self, origin: Origin) {
        let Some(vb) = self.code.block_of(origin) else {
            return;
        };
        for item in self.alloc.block_items(self.code, vb) {
            match item {
                Item::Inst(i) => {
                    let counted_test = matches!(origin, Origin::Block(b)
                        if self.frames.last().is_some_and(|l| l.counted == Some(b)));
                    if let Some(inst) = self.code.inst(i) {
                        if counted_test && matches!(inst, VInst::Cmp { .. }) {
                            continue;
                        }
                        match (inst, self.unit) {
                            // Where allocation put the parameters: no word.
                            (VInst::Params { .. }, _) => continue,
                            (VInst::Call { .. }, Unit::Program { procedure_words }) => {
                                self.current = Some(self.code.span(i));
                                self.calls.push(self.out.len());
                                self.push(Inst::Call {
                                    target: Target::from_field(0),
                                    num: procedure_words,
                                });
                                continue;
                            }
                            (VInst::Call { .. }, Unit::Procedure) => {
                                self.error(
                                    self.code.span(i),
                                    "internal: a procedure that calls a procedure",
                                );
                                continue;
                            }
                            _ => {}
                        }
                        self.current = Some(self.code.span(i));
                        let machine = self.machine(i, inst);
                        self.push(machine);
                    }
                }
                Item::Move { from, to } => {
                    self.temporaries = self.temporaries.max(from.max(to) + 1);
                    let mov = Inst::Unary {
                        op: UnaryOp::Mov,
                        dst: Dest::new(DstReg::Temp(to as u8)),
                        src: Source::new(SrcReg::Temp(from as u8)),
                    };
                    self.push(mov);
                }
            }
        }
    }

    /// The machine instruction for virtual instruction `i`.
    fn machine(&mut self, i: usize, inst: &VInst) -> Inst {
        let mut k = 0;
        let mut used = 0;
        let mut next = |s: &Self| {
            let r = s.alloc.reg(i, k);
            k += 1;
            used = used.max(r + 1);
            r as u8
        };
        let src = |s: &Self, op: VOp, next: &mut dyn FnMut(&Self) -> u8| -> Source {
            let (reg, index) = match op.src {
                VSrc::Temp(_) => (SrcReg::Temp(next(s)), RelIndex::None),
                VSrc::Input(n) => (SrcReg::Input(n), RelIndex::None),
                VSrc::Const(n) => (SrcReg::Const(n), RelIndex::None),
                VSrc::Indexed { base, index } => (SrcReg::Const(base), index),
            };
            Source {
                reg,
                swizzle: op.swizzle,
                negate: op.neg,
                index,
            }
        };
        let sources: Vec<Source> = inst
            .sources()
            .into_iter()
            .map(|op| src(self, op, &mut next))
            .collect();
        let dst = inst.dst().map(|d| match d {
            VDst::Temp(_, mask) => Dest {
                reg: DstReg::Temp(next(self)),
                mask,
            },
            VDst::Tied { mask, .. } => {
                let _prev = next(self);
                Dest {
                    reg: DstReg::Temp(next(self)),
                    mask,
                }
            }
            VDst::Out(n, mask) => Dest {
                reg: DstReg::Output(n),
                mask,
            },
        });
        let built = match (*inst, dst) {
            (VInst::Binary { op, .. }, Some(d)) => Inst::binary(op, d, sources[0], sources[1]),
            (VInst::Unary { op, .. }, Some(d)) => Inst::unary(op, d, sources[0]),
            (VInst::Mad { .. }, Some(d)) => Inst::mad(d, sources[0], sources[1], sources[2]),
            (VInst::Mova { mask, .. }, _) => Inst::mova(mask, sources[0]),
            (VInst::Cmp { x, y, .. }, _) => Inst::cmp(sources[0], x, y, sources[1]),
            (
                VInst::SetEmit {
                    vertex,
                    primitive,
                    winding,
                },
                _,
            ) => Ok(Inst::SetEmit {
                vertex,
                primitive,
                winding,
            }),
            (VInst::Emit, _) => Ok(Inst::Emit),
            _ => unreachable!("every writing instruction has a destination"),
        };
        self.temporaries = self.temporaries.max(used);
        built.unwrap_or_else(|e| {
            self.errors.push(Diagnostic::error(
                Rule::Internal,
                format!("internal: instruction selection made an unencodable instruction: {e}"),
            ));
            Inst::Nop
        })
    }

    /// The condition word parts for block `b`'s test, true when the branch is taken.
    fn condition(&self, b: BlockId, when: bool) -> Option<Result<Condition, BoolReg>> {
        match self.branches.get(&b)? {
            Test::Cmp(c) => Some(Ok(if when { *c } else { c.negated() })),
            Test::Bool(n) => BoolReg::new(*n).map(Err),
        }
    }

    /// Emits the conditional branch ending block `b`; returns where code continues.
    fn emit_if(
        &mut self,
        walk: &mut Walk<'_>,
        b: BlockId,
        t: BlockId,
        e: BlockId,
    ) -> Option<BlockId> {
        let span = self.f.blocks[b].span;
        self.current = Some(span);
        // A branch out of the loop: BREAKC, then the other way on.
        if let (Some(l), Some(frame)) = (walk.innermost(), self.frames.last().copied()) {
            let (t, e) = (
                walk.skip_empty(self.code, self.alloc, b, t, l.merge),
                walk.skip_empty(self.code, self.alloc, b, e, l.merge),
            );
            if t == l.merge || e == l.merge {
                let (when, other) = if t == l.merge { (true, e) } else { (false, t) };
                if self.if_depth != frame.if_depth {
                    self.error(
                        span,
                        "a break inside an `if` in a loop that is not unrolled (the PICA200 \
                         can only leave a loop from its top level)",
                    );
                }
                match self.condition(b, when) {
                    // A counted loop's own test: LOOP's count does it.
                    _ if frame.counted == Some(b) => {}
                    // A loop tested at its end: back to its start unless it is done.
                    Some(Ok(_)) if frame.back_to.is_some_and(|(_, test)| test == b) => {
                        if let (Some(Ok(cond)), Some((start, _))) =
                            (self.condition(b, !when), frame.back_to)
                        {
                            let target = self.target(start);
                            self.push(Inst::JmpC { cond, target });
                        }
                    }
                    Some(Ok(cond)) => self.push(Inst::BreakC { cond }),
                    _ => self.error(
                        span,
                        "a loop that ends on a bool uniform (the PICA200 has no BREAK on one)",
                    ),
                }
                self.emit_items(Origin::Edge(b, other));
                return Some(other);
            }
        }
        let Some(Structure::If { merge }) = self.f.blocks[b].structure else {
            self.error(
                span,
                "internal: a conditional branch outside any `if` or loop",
            );
            return None;
        };
        let ends = [walk.arm_end(t, merge), walk.arm_end(e, merge)];
        if ends.contains(&Exit::Break) {
            self.error(
                span,
                "code before a break inside an `if` in a loop that is not unrolled",
            );
            return None;
        }
        let stop = match walk.innermost() {
            Some(l) if ends.contains(&Exit::Continue) => l.cont,
            _ => merge,
        };
        // An empty then-part costs a padding NOP: test the other way when the test allows.
        let then_empty = walk.skip_empty(self.code, self.alloc, b, t, stop) == stop;
        let else_empty = walk.skip_empty(self.code, self.alloc, b, e, stop) == stop;
        let swap = then_empty && !else_empty && matches!(self.branches.get(&b), Some(Test::Cmp(_)));
        let (first, second, when) = if swap { (e, t, false) } else { (t, e, true) };
        if self.if_depth == limits::IF_STACK_DEPTH {
            self.error(
                span,
                format!(
                    "`if`s nested deeper than {} (the PICA200's IF stack)",
                    limits::IF_STACK_DEPTH
                ),
            );
        }
        let pos = self.out.len();
        let zero = Target::from_field(0);
        match self.condition(b, when) {
            Some(Ok(cond)) => self.push(Inst::IfC {
                cond,
                dst: zero,
                num: 0,
            }),
            Some(Err(breg)) => self.push(Inst::IfU {
                b: breg,
                dst: zero,
                num: 0,
            }),
            None => {
                self.error(span, "internal: a branch with no test");
                return None;
            }
        }
        self.if_depth += 1;
        self.emit_items(Origin::Edge(b, first));
        // An arm that leaves the loop unconditionally (the rest of an iteration after an
        // `if` with a `continue`, ending in a `break`) has no BREAKC to do it: refused, so
        // that the compiler tries again with the breaks predicated, never dropped.
        let mut arms_end = Vec::new();
        if first != stop {
            arms_end.push(walk.region(self, first, Some(stop)));
        }
        let has_else = second != stop || has_code(self.code, self.alloc, Origin::Edge(b, second));
        let mut else_start = None;
        if has_else {
            self.pad(Closing::Else, pos);
            else_start = Some(self.out.len());
            self.emit_items(Origin::Edge(b, second));
            if second != stop {
                arms_end.push(walk.region(self, second, Some(stop)));
            }
        }
        if arms_end.contains(&Exit::Break) {
            self.error(
                span,
                "a break at the end of an `if`'s arm in a loop that is not unrolled",
            );
        }
        self.pad(Closing::If, pos);
        let here = self.out.len();
        let (dst, num) = match else_start {
            Some(start) => (start, here - start),
            None => (here, 0),
        };
        let dst = self.target(dst);
        let num = u8::try_from(num).unwrap_or_else(|_| {
            self.error(span, "an else-part longer than 255 words (NUM has 8 bits)");
            0
        });
        match &mut self.out[pos] {
            Inst::IfC { dst: d, num: n, .. } | Inst::IfU { dst: d, num: n, .. } => {
                *d = dst;
                *n = num;
            }
            _ => {}
        }
        self.if_depth -= 1;
        self.closed = true;
        Some(stop)
    }

    /// The trip count of the loop at `h` and its test's block, when the loop can run that
    /// many times without testing: the count is known (1 to 256); nothing computed in the
    /// header or the test's block is read after the loop (the last test, which LOOP skips,
    /// would have computed it); and allocation put no moves in those blocks.
    fn counted(&self, h: BlockId) -> Option<(u32, BlockId)> {
        let (trips, exit) = mir::analysis::trips::trip_count(self.f, h, 256)?;
        if trips == 0 {
            return None;
        }
        let regions = mir::analysis::regions::Regions::new(self.f);
        let l = regions.constructs.iter().find(|c| c.header == h)?;
        let tested = [h, exit];
        let defined: Vec<mir::Value> = tested
            .iter()
            .flat_map(|&b| self.f.blocks[b].insts.iter())
            .filter_map(|&i| self.f.insts[i].result())
            .collect();
        for &b in &self.f.layout {
            if regions.contains(l, b) {
                continue;
            }
            let reads = |v: mir::Value| {
                self.f.blocks[b]
                    .insts
                    .iter()
                    .any(|&i| self.f.insts[i].args.iter().any(|a| a.value == v))
                    || self.f.blocks[b]
                        .term
                        .operands()
                        .iter()
                        .any(|a| a.value == v)
            };
            if defined.iter().any(|&v| reads(v)) {
                return None;
            }
        }
        let moves = tested
            .iter()
            .any(|&b| has_moves(self.code, self.alloc, Origin::Block(b)));
        (!moves).then_some((trips, exit))
    }

    /// The integer register holding `value` (`.consti`-style, from i3 down).
    fn int_register(&mut self, value: [u8; 4], span: Span) -> u8 {
        if let Some(&(r, _)) = self.int_constants.iter().find(|(_, v)| *v == value) {
            return r;
        }
        if self.int_constants.len() == usize::from(limits::INT_UNIFORMS) {
            self.error(
                span,
                format!(
                    "loops with more than {} different iteration counts (the PICA200 has \
                     integer registers i0 to i3)",
                    limits::INT_UNIFORMS
                ),
            );
            return 3;
        }
        let r = 3 - self.int_constants.len() as u8;
        self.int_constants.push((r, value));
        r
    }

    /// Emits a loop: LOOP over its trip count (or 256 iterations with BREAKC), the body
    /// from the header to the back edge, then the moves of its exit edge.
    fn emit_loop(&mut self, walk: &mut Walk<'_>, l: Loop) {
        let h = l.header;
        let span = self.f.blocks[h].span;
        self.current = Some(span);
        if walk.depth() == limits::LOOP_STACK_DEPTH {
            self.error(
                span,
                format!(
                    "loops nested deeper than {} (the PICA200's LOOP stack)",
                    limits::LOOP_STACK_DEPTH
                ),
            );
            return;
        }
        // A loop with a known trip count runs exactly that many times and tests nothing.
        // One tested only at its end jumps back to its start (JMPC): no LOOP, no bound on
        // its trips, no padding NOP. Any other runs up to 256 times (the most one LOOP can)
        // and leaves by BREAKC.
        let counted = self.counted(h);
        if let Some(test) = counted
            .is_none()
            .then(|| self.tested_at_end(walk, l))
            .flatten()
        {
            let start = self.out.len();
            self.frames.push(Frame {
                if_depth: self.if_depth,
                counted: None,
                back_to: Some((start, test)),
            });
            let exit = walk.body(self, l);
            self.frames.pop();
            if exit != Exit::Continue {
                self.error(span, "internal: a loop tested at its end ended elsewhere");
            }
            self.exit_moves(l, span);
            return;
        }
        if let Some(r) = counted
            .is_none()
            .then(|| self.tested_at_top(walk, l))
            .flatten()
        {
            self.emit_rotated(walk, l, r);
            return;
        }
        let count = counted.map_or(256, |(trips, _)| trips);
        let ireg = self.int_register([(count - 1) as u8, 0, 1, 0], span);
        let pos = self.out.len();
        self.push(Inst::Loop {
            i: IntReg::new(ireg).unwrap_or(IntReg::from_field(3)),
            last: Target::from_field(0),
        });
        self.frames.push(Frame {
            if_depth: self.if_depth,
            counted: counted.map(|(_, exit)| exit),
            back_to: None,
        });
        // The body's top level ends in an unconditional break: no BREAKC can do it.
        if walk.body(self, l) == Exit::Break {
            self.error(
                span,
                "a loop whose body ends in a break (it repeats only through `continue`)",
            );
        }
        self.frames.pop();
        self.pad(Closing::Loop, pos);
        let last = self.out.len().saturating_sub(1);
        let last = self.target(last);
        if let Inst::Loop { last: l, .. } = &mut self.out[pos] {
            *l = last;
        }
        self.closed = true;
        self.exit_moves(l, span);
    }

    /// The block whose branch is loop `l`'s one way out, when it leaves only at the end of
    /// an iteration: a CMP test that goes out, or on to the header with no code on the way
    /// (no moves, no blocks with code). Such a loop is a JMPC back to its start.
    fn tested_at_end(&self, walk: &Walk<'_>, l: Loop) -> Option<BlockId> {
        let exit = self.one_exit(l)?;
        let (x, t, e) = (exit.test, exit.then, exit.otherwise);
        let out = |to| walk.skip_empty(self.code, self.alloc, x, to, l.merge) == l.merge;
        let back = |to| walk.skip_empty(self.code, self.alloc, x, to, l.header) == l.header;
        ((out(t) && back(e)) || (out(e) && back(t))).then_some(x)
    }

    /// Loop `l`'s one way out, when one block alone leaves it and that block ends in a
    /// branch on a CMP test.
    fn one_exit(&self, l: Loop) -> Option<OneExit> {
        let regions = mir::analysis::regions::Regions::new(self.f);
        let c = *regions.constructs.iter().find(|c| c.header == l.header)?;
        let mut leaving = self.f.layout.iter().copied().filter(|&b| {
            regions.contains(&c, b)
                && self.f.blocks[b]
                    .term
                    .successors()
                    .iter()
                    .any(|&s| !regions.contains(&c, s))
        });
        let (test, None) = (leaving.next()?, leaving.next()) else {
            return None;
        };
        let Terminator::Branch {
            then, otherwise, ..
        } = &self.f.blocks[test].term
        else {
            return None;
        };
        if !matches!(self.branches.get(&test), Some(Test::Cmp(_))) {
            return None;
        }
        Some(OneExit {
            test,
            then: then.target,
            otherwise: otherwise.target,
            inside: self
                .f
                .layout
                .iter()
                .copied()
                .filter(|&b| regions.contains(&c, b))
                .collect(),
        })
    }

    /// How loop `l` goes in and out, when it leaves only by the test at the top of an
    /// iteration (`while (c) { … }`, `for (…; i < n; …)`): the blocks from its header to the
    /// test (each jumping to the next), where the body starts, and whether the test leaves on
    /// its then-side. The test is a CMP whose one way leads out with no code on the way.
    fn tested_at_top(&self, walk: &Walk<'_>, l: Loop) -> Option<Rotated> {
        let exit = self.one_exit(l)?;
        // From the header, the blocks that only jump on, to the test.
        let mut top = vec![l.header];
        while *top.last()? != exit.test {
            match &self.f.blocks[*top.last()?].term {
                Terminator::Jump(e)
                    if e.args.is_empty()
                        && exit.inside.contains(&e.target)
                        && !top.contains(&e.target) =>
                {
                    top.push(e.target)
                }
                _ => return None,
            }
        }
        let (t, e) = (exit.then, exit.otherwise);
        let out = |to| walk.skip_empty(self.code, self.alloc, exit.test, to, l.merge) == l.merge;
        let inside = |to: BlockId| !top.contains(&to) && exit.inside.contains(&to);
        let (into, out_then) = match (out(t), out(e)) {
            (true, false) if inside(e) => (e, true),
            (false, true) if inside(t) => (t, false),
            _ => return None,
        };
        Some(Rotated {
            top,
            into,
            out_then,
        })
    }

    /// Loop `l`, tested at its top, as a hand-writer turns it round: its top (header to
    /// test) once, a JMPC past the loop when it makes no trip, the body, the top again and
    /// a JMPC back to the body while the test holds. No LOOP, so no bound on its trips; one
    /// step fewer than LOOP and BREAKC, for the top's words twice.
    fn emit_rotated(&mut self, walk: &mut Walk<'_>, l: Loop, r: Rotated) {
        let test = *r.top.last().unwrap_or(&l.header);
        let span = self.f.blocks[l.header].span;
        let (Some(Ok(leave)), Some(Ok(stay))) = (
            self.condition(test, r.out_then),
            self.condition(test, !r.out_then),
        ) else {
            self.error(span, "internal: a loop test that is not a CMP");
            return;
        };
        for &b in &r.top {
            self.emit_items(Origin::Block(b));
        }
        self.current = Some(span);
        let guard = self.out.len();
        self.push(Inst::JmpC {
            cond: leave,
            target: Target::from_field(0),
        });
        let start = self.out.len();
        self.emit_items(Origin::Edge(test, r.into));
        self.frames.push(Frame {
            if_depth: self.if_depth,
            counted: None,
            back_to: None,
        });
        let exit = walk.body_from(self, l, r.into);
        self.frames.pop();
        if exit != Exit::Continue {
            self.error(span, "internal: a loop tested at its top ended elsewhere");
        }
        for &b in &r.top {
            self.emit_items(Origin::Block(b));
        }
        self.current = Some(span);
        let target = self.target(start);
        self.push(Inst::JmpC { cond: stay, target });
        let after = self.target(self.out.len());
        if let Inst::JmpC { target, .. } = &mut self.out[guard] {
            *target = after;
        }
        self.exit_moves(l, span);
    }

    /// The moves of loop `l`'s exit edge, which run once the loop is done: there must be
    /// one such edge.
    fn exit_moves(&mut self, l: Loop, span: Span) {
        let merge = l.merge;
        let exits: Vec<BlockId> = self
            .f
            .layout
            .iter()
            .copied()
            .filter(|&x| has_code(self.code, self.alloc, Origin::Edge(x, merge)))
            .collect();
        match exits.as_slice() {
            [] => {}
            [x] => self.emit_items(Origin::Edge(*x, merge)),
            _ => self.error(
                span,
                "a loop whose exits need different register moves (not supported yet)",
            ),
        }
    }
}
