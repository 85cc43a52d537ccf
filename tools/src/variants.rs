//! `spv2agal --variant NAME:SPEC …`: one source compiled once per variant (a set of
//! preprocessor definitions and sampler flags), as Starling builds a program per texture
//! format. Every variant's program goes to `OUT/NAME.agal` (with `--link`,
//! `OUT/NAME.vertex.agal` and `OUT/NAME.fragment.agal`), and `OUT/variants.json` lists them:
//! name, defines, sampler flags, and each program's file and reflection. Nothing is written
//! unless every variant compiles.

use std::path::{Path, PathBuf};

use spv2retro::variants::Variant;
use spv2retro::{Compiled, Options, SamplerFlags, Stage};

use crate::driver::{Failure, read_input, source, write_file};

/// Compiles `input` (with `link`, as a pair) once per variant and writes the programs and
/// `variants.json` into `out` (created if missing).
pub fn run(
    input: &Path,
    link: Option<&Path>,
    base: &Options,
    variants: &[Variant],
    out: &Path,
    glue: Option<spv2retro::glue::Language>,
) -> Result<(), Failure> {
    let shown = input.display().to_string();
    let mut seen = Vec::new();
    for v in variants {
        if seen.contains(&v.name) {
            return Err(Failure::Rejected(format!(
                "{shown}: two variants are called {:?}\n",
                v.name
            )));
        }
        seen.push(v.name.clone());
    }
    let bytes = read_input(input)?;
    let other = match link {
        Some(p) => Some((p.display().to_string(), read_input(p)?)),
        None => None,
    };
    let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let mut table = Vec::new();
    // With --emit haxe|as3: a class per variant, and one that chooses among them by name,
    // named after the input (`filter.frag` → `Filter`).
    let class = spv2retro::glue::class_name(
        input
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("shader"),
    );
    let mut classes: Vec<(String, String)> = Vec::new();
    for v in variants {
        let options = v.options(base);
        let mine = source(&shown, bytes.clone())?;
        let programs: Vec<(Stage, Compiled)> = match &other {
            Some((name, other_bytes)) => {
                let theirs = source(name, other_bytes.clone())?;
                let stage = spv2retro::stage_of(&mine, &options)?;
                let (vertex, fragment) = if stage == Stage::Vertex {
                    spv2retro::compile_pair(&mine, &theirs, &options)?
                } else {
                    spv2retro::compile_pair(&theirs, &mine, &options)?
                };
                vec![(Stage::Vertex, vertex), (Stage::Fragment, fragment)]
            }
            None => {
                let c = spv2retro::compile(&mine, &options)?;
                vec![(c.stage, c)]
            }
        };
        let mut entry = serde_json::Map::new();
        entry.insert("name".into(), v.name.clone().into());
        let defines: serde_json::Map<String, serde_json::Value> = v
            .defines
            .iter()
            .map(|(k, x)| (k.clone(), x.clone().into()))
            .collect();
        entry.insert("defines".into(), defines.into());
        let samplers: Vec<SamplerFlags> = options.samplers.clone();
        let samplers: serde_json::Map<String, serde_json::Value> = samplers
            .iter()
            .map(|s| (s.binding.to_string(), s.flags.clone().into()))
            .collect();
        entry.insert("samplers".into(), samplers.into());
        let mut stages = serde_json::Map::new();
        for (stage, c) in &programs {
            eprint!("{}", c.rendered_warnings());
            let file = if programs.len() == 1 {
                format!("{}.agal", v.name)
            } else {
                format!("{}.{}.agal", v.name, stage.name())
            };
            files.push((out.join(&file), c.bytes.clone()));
            let reflection: serde_json::Value =
                serde_json::from_str(&c.reflection.to_json()).unwrap_or_default();
            stages.insert(
                stage.name().to_string(),
                serde_json::json!({ "file": file, "reflection": reflection }),
            );
        }
        entry.insert("programs".into(), stages.into());
        if let Some(language) = glue {
            let own = format!("{class}{}", spv2retro::glue::class_name(&v.name));
            let find = |s: Stage| programs.iter().find(|(st, _)| *st == s).map(|(_, c)| c);
            let text = spv2retro::glue::generate(
                language,
                &own,
                find(Stage::Vertex),
                find(Stage::Fragment),
            )?;
            let file = format!("{own}.{}", language.extension());
            entry.insert("class".into(), file.clone().into());
            files.push((out.join(file), text.into_bytes()));
            classes.push((v.name.clone(), own));
        }
        table.push(serde_json::Value::Object(entry));
    }
    if let Some(language) = glue {
        let text = spv2retro::glue::variant_selector(language, &class, &classes, other.is_some());
        files.push((
            out.join(format!("{class}.{}", language.extension())),
            text.into_bytes(),
        ));
    }
    std::fs::create_dir_all(out).map_err(|e| {
        Failure::Other(anyhow::anyhow!(
            "{shown}: cannot create {}: {e}",
            out.display()
        ))
    })?;
    for (path, bytes) in &files {
        write_file(path, &shown, bytes)?;
    }
    let json = serde_json::to_string_pretty(&table).unwrap_or_default() + "\n";
    write_file(&out.join("variants.json"), &shown, json.as_bytes())
}
