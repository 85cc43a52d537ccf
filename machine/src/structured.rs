//! Structured emission: the walk over a function's regions that both back ends lay their
//! machine code out by. Neither target has jumps: an `if` is an instruction that opens a
//! block and one that closes it (the PICA200's IFC/IFU, AGAL's `ife` … `eif`), a loop the
//! PICA200's LOOP with BREAKC at its exits. So the code is emitted region by region, from
//! the structure MIR keeps on its headers, not block by block.
//!
//! [`Walk`] goes from block to block until a stop (an `if`'s merge), the enclosing loop's
//! merge (a break) or header (the back edge), or the program's end; it hands each block's
//! code, each conditional branch and each loop to the instruction set's [`Layout`], which
//! opens and closes its constructs and walks their arms and bodies with the same [`Walk`].
//! It also answers what the instruction sets ask about the structure: where an arm ends
//! ([`Walk::arm_end`]), which arms have no code ([`Walk::skip_empty`]).

use mir::func::{BlockId, Function, Structure, Terminator};

use crate::vcode::{Allocated, Item, Origin, VCode};

/// Where a walk (an arm, a loop's body) ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// At the stop it was given (an `if`'s merge).
    Merge,
    /// At the enclosing loop's header or continue block (the next iteration).
    Continue,
    /// At the enclosing loop's merge (out of the loop).
    Break,
    /// At the end of the program.
    Return,
}

/// A loop being walked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loop {
    /// Its header.
    pub header: BlockId,
    /// Where it exits to.
    pub merge: BlockId,
    /// Its continue block (the back edge's source).
    pub cont: BlockId,
}

/// What an instruction set does as the walk goes: its code for a block and its constructs.
pub trait Layout {
    /// What emitting a block's items tells the branch that ends it (AGAL: its test and the
    /// moves after it; nothing for the PICA200, whose test is a CMP in the block).
    type Items;
    /// Emits the instructions and moves of virtual block `origin`, not its terminator.
    fn items(&mut self, walk: &Walk<'_>, origin: Origin) -> Self::Items;
    /// Emits the conditional branch ending block `b` (to `then` or `otherwise`), its arms
    /// walked with `walk`; returns where the code goes on, or `None` where it cannot (the
    /// error is the instruction set's to report).
    fn branch(
        &mut self,
        walk: &mut Walk<'_>,
        b: BlockId,
        then: BlockId,
        otherwise: BlockId,
        items: Self::Items,
    ) -> Option<BlockId>;
    /// Emits the loop `l`: its body walked with `walk` (see [`Walk::body`]). The walk goes on
    /// at its merge.
    fn looped(&mut self, walk: &mut Walk<'_>, l: Loop);
    /// The program ends after block `b` (a return, a discard, an unreachable end).
    fn end(&mut self, b: BlockId);
}

/// The walk over a function's regions, with the loops it is inside.
#[derive(Debug)]
pub struct Walk<'f> {
    /// The function.
    pub f: &'f Function,
    loops: Vec<Loop>,
    /// A region went on past every block without reaching its end (a structure the MIR
    /// verifier should have refused): its code is incomplete.
    lost: bool,
}

impl<'f> Walk<'f> {
    /// A walk of `f`, outside every loop.
    pub fn new(f: &'f Function) -> Self {
        Walk {
            f,
            loops: Vec::new(),
            lost: false,
        }
    }

    /// Walks the whole function; `None` when some region never reached its end, so that
    /// the code laid out is incomplete (a bug: the instruction set reports it, rather than
    /// write a program with code missing).
    pub fn function<L: Layout>(&mut self, layout: &mut L) -> Option<Exit> {
        let exit = self.region(layout, self.f.entry, None);
        (!self.lost).then_some(exit)
    }

    /// The innermost loop being walked.
    pub fn innermost(&self) -> Option<Loop> {
        self.loops.last().copied()
    }

    /// How many loops are being walked.
    pub fn depth(&self) -> usize {
        self.loops.len()
    }

    /// Walks from block `b` on until reaching `stop` (exclusive), the enclosing loop's merge
    /// or header, or the end of the program.
    pub fn region<L: Layout>(
        &mut self,
        layout: &mut L,
        mut b: BlockId,
        stop: Option<BlockId>,
    ) -> Exit {
        // Each block is walked once per region: a bound on a malformed structure.
        for _ in 0..=self.f.blocks.len() {
            if Some(b) == stop {
                return Exit::Merge;
            }
            if let Some(l) = self.innermost() {
                if b == l.merge {
                    return Exit::Break;
                }
                if b == l.header {
                    return Exit::Continue;
                }
            }
            if let Some(Structure::Loop { merge, cont }) = self.f.blocks[b].structure {
                layout.looped(
                    self,
                    Loop {
                        header: b,
                        merge,
                        cont,
                    },
                );
                b = merge;
                continue;
            }
            match self.block(layout, b) {
                Some(next) => b = next,
                None => return Exit::Return,
            }
        }
        self.lost = true;
        Exit::Return
    }

    /// Walks block `b` and its terminator; returns where the code goes on (`None` after the
    /// program's end).
    pub fn block<L: Layout>(&mut self, layout: &mut L, b: BlockId) -> Option<BlockId> {
        let items = layout.items(self, Origin::Block(b));
        match &self.f.blocks[b].term {
            Terminator::Jump(e) => Some(e.target),
            Terminator::Branch {
                then, otherwise, ..
            } => {
                let (then, otherwise) = (then.target, otherwise.target);
                layout.branch(self, b, then, otherwise, items)
            }
            Terminator::Return(_) | Terminator::Discard | Terminator::Unreachable => {
                layout.end(b);
                None
            }
        }
    }

    /// Walks the body of loop `l`: its header, then on from where the header goes, until
    /// the back edge or an exit; how the top level of the body ended.
    pub fn body<L: Layout>(&mut self, layout: &mut L, l: Loop) -> Exit {
        self.loops.push(l);
        let exit = match self.block(layout, l.header) {
            Some(next) => self.region(layout, next, None),
            None => Exit::Return,
        };
        self.loops.pop();
        exit
    }

    /// Walks the body of loop `l` from block `start` (past its header, which the
    /// instruction set lays out itself: a loop tested at its top turned into one tested at
    /// its end), until the back edge or an exit; how the top level of the body ended.
    pub fn body_from<L: Layout>(&mut self, layout: &mut L, l: Loop, start: BlockId) -> Exit {
        self.loops.push(l);
        let exit = self.region(layout, start, None);
        self.loops.pop();
        exit
    }

    /// Where an arm starting at `start` goes, for an `if` merging at `merge` (following
    /// nested constructs to their merges, without emitting anything).
    pub fn arm_end(&self, start: BlockId, merge: BlockId) -> Exit {
        let mut b = start;
        for _ in 0..self.f.blocks.len() + 1 {
            if b == merge {
                return Exit::Merge;
            }
            if let Some(l) = self.innermost() {
                if b == l.cont || b == l.header {
                    return Exit::Continue;
                }
                if b == l.merge {
                    return Exit::Break;
                }
            }
            b = match self.f.blocks[b].structure {
                Some(Structure::If { merge } | Structure::Loop { merge, .. }) => merge,
                _ => match &self.f.blocks[b].term {
                    Terminator::Jump(e) => e.target,
                    Terminator::Branch { then, .. } => then.target,
                    _ => return Exit::Return,
                },
            };
        }
        Exit::Return
    }

    /// `to`, or `merge` when the edge `from` → `to` and the blocks after it only jump on to
    /// `merge` with no code of their own (an empty arm, or an empty `then { break; }` with
    /// the loop's merge).
    pub fn skip_empty<I>(
        &self,
        code: &VCode<I>,
        alloc: &Allocated,
        from: BlockId,
        to: BlockId,
        merge: BlockId,
    ) -> BlockId {
        if has_code(code, alloc, Origin::Edge(from, to)) {
            return to;
        }
        let mut b = to;
        for _ in 0..self.f.blocks.len() {
            if b == merge {
                return merge;
            }
            let block = &self.f.blocks[b];
            match &block.term {
                Terminator::Jump(e)
                    if block.structure.is_none()
                        && block.params.is_empty()
                        && !has_code(code, alloc, Origin::Block(b)) =>
                {
                    b = e.target
                }
                _ => return to,
            }
        }
        to
    }
}

/// Whether virtual block `origin` (a MIR block, or a split edge) has code once allocated:
/// an instruction other than its terminator, or a register move.
pub fn has_code<I>(code: &VCode<I>, alloc: &Allocated, origin: Origin) -> bool {
    code.block_of(origin).is_some_and(|vb| {
        alloc.block_items(code, vb).iter().any(|i| match i {
            Item::Move { .. } => true,
            Item::Inst(k) => code.inst(*k).is_some(),
        })
    })
}

/// Whether allocation put a register move in virtual block `origin`.
pub fn has_moves<I>(code: &VCode<I>, alloc: &Allocated, origin: Origin) -> bool {
    code.block_of(origin).is_some_and(|vb| {
        alloc
            .block_items(code, vb)
            .iter()
            .any(|i| matches!(i, Item::Move { .. }))
    })
}
