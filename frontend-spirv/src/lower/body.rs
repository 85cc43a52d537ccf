//! Functions, blocks and control flow.
//!
//! Each SPIR-V block becomes a MIR block; `OpPhi`s become block parameters (one per vector
//! leaf of the phi's type). A call is inlined where it stands: the calling block ends, a new
//! block opens a `Region` whose merge block continues the caller, and the callee's blocks are
//! lowered in between with its returns jumping to that merge. The entry point is lowered the
//! same way, so the program's single `Return` sits in the last block.
//!
//! Structure: `OpSelectionMerge` puts an `If` on the block that ends with the branch (the
//! last part of a SPIR-V block split by calls); `OpLoopMerge` puts a `Loop` on the block the
//! back edge enters (the first part). `OpSwitch` becomes a `Region` holding a chain of `If`s
//! that test the selector, whose cases leave the region by jumping to the switch's merge.

use mir::hash::HashMap;

use mir::func::{BlockId, Edge, Structure, Terminator};
use mir::inst::{CmpOp, Op, Operand};
use mir::{Span, Ty};
use rspirv::dr::Operand as SpvOperand;
use spirv::{Op as SpvOp, StorageClass, Word};

use super::storage::{Storage, Var};
use super::types::{Shape, shape};
use super::value::{Place, Val};
use super::{Lowerer, rule};
use crate::module::{Function, Inst};

/// One function being inlined.
pub(super) struct Frame {
    /// SPIR-V ids defined in this instance → their values.
    pub values: HashMap<Word, Val>,
    /// SPIR-V labels → MIR blocks.
    blocks: HashMap<Word, BlockId>,
    /// SPIR-V labels → the phis of the block, each with its type and its MIR parameters.
    phis: HashMap<Word, Vec<(Word, Word, Vec<mir::Value>)>>,
    /// The variable the return value goes to.
    ret: Option<usize>,
    /// Where returns jump.
    exit: BlockId,
}

impl<'m> Lowerer<'m> {
    /// Lowers the entry point: initialises private variables and outputs, inlines the
    /// entry function, and returns the outputs from the last block.
    pub(super) fn lower_entry(&mut self) {
        let module = &self.valid.module;
        let span = Span::default();
        // Private variables start at their initializer, or zero; outputs at zero, so that
        // every output has a value on every path.
        for inst in &module.globals {
            if inst.opcode() != SpvOp::Variable {
                continue;
            }
            let Some(id) = inst.result_id() else { continue };
            let Some(&var) = self.global_vars.get(&id) else {
                continue;
            };
            let is_local = matches!(
                super::interface::storage_class(inst),
                Some(StorageClass::Private | StorageClass::Output)
            );
            if !is_local {
                continue;
            }
            let initial = match inst.id_operand(1) {
                Some(init) => self.global_value(init, inst),
                None => None,
            };
            let ty = self.vars[var].ty;
            let value = match initial {
                Some(v) => Some(v),
                None => self.zero(ty, inst.span),
            };
            if let Some(value) = value {
                let place = Place {
                    var,
                    path: Vec::new(),
                };
                self.store(&place, &value, inst);
            }
        }
        let exit = self.f.new_block(span);
        if self
            .inline(self.entry.function, Vec::new(), exit, None)
            .is_none()
        {
            return;
        }
        // The program's end: read each output's local.
        let outputs: Vec<(mir::func::LocalId, u8)> = self
            .outputs
            .iter()
            .map(|(o, local)| (mir::func::LocalId::new(*local), o.lanes))
            .collect();
        let mut values = Vec::new();
        // A geometry program's outputs leave with each EmitVertex.
        let outputs = if self.geometry.is_some() {
            Vec::new()
        } else {
            outputs
        };
        for (local, lanes) in outputs {
            values.push(self.emit(Op::LoadLocal(local), Vec::new(), Ty::float(lanes), span));
        }
        self.f.blocks[self.cursor].term = Terminator::Return(values);
    }

    /// Inlines function `id` with `args` at the cursor; returns its result (a unit composite
    /// for void functions), leaving the cursor at `exit`.
    pub(super) fn inline(
        &mut self,
        id: Word,
        args: Vec<Val>,
        exit: BlockId,
        call: Option<&Inst>,
    ) -> Option<Val> {
        let module = &self.valid.module;
        let Some(function) = module.functions.iter().find(|f| f.id() == id) else {
            if let Some(call) = call {
                self.error(
                    rule::INSTRUCTION,
                    call,
                    format!("{} is not a function of the module", self.id(id)),
                );
            }
            return None;
        };
        if self.call_stack.contains(&id) {
            let chain: Vec<String> = self
                .call_stack
                .iter()
                .chain([&id])
                .map(|&f| self.id(f))
                .collect();
            match call {
                Some(call) => self.error(
                    rule::RECURSION,
                    call,
                    format!("recursion: {}", chain.join(" calls ")),
                ),
                None => self.error_at(
                    rule::RECURSION,
                    function.def.span,
                    format!("recursion: {}", chain.join(" calls ")),
                ),
            }
            return None;
        }
        self.call_stack.push(id);
        let span = call.map_or(function.def.span, |c| c.span);
        // The region: a header that jumps into the callee, and the exit.
        let header = self.f.new_block(span);
        self.f.blocks[self.cursor].term = Terminator::Jump(Edge::to(header));
        self.f.blocks[header].structure = Some(Structure::Region { merge: exit });
        self.cursor = header;
        let ret_ty = function.def.result_type().unwrap_or(0);
        let ret = match shape(self.types(), ret_ty) {
            Shape::Other => None,
            _ => {
                let storage = self.local_storage(ret_ty, "return");
                self.vars.push(Var {
                    ty: ret_ty,
                    storage,
                });
                Some(self.vars.len() - 1)
            }
        };
        let mut frame = Frame {
            values: HashMap::default(),
            blocks: HashMap::default(),
            phis: HashMap::default(),
            ret,
            exit,
        };
        for (param, arg) in function.params.iter().zip(args) {
            if let Some(pid) = param.result_id() {
                frame.values.insert(pid, arg);
            }
        }
        self.lower_body(function, &mut frame);
        self.call_stack.pop();
        self.cursor = exit;
        let Some(ret) = ret else {
            return Some(Val::Composite(Vec::new()));
        };
        let place = Place {
            var: ret,
            path: Vec::new(),
        };
        let inst = call.unwrap_or(&function.def);
        self.load(&place, inst)
    }

    fn lower_body(&mut self, function: &'m Function, frame: &mut Frame) {
        // Blocks and phi parameters first: branches may go forward.
        for b in &function.blocks {
            let block = self.f.new_block(b.label.span);
            frame.blocks.insert(b.id(), block);
            let mut phis = Vec::new();
            for inst in b.insts.iter().filter(|i| i.opcode() == SpvOp::Phi) {
                let (Some(id), Some(ty)) = (inst.result_id(), inst.result_type()) else {
                    continue;
                };
                let mut params = Vec::new();
                for leaf in self.leaf_types(ty) {
                    params.push(self.f.add_param(block, leaf));
                }
                let mut it = params.iter().map(|&p| Operand::new(p));
                if let Some(val) = self.build_from_leaves(ty, &mut it) {
                    frame.values.insert(id, val);
                }
                phis.push((id, ty, params));
            }
            frame.phis.insert(b.id(), phis);
        }
        let Some(first) = function.blocks.first() else {
            return;
        };
        let entry = frame.blocks[&first.id()];
        self.f.blocks[self.cursor].term = Terminator::Jump(Edge::to(entry));
        for b in &function.blocks {
            self.cursor = frame.blocks[&b.id()];
            let mut merge: Option<&Inst> = None;
            for inst in &b.insts {
                match inst.opcode() {
                    SpvOp::Phi => {}
                    SpvOp::SelectionMerge | SpvOp::LoopMerge => merge = Some(inst),
                    SpvOp::Variable => self.function_variable(inst, frame),
                    _ if inst.opcode() == b.terminator().opcode()
                        && std::ptr::eq(inst, b.terminator()) => {}
                    _ => self.lower_inst(inst, frame),
                }
                if !self.errors.is_empty() && self.errors.len() > 20 {
                    return;
                }
            }
            self.terminator(b.id(), b.terminator(), merge, frame);
        }
    }

    /// A function-local variable of this instance, initialised when it has an initializer.
    fn function_variable(&mut self, inst: &Inst, frame: &mut Frame) {
        let (Some(id), Some(ptr)) = (inst.result_id(), inst.result_type()) else {
            return;
        };
        let Some(crate::validate::Type::Pointer { pointee, .. }) = self.types().get(ptr).cloned()
        else {
            return;
        };
        let name = self.decor.name(id).unwrap_or("").to_string();
        let storage = self.local_storage(pointee, &name);
        if let Storage::Unsupported(reason) = &storage {
            let reason = reason.clone();
            self.error(rule::INSTRUCTION, inst, reason);
            return;
        }
        self.vars.push(Var {
            ty: pointee,
            storage,
        });
        let place = Place {
            var: self.vars.len() - 1,
            path: Vec::new(),
        };
        if let Some(init) = inst.id_operand(1) {
            if let Some(v) = self.value(init, inst, frame) {
                self.store(&place, &v, inst);
            }
        }
        frame.values.insert(id, Val::Pointer(place));
    }

    fn terminator(&mut self, label: Word, term: &Inst, merge: Option<&Inst>, frame: &mut Frame) {
        let block_of =
            |frame: &Frame, id: Option<Word>| id.and_then(|l| frame.blocks.get(&l).copied());
        match merge {
            Some(m) if m.opcode() == SpvOp::LoopMerge => {
                if let (Some(merge), Some(cont)) = (
                    block_of(frame, m.id_operand(0)),
                    block_of(frame, m.id_operand(1)),
                ) {
                    let first = frame.blocks[&label];
                    self.f.blocks[first].structure = Some(Structure::Loop { merge, cont });
                }
            }
            Some(m) if term.opcode() == SpvOp::BranchConditional => {
                if let Some(merge) = block_of(frame, m.id_operand(0)) {
                    self.f.blocks[self.cursor].structure = Some(Structure::If { merge });
                }
            }
            _ => {}
        }
        let t = match term.opcode() {
            SpvOp::Branch => match self.edge(label, term.id_operand(0), frame) {
                Some(e) => Terminator::Jump(e),
                None => return,
            },
            SpvOp::BranchConditional => {
                let Some(cond) = term
                    .id_operand(0)
                    .and_then(|c| self.value(c, term, frame))
                    .and_then(|v| v.vector())
                else {
                    return;
                };
                let (Some(then), Some(otherwise)) = (
                    self.edge(label, term.id_operand(1), frame),
                    self.edge(label, term.id_operand(2), frame),
                ) else {
                    return;
                };
                if then.target == otherwise.target && then.args == otherwise.args {
                    // A selection whose two ways are one (`OpBranchConditional %c %x %x`) is
                    // no `if`: straight code on to its target.
                    if matches!(
                        self.f.blocks[self.cursor].structure,
                        Some(Structure::If { .. })
                    ) {
                        self.f.blocks[self.cursor].structure = None;
                    }
                    Terminator::Jump(then)
                } else {
                    Terminator::Branch {
                        cond: cond.0,
                        then,
                        otherwise,
                    }
                }
            }
            SpvOp::Switch => {
                let merge = merge.and_then(|m| block_of(frame, m.id_operand(0)));
                self.switch(label, term, merge, frame);
                return;
            }
            SpvOp::Return => Terminator::Jump(Edge::to(frame.exit)),
            SpvOp::ReturnValue => {
                if let (Some(ret), Some(v)) = (
                    frame.ret,
                    term.id_operand(0).and_then(|v| self.value(v, term, frame)),
                ) {
                    self.store(
                        &Place {
                            var: ret,
                            path: Vec::new(),
                        },
                        &v,
                        term,
                    );
                }
                Terminator::Jump(Edge::to(frame.exit))
            }
            SpvOp::Kill | SpvOp::TerminateInvocation => Terminator::Discard,
            SpvOp::Unreachable => Terminator::Unreachable,
            other => {
                self.error(
                    rule::INSTRUCTION,
                    term,
                    format!("Op{other:?} is not supported"),
                );
                return;
            }
        };
        self.f.blocks[self.cursor].term = t;
    }

    /// The edge from SPIR-V block `from` to `to`, with the target's phi values.
    fn edge(&mut self, from: Word, to: Option<Word>, frame: &mut Frame) -> Option<Edge> {
        let to = to?;
        let target = *frame.blocks.get(&to)?;
        let phis = frame.phis.get(&to).cloned().unwrap_or_default();
        let mut args = Vec::new();
        for (phi_id, ty, params) in phis {
            let phi = self.find_phi(to, phi_id)?;
            let incoming = phi.op.operands.chunks(2).find_map(|pair| match pair {
                [SpvOperand::IdRef(v), SpvOperand::IdRef(p)] if *p == from => Some(*v),
                _ => None,
            })?;
            let val = self.value(incoming, phi, frame)?;
            let leaves = self.leaves(&val, ty);
            if leaves.len() != params.len() {
                self.error(
                    rule::INSTRUCTION,
                    phi,
                    "an OpPhi operand whose shape differs from the phi's",
                );
                return None;
            }
            args.extend(leaves);
        }
        Some(Edge { target, args })
    }

    fn find_phi(&self, label: Word, id: Word) -> Option<&'m Inst> {
        let module = &self.valid.module;
        module
            .functions
            .iter()
            .flat_map(|f| f.blocks.iter())
            .find(|b| b.id() == label)?
            .insts
            .iter()
            .find(|i| i.result_id() == Some(id))
    }

    /// `OpSwitch` as a region holding a chain of tests.
    fn switch(&mut self, label: Word, term: &Inst, merge: Option<BlockId>, frame: &mut Frame) {
        let span = term.span;
        let Some(merge) = merge else {
            self.error(rule::CONTROL_FLOW, term, "OpSwitch without a merge block");
            return;
        };
        let Some((selector, _)) = term
            .id_operand(0)
            .and_then(|s| self.value(s, term, frame))
            .and_then(|v| v.vector())
        else {
            return;
        };
        let Some(default) = self.edge(label, term.id_operand(1), frame) else {
            return;
        };
        // Cases grouped by target, in the order they first appear.
        let mut cases: Vec<(Word, Vec<u64>)> = Vec::new();
        for pair in term.op.operands[2..].chunks(2) {
            let (value, target) = match pair {
                [SpvOperand::LiteralBit32(v), SpvOperand::IdRef(t)] => {
                    (*v as i32 as i64 as u64, *t)
                }
                [SpvOperand::LiteralBit64(v), SpvOperand::IdRef(t)] => (*v, *t),
                _ => continue,
            };
            match cases.iter_mut().find(|(t, _)| *t == target) {
                Some((_, values)) => values.push(value),
                None => cases.push((target, vec![value])),
            }
        }
        let signed = super::types::int_signedness(
            self.types(),
            self.value_type(term.id_operand(0).unwrap_or(0)),
        );
        let header = self.cursor;
        self.f.blocks[header].structure = Some(Structure::Region { merge });
        let mut tests = self.f.new_block(span);
        self.f.blocks[header].term = Terminator::Jump(Edge::to(tests));
        for (target, values) in cases {
            let Some(then) = self.edge(label, Some(target), frame) else {
                return;
            };
            self.cursor = tests;
            let mut cond: Option<Operand> = None;
            for v in values {
                let value = if signed == Some(false) {
                    v as u32 as f32
                } else {
                    v as i64 as f32
                };
                let k = self.fconst(&[value], span);
                let c = self.emit(Op::Cmp(CmpOp::Eq), vec![selector, k], Ty::bool(1), span);
                cond = Some(match cond {
                    None => c,
                    Some(prev) => self.emit(Op::Or, vec![prev, c], Ty::bool(1), span),
                });
            }
            let Some(cond) = cond else { continue };
            let next = self.f.new_block(span);
            // Both ways leave this test: to a case (which leaves the region) or on to the next
            // test, so the `If`'s merge is never reached.
            let unreached = self.f.new_block(span);
            self.f.blocks[tests].structure = Some(Structure::If { merge: unreached });
            self.f.blocks[tests].term = Terminator::Branch {
                cond,
                then,
                otherwise: Edge::to(next),
            };
            tests = next;
        }
        self.f.blocks[tests].term = Terminator::Jump(default);
        self.cursor = tests;
    }

    /// The value of id `id` (a function-local value, a global constant, or a variable).
    pub(super) fn value(&mut self, id: Word, inst: &Inst, frame: &Frame) -> Option<Val> {
        if let Some(v) = frame.values.get(&id) {
            return Some(v.clone());
        }
        self.global_value(id, inst)
    }

    /// The value of a module-level id: a constant (lowered once, in the entry block) or a
    /// global variable's pointer.
    pub(super) fn global_value(&mut self, id: Word, inst: &Inst) -> Option<Val> {
        if let Some(&var) = self.global_vars.get(&id) {
            return Some(Val::Pointer(Place {
                var,
                path: Vec::new(),
            }));
        }
        if let Some(v) = self.constants.get(&id) {
            return Some(v.clone());
        }
        let saved = self.cursor;
        self.cursor = self.f.entry;
        let v = self.constant(id, inst);
        self.cursor = saved;
        if let Some(v) = &v {
            self.constants.insert(id, v.clone());
        }
        v
    }

    /// The type id of the value `id`.
    pub(super) fn value_type(&self, id: Word) -> Word {
        self.valid
            .defs
            .get(&id)
            .and_then(|d| d.result_type)
            .unwrap_or(0)
    }

    /// The MIR shapes of the vector leaves of `ty`.
    pub(super) fn leaf_types(&self, ty: Word) -> Vec<Ty> {
        match shape(self.types(), ty) {
            Shape::Float(n) => vec![Ty::float(n)],
            Shape::Bool(n) => vec![Ty::bool(n)],
            Shape::Matrix { cols, rows } => vec![Ty::float(rows); cols as usize],
            Shape::Array { element, len } => {
                let one = self.leaf_types(element);
                (0..len).flat_map(|_| one.clone()).collect()
            }
            Shape::Struct { members } => members.iter().flat_map(|&m| self.leaf_types(m)).collect(),
            Shape::Opaque | Shape::Other => Vec::new(),
        }
    }

    /// The vector leaves of a value, in order (undefined parts become zeros).
    pub(super) fn leaves(&mut self, val: &Val, ty: Word) -> Vec<Operand> {
        match val {
            Val::Vector { op, .. } => vec![*op],
            Val::Composite(parts) => {
                let mut out = Vec::new();
                for (i, p) in parts.iter().enumerate() {
                    let cty = self.child_type(ty, i as u32);
                    out.extend(self.leaves(p, cty));
                }
                out
            }
            Val::Pointer(_) | Val::Texture(_) | Val::Textures(..) => Vec::new(),
        }
    }

    /// Rebuilds a value of type `ty` from vector leaves.
    pub(super) fn build_from_leaves(
        &self,
        ty: Word,
        leaves: &mut dyn Iterator<Item = Operand>,
    ) -> Option<Val> {
        match shape(self.types(), ty) {
            Shape::Float(n) | Shape::Bool(n) => Some(Val::Vector {
                op: leaves.next()?,
                lanes: n,
            }),
            Shape::Matrix { cols, rows } => {
                let mut parts = Vec::new();
                for _ in 0..cols {
                    parts.push(Val::Vector {
                        op: leaves.next()?,
                        lanes: rows,
                    });
                }
                Some(Val::Composite(parts))
            }
            Shape::Array { element, len } => {
                let mut parts = Vec::new();
                for _ in 0..len {
                    parts.push(self.build_from_leaves(element, leaves)?);
                }
                Some(Val::Composite(parts))
            }
            Shape::Struct { members } => {
                let mut parts = Vec::new();
                for m in members {
                    parts.push(self.build_from_leaves(m, leaves)?);
                }
                Some(Val::Composite(parts))
            }
            Shape::Opaque | Shape::Other => None,
        }
    }

    /// Zero of type `ty` (for variables without initializer and `OpUndef`).
    pub(super) fn zero(&mut self, ty: Word, span: Span) -> Option<Val> {
        let leaves: Vec<Operand> = self
            .leaf_types(ty)
            .into_iter()
            .map(|t| self.emit(Op::Const([0; 4]), Vec::new(), t, span))
            .collect();
        self.build_from_leaves(ty, &mut leaves.into_iter())
    }
}
