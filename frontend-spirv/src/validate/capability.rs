//! What the targets can honour: declared capabilities, the addressing and memory model, and
//! imported instruction sets.
//!
//! The allow-list is what vertex and fragment shaders for a vec4 machine without memory need.
//! Everything else is rejected up front with the reason, rather than deep in lowering.

use rspirv::dr::Operand;
use spirv::{AddressingModel, Capability, MemoryModel, Op};

use super::{Checker, Place};
use crate::rules::Rule;

/// Capabilities a module may declare.
const ALLOWED: &[Capability] = &[
    Capability::Shader,
    Capability::Matrix,
    Capability::Geometry,
    Capability::ClipDistance,
    Capability::CullDistance,
    Capability::DerivativeControl,
    Capability::DemoteToHelperInvocation,
];

/// Capabilities that only enable image types and image instructions. A module may declare
/// them: naga's GLSL front end predeclares image types of every dimension, so its SPIR-V
/// declares `Sampled1D` even for a shader that samples one 2D texture. Whether a shader
/// actually samples a 1D, 3D, rect, buffer or arrayed image, or queries one, is checked where
/// it does, by lowering.
const CHECKED_AT_USE: &[Capability] = &[
    Capability::Sampled1D,
    Capability::Image1D,
    Capability::SampledCubeArray,
    Capability::ImageCubeArray,
    Capability::SampledRect,
    Capability::ImageRect,
    Capability::SampledBuffer,
    Capability::ImageBuffer,
    Capability::ImageMSArray,
    Capability::ImageQuery,
    Capability::MinLod,
    Capability::ImageGatherExtended,
    Capability::StorageImageExtendedFormats,
];

/// Why the targets cannot honour `cap`.
fn reason(cap: Capability) -> &'static str {
    use Capability::*;
    match cap {
        Float64 => {
            "the PICA200 computes in 24-bit floats and AGAL in 32-bit floats; there is no double precision"
        }
        Float16
        | StorageBuffer16BitAccess
        | UniformAndStorageBuffer16BitAccess
        | StoragePushConstant16
        | StorageInputOutput16 => {
            "16-bit types have no representation on these targets; declare the values as 32-bit floats"
        }
        Int64
        | Int16
        | Int8
        | StorageBuffer8BitAccess
        | UniformAndStorageBuffer8BitAccess
        | StoragePushConstant8
        | Int64Atomics => {
            "integers are carried in floats on these targets, so only 32-bit integer types are accepted"
        }
        Kernel | Addresses | Linkage | GenericPointer | Vector16 | Int64ImageEXT => {
            "this is an OpenCL kernel or linkable module; the targets run vertex and fragment programs only"
        }
        Tessellation
        | TessellationPointSize
        | GeometryPointSize
        | GeometryStreams
        | MultiViewport
        | ShaderViewportIndexLayerEXT => {
            "these targets have no tessellation stage and a single viewport"
        }
        Sampled1D | Image1D => {
            "Stage3D samples only 2D and cube textures, and PICA vertex programs sample none"
        }
        SampledCubeArray
        | ImageCubeArray
        | SampledRect
        | ImageRect
        | SampledBuffer
        | ImageBuffer
        | ImageMSArray
        | StorageImageMultisample
        | InputAttachment
        | MinLod
        | ImageGatherExtended
        | StorageImageExtendedFormats
        | ImageQuery
        | StorageImageReadWithoutFormat
        | StorageImageWriteWithoutFormat
        | StorageImageArrayDynamicIndexing
        | SampledImageArrayDynamicIndexing => {
            "Stage3D samples 2D and cube textures with fixed sampler state; this image feature has no equivalent"
        }
        AtomicStorage
        | StorageBufferArrayDynamicIndexing
        | VariablePointers
        | VariablePointersStorageBuffer
        | PhysicalStorageBufferAddresses => {
            "these targets have no memory besides registers: no storage buffers, atomics or pointers"
        }
        SampleRateShading | InterpolationFunction => {
            "per-sample shading and interpolation control are not available"
        }
        GroupNonUniform
        | GroupNonUniformVote
        | GroupNonUniformArithmetic
        | GroupNonUniformBallot
        | GroupNonUniformShuffle
        | GroupNonUniformShuffleRelative
        | GroupNonUniformClustered
        | GroupNonUniformQuad
        | Groups
        | SubgroupBallotKHR
        | SubgroupVoteKHR => {
            "these targets run each vertex or pixel alone; there are no subgroup operations"
        }
        DrawParameters | MultiView | DeviceGroup => {
            "the draw and view built-ins this enables have no equivalent on these targets"
        }
        _ => "the PICA200 and AGAL targets have no feature this capability describes",
    }
}

pub(super) fn check(c: &mut Checker<'_>) {
    let module = c.module;
    for inst in &module.globals {
        match inst.opcode() {
            Op::Capability => {
                let Some(Operand::Capability(cap)) = inst.op.operands.first() else {
                    continue;
                };
                if !ALLOWED.contains(cap) && !CHECKED_AT_USE.contains(cap) {
                    c.error(
                        Rule::CapUnsupported,
                        inst,
                        Place::Global,
                        format!("capability {cap:?} is not supported: {}", reason(*cap)),
                    );
                }
            }
            Op::MemoryModel => {
                if let Some(Operand::AddressingModel(addressing)) = inst.op.operands.first() {
                    if *addressing != AddressingModel::Logical {
                        c.error(
                            Rule::CapAddressingModel,
                            inst,
                            Place::Global,
                            format!(
                                "addressing model {addressing:?}: only Logical is supported, \
                                 because the targets have no memory to address"
                            ),
                        );
                    }
                }
                if let Some(Operand::MemoryModel(model)) = inst.op.operands.get(1) {
                    if !matches!(
                        model,
                        MemoryModel::Simple | MemoryModel::GLSL450 | MemoryModel::Vulkan
                    ) {
                        c.error(
                            Rule::CapAddressingModel,
                            inst,
                            Place::Global,
                            format!(
                                "memory model {model:?} is for OpenCL kernels; shaders use \
                                 GLSL450, Simple or Vulkan"
                            ),
                        );
                    }
                }
            }
            Op::ExtInstImport => {
                // Non-semantic sets were dropped by the reader; what is left must be GLSL's.
                if let Some(name) = inst.string_operand(0) {
                    if name != "GLSL.std.450" {
                        c.error(
                            Rule::ExtInstructionSet,
                            inst,
                            Place::Global,
                            format!(
                                "instruction set \"{name}\" is not supported; shaders may import \
                                 GLSL.std.450 and non-semantic (debug) sets"
                            ),
                        );
                    }
                }
            }
            _ => {}
        }
    }
}
