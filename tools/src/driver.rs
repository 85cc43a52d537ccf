//! The run of one invocation: read → [`spv2retro::compile`] (or [`spv2retro::mir_text`]) →
//! write.
//! Errors in the input come back as rendered diagnostics; the binaries print them and exit
//! with status 1.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, anyhow};
use spv2retro::{Compiled, Language, Options, Source, Stage};

use crate::args::{AgalEmit, Common, Pica, PicaEmit};

/// The target a binary compiles for, with its own options.
#[derive(Clone, Debug)]
pub enum Target {
    /// `spv2pica`.
    Pica(Pica),
    /// `spv2agal`.
    Agal(Agal),
}

/// `spv2agal`'s choices.
#[derive(Clone, Debug)]
pub struct Agal {
    /// What to write.
    pub emit: AgalEmit,
    /// The Stage3D profile.
    pub profile: spv2retro::Profile,
    /// The Stage3D runtime.
    pub runtime: spv2retro::Runtime,
    /// Sampler flags by binding.
    pub samplers: Vec<spv2retro::SamplerFlags>,
    /// The other stage's shader (SPIR-V) or program (`.agal`), to check that the varyings
    /// agree.
    pub link: Option<std::path::PathBuf>,
}

impl Target {
    /// The library's options for this invocation.
    fn options(&self, common: &Common, stage: Option<Stage>) -> Options {
        let mut options = match self {
            Target::Pica(pica) => {
                let mut o = Options::pica().procedures(!pica.no_procedures);
                o.semantics = pica.semantics.clone();
                o
            }
            Target::Agal(agal) => {
                let mut o = Options::agal(agal.profile).runtime(agal.runtime);
                o.samplers = agal.samplers.clone();
                o
            }
        };
        options.entry = common.entry.clone();
        options.stage = stage;
        options.defines = common.defines.clone();
        options
    }
}

/// Why a run failed.
#[derive(Debug)]
pub enum Failure {
    /// The input was rejected: the rendered diagnostics, ready to print.
    Rejected(String),
    /// Anything else (an unreadable file, an unwritable output).
    Other(anyhow::Error),
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Other(e)
    }
}

impl From<spv2retro::Error> for Failure {
    fn from(e: spv2retro::Error) -> Self {
        Failure::Rejected(format!("{e}\n"))
    }
}

/// The library's source for a file's bytes (its language by the name, as
/// `Source::from_path` tells it).
pub(crate) fn source(display: &str, bytes: Vec<u8>) -> Result<Source<'static>, Failure> {
    Ok(Source::from_bytes(display, bytes)?)
}

/// Prints the pass pipeline of `target` (`--print-pipeline`).
pub fn print_pipeline(common: &Common, target: &Target) -> Result<(), Failure> {
    print!(
        "{}",
        spv2retro::pipeline_text(&target.options(common, None))
    );
    Ok(())
}

/// Runs one compile.
pub fn run(
    input: &Path,
    common: &Common,
    stage: Option<Stage>,
    target: &Target,
) -> Result<(), Failure> {
    let display = display_name(input);
    let bytes = read_input(input)?;
    if let Target::Agal(agal) = target {
        if input.extension().and_then(|e| e.to_str()) == Some("agal") {
            return disassemble_agal(input, common, agal, &display, &bytes);
        }
    }
    let source = source(&display, bytes)?;
    let mut options = target.options(common, stage);
    options.layout = read_layout(common)?;
    if let Target::Agal(agal) = target {
        if source.language() == Language::AgalAssembly
            && !matches!(agal.emit, AgalEmit::Agal | AgalEmit::Asm)
        {
            return Err(Failure::Rejected(format!(
                "{display}: AGALMiniAssembler text compiles to bytes (--emit agal) or a listing \
                 (--emit asm)\n"
            )));
        }
    }
    let emits_mir = match target {
        Target::Pica(p) => p.emit == PicaEmit::Mir,
        Target::Agal(a) => a.emit == AgalEmit::Mir,
    };
    if let (Some(step), false) = (&common.after, emits_mir) {
        return Err(Failure::Other(anyhow::anyhow!(
            "--after {step} shows the MIR after a pipeline step: it needs --emit mir"
        )));
    }
    if emits_mir {
        let text = match &common.after {
            Some(step) => spv2retro::mir_text_after(&source, &options, step)?,
            None => spv2retro::mir_text(&source, &options)?,
        };
        if common.check {
            return Ok(());
        }
        return write_output(input, common, &display, "mir", text.as_bytes());
    }
    // The other program of a --link pair, for a Stage3D class.
    let mut partner: Option<Compiled> = None;
    let program = match target {
        // Linked with the other stage's shader: compiled as a pair (which passes the position
        // on when the fragment shader reads gl_FragCoord), and checked.
        Target::Agal(Agal {
            link: Some(other), ..
        }) if other.extension().and_then(|e| e.to_str()) != Some("agal") => {
            let shown = display_name(other);
            if let Some(entry) = &options.entry {
                return Err(Failure::Rejected(format!(
                    "{display}: --entry {entry} cannot choose for both shaders of a --link \
                     pair: give each shader one entry point for its stage\n"
                )));
            }
            let other_bytes = read_input(other)?;
            let mine = spv2retro::stage_of(&source, &options)?;
            // A `.glsl` file takes its stage in the pair from compile_pair.
            let other_source = self::source(&shown, other_bytes)?;
            let mut pair_options = options.clone();
            pair_options.stage = None;
            let (v, f) = if mine == Stage::Vertex {
                spv2retro::compile_pair(source, other_source, &pair_options)?
            } else {
                spv2retro::compile_pair(other_source, source, &pair_options)?
            };
            let (program, other_program) = if mine == Stage::Vertex {
                (v, f)
            } else {
                (f, v)
            };
            eprint!("{}", other_program.rendered_warnings());
            partner = Some(other_program);
            program
        }
        _ => spv2retro::compile(source, &options)?,
    };
    // Warnings go to stderr and do not change the exit status.
    eprint!("{}", program.rendered_warnings());
    if let Target::Agal(Agal {
        link: Some(other), ..
    }) = target
    {
        if other.extension().and_then(|e| e.to_str()) == Some("agal") {
            check_link(&program, other, &options)?;
        }
    }
    if common.check {
        return Ok(());
    }
    let (bytes, extension) = match target {
        Target::Pica(pica) if program.stage == Stage::Fragment => match pica.emit {
            PicaEmit::C => {
                let prefix = c_prefix(input, &common.output);
                let header = program.c_header(&prefix, &display).unwrap_or_default();
                (header.into_bytes(), "h")
            }
            PicaEmit::Asm => (program.listing.clone().into_bytes(), "tev.txt"),
            _ => (program.bytes.clone(), "tev"),
        },
        Target::Pica(pica) => match pica.emit {
            PicaEmit::Shbin | PicaEmit::Bin2s => (program.bytes.clone(), "shbin"),
            PicaEmit::C => {
                return Err(Failure::Rejected(format!(
                    "{display}: --emit c writes a fragment shader's combiner configuration;                      this is a {} program (its .shbin is --emit shbin)\n",
                    program.stage.name()
                )));
            }
            _ => (program.listing.clone().into_bytes(), "v.pica"),
        },
        Target::Agal(agal) if matches!(agal.emit, AgalEmit::Haxe | AgalEmit::As3) => {
            let language = if agal.emit == AgalEmit::Haxe {
                spv2retro::glue::Language::Haxe
            } else {
                spv2retro::glue::Language::As3
            };
            let (text, output) =
                stage3d_class(input, common, language, &program, partner.as_ref())?;
            if let Some(path) = &common.reflect {
                write_file(path, &display, program.reflection.to_json().as_bytes())?;
            }
            return write_path(&output, &display, text.as_bytes());
        }
        Target::Agal(agal) => match agal.emit {
            AgalEmit::Agal => (program.bytes.clone(), "agal"),
            AgalEmit::Asm => (program.listing.clone().into_bytes(), "agalasm"),
            _ => (
                program.glsl2agal_json().unwrap_or_default().into_bytes(),
                "json",
            ),
        },
    };
    if let Some(path) = &common.reflect {
        write_file(path, &display, program.reflection.to_json().as_bytes())?;
    }
    if let Target::Pica(pica) = target {
        if crate::make::applies(pica) {
            let output = output_path(input, common, &crate::make::extension(pica, extension));
            let binary = input.with_extension(extension);
            let inputs = [input.to_path_buf()];
            return crate::make::write(pica, &output, &binary, &inputs, &display, &bytes, &[]);
        }
    }
    write_output(input, common, &display, extension, &bytes)
}

/// `--emit haxe`/`as3`: the class (named after `-o`'s file, else the input's) and where it
/// goes (`-o`, else `CLASS.hx`/`.as` beside the input; `-` standard output).
fn stage3d_class(
    input: &Path,
    common: &Common,
    language: spv2retro::glue::Language,
    program: &Compiled,
    partner: Option<&Compiled>,
) -> Result<(String, std::path::PathBuf), Failure> {
    let file_stem = |p: &Path| -> String {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        name.split('.').next().unwrap_or(name).to_string()
    };
    let (class, output) = match &common.output {
        // The class must be the file's name for Haxe and ActionScript to find it.
        Some(o) if o != Path::new("-") => (file_stem(o), o.clone()),
        Some(o) => (spv2retro::glue::class_name(&file_stem(input)), o.clone()),
        None if input == Path::new("-") => ("Shader".to_string(), "-".into()),
        None => {
            let class = spv2retro::glue::class_name(&file_stem(input));
            let file = format!("{class}.{}", language.extension());
            (class, input.with_file_name(file))
        }
    };
    let (vertex, fragment) = match (program.stage, partner) {
        (Stage::Vertex, other) => (Some(program), other),
        (_, other) => (other, Some(program)),
    };
    let text = spv2retro::glue::generate(language, &class, vertex, fragment)
        .map_err(|e| Failure::Rejected(format!("{}: error: {e}\n", display_name(input))))?;
    Ok((text, output))
}

/// The C names' prefix of a header: the output's file name (else the input's) without its
/// extensions (`sprite.frag` → `sprite`).
fn c_prefix(input: &Path, output: &Option<std::path::PathBuf>) -> String {
    let path = match output {
        Some(o) if o != Path::new("-") => o.as_path(),
        _ => input,
    };
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("shader");
    let stem = name.split('.').next().unwrap_or(name);
    backend_pica::fragment::text::c_identifier(stem)
}

/// `--layout FILE`: the reflection read as a shared uniform layout.
pub(crate) fn read_layout(common: &Common) -> Result<Option<spv2retro::layout::Layout>, Failure> {
    let Some(path) = &common.layout else {
        return Ok(None);
    };
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(Some(spv2retro::layout::Layout::from_json(
        &text,
        &path.display().to_string(),
    )?))
}

/// Whether `path` is picasso assembly (`.pica`, `.v.pica`, `.g.pica`, `.vsh`, `.gsh`).
pub fn is_picasso_source(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("pica" | "vsh" | "gsh")
    )
}

/// `spv2pica`'s picasso form: several inputs (picasso sources and shaders, mixed) linked
/// into one `.shbin`, as `picasso -o OUT [-h HEADER] [-n] FILES…` does.
pub fn link_pica(
    inputs: &[std::path::PathBuf],
    common: &Common,
    pica: &Pica,
    header: Option<&Path>,
    padding_nops: bool,
) -> Result<(), Failure> {
    if pica.emit == PicaEmit::Mir {
        return Err(Failure::Rejected(
            "spv2pica: --emit mir shows one compiled shader; it does not apply to picasso \
             sources or a link of several inputs\n"
                .into(),
        ));
    }
    let mut linked_inputs = Vec::new();
    for path in inputs {
        linked_inputs.push(source(&display_name(path), read_input(path)?)?);
    }
    let mut options = Options::pica().procedures(!pica.no_procedures);
    options.semantics = pica.semantics.clone();
    options.entry = common.entry.clone();
    options.defines = common.defines.clone();
    options.layout = read_layout(common)?;
    let linked = spv2retro::picasso::link(&linked_inputs, &options, padding_nops)?;
    eprint!("{}", linked.warnings);
    if common.check {
        return Ok(());
    }
    let first = inputs[0].as_path();
    let (bytes, extension) = match pica.emit {
        PicaEmit::Shbin | PicaEmit::Bin2s => (linked.bytes.clone(), "shbin"),
        _ => {
            let binary = backend_pica::shbin::read(&linked.bytes)
                .map_err(|e| anyhow!("the linked program does not read back: {e}"))?;
            (backend_pica::disasm::listing(&binary).into_bytes(), "pica")
        }
    };
    let output = match &common.output {
        Some(p) => p.clone(),
        None => default_output(first, &crate::make::extension(pica, extension)),
    };
    let shown = display_name(first);
    if let Some(path) = &common.reflect {
        // One shader: its reflection; several: an array, in DVLE order (a picasso
        // source's from its tables).
        let json = match linked.shaders.as_slice() {
            [one] => one.reflection.to_json(),
            several => format!(
                "[\n{}\n]",
                several
                    .iter()
                    .map(|s| s.reflection.to_json())
                    .collect::<Vec<_>>()
                    .join(",\n")
            ),
        };
        write_file(path, &shown, json.as_bytes())?;
    }
    if let Some(h) = header {
        write_file(h, &shown, linked.header.as_bytes())?;
    }
    // Fragment shaders: their combiner configuration beside the .shbin, as command words
    // (NAME.tev) and a citro3d header (NAME_texenv.h), NAME the output's stem for one
    // fragment shader, each fragment shader's own for several.
    let fragment_files = fragment_files(&output, &linked.fragments)?;
    for (path, bytes) in &fragment_files {
        if output == Path::new("-") {
            break;
        }
        write_file(path, &shown, bytes)?;
    }
    if crate::make::applies(pica) {
        let binary = default_output(first, extension);
        let also: Vec<&Path> = header.into_iter().collect();
        return crate::make::write(pica, &output, &binary, inputs, &shown, &bytes, &also);
    }
    write_path(&output, &shown, &bytes)
}

/// The files a link's fragment shaders write beside `output`.
fn fragment_files(
    output: &Path,
    fragments: &[spv2retro::picasso::LinkedFragment],
) -> Result<Vec<(std::path::PathBuf, Vec<u8>)>, Failure> {
    let mut out = Vec::new();
    let dir = output.parent().unwrap_or(Path::new(""));
    for f in fragments {
        let stem_of = |p: &Path| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("shader");
            name.split('.').next().unwrap_or(name).to_string()
        };
        let stem = if fragments.len() == 1 {
            stem_of(output)
        } else {
            stem_of(Path::new(&f.input))
        };
        let prefix = backend_pica::fragment::text::c_identifier(&stem);
        let header = f.compiled.c_header(&prefix, &f.input).unwrap_or_default();
        out.push((dir.join(format!("{stem}.tev")), f.compiled.bytes.clone()));
        out.push((dir.join(format!("{stem}_texenv.h")), header.into_bytes()));
    }
    Ok(out)
}

/// `sprite.v.pica` → `sprite.EXT`; `sprite.vert` → `sprite.EXT`.
fn default_output(input: &Path, extension: &str) -> std::path::PathBuf {
    let name = input.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let stem = ["v.pica", "g.pica", "pica", "vsh", "gsh"]
        .iter()
        .find_map(|e| name.strip_suffix(&format!(".{e}")))
        .map(str::to_string);
    match stem {
        Some(stem) => input.with_file_name(format!("{stem}.{extension}")),
        None => input.with_extension(extension),
    }
}

/// The display name of an input path (`<stdin>` for `-`).
fn display_name(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// `--link OTHER`: the other stage's program, compiled from SPIR-V with the same options or
/// read as AGAL bytes, must link with `program` (Flash's upload rules; for two compiled
/// shaders also their interfaces, location by location).
fn check_link(program: &Compiled, other: &Path, options: &Options) -> Result<(), Failure> {
    let shown = display_name(other);
    let bytes = read_input(other)?;
    let mine_vertex = program.stage == Stage::Vertex;
    if other.extension().and_then(|e| e.to_str()) == Some("agal") {
        let (v, f) = if mine_vertex {
            (program.bytes.as_slice(), bytes.as_slice())
        } else {
            (bytes.as_slice(), program.bytes.as_slice())
        };
        return backend_agal::codegen::check_program_pair(v, f, options.profile)
            .map_err(|d| Failure::Rejected(d.render(&shown, None)));
    }
    let mut other_options = options.clone();
    other_options.entry = None;
    other_options.stage = Some(if mine_vertex {
        Stage::Fragment
    } else {
        Stage::Vertex
    });
    let compiled = spv2retro::compile(source(&shown, bytes)?, &other_options)?;
    eprint!("{}", compiled.rendered_warnings());
    let (v, f) = if mine_vertex {
        (program, &compiled)
    } else {
        (&compiled, program)
    };
    Ok(spv2retro::check_link(v, f, &shown)?)
}

/// `spv2agal FILE.agal --emit asm`: the listing of a program's bytes (AGALMiniAssembler
/// syntax, which `spv2agal FILE.agalasm` reads back to the same bytes).
fn disassemble_agal(
    input: &Path,
    common: &Common,
    agal: &Agal,
    shown: &str,
    bytes: &[u8],
) -> Result<(), Failure> {
    if agal.emit != AgalEmit::Asm {
        return Err(Failure::Rejected(format!(
            "{shown}: an .agal file is already a program: --emit asm disassembles it, \
             --validate checks it\n"
        )));
    }
    let text = listing(shown, bytes)?;
    if common.check {
        return Ok(());
    }
    write_output(input, common, shown, "agalasm", text.as_bytes())
}

/// The listing of AGAL bytes.
fn listing(shown: &str, bytes: &[u8]) -> Result<String, Failure> {
    let program = backend_agal::Program::decode(bytes)
        .map_err(|e| Failure::Rejected(format!("{shown}: error[agal.decode]: {e}\n")))?;
    Ok(backend_agal::disasm::program_listing(&program))
}

/// `spv2agal --validate FILE.agal`: Flash Player's AGAL validation on any program's bytes.
/// Prints a summary on success; each broken rule with Flash's error number otherwise.
pub fn validate_agal(input: &Path, profile: spv2retro::Profile) -> Result<(), Failure> {
    let shown = display_name(input);
    let bytes = read_input(input)?;
    match backend_agal::validate(&bytes, profile) {
        Ok(info) => {
            println!(
                "{shown}: valid AGAL {} {} program for the {profile} profile: {} tokens, {} \
                 temporaries, {} constant registers, {} samplers",
                info.version,
                info.stage.name(),
                info.tokens,
                info.temporaries,
                info.constants,
                info.samplers.len()
            );
            Ok(())
        }
        Err(errors) => Err(Failure::Rejected(backend_agal::validate::render(
            &shown, &errors,
        ))),
    }
}

/// Writes `bytes` to `-o` (or beside the input with `extension`), through a temporary file
/// renamed into place, so a failed run never leaves a partial file.
fn write_output(
    input: &Path,
    common: &Common,
    display: &str,
    extension: &str,
    bytes: &[u8],
) -> Result<(), Failure> {
    write_path(&output_path(input, common, extension), display, bytes)
}

/// Where a run on `input` writes: `-o`, else standard output for standard input, else
/// beside the input with `extension`.
fn output_path(input: &Path, common: &Common, extension: &str) -> std::path::PathBuf {
    match &common.output {
        Some(p) => p.clone(),
        None if input == Path::new("-") => std::path::PathBuf::from("-"),
        None => input.with_extension(extension),
    }
}

/// Writes `bytes` to `path`, `-` being standard output.
pub(crate) fn write_path(path: &Path, display: &str, bytes: &[u8]) -> Result<(), Failure> {
    if path == Path::new("-") {
        use std::io::Write;
        std::io::stdout()
            .write_all(bytes)
            .context("cannot write to standard output")?;
        return Ok(());
    }
    write_file(path, display, bytes)
}

/// Writes `bytes` to `path` through a temporary file renamed into place, so a failed run
/// never leaves a partial file.
pub(crate) fn write_file(path: &Path, display: &str, bytes: &[u8]) -> Result<(), Failure> {
    let mut tmp_name = path.as_os_str().to_owned();
    tmp_name.push(format!(".tmp{}", std::process::id()));
    let tmp = std::path::PathBuf::from(tmp_name);
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| {
        let _ = std::fs::remove_file(&tmp);
        format!("{display}: cannot write {}", path.display())
    })?;
    Ok(())
}

pub(crate) fn read_input(path: &Path) -> anyhow::Result<Vec<u8>> {
    if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("cannot read standard input")?;
        Ok(bytes)
    } else {
        std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
    }
}

/// Prints the outcome of a run the way both binaries do, and gives the exit status: 0 on
/// success, 1 when the input is rejected or cannot be read or written.
pub fn report(name: &str, outcome: Result<(), Failure>) -> std::process::ExitCode {
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(Failure::Rejected(text)) => {
            eprint!("{text}");
            std::process::ExitCode::from(1)
        }
        Err(Failure::Other(e)) => {
            eprintln!("{name}: error: {e:#}");
            std::process::ExitCode::from(1)
        }
    }
}
