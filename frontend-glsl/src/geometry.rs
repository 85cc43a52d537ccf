//! GLSL geometry shaders, through glslang (naga's GLSL front end has no geometry stage).
//!
//! Vulkan-style GLSL (explicit locations, uniform blocks) is compiled as it is, for Vulkan.
//! Classic GLSL 1.50–3.30 (no locations, loose uniforms) gets locations first, in place
//! and on the same lines: an `in` array takes the location the vertex shader's varying of
//! its name has (when the geometry shader is linked after a classic vertex shader; else
//! declaration order), an `out` the next in declaration order, and a loose uniform the
//! next registers in declaration order (a matrix a register per column, an array one per
//! element); `#version 150` is read as 4.30 (locations on geometry inputs and uniforms need it, and
//! OpenGL SPIR-V 3.30 at least; 1.50's geometry shaders are a subset), and the result is compiled for OpenGL SPIR-V, whose loose
//! uniforms `frontend-spirv` places by location.
//!
//! glslang's errors (`ERROR: 0:12: 'x' : undeclared identifier`) are reported at the
//! author's line under `glsl.glslang`.

use glslang::{
    Compiler, CompilerOptions, OpenGlVersion, ShaderInput, ShaderSource, ShaderStage,
    SourceLanguage, SpirvVersion, Target, VulkanVersion,
};
use mir::{Diagnostic, Diagnostics};

use crate::Rejected;
use crate::rules::Rule;
use crate::to_spirv::{Glsl, Input};

/// A geometry shader's text (called `name`) → SPIR-V.
pub fn geometry(text: &str, input: &Input<'_>) -> Result<Glsl, Rejected> {
    let compiler = Compiler::acquire().ok_or_else(|| {
        refusal(
            text,
            vec![(None, "glslang could not be initialised".to_string())],
        )
    })?;
    let defines: Vec<(&str, Option<&str>)> = input
        .defines
        .iter()
        .map(|(n, v)| (n.as_str(), Some(v.as_str())))
        .collect();
    let vulkan = Target::Vulkan {
        version: VulkanVersion::Vulkan1_0,
        spirv_version: SpirvVersion::SPIRV1_0,
    };
    let opengl = Target::OpenGL {
        version: OpenGlVersion::OpenGL4_5,
        spirv_version: Some(SpirvVersion::SPIRV1_0),
    };
    // Vulkan-style text for Vulkan, falling back to OpenGL SPIR-V for explicit loose
    // uniforms (`layout(location = 0) uniform vec4 p;`, what `glslangValidator -G` reads);
    // classic text with locations added, for OpenGL SPIR-V.
    let attempts = if has_locations(text) {
        vec![(text.to_string(), vulkan), (text.to_string(), opengl)]
    } else {
        vec![(with_locations(text, input.varyings.unwrap_or(&[])), opengl)]
    };
    let mut first_error = None;
    let mut words = None;
    for (source, target) in attempts {
        match compile(compiler, &source, target, &defines) {
            Ok(w) => {
                words = Some(w);
                break;
            }
            Err(log) => {
                // Report the Vulkan attempt's errors, unless all it said is that loose
                // uniforms are OpenGL's (then the OpenGL attempt's say more).
                let loose = log.contains("non-opaque uniforms outside a block");
                if first_error.is_none() || loose {
                    first_error = Some(log);
                }
                if !loose {
                    break;
                }
            }
        }
    }
    let Some(words) = words else {
        let log = first_error.unwrap_or_default();
        return Err(refusal(text, parse_log(&log)));
    };
    // glslang writes no OpLine here: line n is line n.
    let lines = text.split('\n').count() as u32;
    Ok(Glsl {
        words: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        warnings: Vec::new(),
        hints: Default::default(),
        line_map: (1..=lines).collect(),
    })
}

/// One glslang compile; its log on failure.
fn compile(
    compiler: &Compiler,
    text: &str,
    target: Target,
    defines: &[(&str, Option<&str>)],
) -> Result<Vec<u32>, String> {
    let source = ShaderSource::from(text.to_string());
    let options = CompilerOptions {
        source_language: SourceLanguage::GLSL,
        target,
        version_profile: None,
        ..CompilerOptions::default()
    };
    let log = |e: glslang::error::GlslangError| match e {
        glslang::error::GlslangError::PreprocessError(l)
        | glslang::error::GlslangError::ParseError(l)
        | glslang::error::GlslangError::LinkError(l)
        | glslang::error::GlslangError::MapIoError(l) => l,
        other => other.to_string(),
    };
    let input = ShaderInput::new(
        &source,
        ShaderStage::Geometry,
        &options,
        Some(defines),
        None,
    )
    .map_err(log)?;
    let shader = glslang::Shader::new(compiler, input).map_err(log)?;
    shader.compile().map_err(log)
}

/// Whether the shader places its interface itself (`layout(location` or a uniform block).
fn has_locations(text: &str) -> bool {
    text.contains("location") || text.contains("binding")
}

/// Locations for a classic geometry shader's `in` arrays, `out`s and loose uniforms,
/// inserted on their own lines (see the module's documentation).
fn with_locations(text: &str, varyings: &[(String, u32)]) -> String {
    let mut next_in = varyings.iter().map(|(_, l)| l + 1).max().unwrap_or(0);
    let mut next_out = 0u32;
    let mut next_uniform = 0u32;
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let words: Vec<&str> = trimmed
            .split(|c: char| c.is_whitespace() || c == ';' || c == '[')
            .filter(|w| !w.is_empty())
            .collect();
        let qualifier = words.first().copied().unwrap_or("");
        if let Some(version) = trimmed.strip_prefix("#version") {
            let number: u32 = version
                .split_whitespace()
                .next()
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            if number < 430 {
                out.push_str(&format!("{indent}#version 430\n"));
                continue;
            }
        }
        let declaration = trimmed.ends_with(";\n") || trimmed.ends_with(';');
        match (qualifier, words.len()) {
            ("in" | "varying", 3..) if declaration && !trimmed.contains('(') => {
                // `in vec4 color[];` or `varying in vec4 color[];`
                let name = if words[1] == "in" {
                    words.get(3)
                } else {
                    words.get(2)
                };
                let Some(name) = name else {
                    out.push_str(line);
                    continue;
                };
                if name.starts_with("gl_") {
                    out.push_str(line);
                    continue;
                }
                let location = varyings
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, l)| *l)
                    .unwrap_or_else(|| {
                        next_in += 1;
                        next_in - 1
                    });
                let rest = if words[1] == "in" {
                    trimmed.replacen("varying in", "in", 1)
                } else {
                    trimmed.to_string()
                };
                out.push_str(&format!("{indent}layout(location = {location}) {rest}"));
            }
            ("out" | "varying", 3..) if declaration && !trimmed.contains('(') => {
                let name = if words[1] == "out" {
                    words.get(3)
                } else {
                    words.get(2)
                };
                if name.is_some_and(|n| n.starts_with("gl_")) {
                    out.push_str(line);
                    continue;
                }
                let rest = if words[1] == "out" {
                    trimmed.replacen("varying out", "out", 1)
                } else {
                    trimmed.to_string()
                };
                out.push_str(&format!("{indent}layout(location = {next_out}) {rest}"));
                next_out += 1;
            }
            ("uniform", 3..) if declaration && !words[1].starts_with("sampler") => {
                let count: u32 = trimmed
                    .split('[')
                    .nth(1)
                    .and_then(|s| s.split(']').next())
                    .and_then(|s| s.trim().parse().ok())
                    .unwrap_or(1);
                let columns = match words[1] {
                    "mat2" => 2,
                    "mat3" => 3,
                    "mat4" => 4,
                    t if t.starts_with("mat") => {
                        t.chars().nth(3).and_then(|c| c.to_digit(10)).unwrap_or(4)
                    }
                    _ => 1,
                };
                out.push_str(&format!(
                    "{indent}layout(location = {next_uniform}) {trimmed}"
                ));
                next_uniform += columns * count;
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// glslang's log as (line, message) pairs.
fn parse_log(log: &str) -> Vec<(Option<u32>, String)> {
    let mut out = Vec::new();
    for l in log.lines() {
        let Some(rest) = l.strip_prefix("ERROR: ") else {
            continue;
        };
        // `0:12: 'x' : undeclared identifier`
        let mut parts = rest.splitn(3, ':');
        let (file, line, message) = (parts.next(), parts.next(), parts.next());
        match (
            file,
            line.and_then(|x| x.trim().parse::<u32>().ok()),
            message,
        ) {
            (Some(_), Some(n), Some(m)) => out.push((Some(n), m.trim().to_string())),
            _ => out.push((None, rest.trim().to_string())),
        }
    }
    // glslang's count ("1 compilation errors.  No code generated.") says nothing more.
    if out.len() > 1 {
        out.retain(|(line, m)| {
            (line.is_some() || !m.contains("compilation errors"))
                && !m.contains("compilation terminated")
        });
    }
    if out.is_empty() {
        out.push((None, log.trim().to_string()));
    }
    out
}

/// The refusal of `text` for glslang's errors, at the author's lines.
fn refusal(text: &str, errors: Vec<(Option<u32>, String)>) -> Rejected {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let mut diagnostics = Vec::new();
    let mut ranged = false;
    for (line, message) in errors {
        let mut d = Diagnostic::error(Rule::GlslGlslang, message);
        if let Some(n) = line {
            if let Some(&start) = starts.get(n.saturating_sub(1) as usize) {
                let end = text[start..].find('\n').map_or(text.len(), |e| start + e);
                d = crate::classic::ranged(d, start..end);
                ranged = true;
            }
        }
        diagnostics.push(d);
    }
    Rejected {
        diagnostics: Diagnostics(diagnostics),
        quotes_source: ranged,
    }
}
