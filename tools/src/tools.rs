//! `spv2retro run` and `spv2retro preview`: compile a shader as `spv2pica`/`spv2agal` would,
//! then drive the program in its simulator through its reflection, or draw what it draws
//! (the `preview` crate).

use std::path::Path;

use anyhow::anyhow;

use spv2retro::{Compiled, Options, Profile, Stage, Target, compile};
pub use spv2retro_playground::{outputs_json, parse_size};

use crate::driver::{Failure, read_input, source, write_file};

/// Which machine, when the user says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TargetName {
    /// The PICA200 (vertex and geometry programs, and fragment shaders as the texture
    /// combiners' configuration).
    Pica,
    /// AGAL (vertex and fragment programs).
    Agal,
}

/// How to compile the shaders `run` and `preview` take.
#[derive(Clone, Debug)]
pub struct Build {
    /// `--target`; by default AGAL for a fragment shader, else the PICA200.
    pub target: Option<TargetName>,
    /// `--stage`, for a `.glsl` file or a module with several entry points.
    pub stage: Option<Stage>,
    /// `--profile` (AGAL).
    pub profile: Profile,
    /// `--runtime` (AGAL).
    pub runtime: spv2retro::Runtime,
    /// `-D`.
    pub defines: Vec<(String, String)>,
}

/// Compiles the shader at `path`.
pub fn compile_file(path: &Path, build: &Build) -> Result<Compiled, Failure> {
    let src = source(&path.display().to_string(), read_input(path)?)?;
    let stage = match build.stage {
        Some(s) => Some(s),
        None => spv2retro::stage_of(&src, &Options::agal(build.profile)).ok(),
    };
    let target = match build.target {
        Some(TargetName::Agal) => Target::Agal,
        Some(TargetName::Pica) => Target::Pica,
        None if stage == Some(Stage::Fragment) => Target::Agal,
        None => Target::Pica,
    };
    let mut options = match target {
        Target::Agal => Options::agal(build.profile).runtime(build.runtime),
        Target::Pica => Options::pica(),
    };
    options.stage = build.stage;
    options.defines = build.defines.clone();
    Ok(compile(src, &options)?)
}

fn floats(text: &str, what: &str) -> Result<Vec<f32>, Failure> {
    text.split(',')
        .map(|f| {
            f.trim()
                .parse::<f32>()
                .map_err(|_| Failure::Other(anyhow!("{what}: `{f}` is not a number")))
        })
        .collect()
}

fn split<'a>(arg: &'a str, flag: &str) -> Result<(&'a str, &'a str), Failure> {
    arg.split_once('=')
        .ok_or_else(|| Failure::Other(anyhow!("{flag} {arg}: expected NAME=VALUES")))
}

/// The values of `--input NAME=x,y,z,w`, `--uniform NAME=f,…` and `--texture B=image.png`
/// (or `--texture B=r,g,b,a`, a texture of that one colour; a file of that name wins).
pub fn values(
    inputs: &[String],
    uniforms: &[String],
    textures: &[String],
) -> Result<preview::Values, Failure> {
    let mut v = preview::Values::default();
    for arg in inputs {
        let (name, rest) = split(arg, "--input")?;
        v.inputs
            .push((name.to_string(), floats(rest, &format!("--input {name}"))?));
    }
    for arg in uniforms {
        let (name, rest) = split(arg, "--uniform")?;
        v.uniforms.push((
            name.to_string(),
            floats(rest, &format!("--uniform {name}"))?,
        ));
    }
    for arg in textures {
        let (binding, file) = split(arg, "--texture")?;
        let b: u32 = binding.parse().map_err(|_| {
            Failure::Other(anyhow!("--texture {arg}: `{binding}` is not a binding"))
        })?;
        if !Path::new(file).exists() {
            if let Some(colour) = solid_colour(file) {
                v.textures.push((b, preview::texture::solid(colour)));
                continue;
            }
        }
        let bytes = std::fs::read(file).map_err(|e| anyhow!("cannot read {file}: {e}"))?;
        let image = preview::texture::load_png(&bytes)
            .map_err(|e| Failure::Other(anyhow!("{file}: {e}")))?;
        v.textures.push((b, image));
    }
    Ok(v)
}

/// `r,g,b[,a]` (alpha 1 when left out), a colour for `--texture`.
fn solid_colour(text: &str) -> Option<[f32; 4]> {
    let floats: Vec<f32> = text
        .split(',')
        .map(|f| f.trim().parse().ok())
        .collect::<Option<_>>()?;
    match floats[..] {
        [r, g, b] => Some([r, g, b, 1.0]),
        [r, g, b, a] => Some([r, g, b, a]),
        _ => None,
    }
}

fn program(c: &Compiled) -> preview::Program<'_> {
    preview::Program {
        bytes: &c.bytes,
        reflection: &c.reflection,
    }
}

fn preview_error(shown: &str, e: preview::Error) -> Failure {
    Failure::Rejected(format!("{shown}: error: {e}\n"))
}

/// A value's lanes, as `(x, y, z, w)`.
fn lanes(v: &[f32; 4]) -> String {
    format!(
        "({})",
        v.iter()
            .map(|f| format!("{f}"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// `spv2retro run`: prints every output by name (JSON with `json`).
pub fn run(
    path: &Path,
    build: &Build,
    values: &preview::Values,
    json: bool,
) -> Result<(), Failure> {
    let c = compile_file(path, build)?;
    eprint!("{}", c.rendered_warnings());
    let shown = path.display().to_string();
    let out = preview::run(program(&c), values).map_err(|e| preview_error(&shown, e))?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&outputs_json(&out)).unwrap_or_default()
        );
        return Ok(());
    }
    let width = out
        .outputs
        .iter()
        .chain(&out.inputs)
        .chain(out.emitted.iter().flat_map(|e| &e.outputs))
        .map(|v| v.name.len())
        .max()
        .unwrap_or(0);
    let reg_width = out
        .outputs
        .iter()
        .chain(&out.inputs)
        .map(|v| v.register.len())
        .max()
        .unwrap_or(0)
        .max(4);
    let line = |v: &preview::Value| {
        format!(
            "  {:width$}  {:reg_width$}  {}",
            v.name,
            v.register,
            lanes(&v.value)
        )
    };
    let combiners = c.reflection.texenv.as_ref();
    match combiners {
        Some(t) => println!(
            "{} {} program, {} combiner stage{}",
            c.reflection.target,
            c.reflection.stage,
            t.stages.len(),
            if t.stages.len() == 1 { "" } else { "s" }
        ),
        None => println!(
            "{} {} program, {} instructions{}",
            c.reflection.target,
            c.reflection.stage,
            c.reflection.stats.instructions,
            out.steps.map_or(String::new(), |n| format!(
                ", {n} executed for these values"
            ))
        ),
    }
    println!("inputs:");
    for v in &out.inputs {
        println!("{}", line(v));
    }
    if let (true, Some(t)) = (out.discarded, combiners) {
        // The alpha test's comparison, and the colour it discarded.
        let test = t.alpha_test.as_ref().map_or(String::new(), |a| {
            format!(" (it keeps alpha {} {}/255)", a.func, a.ref_byte)
        });
        println!("discarded by the alpha test{test}:");
        for v in &out.outputs {
            println!("{}", line(v));
        }
    } else if out.discarded {
        println!("discarded");
    } else if c.reflection.stage == "geometry" {
        for (k, e) in out.emitted.iter().enumerate() {
            println!(
                "vertex {k} (setemit {}{}{}):",
                e.vertex,
                if e.primitive { ", prim" } else { "" },
                if e.winding { " inv" } else { "" }
            );
            for v in &e.outputs {
                println!("{}", line(v));
            }
        }
    } else {
        println!("outputs:");
        for v in &out.outputs {
            println!("{}", line(v));
        }
    }
    Ok(())
}

/// What `spv2retro preview` draws.
pub struct PreviewArgs<'a> {
    /// The shader, and a second one for a pair.
    pub shaders: &'a [std::path::PathBuf],
    /// Where the PNG goes.
    pub output: &'a Path,
    /// `cube`, `sphere`, `quad` or an `.obj` file.
    pub mesh: &'a str,
    /// Width and height.
    pub size: (u32, u32),
}

/// `spv2retro preview`: writes a PNG of what the shader (or pair) draws.
pub fn preview(
    args: &PreviewArgs<'_>,
    build: &Build,
    values: &preview::Values,
) -> Result<(), Failure> {
    let shown = args.shaders[0].display().to_string();
    let mesh = match preview::mesh::builtin(args.mesh) {
        Some(m) => m,
        None => {
            let text = std::fs::read_to_string(args.mesh).map_err(|e| {
                anyhow!(
                    "--mesh {}: not one of {} and not a readable .obj file: {e}",
                    args.mesh,
                    preview::mesh::BUILTIN.join(", ")
                )
            })?;
            preview::mesh::parse_obj(&text)
                .map_err(|e| Failure::Other(anyhow!("{}: {e}", args.mesh)))?
        }
    };
    let mut compiled = Vec::new();
    // A pair is a PICA200 vertex and geometry program, a vertex and fragment pair for the
    // PICA200 (`--target pica`), or an AGAL vertex and fragment pair.
    let geometry_pair = args.shaders.len() == 2 && {
        let second = &args.shaders[1];
        let src = source(&second.display().to_string(), read_input(second)?)?;
        spv2retro::stage_of(&src, &Options::pica()).ok() == Some(Stage::Geometry)
    };
    let pica_pair = args.shaders.len() == 2 && build.target == Some(TargetName::Pica);
    if geometry_pair {
        let sources = args
            .shaders
            .iter()
            .map(|p| source(&p.display().to_string(), read_input(p)?))
            .collect::<Result<Vec<_>, Failure>>()?;
        let mut options = Options::pica();
        options.defines = build.defines.clone();
        let linked = spv2retro::picasso::link(&sources, &options, true)?;
        eprint!("{}", linked.warnings);
        for s in linked.shaders {
            compiled.extend(s.compiled);
        }
    } else if pica_pair {
        // The vertex outputs take the semantics the combiners read.
        let sources = args
            .shaders
            .iter()
            .map(|p| source(&p.display().to_string(), read_input(p)?))
            .collect::<Result<Vec<_>, Failure>>()?;
        let mut options = Options::pica();
        options.defines = build.defines.clone();
        let (v, f) = spv2retro::compile_pair(&sources[0], &sources[1], &options)?;
        for c in [v, f] {
            eprint!("{}", c.rendered_warnings());
            compiled.push(c);
        }
    } else {
        for (k, path) in args.shaders.iter().enumerate() {
            let mut b = build.clone();
            if args.shaders.len() == 2 {
                b.target = Some(TargetName::Agal);
                b.stage = b.stage.or(Some(if k == 0 {
                    Stage::Vertex
                } else {
                    Stage::Fragment
                }));
            }
            let c = compile_file(path, &b)?;
            eprint!("{}", c.rendered_warnings());
            compiled.push(c);
        }
    }
    // A pair: each program takes the values it has names for; a name neither has is an
    // error.
    let own: Vec<preview::Values> = match compiled.as_slice() {
        [_] => vec![values.clone()],
        pair => pair.iter().map(|c| values_for(values, c)).collect(),
    };
    if compiled.len() == 2 {
        for (name, _) in values.inputs.iter().chain(&values.uniforms) {
            let known = compiled.iter().any(|c| {
                c.reflection.inputs.iter().any(|i| i.name == *name)
                    || c.reflection.uniforms.iter().any(|u| u.name == *name)
            });
            if !known {
                return Err(Failure::Rejected(format!(
                    "{shown}: error: neither program has an input or uniform `{name}`\n"
                )));
            }
        }
    }
    let values = &own[0];
    let second = own.get(1).unwrap_or(&own[0]);
    let scene = match compiled.as_slice() {
        [one] if one.reflection.stage == "fragment" => preview::Scene::Fragment {
            program: program(one),
            values,
        },
        [one] => preview::Scene::Vertex {
            program: program(one),
            values,
            mesh: &mesh,
        },
        [v, g] if g.reflection.stage == "geometry" => preview::Scene::Geometry {
            vertex: program(v),
            vertex_values: values,
            geometry: program(g),
            geometry_values: second,
            mesh: &mesh,
        },
        [v, f] => preview::Scene::Pair {
            vertex: program(v),
            vertex_values: values,
            fragment: program(f),
            fragment_values: second,
            mesh: &mesh,
        },
        _ => {
            return Err(Failure::Other(anyhow!(
                "preview takes one shader, or a vertex and a fragment shader"
            )));
        }
    };
    // A progress bar on a terminal, for pictures that take a while.
    let started = std::time::Instant::now();
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut shown_progress = false;
    let mut progress = |done: usize, total: usize| {
        if tty && started.elapsed().as_millis() > 500 {
            let filled = done * 30 / total.max(1);
            eprint!(
                "\rrendering [{}{}] {:3}%",
                "#".repeat(filled),
                " ".repeat(30 - filled),
                done * 100 / total.max(1)
            );
            shown_progress = true;
        }
    };
    let frame = preview::render(scene, args.size.0, args.size.1, &mut progress)
        .map_err(|e| preview_error(&shown, e))?;
    if shown_progress {
        eprintln!();
    }
    // One flat colour is usually a program fed nothing: say which uniforms it read at their
    // defaults (zeros, identity matrices, or the source's initial values).
    if let Some(c) = frame.flat() {
        let defaulted: Vec<String> = compiled
            .iter()
            .flat_map(|c| c.reflection.uniforms.iter())
            .filter(|u| !values.uniforms.iter().any(|(n, _)| *n == u.name))
            .filter(|u| !second.uniforms.iter().any(|(n, _)| *n == u.name))
            .map(|u| format!("`{}` ({})", u.name, u.type_name))
            .collect();
        let why = if defaulted.is_empty() {
            "every uniform was given; the inputs and textures make it so".to_string()
        } else {
            format!(
                "these uniforms were not given and read their defaults (zeros, identity \
                 matrices, or the source's initial values): {}; set them with --uniform NAME=…",
                defaulted.join(", ")
            )
        };
        eprintln!(
            "{shown}: warning[preview.flat]: the picture is one colour, rgba({}, {}, {}, {}): \
             {why}",
            c[0], c[1], c[2], c[3]
        );
    }
    let png = frame.png().map_err(|e| preview_error(&shown, e))?;
    write_file(args.output, &shown, &png)
}

/// The values of `values` that `c` has names for (one program of a pair).
fn values_for(values: &preview::Values, c: &Compiled) -> preview::Values {
    let r = &c.reflection;
    preview::Values {
        inputs: values
            .inputs
            .iter()
            .filter(|(n, _)| r.inputs.iter().any(|i| i.name == *n))
            .cloned()
            .collect(),
        uniforms: values
            .uniforms
            .iter()
            .filter(|(n, _)| r.uniforms.iter().any(|u| u.name == *n))
            .cloned()
            .collect(),
        textures: values.textures.clone(),
    }
}
