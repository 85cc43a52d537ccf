//! Checks on one operand field at a time (reserved bits, register type, index bounds,
//! direction and stage, relative addressing, sampler flags) and the rules that relate the two
//! sources of a token.
//!
//! Order inside a field follows what Flash reports for broken uploads: a register's index is
//! checked against the profile before the question whether the stage may use the register
//! (`od` in an AGAL 1 program is "index out of bounds", #3749, whether read or written).

use super::{Checker, Rule, reg_name};
use crate::header::{Stage, Version};
use crate::opcode::{Opcode, Shape};
use crate::operand::{Address, Component, Dest, Indirect, Mask, RegType, Source, Swizzle};
use crate::program::Field;
use crate::sampler::{Dimension, Filter, Format, Mipmap, Sampler, Special, Wrap};
use crate::token::{RawDest, RawSampler, RawSource, RawToken};

/// The rule an out-of-bounds index of a register file breaks.
fn bounds_rule(ty: RegType) -> Rule {
    match ty {
        RegType::Attribute => Rule::AttributeIndex,
        RegType::Constant => Rule::ConstantIndex,
        RegType::Temporary => Rule::TemporaryIndex,
        RegType::Output => Rule::OutputIndex,
        RegType::Varying => Rule::VaryingIndex,
        RegType::Sampler => Rule::SamplerIndex,
        RegType::Depth => Rule::DepthIndex,
        RegType::InstanceId => Rule::InstanceIdNeedsVersion3,
    }
}

impl Checker {
    /// Whether registers `index .. index + count` of the file exist; reports #3656–#3661,
    /// #3749 or #3789 if not.
    fn check_bounds(&mut self, ty: RegType, index: u16, count: u16, field: Field) -> bool {
        if ty == RegType::InstanceId && self.version < Version::V3 {
            self.at(
                Rule::InstanceIdNeedsVersion3,
                Some(field),
                format!(
                    "the instance id register needs AGAL version 3, the program is version {}",
                    self.version
                ),
            );
            return false;
        }
        let have = self.limits.count(ty, self.stage);
        let last = u32::from(index) + u32::from(count) - 1;
        if last < u32::from(have) {
            return true;
        }
        let name = reg_name(self.stage, ty, last.min(u32::from(u16::MAX)) as u16);
        let message = if have == 0 {
            format!(
                "{name}: there is no {} register in AGAL version {}",
                ty.description(),
                self.version
            )
        } else {
            format!(
                "{name} is out of bounds: {have} {} registers ({} to {})",
                ty.description(),
                reg_name(self.stage, ty, 0),
                reg_name(self.stage, ty, have - 1)
            )
        };
        self.at(bounds_rule(ty), Some(field), message);
        false
    }

    /// The destination field of an opcode that has one.
    pub(super) fn check_dest(&mut self, op: Opcode, field: u32) -> Option<Dest> {
        let f = Some(Field::Destination);
        let r = RawDest::unpack(field);
        if r.reserved != 0 {
            self.at(
                Rule::ReservedBits,
                f,
                format!(
                    "reserved bits {:#010x} of the destination of {op} are set",
                    r.reserved
                ),
            );
            return None;
        }
        let Some(ty) = RegType::from_code(r.ty) else {
            self.at(
                Rule::UnknownRegisterType,
                f,
                format!("the destination of {op} has register type {}", r.ty),
            );
            return None;
        };
        if !self.check_bounds(ty, r.number, 1, Field::Destination) {
            return None;
        }
        let name = reg_name(self.stage, ty, r.number);
        let refuse = match (ty, self.stage) {
            (RegType::Attribute, _) => Some(Rule::AttributeWritten),
            (RegType::Constant, _) => Some(Rule::ConstantWritten),
            (RegType::Sampler, _) => Some(Rule::SamplerWritten),
            (RegType::Varying, Stage::Fragment) => Some(Rule::VaryingWrittenInFragment),
            (RegType::Depth, Stage::Vertex) => Some(Rule::DepthInVertex),
            (RegType::InstanceId, _) => Some(Rule::InstanceIdWritten),
            _ => None,
        };
        if let Some(rule) = refuse {
            self.at(
                rule,
                f,
                format!("{op} writes {name}, which this program cannot write"),
            );
            return None;
        }
        let Some(mask) = Mask::new(r.mask) else {
            self.at(
                Rule::ZeroWriteMask,
                f,
                format!("{op} writes {name} with an empty write mask"),
            );
            return None;
        };
        Some(Dest::new(ty, r.number, mask))
    }

    /// A register source field (not the sampler of `tex`).
    pub(super) fn check_source(&mut self, op: Opcode, field: u64, which: Field) -> Option<Source> {
        let f = Some(which);
        let r = RawSource::unpack(field);
        if r.reserved != 0 {
            self.at(
                Rule::ReservedBits,
                f,
                format!(
                    "reserved bits {:#018x} of the {which} of {op} are set",
                    r.reserved
                ),
            );
            return None;
        }
        let Some(ty) = RegType::from_code(r.ty) else {
            self.at(
                Rule::UnknownRegisterType,
                f,
                format!("the {which} of {op} has register type {}", r.ty),
            );
            return None;
        };
        let swizzle = Swizzle::from_bits(r.swizzle);
        let source = if r.indirect {
            let by = self.check_indirect(op, ty, &r, which)?;
            Source::indirect(ty, by, swizzle)
        } else {
            if r.offset != 0 || r.index_ty != 0 || r.select != 0 {
                self.at(
                    Rule::IndirectFieldsNotZero,
                    f,
                    format!("the {which} of {op} is direct but has index fields set (offset {}, type {}, lane {})", r.offset, r.index_ty, r.select),
                );
                return None;
            }
            let rows = match (op.matrix_rows(), which) {
                (Some(n), Field::Source2) => n,
                _ => 1,
            };
            if !self.check_bounds(ty, r.number, rows, which) {
                return None;
            }
            Source::new(ty, r.number, swizzle)
        };
        let name = match source.address {
            Address::Direct(n) => reg_name(self.stage, ty, n),
            Address::Indirect(_) => format!("{}[…]", ty.prefix(self.stage)),
        };
        let refuse = match (ty, self.stage) {
            (RegType::Output | RegType::Depth, _) => Some(Rule::OutputRead),
            (RegType::Sampler, Stage::Vertex) => Some(Rule::SamplerInVertexProgram),
            (RegType::Sampler, Stage::Fragment) => Some(Rule::SamplerNotTextureOperand),
            (RegType::Varying, Stage::Vertex) => Some(Rule::VaryingReadInVertex),
            (RegType::Attribute, Stage::Fragment) => Some(Rule::AttributeReadInFragment),
            (RegType::InstanceId, Stage::Fragment) => Some(Rule::InstanceIdInFragment),
            _ => None,
        };
        if let Some(rule) = refuse {
            self.at(
                rule,
                f,
                format!("{op} reads {name}, which this program cannot read there"),
            );
            return None;
        }
        Some(source)
    }

    /// The index part of a relative source.
    fn check_indirect(
        &mut self,
        op: Opcode,
        ty: RegType,
        r: &RawSource,
        which: Field,
    ) -> Option<Indirect> {
        let f = Some(which);
        let base = ty.prefix(self.stage);
        if self.stage == Stage::Fragment {
            self.at(
                Rule::IndirectInFragment,
                f,
                format!("{op} reads {base}[…] by relative addressing in a fragment program"),
            );
            return None;
        }
        if ty != RegType::Constant {
            self.at(
                Rule::IndirectNotConstant,
                f,
                format!("{op} reads {base}[…] by relative addressing; only constants can be"),
            );
            return None;
        }
        let index_ty = RegType::from_code(r.index_ty).filter(|t| {
            matches!(
                t,
                RegType::Attribute | RegType::Constant | RegType::Temporary
            )
        });
        let Some(index_ty) = index_ty else {
            self.at(
                Rule::IndirectIndexType,
                f,
                format!(
                    "the index register of the {which} of {op} has type {}",
                    r.index_ty
                ),
            );
            return None;
        };
        if !self.check_bounds(index_ty, r.number, 1, which) {
            return None;
        }
        Some(Indirect {
            reg: index_ty,
            index: r.number,
            select: Component::from_bits(r.select),
            offset: r.offset,
        })
    }

    /// The sampler field of `tex`.
    pub(super) fn check_sampler(&mut self, op: Opcode, field: u64) -> Option<Sampler> {
        let f = Some(Field::Source2);
        let r = RawSampler::unpack(field);
        if r.ty != RegType::Sampler.code() {
            self.at(
                Rule::TextureNeedsSampler,
                f,
                format!(
                    "source operand 2 of {op} has register type {}, not a sampler",
                    r.ty
                ),
            );
            return None;
        }
        if r.reserved != 0 {
            self.at(
                Rule::ReservedBits,
                f,
                format!(
                    "reserved bits {:#018x} of the sampler of {op} are set",
                    r.reserved
                ),
            );
            return None;
        }
        let name = reg_name(self.stage, RegType::Sampler, r.number);
        let dimension = Dimension::from_code(r.dimension).filter(|d| *d != Dimension::ThreeD);
        let filter = Filter::from_code(r.filter);
        let mipmap = Mipmap::from_code(r.mipmap);
        let wrap = Wrap::from_code(r.wrap);
        let special = Special::new(r.special);
        let format = Format::from_code(r.format);
        let mut ok = true;
        for (valid, rule, what, v) in [
            (
                dimension.is_some(),
                Rule::SamplerDimension,
                "dimension",
                r.dimension,
            ),
            (filter.is_some(), Rule::SamplerFilter, "filter", r.filter),
            (
                mipmap.is_some(),
                Rule::SamplerMipmap,
                "mipmap mode",
                r.mipmap,
            ),
            (wrap.is_some(), Rule::SamplerWrap, "wrap mode", r.wrap),
            (
                special.is_some(),
                Rule::SamplerSpecial,
                "special flags",
                r.special,
            ),
            (
                format.is_some(),
                Rule::ReservedBits,
                "texture format",
                r.format,
            ),
        ] {
            if !valid {
                self.at(rule, f, format!("{name} has unknown {what} {v}"));
                ok = false;
            }
        }
        if !self.check_bounds(RegType::Sampler, r.number, 1, Field::Source2) {
            ok = false;
        }
        let (
            Some(dimension),
            Some(filter),
            Some(mipmap),
            Some(wrap),
            Some(special),
            Some(format),
            true,
        ) = (dimension, filter, mipmap, wrap, special, format, ok)
        else {
            return None;
        };
        let s = Sampler {
            index: r.number,
            dimension,
            filter,
            mipmap,
            wrap,
            format,
            special,
            lod_bias: r.bias,
        };
        if dimension == Dimension::Cube {
            if wrap != Wrap::Clamp {
                self.at(
                    Rule::CubeNotClamp,
                    f,
                    format!("{name} is a cube map but does not clamp"),
                );
            }
            if mipmap == Mipmap::None {
                self.at(
                    Rule::CubeNoMipmap,
                    f,
                    format!("{name} is a cube map without mipmapping"),
                );
            }
        }
        match self.samplers.iter().find(|(n, _)| *n == r.number) {
            Some((_, first)) if *first != field => {
                self.at(
                    Rule::SamplerMismatch,
                    f,
                    format!("{name} is used again with different flags"),
                );
            }
            Some(_) => {}
            None => {
                self.samplers.push((r.number, field));
                self.info.samplers.push(s);
            }
        }
        Some(s)
    }

    /// Rules between the operands of one token.
    pub(super) fn check_pair(
        &mut self,
        op: Opcode,
        t: RawToken,
        a: Option<&Source>,
        b: Option<&Source>,
    ) {
        let shape = op.shape();
        if let (Some(a), Some(b)) = (a, b) {
            let indirect = |s: &Source| matches!(s.address, Address::Indirect(_));
            if indirect(a) && indirect(b) {
                self.at(
                    Rule::BothIndirect,
                    None,
                    format!("both source operands of {op} are relative reads"),
                );
            }
            if a.reg == RegType::Constant && b.reg == RegType::Constant {
                self.at(
                    Rule::BothConstants,
                    None,
                    format!("both source operands of {op} are constants (precompute the result)"),
                );
            }
        }
        if shape == Shape::Matrix {
            if let Some(b) = b.filter(|b| b.swizzle != Swizzle::IDENTITY) {
                self.at(
                    Rule::MatrixSwizzle,
                    Some(Field::Source2),
                    format!("the matrix operand of {op} is swizzled (.{})", b.swizzle),
                );
            }
        }
        if matches!(shape, Shape::Kill | Shape::Condition) {
            for (s, which) in [(a, Field::Source1), (b, Field::Source2)] {
                if let Some(s) = s.filter(|s| s.swizzle.scalar().is_none()) {
                    self.at(
                        Rule::ScalarSwizzle,
                        Some(which),
                        format!(
                            "{op} needs a replicated swizzle (xxxx, yyyy, zzzz or wwww), not .{}",
                            s.swizzle
                        ),
                    );
                }
            }
        }
        if shape == Shape::Condition && a.is_some() && t.src1 == t.src2 {
            self.at(
                Rule::ConstantCondition,
                None,
                format!("{op} compares an operand with itself"),
            );
        }
    }
}
