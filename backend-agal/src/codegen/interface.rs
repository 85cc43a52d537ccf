//! Where the interface lives (docs/conventions.md): vertex inputs at location L in `vaL`, fragment
//! inputs in varying `vL`; `gl_Position` in `op`, vertex outputs at location L in varying `vL`,
//! fragment outputs at location L in `ocL`, `gl_FragDepth` in `od`; uniforms from register 0
//! of `vc` (vertex) or `fc` (fragment); samplers at binding B in `fsB`. Each register is
//! checked against the profile's table, and an error names the limit and the count.

use crate::rules::CodegenRule;
use mir::Diagnostic;
use mir::module::{BuiltIn, Module};

use super::samplers::{self, SamplerFlags};
use crate::header::Stage;
use crate::limits::{Limits, Profile};
use crate::operand::{Mask, RegType};
use crate::sampler::Sampler;

/// Where an output is written, and the lanes the write must cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputReg {
    /// `op`, `oc`, `od` or a varying.
    pub reg: RegType,
    /// The register number.
    pub index: u16,
    /// The lanes written: all four (Flash requires it of `op`, `oc` and varyings), or `x`
    /// for `od`.
    pub mask: Mask,
}

/// The registers of a module's interface.
#[derive(Clone, Debug)]
pub struct Interface {
    /// The program's stage.
    pub stage: Stage,
    /// Each input's register (by the module's input order).
    pub inputs: Vec<(RegType, u16)>,
    /// Each output's register (by the module's output order); `None` for one Stage3D has no
    /// register for (`gl_PointSize`).
    pub outputs: Vec<Option<OutputReg>>,
    /// How many constant registers the uniforms take (the literal pool follows).
    pub uniform_registers: u16,
    /// Each sampler with its flags (by the module's sampler order).
    pub samplers: Vec<Sampler>,
}

/// The AGAL stage of a MIR module, or why there is none.
pub fn stage(module: &Module) -> Result<Stage, Box<Diagnostic>> {
    match module.stage {
        mir::Stage::Vertex => Ok(Stage::Vertex),
        mir::Stage::Fragment => Ok(Stage::Fragment),
        mir::Stage::Geometry => Err(Box::new(Diagnostic::error(
            CodegenRule::Unsupported,
            "Stage3D has no geometry stage: AGAL programs are vertex or fragment programs",
        ))),
    }
}

/// Assigns every input, output, uniform and sampler its register.
pub fn assign(
    module: &Module,
    profile: Profile,
    sampler_flags: &[SamplerFlags],
) -> Result<Interface, Vec<Diagnostic>> {
    let limits: &Limits = profile.limits();
    let stage = stage(module).map_err(|d| vec![*d])?;
    let mut errors = Vec::new();
    let limit = |what: String| Diagnostic::error(CodegenRule::Limit, what);

    // gl_InstanceIndex is `iid`, which AGAL 3 vertex programs have.
    let f = &module.function;
    let reads_iid = f
        .layout
        .iter()
        .flat_map(|&b| &f.blocks[b].insts)
        .find(|&&i| f.insts[i].op == mir::Op::InstanceIndex);
    if let Some(&i) = reads_iid {
        if profile.version() < crate::header::Version::V3 || stage != Stage::Vertex {
            errors.push(
                Diagnostic::error(
                    CodegenRule::Unsupported,
                    format!(
                        "gl_InstanceIndex: AGAL reads the instance number from `iid` in vertex \
                         programs of AGAL 3 (the standardExtended profile); this is a {} \
                         program for the {profile} profile (AGAL {})",
                        stage.name(),
                        profile.version().number()
                    ),
                )
                .with_span(f.insts[i].span),
            );
        }
    }

    let mut inputs = Vec::new();
    for (_, input) in module.inputs.iter() {
        let (reg, count, file) = match stage {
            Stage::Vertex => (RegType::Attribute, limits.attributes, "attributes"),
            Stage::Fragment => (RegType::Varying, limits.varyings, "varyings"),
        };
        match u16::try_from(input.location) {
            Ok(l) if l < count => inputs.push((reg, l)),
            _ => {
                errors.push(limit(format!(
                    "input `{}` at location {}: the {profile} profile has {count} {file} ({} \
                     to {}), and an input's location is its register",
                    input.name,
                    input.location,
                    reg.register_name(stage, 0),
                    reg.register_name(stage, count.saturating_sub(1)),
                )));
                inputs.push((reg, 0));
            }
        }
    }

    let mut outputs = Vec::new();
    for o in &module.outputs {
        let slot = match (stage, o.builtin, o.location) {
            (_, Some(BuiltIn::PointSize), _) => None,
            (Stage::Vertex, Some(BuiltIn::Position), _) => Some((RegType::Output, 0, Mask::XYZW)),
            (Stage::Fragment, Some(BuiltIn::FragDepth), _) => {
                if limits.depth_outputs == 0 {
                    errors.push(Diagnostic::error(
                        CodegenRule::Unsupported,
                        format!(
                            "`{}` writes the fragment depth: AGAL {} (the {profile} profile) \
                             has no depth output; od needs AGAL 2 (the standard profiles)",
                            o.name, limits.version
                        ),
                    ));
                }
                Some((RegType::Depth, 0, Mask::X))
            }
            (Stage::Vertex, None, Some(l)) => match u16::try_from(l) {
                Ok(l) if l < limits.varyings => Some((RegType::Varying, l, Mask::XYZW)),
                _ => {
                    errors.push(limit(format!(
                        "output `{}` at location {l}: the {profile} profile has {} varyings \
                         (v0 to v{}), and a vertex output's location is its varying",
                        o.name,
                        limits.varyings,
                        limits.varyings.saturating_sub(1)
                    )));
                    None
                }
            },
            (Stage::Fragment, None, Some(l)) => match u16::try_from(l) {
                Ok(l) if l < limits.color_outputs => Some((RegType::Output, l, Mask::XYZW)),
                _ => {
                    errors.push(limit(format!(
                        "output `{}` at location {l}: the {profile} profile has {} colour \
                         output{} (oc{})",
                        o.name,
                        limits.color_outputs,
                        if limits.color_outputs == 1 { "" } else { "s" },
                        if limits.color_outputs == 1 {
                            String::new()
                        } else {
                            format!(" to oc{}", limits.color_outputs - 1)
                        }
                    )));
                    None
                }
            },
            (_, builtin, location) => {
                errors.push(Diagnostic::error(
                    CodegenRule::Unsupported,
                    format!(
                        "output `{}` ({}) has no AGAL register in a {} program",
                        o.name,
                        match (builtin, location) {
                            (Some(b), _) => format!("built-in {b:?}"),
                            (None, Some(l)) => format!("location {l}"),
                            (None, None) => "no location".into(),
                        },
                        stage.name()
                    ),
                ));
                None
            }
        };
        outputs.push(slot.map(|(reg, index, mask)| OutputReg { reg, index, mask }));
    }

    let constants = match stage {
        Stage::Vertex => limits.vertex_constants,
        Stage::Fragment => limits.fragment_constants,
    };
    // Bool uniforms were given float registers by `prepare`.
    let uniform_registers = module.first_free_float_register();
    if uniform_registers > u32::from(constants) {
        errors.push(limit(format!(
            "the uniforms take {uniform_registers} constant registers; the {profile} profile \
             has {constants} {} registers",
            RegType::Constant.prefix(stage)
        )));
    }

    if stage == Stage::Vertex && !module.samplers.is_empty() {
        errors.push(Diagnostic::error(
            CodegenRule::Unsupported,
            "AGAL vertex programs cannot sample textures (samplers exist only in fragment \
             programs)",
        ));
    }
    let samplers = match samplers::samplers(module, sampler_flags, limits.samplers) {
        Ok(s) => s,
        Err(e) => {
            errors.extend(e);
            Vec::new()
        }
    };
    if errors.is_empty() {
        Ok(Interface {
            stage,
            inputs,
            outputs,
            uniform_registers: uniform_registers.min(u32::from(u16::MAX)) as u16,
            samplers,
        })
    } else {
        Err(errors)
    }
}
