//! `spv2retro`: see a compiled shader run without the hardware. `run` drives it in the
//! simulator and prints every output, `preview` draws it, `serve` opens the playground page.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use spv2retro::{Profile, Runtime, Stage};
use spv2retro_cli::driver::{self, Failure};
use spv2retro_cli::tools::{self, Build, PreviewArgs, TargetName};

/// See a compiled shader run: in the PICA200 and AGAL simulators, as a picture, or in the
/// playground page.
#[derive(Parser, Debug)]
#[command(
    name = "spv2retro",
    version,
    after_help = spv2retro_cli::exit_status_help!()
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// How to compile (shared by `run` and `preview`).
#[derive(clap::Args, Debug)]
struct CompileArgs {
    /// The machine: pica or agal. Default: agal for a fragment shader, else pica (a fragment
    /// shader for pica is the texture combiners' configuration).
    #[arg(long)]
    target: Option<TargetName>,
    /// The stage, for a `.glsl` file or a module with several entry points.
    #[arg(long, value_parser = parse_stage)]
    stage: Option<Stage>,
    /// The Stage3D profile (AGAL).
    #[arg(long, value_name = "NAME", default_value = "baseline")]
    profile: Profile,
    /// The Stage3D runtime (AGAL): flash (Adobe's, and runtimes that read AGAL as it does) or
    /// openfl (no form OpenFL 8.9.6's AGAL converter mishandles).
    #[arg(long, value_name = "NAME", default_value = "flash")]
    runtime: Runtime,
    /// GLSL: define NAME (as VALUE, default 1). Repeatable.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    defines: Vec<String>,
    /// An input's value, by name: NAME=x,y,z,w (default zeros). A PICA200 fragment shader's
    /// inputs are its varyings: the colour, and the coordinates its textures are sampled at.
    /// Repeatable.
    #[arg(long = "input", value_name = "NAME=x,y,z,w")]
    inputs: Vec<String>,
    /// A uniform's value, by name: NAME=f,f,… in register order (default zeros; matrices
    /// the identity). A PICA200 fragment shader's uniforms are combiner stage colours.
    /// Repeatable.
    #[arg(long = "uniform", value_name = "NAME=f,…")]
    uniforms: Vec<String>,
    /// The texture bound to sampler binding B (fragment shaders): a PNG file, or r,g,b[,a]
    /// for a texture of that one colour (default: a checkerboard at even bindings, a gradient
    /// at odd ones). Repeatable.
    #[arg(long = "texture", value_name = "B=image.png|r,g,b,a")]
    textures: Vec<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Compile SHADER, run it once in the simulator with the given values, and print every
    /// output by name (a PICA200 fragment shader: the texture combiners, once, and the
    /// colour; or that the alpha test discarded it).
    Run {
        /// The shader (SPIR-V, SPIR-V assembly, GLSL or WGSL).
        shader: PathBuf,
        #[command(flatten)]
        compile: CompileArgs,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Draw what SHADER does to a PNG: a vertex shader transforms a mesh and shows its
    /// colour output; a fragment shader shades a full-screen quad; a vertex and a fragment
    /// shader draw together (AGAL, or the PICA200 with --target pica: the vertex program in
    /// the simulator, the texture combiners per pixel).
    Preview {
        /// The shader, or a vertex and a fragment shader.
        #[arg(num_args = 1..=2, required = true)]
        shaders: Vec<PathBuf>,
        /// Where to write the PNG.
        #[arg(short = 'o', long = "out", value_name = "FILE")]
        output: PathBuf,
        /// The mesh: cube, sphere, quad or an .obj file.
        #[arg(long, default_value = "cube")]
        mesh: String,
        /// The picture's size.
        #[arg(long, value_name = "WxH", default_value = "256x256", value_parser = tools::parse_size)]
        size: (u32, u32),
        #[command(flatten)]
        compile: CompileArgs,
    },
    /// Serve the playground page on 127.0.0.1.
    Serve {
        /// The port (0 picks a free one; the address is printed).
        #[arg(long, default_value_t = 8080)]
        port: u16,
    },
}

fn parse_stage(s: &str) -> Result<Stage, String> {
    match s {
        "vertex" => Ok(Stage::Vertex),
        "fragment" => Ok(Stage::Fragment),
        "geometry" => Ok(Stage::Geometry),
        _ => Err(format!("`{s}`: expected vertex, fragment or geometry")),
    }
}

fn build(c: &CompileArgs) -> Build {
    Build {
        target: c.target,
        stage: c.stage,
        profile: c.profile,
        runtime: c.runtime,
        defines: c
            .defines
            .iter()
            .map(|d| match d.split_once('=') {
                Some((n, v)) => (n.to_string(), v.to_string()),
                None => (d.clone(), "1".to_string()),
            })
            .collect(),
    }
}

fn values(c: &CompileArgs) -> Result<preview::Values, Failure> {
    tools::values(&c.inputs, &c.uniforms, &c.textures)
}

fn main() -> ExitCode {
    spv2retro::run_tool("spv2retro", run)
}

fn run() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match &cli.command {
        Command::Run {
            shader,
            compile,
            json,
        } => values(compile).and_then(|v| tools::run(shader, &build(compile), &v, *json)),
        Command::Preview {
            shaders,
            output,
            mesh,
            size,
            compile,
        } => values(compile).and_then(|v| {
            tools::preview(
                &PreviewArgs {
                    shaders,
                    output,
                    mesh,
                    size: *size,
                },
                &build(compile),
                &v,
            )
        }),
        Command::Serve { port } => {
            spv2retro_playground::serve(*port).map_err(|e| Failure::Other(anyhow::anyhow!(e)))
        }
    };
    driver::report("spv2retro", outcome)
}
