//! What the application needs to feed a compiled program: docs/conventions.md's reflection, and
//! the JSON glsl2agal writes (`varnames`, `consts`, `agalasm`, `agalbin`), which existing
//! Stage3D loaders read.

use mir::module::{Module, TextureDim};
use mir::reflect::{
    ConstantInfo, InputInfo, OutputInfo, Reflection, SamplerInfo, Stats, UniformInfo, mask_letters,
};

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
    let inputs = m
        .inputs
        .iter()
        .zip(&iface.inputs)
        .map(|((_, i), (reg, n))| InputInfo {
            name: i.name.clone(),
            location: i.location,
            register: reg.register_name(stage, *n),
        })
        .collect();
    let outputs = m
        .outputs
        .iter()
        .zip(&iface.outputs)
        .filter_map(|(o, slot)| {
            let slot = slot.as_ref()?;
            Some(OutputInfo {
                name: o.name.clone(),
                location: o.location,
                builtin: o.builtin.map(|b| format!("{b:?}")),
                register: slot.reg.register_name(stage, slot.index),
                semantic: None,
                mask: mask_letters(slot.mask.bits()),
            })
        })
        .collect();
    let constant =
        |r: u32| RegType::Constant.register_name(stage, r.min(u32::from(u16::MAX)) as u16);
    let uniforms = m
        .uniforms
        .iter()
        .map(|u| UniformInfo {
            name: u.name.clone(),
            block: u.block.clone(),
            type_name: u.type_name.clone(),
            layout: u.layout.map(|l| l.name().to_string()),
            register: constant(u.register),
            component: u.component,
            count: u.count,
        })
        .collect();
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
        target: "agal".into(),
        agal_version: Some(agal_version),
        stage: stage.name().into(),
        entry_point: m.entry_point.clone(),
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
    }
}
