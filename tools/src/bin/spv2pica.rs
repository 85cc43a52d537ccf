//! `spv2pica`: shaders to PICA200 `.shbin` for the Nintendo 3DS, and a drop-in for picasso.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{ArgAction, Parser};
use spv2retro_cli::args::{Common, Pica};
use spv2retro_cli::driver::{self, Target};

/// Compile a vertex or geometry shader (SPIR-V, SPIR-V assembly, GLSL or WGSL) to a PICA200 program
/// (.shbin) for the Nintendo 3DS, or a fragment shader to its texture combiners (.tev command
/// words, --emit c for a citro3d header); or assemble and link picasso sources, as picasso
/// does, with compiled shaders among them (a fragment shader among them sets the vertex
/// outputs' semantics and is written beside the .shbin).
#[derive(Parser, Debug)]
#[command(
    name = "spv2pica",
    version,
    disable_help_flag = true,
    disable_version_flag = true,
    after_help = concat!(
        "picasso's command line works unchanged: `spv2pica -o out.shbin [-h out.h] [-n] \
         a.v.pica [b.g.pica …]` writes the same bytes and header picasso 2.7.1 writes. Inputs \
         may mix picasso sources and shaders; each makes one DVLE, in order.\n\n",
        spv2retro_cli::exit_status_help!()
    )
)]
struct Cli {
    /// The inputs: shaders (SPIR-V binary `.spv`, SPIR-V assembly `.spvasm`, GLSL `.vert`
    /// `.glsl`, WGSL `.wgsl`; `-` reads SPIR-V from standard input) and picasso sources
    /// (`.pica`, `.v.pica`, `.g.pica`, `.vsh`, `.gsh`). Several make one .shbin with one
    /// DVLE per input.
    #[arg(value_name = "INPUT", required_unless_present = "print_pipeline")]
    inputs: Vec<PathBuf>,

    #[command(flatten)]
    common: Common,

    #[command(flatten)]
    pica: Pica,

    /// Also write picasso's C header (the vertex uniforms' registers as `VSH_FVEC_name`,
    /// `VSH_ULEN_name`, …) to FILE.
    #[arg(short = 'h', long = "header", value_name = "FILE")]
    header: Option<PathBuf>,

    /// Do not insert the padding NOPs picasso inserts at `.end`/`.else` (warn at each
    /// place that needs one instead), as picasso's -n.
    #[arg(short = 'n', long = "no-nop")]
    no_nop: bool,

    /// Print help.
    #[arg(long, action = ArgAction::Help)]
    help: Option<bool>,

    /// Print the version.
    #[arg(short = 'v', long, short_alias = 'V', action = ArgAction::Version)]
    version: Option<bool>,
}

fn main() -> ExitCode {
    spv2retro::run_tool("spv2pica", run)
}

fn run() -> ExitCode {
    let cli = Cli::parse();
    if let Err(e) = spv2retro_cli::make::check(&cli.pica) {
        use clap::CommandFactory;
        Cli::command()
            .error(clap::error::ErrorKind::ArgumentConflict, e)
            .exit();
    }
    if cli.common.print_pipeline {
        let target = Target::Pica(cli.pica);
        return driver::report("spv2pica", driver::print_pipeline(&cli.common, &target));
    }
    let single_shader = cli.inputs.len() == 1
        && !driver::is_picasso_source(&cli.inputs[0])
        && cli.header.is_none()
        && !cli.no_nop;
    let outcome = if single_shader {
        driver::run(&cli.inputs[0], &cli.common, None, &Target::Pica(cli.pica))
    } else {
        driver::link_pica(
            &cli.inputs,
            &cli.common,
            &cli.pica,
            cli.header.as_deref(),
            !cli.no_nop,
        )
    };
    driver::report("spv2pica", outcome)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_definition_is_consistent() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
