//! `spv2pica`: SPIR-V vertex shaders to PICA200 `.shbin` for the Nintendo 3DS.

use std::process::ExitCode;

use clap::Parser;
use spv2retro::cli::args::{Common, Pica};
use spv2retro::cli::driver::{self, Target};

/// Compile a SPIR-V vertex shader to a PICA200 program (.shbin) for the Nintendo 3DS.
#[derive(Parser, Debug)]
#[command(
    name = "spv2pica",
    version,
    after_help = "Exit status: 0 on success, 1 when the input is invalid, unsupported or \
                  unreadable (diagnostics on stderr, no output written), 2 on a usage error."
)]
struct Cli {
    #[command(flatten)]
    common: Common,

    #[command(flatten)]
    pica: Pica,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    driver::report(
        "spv2pica",
        driver::run(&cli.common, None, &Target::Pica(cli.pica)),
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
