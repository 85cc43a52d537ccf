//! The run of one compile: read → load and validate → choose the entry point → (compile) →
//! write. Errors in the input come back as rendered diagnostics; the binaries print them and
//! exit with status 1.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, anyhow};
use frontend_spirv::entry::{self, Stage};
use frontend_spirv::{Input, Options};
use mir::Diagnostics;

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
    pub profile: backend_agal::Profile,
    /// Sampler flags by binding.
    pub samplers: Vec<backend_agal::codegen::SamplerFlags>,
    /// The other stage's shader (SPIR-V) or program (`.agal`), to check that the varyings
    /// agree.
    pub link: Option<std::path::PathBuf>,
}

impl Agal {
    fn options(&self) -> backend_agal::codegen::Options {
        backend_agal::codegen::Options {
            profile: self.profile,
            samplers: self.samplers.clone(),
            ..Default::default()
        }
    }
}

impl Target {
    fn stages(&self) -> &'static [Stage] {
        match self {
            Target::Pica(_) => &[Stage::Vertex],
            Target::Agal(_) => &[Stage::Vertex, Stage::Fragment],
        }
    }

    fn unsupported(&self, stage: Stage) -> String {
        match (self, stage) {
            (Target::Pica(_), Stage::Fragment) => "the PICA200 has no programmable fragment \
                stage; its fragment work is done by the fixed-function texture combiners"
                .into(),
            (Target::Pica(_), Stage::Geometry) => {
                "PICA200 geometry programs are not supported yet".into()
            }
            (Target::Agal(_), Stage::Geometry) => "Stage3D has no geometry stage".into(),
            _ => format!("{} programs are not supported", stage.name()),
        }
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

/// Runs one compile.
pub fn run(common: &Common, stage: Option<Stage>, target: &Target) -> Result<(), Failure> {
    let display = if common.input == Path::new("-") {
        "<stdin>".to_string()
    } else {
        common.input.display().to_string()
    };
    let bytes = read_input(&common.input)?;
    let input = match common.input.extension().and_then(|e| e.to_str()) {
        Some("spvasm") => Input::Text(
            std::str::from_utf8(&bytes)
                .map_err(|e| anyhow!("{display}: assembly text is not UTF-8: {e}"))?,
        ),
        Some("spv") => Input::Binary(&bytes),
        _ => Input::detect(&bytes),
    };
    let text = match input {
        Input::Text(t) => Some(t),
        Input::Binary(_) => None,
    };
    let reject = |d: Diagnostics| Failure::Rejected(d.render(&display, text));
    let module = frontend_spirv::load(input, &Options::default()).map_err(reject)?;
    let unsupported = |s: Stage| target.unsupported(s);
    let query = entry::Query {
        name: common.entry.as_deref(),
        stage,
        supported: target.stages(),
        unsupported_reason: &unsupported,
    };
    let entry = entry::select(&module, &query).map_err(reject)?;
    let mir = frontend_spirv::lower::lower(&module, &entry).map_err(reject)?;
    mir::verify::verify(&mir)
        .map_err(|e| anyhow!("{display}: internal error (this is a bug): {e}"))?;
    let reject_late = |d: Diagnostics| reject(module.annotate(d));
    match target {
        Target::Pica(pica) => {
            let semantics = pica.semantics.clone();
            if pica.emit == PicaEmit::Mir {
                let mut m = mir.clone();
                mir::passes::optimize_with(&mut m, &mir::passes::Options::pica())
                    .map_err(|e| anyhow!("{display}: internal error (this is a bug): {e}"))?;
                if common.check {
                    return Ok(());
                }
                let text = mir::print::print_module(&m);
                return write_output(common, &display, "mir", text.as_bytes());
            }
            let options = backend_pica::codegen::Options { semantics };
            let program = backend_pica::codegen::compile(&mir, &options).map_err(reject_late)?;
            if common.check {
                return Ok(());
            }
            let (bytes, extension) = match pica.emit {
                PicaEmit::Shbin => (program.bytes(), "shbin"),
                _ => (
                    backend_pica::disasm::listing(&program.binary).into_bytes(),
                    "v.pica",
                ),
            };
            if let Some(path) = &common.reflect {
                write_file(path, &display, program.reflection.to_json().as_bytes())?;
            }
            write_output(common, &display, extension, &bytes)
        }
        Target::Agal(agal) => {
            let options = agal.options();
            if agal.emit == AgalEmit::Mir {
                let m = backend_agal::codegen::prepare(&mir, &options).map_err(reject_late)?;
                if common.check {
                    return Ok(());
                }
                let text = mir::print::print_module(&m);
                return write_output(common, &display, "mir", text.as_bytes());
            }
            let program = backend_agal::codegen::compile(&mir, &options).map_err(reject_late)?;
            if let Some(other) = &agal.link {
                check_link(&program, other, &options, target)?;
            }
            if common.check {
                return Ok(());
            }
            let (bytes, extension) = match agal.emit {
                AgalEmit::Agal => (program.bytes.clone(), "agal"),
                AgalEmit::Asm => (program.listing().into_bytes(), "agalasm"),
                _ => (program.glsl2agal_json().into_bytes(), "json"),
            };
            if let Some(path) = &common.reflect {
                write_file(path, &display, program.reflection.to_json().as_bytes())?;
            }
            write_output(common, &display, extension, &bytes)
        }
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
fn check_link(
    program: &backend_agal::codegen::Compiled,
    other: &Path,
    options: &backend_agal::codegen::Options,
    target: &Target,
) -> Result<(), Failure> {
    use backend_agal::Stage as AgalStage;
    let shown = display_name(other);
    let bytes = read_input(other)?;
    let mine_vertex = program.program.stage == AgalStage::Vertex;
    let result = if other.extension().and_then(|e| e.to_str()) == Some("agal") {
        let (v, f) = if mine_vertex {
            (program.bytes.as_slice(), bytes.as_slice())
        } else {
            (bytes.as_slice(), program.bytes.as_slice())
        };
        backend_agal::codegen::check_program_pair(v, f, options.profile)
    } else {
        let input = match other.extension().and_then(|e| e.to_str()) {
            Some("spvasm") => Input::Text(
                std::str::from_utf8(&bytes)
                    .map_err(|e| anyhow!("{shown}: assembly text is not UTF-8: {e}"))?,
            ),
            _ => Input::detect(&bytes),
        };
        let text = match input {
            Input::Text(t) => Some(t),
            Input::Binary(_) => None,
        };
        let reject = |d: Diagnostics| Failure::Rejected(d.render(&shown, text));
        let module = frontend_spirv::load(input, &Options::default()).map_err(reject)?;
        let unsupported = |s: Stage| target.unsupported(s);
        let query = entry::Query {
            name: None,
            stage: Some(if mine_vertex {
                Stage::Fragment
            } else {
                Stage::Vertex
            }),
            supported: target.stages(),
            unsupported_reason: &unsupported,
        };
        let entry = entry::select(&module, &query).map_err(reject)?;
        let mir = frontend_spirv::lower::lower(&module, &entry).map_err(reject)?;
        let compiled = backend_agal::codegen::compile(&mir, options)
            .map_err(|d| reject(module.annotate(d)))?;
        if mine_vertex {
            backend_agal::codegen::check_link(program, &compiled)
        } else {
            backend_agal::codegen::check_link(&compiled, program)
        }
    };
    result.map_err(|d| Failure::Rejected(d.render(&shown, None)))
}

/// `spv2agal --validate FILE.agal`: Flash Player's AGAL validation on any program's bytes.
/// Prints a summary on success; each broken rule with Flash's error number otherwise.
pub fn validate_agal(input: &Path, profile: backend_agal::Profile) -> Result<(), Failure> {
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
        Err(errors) => Err(Failure::Rejected(
            errors
                .iter()
                .map(|e| {
                    let mut line = format!("{shown}: error[flash.{}]: {}", e.code(), e.message);
                    if let Some(t) = e.token {
                        line.push_str(&format!("\n  --> token {t}"));
                        if let Some(field) = e.operand {
                            line.push_str(&format!(", {field}"));
                        }
                    }
                    line.push_str(&format!(
                        "\n   = rule: #{} {}\n",
                        e.code(),
                        e.rule.summary()
                    ));
                    line
                })
                .collect::<Vec<_>>()
                .join(""),
        )),
    }
}

/// Writes `bytes` to `-o` (or beside the input with `extension`), through a temporary file
/// renamed into place, so a failed run never leaves a partial file.
fn write_output(
    common: &Common,
    display: &str,
    extension: &str,
    bytes: &[u8],
) -> Result<(), Failure> {
    let path = match &common.output {
        Some(p) => p.clone(),
        None if common.input == Path::new("-") => std::path::PathBuf::from("-"),
        None => common.input.with_extension(extension),
    };
    if path == Path::new("-") {
        use std::io::Write;
        std::io::stdout()
            .write_all(bytes)
            .context("cannot write to standard output")?;
        return Ok(());
    }
    write_file(&path, display, bytes)
}

/// Writes `bytes` to `path` through a temporary file renamed into place, so a failed run
/// never leaves a partial file.
fn write_file(path: &Path, display: &str, bytes: &[u8]) -> Result<(), Failure> {
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

fn read_input(path: &Path) -> anyhow::Result<Vec<u8>> {
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
