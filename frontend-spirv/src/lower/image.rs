//! Image instructions: sampling with an implicit or explicit level of detail, a bias, or a
//! projective divide. Everything else an image can do (fetches, gathers, queries, depth
//! comparisons, storage images) has no equivalent on these targets and is an error.

use mir::inst::{Op, Operand, SampleKind};
use mir::module::TextureDim;
use mir::{Swizzle, Ty};
use rspirv::dr::Operand as SpvOperand;
use spirv::{ImageOperands, Op as SpvOp};

use super::body::Frame;
use super::value::{TextureRef, Val, vector};
use super::{Lowerer, rule};
use crate::module::Inst;

impl Lowerer<'_> {
    pub(super) fn image(&mut self, inst: &Inst, frame: &Frame) -> Option<Val> {
        let span = inst.span;
        let op = inst.opcode();
        // The texture operand: one texture, or the elements of an array and the index
        // that chooses among them.
        let textures = |l: &mut Self, i: usize| -> Option<(Vec<TextureRef>, Option<Operand>)> {
            let id = inst.id_operand(i)?;
            match l.value(id, inst, frame)? {
                Val::Texture(t) => Some((vec![t], None)),
                Val::Textures(ts, index) => Some((ts, Some(index))),
                _ => None,
            }
        };
        let rebuild = |ts: Vec<TextureRef>, index: Option<Operand>| match index {
            Some(index) => Val::Textures(ts, index),
            None => Val::Texture(ts[0]),
        };
        match op {
            SpvOp::SampledImage | SpvOp::Image => {
                let (ts, index) = textures(self, 0)?;
                let ts = ts
                    .into_iter()
                    .map(|t| match t {
                        TextureRef::Image(s) | TextureRef::Sampled(s) => {
                            Some(if op == SpvOp::Image {
                                TextureRef::Image(s)
                            } else {
                                TextureRef::Sampled(s)
                            })
                        }
                        TextureRef::Sampler => None,
                    })
                    .collect::<Option<Vec<_>>>()?;
                if ts.is_empty() {
                    return None;
                }
                Some(rebuild(ts, index))
            }
            SpvOp::ImageSampleImplicitLod
            | SpvOp::ImageSampleExplicitLod
            | SpvOp::ImageSampleProjImplicitLod
            | SpvOp::ImageSampleProjExplicitLod => {
                let Some((ts, index)) = textures(self, 0) else {
                    self.error(rule::IMAGE, inst, "sampling needs a sampled image");
                    return None;
                };
                let samplers: Option<Vec<_>> = ts
                    .iter()
                    .map(|t| match t {
                        TextureRef::Sampled(s) => Some(*s),
                        _ => None,
                    })
                    .collect();
                let Some(samplers) = samplers.filter(|s| !s.is_empty()) else {
                    self.error(rule::IMAGE, inst, "sampling needs a sampled image");
                    return None;
                };
                let sampler = samplers[0];
                let proj = matches!(
                    op,
                    SpvOp::ImageSampleProjImplicitLod | SpvOp::ImageSampleProjExplicitLod
                );
                let (coord, coord_lanes) =
                    self.value(inst.id_operand(1)?, inst, frame)?.vector()?;
                let mask = match inst.op.operands.get(2) {
                    Some(SpvOperand::ImageOperands(m)) => *m,
                    _ => ImageOperands::NONE,
                };
                let supported = ImageOperands::BIAS | ImageOperands::LOD;
                if !(mask - supported).is_empty() {
                    self.error(
                        rule::IMAGE,
                        inst,
                        format!("image operands {:?} are not supported: these targets sample with an implicit or explicit level of detail and a bias only", mask - supported),
                    );
                    return None;
                }
                let (kind, lod) = if mask.contains(ImageOperands::BIAS) {
                    (SampleKind::Bias, inst.id_operand(3))
                } else if mask.contains(ImageOperands::LOD) {
                    (SampleKind::Lod, inst.id_operand(3))
                } else {
                    (SampleKind::Implicit, None)
                };
                let dim_lanes = match self.samplers[sampler].dim {
                    TextureDim::D2 => 2,
                    TextureDim::Cube => 3,
                };
                let needed = dim_lanes + proj as u8;
                if coord_lanes < needed {
                    self.error(
                        rule::IMAGE,
                        inst,
                        format!("the coordinate has {coord_lanes} components; {needed} are needed"),
                    );
                    return None;
                }
                // A projective coordinate's divisor is its last component.
                let coord = if proj && coord_lanes > needed {
                    let mut lanes: Vec<Operand> = (0..dim_lanes)
                        .map(|l| coord.reswizzled(Swizzle::splat(l)))
                        .collect();
                    lanes.push(coord.reswizzled(Swizzle::splat(coord_lanes - 1)));
                    self.construct(lanes, span)
                } else {
                    coord
                };
                let mut args = vec![coord];
                if let Some(lod) = lod {
                    let (l, _) = self.value(lod, inst, frame)?.vector()?;
                    args.push(l.reswizzled(Swizzle::splat(0)));
                }
                // One sample per texture the index may choose, then the selection.
                let mut samples = Vec::with_capacity(samplers.len());
                for &sampler in &samplers {
                    let v = self.emit(
                        Op::Sample {
                            sampler,
                            kind,
                            proj,
                        },
                        args.clone(),
                        Ty::float(4),
                        span,
                    );
                    samples.push(vector(v, 4));
                }
                match index {
                    Some(index) => self.select_by_index(index, samples, span),
                    None => samples.pop(),
                }
            }
            SpvOp::ImageSampleDrefImplicitLod
            | SpvOp::ImageSampleDrefExplicitLod
            | SpvOp::ImageSampleProjDrefImplicitLod
            | SpvOp::ImageSampleProjDrefExplicitLod => {
                self.error(
                    rule::SHADOW_SAMPLER,
                    inst,
                    "depth-comparison sampling (a shadow sampler: `sampler2DShadow`, \
                     `samplerCubeShadow`, HLSL `SampleCmp`) is not supported: neither the \
                     PICA200 nor Stage3D compares a texture's depth while sampling; sample the \
                     depth as a colour (`sampler2D`) and compare it in the shader",
                );
                None
            }
            other => {
                self.error(
                    rule::IMAGE,
                    inst,
                    format!("Op{other:?} is not available on these targets: they sample 2D textures and cube maps, nothing else"),
                );
                None
            }
        }
    }
}
