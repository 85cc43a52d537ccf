//! Sampler flags: SPIR-V says only which binding and dimension a sampler has; the filter,
//! mipmapping, wrapping and format that AGAL carries in every `tex` come from the user
//! (`--sampler B=FLAG,...`, AGALMiniAssembler's spelling), over docs/conventions.md's defaults:
//! `linear, mipnone, repeat, rgba` for 2D and `linear, miplinear, clamp, rgba` for cube maps.
//! A number among the flags is the LOD bias, as in AGALMiniAssembler.

use crate::rules::CodegenRule;
use mir::Diagnostic;
use mir::module::{Module, TextureDim};

use crate::operand::RegType;
use crate::sampler::{Dimension, Mipmap, Sampler, Wrap};

/// The flags given for one binding.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SamplerFlags {
    /// The binding (the `fs` register).
    pub binding: u32,
    /// The flags, as AGALMiniAssembler spells them (`nearest`, `miplinear`, `clamp`, `dxt5`,
    /// `-0.5` …).
    pub flags: Vec<String>,
}

impl SamplerFlags {
    /// Parses `B=FLAG,FLAG...` (the command line's spelling).
    pub fn parse(spec: &str) -> Result<SamplerFlags, String> {
        let (b, flags) = spec
            .split_once('=')
            .ok_or_else(|| format!("--sampler {spec}: expected B=FLAG,FLAG..."))?;
        let binding = b
            .trim()
            .parse()
            .map_err(|_| format!("--sampler {spec}: {b:?} is not a binding number"))?;
        let flags = flags
            .split(',')
            .map(|f| f.trim().to_string())
            .filter(|f| !f.is_empty())
            .collect();
        Ok(SamplerFlags { binding, flags })
    }
}

/// The LOD bias a flag spells, in eighths, if it is a number AGAL can hold.
pub fn bias_eighths(value: f32) -> Option<i8> {
    let eighths = value * 8.0;
    (eighths.fract() == 0.0 && (-128.0..=127.0).contains(&eighths)).then_some(eighths as i8)
}

/// The sampler of every module sampler (by its index), with the profile's register limit
/// and Flash's rules for cube maps checked.
pub fn samplers(
    module: &Module,
    given: &[SamplerFlags],
    limit: u16,
) -> Result<Vec<Sampler>, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let mut out = Vec::new();
    for g in given {
        if !module.samplers.iter().any(|(_, s)| s.binding == g.binding) {
            errors.push(Diagnostic::error(
                CodegenRule::Option,
                format!(
                    "--sampler {}: the shader has no sampler at binding {}",
                    g.binding, g.binding
                ),
            ));
        }
    }
    for (_, s) in module.samplers.iter() {
        let name = format!("sampler `{}` (binding {})", s.name, s.binding);
        let index = match u16::try_from(s.binding) {
            Ok(i) if i < limit => i,
            _ => {
                errors.push(Diagnostic::error(
                    CodegenRule::Limit,
                    format!(
                        "{name}: AGAL samples through fs0 to fs{}, {limit} sampler registers in \
                         this profile, and a sampler's binding is its register",
                        limit.saturating_sub(1)
                    ),
                ));
                continue;
            }
        };
        let mut sampler = Sampler::new(index);
        let defaults: &[&str] = match s.dim {
            TextureDim::D2 => &["2d", "linear", "mipnone", "repeat", "rgba"],
            TextureDim::Cube => &["cube", "linear", "miplinear", "clamp", "rgba"],
        };
        for f in defaults {
            sampler.apply_flag(f);
        }
        let dimension = sampler.dimension;
        for g in given.iter().filter(|g| g.binding == s.binding) {
            for flag in &g.flags {
                if let Ok(value) = flag.parse::<f32>() {
                    match bias_eighths(value) {
                        Some(b) => sampler.lod_bias = b,
                        None => errors.push(Diagnostic::error(
                            CodegenRule::Option,
                            format!(
                                "--sampler {}: LOD bias {flag} cannot be encoded: AGAL holds \
                                 the bias in eighths from -16 to 15.875",
                                g.binding
                            ),
                        )),
                    }
                } else if !sampler.apply_flag(flag) {
                    errors.push(Diagnostic::error(
                        CodegenRule::Option,
                        format!(
                            "--sampler {}: unknown flag `{flag}` (filters nearest, linear, \
                             anisotropic2x..16x; mipnone, mipnearest, miplinear; clamp, repeat, \
                             clamp_u_repeat_v, repeat_u_clamp_v; rgba, dxt1, dxt5, video; \
                             centroid, single, ignoresampler; a number is the LOD bias)",
                            g.binding
                        ),
                    ));
                }
            }
        }
        if sampler.dimension != dimension {
            errors.push(Diagnostic::error(
                CodegenRule::Option,
                format!(
                    "{name} is a {} texture in the shader; its flags cannot make it another \
                     dimension",
                    if dimension == Dimension::Cube {
                        "cube"
                    } else {
                        "2D"
                    }
                ),
            ));
        }
        if dimension == Dimension::Cube && sampler.wrap != Wrap::Clamp {
            errors.push(Diagnostic::error(
                CodegenRule::Option,
                format!("{name} is a cube map: Flash requires cube maps to clamp (#3662)"),
            ));
        }
        if dimension == Dimension::Cube && sampler.mipmap == Mipmap::None {
            errors.push(Diagnostic::error(
                CodegenRule::Option,
                format!(
                    "{name} is a cube map: Flash requires cube maps to enable mipmapping \
                     (#3704; use mipnearest or miplinear)"
                ),
            ));
        }
        out.push(sampler);
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// The register name of sampler `index` (`fs0`).
pub fn register_name(index: u16) -> String {
    RegType::Sampler.register_name(crate::header::Stage::Fragment, index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse() {
        let s = SamplerFlags::parse("1=nearest, miplinear,-0.5").unwrap();
        assert_eq!(s.binding, 1);
        assert_eq!(s.flags, ["nearest", "miplinear", "-0.5"]);
        assert!(SamplerFlags::parse("nearest").is_err());
        assert!(SamplerFlags::parse("x=nearest").is_err());
        assert_eq!(bias_eighths(-0.5), Some(-4));
        assert_eq!(bias_eighths(0.3), None);
        assert_eq!(bias_eighths(16.0), None);
    }
}
