//! naga's front ends parse and validate the source and its SPIR-V back end writes the
//! module `frontend-spirv` then reads. naga's own errors (with line and column) become
//! [`Rejected`]s under the rule `naga.glsl` or `naga.wgsl`.

use crate::rules::Rule;
#[cfg(feature = "glsl")]
use crate::{Hints, Stage};
use mir::{Diagnostic, Diagnostics};
use naga::back::spv;
use naga::valid::{Capabilities, ValidationFlags, Validator};

use crate::Rejected;

/// What GLSL input needs beside its text.
#[cfg(feature = "glsl")]
#[derive(Clone, Debug, Default)]
pub struct Input<'a> {
    /// `#define`s, as `-D NAME=VALUE`.
    pub defines: &'a [(String, String)],
    /// For a fragment shader compiled with its vertex shader: the vertex shader's varyings.
    pub varyings: Option<&'a [(String, u32)]>,
}

/// GLSL for `stage` (called `name` in diagnostics) → SPIR-V bytes, the hints lowering
/// needs, and warnings about the author's text. Classic GLSL (ES 1.00/3.00, desktop
/// 1.10–3.30, 4.x without locations) is rewritten first; naga's errors are reported at the
/// author's line either way.
#[cfg(feature = "glsl")]
pub fn glsl(text: &str, stage: Stage, name: &str, input: &Input<'_>) -> Result<Glsl, Rejected> {
    let naga_stage = match stage {
        Stage::Vertex => naga::ShaderStage::Vertex,
        Stage::Fragment => naga::ShaderStage::Fragment,
        #[cfg(feature = "glslang")]
        Stage::Geometry => return crate::geometry::geometry(text, input),
        #[cfg(not(feature = "glslang"))]
        Stage::Geometry => {
            return Err(rejected(
                Rule::NagaGlsl,
                "GLSL geometry shaders are read through glslang (naga's GLSL front end has no \
                 geometry stage), and this build has no glslang (the `glslang` feature; the \
                 tools have it): compile the shader to SPIR-V with glslang \
                 (`glslangValidator -V shader.geom -o shader.geom.spv`) or shaderc, and pass the \
                 .spv"
                    .into(),
            ));
        }
    };
    // The preprocessor first, as a GL driver runs it; then the classic rewrite of what it
    // expanded. Ranges in either text are mapped back to the author's.
    let pre = crate::preprocess::preprocess(text, stage, name, input.defines)?;
    let authors = |mut d: Diagnostic| {
        d.text_range = d.text_range.map(|r| pre.original(r));
        d
    };
    let rewritten = crate::classic::rewrite(&pre.text, stage, name, input.varyings)
        .map_err(|d| in_source(vec![authors(*d)]))?;
    // Every macro is expanded: naga's own preprocessor has nothing left to define.
    let options = naga::front::glsl::Options::from(naga_stage);
    // naga's spans are in the rewritten text: each error is reported at the author's.
    let at_author = |message: String, span: Option<std::ops::Range<usize>>| -> Diagnostic {
        let d = Diagnostic::error(Rule::NagaGlsl, message);
        match span {
            Some(r) => crate::classic::ranged(d, pre.original(rewritten.original(r))),
            None => d,
        }
    };
    let module = naga::front::glsl::Frontend::default()
        .parse(&options, &rewritten.text)
        .map_err(|e| {
            let diags = e
                .errors
                .iter()
                .map(|err| at_author(err.kind.to_string(), err.meta.to_range()))
                .collect();
            in_source(diags)
        })?;
    let info = Validator::new(ValidationFlags::all(), Capabilities::default())
        .validate(&module)
        .map_err(|e| {
            let mut message = e.as_inner().to_string();
            let mut source = std::error::Error::source(e.as_inner());
            while let Some(s) = source {
                message += &format!(": {s}");
                source = s.source();
            }
            let span = e.spans().next().and_then(|(span, _)| span.to_range());
            in_source(vec![at_author(message, span)])
        })?;
    let words = write(&module, &info, Some((&rewritten.text, name)))
        .map_err(|e| rejected(Rule::NagaGlsl, format!("naga's SPIR-V writer failed: {e}")))?;
    // Line n of the rewritten text (what naga's OpLines count) is the author's line_map[n-1].
    let mut line_map = Vec::new();
    let mut offset = 0;
    for line in rewritten.text.split('\n') {
        let in_expanded = rewritten.original(offset..offset).start;
        let at = pre.original(in_expanded..in_expanded).start.min(text.len());
        // Bytes, not a str slice: no offset can fall inside a character here.
        let breaks = text.as_bytes()[..at]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        line_map.push(breaks as u32 + 1);
        offset += line.len() + 1;
    }
    Ok(Glsl {
        words,
        warnings: pre
            .warnings
            .iter()
            .cloned()
            .chain(rewritten.warnings.into_iter().map(authors))
            .collect(),
        hints: rewritten.hints,
        line_map,
    })
}

/// What GLSL became.
#[cfg(feature = "glsl")]
#[derive(Clone, Debug)]
pub struct Glsl {
    /// The SPIR-V.
    pub words: Vec<u8>,
    /// Warnings about the author's text.
    pub warnings: Vec<Diagnostic>,
    /// What lowering must be told that the SPIR-V cannot say (its renames give back the
    /// author's names for what the rewrite renamed; for
    /// `frontend_spirv::lower::lower_with`).
    pub hints: Hints,
    /// For each line of the text naga read (its `OpLine`s), the author's line.
    pub line_map: Vec<u32>,
}

/// WGSL (called `name` in the module's debug information) → SPIR-V bytes.
#[cfg(feature = "wgsl")]
pub fn wgsl(text: &str, name: &str) -> Result<Vec<u8>, Rejected> {
    let module = naga::front::wgsl::parse_str(text)
        .map_err(|e| rejected(Rule::NagaWgsl, e.emit_to_string(text)))?;
    spirv(&module, text, name, Rule::NagaWgsl)
}

/// The SPIR-V writer's flags, the same in every build profile.
const WRITER_FLAGS: spv::WriterFlags = spv::WriterFlags::DEBUG
    .union(spv::WriterFlags::LABEL_VARYINGS)
    .union(spv::WriterFlags::CLAMP_FRAG_DEPTH);

#[cfg(feature = "wgsl")]
fn spirv(module: &naga::Module, text: &str, name: &str, rule: Rule) -> Result<Vec<u8>, Rejected> {
    let info = Validator::new(ValidationFlags::all(), Capabilities::default())
        .validate(module)
        .map_err(|e| rejected(rule, e.emit_to_string(text)))?;
    write(module, &info, Some((text, name)))
        .map_err(|e| rejected(rule, format!("naga's SPIR-V writer failed: {e}")))
}

/// The SPIR-V of a validated module.
fn write(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    source: Option<(&str, &str)>,
) -> Result<Vec<u8>, spv::Error> {
    // The writer's flags are spelled out, never taken from `spv::Options::default()`: naga's
    // default turns `DEBUG` (every `OpName`) on only under `debug_assertions`, so a release
    // build would lose every uniform, input and output name. Also SPIR-V 1.0 (what every
    // consumer of ours takes) and no coordinate-space adjustment: naga would negate
    // gl_Position.y (WebGPU to Vulkan), but the author's numbers are what the 3DS and Stage3D
    // should get.
    //
    // Nor naga's WebGPU safety code, which glslang does not write either: a loop-bounding
    // counter in every loop (a second exit, counting in u32 from 2^32 - 1, which made counted
    // loops data-dependent: AGAL refused them, the PICA carried the counter) and checks
    // around integer division.
    //
    // With the source text, naga writes `OpLine`s: each instruction of the listing can then
    // name the author's line.
    let options = spv::Options {
        debug_info: source.map(|(text, name)| spv::DebugInfo {
            source_code: text,
            file_name: name,
            language: spv::SourceLanguage::GLSL,
        }),
        lang_version: (1, 0),
        flags: WRITER_FLAGS,
        force_loop_bounding: false,
        emit_int_div_checks: false,
        ..spv::Options::default()
    };
    let words = spv::write_vec(module, info, &options, None)?;
    Ok(words.iter().flat_map(|w| w.to_le_bytes()).collect())
}

/// A refusal whose message says it all: naga's rendering names the input `wgsl`/`glsl` and
/// carries its own source excerpt; it is kept as the message, trimmed of trailing blank
/// lines.
fn rejected(rule: Rule, message: String) -> Rejected {
    Rejected {
        diagnostics: Diagnostics(vec![Diagnostic::error(
            rule,
            message.trim_end().to_string(),
        )]),
        quotes_source: false,
    }
}

/// Diagnostics at ranges of the author's text.
#[cfg(feature = "glsl")]
fn in_source(diagnostics: Vec<Diagnostic>) -> Rejected {
    Rejected {
        diagnostics: Diagnostics(diagnostics),
        quotes_source: true,
    }
}
