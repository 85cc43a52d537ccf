//! One compile: source → validated SPIR-V → MIR → the target's bytes, listing and
//! reflection. Everything here returns; nothing prints or exits.

use frontend_spirv::entry::{self, Stage};
use frontend_spirv::{Input, ValidModule};
use machine::reflect::Reflection;
use mir::passes::pipeline::StepRef;
use mir::{Diagnostic, Diagnostics};

use crate::error::{Error, ErrorKind};
use crate::source::{Code, Source};
use std::borrow::Borrow;

/// The machine to compile for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Target {
    /// The Nintendo 3DS's PICA200 vertex shader unit: a `.shbin` (DVLB) for libctru's
    /// `DVLB_ParseFile` and citro3d.
    #[default]
    Pica,
    /// Stage3D's AGAL (Adobe AIR, Flash, OpenFL, Starling, Away3D, Ruffle): the bytes
    /// `Program3D.upload` takes.
    Agal,
}

impl Target {
    /// `"pica"` or `"agal"`, as the reflection spells it.
    pub fn name(self) -> &'static str {
        match self {
            Target::Pica => "pica",
            Target::Agal => "agal",
        }
    }

    /// The stages the target has programs for.
    pub fn stages(self) -> &'static [Stage] {
        match self {
            Target::Pica => &[Stage::Vertex, Stage::Geometry, Stage::Fragment],
            Target::Agal => &[Stage::Vertex, Stage::Fragment],
        }
    }

    /// Why `stage` cannot be compiled for this target.
    fn unsupported(self, stage: Stage) -> String {
        match (self, stage) {
            (Target::Agal, Stage::Geometry) => "Stage3D has no geometry stage".into(),
            _ => format!("{} programs are not supported", stage.name()),
        }
    }
}

/// How to compile: the target, which entry point, and the target's own choices.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Options {
    /// The machine to compile for.
    pub target: Target,
    /// The entry point by name (needed only when the module has several for the stage).
    pub entry: Option<String>,
    /// The stage to compile (needed only when the module has entry points for several).
    pub stage: Option<Stage>,
    /// PICA200: output semantics by location, over the defaults of docs/conventions.md.
    pub semantics: Vec<(u32, Semantic)>,
    /// AGAL: the Stage3D profile (the AGAL version and every limit). Default `baseline`.
    pub profile: Profile,
    /// AGAL: sampler flags by binding, over the defaults.
    pub samplers: Vec<SamplerFlags>,
    /// AGAL: the Stage3D runtime the program is for. Default `flash` (Adobe's Flash Player
    /// and AIR, and runtimes that read AGAL as they do); `openfl` avoids the forms OpenFL's
    /// AGAL-to-GLSL converter mishandles (see [`Runtime`]).
    pub runtime: Runtime,
    /// AGAL: the varying (location) that carries the vertex position on to the fragment
    /// program for `gl_FragCoord`. [`compile_pair`] sets it for both programs; the fragment
    /// program then reads the uniform `spv2retro_viewport` (width, height in pixels).
    pub position_varying: Option<u32>,
    /// GLSL: preprocessor definitions, as `#define NAME VALUE` before the first line (the
    /// command line's `-D NAME=VALUE`).
    pub defines: Vec<(String, String)>,
    /// A shared uniform layout: uniforms of the names it lists go to its registers (see
    /// [`crate::layout`]).
    pub layout: Option<crate::layout::Layout>,
    /// PICA200 vertex program of a pair: outputs written again at another location (from,
    /// to), for a varying two texture units read (each unit reads its own texcoord).
    pub(crate) duplicate_outputs: Vec<(u32, u32)>,
    /// Classic GLSL compiled as a pair: the vertex shader's varyings by name, which the
    /// fragment shader's take.
    #[cfg_attr(not(feature = "glsl"), allow(dead_code))]
    pub(crate) varyings: Option<Vec<(String, u32)>>,
    /// PICA200 geometry program: the output registers of the vertex program it follows.
    pub(crate) geometry_layout: Option<backend_pica::codegen::geometry::Layout>,
    /// PICA200 vertex program a geometry program follows (see `picasso::link`).
    pub(crate) feeds_geometry: bool,
    /// PICA200 geometry program: keep runs of emitted vertices that repeat with other
    /// values inline (the fewest executed steps), never calling a procedure per run (by
    /// default one is called where that saves at least as many words as it adds steps).
    /// The command line's `--no-procedures`; see [`Options::procedures`].
    pub no_procedures: bool,
}

impl Options {
    /// Options for a PICA200 program: vertex or geometry, or a fragment shader's texture
    /// combiners (the stage comes from the source, else [`Options::stage`]).
    ///
    /// ```
    /// use spv2retro::{Options, Semantic, Source, Stage, compile};
    ///
    /// let text = "#version 450
    /// layout(location = 0) in vec4 position;
    /// layout(location = 1) in vec2 uv;
    /// layout(location = 1) out vec2 vUv;
    /// void main() { gl_Position = position; vUv = uv; }";
    /// // Location 1 is texcoord0 by default; this program's goes to texcoord1.
    /// let options = Options::pica().semantic(1, Semantic::TexCoord1);
    /// let program = compile(Source::glsl(text, Stage::Vertex), &options)?;
    /// let out = program.reflection.outputs.iter().find(|o| o.name == "vUv").unwrap();
    /// assert_eq!(out.semantic.as_deref(), Some("texcoord1"));
    /// # Ok::<(), spv2retro::Error>(())
    /// ```
    pub fn pica() -> Options {
        Options::default()
    }

    /// Options for an AGAL program under `profile`.
    ///
    /// ```
    /// use spv2retro::{Options, Profile, Runtime, Source, Stage, compile};
    ///
    /// let text = "precision mediump float;\nuniform sampler2D atlas;\nvarying vec2 vUv;\n\
    ///             void main() { gl_FragColor = texture2D(atlas, vUv); }";
    /// let options = Options::agal(Profile::Standard)   // AGAL 2
    ///     .runtime(Runtime::Flash)
    ///     .sampler(0, ["nearest", "clamp"]);
    /// let program = compile(Source::glsl(text, Stage::Fragment), &options)?;
    /// assert_eq!(program.bytes[1], 2); // the AGAL version
    /// assert!(program.listing.contains("fs0 <2d,nearest"), "{}", program.listing);
    /// # Ok::<(), spv2retro::Error>(())
    /// ```
    pub fn agal(profile: Profile) -> Options {
        Options {
            target: Target::Agal,
            profile,
            ..Options::default()
        }
    }

    /// GLSL: defines `name` as `value` for the preprocessor (as `-D name=value`).
    ///
    /// ```
    /// use spv2retro::{Options, Source, Stage, compile};
    ///
    /// let text = "attribute vec4 p;\nvoid main() { gl_Position = p * SCALE; }";
    /// let options = Options::pica().define("SCALE", "2.0");
    /// compile(Source::glsl(text, Stage::Vertex), &options)?;
    /// assert!(compile(Source::glsl(text, Stage::Vertex), &Options::pica()).is_err());
    /// # Ok::<(), spv2retro::Error>(())
    /// ```
    pub fn define(mut self, name: impl Into<String>, value: impl Into<String>) -> Options {
        let name = name.into();
        self.defines.retain(|(n, _)| *n != name);
        self.defines.push((name, value.into()));
        self
    }

    /// Places uniforms as `layout` does (see [`crate::layout`]).
    pub fn layout(mut self, layout: crate::layout::Layout) -> Options {
        self.layout = Some(layout);
        self
    }

    /// Compiles the entry point called `name`.
    pub fn entry(mut self, name: impl Into<String>) -> Options {
        self.entry = Some(name.into());
        self
    }

    /// Compiles the entry point of `stage`.
    pub fn stage(mut self, stage: Stage) -> Options {
        self.stage = Some(stage);
        self
    }

    /// PICA200 geometry program: whether runs of emitted vertices that repeat with other
    /// values may call one procedure per run (the default), where that saves at least as
    /// many words as it adds executed steps; `false` keeps them inline.
    ///
    /// ```
    /// use spv2retro::{Options, Source, Stage, compile};
    ///
    /// // Three triangles of three projected corners each: a procedure per triangle.
    /// let text = "#version 450
    /// layout(triangles) in;
    /// layout(triangle_strip, max_vertices = 9) out;
    /// layout(binding = 0) uniform P { mat4 m; };
    /// void corners(vec4 a, vec4 b, vec4 c) {
    ///     gl_Position = m * a; EmitVertex();
    ///     gl_Position = m * b; EmitVertex();
    ///     gl_Position = m * c; EmitVertex();
    ///     EndPrimitive();
    /// }
    /// void main() {
    ///     vec4 p0 = gl_in[0].gl_Position, p1 = gl_in[1].gl_Position, p2 = gl_in[2].gl_Position;
    ///     corners(p0, (p0 + p1) * 0.5, (p2 + p0) * 0.5);
    ///     corners((p0 + p1) * 0.5, p1, (p1 + p2) * 0.5);
    ///     corners((p2 + p0) * 0.5, (p1 + p2) * 0.5, p2);
    /// }";
    /// let source = || Source::glsl(text, Stage::Geometry);
    /// let called = compile(source(), &Options::pica())?;
    /// let inline = compile(source(), &Options::pica().procedures(false))?;
    /// assert!(called.listing.contains("call "), "{}", called.listing);
    /// assert!(!inline.listing.contains("call "), "{}", inline.listing);
    /// assert!(called.reflection.stats.instructions < inline.reflection.stats.instructions);
    /// # Ok::<(), spv2retro::Error>(())
    /// ```
    pub fn procedures(mut self, allowed: bool) -> Options {
        self.no_procedures = !allowed;
        self
    }

    /// PICA200: gives the output at `location` the semantic `semantic`.
    pub fn semantic(mut self, location: u32, semantic: Semantic) -> Options {
        self.semantics.retain(|(l, _)| *l != location);
        self.semantics.push((location, semantic));
        self
    }

    /// AGAL: compiles for `runtime` (see [`Runtime`]).
    pub fn runtime(mut self, runtime: Runtime) -> Options {
        self.runtime = runtime;
        self
    }

    /// AGAL: the flags of the sampler at `binding`, as AGALMiniAssembler spells them
    /// (`nearest`, `miplinear`, `clamp`, `dxt5`, `-0.5` for a LOD bias …).
    pub fn sampler<S: Into<String>>(
        mut self,
        binding: u32,
        flags: impl IntoIterator<Item = S>,
    ) -> Options {
        self.samplers.retain(|s| s.binding != binding);
        self.samplers.push(SamplerFlags {
            binding,
            flags: flags.into_iter().map(Into::into).collect(),
        });
        self
    }

    fn agal_options(&self) -> backend_agal::codegen::Options {
        backend_agal::codegen::Options {
            profile: self.profile,
            samplers: self.samplers.clone(),
            runtime: self.runtime,
            position_varying: self
                .position_varying
                .map(|k| u16::try_from(k).unwrap_or(u16::MAX)),
            ..Default::default()
        }
    }
}

pub use backend_agal::Profile;
pub use backend_agal::codegen::{Runtime, SamplerFlags};
pub use backend_pica::shbin::Semantic;

/// A compiled program.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The target it was compiled for.
    pub target: Target,
    /// Its stage.
    pub stage: Stage,
    /// The program: a `.shbin` for the PICA200, AGAL bytecode (header and tokens) for
    /// Stage3D.
    pub bytes: Vec<u8>,
    /// The program as text the target's assembler accepts (picasso; AGALMiniAssembler).
    pub listing: String,
    /// Which register holds each input, output, uniform, literal and sampler (the JSON
    /// schema of docs/conventions.md; serde-serialisable).
    pub reflection: Reflection,
    /// For each instruction of the program (PICA200 word of `main`, AGAL token), in order,
    /// the line of the author's source it came from, when known: GLSL and WGSL lines, the
    /// `OpLine` of SPIR-V that has them, the line of SPIR-V assembly text. `None` for what no
    /// line asked for (padding, the final `end`).
    pub source_lines: Vec<Option<u32>>,
    /// What the compiler did that the source did not say, each with its rule: components of
    /// a PICA200 output that no semantic carries, an output Flash requires written with
    /// zeros … Empty for a clean compile. [`Compiled::rendered_warnings`] has them as the
    /// binaries print them (to stderr; they still succeed).
    pub warnings: Diagnostics,
    rendered_warnings: String,
    agal: Option<Box<backend_agal::codegen::Compiled>>,
    texenv: Option<Box<backend_pica::fragment::config::TexEnv>>,
}

impl Compiled {
    /// AGAL: the program in glsl2agal's JSON shape (`varnames`, `consts`, `agalasm`,
    /// `agalbin`), for loaders written for that tool. `None` for the PICA200.
    ///
    /// ```
    /// use spv2retro::{Options, Profile, Source, Stage, compile};
    ///
    /// let text = "uniform vec4 tint;\nvoid main() { gl_FragColor = tint * 0.5; }";
    /// let program = compile(Source::glsl(text, Stage::Fragment), &Options::agal(Profile::Baseline))?;
    /// let json = program.glsl2agal_json().unwrap();
    /// assert!(json.contains("\"varnames\"") && json.contains("\"agalasm\""), "{json}");
    /// # Ok::<(), spv2retro::Error>(())
    /// ```
    pub fn glsl2agal_json(&self) -> Option<String> {
        // From the reflection, whose constants keep infinities and NaNs (as "Infinity",
        // "-Infinity", "NaN"), rather than from the back end's writer, which prints them as
        // `null`.
        self.agal.as_ref()?;
        Some(self.reflection.glsl2agal_json(&self.listing, &self.bytes))
    }

    /// PICA200 fragment programs: the texture-combiner configuration (whose command words
    /// are [`Compiled::bytes`]). `None` otherwise.
    ///
    /// ```
    /// use spv2retro::{Options, Source, Stage, compile};
    ///
    /// let text = "#version 450
    /// layout(location = 0) in vec4 vColor;
    /// layout(location = 1) in vec2 vUv;
    /// layout(binding = 0) uniform sampler2D tex;
    /// layout(location = 0) out vec4 color;
    /// void main() { color = texture(tex, vUv) * vColor; }";
    /// let program = compile(Source::glsl(text, Stage::Fragment), &Options::pica())?;
    /// assert!(program.texenv().is_some());
    /// // The C header that sets the stages up through citro3d.
    /// let header = program.c_header("sprite", "sprite.frag").unwrap();
    /// assert!(header.contains("static inline void sprite_texenv(void)"), "{header}");
    /// # Ok::<(), spv2retro::Error>(())
    /// ```
    pub fn texenv(&self) -> Option<&backend_pica::fragment::config::TexEnv> {
        self.texenv.as_deref()
    }

    /// PICA200 fragment programs: a C header whose `static inline void PREFIX_texenv(void)`
    /// sets the configuration up through citro3d (`C3D_GetTexEnv`, `C3D_TexEnvSrc` …,
    /// `C3D_TexEnvBufUpdate`, `C3D_AlphaTest`), with a `PREFIX_set_NAME(r, g, b, a)` for each
    /// uniform that is a stage's colour. `source` names the shader in its comment. `None`
    /// for other programs.
    pub fn c_header(&self, prefix: &str, source: &str) -> Option<String> {
        let t = self.texenv.as_deref()?;
        Some(backend_pica::fragment::text::c_header(t, prefix, source))
    }

    /// The warnings rendered as the binaries print them to stderr (`FILE: warning[RULE]:
    /// message` and context lines, as errors are), or `""` when there are none.
    ///
    /// ```
    /// use spv2retro::{Options, Profile, Source, Stage, compile};
    ///
    /// // Flash requires a colour output; a fragment shader that only discards gets zeros.
    /// let text = "#version 450\nvoid main() { discard; }";
    /// let source = Source::glsl(text, Stage::Fragment).named("cut.frag");
    /// let program = compile(source, &Options::agal(Profile::Baseline))?;
    /// assert!(program.rendered_warnings().starts_with("cut.frag: warning[agal.unwritten-output]"),
    ///         "{}", program.rendered_warnings());
    /// # Ok::<(), spv2retro::Error>(())
    /// ```
    pub fn rendered_warnings(&self) -> &str {
        &self.rendered_warnings
    }

    /// AGAL: the profile the program was compiled for (`None` for the PICA200 and for
    /// AGALMiniAssembler text).
    pub(crate) fn agal_profile(&self) -> Option<Profile> {
        self.agal.as_ref().map(|a| a.profile)
    }

    /// AGAL: the vector size of the input at `location` (what a vertex buffer feeds it:
    /// 2 for a `vec2`), when the program was compiled from a shader.
    pub(crate) fn agal_input_lanes(&self, location: u32) -> Option<u8> {
        let agal = self.agal.as_ref()?;
        agal.inputs
            .iter()
            .find(|i| i.location == location && i.builtin.is_none())
            .map(|i| i.lanes)
    }
}

/// The module loaded and validated, its entry point chosen and lowered to MIR.
struct Lowered {
    valid: ValidModule,
    stage: Stage,
    mir: mir::Module,
    /// The assembly text, when the input was text (diagnostics quote it).
    text: Option<String>,
    /// Warnings about the source text (GLSL), and them rendered against it.
    source_warnings: Vec<mir::Diagnostic>,
    source_rendered: String,
    /// GLSL: for each line naga read (its `OpLine`s), the author's line.
    line_map: Option<Vec<u32>>,
}

impl Lowered {
    /// `d` with the instruction each diagnostic is about and its source line (the
    /// author's: GLSL's lines as naga read them are mapped back through the rewrite).
    fn annotate(&self, d: Diagnostics) -> Diagnostics {
        self.valid
            .annotate(authors_lines(d, self.line_map.as_deref()))
    }

    /// The author's line each instruction came from (see [`Compiled::source_lines`]).
    fn source_lines(&self, spans: &[Option<mir::Span>]) -> Vec<Option<u32>> {
        // SPIR-V assembly without OpLine: the line of the text that holds the instruction.
        let text_lines: Vec<u32> = self
            .text
            .as_deref()
            .map(|t| {
                t.lines()
                    .enumerate()
                    .filter(|(_, l)| {
                        let code = l.split(';').next().unwrap_or("").trim();
                        !code.is_empty()
                    })
                    .map(|(n, _)| n as u32 + 1)
                    .collect()
            })
            .unwrap_or_default();
        spans
            .iter()
            .map(|s| {
                let s = (*s)?;
                match (s.source, &self.line_map) {
                    (Some(p), Some(map)) => map.get(p.line.checked_sub(1)? as usize).copied(),
                    (Some(p), None) => Some(p.line),
                    (None, _) => text_lines.get(s.ordinal.checked_sub(1)? as usize).copied(),
                }
            })
            .collect()
    }
}

/// The stage of the entry point `options` choose in `source` (what a tool asks before it
/// picks a target or pairs two shaders).
pub fn stage_of<'s>(source: impl Borrow<Source<'s>>, options: &Options) -> Result<Stage, Error> {
    let source = source.borrow();
    match &source.code {
        Code::Picasso(_) | Code::AgalAssembly(..) => {
            Ok(source.stage().or(options.stage).unwrap_or(Stage::Vertex))
        }
        _ => lower(source, options).map(|l| l.stage),
    }
}

fn lower(source: &Source<'_>, options: &Options) -> Result<Lowered, Error> {
    let name = source.name();
    #[cfg_attr(not(feature = "glsl"), allow(unused_mut))]
    let mut source_warnings = Vec::new();
    #[cfg_attr(not(feature = "glsl"), allow(unused_mut))]
    let mut source_rendered = String::new();
    #[cfg_attr(not(feature = "glsl"), allow(unused_mut))]
    let mut line_map = None;
    #[cfg_attr(not(feature = "glsl"), allow(unused_mut))]
    let mut hints = frontend_spirv::lower::Hints::default();
    #[cfg(any(feature = "glsl", feature = "wgsl"))]
    let spirv_words;
    let (input, text): (Input<'_>, Option<&str>) = match &source.code {
        Code::Spirv(bytes) => {
            let input = Input::detect(bytes);
            let text = match input {
                Input::Text(t) => Some(t),
                Input::Binary(_) => None,
            };
            (input, text)
        }
        Code::SpirvBinary(bytes) => (Input::Binary(bytes), None),
        Code::SpirvText(t) => (Input::Text(t), Some(t.as_ref())),
        #[cfg(feature = "glsl")]
        Code::Glsl(glsl, stage) => {
            let stage = stage.or(options.stage).unwrap_or(Stage::Vertex);
            let input = frontend_glsl::Input {
                defines: &options.defines,
                varyings: options.varyings.as_deref(),
            };
            let frontend_glsl::Glsl {
                words,
                warnings,
                line_map: lm,
                hints: h,
            } = frontend_glsl::glsl(glsl, stage, name, &input)
                .map_err(|r| Error::from_source(r, name, glsl))?;
            line_map = Some(lm);
            hints = h;
            if !warnings.is_empty() {
                source_rendered = render_warnings(&Diagnostics(warnings.clone()), name, Some(glsl));
            }
            source_warnings = warnings;
            spirv_words = words;
            (Input::Binary(&spirv_words), None)
        }
        #[cfg(feature = "wgsl")]
        Code::Wgsl(text) => {
            spirv_words =
                frontend_glsl::wgsl(text, name).map_err(|r| Error::from_source(r, name, text))?;
            (Input::Binary(&spirv_words), None)
        }
        Code::Picasso(_) | Code::AgalAssembly(..) => {
            return Err(Error::other(
                ErrorKind::Rejected,
                format!(
                    "{name}: {} is a program already written: it is assembled, not \
                     compiled, so it has no MIR",
                    match source.language() {
                        crate::Language::Picasso => "picasso assembly",
                        _ => "AGALMiniAssembler text",
                    }
                ),
            ));
        }
    };
    let reject = |d: Diagnostics| Error::rejected(d, name, text);
    let valid = frontend_spirv::load(input, &frontend_spirv::Options::default()).map_err(reject)?;
    let unsupported = |s: Stage| options.target.unsupported(s);
    let query = entry::Query {
        name: options.entry.as_deref(),
        stage: options.stage,
        supported: options.target.stages(),
        unsupported_reason: &unsupported,
    };
    let entry = entry::select(&valid, &query).map_err(reject)?;
    let mut mir = frontend_spirv::lower::lower_with(&valid, &entry, &hints)
        .map_err(|d| reject(authors_lines(d, line_map.as_deref())))?;
    if let Some(layout) = &options.layout {
        let stage = entry.stage().unwrap_or(Stage::Vertex);
        crate::layout::apply(&mut mir, layout, options.target, stage).map_err(reject)?;
    }
    duplicate_outputs(&mut mir, &options.duplicate_outputs);
    mir::verify::verify(&mir).map_err(|e| internal(name, e))?;
    Ok(Lowered {
        stage: entry.stage().unwrap_or(Stage::Vertex),
        valid,
        mir,
        text: text.map(str::to_string),
        source_warnings,
        source_rendered,
        line_map,
    })
}

/// Writes the output at location `from` again at location `to`, for each pair: one more
/// output of the same name and value.
fn duplicate_outputs(m: &mut mir::Module, pairs: &[(u32, u32)]) {
    for &(from, to) in pairs {
        let Some(k) = m.outputs.iter().position(|o| o.location == Some(from)) else {
            continue;
        };
        let mut copy = m.outputs[k].clone();
        copy.location = Some(to);
        m.outputs.push(copy);
        for b in m.function.layout.clone() {
            if let mir::func::Terminator::Return(values) = &mut m.function.blocks[b].term {
                if let Some(v) = values.get(k).copied() {
                    values.push(v);
                }
            }
        }
    }
}

/// `d` with each source line (naga's, in the text it read) mapped to the author's by
/// `line_map` (GLSL; `None` leaves them).
fn authors_lines(mut d: Diagnostics, line_map: Option<&[u32]>) -> Diagnostics {
    let Some(map) = line_map else { return d };
    for x in &mut d.0 {
        let Some(pos) = x.span.as_mut().and_then(|s| s.source.as_mut()) else {
            continue;
        };
        let Some(&line) = pos.line.checked_sub(1).and_then(|l| map.get(l as usize)) else {
            continue;
        };
        // Already rendered (`file:line`): the line in it too.
        if let Some(source) = &mut x.source {
            if let Some(file) = source.strip_suffix(&format!(":{}", pos.line)) {
                *source = format!("{file}:{line}");
            }
        }
        pos.line = line;
    }
    d
}

fn internal(name: &str, e: impl std::fmt::Display) -> Error {
    let d = mir::Diagnostic::error(
        frontend_spirv::FrontRule::LowerInternal,
        format!(
            "internal error (this is a bug): {e}; please report it at {} with `{name}` attached",
            crate::error::REPORT_BUGS_AT
        ),
    );
    Error::rejected(Diagnostics(vec![d]), name, None)
}

/// Compiles `source` for `options.target`.
///
/// ```
/// use spv2retro::{Options, Source, compile};
///
/// let text = "
///                OpCapability Shader
///                OpMemoryModel Logical GLSL450
///                OpEntryPoint Vertex %main \"main\" %pos %out
///                OpDecorate %pos Location 0
///                OpDecorate %out BuiltIn Position
///        %void = OpTypeVoid
///          %fn = OpTypeFunction %void
///       %float = OpTypeFloat 32
///        %vec4 = OpTypeVector %float 4
///       %in_ty = OpTypePointer Input %vec4
///      %out_ty = OpTypePointer Output %vec4
///         %pos = OpVariable %in_ty Input
///         %out = OpVariable %out_ty Output
///        %main = OpFunction %void None %fn
///       %entry = OpLabel
///           %p = OpLoad %vec4 %pos
///                OpStore %out %p
///                OpReturn
///                OpFunctionEnd
/// ";
/// let program = compile(Source::spirv_text(text), &Options::pica())?;
/// assert_eq!(&program.bytes[..4], b"DVLB");
/// assert_eq!(program.reflection.outputs[0].register, "o0");
/// # Ok::<(), spv2retro::Error>(())
/// ```
pub fn compile<'s>(source: impl Borrow<Source<'s>>, options: &Options) -> Result<Compiled, Error> {
    let source = source.borrow();
    crate::error::guarded(source.name(), || compile_unguarded(source, options))
}

fn compile_unguarded(source: &Source<'_>, options: &Options) -> Result<Compiled, Error> {
    match &source.code {
        Code::Picasso(text) => return assembled_pica(source.name(), text),
        Code::AgalAssembly(text, stage) => {
            return assembled_agal(source.name(), text, stage.or(options.stage), options);
        }
        _ => {}
    }
    let lowered = lower(source, options)?;
    let name = source.name();
    let reject =
        |d: Diagnostics| Error::rejected(lowered.annotate(d), name, lowered.text.as_deref());
    match options.target {
        Target::Pica if lowered.stage == Stage::Fragment => {
            let f = backend_pica::fragment::compile(&lowered.mir).map_err(reject)?;
            Ok(Compiled {
                target: Target::Pica,
                stage: Stage::Fragment,
                bytes: backend_pica::fragment::words::bytes(&f.words),
                listing: backend_pica::fragment::text::listing(&f.texenv, name),
                source_lines: Vec::new(),
                reflection: f.reflection,
                rendered_warnings: lowered.source_rendered.clone(),
                warnings: Diagnostics(lowered.source_warnings.clone()),
                agal: None,
                texenv: Some(Box::new(f.texenv)),
            })
        }
        Target::Pica => {
            let pica = backend_pica::codegen::Options {
                semantics: options.semantics.clone(),
                geometry_layout: options.geometry_layout.clone(),
                feeds_geometry: options.feeds_geometry,
                procedures: !options.no_procedures,
                ..Default::default()
            };
            let program = backend_pica::codegen::compile(&lowered.mir, &pica).map_err(reject)?;
            let warnings = lowered.annotate(Diagnostics(program.warnings.clone()));
            let rendered = render_warnings(&warnings, name, lowered.text.as_deref());
            let mut warnings = warnings;
            warnings
                .0
                .splice(0..0, lowered.source_warnings.iter().cloned());
            Ok(Compiled {
                target: Target::Pica,
                stage: lowered.stage,
                bytes: program.bytes.clone(),
                listing: backend_pica::disasm::listing(&program.binary),
                source_lines: lowered.source_lines(&program.spans),
                reflection: program.reflection,
                rendered_warnings: format!("{}{rendered}", lowered.source_rendered),
                warnings,
                agal: None,
                texenv: None,
            })
        }
        Target::Agal => {
            let program = backend_agal::codegen::compile(&lowered.mir, &options.agal_options())
                .map_err(reject)?;
            Ok(Compiled {
                target: Target::Agal,
                stage: lowered.stage,
                bytes: program.bytes.clone(),
                listing: program.listing(),
                source_lines: lowered.source_lines(&program.spans),
                reflection: program.reflection.clone(),
                rendered_warnings: format!(
                    "{}{}",
                    lowered.source_rendered,
                    render_warnings(
                        &Diagnostics(program.warnings.clone()),
                        name,
                        lowered.text.as_deref(),
                    )
                ),
                warnings: Diagnostics(
                    lowered
                        .source_warnings
                        .iter()
                        .chain(&program.warnings)
                        .cloned()
                        .collect(),
                ),
                agal: Some(Box::new(program)),
                texenv: None,
            })
        }
    }
}

/// picasso assembly: assembled (as a link of one file) into a `.shbin`, with the
/// reflection its DVLE's tables give. Assembly is for its own target, whatever
/// `options.target` says.
fn assembled_pica(name: &str, text: &str) -> Result<Compiled, Error> {
    use backend_pica::asm::{self, SourceFile, link};
    let linked = link::link(&[SourceFile { name, text }], &asm::Options::default())
        .map_err(|e| crate::picasso::link_error(e, name))?;
    let reflection = backend_pica::codegen::reflect_dvle(&linked.binary, 0).ok_or_else(|| {
        Error::other(
            ErrorKind::Rejected,
            format!("{name}: the picasso source makes no program (it has no `main` or `.entry`)"),
        )
    })?;
    let warnings: Vec<Diagnostic> = linked
        .warnings
        .iter()
        .map(|w| crate::picasso::located(Diagnostic::warning(w.rule(), w.message.clone()), w))
        .collect();
    Ok(Compiled {
        target: Target::Pica,
        stage: match linked.shaders[0].shader_type {
            backend_pica::shbin::ShaderType::Vertex => Stage::Vertex,
            backend_pica::shbin::ShaderType::Geometry => Stage::Geometry,
        },
        listing: backend_pica::disasm::listing(&linked.binary),
        source_lines: vec![None; reflection.stats.instructions],
        reflection,
        rendered_warnings: linked.warnings.iter().map(|w| w.render()).collect(),
        warnings: Diagnostics(warnings),
        bytes: linked.bytes,
        agal: None,
        texenv: None,
    })
}

/// AGALMiniAssembler text: assembled for the profile's AGAL version as AGALMiniAssembler
/// does and checked against Flash Player's rules (whatever `options.target` says). The text names registers, not variables:
/// the reflection lists the registers the program reads and writes, each named after
/// itself (`va0`, `v1`, `oc`), and the constant registers it reads as one array.
fn assembled_agal(
    name: &str,
    text: &str,
    stage: Option<Stage>,
    options: &Options,
) -> Result<Compiled, Error> {
    use backend_agal::AsmRule;
    let rejected = |message: String| Error::other(ErrorKind::Rejected, message);
    let (stage, agal_stage) = match stage {
        Some(Stage::Vertex) => (Stage::Vertex, backend_agal::Stage::Vertex),
        Some(Stage::Fragment) => (Stage::Fragment, backend_agal::Stage::Fragment),
        _ => {
            let d = Diagnostic::error(
                AsmRule::Syntax,
                "AGALMiniAssembler text does not say which program it is: pass --vertex or \
                 --fragment (Options::stage in the library), or name it X.vert.agalasm or \
                 X.frag.agalasm",
            );
            return Err(Error::rejected(Diagnostics(vec![d]), name, None));
        }
    };
    let version = options.profile.version();
    let bytes = backend_agal::asm::assemble(text, agal_stage, version).map_err(|e| {
        let mut d = Diagnostic::error(AsmRule::Syntax, e.message.clone());
        d.source = Some(format!("{name}:{}:1", e.line));
        let rendered = format!("{name}:{}: error[agal.asm]: {}", e.line, e.message);
        Error::with_text(Diagnostics(vec![d]), rendered)
    })?;
    let info = backend_agal::validate(&bytes, options.profile).map_err(|errors| {
        let diagnostics = errors
            .iter()
            .map(|e| {
                let d = Diagnostic::error(
                    AsmRule::Flash,
                    format!("Flash error #{}: {}", e.code(), e.message),
                );
                match e.token {
                    Some(t) => d.with_note(format!("token {t}")),
                    None => d,
                }
            })
            .collect();
        Error::with_text(
            Diagnostics(diagnostics),
            backend_agal::validate::render(name, &errors),
        )
    })?;
    let program = backend_agal::Program::decode(&bytes)
        .map_err(|e| rejected(format!("{name}: error[agal.decode]: {e}")))?;
    // One token per line of the text that holds code, in order.
    let source_lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.split("//").next().unwrap_or("").trim().is_empty())
        .map(|(n, _)| Some(n as u32 + 1))
        .take(info.tokens)
        .collect();
    Ok(Compiled {
        target: Target::Agal,
        stage,
        listing: backend_agal::disasm::program_listing(&program),
        source_lines,
        reflection: assembled_agal_reflection(stage, &info, version),
        rendered_warnings: String::new(),
        warnings: Diagnostics(Vec::new()),
        bytes,
        agal: None,
        texenv: None,
    })
}

/// The registers an assembled AGAL program uses, each named after itself.
fn assembled_agal_reflection(
    stage: Stage,
    info: &backend_agal::validate::Info,
    version: backend_agal::Version,
) -> Reflection {
    use machine::reflect::{InputInfo, OutputInfo, SamplerInfo, Stats, UniformInfo};
    let vertex = stage == Stage::Vertex;
    let register = |name: String, location: u32| InputInfo {
        name: name.clone(),
        location,
        register: name,
        vertex: None,
    };
    let output = |name: String, mask: String| OutputInfo {
        name: name.clone(),
        location: None,
        builtin: (name == "op").then(|| "Position".to_string()),
        register: name,
        semantic: None,
        mask,
    };
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    if vertex {
        for k in (0..32).filter(|k| info.attributes & (1 << k) != 0) {
            inputs.push(register(format!("va{k}"), k));
        }
        outputs.push(output("op".into(), "xyzw".into()));
        for (k, m) in info.varyings_written.iter().enumerate() {
            if m.bits() != 0 {
                outputs.push(output(
                    format!("v{k}"),
                    machine::reflect::mask_letters(m.bits()),
                ));
            }
        }
    } else {
        for (k, m) in info.varyings_read.iter().enumerate() {
            if m.bits() != 0 {
                inputs.push(register(format!("v{k}"), k as u32));
            }
        }
        for k in (0..8).filter(|k| info.color_outputs & (1 << k) != 0) {
            let name = if k == 0 {
                "oc".into()
            } else {
                format!("oc{k}")
            };
            outputs.push(output(name, "xyzw".into()));
        }
    }
    let constants = if vertex { "vc" } else { "fc" };
    let uniforms = (info.constants > 0)
        .then(|| UniformInfo {
            name: constants.into(),
            block: None,
            type_name: format!("vec4[{}]", info.constants),
            layout: None,
            register: format!("{constants}0"),
            component: 0,
            count: info.constants.into(),
            default: None,
        })
        .into_iter()
        .collect();
    let samplers = info
        .samplers
        .iter()
        .map(|s| {
            let flags = s.flag_names();
            SamplerInfo {
                name: format!("fs{}", s.index),
                binding: s.index.into(),
                register: format!("fs{}", s.index),
                dim: flags[0].clone(),
                flags,
            }
        })
        .collect();
    Reflection {
        target: "agal".into(),
        agal_version: Some(version.number() as u8),
        stage: stage.name().into(),
        entry_point: "main".into(),
        inputs,
        outputs,
        uniforms,
        samplers,
        stats: Stats {
            instructions: info.tokens,
            temporaries: info.temporaries.into(),
            constant_registers: info.constants.into(),
            operand_descriptors: None,
        },
        ..Reflection::default()
    }
}

/// What each output register a compiled PICA200 vertex program enables carries, in register
/// order: the geometry program after it receives them so (see
/// `backend_pica::codegen::geometry`).
pub(crate) fn vertex_layout(vertex: &Compiled) -> backend_pica::codegen::geometry::Layout {
    use backend_pica::codegen::geometry::{Carried, Layout};
    let mut registers: Vec<(usize, Option<Carried>)> = Vec::new();
    for o in &vertex.reflection.outputs {
        let Ok(reg) = o.register.trim_start_matches('o').parse::<usize>() else {
            continue;
        };
        if registers.iter().any(|(r, _)| *r == reg) {
            continue;
        }
        let carried = match (o.builtin.as_deref(), o.location) {
            (Some("Position"), _) => Some(Carried::Position),
            (None, Some(l)) => Some(Carried::Location(l)),
            _ => None,
        };
        registers.push((reg, carried));
    }
    registers.sort_by_key(|(r, _)| *r);
    Layout {
        registers: registers.into_iter().map(|(_, c)| c).collect(),
    }
}

/// `warnings` rendered for the input called `name` (`text` when it was assembly text), each
/// ending in a line break.
fn render_warnings(warnings: &Diagnostics, name: &str, text: Option<&str>) -> String {
    if warnings.0.is_empty() {
        String::new()
    } else {
        let mut out = warnings.render(name, text);
        out.push('\n');
        out
    }
}

/// The optimised MIR the back end for `options.target` starts from, printed (what
/// `--emit mir` writes): for reading what the compiler made of a shader.
pub fn mir_text<'s>(source: impl Borrow<Source<'s>>, options: &Options) -> Result<String, Error> {
    let source = source.borrow();
    crate::error::guarded(source.name(), || mir_text_at(source, options, None))
}

/// [`mir_text`] after step `step` of the pipeline (its number or its name, as
/// [`pipeline_text`] prints them) instead of at its end: `--emit mir --after STEP`.
///
/// ```
/// use spv2retro::{Options, Source, Stage, mir_text_after};
/// let vert = "#version 450\nlayout(location = 0) in vec4 p;\n\
///             void main() { gl_Position = p * 2.0; }";
/// let text = mir_text_after(Source::glsl(vert, Stage::Vertex), &Options::pica(), "mem2reg")?;
/// assert!(text.contains("mul"));
/// # Ok::<(), spv2retro::Error>(())
/// ```
pub fn mir_text_after<'s>(
    source: impl Borrow<Source<'s>>,
    options: &Options,
    step: &str,
) -> Result<String, Error> {
    let source = source.borrow();
    crate::error::guarded(source.name(), || {
        let found = match options.target {
            Target::Pica if options.stage == Some(Stage::Fragment) => {
                backend_pica::fragment::pipeline().find(&StepRef::parse(step))
            }
            Target::Pica => pica_pipeline().find(&StepRef::parse(step)),
            Target::Agal => {
                backend_agal::codegen::pipeline(options.profile).find(&StepRef::parse(step))
            }
        };
        let number = found.map_err(|message| {
            let d = Diagnostic::error(
                crate::rules::Rule::PipelineOption,
                format!("--after {step}: {message}"),
            );
            Error::rejected(Diagnostics(vec![d]), source.name(), None)
        })?;
        mir_text_at(source, options, Some(number))
    })
}

/// The pass pipeline the back end for `options.target` runs (its first try; AGAL's for
/// `options.profile`), one numbered step per line, then what the clean-up runs: what
/// `--print-pipeline` prints.
pub fn pipeline_text(options: &Options) -> String {
    let (steps, retries) = match options.target {
        Target::Pica if options.stage == Some(Stage::Fragment) => {
            (backend_pica::fragment::pipeline().to_string(), "")
        }
        Target::Pica => (
            pica_pipeline().to_string(),
            backend_pica::codegen::prepare::RETRIES,
        ),
        Target::Agal => (
            backend_agal::codegen::pipeline(options.profile).to_string(),
            backend_agal::codegen::prepare::RETRIES,
        ),
    };
    format!("{steps}{retries}")
}

fn pica_pipeline() -> backend_pica::codegen::prepare::Pipeline {
    backend_pica::codegen::prepare::pipeline(backend_pica::codegen::prepare::Try::FIRST, None)
}

fn mir_text_at(
    source: &Source<'_>,
    options: &Options,
    stop: Option<usize>,
) -> Result<String, Error> {
    let lowered = lower(source, options)?;
    let name = source.name();
    let prepared = match options.target {
        Target::Pica if lowered.stage == Stage::Fragment => {
            backend_pica::fragment::prepare_until(&lowered.mir, stop)
        }
        // The whole pipeline: the try the compiler keeps (a loop kept or unrolled).
        Target::Pica if stop.is_none() => backend_pica::codegen::prepare::choose(&lowered.mir).1,
        Target::Pica => backend_pica::codegen::prepare::prepare_until(
            &lowered.mir,
            backend_pica::codegen::prepare::Try::FIRST,
            stop,
        ),
        Target::Agal => {
            backend_agal::codegen::prepare_until(&lowered.mir, &options.agal_options(), stop)
        }
    };
    let m = prepared
        .map_err(|d| Error::rejected(lowered.annotate(d), name, lowered.text.as_deref()))?;
    Ok(mir::print::print_module(&m))
}

/// PICA200: the fragment shader compiled to the texture combiners, then the vertex shader
/// with the output semantics the combiners read: the varying a texture unit reads becomes
/// that unit's `texcoordN` (`texcoord0` and `texcoord0w` for a cube map), the varying read as
/// a colour `color`, and the outputs the fragment shader does not read `dummy`, over what
/// `options.semantics` says. A varying the fragment shader reads must be one the vertex
/// shader writes (by location; classic GLSL's by name).
fn pica_pair(
    vertex: &Source<'_>,
    fragment: &Source<'_>,
    options: &Options,
) -> Result<(Compiled, Compiled), Error> {
    #[cfg_attr(not(feature = "glsl"), allow(unused_mut))]
    let mut fragment_options = options.clone().stage(Stage::Fragment);
    #[cfg(feature = "glsl")]
    if let Code::Glsl(text, _) = &vertex.code {
        fragment_options.varyings = Some(frontend_glsl::vertex_varyings(text, &options.defines));
    }
    let f = compile(fragment, &fragment_options)?;
    let vertex_options = pica_vertex_options(&f, options, fragment.name())?;
    let v = compile(vertex, &vertex_options)?;
    check_pica_pair(&v, &f, fragment.name())?;
    Ok((v, f))
}

/// The options of the vertex program a compiled PICA200 fragment program `f` follows: the
/// output semantics its combiners read (see [`compile_pair`]).
pub(crate) fn pica_vertex_options(
    f: &Compiled,
    options: &Options,
    name: &str,
) -> Result<Options, Error> {
    use backend_pica::fragment::config::TextureKind;
    let mut o = options.clone().stage(Stage::Vertex);
    let Some(t) = f.texenv() else {
        return Ok(o);
    };
    let mut wanted: Vec<(u32, Semantic)> = Vec::new();
    for u in &t.textures {
        let s = match (u.unit, u.kind) {
            (0, _) => Semantic::TexCoord0,
            (1, _) => Semantic::TexCoord1,
            _ => Semantic::TexCoord2,
        };
        // A varying another unit reads already: the vertex program writes it again at a
        // free location, which carries this unit's texcoord.
        if wanted.iter().any(|(l, _)| *l == u.location) {
            let taken = |l: u32| {
                wanted.iter().any(|(x, _)| *x == l)
                    || o.duplicate_outputs.iter().any(|(_, x)| *x == l)
                    || t.textures.iter().any(|x| x.location == l)
                    || t.color.as_ref().is_some_and(|(_, x)| *x == l)
            };
            let Some(free) = (0..16).find(|l| !taken(*l)) else {
                let d = Diagnostic::error(
                    backend_pica::Rule::Fragment,
                    format!(
                        "texture units read the varying '{}' at once, and no location is free \
                         to write it again",
                        u.varying
                    ),
                );
                return Err(Error::rejected(Diagnostics(vec![d]), name, None));
            };
            o.duplicate_outputs.push((u.location, free));
            wanted.push((free, s));
            continue;
        }
        if u.kind == TextureKind::Cube && u.unit != 0 {
            continue;
        }
        wanted.push((u.location, s));
    }
    if let Some((_, location)) = &t.color {
        wanted.push((*location, Semantic::Color));
    }
    // Every other location: dummy, so that no default semantic takes one the combiners
    // read.
    for l in 0..16 {
        if !wanted.iter().any(|(x, _)| *x == l) && !options.semantics.iter().any(|(x, _)| *x == l) {
            wanted.push((l, Semantic::Dummy));
        }
    }
    for (l, s) in wanted {
        if !options.semantics.iter().any(|(x, _)| *x == l) {
            o = o.semantic(l, s);
        }
    }
    Ok(o)
}

/// Every varying the combiners read is written by the vertex program.
pub(crate) fn check_pica_pair(v: &Compiled, f: &Compiled, name: &str) -> Result<(), Error> {
    let Some(t) = f.texenv() else { return Ok(()) };
    let read = t
        .textures
        .iter()
        .map(|u| (u.varying.as_str(), u.location))
        .chain(t.color.iter().map(|(n, l)| (n.as_str(), *l)));
    for (varying, location) in read {
        let written = v
            .reflection
            .outputs
            .iter()
            .any(|o| o.location == Some(location) && o.builtin.is_none());
        if !written {
            let d = Diagnostic::error(
                backend_pica::PicassoRule::Link,
                format!(
                    "the fragment shader reads the varying '{varying}' (location {location}),                      which the vertex shader does not write"
                ),
            );
            return Err(Error::rejected(Diagnostics(vec![d]), name, None));
        }
    }
    Ok(())
}

/// AGAL: compiles a vertex and a fragment shader as the pair a `Program3D` uploads, and
/// checks that they link (see [`check_link`]). When the fragment shader reads
/// `gl_FragCoord`, the vertex program also passes its position on in the first varying
/// neither shader uses, and the fragment program computes the window position from it and
/// the uniform `spv2retro_viewport` (width, height in pixels), which the reflection lists.
///
/// ```
/// use spv2retro::{Options, Profile, Source, Stage, compile_pair};
/// let vert = "#version 450\nlayout(location = 0) in vec4 p;\nvoid main() { gl_Position = p; }";
/// let frag = "#version 450\nlayout(location = 0) out vec4 c;\n\
///             void main() { c = vec4(gl_FragCoord.xy / 256.0, 0.0, 1.0); }";
/// let (v, f) = compile_pair(
///     Source::glsl(vert, Stage::Vertex),
///     Source::glsl(frag, Stage::Fragment),
///     &Options::agal(Profile::Standard),
/// )?;
/// assert!(f.reflection.uniforms.iter().any(|u| u.name == "spv2retro_viewport"));
/// # let _ = v;
/// # Ok::<(), spv2retro::Error>(())
/// ```
pub fn compile_pair<'v, 'f>(
    vertex: impl Borrow<Source<'v>>,
    fragment: impl Borrow<Source<'f>>,
    options: &Options,
) -> Result<(Compiled, Compiled), Error> {
    let (vertex, fragment) = (vertex.borrow(), fragment.borrow());
    if options.target == Target::Pica {
        return pica_pair(vertex, fragment, options);
    }
    let mut options = options.clone();
    options.target = Target::Agal;
    // Sampler flags are the fragment program's (a vertex program samples nothing).
    let mut vertex_options = options.clone().stage(Stage::Vertex);
    vertex_options.samplers.clear();
    let mut fragment_options = options.clone().stage(Stage::Fragment);
    // Classic GLSL: the fragment shader's varyings take the vertex shader's locations, by
    // name.
    #[cfg(feature = "glsl")]
    if let Code::Glsl(text, _) = &vertex.code {
        fragment_options.varyings = Some(frontend_glsl::vertex_varyings(text, &options.defines));
    }
    let frag = lower(fragment, &fragment_options)?;
    if backend_agal::codegen::position::reads_frag_coord(&frag.mir)
        && options.position_varying.is_none()
    {
        let vert = lower(vertex, &vertex_options)?;
        let used: Vec<u32> = frag
            .mir
            .inputs
            .iter()
            .map(|(_, i)| i.location)
            .chain(vert.mir.outputs.iter().filter_map(|o| o.location))
            .collect();
        options.position_varying = (0..8).find(|k| !used.contains(k));
        if options.position_varying.is_none() {
            return Err(Error::other(
                ErrorKind::Rejected,
                format!(
                    "{}: gl_FragCoord needs a varying to pass the position on, and the pair uses \
                     all eight",
                    fragment.name()
                ),
            ));
        }
    }
    fragment_options.position_varying = options.position_varying;
    vertex_options.position_varying = options.position_varying;
    let v = compile(vertex, &vertex_options)?;
    let f = compile(fragment, &fragment_options)?;
    check_link(&v, &f, fragment.name())?;
    Ok((v, f))
}

/// AGAL: checks that a vertex and a fragment program compiled together link: the
/// fragment program reads only varyings the vertex program writes, with agreeing shapes,
/// and the pair passes Flash's upload rules. `name` labels the diagnostics.
pub fn check_link(vertex: &Compiled, fragment: &Compiled, name: &str) -> Result<(), Error> {
    let (Some(v), Some(f)) = (&vertex.agal, &fragment.agal) else {
        return Err(Error::other(
            ErrorKind::Rejected,
            format!("{name}: only two AGAL programs can be linked"),
        ));
    };
    backend_agal::codegen::check_link(v, f).map_err(|d| Error::rejected(d, name, None))
}
