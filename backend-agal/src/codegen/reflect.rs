//! What the application needs to feed a compiled program: docs/conventions.md's reflection, and
//! the JSON glsl2agal writes (`varnames`, `consts`, `agalasm`, `agalbin`), which existing
//! Stage3D loaders read.

use machine::reflect::{
    ConstantInfo, OutputInfo, Reflection, SamplerInfo, Stats, inputs, uniforms,
};
use mir::module::{Module, TextureDim};

use super::interface::Interface;
use crate::operand::RegType;
use crate::sampler::Sampler;

/// The reflection of a compiled program.
pub fn reflection(
    m: &Module,
    iface: &Interface,
    constants: &[(u16, [f32; 4])],
    samplers: &[Sampler],
    instructions: usize,
    temporaries: usize,
    agal_version: u8,
) -> Reflection {
    let stage = iface.stage;
    let inputs = inputs(m, |k, _| {
        iface
            .inputs
            .get(k)
            .map_or_else(String::new, |(reg, n)| reg.register_name(stage, *n))
    });
    let outputs = m
        .outputs
        .iter()
        .zip(&iface.outputs)
        .filter_map(|(o, slot)| {
            let slot = slot.as_ref()?;
            Some(OutputInfo::of(
                o,
                slot.reg.register_name(stage, slot.index),
                None,
                slot.mask.bits(),
            ))
        })
        .collect();
    let uniforms = uniforms(m, |u| {
        RegType::Constant.register_name(stage, u.register.min(u32::from(u16::MAX)) as u16)
    });
    let constants_info = constants
        .iter()
        .map(|(r, value)| ConstantInfo {
            register: RegType::Constant.register_name(stage, *r),
            value: *value,
        })
        .collect();
    let sampler_info = m
        .samplers
        .iter()
        .filter_map(|(_, s)| {
            let flags = samplers.iter().find(|x| u32::from(x.index) == s.binding)?;
            Some(SamplerInfo {
                name: s.name.clone(),
                binding: s.binding,
                register: format!("fs{}", s.binding),
                dim: match s.dim {
                    TextureDim::D2 => "2d",
                    TextureDim::Cube => "cube",
                }
                .into(),
                flags: flags.flag_names(),
            })
        })
        .collect();
    Reflection {
        inputs,
        outputs,
        uniforms,
        constants: constants_info,
        samplers: sampler_info,
        stats: Stats {
            instructions,
            temporaries,
            constant_registers: constants.len(),
            operand_descriptors: None,
        },
        ..Reflection::of(m, "agal", Some(agal_version))
    }
}
