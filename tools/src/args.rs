//! Options both binaries take, and the options of each.

use std::path::PathBuf;

use clap::Args;

/// The exit-status paragraph of every binary's `--help` (a literal, for `concat!`).
#[macro_export]
macro_rules! exit_status_help {
    () => {
        "Exit status: 0 on success, 1 when the input is invalid, unsupported or unreadable \
         (diagnostics on stderr, no output written), 2 on a usage error."
    };
}

/// The options every run takes.
#[derive(Args, Debug, Clone)]
pub struct Common {
    /// Where to write the output (`-` for standard output). Default: the (first) input's
    /// name with the extension of what is emitted.
    #[arg(short = 'o', long = "out", value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// The entry point to compile, by name (needed only when the module has several).
    #[arg(long, value_name = "NAME")]
    pub entry: Option<String>,

    /// Do everything except write output: load, validate, lower, compile, and report what
    /// is wrong.
    #[arg(long)]
    pub check: bool,

    /// GLSL: define NAME (as VALUE, default 1) for the preprocessor, as `#define NAME VALUE`
    /// would. Repeatable.
    #[arg(short = 'D', value_name = "NAME[=VALUE]", value_parser = define)]
    pub defines: Vec<(String, String)>,

    /// Also write the reflection (which register holds each input, output, uniform and
    /// constant, as JSON) to FILE.
    #[arg(long, value_name = "FILE")]
    pub reflect: Option<PathBuf>,

    /// Place uniforms as FILE (a reflection this compiler wrote for another program, with
    /// `--reflect`) places the uniforms of the same names; the others go around them. A
    /// uniform whose type or component disagrees, or two that would share registers, is an
    /// error (`layout.pin`) naming both places.
    #[arg(long, value_name = "FILE")]
    pub layout: Option<PathBuf>,

    /// Print the target's pass pipeline (numbered steps, with what each does) and exit.
    #[arg(long)]
    pub print_pipeline: bool,

    /// With `--emit mir`: the MIR after pipeline step STEP (its number, or its name when no
    /// other step has it, as --print-pipeline shows) instead of at the pipeline's end.
    #[arg(long, value_name = "STEP")]
    pub after: Option<String>,
}

/// Parses `NAME[=VALUE]` for `-D`.
fn define(spec: &str) -> Result<(String, String), String> {
    let (name, value) = spec.split_once('=').unwrap_or((spec, "1"));
    let ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok {
        return Err(format!("{name:?} is not a macro name"));
    }
    Ok((name.to_string(), value.to_string()))
}

/// What `spv2pica` writes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PicaEmit {
    /// The `.shbin` (DVLB) that libctru's `DVLB_ParseFile` loads; for a fragment shader,
    /// its texture-combiner configuration as GPU command words (`.tev`).
    Shbin,
    /// The program as picasso assembly text (`.v.pica`); for a fragment shader, a listing
    /// of its combiner stages, one line each.
    Asm,
    /// A fragment shader's configuration as a C header (`.h`) whose `static inline`
    /// function sets it up through citro3d.
    C,
    /// The compiler's intermediate representation as the back end receives it.
    Mir,
    /// The `.shbin` as the assembly devkitPro's `bin2s` prints for it (`.shbin.s`: `.byte`
    /// lines, `NAME`, `NAME_end`, and `NAME_size` unless -H writes it), NAME from the output's
    /// file name less its last extension (`vshader.shbin.s` → `vshader_shbin`): picasso and
    /// bin2s in one step.
    Bin2s,
}

/// `spv2pica`'s own options.
#[derive(Args, Debug, Clone)]
pub struct Pica {
    /// What to write.
    #[arg(long, value_name = "WHAT", default_value = "shbin")]
    pub emit: PicaEmit,

    /// Give the output at location L the semantic NAME (position, normalquat, color,
    /// texcoord0, texcoord0w, texcoord1, texcoord2, view, dummy) instead of its default.
    /// Repeatable.
    #[arg(long = "semantic", value_name = "L=NAME", value_parser = semantic)]
    pub semantics: Vec<(u32, backend_pica::shbin::Semantic)>,

    /// With `--emit bin2s`: also write the C header `bin2s -H FILE` writes (`NAME`,
    /// `NAME_end`, `NAME_size`) to FILE, and leave `NAME_size` out of the assembly, as
    /// devkitARM's `bin2o` has it (`NAME_shbin.h`).
    #[arg(short = 'H', long = "bin2s-header", value_name = "FILE")]
    pub bin2s_header: Option<PathBuf>,

    /// Also write make's dependencies of the files written on every file read (the
    /// inputs) to FILE, as `gcc -MD -MP` writes them.
    #[arg(long, value_name = "FILE")]
    pub depfile: Option<PathBuf>,

    /// Keep a geometry program's runs of emitted vertices that repeat with other values
    /// inline (the fewest executed steps). By default each run calls one procedure where
    /// that saves at least as many words as it adds steps.
    #[arg(long)]
    pub no_procedures: bool,
}

/// Parses `L=NAME` for `--semantic`.
fn semantic(spec: &str) -> Result<(u32, backend_pica::shbin::Semantic), String> {
    let (l, name) = spec
        .split_once('=')
        .ok_or_else(|| format!("expected L=NAME, got {spec:?}"))?;
    let l: u32 = l
        .trim()
        .parse()
        .map_err(|_| format!("{l:?} is not a location"))?;
    let s = backend_pica::codegen::outputs::parse_semantic(name.trim()).ok_or_else(|| {
        format!(
            "unknown semantic {name:?} (position, normalquat, color, texcoord0, texcoord0w, \
             texcoord1, texcoord2, view, dummy)"
        )
    })?;
    Ok((l, s))
}

/// What `spv2agal` writes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgalEmit {
    /// The AGAL bytecode that `Program3D.upload` takes.
    Agal,
    /// The program as AGALMiniAssembler text.
    Asm,
    /// The compiler's intermediate representation as the back end receives it.
    Mir,
    /// glsl2agal's JSON (`varnames`, `consts`, `agalasm`, `agalbin`).
    Json,
    /// A Haxe (OpenFL) class with the program's (with --link, the pair's) bytes, `upload`,
    /// a setter per uniform by name and the attributes' and samplers' registers; named after
    /// the output file (`-o TintFilter.hx`), else the input.
    Haxe,
    /// The same class in ActionScript 3 (AIR, Flash Player), `-o TintFilter.as`.
    As3,
}
