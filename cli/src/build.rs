//! The build-script helper: compiles a project's shaders into `OUT_DIR` when it builds,
//! with `cargo:rerun-if-changed` for each, and writes a Rust module with one submodule per
//! shader holding its bytes (4-byte aligned) and a constant per uniform, so that code reads
//! `shaders::vshader::PROJECTION` instead of looking a name up at run time.
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), spv2retro::Error> {
//!     spv2retro::build::Shaders::new()
//!         .shader("shaders/vshader.spv", spv2retro::Options::pica())
//!         .compile()?;
//!     Ok(())
//! }
//! ```
//!
//! ```text
//! // src/main.rs
//! mod shaders {
//!     include!(concat!(env!("OUT_DIR"), "/shaders.rs"));
//! }
//! let dvlb = shaders::vshader::BYTES; // DVLB_ParseFile(dvlb.as_ptr() as *mut u32, dvlb.len() as u32)
//! let projection = shaders::vshader::PROJECTION.register; // C3D_FVUnifMtx4x4(.., projection as i32, ..)
//! ```
//!
//! For Stage3D, [`Shaders::stage3d_pair`] compiles a vertex and a fragment shader as a pair,
//! and [`Shaders::stage3d_classes`] also writes a Haxe (OpenFL) or ActionScript 3 class per
//! AGAL pair and per AGAL shader (see [`crate::glue`]), for a Haxe or AIR project that a
//! Cargo build drives.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::Stage;
use crate::compile::{Compiled, Options, Target, compile};
use crate::error::{Error, ErrorKind};
use crate::picasso::{self, Linked};
use crate::source::{Language, Source};

mod stage3d;

/// The shaders of a project, and where their outputs go.
///
/// In a build script the outputs go to `OUT_DIR`; here, to a folder of the example's own.
/// The paths are `examples/homebrew`'s, whose `build.rs` is this.
///
/// ```
/// use spv2retro::build::Shaders;
/// use spv2retro::{Options, Profile};
///
/// let shaders = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/homebrew/shaders");
/// let out = std::env::temp_dir().join(format!("spv2retro-doc-shaders-{}", std::process::id()));
/// std::fs::create_dir_all(&out)?;
/// let outputs = Shaders::new()
///     .shader(format!("{shaders}/vshader.vert"), Options::pica())
///     .shader(format!("{shaders}/stage3d/sprite_fs.frag"), Options::agal(Profile::Baseline))
///     .out_dir(&out)
///     .compile()?;
/// assert!(out.join("vshader.shbin").exists() && out.join("sprite_fs.agal").exists());
/// let module = std::fs::read_to_string(&outputs.module)?; // OUT_DIR/shaders.rs
/// assert!(module.contains("pub mod vshader {") && module.contains("pub const PROJECTION: Uniform"));
/// # std::fs::remove_dir_all(&out)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Shaders {
    items: Vec<Item>,
    out_dir: Option<PathBuf>,
    module_file: Option<String>,
    /// Variant tables: the module, and each variant's name and its own module.
    variant_tables: Vec<(String, Vec<(String, String)>)>,
    /// The build's shared uniform layout.
    layout: Option<crate::layout::Layout>,
    /// Stage3D classes to write: the language, and the folder (else the output folder).
    classes: Vec<(crate::glue::Language, Option<PathBuf>)>,
}

#[derive(Clone, Debug)]
enum Item {
    File {
        module: Option<String>,
        path: PathBuf,
        options: Options,
    },
    Linked {
        module: String,
        paths: Vec<PathBuf>,
        options: Options,
    },
    Dir {
        path: PathBuf,
        options: Options,
    },
    Pair {
        module: String,
        vertex: PathBuf,
        fragment: PathBuf,
        options: Options,
    },
}

/// What one shader (or one linked set of picasso sources) became.
#[derive(Clone, Debug)]
pub struct Output {
    /// The Rust module's name (`vshader`).
    pub module: String,
    /// The source file (the first of a linked set).
    pub source: PathBuf,
    /// Every source file, in link order.
    pub sources: Vec<PathBuf>,
    /// The program file written (`vshader.shbin`, `frag.agal`).
    pub program: PathBuf,
    /// The reflection file written beside it (`vshader.json`), for a compiled shader.
    pub reflection: Option<PathBuf>,
    /// The program's bytes.
    pub bytes: Vec<u8>,
    /// The compiled program, for a shader compiled alone.
    pub compiled: Option<Compiled>,
    /// The linked program, for picasso sources (and shaders linked with them).
    pub linked: Option<Linked>,
}

/// What [`Shaders::compile`] wrote.
#[derive(Clone, Debug)]
pub struct Outputs {
    /// The generated Rust module (`OUT_DIR/shaders.rs`).
    pub module: PathBuf,
    /// The shaders, in the order given (a folder's files sorted by path), then each
    /// [`Shaders::stage3d_pair`]'s vertex and fragment program.
    pub shaders: Vec<Output>,
    /// The Stage3D classes written ([`Shaders::stage3d_classes`]), in the order of
    /// `shaders` (a pair's once), each language in the order asked.
    pub classes: Vec<PathBuf>,
}

/// The file extensions taken as shaders when a folder is given (GLSL and WGSL files without
/// their feature are reported, not skipped).
const SHADER_EXTENSIONS: &[&str] = &[
    "spv", "spvasm", "vert", "frag", "glsl", "wgsl", "pica", "vsh", "gsh", "shlist", "agalasm",
];

impl Shaders {
    /// No shaders yet; outputs go to `OUT_DIR`, the module to `OUT_DIR/shaders.rs`.
    pub fn new() -> Shaders {
        Shaders::default()
    }

    /// Compiles the shader at `path` with `options`. Its module is named after the file,
    /// up to the first dot (`vshader.vert` → `vshader`). Paths are relative to the package
    /// (where Cargo runs build scripts).
    pub fn shader(mut self, path: impl Into<PathBuf>, options: Options) -> Shaders {
        self.items.push(Item::File {
            module: None,
            path: path.into(),
            options,
        });
        self
    }

    /// As [`Shaders::shader`], with the module called `module`.
    pub fn shader_named(
        mut self,
        module: impl Into<String>,
        path: impl Into<PathBuf>,
        options: Options,
    ) -> Shaders {
        self.items.push(Item::File {
            module: Some(module.into()),
            path: path.into(),
            options,
        });
        self
    }

    /// Compiles every shader file under `dir` (recursively; `.spv`, `.spvasm`, and with the
    /// `glsl`/`wgsl` features `.vert`, `.frag`, `.glsl`, `.wgsl`, which are an error without
    /// them) with `options`; `.vert` and `.frag` files get their stage from the extension.
    ///
    /// ```
    /// use spv2retro::build::Shaders;
    /// use spv2retro::{Options, Profile};
    ///
    /// let shaders = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/homebrew/shaders");
    /// let out = std::env::temp_dir().join(format!("spv2retro-doc-dir-{}", std::process::id()));
    /// std::fs::create_dir_all(&out)?;
    /// let outputs = Shaders::new()
    ///     .dir(format!("{shaders}/stage3d"), Options::agal(Profile::Baseline))
    ///     .out_dir(&out)
    ///     .compile()?;
    /// let modules: Vec<&str> = outputs.shaders.iter().map(|s| s.module.as_str()).collect();
    /// assert_eq!(modules, ["sprite_fs", "sprite_vs", "tint"]); // tint.frag.agalasm too
    /// # std::fs::remove_dir_all(&out)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dir(mut self, dir: impl Into<PathBuf>, options: Options) -> Shaders {
        self.items.push(Item::Dir {
            path: dir.into(),
            options,
        });
        self
    }

    /// Links `paths` into one `.shbin` as picasso does (one DVLE per file, in order): picasso
    /// sources (`.v.pica`, `.g.pica`, `.pica`, `.vsh`, `.gsh`) and vertex shaders, mixed, as
    /// `spv2pica -o MODULE.shbin PATHS…`. The module holds the bytes and a constant per
    /// uniform of the vertex shaders (their shared space), with a `geometry` submodule for a
    /// geometry shader's own.
    ///
    /// ```
    /// use spv2retro::Options;
    /// use spv2retro::build::Shaders;
    ///
    /// let shaders = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/homebrew/shaders");
    /// let out = std::env::temp_dir().join(format!("spv2retro-doc-linked-{}", std::process::id()));
    /// std::fs::create_dir_all(&out)?;
    /// // A GLSL vertex shader and a hand-written geometry shader: one .shbin, two DVLEs.
    /// let outputs = Shaders::new()
    ///     .linked("sprite", [format!("{shaders}/sprite.vert"), format!("{shaders}/sprite.g.pica")], Options::pica())
    ///     .out_dir(&out)
    ///     .compile()?;
    /// assert_eq!(outputs.shaders[0].sources.len(), 2);
    /// let module = std::fs::read_to_string(&outputs.module)?;
    /// assert!(module.contains("pub mod geometry {"), "{module}");
    /// # std::fs::remove_dir_all(&out)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn linked<P: Into<PathBuf>>(
        mut self,
        module: impl Into<String>,
        paths: impl IntoIterator<Item = P>,
        options: Options,
    ) -> Shaders {
        self.items.push(Item::Linked {
            module: module.into(),
            paths: paths.into_iter().map(Into::into).collect(),
            options,
        });
        self
    }

    /// Compiles the shader at `path` once per variant (its definitions and sampler flags
    /// over `options`), as `spv2agal --variant` does: each variant is the module
    /// `MODULE_NAME`, and the module `MODULE` holds `VARIANTS`, each variant's name and
    /// bytes, for choosing one by name at run time (Starling's program per texture format).
    ///
    /// ```
    /// use spv2retro::build::Shaders;
    /// use spv2retro::variants::Variant;
    /// use spv2retro::{Options, Profile};
    ///
    /// let shaders = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/homebrew/shaders");
    /// let out = std::env::temp_dir().join(format!("spv2retro-doc-variants-{}", std::process::id()));
    /// std::fs::create_dir_all(&out)?;
    /// let variants = [Variant::parse("rgba:")?, Variant::parse("dxt5:1=dxt5")?];
    /// let outputs = Shaders::new()
    ///     .variants("sprite_fs", format!("{shaders}/stage3d/sprite_fs.frag"), Options::agal(Profile::Baseline), &variants)
    ///     .out_dir(&out)
    ///     .compile()?;
    /// let module = std::fs::read_to_string(&outputs.module)?;
    /// assert!(module.contains("pub mod sprite_fs_dxt5 {") && module.contains("VARIANTS"), "{module}");
    /// # std::fs::remove_dir_all(&out)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn variants(
        mut self,
        module: impl Into<String>,
        path: impl Into<PathBuf>,
        options: Options,
        variants: &[crate::variants::Variant],
    ) -> Shaders {
        let module = module.into();
        let path = path.into();
        let mut table = Vec::new();
        for v in variants {
            let own = format!("{module}_{}", v.name.replace('-', "_"));
            self.items.push(Item::File {
                module: Some(own.clone()),
                path: path.clone(),
                options: v.options(&options),
            });
            table.push((v.name.clone(), own));
        }
        self.variant_tables.push((module, table));
        self
    }

    /// Gives every program of the build the uniform layout `layout` (see
    /// [`crate::layout`]): uniforms of the names it lists go to its registers. The build then
    /// also checks that every program puts each uniform of a name in the same place (per
    /// target and register file), and stops naming both programs when two disagree.
    pub fn layout(mut self, layout: crate::layout::Layout) -> Shaders {
        self.layout = Some(layout);
        self
    }

    /// Compiles `vertex` and `fragment` for AGAL as a pair (as [`crate::compile_pair`] and
    /// `spv2agal VERTEX --link FRAGMENT` do: varyings matched, the position passed on when
    /// the fragment shader reads `gl_FragCoord`), after the other shaders. Each program is
    /// written and gets its module as a shader alone does, `MODULE_vertex` and
    /// `MODULE_fragment`; with [`Shaders::stage3d_classes`] the pair is one class, named
    /// after `module` (`tint_filter` → `TintFilter`).
    ///
    /// ```
    /// use spv2retro::build::Shaders;
    /// use spv2retro::{Options, Profile, glue};
    ///
    /// let shaders = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/homebrew/shaders");
    /// let out = std::env::temp_dir().join(format!("spv2retro-doc-pair-{}", std::process::id()));
    /// std::fs::create_dir_all(&out)?;
    /// let outputs = Shaders::new()
    ///     .stage3d_pair(
    ///         "sprite",
    ///         format!("{shaders}/stage3d/sprite_vs.vert"),
    ///         format!("{shaders}/stage3d/sprite_fs.frag"),
    ///         Options::agal(Profile::Baseline),
    ///     )
    ///     .stage3d_classes(glue::Language::Haxe)
    ///     .out_dir(&out)
    ///     .compile()?;
    /// assert_eq!(outputs.classes, [out.join("Sprite.hx")]);
    /// let class = std::fs::read_to_string(&outputs.classes[0])?;
    /// assert!(class.contains("public static function setMvp(context:Context3D, matrix:Matrix3D):Void"));
    /// # std::fs::remove_dir_all(&out)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stage3d_pair(
        mut self,
        module: impl Into<String>,
        vertex: impl Into<PathBuf>,
        fragment: impl Into<PathBuf>,
        options: Options,
    ) -> Shaders {
        self.items.push(Item::Pair {
            module: module.into(),
            vertex: vertex.into(),
            fragment: fragment.into(),
            options,
        });
        self
    }

    /// Also writes a Stage3D class in `language` ([`crate::glue`]: `NAME.hx` for OpenFL,
    /// `NAME.as` for AIR) for each [`Shaders::stage3d_pair`] and each AGAL shader compiled
    /// alone, named after its module (`tint_filter` → `TintFilter`), beside the programs.
    /// Call once per language.
    pub fn stage3d_classes(mut self, language: crate::glue::Language) -> Shaders {
        self.classes.push((language, None));
        self
    }

    /// As [`Shaders::stage3d_classes`], into `dir` (relative to the package: a Haxe or AIR
    /// project's source folder).
    pub fn stage3d_classes_in(
        mut self,
        language: crate::glue::Language,
        dir: impl Into<PathBuf>,
    ) -> Shaders {
        self.classes.push((language, Some(dir.into())));
        self
    }

    /// Writes to `dir` instead of `OUT_DIR` (for tools and tests).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Shaders {
        self.out_dir = Some(dir.into());
        self
    }

    /// Calls the generated module `name` (default `shaders.rs`).
    pub fn module_file(mut self, name: impl Into<String>) -> Shaders {
        self.module_file = Some(name.into());
        self
    }

    /// Compiles every shader, writes the programs, their reflection and the Rust module,
    /// and prints `cargo:rerun-if-changed` for every input, and each line of a shader's
    /// warnings as `cargo:warning`. The first shader that fails stops the build with its
    /// diagnostic (file, rule, instruction and position).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let dir = std::env::temp_dir().join(format!("spv2retro-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// // A vertex shader with one uniform block { mat4 mvp; }, as SPIR-V assembly.
    /// std::fs::write(dir.join("mvp.spvasm"), "
    ///                OpCapability Shader
    ///                OpMemoryModel Logical GLSL450
    ///                OpEntryPoint Vertex %main \"main\" %pos %out
    ///                OpName %Block \"Block\"
    ///                OpMemberName %Block 0 \"mvp\"
    ///                OpDecorate %pos Location 0
    ///                OpDecorate %out BuiltIn Position
    ///                OpDecorate %Block Block
    ///                OpMemberDecorate %Block 0 Offset 0
    ///                OpMemberDecorate %Block 0 ColMajor
    ///                OpMemberDecorate %Block 0 MatrixStride 16
    ///        %void = OpTypeVoid
    ///          %fn = OpTypeFunction %void
    ///       %float = OpTypeFloat 32
    ///        %vec4 = OpTypeVector %float 4
    ///        %mat4 = OpTypeMatrix %vec4 4
    ///       %Block = OpTypeStruct %mat4
    ///      %ptr_ub = OpTypePointer Uniform %Block
    ///     %ptr_mat = OpTypePointer Uniform %mat4
    ///         %int = OpTypeInt 32 1
    ///       %int_0 = OpConstant %int 0
    ///      %in_ty  = OpTypePointer Input %vec4
    ///      %out_ty = OpTypePointer Output %vec4
    ///         %pos = OpVariable %in_ty Input
    ///         %out = OpVariable %out_ty Output
    ///           %u = OpVariable %ptr_ub Uniform
    ///        %main = OpFunction %void None %fn
    ///       %entry = OpLabel
    ///           %p = OpLoad %vec4 %pos
    ///          %mp = OpAccessChain %ptr_mat %u %int_0
    ///           %m = OpLoad %mat4 %mp
    ///           %r = OpMatrixTimesVector %vec4 %m %p
    ///                OpStore %out %r
    ///                OpReturn
    ///                OpFunctionEnd
    /// ")?;
    /// let outputs = spv2retro::build::Shaders::new()
    ///     .shader(dir.join("mvp.spvasm"), spv2retro::Options::pica())
    ///     .out_dir(&dir)
    ///     .compile()?;
    /// assert!(dir.join("mvp.shbin").exists());
    /// let module = std::fs::read_to_string(&outputs.module)?;
    /// assert!(module.contains("pub const MVP: Uniform = Uniform { file: \"c\", register: 0"));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn compile(self) -> Result<Outputs, Error> {
        let out_dir = match self.out_dir.clone() {
            Some(d) => d,
            None => PathBuf::from(std::env::var_os("OUT_DIR").ok_or_else(|| {
                Error::other(
                    ErrorKind::Io,
                    "OUT_DIR is not set: run from a build script, or give out_dir()".into(),
                )
            })?),
        };
        // Each job: a module, its sources, its options.
        let mut jobs: Vec<(Option<String>, Vec<PathBuf>, Options)> = Vec::new();
        for item in &self.items {
            match item {
                Item::File {
                    module,
                    path,
                    options,
                } => {
                    println!("cargo:rerun-if-changed={}", path.display());
                    jobs.push((module.clone(), vec![path.clone()], options.clone()));
                }
                Item::Linked {
                    module,
                    paths,
                    options,
                } => {
                    for path in paths {
                        println!("cargo:rerun-if-changed={}", path.display());
                    }
                    jobs.push((Some(module.clone()), paths.clone(), options.clone()));
                }
                // Compiled after the other jobs (see `stage3d::pairs`).
                Item::Pair { .. } => {}
                Item::Dir { path, options } => {
                    println!("cargo:rerun-if-changed={}", path.display());
                    let mut found = Vec::new();
                    walk(path, &mut found)?;
                    found.sort();
                    let found = if options.target == Target::Pica {
                        pica_pairs(found)
                    } else {
                        sets(found)
                    };
                    jobs.extend(
                        found
                            .into_iter()
                            .map(|paths| (None, paths, options.clone())),
                    );
                }
            }
        }
        let mut shaders: Vec<Output> = Vec::new();
        let mut seen: BTreeMap<String, PathBuf> = BTreeMap::new();
        for (module, paths, mut options) in jobs {
            if options.layout.is_none() {
                options.layout = self.layout.clone();
            }
            let Some(path) = paths.first().cloned() else {
                return Err(Error::other(
                    ErrorKind::Rejected,
                    format!(
                        "the linked program `{}` has no sources",
                        module.unwrap_or_default()
                    ),
                ));
            };
            let module = module.unwrap_or_else(|| module_name(&path));
            if let Some(first) = seen.insert(module.clone(), path.clone()) {
                return Err(Error::other(
                    ErrorKind::Rejected,
                    format!(
                        "{} and {} would both be the module `{module}`: give one a name with \
                         shader_named()",
                        first.display(),
                        path.display()
                    ),
                ));
            }
            let made = make(&paths, &options)?;
            // Warnings (the program was made anyway) become cargo's own warnings, a line each.
            for line in made.warnings.lines() {
                if !line.trim().is_empty() {
                    println!("cargo:warning={line}");
                }
            }
            let program = out_dir.join(format!("{module}.{}", made.extension));
            write(&program, &made.bytes)?;
            // A linked fragment shader's command words beside the .shbin.
            if let Some(l) = &made.linked {
                for (k, f) in l.fragments.iter().enumerate() {
                    let name = if k == 0 {
                        format!("{module}.tev")
                    } else {
                        format!("{module}_{}.tev", k + 1)
                    };
                    write(&out_dir.join(name), &f.compiled.bytes)?;
                }
            }
            let reflection = match &made.compiled {
                Some(c) => {
                    let file = out_dir.join(format!("{module}.json"));
                    write(&file, c.reflection.to_json().as_bytes())?;
                    Some(file)
                }
                None => None,
            };
            shaders.push(Output {
                module,
                source: path,
                sources: paths,
                program,
                reflection,
                bytes: made.bytes,
                compiled: made.compiled,
                linked: made.linked,
            });
        }
        let pairs = stage3d::pairs(&self.items, &out_dir, &mut shaders, &mut seen)?;
        if self.layout.is_some() {
            check_layout(&shaders)?;
        }
        let classes = stage3d::classes(&self.classes, &shaders, &pairs, &out_dir)?;
        let module = out_dir.join(self.module_file.as_deref().unwrap_or("shaders.rs"));
        let mut text = rust_module(&shaders);
        for (name, table) in &self.variant_tables {
            let _ = writeln!(
                text,
                "\n/// The variants of `{name}`: each one's name and program bytes.\n\
                 #[allow(dead_code)]\npub mod {name} {{\n    /// Name and bytes, in the order \
                 given.\n    pub static VARIANTS: &[(&str, &[u8])] = &["
            );
            for (variant, own) in table {
                let _ = writeln!(text, "        ({variant:?}, super::{own}::BYTES),");
            }
            text += "    ];\n}\n";
        }
        write(&module, text.as_bytes())?;
        Ok(Outputs {
            module,
            shaders,
            classes,
        })
    }
}

fn io_error(path: &Path, e: std::io::Error) -> Error {
    Error::other(ErrorKind::Io, format!("{}: {e}", path.display()))
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    for entry in std::fs::read_dir(dir).map_err(|e| io_error(dir, e))? {
        let path = entry.map_err(|e| io_error(dir, e))?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| SHADER_EXTENSIONS.contains(&e))
        {
            out.push(path);
        }
    }
    Ok(())
}

/// The file's name up to its first dot, as a Rust identifier.
fn module_name(path: &Path) -> String {
    let file = path
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or("shader");
    let stem = file.split('.').next().unwrap_or(file);
    identifier(stem, false).unwrap_or_else(|| "shader".into())
}

/// What one job made.
struct Made {
    bytes: Vec<u8>,
    extension: &'static str,
    warnings: String,
    compiled: Option<Compiled>,
    linked: Option<Linked>,
}

/// A folder's files as jobs: `X.v.pica` with `X.g.pica` (devkitPro's rule), every other file
/// (a `.shlist` too: the sources it names, linked) alone.
fn sets(found: Vec<PathBuf>) -> Vec<Vec<PathBuf>> {
    let mut jobs = Vec::new();
    for path in &found {
        let name = path.to_string_lossy();
        if let Some(stem) = name.strip_suffix(".g.pica") {
            if found
                .iter()
                .any(|p| p.to_string_lossy() == format!("{stem}.v.pica"))
            {
                continue; // linked with its vertex shader
            }
        }
        let mut set = vec![path.clone()];
        if let Some(stem) = name.strip_suffix(".v.pica") {
            let g = PathBuf::from(format!("{stem}.g.pica"));
            if found.contains(&g) {
                set.push(g);
            }
        }
        jobs.push(set);
    }
    jobs
}

/// A PICA200 shader directory's jobs: [`sets`], with each fragment shader `X.frag` (or
/// `X.frag.glsl`, `X.fs`, …) linked after the vertex shader of the same stem, so that the
/// vertex outputs carry the semantics its combiners read.
fn pica_pairs(found: Vec<PathBuf>) -> Vec<Vec<PathBuf>> {
    let stem = |p: &Path| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let stem = name.split('.').next().unwrap_or(name);
        p.with_file_name(stem)
    };
    let stage = |p: &Path| Source::from_path(p).ok().and_then(|s| s.stage());
    let mut jobs = sets(found);
    let fragments: Vec<usize> = (0..jobs.len())
        .filter(|k| jobs[*k].len() == 1 && stage(&jobs[*k][0]) == Some(Stage::Fragment))
        .collect();
    let mut taken = Vec::new();
    for k in fragments {
        let f = jobs[k][0].clone();
        let vertex = (0..jobs.len()).find(|v| {
            *v != k && stem(&jobs[*v][0]) == stem(&f) && stage(&jobs[*v][0]) == Some(Stage::Vertex)
        });
        if let Some(v) = vertex {
            jobs[v].push(f);
            taken.push(k);
        }
    }
    let mut k = 0;
    jobs.retain(|_| {
        k += 1;
        !taken.contains(&(k - 1))
    });
    jobs
}

/// Every uniform of a name is in the same place in every program (per target and register
/// file), as a shared layout promises.
fn check_layout(shaders: &[Output]) -> Result<(), Error> {
    // (target, file, name) → (register, component, module)
    let mut places: BTreeMap<(String, String, String), (String, u8, String)> = BTreeMap::new();
    for out in shaders {
        let reflections: Vec<&machine::reflect::Reflection> = match (&out.compiled, &out.linked) {
            (Some(c), _) => vec![&c.reflection],
            (None, Some(l)) => l.shaders.iter().map(|s| &s.reflection).collect(),
            _ => Vec::new(),
        };
        for r in reflections {
            for u in &r.uniforms {
                let file: String = u
                    .register
                    .chars()
                    .take_while(|c| c.is_ascii_alphabetic())
                    .collect();
                let key = (r.target.clone(), file, u.name.clone());
                let place = (u.register.clone(), u.component, out.module.clone());
                match places.get(&key) {
                    Some((reg, comp, module)) if (reg, *comp) != (&place.0, place.1) => {
                        return Err(Error::other(
                            ErrorKind::Rejected,
                            format!(
                                "error[layout.pin]: the uniform `{}` is at {reg} (component \
                                 {comp}) in `{module}` but at {} (component {}) in `{}`: give \
                                 the layout a place for it, so that every program agrees",
                                u.name, place.0, place.1, place.2
                            ),
                        ));
                    }
                    Some(_) => {}
                    None => {
                        places.insert(key, place);
                    }
                }
            }
        }
    }
    Ok(())
}

/// Makes one job: a picasso link, AGALMiniAssembler text, or one compiled shader.
fn make(paths: &[PathBuf], options: &Options) -> Result<Made, Error> {
    let extension = |p: &Path| {
        p.extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_string()
    };
    let first = &paths[0];
    if paths.len() == 1 && extension(first) == "shlist" {
        // devkitPro's `.shlist`: the files to link, by name relative to the list, in order.
        let list = std::fs::read_to_string(first).map_err(|e| io_error(first, e))?;
        let dir = first.parent().unwrap_or(Path::new(""));
        let listed: Vec<PathBuf> = list.split_whitespace().map(|f| dir.join(f)).collect();
        for p in &listed {
            println!("cargo:rerun-if-changed={}", p.display());
        }
        if listed.is_empty() {
            return Err(Error::other(
                ErrorKind::Rejected,
                format!("{}: the list names no source", first.display()),
            ));
        }
        return make(&listed, options);
    }
    let sources = paths
        .iter()
        .map(Source::from_path)
        .collect::<Result<Vec<_>, _>>()?;
    if sources.len() > 1 || sources[0].language() == Language::Picasso {
        let linked = picasso::link(&sources, options, true)?;
        return Ok(Made {
            bytes: linked.bytes.clone(),
            extension: "shbin",
            warnings: linked.warnings.clone(),
            compiled: None,
            linked: Some(linked),
        });
    }
    let compiled = compile(&sources[0], options)?;
    // AGALMiniAssembler text names registers, not variables: no reflection or constants.
    let assembled = sources[0].language() == Language::AgalAssembly;
    Ok(Made {
        bytes: compiled.bytes.clone(),
        extension: match compiled.target {
            Target::Pica if compiled.stage == Stage::Fragment => "tev",
            Target::Pica => "shbin",
            Target::Agal => "agal",
        },
        warnings: compiled.rendered_warnings().to_string(),
        compiled: (!assembled).then_some(compiled),
        linked: None,
    })
}

/// Writes through a temporary file renamed into place, and only when the content changed
/// (so that what includes it is not rebuilt for nothing).
fn write(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes).map_err(|e| io_error(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| io_error(path, e))
}

/// `lights[2].color` → `LIGHTS_2_COLOR`, `modelView` → `MODEL_VIEW` (or `model_view` for a
/// module name): a valid Rust identifier in either case, or `None` when the name has no letter
/// or digit to make one from (an empty name, `_`), so the caller picks a stable one.
fn identifier(name: &str, upper: bool) -> Option<String> {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && prev_lower && !out.ends_with('_') {
                out.push('_');
            }
            out.push(if upper {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            });
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        } else {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            prev_lower = false;
        }
    }
    let out = out.trim_end_matches('_').to_string();
    Some(match out.chars().next()? {
        c if c.is_ascii_digit() => format!("_{out}"),
        // These four cannot be raw identifiers.
        _ if !upper && matches!(out.as_str(), "self" | "super" | "crate") => format!("{out}_"),
        _ if !upper && is_keyword(&out) => format!("r#{out}"),
        _ => out,
    })
}

fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "as" | "break"
            | "const"
            | "continue"
            | "crate"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "static"
            | "struct"
            | "trait"
            | "true"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
            | "async"
            | "await"
            | "dyn"
            | "abstract"
            | "become"
            | "box"
            | "do"
            | "final"
            | "macro"
            | "override"
            | "priv"
            | "typeof"
            | "unsized"
            | "virtual"
            | "yield"
            | "try"
            | "gen"
    )
}

/// `c12` → (`c`, 12); `vc4` → (`vc`, 4).
fn register(spelled: &str) -> (&str, u32) {
    let digits = spelled.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let file = &spelled[..spelled.len() - digits.len()];
    (file, digits.parse().unwrap_or(0))
}

fn float(v: f32) -> String {
    if v.is_finite() {
        format!("{v:?}")
    } else {
        format!("f32::from_bits({:#010x})", v.to_bits())
    }
}

/// The Rust module: shared types, then one submodule per shader.
fn rust_module(shaders: &[Output]) -> String {
    let mut s = String::from(
        "// @generated by spv2retro::build from the project's build script; do not edit.\n\n\
         /// Where a uniform lives: its first register, first component and register count.\n\
         #[derive(Clone, Copy, Debug, PartialEq, Eq)]\n\
         pub struct Uniform {\n\
         \x20   /// The register file (PICA200 `c`, `b`; AGAL `vc`, `fc`).\n\
         \x20   pub file: &'static str,\n\
         \x20   /// The first register's number (the location citro3d's `C3D_FVUnif*` takes;\n\
         \x20   /// Stage3D's `firstRegister`).\n\
         \x20   pub register: u16,\n\
         \x20   /// The first component used in that register (0 to 3).\n\
         \x20   pub component: u8,\n\
         \x20   /// Consecutive registers spanned.\n\
         \x20   pub count: u16,\n\
         }\n\n\
         /// Bytes with the alignment of `A` (a program is read as 32-bit words).\n\
         #[repr(C)]\n\
         pub struct Aligned<A, B: ?Sized> {\n\
         \x20   /// Zero-sized: gives the alignment.\n\
         \x20   pub align: [A; 0],\n\
         \x20   /// The bytes.\n\
         \x20   pub bytes: B,\n\
         }\n",
    );
    for out in shaders {
        let what = match (&out.compiled, &out.linked) {
            (Some(c), _) => match c.target {
                Target::Pica if c.stage == Stage::Fragment => {
                    "PICA200 fragment stage: the texture combiners' configuration (`BYTES` are \
                     GPU command words for `GPUCMD_AddRawCommands`; `texenv` has them typed)"
                        .to_string()
                }
                Target::Pica => "PICA200 vertex program (.shbin, for `DVLB_ParseFile`)".to_string(),
                Target::Agal => format!(
                    "AGAL {} {} program (for `Program3D.upload`)",
                    c.reflection.agal_version.unwrap_or(1),
                    c.stage.name()
                ),
            },
            (None, Some(l)) => format!(
                "PICA200 program of {} shader(s) linked as picasso links them (.shbin, for \
                 `DVLB_ParseFile`; DVLE k is `dvlb->DVLE[k]`)",
                l.shaders.len()
            ),
            (None, None) => "AGAL program assembled from AGALMiniAssembler text (for \
                             `Program3D.upload`)"
                .to_string(),
        };
        let sources: Vec<String> = out
            .sources
            .iter()
            .map(|p| format!("`{}`", p.display()))
            .collect();
        let _ = writeln!(
            s,
            "\n/// {}: {what}.\n#[allow(dead_code)]\npub mod {} {{\n    use super::{{Aligned, Uniform}};\n",
            sources.join(" + "),
            out.module
        );
        let _ = writeln!(
            s,
            "    static ALIGNED: &Aligned<u32, [u8]> = &Aligned {{\n        align: [],\n        bytes: *include_bytes!({:?}),\n    }};\n    /// The program's bytes, 4-byte aligned.\n    pub static BYTES: &[u8] = &ALIGNED.bytes;",
            out.program.display().to_string(),
        );
        if let Some(c) = &out.compiled {
            compiled_items(&mut s, c, out.reflection.as_deref());
            if let Some(t) = c.texenv() {
                texenv_items(&mut s, t, &out.source.display().to_string());
            }
        }
        if let Some(l) = &out.linked {
            linked_items(&mut s, l);
            for f in &l.fragments {
                if let Some(t) = f.compiled.texenv() {
                    texenv_items(&mut s, t, &f.input);
                }
            }
        }
        if out.compiled.is_none() && out.linked.is_none() {
            // AGALMiniAssembler text names no uniforms: every register is the author's.
            uniform_items(&mut s, &[], "    ");
        }
        s += "}\n";
    }
    s
}

/// A uniform constant to write: the identifier's base, its doc line, and where it lives.
struct Row {
    name: String,
    ident: Option<String>,
    doc: String,
    file: String,
    number: u32,
    component: u8,
    count: u16,
}

/// The constants of `rows` and their `UNIFORMS` table, indented by `indent`.
fn uniform_items(s: &mut String, rows: &[Row], indent: &str) {
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    let mut table = Vec::new();
    for r in rows {
        let base = r
            .ident
            .clone()
            .unwrap_or_else(|| format!("{}{}", r.file, r.number).to_ascii_uppercase());
        let n = names.entry(base.clone()).or_insert(0);
        *n += 1;
        let ident = if *n == 1 { base } else { format!("{base}_{n}") };
        let _ = writeln!(
            s,
            "{indent}/// {}\n{indent}pub const {ident}: Uniform = Uniform {{ file: {:?}, register: {}, component: {}, count: {} }};",
            r.doc, r.file, r.number, r.component, r.count
        );
        table.push((r.name.clone(), ident));
    }
    let _ = writeln!(
        s,
        "{indent}/// Every uniform by its name in the shader.\n{indent}pub const UNIFORMS: &[(&str, Uniform)] = &["
    );
    for (name, ident) in &table {
        let _ = writeln!(s, "{indent}    ({name:?}, {ident}),");
    }
    let _ = writeln!(s, "{indent}];");
}

/// A compiled shader's items: the reflection, uniforms, inputs, and AGAL's constants and
/// samplers.
fn compiled_items(s: &mut String, c: &Compiled, reflection: Option<&Path>) {
    let r = &c.reflection;
    if let Some(path) = reflection {
        let _ = writeln!(
            s,
            "    /// The reflection (the JSON `--reflect` writes).\n    pub const REFLECTION: &str = include_str!({:?});",
            path.display().to_string()
        );
    }
    let rows: Vec<Row> = r
        .uniforms
        .iter()
        .map(|u| {
            // A uniform the module leaves unnamed (a stripped module, `OpName ""`) is named
            // after its register (`C4`, `VC0`), which is stable for a given program.
            let (file, number) = register(&u.register);
            let layout = u
                .layout
                .as_deref()
                .map(|l| format!(", {l}"))
                .unwrap_or_default();
            Row {
                name: u.name.clone(),
                ident: identifier(&u.name, true),
                doc: format!(
                    "`{} {}`{layout}: {}, {} register(s).",
                    u.type_name, u.name, u.register, u.count
                ),
                file: file.to_string(),
                number,
                component: u.component,
                count: u16::try_from(u.count).unwrap_or(u16::MAX),
            }
        })
        .collect();
    uniform_items(s, &rows, "    ");
    *s += "    /// Input attributes: name and register number (`v`/`va`).\n    pub const INPUTS: &[(&str, u16)] = &[\n";
    for i in &r.inputs {
        let _ = writeln!(s, "        ({:?}, {}),", i.name, register(&i.register).1);
    }
    *s += "    ];\n";
    if c.target == Target::Agal {
        *s += "    /// Literal constants to upload once: register number and its four values.\n    pub const CONSTANTS: &[(u16, [f32; 4])] = &[\n";
        for k in &r.constants {
            let v = k.value.map(float);
            let _ = writeln!(
                s,
                "        ({}, [{}, {}, {}, {}]),",
                register(&k.register).1,
                v[0],
                v[1],
                v[2],
                v[3]
            );
        }
        *s += "    ];\n";
        *s += "    /// Samplers: name and `fs` register number.\n    pub const SAMPLERS: &[(&str, u16)] = &[\n";
        for smp in &r.samplers {
            let _ = writeln!(
                s,
                "        ({:?}, {}),",
                smp.name,
                register(&smp.register).1
            );
        }
        *s += "    ];\n";
    }
}

/// A fragment shader's combiner configuration as typed constants: a `texenv` submodule
/// with the command words, each stage's register words (citro3d's `C3D_TexEnv` in memory),
/// the buffer and alpha-test words, the texture units, and the stages each uniform colours.
fn texenv_items(s: &mut String, t: &backend_pica::fragment::config::TexEnv, source: &str) {
    use backend_pica::fragment::config::{AlphaTest, TextureKind};
    let words = backend_pica::fragment::words::words(t);
    let list = |w: &[u32]| {
        w.iter()
            .map(|x| format!("0x{x:08X}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        s,
        "    /// The texture combiners of `{source}` (docs/conventions.md, \"The 3DS fragment \
         stage\").\n    pub mod texenv {{"
    );
    let _ = writeln!(
        s,
        "        /// The GPU command list that sets all six stages, the buffer and the alpha \
         test\n        /// (for `GPUCMD_AddRawCommands`).\n        pub static WORDS: [u32; {}] = \
         [{}];",
        words.len(),
        list(&words)
    );
    *s += "        /// Each stage's registers SOURCE, OPERAND, COMBINER, COLOR, SCALE: citro3d's\n        \
           /// `C3D_TexEnv` as it lies in memory.\n        pub const STAGES: [[u32; 5]; 6] = [\n";
    for st in &t.stages {
        let _ = writeln!(s, "            [{}],", list(&st.words()));
    }
    *s += "        ];\n";
    let (rgb, alpha) = t.update_masks();
    let _ = writeln!(
        s,
        "        /// `C3D_TexEnvBufUpdate` masks (bit k = stage k): RGB, then alpha.\n        \
         pub const BUFFER_UPDATE: (u8, u8) = (0x{rgb:X}, 0x{alpha:X});\n        \
         /// `C3D_TexEnvBufColor`.\n        pub const BUFFER_COLOR: u32 = 0x{:08X};\n        \
         /// GPUREG_FRAGOP_ALPHA_TEST: enable | function << 4 | reference << 8\n        \
         /// (`C3D_AlphaTest`'s three arguments).\n        pub const ALPHA_TEST: u32 = 0x{:08X};",
        u32::from_le_bytes(t.buffer_color),
        AlphaTest::word(t.alpha_test)
    );
    *s += "        /// Texture units: unit, sampler, whether a cube map.\n        \
           pub const TEXTURES: &[(u8, &str, bool)] = &[\n";
    for u in &t.textures {
        let _ = writeln!(
            s,
            "            ({}, {:?}, {}),",
            u.unit,
            u.sampler,
            u.kind == TextureKind::Cube
        );
    }
    *s += "        ];\n";
    *s += "        /// Uniforms that are stage colours (set with `C3D_TexEnvColor`): name and the\n        \
           /// stages.\n        pub const COLORS: &[(&str, &[u8])] = &[\n";
    for (name, stages) in t.uniform_colors() {
        let stages: Vec<String> = stages.iter().map(ToString::to_string).collect();
        let _ = writeln!(s, "            ({name:?}, &[{}]),", stages.join(", "));
    }
    *s += "        ];\n    }\n";
}

/// A linked program's items: the vertex shaders' uniforms (one space, as picasso's header
/// lists them), and a `geometry` submodule per geometry shader for its own space
/// (`geometry`, then `geometry_2` …).
fn linked_items(s: &mut String, l: &Linked) {
    let rows = |shaders: &[&picasso::LinkedShader]| -> Vec<Row> {
        let mut rows: Vec<Row> = Vec::new();
        for sh in shaders {
            for u in &sh.uniforms {
                if rows.iter().any(|r| r.name == u.name) {
                    continue;
                }
                rows.push(Row {
                    name: u.name.clone(),
                    ident: identifier(&u.name, true),
                    doc: format!(
                        "`{}` in {}: {}{}, {} register(s).",
                        u.name, sh.input, u.file, u.register, u.count
                    ),
                    file: u.file.to_string(),
                    number: u.register.into(),
                    component: 0,
                    count: u.count,
                });
            }
        }
        rows
    };
    let vertex: Vec<&picasso::LinkedShader> = l
        .shaders
        .iter()
        .filter(|s| s.stage == Stage::Vertex)
        .collect();
    uniform_items(s, &rows(&vertex), "    ");
    let mut k = 0;
    for g in l.shaders.iter().filter(|s| s.stage == Stage::Geometry) {
        k += 1;
        let name = if k == 1 {
            "geometry".to_string()
        } else {
            format!("geometry_{k}")
        };
        let _ = writeln!(
            s,
            "    /// The geometry shader of `{}`: its own uniform space.\n    pub mod {name} {{\n        use super::super::Uniform;",
            g.input
        );
        uniform_items(s, &rows(&[g]), "        ");
        // A compiled geometry shader: what `shaderProgramSetGsh` takes.
        if let Some(geo) = g
            .compiled
            .as_ref()
            .and_then(|c| c.reflection.geometry.as_ref())
        {
            let _ = writeln!(
                s,
                "        /// The input stride to pass to `shaderProgramSetGsh` (citro3d-rs: \
                 `Program::set_geometry_shader`): {} registers for each of the {} vertices \
                 of a primitive ({}).\n        pub const STRIDE: u8 = {};",
                geo.vertex_outputs.len(),
                geo.vertices_in,
                geo.input_primitive,
                geo.stride
            );
        }
        *s += "    }\n";
    }
}

#[cfg(test)]
mod tests {
    use super::identifier;

    #[test]
    fn identifiers_read_as_rust() {
        let id = |name, upper| identifier(name, upper);
        assert_eq!(id("projection", true).as_deref(), Some("PROJECTION"));
        assert_eq!(id("modelView", true).as_deref(), Some("MODEL_VIEW"));
        assert_eq!(
            id("lights[2].color", true).as_deref(),
            Some("LIGHTS_2_COLOR")
        );
        assert_eq!(id("u_MVP", true).as_deref(), Some("U_MVP"));
        assert_eq!(id("2d", true).as_deref(), Some("_2D"));
        assert_eq!(id("_v3", true).as_deref(), Some("V3"));
        assert_eq!(id("", true), None);
        assert_eq!(id("_", true), None);
        assert_eq!(id("__", false), None);
        assert_eq!(id("vShader", false).as_deref(), Some("v_shader"));
        assert_eq!(id("type", false).as_deref(), Some("r#type"));
        assert_eq!(id("self", false).as_deref(), Some("self_"));
    }
}
