//! Emission: allocated virtual code to AGAL instructions, laid out by the MIR's structured
//! regions.
//!
//! - An `if` (AGAL 2 and 3) is its test (`ife`, `ine` or `ifl`), the first arm, `els` and
//!   the second arm when that has code, and `eif`. Flash rejects an empty branch (#3748), so
//!   an `ife`/`ine` whose first arm came out empty is inverted with the arms swapped.
//! - Register moves regalloc2 asks for become `mov`s where they belong: in the block, or in
//!   an arm for a split edge. Moves it places after a block's test (before the branch) hold
//!   on both edges, so they go at the start of both arms.
//! - A move copies only the lanes of its source register that have been written on the way
//!   there (through the dominating code; the value moved is among them), so that it never
//!   reads a lane Flash considers unwritten (#3648).

use crate::rules::CodegenRule;
use machine::inst::VInst as _;
use machine::structured::{Layout, Loop, Walk};
use machine::vcode::{Allocated, Item, Origin, VCode};
use mir::func::{BlockId, Function, Structure};
use mir::{Diagnostic, Span};

use super::vinst::{IndexReg, VDst, VInst, VOp, VSrc};
use crate::inst::Inst;
use crate::limits::MAX_TEMPORARIES as TEMPORARIES;
use crate::opcode::Opcode;
use crate::operand::{Address, Dest, Indirect, Mask, RegType, Source, Swizzle};

/// What emission produces.
pub struct Emitted {
    /// The instructions.
    pub code: Vec<Inst>,
    /// Temporaries used (the highest register number plus one).
    pub temporaries: usize,
    /// For each token of `code`, the MIR span it was selected from (a conditional's tokens:
    /// the span of the block that opens it).
    pub spans: Vec<Option<Span>>,
}

/// Emits `code` (allocated as `alloc`) for function `f`.
pub fn emit(
    f: &Function,
    code: &VCode<VInst>,
    alloc: &Allocated,
) -> Result<Emitted, Vec<Diagnostic>> {
    let mut e = Emitter {
        f,
        code,
        alloc,
        out: Vec::new(),
        current: None,
        written: [Mask::NONE; TEMPORARIES],
        errors: Vec::new(),
        temporaries: 0,
    };
    if Walk::new(f).function(&mut e).is_none() {
        e.internal(
            Span::default(),
            "a region of the program never reached its end",
        );
    }
    if e.errors.is_empty() {
        let (code, spans) = e.out.into_iter().unzip();
        Ok(Emitted {
            code,
            spans,
            temporaries: e.temporaries,
        })
    } else {
        Err(e.errors)
    }
}

struct Emitter<'a> {
    f: &'a Function,
    code: &'a VCode<VInst>,
    alloc: &'a Allocated,
    /// The tokens so far, each with the span it came from.
    out: Vec<(Inst, Option<Span>)>,
    /// The span of the instruction being emitted.
    current: Option<Span>,
    /// The lanes of each temporary written by the code that dominates the current point.
    written: [Mask; TEMPORARIES],
    errors: Vec<Diagnostic>,
    temporaries: usize,
}

impl Layout for Emitter<'_> {
    /// The block's test (its virtual index) and the moves after it.
    type Items = Option<(usize, Vec<(usize, usize)>)>;

    fn items(&mut self, _walk: &Walk<'_>, origin: Origin) -> Self::Items {
        self.emit_items(origin)
    }

    fn branch(
        &mut self,
        walk: &mut Walk<'_>,
        b: BlockId,
        then: BlockId,
        otherwise: BlockId,
        test: Self::Items,
    ) -> Option<BlockId> {
        self.emit_if(walk, b, then, otherwise, test)
    }

    fn looped(&mut self, _walk: &mut Walk<'_>, l: Loop) {
        // Preparation unrolls every loop or refuses the program.
        let span = self.f.blocks[l.header].span;
        self.internal(span, "a loop left after unrolling");
    }

    fn end(&mut self, _b: BlockId) {}
}

impl Emitter<'_> {
    fn internal(&mut self, span: Span, message: impl Into<String>) {
        self.errors.push(
            Diagnostic::error(
                CodegenRule::Internal,
                format!("internal error (this is a bug): {}", message.into()),
            )
            .with_span(span),
        );
    }

    fn note_write(&mut self, reg: usize, mask: Mask) {
        self.temporaries = self.temporaries.max(reg + 1);
        if let Some(w) = self.written.get_mut(reg) {
            *w = w.or(mask);
        }
    }

    /// A register move: the written lanes of `from`, in place.
    fn mov(&mut self, from: usize, to: usize) {
        let mask = self.written.get(from).copied().unwrap_or(Mask::NONE);
        if mask.is_empty() {
            return;
        }
        let inst = Inst::unary(
            Opcode::Mov,
            Dest::new(RegType::Temporary, to as u16, mask),
            Source::new(
                RegType::Temporary,
                from as u16,
                Swizzle::IDENTITY.restricted_to(mask),
            ),
        );
        if let Ok(inst) = inst {
            self.temporaries = self.temporaries.max(from + 1);
            self.note_write(to, mask);
            self.out.push((inst, self.current));
        }
    }

    /// Emits the items of a virtual block up to its conditional test; returns the test (its
    /// virtual index) and the moves after it.
    fn emit_items(&mut self, origin: Origin) -> Option<(usize, Vec<(usize, usize)>)> {
        let vb = self.code.block_of(origin)?;
        let mut test: Option<usize> = None;
        let mut after = Vec::new();
        for item in self.alloc.block_items(self.code, vb) {
            match item {
                Item::Inst(i) => {
                    let Some(inst) = self.code.inst(i) else {
                        continue;
                    };
                    if matches!(inst, VInst::If { .. }) {
                        test = Some(i);
                        continue;
                    }
                    if test.is_some() {
                        self.internal(
                            self.code.span(i),
                            "an instruction after a block's conditional test",
                        );
                    }
                    self.current = Some(self.code.span(i));
                    let machine = self.machine(i, inst);
                    if let Some(m) = machine {
                        self.out.push((m, self.current));
                    }
                }
                Item::Move { from, to } => {
                    if test.is_some() {
                        after.push((from, to));
                    } else {
                        self.mov(from, to);
                    }
                }
            }
        }
        test.map(|t| (t, after))
    }

    /// The AGAL source for a virtual source, reading allocation `k` onwards.
    fn source(&self, i: usize, op: &VOp, k: &mut usize) -> Source {
        let mut next = || {
            let r = self.alloc.reg(i, *k);
            *k += 1;
            r as u16
        };
        match op.src {
            VSrc::Temp(_) => Source::new(RegType::Temporary, next(), op.swizzle),
            VSrc::Reg(reg, n) => Source::new(reg, n, op.swizzle),
            VSrc::Indexed {
                offset,
                index,
                lane,
            } => {
                let (reg, n) = match index {
                    IndexReg::Temp(_) => (RegType::Temporary, next()),
                    IndexReg::Reg(reg, n) => (reg, n),
                };
                Source {
                    reg: RegType::Constant,
                    address: Address::Indirect(Indirect {
                        reg,
                        index: n,
                        select: lane,
                        offset,
                    }),
                    swizzle: op.swizzle,
                }
            }
        }
    }

    /// The machine instruction for virtual instruction `i` (not a test).
    fn machine(&mut self, i: usize, inst: &VInst) -> Option<Inst> {
        let mut k = 0;
        let sources: Vec<Source> = inst
            .sources()
            .iter()
            .map(|op| self.source(i, op, &mut k))
            .collect();
        for s in &sources {
            if s.reg == RegType::Temporary {
                if let Address::Direct(n) = s.address {
                    self.temporaries = self.temporaries.max(usize::from(n) + 1);
                }
            }
            if let Address::Indirect(by) = s.address {
                if by.reg == RegType::Temporary {
                    self.temporaries = self.temporaries.max(usize::from(by.index) + 1);
                }
            }
        }
        let dest = inst.dst().map(|d| match d {
            VDst::Temp(_, mask) => {
                let r = self.alloc.reg(i, k);
                Dest::new(RegType::Temporary, r as u16, mask)
            }
            VDst::Tied { mask, .. } => {
                let r = self.alloc.reg(i, k + 1);
                Dest::new(RegType::Temporary, r as u16, mask)
            }
            VDst::Out((reg, n), mask) => Dest::new(reg, n, mask),
        });
        let built = match (*inst, dest) {
            (VInst::Alu { op, b: None, .. }, Some(d)) => {
                Inst::unary(op, d, sources[0]).map_err(|e| e.to_string())
            }
            (VInst::Alu { op, b: Some(_), .. }, Some(d)) => {
                Inst::binary(op, d, sources[0], sources[1]).map_err(|e| e.to_string())
            }
            (VInst::Tex { sampler, .. }, Some(d)) => Ok(Inst::tex(d, sources[0], sampler)),
            (VInst::Kil { .. }, _) => Ok(Inst::kil(sources[0])),
            _ => Err("a writing instruction without a destination".to_string()),
        };
        match built {
            Ok(m) => {
                if let Some(d) = m.dest() {
                    if d.reg == RegType::Temporary {
                        let lanes = d.mask.and(m.opcode().result_lanes());
                        self.note_write(usize::from(d.index), lanes);
                    }
                }
                Some(m)
            }
            Err(e) => {
                self.internal(
                    self.code.span(i),
                    format!("an unencodable instruction: {e}"),
                );
                None
            }
        }
    }

    /// Emits one arm of the `if` headed by `h` into a buffer of its own.
    fn arm(
        &mut self,
        walk: &mut Walk<'_>,
        h: BlockId,
        start: BlockId,
        merge: BlockId,
        moves: &[(usize, usize)],
    ) -> Vec<(Inst, Option<Span>)> {
        let outer = std::mem::take(&mut self.out);
        for &(from, to) in moves {
            self.mov(from, to);
        }
        if let Some((t, _)) = self.emit_items(Origin::Edge(h, start)) {
            self.internal(self.code.span(t), "a test on a split edge");
        }
        if start != merge {
            walk.region(self, start, Some(merge));
        }
        std::mem::replace(&mut self.out, outer)
    }

    /// Emits the `if` ending block `h`; returns its merge block.
    fn emit_if(
        &mut self,
        walk: &mut Walk<'_>,
        h: BlockId,
        then: BlockId,
        otherwise: BlockId,
        test: Option<(usize, Vec<(usize, usize)>)>,
    ) -> Option<BlockId> {
        let span = self.f.blocks[h].span;
        let Some(Structure::If { merge }) = self.f.blocks[h].structure else {
            self.internal(span, "a conditional branch outside a structured `if`");
            return None;
        };
        let Some((i, moves)) = test else {
            self.internal(span, "a conditional branch without its test");
            return None;
        };
        let Some(VInst::If {
            op,
            a,
            b,
            then_first,
        }) = self.code.inst(i).copied()
        else {
            return None;
        };
        let mut k = 0;
        let (a, b) = (self.source(i, &a, &mut k), self.source(i, &b, &mut k));
        let (first, second) = if then_first {
            (then, otherwise)
        } else {
            (otherwise, then)
        };
        let before = self.written;
        let mut first_code = self.arm(walk, h, first, merge, &moves);
        let after_first = self.written;
        self.written = before;
        let mut second_code = self.arm(walk, h, second, merge, &moves);
        for (w, x) in self.written.iter_mut().zip(after_first) {
            *w = w.or(x);
        }
        let mut op = op;
        if first_code.is_empty() && !second_code.is_empty() {
            op = match op {
                Opcode::Ife => Opcode::Ine,
                Opcode::Ine => Opcode::Ife,
                _ => {
                    self.internal(span, "an `ifl` whose first arm is empty");
                    return Some(merge);
                }
            };
            std::mem::swap(&mut first_code, &mut second_code);
        }
        if first_code.is_empty() {
            return Some(merge);
        }
        match Inst::condition(op, a, b) {
            Ok(t) => self.out.push((t, Some(span))),
            Err(e) => self.internal(span, e.to_string()),
        }
        self.out.extend(first_code);
        if !second_code.is_empty() {
            self.out.push((Inst::els(), Some(span)));
            self.out.extend(second_code);
        }
        self.out.push((Inst::eif(), Some(span)));
        Some(merge)
    }
}
