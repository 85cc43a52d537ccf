//! picasso's model of a PICA200 program: several sources, one `.shbin` (DVLB) with one DVLE
//! per source, in order. Sources are picasso assembly (`.v.pica`, `.g.pica`, `.vsh`, `.gsh`,
//! `.pica`) or shaders this crate compiles (SPIR-V, SPIR-V assembly, GLSL, WGSL), mixed: a
//! compiled shader joins as its listing, which is picasso source that assembles to the same
//! program, so it is linked exactly as picasso links a hand-written file (procedures shared
//! across files, one uniform space for the vertex shaders, `.gsh` files with their own).
//!
//! The link itself (assembling the files together, procedure names, the uniform tables) is
//! `backend_pica::asm::link`; this module compiles the shaders that join it first, and
//! checks that each compiled shader's uniforms are where its code reads them.
//!
//! ```
//! use spv2retro::{Source, picasso::link};
//!
//! let vsh = ".fvec mvp[4]\n.out pos position\n.proc main\n\tdp4 pos.x, mvp[0], v0\n\
//!            \tdp4 pos.y, mvp[1], v0\n\tdp4 pos.z, mvp[2], v0\n\tdp4 pos.w, mvp[3], v0\n\
//!            \tend\n.end\n";
//! let sprite = Source::picasso(vsh).named("sprite.v.pica");
//! let linked = link(&[sprite], &spv2retro::Options::pica(), true)?;
//! assert_eq!(&linked.bytes[..4], b"DVLB");
//! assert!(linked.header.contains("#define VSH_FVEC_mvp 0x00\n"));
//! assert_eq!(linked.shaders[0].uniforms[0].name, "mvp");
//! # Ok::<(), spv2retro::Error>(())
//! ```

use backend_pica::PicassoRule;
use backend_pica::asm::link::{self as pica_link, LinkError, Procedures};
use backend_pica::asm::{self, AsmError, SourceFile};
use backend_pica::shbin::{self, Semantic, ShaderType};
use mir::{Diagnostic, Diagnostics};

pub use backend_pica::asm::link::LinkedUniform;

use crate::compile::{Compiled, Options, Target, compile};
use crate::source::{Code, Source};
use crate::{Error, ErrorKind, Stage};

/// One shader (DVLE) of a linked program.
#[derive(Clone, Debug)]
pub struct LinkedShader {
    /// The input it came from.
    pub input: String,
    /// Vertex or geometry.
    pub stage: Stage,
    /// Its uniforms by register (inputs left out), as its DVLE's table lists them.
    pub uniforms: Vec<LinkedUniform>,
    /// For a compiled shader, what the compiler made (its reflection holds for the linked
    /// program: the link keeps every register).
    pub compiled: Option<Compiled>,
    /// Which register holds what: a compiled shader's reflection, or for picasso source
    /// what its DVLE's tables say (names from `.fvec`, `.in`, `.out`).
    pub reflection: machine::reflect::Reflection,
}

/// What [`link`] made.
#[derive(Clone, Debug)]
pub struct Linked {
    /// The `.shbin` (DVLB) for libctru's `DVLB_ParseFile`.
    pub bytes: Vec<u8>,
    /// The C header `picasso -h` writes, byte for byte: the vertex uniform space's
    /// registers as `VSH_FVEC_name`, `VSH_IVEC_name`, `VSH_FLAG_name`, `VSH_ULEN_name`.
    pub header: String,
    /// One entry per DVLE, in order.
    pub shaders: Vec<LinkedShader>,
    /// Warnings, rendered as the command line prints them (empty when none).
    pub warnings: String,
    /// The fragment shaders among the inputs, compiled to the texture combiners (they make
    /// no DVLE: their configuration goes beside the `.shbin`), each with the vertex shader
    /// whose output semantics were chosen for it.
    pub fragments: Vec<LinkedFragment>,
}

/// A fragment shader of a link.
#[derive(Clone, Debug)]
pub struct LinkedFragment {
    /// The input it came from.
    pub input: String,
    /// The vertex shader it was paired with (the last before it, else the first after it).
    pub vertex: Option<String>,
    /// Its combiner configuration ([`Compiled::texenv`], [`Compiled::c_header`]).
    pub compiled: Compiled,
}

/// Links `inputs` into one program, as `picasso -o out.shbin a b …` does: picasso sources
/// ([`Source::picasso`]) as they are, every other source compiled with `options` first. `padding_nops` is picasso's default; `false` is its
/// `-n`, which leaves the NOPs out and warns at each place that needs one.
pub fn link(inputs: &[Source<'_>], options: &Options, padding_nops: bool) -> Result<Linked, Error> {
    if options.target != Target::Pica {
        return Err(Error::other(
            ErrorKind::Rejected,
            "picasso sources and .shbin links are for the PICA200: use Options::pica()".into(),
        ));
    }
    // Compile the shaders first (their errors are about their own source), then give each
    // input its text: a compiled shader's is its listing, with each procedure renamed where
    // another input defines the same name (picasso's procedures are global).
    let mut procedures = Procedures::default();
    for input in inputs {
        if let Code::Picasso(text) = &input.code {
            procedures.declare(text);
        }
    }
    // A vertex program that a geometry program follows passes every output register whole:
    // its outputs are `dummy`s (the geometry program's output table is what the rasteriser
    // reads), so no component is dropped for want of a semantic.
    let stages: Vec<Option<Stage>> = inputs
        .iter()
        .map(|input| crate::compile::stage_of(input, options).ok())
        .collect();
    let feeds_geometry = |i: usize| {
        stages[i] == Some(Stage::Vertex)
            && stages[i + 1..]
                .iter()
                .flatten()
                .find(|s| **s == Stage::Vertex || **s == Stage::Geometry)
                == Some(&Stage::Geometry)
    };
    let mut compiled: Vec<Option<Compiled>> = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    let mut warnings = String::new();
    // Fragment shaders first: the combiners they compile to choose the output semantics of
    // the vertex shader each follows.
    let mut fragments = Vec::new();
    let mut vertex_options: Vec<Option<Options>> = vec![None; inputs.len()];
    for (i, input) in inputs.iter().enumerate() {
        if stages[i] != Some(Stage::Fragment) {
            continue;
        }
        let vertex = (0..i)
            .rev()
            .chain(i + 1..inputs.len())
            .find(|k| stages[*k] == Some(Stage::Vertex));
        #[cfg_attr(not(feature = "glsl"), allow(unused_mut))]
        let mut o = options.clone().stage(Stage::Fragment);
        #[cfg(feature = "glsl")]
        if let Some(Code::Glsl(text, _)) = vertex.map(|v| &inputs[v].code) {
            o.varyings = Some(frontend_glsl::vertex_varyings(text, &options.defines));
        }
        let f = compile(input, &o)?;
        warnings += f.rendered_warnings();
        if let Some(v) = vertex {
            let base = vertex_options[v].clone().unwrap_or_else(|| options.clone());
            vertex_options[v] = Some(crate::compile::pica_vertex_options(
                &f,
                &base,
                input.name(),
            )?);
        }
        fragments.push((i, vertex, f));
    }
    // The inputs that make DVLEs, by file.
    let mut file_input: Vec<usize> = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        if stages[i] == Some(Stage::Fragment) {
            continue;
        }
        file_input.push(i);
        match &input.code {
            Code::Picasso(text) => {
                texts.push(text.to_string());
                compiled.push(None);
            }
            _ => {
                // A geometry program receives the output registers of the vertex program
                // compiled last before it.
                let mut o = vertex_options[i].clone().unwrap_or_else(|| options.clone());
                o.geometry_layout = compiled
                    .iter()
                    .rev()
                    .flatten()
                    .find(|c| c.stage == Stage::Vertex)
                    .map(crate::compile::vertex_layout);
                if feeds_geometry(i) {
                    o.semantics = (0..16).map(|l| (l, Semantic::Dummy)).collect();
                    o.feeds_geometry = true;
                }
                // A classic GLSL geometry shader's inputs take the locations the vertex
                // shader before it gave its varyings, by name.
                #[cfg(feature = "glsl")]
                if stages[i] == Some(Stage::Geometry) {
                    let vertex = (0..i).rev().find(|k| stages[*k] == Some(Stage::Vertex));
                    if let Some(Code::Glsl(text, _)) = vertex.map(|v| &inputs[v].code) {
                        o.varyings = Some(frontend_glsl::vertex_varyings(text, &options.defines));
                    }
                }
                let c = compile(input, &o)?;
                warnings += c.rendered_warnings();
                texts.push(procedures.rename(&c.listing, i));
                compiled.push(Some(c));
            }
        }
    }
    if file_input.is_empty() {
        return Err(Error::other(
            ErrorKind::Rejected,
            format!(
                "{}: a .shbin needs a vertex program: fragment shaders compile to the texture \
                 combiners' configuration, beside a vertex program's .shbin",
                inputs[0].name()
            ),
        ));
    }
    let names: Vec<String> = file_input
        .iter()
        .map(|i| &inputs[*i])
        .zip(&compiled)
        .map(|(input, c)| match c {
            Some(_) => format!("{} (compiled listing)", input.name()),
            None => input.name().to_string(),
        })
        .collect();
    let files: Vec<SourceFile<'_>> = names
        .iter()
        .zip(&texts)
        .map(|(name, text)| SourceFile { name, text })
        .collect();
    let linked = pica_link::link(&files, &asm::Options { padding_nops })
        .map_err(|e| link_error(e, inputs[0].name()))?;
    for w in &linked.warnings {
        warnings += &w.render();
    }
    let mut shaders = Vec::new();
    for (k, dvle) in linked.shaders.into_iter().enumerate() {
        let compiled = compiled[dvle.source].clone();
        let source = file_input[dvle.source];
        let reflection = match &compiled {
            Some(c) => c.reflection.clone(),
            None => backend_pica::codegen::reflect_dvle(&linked.binary, k).unwrap_or_default(),
        };
        if let Some(c) = &compiled {
            check_placement(c, &dvle.uniforms, inputs[source].name())?;
        }
        shaders.push(LinkedShader {
            input: inputs[source].name().to_string(),
            stage: match dvle.shader_type {
                ShaderType::Vertex => Stage::Vertex,
                ShaderType::Geometry => Stage::Geometry,
            },
            uniforms: dvle.uniforms,
            compiled,
            reflection,
        });
    }
    let mut linked_fragments = Vec::new();
    for (i, vertex, f) in fragments {
        if let Some(v) = vertex {
            let shader = shaders.iter().find(|s| s.input == inputs[v].name());
            if let Some(c) = shader.and_then(|s| s.compiled.as_ref()) {
                crate::compile::check_pica_pair(c, &f, inputs[i].name())?;
            }
        }
        linked_fragments.push(LinkedFragment {
            input: inputs[i].name().to_string(),
            vertex: vertex.map(|v| inputs[v].name().to_string()),
            compiled: f,
        });
    }
    Ok(Linked {
        bytes: linked.bytes,
        header: linked.header,
        shaders,
        warnings,
        fragments: linked_fragments,
    })
}

/// An assembly error as the library's error: picasso's first line (with the column), the
/// line underlined, the rule.
pub(crate) fn link_error(e: LinkError, first: &str) -> Error {
    match e {
        LinkError::Asm(e) => {
            let d = located(Diagnostic::error(e.rule(), e.message.clone()), &e);
            Error::with_text(Diagnostics(vec![d]), e.render())
        }
        LinkError::Write(e) => Error::other(ErrorKind::Rejected, format!("{first}: error: {e}")),
    }
}

/// `d`, at the file, line and column of the assembler's `e`.
pub(crate) fn located(mut d: Diagnostic, e: &AsmError) -> Diagnostic {
    if e.line != 0 {
        d.source = Some(format!("{}:{}:{}", e.file, e.line, e.column.max(1)));
    }
    d
}

/// A compiled shader's code names its uniforms' registers: the link must have put each
/// uniform where the compiler did. picasso gives the vertex shaders one uniform space, so an
/// earlier vertex source that declares other uniforms moves a later one's.
fn check_placement(c: &Compiled, linked: &[LinkedUniform], name: &str) -> Result<(), Error> {
    let own = shbin::read(&c.bytes)
        .ok()
        .and_then(|b| b.dvles.into_iter().next())
        .map(|d| pica_link::uniforms(&d))
        .unwrap_or_default();
    for u in &own {
        let Some(l) = linked.iter().find(|l| l.name == u.name) else {
            continue;
        };
        if (l.file, l.register) != (u.file, u.register) {
            let d = Diagnostic::error(
                PicassoRule::Link,
                format!(
                    "the uniform `{}` was compiled into {}{}, but the link put it at {}{}: \
                     the vertex sources share one uniform space, and an earlier one declared \
                     other uniforms first",
                    u.name, u.file, u.register, l.file, l.register
                ),
            )
            .with_note(format!(
                "list {name} before the picasso sources, or declare the same uniforms in the \
                 same order in each"
            ));
            return Err(Error::rejected(Diagnostics(vec![d]), name, None));
        }
    }
    Ok(())
}
