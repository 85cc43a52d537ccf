//! `spv2agal`: SPIR-V vertex and fragment shaders to AGAL bytecode for Stage3D.

use std::process::ExitCode;

use clap::Parser;
use spv2retro::variants::Variant;
use spv2retro::{Options, Profile, Runtime, SamplerFlags, Stage};
use spv2retro_cli::args::{AgalEmit, Common};
use spv2retro_cli::driver::{self, Agal, Target};
use spv2retro_cli::variants;

/// Compile a SPIR-V vertex or fragment shader to AGAL bytecode for Stage3D.
#[derive(Parser, Debug)]
#[command(
    name = "spv2agal",
    version,
    after_help = spv2retro_cli::exit_status_help!()
)]
struct Cli {
    /// The shader: a SPIR-V binary (`.spv`, either byte order), SPIR-V assembly text
    /// (`.spvasm`), GLSL (`.vert`, `.frag`, `.glsl`) or WGSL (`.wgsl`, both through naga's
    /// front ends), AGALMiniAssembler text (`.agalasm`) or AGAL bytes (`.agal`); `-` reads
    /// standard input (SPIR-V).
    #[arg(value_name = "INPUT", required_unless_present = "print_pipeline")]
    input: Option<std::path::PathBuf>,

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

    /// The Stage3D profile: baselineConstrained, baseline, baselineExtended (AGAL 1),
    /// standardConstrained, standard (AGAL 2) or standardExtended (AGAL 3). It fixes the AGAL
    /// version and every limit.
    #[arg(long, value_name = "NAME", default_value = "baseline")]
    profile: Profile,

    /// The Stage3D runtime the program is for: flash (Adobe's Flash Player and AIR, and
    /// runtimes that read AGAL as they do, such as Ruffle) or openfl (OpenFL's Stage3D, whose
    /// AGAL-to-GLSL converter mishandles `m34`, two-row `m33`, and a matrix's constant
    /// registers also read as vectors: those become `dp4`/`dp3`).
    #[arg(long, value_name = "NAME", default_value = "flash")]
    runtime: Runtime,

    /// Flags of the sampler at binding B, as AGALMiniAssembler spells them (nearest, linear,
    /// mipnone, miplinear, clamp, repeat, dxt1, ignoresampler, a number for the LOD bias …),
    /// over the defaults (2D: linear,mipnone,repeat,rgba; cube: linear,miplinear,clamp,rgba).
    /// Repeatable.
    #[arg(long = "sampler", value_name = "B=FLAG,...")]
    samplers: Vec<String>,

    /// The other stage's shader (SPIR-V, assembly, GLSL or WGSL) or program (.agal): a
    /// shader compiles with INPUT as a pair (with the same options; the position passed on
    /// when the fragment shader reads gl_FragCoord); either way, check that the two link.
    #[arg(long, value_name = "FILE")]
    link: Option<std::path::PathBuf>,

    /// A variant: compile INPUT (with --link, the pair) once more with these preprocessor
    /// definitions and sampler flags: `NAME:A=1,B,0=dxt5` (A defined as 1, B as 1, dxt5
    /// added to sampler 0's flags; `NAME:` for the source as it is). Repeatable. The
    /// programs go to `-o DIR` (default INPUT's stem + `.variants`) as NAME.agal (with
    /// --link NAME.vertex.agal and NAME.fragment.agal), with DIR/variants.json listing each
    /// variant's definitions, sampler flags, files and reflections.
    #[arg(long = "variant", value_name = "NAME:DEFINES")]
    variants: Vec<String>,

    /// Treat INPUT as AGAL bytes and check them against Flash Player's validation rules for
    /// the profile, reporting each broken rule with Flash's error number.
    #[arg(long, conflicts_with_all = ["vertex", "fragment", "link"])]
    validate: bool,
}

fn main() -> ExitCode {
    spv2retro::run_tool("spv2agal", run)
}

fn run() -> ExitCode {
    let cli = Cli::parse();
    let input = cli.input.clone().unwrap_or_default();
    if cli.validate && !cli.common.print_pipeline {
        return driver::report("spv2agal", driver::validate_agal(&input, cli.profile));
    }
    let samplers = match cli
        .samplers
        .iter()
        .map(|s| SamplerFlags::parse(s))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(s) => s,
        Err(e) => {
            eprintln!("spv2agal: error: {e}");
            return ExitCode::from(2);
        }
    };
    let stage = match (cli.vertex, cli.fragment) {
        (true, _) => Some(Stage::Vertex),
        (_, true) => Some(Stage::Fragment),
        _ => None,
    };
    if !cli.variants.is_empty() && !cli.common.print_pipeline {
        let variants = match cli
            .variants
            .iter()
            .map(|v| Variant::parse(v))
            .collect::<Result<Vec<_>, _>>()
        {
            Ok(v) => v,
            Err(e) => {
                eprintln!("spv2agal: error: {e}");
                return ExitCode::from(2);
            }
        };
        let mut options = Options::agal(cli.profile).runtime(cli.runtime);
        options.samplers = samplers;
        options.defines = cli.common.defines.clone();
        options.entry = cli.common.entry.clone();
        options.stage = stage;
        let out = cli.common.output.clone().unwrap_or_else(|| {
            let stem = input
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.split('.').next())
                .unwrap_or("shader");
            input.with_file_name(format!("{stem}.variants"))
        });
        return driver::report(
            "spv2agal",
            variants::run(
                &input,
                cli.link.as_deref(),
                &options,
                &variants,
                &out,
                match cli.emit {
                    AgalEmit::Haxe => Some(spv2retro::glue::Language::Haxe),
                    AgalEmit::As3 => Some(spv2retro::glue::Language::As3),
                    _ => None,
                },
            ),
        );
    }
    let target = Target::Agal(Agal {
        emit: cli.emit,
        profile: cli.profile,
        runtime: cli.runtime,
        samplers,
        link: cli.link,
    });
    let outcome = if cli.common.print_pipeline {
        driver::print_pipeline(&cli.common, &target)
    } else {
        driver::run(&input, &cli.common, stage, &target)
    };
    driver::report("spv2agal", outcome)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_definition_is_consistent() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
