//! Functions: SSA values, instructions, and blocks with parameters instead of phis.
//!
//! The blocks form a plain CFG (each ends in a [`Terminator`]); header blocks also carry a
//! [`Structure`], the structured region SPIR-V declared for them (an `if` with its merge block,
//! a loop with its merge block and continue target). Both PICA200 flow control and AGAL 2
//! `ife/els/eif` are structured, and AGAL 1's if-conversion and loop unrolling need to know the
//! regions, so they are kept rather than rediscovered.

use crate::arena::{Arena, Handle};
use crate::inst::{Inst, Op, Operand};
use crate::span::Span;
use crate::types::Ty;

/// An SSA value.
pub type Value = Handle<ValueData>;
/// A block.
pub type BlockId = Handle<Block>;
/// An instruction.
pub type InstId = Handle<Inst>;
/// A function-local variable (before mem2reg).
pub type LocalId = Handle<Local>;

/// A value's shape and where it is defined.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueData {
    /// Its shape.
    pub ty: Ty,
    /// Its definition.
    pub def: ValueDef,
}

/// Where a value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueDef {
    /// Result `index` of an instruction.
    Inst(InstId, u32),
    /// Parameter `index` of a block.
    Param(BlockId, u32),
}

/// A function-local variable: a slot that holds one value of shape `ty` until mem2reg turns
/// its loads and stores into SSA values.
#[derive(Clone, Debug, PartialEq)]
pub struct Local {
    /// Its shape.
    pub ty: Ty,
    /// The source name, for the printer.
    pub name: String,
}

/// A control-flow edge with the values passed to the target's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    /// The block jumped to.
    pub target: BlockId,
    /// One operand per parameter of the target.
    pub args: Vec<Operand>,
}

impl Edge {
    /// An edge to `target` with no arguments.
    pub fn to(target: BlockId) -> Edge {
        Edge {
            target,
            args: Vec::new(),
        }
    }
}

/// How a block ends.
#[derive(Clone, Debug, PartialEq)]
pub enum Terminator {
    /// Continue at another block.
    Jump(Edge),
    /// Two-way branch on a bool scalar.
    Branch {
        /// The condition.
        cond: Operand,
        /// Taken when the condition is true.
        then: Edge,
        /// Taken when it is false.
        otherwise: Edge,
    },
    /// The end of the program: one operand per output of the module, in its output order.
    /// Lowering leaves exactly one, in the last block, so every output is written once.
    Return(Vec<Operand>),
    /// Discard the fragment.
    Discard,
    /// Never reached.
    Unreachable,
}

impl Terminator {
    /// The edges out of the block.
    pub fn edges(&self) -> Vec<&Edge> {
        match self {
            Terminator::Jump(e) => vec![e],
            Terminator::Branch {
                then, otherwise, ..
            } => vec![then, otherwise],
            _ => Vec::new(),
        }
    }

    /// The edges out of the block, mutably.
    pub fn edges_mut(&mut self) -> Vec<&mut Edge> {
        match self {
            Terminator::Jump(e) => vec![e],
            Terminator::Branch {
                then, otherwise, ..
            } => vec![then, otherwise],
            _ => Vec::new(),
        }
    }

    /// The blocks the block can continue at.
    pub fn successors(&self) -> Vec<BlockId> {
        self.edges().iter().map(|e| e.target).collect()
    }

    /// Every operand the terminator reads.
    pub fn operands(&self) -> Vec<&Operand> {
        match self {
            Terminator::Jump(e) => e.args.iter().collect(),
            Terminator::Branch {
                cond,
                then,
                otherwise,
            } => std::iter::once(cond)
                .chain(then.args.iter())
                .chain(otherwise.args.iter())
                .collect(),
            Terminator::Return(values) => values.iter().collect(),
            Terminator::Discard | Terminator::Unreachable => Vec::new(),
        }
    }

    /// Every operand the terminator reads, mutably.
    pub fn operands_mut(&mut self) -> Vec<&mut Operand> {
        match self {
            Terminator::Jump(e) => e.args.iter_mut().collect(),
            Terminator::Branch {
                cond,
                then,
                otherwise,
            } => std::iter::once(cond)
                .chain(then.args.iter_mut())
                .chain(otherwise.args.iter_mut())
                .collect(),
            Terminator::Return(values) => values.iter_mut().collect(),
            Terminator::Discard | Terminator::Unreachable => Vec::new(),
        }
    }
}

/// The structured region a header block opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Structure {
    /// A selection: both paths of the header's branch meet at `merge`.
    If {
        /// Where the paths meet.
        merge: BlockId,
    },
    /// A loop: the header is re-entered from `cont`; `merge` follows the loop.
    Loop {
        /// The block after the loop.
        merge: BlockId,
        /// The continue target (its back edge returns to the header).
        cont: BlockId,
    },
    /// A region any block inside may leave by jumping to `merge`: an inlined function's body
    /// (its returns) or a switch (its breaks). The `exits` pass rewrites such jumps into
    /// structured form and removes the region.
    Region {
        /// Where the region's exits go.
        merge: BlockId,
    },
}

/// A basic block.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// Its parameters (what a phi would be).
    pub params: Vec<Value>,
    /// Its instructions, in order.
    pub insts: Vec<InstId>,
    /// How it ends.
    pub term: Terminator,
    /// The region it opens, if it is a header.
    pub structure: Option<Structure>,
    /// Where its label came from.
    pub span: Span,
}

/// A function.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// Its name, for the printer.
    pub name: String,
    /// Every value (some may be dead after passes).
    pub values: Arena<ValueData>,
    /// Every instruction (only those listed in a block are live).
    pub insts: Arena<Inst>,
    /// Every block (only those in `layout` are live).
    pub blocks: Arena<Block>,
    /// Function-local variables.
    pub locals: Arena<Local>,
    /// The entry block; its parameters are the function's parameters.
    pub entry: BlockId,
    /// The live blocks in program order; the entry first, and every block after its
    /// dominators.
    pub layout: Vec<BlockId>,
}

impl Function {
    /// A function with one empty entry block.
    pub fn new(name: impl Into<String>) -> Self {
        let mut f = Function {
            name: name.into(),
            values: Arena::new(),
            insts: Arena::new(),
            blocks: Arena::new(),
            locals: Arena::new(),
            entry: Handle::new(0),
            layout: Vec::new(),
        };
        f.entry = f.new_block(Span::default());
        f
    }

    /// Adds an empty block (ending in `Unreachable` until a terminator is set) at the end of
    /// the layout.
    pub fn new_block(&mut self, span: Span) -> BlockId {
        let id = self.blocks.push(Block {
            params: Vec::new(),
            insts: Vec::new(),
            term: Terminator::Unreachable,
            structure: None,
            span,
        });
        self.layout.push(id);
        id
    }

    /// Splits `block` before its instruction `at`: a new block (last in the layout) takes
    /// the instructions from `at` on, the terminator, and an `if` or region annotation (which
    /// belongs with the branch); a loop annotation stays, as the back edge still targets
    /// `block`. `block` then ends in a jump to the new block, which is returned.
    pub fn split_block(&mut self, block: BlockId, at: usize) -> BlockId {
        let span = self.blocks[block].span;
        let tail = self.new_block(span);
        let insts = self.blocks[block].insts.split_off(at);
        self.blocks[tail].insts = insts;
        let term = std::mem::replace(
            &mut self.blocks[block].term,
            Terminator::Jump(Edge::to(tail)),
        );
        self.blocks[tail].term = term;
        if matches!(
            self.blocks[block].structure,
            Some(Structure::If { .. } | Structure::Region { .. })
        ) {
            self.blocks[tail].structure = self.blocks[block].structure.take();
        }
        tail
    }

    /// Adds a parameter of shape `ty` to `block`.
    pub fn add_param(&mut self, block: BlockId, ty: Ty) -> Value {
        let index = self.blocks[block].params.len() as u32;
        let v = self.values.push(ValueData {
            ty,
            def: ValueDef::Param(block, index),
        });
        self.blocks[block].params.push(v);
        v
    }

    /// Adds a local variable.
    pub fn add_local(&mut self, ty: Ty, name: impl Into<String>) -> LocalId {
        self.locals.push(Local {
            ty,
            name: name.into(),
        })
    }

    /// Creates an instruction (not yet in any block) with results of the given shapes.
    pub fn create_inst(
        &mut self,
        op: Op,
        args: Vec<Operand>,
        results: &[Ty],
        span: Span,
    ) -> InstId {
        let id = self.insts.push(Inst {
            op,
            args,
            results: Vec::new(),
            span,
        });
        let values: Vec<Value> = results
            .iter()
            .enumerate()
            .map(|(i, &ty)| {
                self.values.push(ValueData {
                    ty,
                    def: ValueDef::Inst(id, i as u32),
                })
            })
            .collect();
        self.insts[id].results = values;
        id
    }

    /// Appends an instruction to `block` and returns it.
    pub fn push(
        &mut self,
        block: BlockId,
        op: Op,
        args: Vec<Operand>,
        results: &[Ty],
        span: Span,
    ) -> InstId {
        let id = self.create_inst(op, args, results, span);
        self.blocks[block].insts.push(id);
        id
    }

    /// Appends a one-result instruction to `block` and returns its value.
    pub fn ins(&mut self, block: BlockId, op: Op, args: Vec<Operand>, ty: Ty, span: Span) -> Value {
        let id = self.push(block, op, args, &[ty], span);
        self.insts[id].results[0]
    }

    /// The shape of a value.
    pub fn ty(&self, value: Value) -> Ty {
        self.values[value].ty
    }

    /// The instruction defining `value`, if an instruction does.
    pub fn def_inst(&self, value: Value) -> Option<&Inst> {
        match self.values[value].def {
            ValueDef::Inst(id, _) => Some(&self.insts[id]),
            ValueDef::Param(..) => None,
        }
    }

    /// The predecessors of every live block (indexed by block handle), each listed once per
    /// edge.
    pub fn predecessors(&self) -> Vec<Vec<BlockId>> {
        let mut preds = vec![Vec::new(); self.blocks.len()];
        for &b in &self.layout {
            for s in self.blocks[b].term.successors() {
                preds[s.index()].push(b);
            }
        }
        preds
    }

    /// Applies `f` to every operand of every live instruction and terminator.
    pub fn for_each_operand_mut(&mut self, mut f: impl FnMut(&mut Operand)) {
        for &b in &self.layout {
            for &i in &self.blocks[b].insts {
                for a in &mut self.insts[i].args {
                    f(a);
                }
            }
            for a in self.blocks[b].term.operands_mut() {
                f(a);
            }
        }
    }

    /// Replaces every use of `old` with `new`, composing swizzles and modifiers: a use
    /// `old.yx` of `old = new'.zw` becomes `new'.wz`.
    pub fn replace_uses(&mut self, old: Value, new: Operand) {
        self.for_each_operand_mut(|op| {
            if op.value == old {
                *op = compose(new, *op);
            }
        });
    }

    /// Replaces the uses of every value in `map` at once (one walk over the function, where
    /// calling [`Function::replace_uses`] per value would walk it once each). A replacement
    /// that is itself replaced is followed.
    pub fn replace_uses_all(&mut self, map: &crate::hash::HashMap<Value, Operand>) {
        if map.is_empty() {
            return;
        }
        self.for_each_operand_mut(|op| {
            // Chains are short (a pass maps a value to a new one, rarely to another key);
            // the bound only guards against a cycle.
            for _ in 0..map.len() {
                match map.get(&op.value) {
                    Some(new) => *op = compose(*new, *op),
                    None => break,
                }
            }
        });
    }

    /// How many times each value is read, by instructions and terminators.
    pub fn use_counts(&self) -> crate::hash::HashMap<Value, usize> {
        let mut uses = crate::hash::HashMap::default();
        for &b in &self.layout {
            for &i in &self.blocks[b].insts {
                for a in &self.insts[i].args {
                    *uses.entry(a.value).or_default() += 1;
                }
            }
            for a in self.blocks[b].term.operands() {
                *uses.entry(a.value).or_default() += 1;
            }
        }
        uses
    }

    /// Number of live instructions.
    pub fn inst_count(&self) -> usize {
        self.layout
            .iter()
            .map(|&b| self.blocks[b].insts.len())
            .sum()
    }
}

/// `outer` read through `inner`: `outer` uses a value that is `inner` (a swizzled, modified
/// read of another value); the result reads that other value directly.
pub fn compose(inner: Operand, outer: Operand) -> Operand {
    // -|x| over -|y|: abs of a negated value is abs of the value.
    let (neg, abs) = if outer.abs {
        (outer.neg, true)
    } else {
        (outer.neg ^ inner.neg, inner.abs)
    };
    Operand {
        value: inner.value,
        swizzle: inner.swizzle.then(outer.swizzle),
        neg,
        abs,
    }
}

/// Replacements a pass decides while walking the function: each instruction is brought up
/// to date as the walk reaches it ([`Replacements::apply`]) and everything else at the end
/// ([`Replacements::finish`]). That is what calling [`Function::replace_uses`] at once
/// would give, for one walk over the function instead of one per replaced value.
#[derive(Debug, Default)]
pub struct Replacements {
    map: crate::hash::HashMap<Value, Operand>,
}

impl Replacements {
    /// The operand `op` reads once the replacements so far are made.
    pub fn resolve(&self, mut op: Operand) -> Operand {
        // Chains are short; the bound only guards against a cycle.
        for _ in 0..=self.map.len() {
            match self.map.get(&op.value) {
                Some(&new) => op = compose(new, op),
                None => break,
            }
        }
        op
    }

    /// Replaces every use of `old` with `new` (composing swizzles and modifiers). A
    /// replacement that would make `old` read itself is dropped; returns whether it was kept.
    pub fn insert(&mut self, old: Value, new: Operand) -> bool {
        let new = self.resolve(new);
        if new.value == old {
            return false;
        }
        self.map.insert(old, new);
        true
    }

    /// Whether nothing is to be replaced.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Brings the operands of instruction `i` up to date.
    pub fn apply(&self, f: &mut Function, i: InstId) {
        if self.map.is_empty() {
            return;
        }
        for a in &mut f.insts[i].args {
            *a = self.resolve(*a);
        }
    }

    /// Makes every replacement everywhere. Returns whether there was any.
    pub fn finish(self, f: &mut Function) -> bool {
        if self.map.is_empty() {
            return false;
        }
        f.for_each_operand_mut(|a| *a = self.resolve(*a));
        true
    }
}
