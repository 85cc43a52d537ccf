//! Options both binaries take.

use std::path::PathBuf;

use clap::Args;

/// The input and the options every run takes.
#[derive(Args, Debug, Clone)]
pub struct Common {
    /// The SPIR-V module: a binary (`.spv`, either byte order) or assembly text (`.spvasm`);
    /// `-` reads standard input.
    #[arg(value_name = "INPUT")]
    pub input: PathBuf,

    /// Where to write the output (`-` for standard output). Default: the input's name with
    /// the target's extension.
    #[arg(short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// The entry point to compile, by name (needed only when the module has several).
    #[arg(long, value_name = "NAME")]
    pub entry: Option<String>,

    /// Do everything except write output: load, validate and choose the entry point, and
    /// report what is wrong.
    #[arg(long)]
    pub check: bool,
}
