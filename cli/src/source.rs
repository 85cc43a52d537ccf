//! What to compile: one [`Source`] for every input the compiler takes, and the one place that
//! tells a file's language from its name ([`Source::from_path`]), which the command-line
//! tools, the build helper and the playground all use.

use std::borrow::Cow;
use std::path::Path;

use frontend_spirv::entry::Stage;

use crate::error::{Error, ErrorKind};

/// What to compile, and the name diagnostics call it by. Borrowed text or bytes
/// ([`Source::spirv`], [`Source::glsl`] …) or owned ([`Source::from_path`]).
#[derive(Clone, Debug)]
pub struct Source<'a> {
    pub(crate) name: Cow<'a, str>,
    pub(crate) code: Code<'a>,
}

#[derive(Clone, Debug)]
pub(crate) enum Code<'a> {
    /// A SPIR-V binary (either byte order) or SPIR-V assembly text, told apart by content.
    Spirv(Cow<'a, [u8]>),
    /// A SPIR-V binary (either byte order), never taken for text.
    SpirvBinary(Cow<'a, [u8]>),
    /// SPIR-V assembly text.
    SpirvText(Cow<'a, str>),
    /// GLSL, classic or Vulkan-style, for its stage (else the options', else vertex).
    #[cfg(feature = "glsl")]
    Glsl(Cow<'a, str>, Option<Stage>),
    /// WGSL.
    #[cfg(feature = "wgsl")]
    Wgsl(Cow<'a, str>),
    /// picasso assembly: a PICA200 program already written.
    Picasso(Cow<'a, str>),
    /// AGALMiniAssembler text for its stage (else the options').
    AgalAssembly(Cow<'a, str>, Option<Stage>),
}

/// The language of a [`Source`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Language {
    /// A SPIR-V binary, or SPIR-V assembly text when told apart by content.
    Spirv,
    /// SPIR-V assembly text (`spirv-as` syntax).
    SpirvText,
    /// GLSL.
    Glsl,
    /// WGSL.
    Wgsl,
    /// picasso assembly (PICA200).
    Picasso,
    /// AGALMiniAssembler text (AGAL).
    AgalAssembly,
}

impl<'a> Source<'a> {
    fn new(code: Code<'a>) -> Source<'a> {
        Source {
            name: Cow::Borrowed("<input>"),
            code,
        }
    }

    /// A SPIR-V module: a binary in either byte order, or assembly text (told apart by
    /// content, as the command-line compilers do).
    ///
    /// ```
    /// use spv2retro::{Language, Options, Source, compile};
    ///
    /// // What glslang made of tests/fixtures/glsl/mvp_color.vert.
    /// let words = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/glsl/mvp_color.vert.spv"));
    /// let source = Source::spirv(words).named("mvp_color.vert.spv");
    /// assert_eq!(source.language(), Language::Spirv);
    /// let program = compile(source, &Options::pica())?;
    /// assert_eq!(&program.bytes[..4], b"DVLB");
    /// assert!(program.reflection.uniforms.iter().any(|u| u.name == "mvp"));
    /// # Ok::<(), spv2retro::Error>(())
    /// ```
    pub fn spirv(bytes: &'a [u8]) -> Source<'a> {
        Source::new(Code::Spirv(Cow::Borrowed(bytes)))
    }

    /// A SPIR-V binary in either byte order, and nothing else: input that does not start
    /// with the magic number is rejected as not SPIR-V (`phys.header`) rather than read as
    /// assembly text. For files named `.spv`.
    ///
    /// ```
    /// use spv2retro::{Options, Source, compile};
    ///
    /// let text = b"OpCapability Shader\n";
    /// let err = compile(Source::spirv_binary(text).named("x.spv"), &Options::pica()).unwrap_err();
    /// assert!(err.to_string().starts_with("x.spv: error[phys.header]"), "{err}");
    /// ```
    pub fn spirv_binary(bytes: &'a [u8]) -> Source<'a> {
        Source::new(Code::SpirvBinary(Cow::Borrowed(bytes)))
    }

    /// SPIR-V assembly text (the syntax of `spirv-as`). The [`compile`](crate::compile)
    /// example compiles one.
    pub fn spirv_text(text: &'a str) -> Source<'a> {
        Source::new(Code::SpirvText(Cow::Borrowed(text)))
    }

    /// GLSL source for `stage`: Vulkan-style (`#version 450`, explicit locations and
    /// bindings) or classic (ES 1.00/3.00, desktop 1.10–3.30), compiled to SPIR-V through
    /// naga's GLSL front end. Needs the `glsl` feature.
    ///
    /// ```
    /// use spv2retro::{Options, Source, Stage, compile};
    ///
    /// // Classic GLSL: attributes and loose uniforms take locations and registers in order.
    /// let text = "attribute vec4 position;\nuniform mat4 mvp;\n\
    ///             void main() { gl_Position = mvp * position; }";
    /// let program = compile(Source::glsl(text, Stage::Vertex), &Options::pica())?;
    /// assert_eq!(program.reflection.uniforms[0].name, "mvp");
    /// assert_eq!(program.reflection.uniforms[0].register, "c0");
    /// # Ok::<(), spv2retro::Error>(())
    /// ```
    #[cfg(feature = "glsl")]
    pub fn glsl(text: &'a str, stage: Stage) -> Source<'a> {
        Source::new(Code::Glsl(Cow::Borrowed(text), Some(stage)))
    }

    /// WGSL source, compiled to SPIR-V by naga's WGSL front end. Needs the `wgsl` feature.
    ///
    /// ```
    /// use spv2retro::{Options, Profile, Source, compile};
    ///
    /// let text = "@vertex fn main(@location(0) p: vec4<f32>) -> @builtin(position) vec4<f32> {
    ///     return p * 2.0;
    /// }";
    /// let program = compile(Source::wgsl(text), &Options::agal(Profile::Baseline))?;
    /// assert_eq!(program.bytes[0], 0xa0); // the AGAL header
    /// assert!(program.listing.contains("op"), "{}", program.listing);
    /// # Ok::<(), spv2retro::Error>(())
    /// ```
    #[cfg(feature = "wgsl")]
    pub fn wgsl(text: &'a str) -> Source<'a> {
        Source::new(Code::Wgsl(Cow::Borrowed(text)))
    }

    /// picasso assembly (`.v.pica`, `.g.pica`, `.vsh`, `.gsh`): assembled as picasso does,
    /// for the PICA200 only. [`crate::picasso::link`] links several sources into one
    /// `.shbin`.
    ///
    /// ```
    /// use spv2retro::{Options, Source, compile};
    ///
    /// let text = "
    /// .fvec projection[4]
    /// .out outpos position
    /// .in inpos v0
    /// .proc main
    ///     dp4 outpos.x, projection[0], inpos
    ///     dp4 outpos.y, projection[1], inpos
    ///     dp4 outpos.z, projection[2], inpos
    ///     dp4 outpos.w, projection[3], inpos
    ///     end
    /// .end
    /// ";
    /// let program = compile(Source::picasso(text).named("vshader.v.pica"), &Options::pica())?;
    /// assert_eq!(&program.bytes[..4], b"DVLB");
    /// assert_eq!(program.reflection.uniforms[0].name, "projection");
    /// # Ok::<(), spv2retro::Error>(())
    /// ```
    pub fn picasso(text: &'a str) -> Source<'a> {
        Source::new(Code::Picasso(Cow::Borrowed(text)))
    }

    /// AGALMiniAssembler text for a `stage` program: assembled as AGALMiniAssembler does
    /// for the profile's AGAL version and checked against Flash Player's rules, for AGAL
    /// only.
    ///
    /// ```
    /// use spv2retro::{Options, Profile, Source, Stage, compile};
    ///
    /// let text = "tex ft0, v0, fs0 <2d, linear>\nmul oc, ft0, fc0\n";
    /// let source = Source::agal_assembly(text, Stage::Fragment);
    /// let program = compile(source, &Options::agal(Profile::Baseline))?;
    /// assert_eq!(&program.bytes[..7], [0xa0, 1, 0, 0, 0, 0xa1, 1]); // AGAL 1, fragment
    /// # Ok::<(), spv2retro::Error>(())
    /// ```
    pub fn agal_assembly(text: &'a str, stage: Stage) -> Source<'a> {
        Source::new(Code::AgalAssembly(Cow::Borrowed(text), Some(stage)))
    }

    /// The same source, called `name` in diagnostics (usually its path).
    ///
    /// ```
    /// use spv2retro::{Options, Source, Stage, compile};
    ///
    /// let text = "#version 450\nvoid main() { gl_Position = tint; }";
    /// let source = Source::glsl(text, Stage::Vertex).named("shaders/bad.vert");
    /// let err = compile(source, &Options::pica()).unwrap_err();
    /// assert!(err.to_string().starts_with("shaders/bad.vert: error["), "{err}");
    /// ```
    pub fn named(self, name: impl AsRef<str>) -> Source<'a> {
        Source {
            name: Cow::Owned(name.as_ref().to_string()),
            ..self
        }
    }

    /// The name diagnostics use.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its language.
    pub fn language(&self) -> Language {
        match self.code {
            Code::Spirv(_) | Code::SpirvBinary(_) => Language::Spirv,
            Code::SpirvText(_) => Language::SpirvText,
            #[cfg(feature = "glsl")]
            Code::Glsl(..) => Language::Glsl,
            #[cfg(feature = "wgsl")]
            Code::Wgsl(_) => Language::Wgsl,
            Code::Picasso(_) => Language::Picasso,
            Code::AgalAssembly(..) => Language::AgalAssembly,
        }
    }

    /// The stage the source says it is for, when its name or its language says
    /// (`x.frag`, `x.vert.agalasm`, a picasso `.gsh`…).
    pub fn stage(&self) -> Option<Stage> {
        match &self.code {
            #[cfg(feature = "glsl")]
            Code::Glsl(_, stage) => *stage,
            Code::AgalAssembly(_, stage) => *stage,
            Code::Picasso(text) => Some(if backend_pica::asm::link::is_geometry(text) {
                Stage::Geometry
            } else {
                Stage::Vertex
            }),
            _ => None,
        }
    }
}

impl Source<'static> {
    /// Reads the file at `path` and tells its language from its name:
    ///
    /// | name | language |
    /// |------|----------|
    /// | `.spv` | a SPIR-V binary |
    /// | `.spvasm` | SPIR-V assembly |
    /// | `.vert`, `.frag`, `.geom`; `.vs`, `.fs` (raylib); `.fsh`, and `.vsh`/`.gsh` holding GLSL | GLSL for that stage |
    /// | `.glsl` | GLSL for the stage a double extension names (`x.vert.glsl`, `x.fs.glsl`), else the options', else vertex |
    /// | `.wgsl` | WGSL |
    /// | `.pica`, `.vsh`, `.gsh` (`.v.pica`, `.g.pica`) | picasso assembly |
    /// | `.vert.agalasm`, `.frag.agalasm`, `.agalasm` | AGALMiniAssembler text (the stage from the name, else the options') |
    /// | anything else | GLSL when the text starts as GLSL does (a `#` directive, a comment, a GLSL keyword), else SPIR-V, binary or text by content |
    ///
    /// The source is named by the path. An unreadable file is an [`ErrorKind::Io`] error;
    /// text that is not UTF-8, or GLSL/WGSL without the feature, is rejected.
    ///
    /// ```
    /// use spv2retro::{Language, Options, Source, Stage, compile};
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/homebrew/shaders/vshader.vert");
    /// let source = Source::from_path(path)?;
    /// assert_eq!((source.language(), source.stage()), (Language::Glsl, Some(Stage::Vertex)));
    /// assert_eq!(source.name(), path);
    /// let program = compile(&source, &Options::pica())?;
    /// assert!(program.reflection.uniforms.iter().any(|u| u.name == "projection"));
    /// # Ok::<(), spv2retro::Error>(())
    /// ```
    pub fn from_path(path: impl AsRef<Path>) -> Result<Source<'static>, Error> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| {
            Error::other(
                ErrorKind::Io,
                format!("cannot read {}: {e}", path.display()),
            )
        })?;
        Source::from_bytes(path.display().to_string(), bytes)
    }

    /// The source in the file called `name` (a path, or `<stdin>`) holding `bytes`: its
    /// language by the name, as [`Source::from_path`] tells it.
    pub fn from_bytes(name: impl Into<String>, bytes: Vec<u8>) -> Result<Source<'static>, Error> {
        let name: String = name.into();
        let file = Path::new(&name)
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        let extension = file.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
        #[cfg(feature = "glsl")]
        let glsl = |text, stage| Ok::<_, Error>(Code::Glsl(text, stage));
        #[cfg(not(feature = "glsl"))]
        let glsl = |_, _: Option<Stage>| Err::<Code<'static>, _>(needs_feature(&name, "glsl"));
        #[cfg(feature = "wgsl")]
        let wgsl = |text| Ok::<_, Error>(Code::Wgsl(text));
        #[cfg(not(feature = "wgsl"))]
        let wgsl = |_| Err::<Code<'static>, _>(needs_feature(&name, "wgsl"));
        let text = |bytes: Vec<u8>| -> Result<Cow<'static, str>, Error> {
            String::from_utf8(bytes).map(Cow::Owned).map_err(|e| {
                Error::other(
                    ErrorKind::Rejected,
                    format!("{name}: the source text is not UTF-8: {}", e.utf8_error()),
                )
            })
        };
        // The stage a double extension names: `x.vert.glsl`, `x.fs.txt`.
        let inner_stage = {
            let stem = file.rsplit_once('.').map_or("", |(s, _)| s);
            match stem.rsplit_once('.').map_or("", |(_, e)| e) {
                "vert" | "vs" | "vsh" | "vertex" => Some(Stage::Vertex),
                "frag" | "fs" | "fsh" | "fragment" => Some(Stage::Fragment),
                "geom" | "gs" | "gsh" | "geometry" => Some(Stage::Geometry),
                _ => None,
            }
        };
        let glsl_text = std::str::from_utf8(&bytes).is_ok_and(looks_like_glsl);
        let code = match extension {
            "spvasm" => Code::SpirvText(text(bytes)?),
            // A `.spv` file is a binary: text in one is an error about the header, not
            // about assembly syntax.
            "spv" => Code::SpirvBinary(Cow::Owned(bytes)),
            // GLSL by its stage's extension: glslang's (`.vert`), raylib's (`.vs`), and
            // cocos2d's and Apple's (`.vsh`, `.fsh`, when the text is GLSL: a picasso
            // source is too).
            "vert" | "vs" => glsl(text(bytes)?, Some(Stage::Vertex))?,
            "frag" | "fs" | "fsh" => glsl(text(bytes)?, Some(Stage::Fragment))?,
            "geom" => glsl(text(bytes)?, Some(Stage::Geometry))?,
            "vsh" if glsl_text => glsl(text(bytes)?, Some(Stage::Vertex))?,
            "gsh" if glsl_text => glsl(text(bytes)?, Some(Stage::Geometry))?,
            "glsl" | "vertex" | "fragment" => {
                let stage = match extension {
                    "vertex" => Some(Stage::Vertex),
                    "fragment" => Some(Stage::Fragment),
                    _ => inner_stage,
                };
                glsl(text(bytes)?, stage)?
            }
            "wgsl" => wgsl(text(bytes)?)?,
            "pica" | "vsh" | "gsh" => Code::Picasso(text(bytes)?),
            "agalasm" => {
                let stage = if file.ends_with(".vert.agalasm") {
                    Some(Stage::Vertex)
                } else if file.ends_with(".frag.agalasm") {
                    Some(Stage::Fragment)
                } else {
                    None
                };
                Code::AgalAssembly(text(bytes)?, stage)
            }
            // Text that starts as GLSL does (a directive, a comment, a GLSL keyword) is
            // GLSL whatever its name; anything else is SPIR-V, binary or text by content.
            _ if glsl_text => glsl(text(bytes)?, inner_stage)?,
            _ => Code::Spirv(Cow::Owned(bytes)),
        };
        Ok(Source {
            name: Cow::Owned(name),
            code,
        })
    }
}

/// Whether `text` starts as a GLSL shader does: with a preprocessor directive, a `//` or
/// `/*` comment, or one of the words a GLSL shader's first declaration starts with. SPIR-V
/// assembly starts with `;`, `Op…` or `%`; picasso source with `;` or `.`.
pub(crate) fn looks_like_glsl(text: &str) -> bool {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with('#') || t.starts_with("//") || t.starts_with("/*") {
        return true;
    }
    let word: String = t
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    matches!(
        word.as_str(),
        "precision"
            | "uniform"
            | "attribute"
            | "varying"
            | "in"
            | "out"
            | "layout"
            | "struct"
            | "const"
            | "void"
            | "float"
            | "int"
            | "bool"
            | "highp"
            | "mediump"
            | "lowp"
            | "vec2"
            | "vec3"
            | "vec4"
            | "mat2"
            | "mat3"
            | "mat4"
            | "sampler2D"
            | "samplerCube"
            | "invariant"
            | "flat"
            | "smooth"
    )
}

#[cfg(any(not(feature = "glsl"), not(feature = "wgsl")))]
fn needs_feature(name: &str, feature: &str) -> Error {
    Error::other(
        ErrorKind::Rejected,
        format!(
            "{name}: {} source needs spv2retro's `{feature}` feature (features = [\"{feature}\"] \
             in the dependency), or compile it to SPIR-V first",
            feature.to_uppercase()
        ),
    )
}
