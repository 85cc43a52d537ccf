//! Variables and what loads and stores through pointers do.
//!
//! A variable is a tree ([`Storage`]) that mirrors its type down to scalars and vectors: the
//! leaves are MIR locals (function, private and output variables), inputs, or nothing at all
//! for uniforms, whose leaves are found by walking the type with the std140 offsets. A load
//! or store follows the pointer's path down the tree. A computed index picks among the
//! elements with a chain of selects (loads) or rewrites each element conditionally (stores);
//! into a uniform array it becomes a register offset (`LoadUniform` with an index operand),
//! which both targets can address.

use mir::func::LocalId;
use mir::inst::{CmpOp, Op, Operand};
use mir::module::InputId;
use mir::{Span, Swizzle, Ty};
use spirv::{BuiltIn, Decoration, Word};

use super::types::{Shape, shape};
use super::value::{Index, Place, TextureRef, Val};
use super::{Lowerer, rule};
use crate::module::Inst;

/// A variable: its pointee type and its storage tree.
pub struct Var {
    /// The type it holds.
    pub ty: Word,
    /// Where its parts live.
    pub storage: Storage,
}

/// How a uniform's bytes map to registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UniformLayout {
    /// A block member: std140 offsets, strides and matrix layouts from the decorations.
    Std140,
    /// A loose (OpenGL-style) uniform: one register per location, matrices by column.
    Loose,
}

/// Where the parts of a variable live.
#[derive(Clone, Debug)]
pub enum Storage {
    /// A scalar or vector held in a MIR local.
    Local(LocalId),
    /// Members, elements or columns.
    Tree(Vec<Storage>),
    /// A vector read from an input.
    Input(InputId),
    /// A built-in input (none is available on these targets; reading one is an error).
    BuiltinInput(BuiltIn),
    /// A uniform starting at `register`.
    Uniform {
        /// First register.
        register: u32,
        /// How its parts are laid out.
        layout: UniformLayout,
    },
    /// A loose bool uniform in a bool register.
    BoolUniform(u32),
    /// A texture handle.
    Texture(TextureRef),
    /// Something the targets cannot hold; touching it is an error with this reason.
    Unsupported(String),
}

impl Lowerer<'_> {
    /// Loads the value `place` points to.
    pub(super) fn load(&mut self, place: &Place, inst: &Inst) -> Option<Val> {
        let var = &self.vars[place.var];
        let (storage, ty) = (var.storage.clone(), var.ty);
        match storage {
            Storage::Uniform { register, layout } => {
                self.load_uniform(register * 16, None, layout, ty, None, &place.path, inst)
            }
            Storage::Texture(t) => Some(Val::Texture(t)),
            _ => self.load_tree(&storage, ty, &place.path, inst),
        }
    }

    fn load_tree(
        &mut self,
        storage: &Storage,
        ty: Word,
        path: &[Index],
        inst: &Inst,
    ) -> Option<Val> {
        let span = inst.span;
        match storage {
            Storage::Local(local) => {
                let lty = self.f.locals[*local].ty;
                let v = self.emit(Op::LoadLocal(*local), Vec::new(), lty, span);
                self.component(v, lty.lanes, path, inst)
            }
            Storage::Input(input) => {
                let lanes = self.inputs[*input].lanes;
                let v = self.emit(Op::LoadInput(*input), Vec::new(), Ty::float(lanes), span);
                self.component(v, lanes, path, inst)
            }
            Storage::BoolUniform(register) => {
                let v = self.emit(
                    Op::LoadBoolUniform {
                        register: *register,
                    },
                    Vec::new(),
                    Ty::bool(1),
                    span,
                );
                Some(Val::Vector { op: v, lanes: 1 })
            }
            // The instance number: AGAL 3's `iid` (the back ends say where it is missing).
            Storage::BuiltinInput(BuiltIn::InstanceIndex) => {
                let v = self.emit(Op::InstanceIndex, Vec::new(), Ty::float(1), span);
                self.component(v, 1, path, inst)
            }
            // The window position: AGAL computes it from a varying its vertex program passes.
            Storage::BuiltinInput(BuiltIn::FragCoord) => {
                let v = self.emit(Op::FragCoord, Vec::new(), Ty::float(4), span);
                self.component(v, 4, path, inst)
            }
            Storage::BuiltinInput(b) => {
                self.error(
                    rule::INTERFACE,
                    inst,
                    format!("the built-in input {b:?} is read, but neither target provides it"),
                );
                None
            }
            Storage::Unsupported(reason) => {
                let reason = reason.clone();
                self.error(rule::INTERFACE, inst, reason);
                None
            }
            Storage::Texture(t) => Some(Val::Texture(*t)),
            Storage::Uniform { register, layout } => {
                self.load_uniform(register * 16, None, *layout, ty, None, path, inst)
            }
            Storage::Tree(children) => match path.split_first() {
                None => {
                    let mut parts = Vec::with_capacity(children.len());
                    for (i, child) in children.iter().enumerate() {
                        let cty = self.child_type(ty, i as u32);
                        parts.push(self.load_tree(child, cty, &[], inst)?);
                    }
                    Some(Val::Composite(parts))
                }
                Some((Index::Const(i), rest)) => {
                    let child = children.get(*i as usize)?;
                    let cty = self.child_type(ty, *i);
                    self.load_tree(child, cty, rest, inst)
                }
                Some((Index::Dynamic(index), _))
                    if children.iter().all(|c| matches!(c, Storage::Texture(_))) =>
                {
                    let refs = children
                        .iter()
                        .filter_map(|c| match c {
                            Storage::Texture(t) => Some(*t),
                            _ => None,
                        })
                        .collect();
                    Some(Val::Textures(refs, *index))
                }
                Some((Index::Dynamic(index), rest)) => {
                    // Load every element and select the one the index names.
                    let mut vals = Vec::with_capacity(children.len());
                    for (i, child) in children.iter().enumerate() {
                        let cty = self.child_type(ty, i as u32);
                        vals.push(self.load_tree(child, cty, rest, inst)?);
                    }
                    self.select_by_index(*index, vals, span)
                }
            },
        }
    }

    /// Lanes of a loaded vector picked by the rest of a path (a component index).
    fn component(&mut self, v: Operand, lanes: u8, path: &[Index], inst: &Inst) -> Option<Val> {
        match path {
            [] => Some(Val::Vector { op: v, lanes }),
            [Index::Const(c)] => Some(Val::Vector {
                op: v.reswizzled(Swizzle::splat(*c as u8)),
                lanes: 1,
            }),
            [Index::Dynamic(index)] => {
                let vals = (0..lanes)
                    .map(|c| Val::Vector {
                        op: v.reswizzled(Swizzle::splat(c)),
                        lanes: 1,
                    })
                    .collect();
                self.select_by_index(*index, vals, inst.span)
            }
            _ => {
                self.error(
                    rule::INSTRUCTION,
                    inst,
                    "an access chain goes deeper than a vector component",
                );
                None
            }
        }
    }

    /// `vals[index]` as a chain of selects: `index == 0 ? v0 : index == 1 ? v1 : ...`.
    pub(super) fn select_by_index(
        &mut self,
        index: Operand,
        vals: Vec<Val>,
        span: Span,
    ) -> Option<Val> {
        let mut iter = vals.into_iter().enumerate().rev();
        let (_, mut acc) = iter.next()?;
        for (i, v) in iter {
            let k = self.fconst(&[i as f32], span);
            let cond = self.emit(Op::Cmp(CmpOp::Eq), vec![index, k], Ty::bool(1), span);
            acc = self.select_val(cond, &v, &acc, span)?;
        }
        Some(acc)
    }

    /// `cond ? a : b` for any value shape.
    pub(super) fn select_val(
        &mut self,
        cond: Operand,
        a: &Val,
        b: &Val,
        span: Span,
    ) -> Option<Val> {
        match (a, b) {
            (Val::Vector { op: x, lanes }, Val::Vector { op: y, .. }) => {
                let kind = self.f.ty(x.value).kind;
                let ty = Ty {
                    kind,
                    lanes: *lanes,
                };
                let op = self.emit(Op::Select, vec![cond, *x, *y], ty, span);
                Some(Val::Vector { op, lanes: *lanes })
            }
            (Val::Composite(xs), Val::Composite(ys)) if xs.len() == ys.len() => {
                let mut parts = Vec::with_capacity(xs.len());
                for (x, y) in xs.iter().zip(ys) {
                    parts.push(self.select_val(cond, x, y, span)?);
                }
                Some(Val::Composite(parts))
            }
            _ => None,
        }
    }

    /// The type of member/element/column `i` of `ty`.
    pub(super) fn child_type(&self, ty: Word, i: u32) -> Word {
        match self.types().get(ty) {
            Some(crate::validate::Type::Struct { members }) => {
                members.get(i as usize).copied().unwrap_or(0)
            }
            Some(crate::validate::Type::Array { element, .. }) => *element,
            Some(crate::validate::Type::Matrix { column, .. }) => *column,
            Some(crate::validate::Type::Vector { component, .. }) => *component,
            _ => 0,
        }
    }

    /// Loads a uniform of type `ty` at byte `offset` (plus a computed register index),
    /// following `path`.
    #[allow(clippy::too_many_arguments)]
    fn load_uniform(
        &mut self,
        offset: u32,
        dynamic: Option<Operand>,
        layout: UniformLayout,
        ty: Word,
        member_of: Option<(Word, u32)>,
        path: &[Index],
        inst: &Inst,
    ) -> Option<Val> {
        let span = inst.span;
        let sh = shape(self.types(), ty);
        match (sh, path.split_first()) {
            (Shape::Float(lanes), None) => {
                let bytes: Vec<u32> = (0..u32::from(lanes)).map(|l| offset + 4 * l).collect();
                Some(Val::Vector {
                    op: self.uniform_lanes(&bytes, dynamic, span),
                    lanes,
                })
            }
            (Shape::Float(lanes), Some((index, []))) => {
                let Val::Vector { op: v, .. } =
                    self.load_uniform(offset, dynamic, layout, ty, member_of, &[], inst)?
                else {
                    return None;
                };
                match index {
                    Index::Const(c) => Some(Val::Vector {
                        op: v.reswizzled(Swizzle::splat(*c as u8)),
                        lanes: 1,
                    }),
                    Index::Dynamic(i) => {
                        let vals = (0..lanes)
                            .map(|c| Val::Vector {
                                op: v.reswizzled(Swizzle::splat(c)),
                                lanes: 1,
                            })
                            .collect();
                        self.select_by_index(*i, vals, span)
                    }
                }
            }
            (Shape::Bool(_), _) => {
                self.error(
                    rule::INTERFACE,
                    inst,
                    "a bool in a uniform block (it arrives as a uint; declare it as one)",
                );
                None
            }
            (Shape::Matrix { cols, rows }, _) => {
                let (stride, row_major) = match layout {
                    UniformLayout::Std140 => self.matrix_layout(member_of),
                    UniformLayout::Loose => (16, false),
                };
                // Every element where the block's Offset, MatrixStride and RowMajor put it:
                // std140, std430 (a mat2's columns share a register) and scalar layouts.
                let column = |l: &mut Self, c: u32| -> Option<Operand> {
                    let bytes: Vec<u32> = (0..rows as u32)
                        .map(|r| {
                            if row_major {
                                offset + r * stride + 4 * c
                            } else {
                                offset + c * stride + 4 * r
                            }
                        })
                        .collect();
                    Some(l.uniform_lanes(&bytes, dynamic, span))
                };
                match path.split_first() {
                    None => {
                        let mut cols_v = Vec::new();
                        for c in 0..cols as u32 {
                            cols_v.push(Val::Vector {
                                op: column(self, c)?,
                                lanes: rows,
                            });
                        }
                        Some(Val::Composite(cols_v))
                    }
                    Some((Index::Const(c), rest)) => {
                        let col = column(self, *c)?;
                        self.component(col, rows, rest, inst)
                    }
                    Some((Index::Dynamic(i), rest)) => {
                        let mut vals = Vec::new();
                        for c in 0..cols as u32 {
                            let col = column(self, c)?;
                            vals.push(self.component(col, rows, rest, inst)?);
                        }
                        self.select_by_index(*i, vals, span)
                    }
                }
            }
            // The matrix decorations of the member holding the array apply to its elements.
            (Shape::Array { element, len }, _) => {
                let stride = match layout {
                    UniformLayout::Std140 => self
                        .decor
                        .literal(ty, None, Decoration::ArrayStride)
                        .unwrap_or(16),
                    UniformLayout::Loose => self.locations(element) * 16,
                };
                match path.split_first() {
                    None => {
                        let mut parts = Vec::new();
                        for i in 0..len {
                            parts.push(self.load_uniform(
                                offset + i * stride,
                                dynamic,
                                layout,
                                element,
                                member_of,
                                &[],
                                inst,
                            )?);
                        }
                        Some(Val::Composite(parts))
                    }
                    Some((Index::Const(i), rest)) => self.load_uniform(
                        offset + i * stride,
                        dynamic,
                        layout,
                        element,
                        member_of,
                        rest,
                        inst,
                    ),
                    Some((Index::Dynamic(i), rest)) => {
                        if stride % 16 != 0 {
                            self.error(
                                rule::INTERFACE,
                                inst,
                                format!("a computed index into a uniform array whose stride ({stride} bytes) is not whole registers"),
                            );
                            return None;
                        }
                        let k = stride / 16;
                        let scaled = if k == 1 {
                            *i
                        } else {
                            let kc = self.fconst(&[k as f32], span);
                            self.emit(Op::Mul, vec![*i, kc], Ty::float(1), span)
                        };
                        let total = match dynamic {
                            None => scaled,
                            Some(d) => self.emit(Op::Add, vec![d, scaled], Ty::float(1), span),
                        };
                        self.load_uniform(
                            offset,
                            Some(total),
                            layout,
                            element,
                            member_of,
                            rest,
                            inst,
                        )
                    }
                }
            }
            (Shape::Struct { members }, _) => {
                let member_offset = |l: &Self, m: u32| match layout {
                    UniformLayout::Std140 => l
                        .decor
                        .literal(ty, Some(m), Decoration::Offset)
                        .unwrap_or(0),
                    UniformLayout::Loose => {
                        members[..m as usize]
                            .iter()
                            .map(|&p| l.locations(p))
                            .sum::<u32>()
                            * 16
                    }
                };
                match path.split_first() {
                    None => {
                        let mut parts = Vec::new();
                        for (m, &mty) in members.iter().enumerate() {
                            let o = member_offset(self, m as u32);
                            parts.push(self.load_uniform(
                                offset + o,
                                dynamic,
                                layout,
                                mty,
                                Some((ty, m as u32)),
                                &[],
                                inst,
                            )?);
                        }
                        Some(Val::Composite(parts))
                    }
                    Some((Index::Const(m), rest)) => {
                        let mty = *members.get(*m as usize)?;
                        let o = member_offset(self, *m);
                        self.load_uniform(
                            offset + o,
                            dynamic,
                            layout,
                            mty,
                            Some((ty, *m)),
                            rest,
                            inst,
                        )
                    }
                    Some((Index::Dynamic(_), _)) => {
                        self.error(rule::INSTRUCTION, inst, "a computed index into a structure");
                        None
                    }
                }
            }
            _ => {
                self.error(
                    rule::INTERFACE,
                    inst,
                    "a uniform of a type lowering does not take",
                );
                None
            }
        }
    }

    /// The float lanes at byte offsets `bytes` of the uniform space (relative to a computed
    /// register index `dynamic`, when given): one register's swizzle when they share a
    /// register, else a vector built lane by lane from the registers they straddle.
    fn uniform_lanes(&mut self, bytes: &[u32], dynamic: Option<Operand>, span: Span) -> Operand {
        let lane = |b: u32| ((b % 16) / 4) as u8;
        let first = bytes[0] / 16;
        if bytes.iter().all(|&b| b / 16 == first) {
            let v = self.uniform_register(first, dynamic, span);
            let mut sw = [lane(bytes[0]); 4];
            for (k, &b) in bytes.iter().enumerate().take(4) {
                sw[k] = lane(b);
            }
            for k in bytes.len()..4 {
                sw[k] = sw[bytes.len() - 1];
            }
            return v.reswizzled(Swizzle(sw));
        }
        let parts: Vec<Operand> = bytes
            .iter()
            .map(|&b| {
                self.uniform_register(b / 16, dynamic, span)
                    .reswizzled(Swizzle::splat(lane(b)))
            })
            .collect();
        let n = parts.len() as u8;
        self.emit(Op::Construct, parts, Ty::float(n), span)
    }

    fn uniform_register(&mut self, register: u32, dynamic: Option<Operand>, span: Span) -> Operand {
        let args = dynamic.into_iter().collect();
        self.emit(Op::LoadUniform { register }, args, Ty::float(4), span)
    }

    /// Stores `val` where `place` points.
    pub(super) fn store(&mut self, place: &Place, val: &Val, inst: &Inst) {
        let var = &self.vars[place.var];
        let (storage, ty) = (var.storage.clone(), var.ty);
        self.store_tree(&storage, ty, &place.path, val, inst);
    }

    fn store_tree(&mut self, storage: &Storage, ty: Word, path: &[Index], val: &Val, inst: &Inst) {
        let span = inst.span;
        match storage {
            Storage::Local(local) => {
                let lty = self.f.locals[*local].ty;
                let Some((v, lanes)) = val.vector() else {
                    self.error(
                        rule::INSTRUCTION,
                        inst,
                        "a store of a composite into a vector",
                    );
                    return;
                };
                let new = match path {
                    [] => {
                        if lanes != lty.lanes {
                            self.error(
                                rule::INSTRUCTION,
                                inst,
                                "a store whose width differs from the variable's",
                            );
                            return;
                        }
                        v
                    }
                    [index] => {
                        // One component: rebuild the vector with that lane replaced.
                        let old = self.emit(Op::LoadLocal(*local), Vec::new(), lty, span);
                        let lanes_v: Vec<Operand> = (0..lty.lanes)
                            .map(|c| match index {
                                Index::Const(k) if *k as u8 == c => v.reswizzled(Swizzle::splat(0)),
                                Index::Const(_) => old.reswizzled(Swizzle::splat(c)),
                                Index::Dynamic(i) => {
                                    let kc = self.fconst(&[c as f32], span);
                                    let cond = self.emit(
                                        Op::Cmp(CmpOp::Eq),
                                        vec![*i, kc],
                                        Ty::bool(1),
                                        span,
                                    );
                                    let kind = lty.kind;
                                    self.emit(
                                        Op::Select,
                                        vec![
                                            cond,
                                            v.reswizzled(Swizzle::splat(0)),
                                            old.reswizzled(Swizzle::splat(c)),
                                        ],
                                        Ty { kind, lanes: 1 },
                                        span,
                                    )
                                }
                            })
                            .collect();
                        if lty.lanes == 1 {
                            lanes_v[0]
                        } else {
                            self.emit(Op::Construct, lanes_v, lty, span)
                        }
                    }
                    _ => {
                        self.error(
                            rule::INSTRUCTION,
                            inst,
                            "an access chain goes deeper than a vector component",
                        );
                        return;
                    }
                };
                self.emit_void(Op::StoreLocal(*local), vec![new], span);
            }
            Storage::Tree(children) => match path.split_first() {
                None => {
                    let Val::Composite(parts) = val else {
                        self.error(
                            rule::INSTRUCTION,
                            inst,
                            "a store of a vector into a composite",
                        );
                        return;
                    };
                    for (i, (child, part)) in children.iter().zip(parts).enumerate() {
                        let cty = self.child_type(ty, i as u32);
                        self.store_tree(child, cty, &[], part, inst);
                    }
                }
                Some((Index::Const(i), rest)) => {
                    if let Some(child) = children.get(*i as usize) {
                        let cty = self.child_type(ty, *i);
                        self.store_tree(child, cty, rest, val, inst);
                    }
                }
                Some((Index::Dynamic(index), rest)) => {
                    // Each element keeps its value unless the index names it.
                    for (i, child) in children.iter().enumerate() {
                        let cty = self.child_type(ty, i as u32);
                        let Some(old) = self.load_tree(child, cty, rest, inst) else {
                            return;
                        };
                        let kc = self.fconst(&[i as f32], span);
                        let cond =
                            self.emit(Op::Cmp(CmpOp::Eq), vec![*index, kc], Ty::bool(1), span);
                        let Some(new) = self.select_val(cond, val, &old, span) else {
                            self.error(
                                rule::INSTRUCTION,
                                inst,
                                "a store whose shape differs from the variable's",
                            );
                            return;
                        };
                        self.store_tree(child, cty, rest, &new, inst);
                    }
                }
            },
            Storage::Unsupported(reason) => {
                let reason = reason.clone();
                self.error(rule::INTERFACE, inst, reason);
            }
            Storage::Input(_)
            | Storage::BuiltinInput(_)
            | Storage::Uniform { .. }
            | Storage::BoolUniform(_)
            | Storage::Texture(_) => {
                self.error(
                    rule::INSTRUCTION,
                    inst,
                    "a store into a read-only variable (an input, uniform or texture)",
                );
            }
        }
    }
}
