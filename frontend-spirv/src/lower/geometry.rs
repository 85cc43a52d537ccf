//! Geometry programs: the primitives an entry point declares (`OpExecutionMode`), its
//! per-vertex inputs (`in vec4 color[]`, `gl_in[i].gl_Position`), and `EmitVertex` /
//! `EndPrimitive`.
//!
//! A per-vertex input is an array whose outer dimension is the input primitive's vertex:
//! element `i` of `color[]` at location `L` is the MIR input `color[i]` at location `L`, vertex
//! `i`; `gl_in[i].gl_Position` is the built-in input `Position` of vertex `i`. Which register
//! each ends up in is the back end's business (it depends on the vertex program's outputs).
//!
//! `OpEmitVertex` becomes `EmitVertex` reading every output's current value, so an output
//! is still a local the code writes; the program's end returns nothing.

use rspirv::dr::Operand as SpvOperand;
use spirv::{BuiltIn, Decoration, ExecutionMode, Op as SpvOp, Word};

use mir::module::{BuiltIn as MirBuiltIn, Geometry, Input, InputPrimitive, OutputPrimitive};
use mir::{Op, Span, Ty};

use super::storage::Storage;
use super::types::{Shape, shape};
use super::{Lowerer, rule};
use crate::module::Inst;

impl Lowerer<'_> {
    /// The primitives the geometry entry point declares, or errors for what is missing.
    pub(super) fn geometry_modes(&mut self) -> Option<Geometry> {
        let mut input = None;
        let mut output = None;
        let mut max_vertices = None;
        let module = &self.valid.module;
        let mut invocations = None;
        for inst in &module.globals {
            if inst.opcode() != SpvOp::ExecutionMode
                || inst.id_operand(0) != Some(self.entry.function)
            {
                continue;
            }
            let Some(SpvOperand::ExecutionMode(mode)) = inst.op.operands.get(1) else {
                continue;
            };
            let literal = match inst.op.operands.get(2) {
                Some(SpvOperand::LiteralBit32(n)) => Some(*n),
                _ => None,
            };
            match mode {
                ExecutionMode::InputPoints => input = Some(InputPrimitive::Points),
                ExecutionMode::InputLines => input = Some(InputPrimitive::Lines),
                ExecutionMode::InputLinesAdjacency => input = Some(InputPrimitive::LinesAdjacency),
                ExecutionMode::Triangles => input = Some(InputPrimitive::Triangles),
                ExecutionMode::InputTrianglesAdjacency => {
                    input = Some(InputPrimitive::TrianglesAdjacency)
                }
                ExecutionMode::OutputPoints => output = Some(OutputPrimitive::Points),
                ExecutionMode::OutputLineStrip => output = Some(OutputPrimitive::LineStrip),
                ExecutionMode::OutputTriangleStrip => output = Some(OutputPrimitive::TriangleStrip),
                ExecutionMode::OutputVertices => max_vertices = literal,
                ExecutionMode::Invocations => invocations = literal.map(|n| (n, inst.span)),
                _ => {}
            }
        }
        if let Some((n, span)) = invocations.filter(|&(n, _)| n > 1) {
            self.error_at(
                rule::INTERFACE,
                span,
                format!(
                    "the geometry program asks for {n} invocations per primitive \
                     (layout(invocations = {n})); these targets run one"
                ),
            );
        }
        match (input, output, max_vertices) {
            (Some(input), Some(output), Some(max_vertices)) => Some(Geometry {
                input,
                output,
                max_vertices,
            }),
            _ => {
                let missing: Vec<&str> = [
                    (
                        input.is_none(),
                        "the input primitive (layout(points) in; …)",
                    ),
                    (
                        output.is_none(),
                        "the output primitive (layout(triangle_strip) out;)",
                    ),
                    (max_vertices.is_none(), "max_vertices"),
                ]
                .into_iter()
                .filter(|(m, _)| *m)
                .map(|(_, what)| what)
                .collect();
                self.error_at(
                    rule::INTERFACE,
                    Span::default(),
                    format!(
                        "the geometry program does not declare {}",
                        missing.join(", nor ")
                    ),
                );
                None
            }
        }
    }

    /// A geometry program's input `id` of type `ty`: an array with one element per input
    /// vertex, each placed as a vertex program's input would be, tagged with its vertex.
    pub(super) fn geometry_input(&mut self, inst: &Inst, id: Word, ty: Word) -> Storage {
        let vertices = self.geometry.map_or(1, |g| g.input.vertices());
        // A built-in of the whole primitive (gl_PrimitiveIDIn, gl_InvocationID): reading one
        // is an error there, as for any built-in input the targets lack.
        if let Some(b) = self.decor.builtin(id, None) {
            return Storage::BuiltinInput(b);
        }
        let Shape::Array { element, len } = shape(self.types(), ty) else {
            self.error(
                rule::INTERFACE,
                inst,
                format!(
                    "the geometry program's input {} is not an array: each input has one \
                     element per vertex of the input primitive",
                    self.id(id)
                ),
            );
            return Storage::Unsupported(String::new());
        };
        if len != vertices {
            self.error(
                rule::INTERFACE,
                inst,
                format!(
                    "the geometry program's input {} has {len} elements; its input primitive \
                     has {vertices} vertices",
                    self.id(id)
                ),
            );
            return Storage::Unsupported(String::new());
        }
        let name = self.decor.name(id).unwrap_or("").to_string();
        let location = self.decor.literal(id, None, Decoration::Location);
        let mut per_vertex = Vec::new();
        for v in 0..len {
            let name = format!("{name}[{v}]");
            let first = self.inputs.len();
            per_vertex.push(match location {
                Some(l) => self.input_leaves(&name, element, &mut { l }),
                // gl_in: a block of built-ins.
                None => self.per_vertex_block(&name, element, v),
            });
            for k in first..self.inputs.len() {
                self.inputs[mir::arena::Handle::new(k)].vertex = Some(v);
            }
        }
        Storage::Tree(per_vertex)
    }

    /// `gl_in[v]`: `gl_Position` is an input; the other built-ins (`gl_PointSize`, clip
    /// distances) are not available and touching them is an error.
    fn per_vertex_block(&mut self, name: &str, ty: Word, v: u32) -> Storage {
        let Shape::Struct { members } = shape(self.types(), ty) else {
            return Storage::Unsupported(format!("the input {name} has no Location"));
        };
        let children = (0..members.len() as u32)
            .map(|m| match self.decor.builtin(ty, Some(m)) {
                Some(BuiltIn::Position) => {
                    let input = self.inputs.push(Input {
                        name: format!("gl_in[{v}].gl_Position"),
                        location: 0,
                        lanes: 4,
                        vertex: Some(v),
                        builtin: Some(MirBuiltIn::Position),
                    });
                    Storage::Input(input)
                }
                Some(b) => Storage::BuiltinInput(b),
                None => Storage::Unsupported(format!(
                    "member {m} of the input block {name} has no built-in"
                )),
            })
            .collect();
        Storage::Tree(children)
    }

    /// `OpEmitVertex`: the outputs' current values, emitted.
    pub(super) fn emit_vertex(&mut self, span: Span) {
        let outputs: Vec<(mir::func::LocalId, u8)> = self
            .outputs
            .iter()
            .map(|(o, local)| (mir::func::LocalId::new(*local), o.lanes))
            .collect();
        let values = outputs
            .into_iter()
            .map(|(local, lanes)| {
                self.emit(Op::LoadLocal(local), Vec::new(), Ty::float(lanes), span)
            })
            .collect();
        self.emit_void(Op::EmitVertex, values, span);
    }
}
