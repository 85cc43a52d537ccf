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
    Agal {
        /// What to write.
        emit: AgalEmit,
    },
}

impl Target {
    fn stages(&self) -> &'static [Stage] {
        match self {
            Target::Pica(_) => &[Stage::Vertex],
            Target::Agal { .. } => &[Stage::Vertex, Stage::Fragment],
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
            (Target::Agal { .. }, Stage::Geometry) => "Stage3D has no geometry stage".into(),
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
        Target::Agal { emit } => {
            if common.check {
                return Ok(());
            }
            if *emit == AgalEmit::Mir {
                let mut m = mir.clone();
                mir::passes::optimize(&mut m)
                    .map_err(|e| anyhow!("{display}: internal error (this is a bug): {e}"))?;
                let text = mir::print::print_module(&m);
                return write_output(common, &display, "mir", text.as_bytes());
            }
            Err(Failure::Other(anyhow!(
                "{display}: the module is valid, but spv2agal cannot generate code yet: the \
                 AGAL back end is not written (use --check to validate only)"
            )))
        }
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
