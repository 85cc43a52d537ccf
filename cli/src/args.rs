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

    /// Do everything except write output: load, validate, lower and check the program,
    /// and report what is wrong.
    #[arg(long)]
    pub check: bool,

    /// What to write: the target's binary (default), or `mir`, the compiler's intermediate
    /// representation after optimisation, as text.
    #[arg(long, value_name = "WHAT", default_value = "bin")]
    pub emit: Emit,
}

/// What a run writes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// The target's binary (`.shbin`, `.agal`).
    Bin,
    /// The MIR as text.
    Mir,
}
