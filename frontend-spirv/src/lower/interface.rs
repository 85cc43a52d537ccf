//! The interface: where inputs, outputs, uniforms and samplers go (docs/conventions.md).
//!
//! - Inputs: one MIR input per location (matrix and array inputs take consecutive ones).
//! - Outputs: `Position` first, then user outputs by location, then `FragDepth`; each output
//!   is a local the code writes and the final return reads. `PointSize` and clip/cull
//!   distances are accepted and dropped.
//! - Uniforms: loose uniforms (OpenGL-style SPIR-V) take their location as register and come
//!   first (when locations would share registers, as glslang's --aml numbers a matrix as one
//!   location, each in location order at the next free register from its location on); blocks follow in (set, binding) order, each laid out by its std140 offsets, 16
//!   bytes per register; push constants come last. A loose `bool` takes the next bool
//!   register. Every leaf is listed for reflection under its path (`lights[2].color`).
//! - Samplers: a combined image sampler (or an image) at binding B is sampler B.

use rspirv::dr::Operand as SpvOperand;
use spirv::{BuiltIn, Decoration, Op, StorageClass, Word};

use mir::Ty;
use mir::module::{
    BuiltIn as MirBuiltIn, Input, MatrixLayout, Output, Sampler, TextureDim, Uniform,
};

use super::storage::{Storage, UniformLayout, Var};
use super::types::{Shape, glsl_name, shape};
use super::value::TextureRef;
use super::{Lowerer, rule};
use crate::module::Inst;
use crate::validate::Type;

/// Locations, offsets and strides from here on are refused: the largest register file is 250
/// vectors (4000 bytes), and a std140 block is at most 64 KiB anywhere.
const MAX_LAYOUT_LITERAL: u32 = 65536;

impl Lowerer<'_> {
    /// Creates a variable entry for every global variable, placing the interface.
    pub(super) fn place_interface(&mut self) {
        if !self.layout_literals_in_range() {
            return;
        }
        let module = &self.valid.module;
        let interface: Vec<Word> = self.entry.interface.clone();
        let mut blocks: Vec<(u32, u32, &Inst)> = Vec::new();
        let mut loose: Vec<&Inst> = Vec::new();
        let mut next_bool = 0u32;
        for inst in &module.globals {
            if inst.opcode() != Op::Variable {
                continue;
            }
            let (Some(id), Some(ptr)) = (inst.result_id(), inst.result_type()) else {
                continue;
            };
            let Some(Type::Pointer { storage, pointee }) = self.types().get(ptr).cloned() else {
                continue;
            };
            let name = self.decor.name(id).unwrap_or("").to_string();
            let storage_tree = match storage {
                StorageClass::Input if interface.contains(&id) => {
                    self.input_storage(inst, id, pointee)
                }
                StorageClass::Output if interface.contains(&id) => {
                    self.output_storage(inst, id, pointee, &name)
                }
                StorageClass::Input | StorageClass::Output => Storage::Unsupported(format!(
                    "{} is an {storage:?} variable not listed in the entry point's interface",
                    self.id(id)
                )),
                StorageClass::Private => self.local_storage(pointee, &name),
                StorageClass::Uniform | StorageClass::PushConstant => {
                    if self.decor.has(pointee, None, Decoration::BufferBlock) {
                        Storage::Unsupported(format!(
                            "{} is a storage buffer (BufferBlock); the targets have no memory to read or write",
                            self.id(id)
                        ))
                    } else {
                        let (set, binding) = if storage == StorageClass::PushConstant {
                            (u32::MAX, u32::MAX)
                        } else {
                            (
                                self.decor
                                    .literal(id, None, Decoration::DescriptorSet)
                                    .unwrap_or(0),
                                self.decor
                                    .literal(id, None, Decoration::Binding)
                                    .unwrap_or(0),
                            )
                        };
                        blocks.push((set, binding, inst));
                        Storage::Unsupported(String::new()) // replaced once placed
                    }
                }
                StorageClass::UniformConstant => match shape(self.types(), pointee) {
                    Shape::Opaque => self.texture_storage(inst, id, pointee, &name, 0),
                    // An array of samplers: one sampler per element, at consecutive
                    // bindings from the array's.
                    Shape::Array { element, len }
                        if matches!(shape(self.types(), element), Shape::Opaque) =>
                    {
                        Storage::Tree(
                            (0..len)
                                .map(|k| {
                                    let name = format!("{name}[{k}]");
                                    self.texture_storage(inst, id, element, &name, k)
                                })
                                .collect(),
                        )
                    }
                    Shape::Bool(1) => {
                        let reg = next_bool;
                        next_bool += 1;
                        self.uniforms.push(Uniform {
                            name: name.clone(),
                            block: None,
                            type_name: "bool".into(),
                            layout: None,
                            register: reg,
                            component: 0,
                            count: 1,
                            is_bool: true,
                            default: None,
                        });
                        Storage::BoolUniform(reg)
                    }
                    _ => {
                        loose.push(inst);
                        Storage::Unsupported(String::new()) // replaced once placed
                    }
                },
                other => Storage::Unsupported(format!(
                    "{} has storage class {other:?}; shaders for these targets read inputs, uniforms and textures only",
                    self.id(id)
                )),
            };
            let index = self.vars.len();
            self.vars.push(Var {
                ty: pointee,
                storage: storage_tree,
            });
            self.global_vars.insert(id, index);
        }
        // Loose uniforms first, at their locations. A location an earlier uniform's
        // registers already cover (glslang's --aml numbers a `mat4` as one location, as GL
        // does, so the uniform after it would share its registers) moves to the next free
        // register: in location order, each at max(its location, the next free register).
        let mut placed: Vec<(u32, u32, &Inst)> = Vec::new(); // (location, count, inst)
        for inst in loose {
            let id = inst.result_id().unwrap_or(0);
            let pointee = self.pointee(inst);
            let Some(location) = self.decor.literal(id, None, Decoration::Location) else {
                self.error(
                    rule::INTERFACE,
                    inst,
                    format!(
                        "the uniform {} has no Location; loose uniforms take their location as their register (compile with explicit layout(location = N) or glslang --aml)",
                        self.id(id)
                    ),
                );
                continue;
            };
            placed.push((location, self.locations(pointee), inst));
        }
        let mut by_location: Vec<(u32, u32, u32)> = placed
            .iter()
            .map(|&(location, count, inst)| (location, inst.span.ordinal, count))
            .collect();
        by_location.sort_unstable();
        let overlapping = by_location
            .windows(2)
            .any(|w| w[0].0.saturating_add(w[0].2) > w[1].0);
        // (location, ordinal) → register.
        let mut registers: Vec<((u32, u32), u32)> = Vec::new();
        let mut free = 0u32;
        for &(location, ordinal, count) in &by_location {
            let register = if overlapping {
                location.max(free)
            } else {
                location
            };
            free = free.max(register.saturating_add(count));
            registers.push(((location, ordinal), register));
        }
        let mut next_register = free;
        for (location, _, inst) in placed {
            let id = inst.result_id().unwrap_or(0);
            let pointee = self.pointee(inst);
            let register = registers
                .iter()
                .find(|(key, _)| *key == (location, inst.span.ordinal))
                .map_or(location, |&(_, r)| r);
            next_register = next_register.max(register);
            let name = self.decor.name(id).unwrap_or("").to_string();
            self.uniform_leaves(
                &name,
                None,
                pointee,
                None,
                register.saturating_mul(16),
                UniformLayout::Loose,
            );
            self.set_storage(
                id,
                Storage::Uniform {
                    register,
                    layout: UniformLayout::Loose,
                },
            );
        }
        // Then blocks, in (set, binding) order.
        blocks.sort_by_key(|(set, binding, inst)| (*set, *binding, inst.span.ordinal));
        for (_, _, inst) in blocks {
            let id = inst.result_id().unwrap_or(0);
            let pointee = self.pointee(inst);
            let size = self.std140_size(pointee, None);
            let block_name = self.decor.name(pointee).map(str::to_string);
            self.uniform_leaves(
                "",
                block_name.as_deref(),
                pointee,
                None,
                next_register.saturating_mul(16),
                UniformLayout::Std140,
            );
            self.set_storage(
                id,
                Storage::Uniform {
                    register: next_register,
                    layout: UniformLayout::Std140,
                },
            );
            next_register = next_register.saturating_add(size.div_ceil(16).max(1));
        }
    }

    /// Whether every Location, Component, Offset, ArrayStride and MatrixStride is below
    /// [`MAX_LAYOUT_LITERAL`]; reports each that is not. Larger ones name registers or bytes
    /// no target has, and bounding them keeps the layout arithmetic from overflowing.
    fn layout_literals_in_range(&mut self) -> bool {
        let mut ok = true;
        for inst in &self.valid.module.globals {
            let (decoration, value) = match (inst.opcode(), &inst.op.operands[..]) {
                (
                    Op::Decorate,
                    [
                        _,
                        SpvOperand::Decoration(d),
                        SpvOperand::LiteralBit32(v),
                        ..,
                    ],
                )
                | (
                    Op::MemberDecorate,
                    [
                        _,
                        _,
                        SpvOperand::Decoration(d),
                        SpvOperand::LiteralBit32(v),
                        ..,
                    ],
                ) => (*d, *v),
                _ => continue,
            };
            if matches!(
                decoration,
                Decoration::Location
                    | Decoration::Component
                    | Decoration::Offset
                    | Decoration::ArrayStride
                    | Decoration::MatrixStride
            ) && value >= MAX_LAYOUT_LITERAL
            {
                self.error(
                    rule::INTERFACE,
                    inst,
                    format!(
                        "{decoration:?} {value} is beyond any register file of these targets (at most {} accepted)",
                        MAX_LAYOUT_LITERAL - 1
                    ),
                );
                ok = false;
            }
        }
        ok
    }

    fn pointee(&self, inst: &Inst) -> Word {
        match inst.result_type().and_then(|t| self.types().get(t)) {
            Some(Type::Pointer { pointee, .. }) => *pointee,
            _ => 0,
        }
    }

    fn set_storage(&mut self, id: Word, storage: Storage) {
        if let Some(&i) = self.global_vars.get(&id) {
            self.vars[i].storage = storage;
        }
    }

    /// How many locations (registers) a type takes as an input, output or loose uniform.
    pub(super) fn locations(&self, ty: Word) -> u32 {
        match shape(self.types(), ty) {
            Shape::Matrix { cols, .. } => cols as u32,
            Shape::Array { element, len } => len.saturating_mul(self.locations(element)),
            Shape::Struct { members } => members
                .iter()
                .fold(0u32, |n, &m| n.saturating_add(self.locations(m))),
            _ => 1,
        }
    }

    fn input_storage(&mut self, inst: &Inst, id: Word, ty: Word) -> Storage {
        if self.geometry.is_some() {
            return self.geometry_input(inst, id, ty);
        }
        if let Some(b) = self.decor.builtin(id, None) {
            return Storage::BuiltinInput(b);
        }
        let Some(location) = self.decor.literal(id, None, Decoration::Location) else {
            if let Shape::Struct { members } = shape(self.types(), ty) {
                // An input block: built-in members, or members with their own locations.
                let mut children = Vec::new();
                for (m, &mty) in members.iter().enumerate() {
                    let m = m as u32;
                    if let Some(b) = self.decor.builtin(ty, Some(m)) {
                        children.push(Storage::BuiltinInput(b));
                    } else if let Some(loc) = self.decor.literal(ty, Some(m), Decoration::Location)
                    {
                        let name = format!(
                            "{}.{}",
                            self.decor.name(id).unwrap_or(""),
                            self.decor.member_name(ty, m).unwrap_or("")
                        );
                        children.push(self.input_leaves(&name, mty, &mut { loc }));
                    } else {
                        children.push(Storage::Unsupported(format!(
                            "member {m} of input block {} has no Location",
                            self.id(id)
                        )));
                    }
                }
                return Storage::Tree(children);
            }
            self.error(
                rule::INTERFACE,
                inst,
                format!("the input {} has no Location", self.id(id)),
            );
            return Storage::Unsupported(String::new());
        };
        let name = self.decor.name(id).unwrap_or("").to_string();
        self.input_leaves(&name, ty, &mut { location })
    }

    /// Inputs for `ty` from `location` on: one per vector, column or element.
    pub(super) fn input_leaves(&mut self, name: &str, ty: Word, location: &mut u32) -> Storage {
        match shape(self.types(), ty) {
            Shape::Float(lanes) => {
                let input = self.inputs.push(Input::at(name, *location, lanes));
                *location += 1;
                Storage::Input(input)
            }
            Shape::Matrix { cols, rows } => Storage::Tree(
                (0..cols)
                    .map(|c| {
                        let input =
                            self.inputs
                                .push(Input::at(format!("{name}[{c}]"), *location, rows));
                        *location += 1;
                        Storage::Input(input)
                    })
                    .collect(),
            ),
            Shape::Array { element, len } => Storage::Tree(
                (0..len)
                    .map(|i| self.input_leaves(&format!("{name}[{i}]"), element, location))
                    .collect(),
            ),
            Shape::Struct { members } => Storage::Tree(
                members
                    .iter()
                    .enumerate()
                    .map(|(m, &mty)| {
                        let member = self
                            .decor
                            .member_name(ty, m as u32)
                            .unwrap_or("")
                            .to_string();
                        self.input_leaves(&format!("{name}.{member}"), mty, location)
                    })
                    .collect(),
            ),
            Shape::Bool(_) | Shape::Opaque | Shape::Other => {
                Storage::Unsupported(format!("the input {name} has a type inputs cannot have"))
            }
        }
    }

    fn output_storage(&mut self, inst: &Inst, id: Word, ty: Word, name: &str) -> Storage {
        if let Some(b) = self.decor.builtin(id, None) {
            return self.builtin_output(inst, b, ty, name);
        }
        if let Shape::Struct { members } = shape(self.types(), ty) {
            if members
                .iter()
                .enumerate()
                .any(|(m, _)| self.decor.builtin(ty, Some(m as u32)).is_some())
            {
                // gl_PerVertex: built-in members.
                let children = members
                    .iter()
                    .enumerate()
                    .map(|(m, &mty)| {
                        let member_name = self
                            .decor
                            .member_name(ty, m as u32)
                            .unwrap_or("")
                            .to_string();
                        match self.decor.builtin(ty, Some(m as u32)) {
                            Some(b) => self.builtin_output(inst, b, mty, &member_name),
                            None => Storage::Unsupported(format!(
                                "member {m} of the output block has no built-in"
                            )),
                        }
                    })
                    .collect();
                return Storage::Tree(children);
            }
        }
        let Some(location) = self.decor.literal(id, None, Decoration::Location) else {
            self.error(
                rule::INTERFACE,
                inst,
                format!("the output {} has no Location", self.id(id)),
            );
            return Storage::Unsupported(String::new());
        };
        self.output_leaves(name, ty, &mut { location })
    }

    fn output_leaves(&mut self, name: &str, ty: Word, location: &mut u32) -> Storage {
        match shape(self.types(), ty) {
            Shape::Float(lanes) => {
                let local = self.f.add_local(Ty::float(lanes), name);
                self.outputs.push((
                    Output {
                        name: name.to_string(),
                        location: Some(*location),
                        builtin: None,
                        lanes,
                    },
                    local.index(),
                ));
                *location += 1;
                Storage::Local(local)
            }
            Shape::Matrix { cols, rows } => Storage::Tree(
                (0..cols)
                    .map(|c| {
                        let n = format!("{name}[{c}]");
                        let local = self.f.add_local(Ty::float(rows), &n);
                        self.outputs.push((
                            Output {
                                name: n,
                                location: Some(*location),
                                builtin: None,
                                lanes: rows,
                            },
                            local.index(),
                        ));
                        *location += 1;
                        Storage::Local(local)
                    })
                    .collect(),
            ),
            Shape::Array { element, len } => Storage::Tree(
                (0..len)
                    .map(|i| self.output_leaves(&format!("{name}[{i}]"), element, location))
                    .collect(),
            ),
            Shape::Struct { members } => Storage::Tree(
                members
                    .iter()
                    .enumerate()
                    .map(|(m, &mty)| {
                        let member = self
                            .decor
                            .member_name(ty, m as u32)
                            .unwrap_or("")
                            .to_string();
                        self.output_leaves(&format!("{name}.{member}"), mty, location)
                    })
                    .collect(),
            ),
            Shape::Bool(_) | Shape::Opaque | Shape::Other => {
                Storage::Unsupported(format!("the output {name} has a type outputs cannot have"))
            }
        }
    }

    fn builtin_output(&mut self, inst: &Inst, b: BuiltIn, ty: Word, name: &str) -> Storage {
        let (builtin, lanes) = match b {
            BuiltIn::Position => (MirBuiltIn::Position, 4),
            BuiltIn::FragDepth => (MirBuiltIn::FragDepth, 1),
            BuiltIn::PointSize | BuiltIn::ClipDistance | BuiltIn::CullDistance => {
                // Accepted and dropped: neither target has them (docs/conventions.md).
                return self.local_storage(ty, name);
            }
            other => {
                self.error(
                    rule::INTERFACE,
                    inst,
                    format!("the built-in output {other:?} is not supported by these targets"),
                );
                return Storage::Unsupported(String::new());
            }
        };
        let local = self.f.add_local(Ty::float(lanes), name);
        self.outputs.push((
            Output {
                name: name.to_string(),
                location: None,
                builtin: Some(builtin),
                lanes,
            },
            local.index(),
        ));
        Storage::Local(local)
    }

    /// The texture `id` of type `ty` (element `element` of an array of them, bound at the
    /// array's binding plus `element`).
    fn texture_storage(
        &mut self,
        inst: &Inst,
        id: Word,
        ty: Word,
        name: &str,
        element: u32,
    ) -> Storage {
        let binding = self
            .decor
            .literal(id, None, Decoration::Binding)
            .unwrap_or(0)
            .saturating_add(element);
        let image = match self.types().get(ty) {
            Some(Type::SampledImage { image }) => Some(*image),
            Some(Type::Image { .. }) => Some(ty),
            Some(Type::Sampler) => None,
            _ => None,
        };
        let Some(image) = image else {
            return Storage::Texture(TextureRef::Sampler);
        };
        let dim = match self.types().get(image) {
            Some(Type::Image {
                dim: spirv::Dim::Dim2D,
                arrayed: false,
                multisampled: false,
                ..
            }) => TextureDim::D2,
            Some(Type::Image {
                dim: spirv::Dim::DimCube,
                arrayed: false,
                multisampled: false,
                ..
            }) => TextureDim::Cube,
            Some(Type::Image {
                dim,
                arrayed,
                multisampled,
                ..
            }) => {
                // Declared images of other kinds are fine until sampled (naga declares many).
                let reason = format!(
                    "{} is a {}{}{dim:?} image; these targets sample 2D textures and cube maps only",
                    self.id(id),
                    if *arrayed { "arrayed " } else { "" },
                    if *multisampled { "multisampled " } else { "" }
                );
                let _ = inst;
                return Storage::Unsupported(reason);
            }
            _ => TextureDim::D2,
        };
        let sampler = self.samplers.push(Sampler {
            name: name.to_string(),
            binding,
            dim,
        });
        if matches!(self.types().get(ty), Some(Type::SampledImage { .. })) {
            Storage::Texture(TextureRef::Sampled(sampler))
        } else {
            Storage::Texture(TextureRef::Image(sampler))
        }
    }

    /// Locals for a variable of type `ty`: one per scalar/vector leaf.
    pub(super) fn local_storage(&mut self, ty: Word, name: &str) -> Storage {
        match shape(self.types(), ty) {
            Shape::Float(lanes) => Storage::Local(self.f.add_local(Ty::float(lanes), name)),
            Shape::Bool(lanes) => Storage::Local(self.f.add_local(Ty::bool(lanes), name)),
            Shape::Matrix { cols, rows } => Storage::Tree(
                (0..cols)
                    .map(|c| {
                        Storage::Local(self.f.add_local(Ty::float(rows), format!("{name}[{c}]")))
                    })
                    .collect(),
            ),
            Shape::Array { element, len } => Storage::Tree(
                (0..len)
                    .map(|i| self.local_storage(element, &format!("{name}[{i}]")))
                    .collect(),
            ),
            Shape::Struct { members } => Storage::Tree(
                members
                    .iter()
                    .enumerate()
                    .map(|(m, &mty)| {
                        let member = self
                            .decor
                            .member_name(ty, m as u32)
                            .unwrap_or("")
                            .to_string();
                        self.local_storage(mty, &format!("{name}.{member}"))
                    })
                    .collect(),
            ),
            Shape::Opaque => Storage::Unsupported(format!("{name} holds a texture in a variable")),
            Shape::Other => {
                Storage::Unsupported(format!("{name} has a type lowering does not take"))
            }
        }
    }

    /// The std140 size in bytes of `ty`, a member of struct `parent` (for its matrix
    /// decorations) when given.
    pub(super) fn std140_size(&self, ty: Word, member_of: Option<(Word, u32)>) -> u32 {
        match shape(self.types(), ty) {
            Shape::Float(n) | Shape::Bool(n) => 4 * n as u32,
            Shape::Matrix { cols, rows } => {
                let (stride, row_major) = self.matrix_layout(member_of);
                stride.saturating_mul(if row_major { rows as u32 } else { cols as u32 })
            }
            Shape::Array { element, len } => {
                let stride = self
                    .decor
                    .literal(ty, None, Decoration::ArrayStride)
                    .unwrap_or(16);
                let _ = element;
                stride.saturating_mul(len)
            }
            Shape::Struct { members } => members
                .iter()
                .enumerate()
                .map(|(m, &mty)| {
                    let offset = self
                        .decor
                        .literal(ty, Some(m as u32), Decoration::Offset)
                        .unwrap_or(0);
                    offset.saturating_add(self.std140_size(mty, Some((ty, m as u32))))
                })
                .max()
                .unwrap_or(0),
            _ => 0,
        }
    }

    /// (MatrixStride, row-major) of a matrix member.
    pub(super) fn matrix_layout(&self, member_of: Option<(Word, u32)>) -> (u32, bool) {
        match member_of {
            Some((s, m)) => (
                self.decor
                    .literal(s, Some(m), Decoration::MatrixStride)
                    .unwrap_or(16),
                self.decor.has(s, Some(m), Decoration::RowMajor),
            ),
            None => (16, false),
        }
    }

    /// Lists the reflection entries of a uniform of type `ty` at byte `offset`.
    fn uniform_leaves(
        &mut self,
        path: &str,
        block: Option<&str>,
        ty: Word,
        member_of: Option<(Word, u32)>,
        offset: u32,
        layout: UniformLayout,
    ) {
        let sh = shape(self.types(), ty);
        let leaf = |l: &mut Self, type_name: String, matrix: Option<MatrixLayout>| {
            let size = match layout {
                UniformLayout::Std140 => l.std140_size(ty, member_of),
                UniformLayout::Loose => l.locations(ty) * 16,
            };
            let first = offset / 16;
            let component = ((offset % 16) / 4) as u8;
            let count = (offset % 16).saturating_add(size).div_ceil(16).max(1);
            l.uniforms.push(Uniform {
                name: path.to_string(),
                block: block.map(str::to_string),
                type_name,
                layout: matrix,
                register: first,
                component,
                count,
                is_bool: false,
                default: None,
            });
        };
        match sh {
            Shape::Struct { members } => {
                for (m, &mty) in members.iter().enumerate() {
                    let member = self
                        .decor
                        .member_name(ty, m as u32)
                        .unwrap_or("")
                        .to_string();
                    let member_offset = match layout {
                        UniformLayout::Std140 => self
                            .decor
                            .literal(ty, Some(m as u32), Decoration::Offset)
                            .unwrap_or(0),
                        UniformLayout::Loose => members[..m]
                            .iter()
                            .fold(0u32, |n, &p| n.saturating_add(self.locations(p)))
                            .saturating_mul(16),
                    };
                    let child = if path.is_empty() {
                        member
                    } else {
                        format!("{path}.{member}")
                    };
                    self.uniform_leaves(
                        &child,
                        block,
                        mty,
                        Some((ty, m as u32)),
                        offset.saturating_add(member_offset),
                        layout,
                    );
                }
            }
            Shape::Array { element, len }
                if matches!(shape(self.types(), element), Shape::Struct { .. }) =>
            {
                let stride = match layout {
                    UniformLayout::Std140 => self
                        .decor
                        .literal(ty, None, Decoration::ArrayStride)
                        .unwrap_or(16),
                    UniformLayout::Loose => self.locations(element) * 16,
                };
                for i in 0..len {
                    self.uniform_leaves(
                        &format!("{path}[{i}]"),
                        block,
                        element,
                        None,
                        offset.saturating_add(i.saturating_mul(stride)),
                        layout,
                    );
                }
            }
            Shape::Matrix { .. } => {
                let matrix = match layout {
                    UniformLayout::Std140 if self.matrix_layout(member_of).1 => {
                        MatrixLayout::RowMajor
                    }
                    _ => MatrixLayout::ColumnMajor,
                };
                leaf(self, glsl_name(self.types(), ty), Some(matrix));
            }
            Shape::Array { element, .. } => {
                let matrix = match shape(self.types(), element) {
                    Shape::Matrix { .. } => Some(match layout {
                        UniformLayout::Std140 if self.matrix_layout(member_of).1 => {
                            MatrixLayout::RowMajor
                        }
                        _ => MatrixLayout::ColumnMajor,
                    }),
                    _ => None,
                };
                leaf(self, glsl_name(self.types(), ty), matrix);
            }
            _ => leaf(self, glsl_name(self.types(), ty), None),
        }
    }
}

/// Reads the storage class operand of an `OpVariable`.
pub(super) fn storage_class(inst: &Inst) -> Option<StorageClass> {
    match inst.op.operands.first() {
        Some(SpvOperand::StorageClass(s)) => Some(*s),
        _ => None,
    }
}
