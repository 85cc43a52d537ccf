//! The Flash Player rules the validator enforces, one variant per Flash error number.
//!
//! The numbers are Flash Player's (its AVM2 error table); a diagnostic carries the [`Rule`]
//! so that a test or a user can match on it, and [`Rule::code`] gives the number Flash would
//! put in `Error #NNNN`. The one-line summaries are ours.

/// A Flash Player AGAL rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)] // each variant is documented by `code` and `summary`
pub enum Rule {
    ProgramTooShort,
    BadMagic,
    BadVersion,
    BadTypeTag,
    BadShaderType,
    OpcodeOutOfRange,
    OpcodeNotImplemented,
    FragmentOnlyOpcode,
    NestingUnderflow,
    NestingOverflow,
    BothConstants,
    BothIndirect,
    DestinationNotZero,
    MaskW,
    TooManyTokens,
    WrongFragmentType,
    WrongVertexType,
    VaryingNotWritten,
    VaryingPartiallyWritten,
    FragmentOutputIncomplete,
    VertexOutputIncomplete,
    UnusedNotZero,
    SamplerInVertexProgram,
    SamplerNotTextureOperand,
    IndirectInFragment,
    IndirectNotConstant,
    IndirectIndexType,
    IndirectFieldsNotZero,
    VaryingReadInVertex,
    AttributeReadInFragment,
    OutputRead,
    TemporaryNotWritten,
    TemporaryComponentNotWritten,
    SamplerWritten,
    VaryingWrittenInFragment,
    AttributeWritten,
    ConstantWritten,
    ZeroWriteMask,
    ReservedBits,
    UnknownRegisterType,
    SamplerIndex,
    VaryingIndex,
    AttributeIndex,
    ConstantIndex,
    OutputIndex,
    TemporaryIndex,
    CubeNotClamp,
    SamplerDimension,
    SamplerFilter,
    SamplerMipmap,
    SamplerWrap,
    SamplerSpecial,
    MatrixSwizzle,
    TextureNeedsSampler,
    SamplerMismatch,
    ColorOutputMask,
    ScalarSwizzle,
    CubeNoMipmap,
    NativeAluLimit,
    NativeTextureLimit,
    VersionNotInProfile,
    OpcodeNeedsVersion2,
    OpenBlock,
    TexCoordInConditional,
    DerivativeInConditional,
    ColorOutputRewritten,
    EmptyBranch,
    DepthIndex,
    DepthInVertex,
    OutputInConditional,
    BrokenElseChain,
    DepthMask,
    VersionMismatch,
    ConstantCondition,
    NonConsecutiveOutputs,
    InstanceIdWritten,
    InstanceIdInFragment,
    InstanceIdNeedsVersion3,
}

macro_rules! rule_table {
    ($($rule:ident $code:literal $summary:literal;)*) => {
        impl Rule {
            /// Every rule, in Flash error-number order.
            pub const ALL: &'static [Rule] = &[$(Rule::$rule,)*];

            /// The Flash Player error number (`Error #NNNN`).
            pub const fn code(self) -> u32 {
                match self { $(Rule::$rule => $code,)* }
            }

            /// What the rule requires, in one line.
            pub const fn summary(self) -> &'static str {
                match self { $(Rule::$rule => $summary,)* }
            }
        }
    };
}

rule_table! {
    ProgramTooShort 3615 "a program is at least a header and one token (31 bytes), and whole tokens";
    BadMagic 3616 "the first byte is 0xa0";
    BadVersion 3617 "the AGAL version is 1, 2 or 3";
    BadTypeTag 3618 "the sixth byte is 0xa1";
    BadShaderType 3619 "the shader type is 0 (vertex) or 1 (fragment)";
    OpcodeOutOfRange 3620 "the opcode is at most 0x2d";
    OpcodeNotImplemented 3621 "the opcode is one the 2015 table defines";
    FragmentOnlyOpcode 3622 "kil, tex, ddx and ddy only in fragment programs";
    NestingUnderflow 3623 "every eif closes an open conditional";
    NestingOverflow 3624 "conditionals nest at most 4 deep";
    BothConstants 3625 "two source operands are not both constants";
    BothIndirect 3626 "two source operands are not both indirect";
    DestinationNotZero 3627 "kil and the conditionals have an all-zero destination";
    MaskW 3628 "m33, m34, nrm and crs do not write w";
    TooManyTokens 3629 "no more tokens than the profile allows";
    WrongFragmentType 3630 "the fragment program's header says fragment";
    WrongVertexType 3631 "the vertex program's header says vertex";
    VaryingNotWritten 3632 "every varying the fragment program reads is written by the vertex program";
    VaryingPartiallyWritten 3633 "a varying is written in all four components";
    FragmentOutputIncomplete 3634 "the fragment program writes its colour output";
    VertexOutputIncomplete 3635 "the vertex program writes all four components of op";
    UnusedNotZero 3636 "operand fields the opcode does not use are zero";
    SamplerInVertexProgram 3637 "samplers only in fragment programs";
    SamplerNotTextureOperand 3638 "a sampler only as source operand 2 of tex";
    IndirectInFragment 3639 "indirect addressing only in vertex programs";
    IndirectNotConstant 3640 "indirect addressing only into constants";
    IndirectIndexType 3642 "the index register is an attribute, constant or temporary";
    IndirectFieldsNotZero 3643 "a direct operand has zero index offset, type and lane";
    VaryingReadInVertex 3644 "varyings are read only in fragment programs";
    AttributeReadInFragment 3645 "attributes are read only in vertex programs";
    OutputRead 3646 "output registers are not read";
    TemporaryNotWritten 3647 "a temporary is written before it is read";
    TemporaryComponentNotWritten 3648 "every temporary component read was written before";
    SamplerWritten 3649 "samplers are not written";
    VaryingWrittenInFragment 3650 "varyings are written only in vertex programs";
    AttributeWritten 3651 "attributes are not written";
    ConstantWritten 3652 "constants are not written";
    ZeroWriteMask 3653 "a destination writes at least one component";
    ReservedBits 3654 "reserved bits are zero";
    UnknownRegisterType 3655 "register types are 0 to 7";
    SamplerIndex 3656 "sampler numbers are within the profile's limit";
    VaryingIndex 3657 "varying numbers are within the profile's limit";
    AttributeIndex 3658 "attribute numbers are within the profile's limit";
    ConstantIndex 3659 "constant numbers are within the profile's limit";
    OutputIndex 3660 "output numbers are within the profile's limit";
    TemporaryIndex 3661 "temporary numbers are within the profile's limit";
    CubeNotClamp 3662 "cube map samplers clamp";
    SamplerDimension 3664 "the sampler dimension is 2d or cube";
    SamplerFilter 3665 "the sampler filter is nearest, linear or anisotropic";
    SamplerMipmap 3666 "the sampler mipmap mode is none, nearest or linear";
    SamplerWrap 3667 "the sampler wrap mode is one of the four defined";
    SamplerSpecial 3668 "only the centroid, single and ignoresampler special flags";
    MatrixSwizzle 3689 "the matrix operand of m33, m34 and m44 is not swizzled";
    TextureNeedsSampler 3693 "source operand 2 of tex is a sampler";
    SamplerMismatch 3696 "every use of a sampler register has the same flags";
    ColorOutputMask 3701 "the colour output is written with all four components at once";
    ScalarSwizzle 3703 "kil and the conditionals read a replicated swizzle (xxxx, yyyy, zzzz, wwww)";
    CubeNoMipmap 3704 "cube map samplers enable mipmapping";
    NativeAluLimit 3716 "no more ALU instructions than the profile's native shaders allow";
    NativeTextureLimit 3717 "no more texture instructions than the profile's native shaders allow";
    VersionNotInProfile 3725 "the AGAL version is one the profile supports";
    OpcodeNeedsVersion2 3726 "AGAL 2 opcodes only in programs of version 2 or later";
    OpenBlock 3739 "every conditional is closed by the end of the program";
    TexCoordInConditional 3741 "tex inside a conditional reads its coordinates from a varying";
    DerivativeInConditional 3742 "ddx and ddy are not inside conditionals";
    ColorOutputRewritten 3744 "a colour output is written once";
    EmptyBranch 3748 "no conditional branch is empty";
    DepthIndex 3749 "od exists (AGAL 2 and later) and is od0";
    DepthInVertex 3750 "od only in fragment programs";
    OutputInConditional 3751 "output registers are not written inside conditionals";
    BrokenElseChain 3752 "els follows an open if, once";
    DepthMask 3756 "od is written with mask .x";
    VersionMismatch 3757 "vertex and fragment program have the same version";
    ConstantCondition 3758 "a conditional compares two different operands";
    NonConsecutiveOutputs 3775 "the colour outputs written are oc0, oc1 … without gaps";
    InstanceIdWritten 3786 "the instance id register is not written";
    InstanceIdInFragment 3788 "the instance id register is read only in vertex programs";
    InstanceIdNeedsVersion3 3789 "the instance id register needs AGAL 3";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_sorted() {
        for w in Rule::ALL.windows(2) {
            assert!(w[0].code() < w[1].code(), "{:?} {:?}", w[0], w[1]);
        }
    }
}
