//! Enumerants by name, and the operands some enumerants take after them.
//!
//! Value enumerants resolve through the `spirv` crate's `FromStr`. Masks (`A|B`) resolve
//! through its bitflags types, whose constant names are the grammar names in SCREAMING_SNAKE
//! case, so names are compared with case and underscores folded. rspirv's grammar table lists
//! operand kinds but not the parameters an enumerant brings along (`Location 3`, `LocalSize 1 1
//! 1`, `Bias %b`), so those come from the table below, transcribed from the SPIR-V grammar.

use std::str::FromStr;

use rspirv::grammar::OperandKind;

/// What kind of operand an enumerant parameter is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// A 32-bit literal integer.
    Literal,
    /// An `<id>`.
    Id,
    /// A literal string.
    Str,
    /// Another enumerant.
    Enum(OperandKind),
}

/// Looks up a value enumerant of `kind` by name.
pub fn value(kind: OperandKind, name: &str) -> Option<u32> {
    fn get<T: FromStr + Copy>(name: &str, to: fn(T) -> u32) -> Option<u32> {
        T::from_str(name).ok().map(to)
    }
    use OperandKind as K;
    match kind {
        K::SourceLanguage => get(name, |v: spirv::SourceLanguage| v as u32),
        K::ExecutionModel => get(name, |v: spirv::ExecutionModel| v as u32),
        K::AddressingModel => get(name, |v: spirv::AddressingModel| v as u32),
        K::MemoryModel => get(name, |v: spirv::MemoryModel| v as u32),
        K::ExecutionMode => get(name, |v: spirv::ExecutionMode| v as u32),
        K::StorageClass => get(name, |v: spirv::StorageClass| v as u32),
        // The spirv crate spells these `Dim1D`, `DimCube`: Rust names cannot start with a digit.
        K::Dim => get(&format!("Dim{name}"), |v: spirv::Dim| v as u32),
        K::SamplerAddressingMode => get(name, |v: spirv::SamplerAddressingMode| v as u32),
        K::SamplerFilterMode => get(name, |v: spirv::SamplerFilterMode| v as u32),
        K::ImageFormat => get(name, |v: spirv::ImageFormat| v as u32),
        K::ImageChannelOrder => get(name, |v: spirv::ImageChannelOrder| v as u32),
        K::ImageChannelDataType => get(name, |v: spirv::ImageChannelDataType| v as u32),
        K::FPRoundingMode => get(name, |v: spirv::FPRoundingMode| v as u32),
        K::FPDenormMode => get(name, |v: spirv::FPDenormMode| v as u32),
        K::FPOperationMode => get(name, |v: spirv::FPOperationMode| v as u32),
        K::QuantizationModes => get(name, |v: spirv::QuantizationModes| v as u32),
        K::OverflowModes => get(name, |v: spirv::OverflowModes| v as u32),
        K::LinkageType => get(name, |v: spirv::LinkageType| v as u32),
        K::AccessQualifier => get(name, |v: spirv::AccessQualifier| v as u32),
        K::HostAccessQualifier => get(name, |v: spirv::HostAccessQualifier| v as u32),
        K::FunctionParameterAttribute => get(name, |v: spirv::FunctionParameterAttribute| v as u32),
        K::Decoration => get(name, |v: spirv::Decoration| v as u32),
        K::BuiltIn => get(name, |v: spirv::BuiltIn| v as u32),
        K::Scope => get(name, |v: spirv::Scope| v as u32),
        K::GroupOperation => get(name, |v: spirv::GroupOperation| v as u32),
        K::KernelEnqueueFlags => get(name, |v: spirv::KernelEnqueueFlags| v as u32),
        K::Capability => get(name, |v: spirv::Capability| v as u32),
        K::RayQueryIntersection => get(name, |v: spirv::RayQueryIntersection| v as u32),
        K::RayQueryCommittedIntersectionType => {
            get(name, |v: spirv::RayQueryCommittedIntersectionType| v as u32)
        }
        K::RayQueryCandidateIntersectionType => {
            get(name, |v: spirv::RayQueryCandidateIntersectionType| v as u32)
        }
        K::PackedVectorFormat => get(name, |v: spirv::PackedVectorFormat| v as u32),
        K::CooperativeMatrixLayout => get(name, |v: spirv::CooperativeMatrixLayout| v as u32),
        K::CooperativeMatrixUse => get(name, |v: spirv::CooperativeMatrixUse| v as u32),
        K::InitializationModeQualifier => {
            get(name, |v: spirv::InitializationModeQualifier| v as u32)
        }
        K::LoadCacheControl => get(name, |v: spirv::LoadCacheControl| v as u32),
        K::StoreCacheControl => get(name, |v: spirv::StoreCacheControl| v as u32),
        K::NamedMaximumNumberOfRegisters => {
            get(name, |v: spirv::NamedMaximumNumberOfRegisters| v as u32)
        }
        K::FPEncoding => get(name, |v: spirv::FPEncoding| v as u32),
        K::TensorClampMode => get(name, |v: spirv::TensorClampMode| v as u32),
        K::CooperativeVectorMatrixLayout => {
            get(name, |v: spirv::CooperativeVectorMatrixLayout| v as u32)
        }
        K::ComponentType => get(name, |v: spirv::ComponentType| v as u32),
        _ => None,
    }
}

/// Whether `kind` is a mask (its operand may be `A|B|...`).
pub fn is_mask(kind: OperandKind) -> bool {
    mask_names(kind).is_some()
}

/// Looks up one mask bit of `kind` by its grammar name.
pub fn mask_bit(kind: OperandKind, name: &str) -> Option<u32> {
    let wanted = fold(name);
    mask_names(kind)?
        .into_iter()
        .find(|(n, _)| fold(n) == wanted)
        .map(|(_, v)| v)
}

fn fold(name: &str) -> String {
    name.chars()
        .filter(|&c| c != '_')
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

fn mask_names(kind: OperandKind) -> Option<Vec<(&'static str, u32)>> {
    fn names<T: bitflags::Flags<Bits = u32>>() -> Option<Vec<(&'static str, u32)>> {
        Some(
            T::FLAGS
                .iter()
                .map(|f| (f.name(), f.value().bits()))
                .collect(),
        )
    }
    use OperandKind as K;
    match kind {
        K::ImageOperands => names::<spirv::ImageOperands>(),
        K::FPFastMathMode => names::<spirv::FPFastMathMode>(),
        K::SelectionControl => names::<spirv::SelectionControl>(),
        K::LoopControl => names::<spirv::LoopControl>(),
        K::FunctionControl => names::<spirv::FunctionControl>(),
        K::MemorySemantics => names::<spirv::MemorySemantics>(),
        K::MemoryAccess => names::<spirv::MemoryAccess>(),
        K::KernelProfilingInfo => names::<spirv::KernelProfilingInfo>(),
        K::RayFlags => names::<spirv::RayFlags>(),
        K::FragmentShadingRate => names::<spirv::FragmentShadingRate>(),
        K::RawAccessChainOperands => names::<spirv::RawAccessChainOperands>(),
        K::CooperativeMatrixOperands => names::<spirv::CooperativeMatrixOperands>(),
        K::CooperativeMatrixReduce => names::<spirv::CooperativeMatrixReduce>(),
        K::TensorAddressingOperands => names::<spirv::TensorAddressingOperands>(),
        K::TensorOperands => names::<spirv::TensorOperands>(),
        K::MatrixMultiplyAccumulateOperands => names::<spirv::MatrixMultiplyAccumulateOperands>(),
        _ => None,
    }
}

/// The parameters that follow value enumerant `value` of `kind`.
pub fn value_params(kind: OperandKind, value: u32) -> &'static [Param] {
    use Param::*;
    const L: &[Param] = &[Literal];
    const L2: &[Param] = &[Literal, Literal];
    const L3: &[Param] = &[Literal, Literal, Literal];
    const I: &[Param] = &[Id];
    const I2: &[Param] = &[Id, Id];
    const I3: &[Param] = &[Id, Id, Id];
    const S: &[Param] = &[Str];
    match kind {
        OperandKind::ExecutionMode => {
            use spirv::ExecutionMode as M;
            match M::from_u32(value) {
                Some(
                    M::Invocations
                    | M::OutputVertices
                    | M::VecTypeHint
                    | M::SubgroupSize
                    | M::SubgroupsPerWorkgroup
                    | M::DenormPreserve
                    | M::DenormFlushToZero
                    | M::SignedZeroInfNanPreserve
                    | M::RoundingModeRTE
                    | M::RoundingModeRTZ
                    | M::OutputPrimitivesEXT
                    | M::SharedLocalMemorySizeINTEL
                    | M::RoundingModeRTPINTEL
                    | M::RoundingModeRTNINTEL
                    | M::FloatingPointModeALTINTEL
                    | M::FloatingPointModeIEEEINTEL
                    | M::MaxWorkDimINTEL
                    | M::NumSIMDWorkitemsINTEL
                    | M::SchedulerTargetFmaxMhzINTEL
                    | M::StreamingInterfaceINTEL
                    | M::RegisterMapInterfaceINTEL
                    | M::NamedBarrierCountINTEL
                    | M::MaximumRegistersINTEL,
                ) => L,
                Some(
                    M::LocalSize
                    | M::LocalSizeHint
                    | M::TileShadingRateQCOM
                    | M::MaxWorkgroupSizeINTEL,
                ) => L3,
                Some(
                    M::SubgroupsPerWorkgroupId
                    | M::IsApiEntryAMDX
                    | M::MaxNodeRecursionAMDX
                    | M::ShaderIndexAMDX
                    | M::MaximumRegistersIdINTEL,
                ) => I,
                Some(
                    M::LocalSizeId
                    | M::LocalSizeHintId
                    | M::StaticNumWorkgroupsAMDX
                    | M::MaxNumWorkgroupsAMDX,
                ) => I3,
                Some(M::SharesInputWithAMDX | M::FPFastMathDefault) => I2,
                Some(M::NamedMaximumRegistersINTEL) => {
                    &[Enum(OperandKind::NamedMaximumNumberOfRegisters)]
                }
                _ => &[],
            }
        }
        OperandKind::Decoration => {
            use spirv::Decoration as D;
            match D::from_u32(value) {
                Some(
                    D::SpecId
                    | D::ArrayStride
                    | D::MatrixStride
                    | D::Stream
                    | D::Location
                    | D::Component
                    | D::Index
                    | D::Binding
                    | D::DescriptorSet
                    | D::Offset
                    | D::XfbBuffer
                    | D::XfbStride
                    | D::InputAttachmentIndex
                    | D::Alignment
                    | D::MaxByteOffset
                    | D::SecondaryViewportRelativeNV
                    | D::MemberOffsetNV
                    | D::BankNV
                    | D::SIMTCallINTEL
                    | D::FuncParamIOKindINTEL
                    | D::GlobalVariableOffsetINTEL
                    | D::NumbanksALTERA
                    | D::BankwidthALTERA
                    | D::MaxPrivateCopiesALTERA
                    | D::MaxReplicatesALTERA
                    | D::BankBitsALTERA
                    | D::ForcePow2DepthALTERA
                    | D::StridesizeALTERA
                    | D::WordsizeALTERA
                    | D::CacheSizeALTERA
                    | D::PrefetchALTERA
                    | D::InitiationIntervalALTERA
                    | D::MaxConcurrencyALTERA
                    | D::PipelineEnableALTERA
                    | D::BufferLocationALTERA
                    | D::IOPipeStorageALTERA
                    | D::FPMaxErrorDecorationINTEL
                    | D::LatencyControlLabelALTERA
                    | D::MMHostInterfaceAddressWidthALTERA
                    | D::MMHostInterfaceDataWidthALTERA
                    | D::MMHostInterfaceLatencyALTERA
                    | D::MMHostInterfaceMaxBurstALTERA
                    | D::MMHostInterfaceWaitRequestALTERA
                    | D::ImplementInRegisterMapALTERA,
                ) => L,
                Some(D::MathOpDSPModeALTERA) => L2,
                Some(D::LatencyControlConstraintALTERA) => L3,
                Some(D::BuiltIn) => &[Enum(OperandKind::BuiltIn)],
                Some(
                    D::UniformId
                    | D::AlignmentId
                    | D::MaxByteOffsetId
                    | D::NodeSharesPayloadLimitsWithAMDX
                    | D::NodeMaxPayloadsAMDX
                    | D::PayloadNodeNameAMDX
                    | D::PayloadNodeBaseIndexAMDX
                    | D::PayloadNodeArraySizeAMDX
                    | D::ArrayStrideIdEXT
                    | D::OffsetIdEXT
                    | D::CounterBuffer
                    | D::AliasScopeINTEL
                    | D::NoAliasINTEL
                    | D::ConditionalINTEL,
                ) => I,
                Some(D::FuncParamAttr) => &[Enum(OperandKind::FunctionParameterAttribute)],
                Some(D::FPRoundingMode) => &[Enum(OperandKind::FPRoundingMode)],
                Some(D::FPFastMathMode) => &[Enum(OperandKind::FPFastMathMode)],
                Some(D::LinkageAttributes) => &[Str, Enum(OperandKind::LinkageType)],
                Some(D::ClobberINTEL | D::UserSemantic | D::UserTypeGOOGLE | D::MemoryALTERA) => S,
                Some(D::MergeALTERA) => &[Str, Str],
                Some(D::FunctionRoundingModeINTEL) => &[Literal, Enum(OperandKind::FPRoundingMode)],
                Some(D::FunctionDenormModeINTEL) => &[Literal, Enum(OperandKind::FPDenormMode)],
                Some(D::FunctionFloatingPointModeINTEL) => {
                    &[Literal, Enum(OperandKind::FPOperationMode)]
                }
                Some(D::MMHostInterfaceReadWriteModeALTERA) => {
                    &[Enum(OperandKind::AccessQualifier)]
                }
                Some(D::HostAccessINTEL) => &[Enum(OperandKind::HostAccessQualifier), Str],
                Some(D::InitModeALTERA) => &[Enum(OperandKind::InitializationModeQualifier)],
                Some(D::CacheControlLoadINTEL) => &[Literal, Enum(OperandKind::LoadCacheControl)],
                Some(D::CacheControlStoreINTEL) => &[Literal, Enum(OperandKind::StoreCacheControl)],
                _ => &[],
            }
        }
        _ => &[],
    }
}

/// The parameters that follow mask bit `bit` of `kind` (in increasing bit order).
pub fn mask_params(kind: OperandKind, bit: u32) -> &'static [Param] {
    use Param::*;
    match (kind, bit) {
        (OperandKind::ImageOperands, 0x4) => &[Id, Id],
        (OperandKind::ImageOperands, 0x1 | 0x2 | 0x8 | 0x10 | 0x20 | 0x40 | 0x80 | 0x100)
        | (OperandKind::ImageOperands, 0x200 | 0x1_0000) => &[Id],
        (OperandKind::LoopControl, b) if b >= 0x8 && b != 0x80_0000 => &[Literal],
        (OperandKind::MemoryAccess, 0x2) => &[Literal],
        (OperandKind::MemoryAccess, 0x8 | 0x10 | 0x1_0000 | 0x2_0000) => &[Id],
        (OperandKind::TensorAddressingOperands, 0x1 | 0x2) => &[Id],
        (OperandKind::TensorOperands, 0x4 | 0x8 | 0x10) => &[Id],
        _ => &[],
    }
}
