//! The build helper's Stage3D part: AGAL pairs ([`Shaders::stage3d_pair`]) and the Haxe and
//! ActionScript classes ([`Shaders::stage3d_classes`]).
//!
//! [`Shaders::stage3d_pair`]: super::Shaders::stage3d_pair
//! [`Shaders::stage3d_classes`]: super::Shaders::stage3d_classes

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Item, Output, write};
use crate::compile::{Compiled, Target, compile_pair};
use crate::error::{Error, ErrorKind};
use crate::glue::{self, Language};
use crate::source::Source;

/// A pair's module, and the index of its vertex program's output (the fragment program's
/// follows).
pub(super) struct Pair {
    module: String,
    vertex: usize,
}

/// Compiles the pairs among `items`, writes their programs and reflections into `out_dir`,
/// and appends their outputs to `shaders`.
pub(super) fn pairs(
    items: &[Item],
    out_dir: &Path,
    shaders: &mut Vec<Output>,
    seen: &mut BTreeMap<String, PathBuf>,
) -> Result<Vec<Pair>, Error> {
    let mut pairs = Vec::new();
    for item in items {
        let Item::Pair {
            module,
            vertex,
            fragment,
            options,
        } = item
        else {
            continue;
        };
        println!("cargo:rerun-if-changed={}", vertex.display());
        println!("cargo:rerun-if-changed={}", fragment.display());
        let mut options = options.clone();
        options.target = Target::Agal;
        let (v, f) = compile_pair(
            Source::from_path(vertex)?,
            Source::from_path(fragment)?,
            &options,
        )?;
        pairs.push(Pair {
            module: module.clone(),
            vertex: shaders.len(),
        });
        for (compiled, path, stage) in [(v, vertex, "vertex"), (f, fragment, "fragment")] {
            let own = format!("{module}_{stage}");
            if let Some(first) = seen.insert(own.clone(), path.clone()) {
                return Err(Error::other(
                    ErrorKind::Rejected,
                    format!(
                        "{} and the pair `{module}` would both be the module `{own}`",
                        first.display()
                    ),
                ));
            }
            for line in compiled.rendered_warnings().lines() {
                if !line.trim().is_empty() {
                    println!("cargo:warning={line}");
                }
            }
            let program = out_dir.join(format!("{own}.agal"));
            write(&program, &compiled.bytes)?;
            let reflection = out_dir.join(format!("{own}.json"));
            write(&reflection, compiled.reflection.to_json().as_bytes())?;
            shaders.push(Output {
                module: own,
                source: path.clone(),
                sources: vec![path.clone()],
                program,
                reflection: Some(reflection),
                bytes: compiled.bytes.clone(),
                compiled: Some(compiled),
                linked: None,
            });
        }
    }
    Ok(pairs)
}

/// Writes the classes `wanted` asks for: one per pair and one per other AGAL shader.
pub(super) fn classes(
    wanted: &[(Language, Option<PathBuf>)],
    shaders: &[Output],
    pairs: &[Pair],
    out_dir: &Path,
) -> Result<Vec<PathBuf>, Error> {
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    // (class, vertex, fragment), in the order of `shaders`.
    let mut jobs: Vec<(String, Option<&Compiled>, Option<&Compiled>)> = Vec::new();
    let mut k = 0;
    while k < shaders.len() {
        if let Some(p) = pairs.iter().find(|p| p.vertex == k) {
            let (v, f) = (&shaders[k], &shaders[k + 1]);
            jobs.push((
                glue::class_name(&p.module),
                v.compiled.as_ref(),
                f.compiled.as_ref(),
            ));
            k += 2;
            continue;
        }
        if let Some(c) = shaders[k]
            .compiled
            .as_ref()
            .filter(|c| c.target == Target::Agal)
        {
            let vertex = c.stage == crate::Stage::Vertex;
            jobs.push((
                glue::class_name(&shaders[k].module),
                vertex.then_some(c),
                (!vertex).then_some(c),
            ));
        }
        k += 1;
    }
    let mut written = Vec::new();
    for (class, vertex, fragment) in &jobs {
        for (language, dir) in wanted {
            let dir = dir.as_deref().unwrap_or(out_dir);
            std::fs::create_dir_all(dir).map_err(|e| super::io_error(dir, e))?;
            let text = glue::generate(*language, class, *vertex, *fragment)?;
            let path = dir.join(format!("{class}.{}", language.extension()));
            write(&path, text.as_bytes())?;
            written.push(path);
        }
    }
    Ok(written)
}
