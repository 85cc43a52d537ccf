//! `spv2agal`: SPIR-V vertex and fragment shaders to AGAL bytecode for Stage3D.

use std::process::ExitCode;

use clap::Parser;
use cli::args::{AgalEmit, Common};
use cli::driver::{self, Target};
use frontend_spirv::entry::Stage;

/// Compile a SPIR-V vertex or fragment shader to AGAL bytecode for Stage3D.
#[derive(Parser, Debug)]
#[command(
    name = "spv2agal",
    version,
    after_help = "Exit status: 0 on success, 1 when the input is invalid, unsupported or \
                  unreadable (diagnostics on stderr, no output written), 2 on a usage error."
)]
struct Cli {
    #[command(flatten)]
    common: Common,

    /// Compile the module's vertex entry point.
    #[arg(long, conflicts_with = "fragment")]
    vertex: bool,

    /// Compile the module's fragment entry point.
    #[arg(long)]
    fragment: bool,

    /// What to write.
    #[arg(long, value_name = "WHAT", default_value = "agal")]
    emit: AgalEmit,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stage = match (cli.vertex, cli.fragment) {
        (true, _) => Some(Stage::Vertex),
        (_, true) => Some(Stage::Fragment),
        _ => None,
    };
    driver::report(
        "spv2agal",
        driver::run(&cli.common, stage, &Target::Agal { emit: cli.emit }),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_definition_is_consistent() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
