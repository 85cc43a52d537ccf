//! Executed steps: what a compiled program runs for one vertex or fragment, counted by the
//! simulators (PICA200 instruction words, `end` included; AGAL tokens, a conditional block's
//! only when its condition held) at stated values. What users feel on these GPUs is the
//! instructions executed per vertex or pixel, which for a program with a branch, loop or
//! call is not its length.
//!
//! The stated values: every input lane [`INPUT`], every uniform lane [`UNIFORM`] (a loop
//! bounded by a count uniform makes three trips), every texture the built-in one
//! (`preview`'s checkerboard or gradient).

use spv2retro::{Compiled, Source, Stage};

/// Every input lane.
pub const INPUT: f32 = 0.5;
/// Every uniform lane.
pub const UNIFORM: f32 = 3.0;

/// The stated values for a compiled program, by its reflection's names.
pub fn stated(c: &Compiled) -> preview::Values {
    let r = &c.reflection;
    preview::Values {
        inputs: r
            .inputs
            .iter()
            .map(|i| (i.name.clone(), vec![INPUT; 4]))
            .collect(),
        uniforms: r
            .uniforms
            .iter()
            .map(|u| {
                // As many lanes as the uniform's registers hold from its first lane.
                let lanes = (u.count.max(1) as usize * 4).saturating_sub(usize::from(u.component));
                (u.name.clone(), vec![UNIFORM; lanes])
            })
            .collect(),
        textures: Vec::new(),
    }
}

/// The steps `c` executes at the stated values (`None` for the texture combiners, which run
/// every stage).
pub fn executed(c: &Compiled) -> Result<Option<u64>, String> {
    let program = preview::Program {
        bytes: &c.bytes,
        reflection: &c.reflection,
    };
    let out = preview::run(program, &stated(c)).map_err(|e| e.to_string())?;
    Ok(out.steps)
}

/// A compile's outcome in a few words: `N instructions, S steps`, `N stages` (the texture
/// combiners), `N instructions, does not run: WHY`, or `refused RULE`.
pub fn outcome(result: &Result<Compiled, spv2retro::Error>) -> String {
    match result {
        Ok(c) => {
            let n = c.reflection.stats.instructions;
            match executed(c) {
                Ok(Some(steps)) => format!("{n} instructions, {steps} steps"),
                Ok(None) => format!("{n} stages"),
                Err(e) => format!("{n} instructions, does not run: {e}"),
            }
        }
        Err(e) => {
            let rule = e.diagnostics().0.first().map_or("-", |d| d.rule);
            format!("refused {rule}")
        }
    }
}

/// Whether a SPIR-V module has a branch, loop or call (`OpSelectionMerge`, `OpLoopMerge`,
/// `OpBranchConditional`, `OpSwitch`, `OpFunctionCall`): the programs whose steps the size
/// report gives.
pub fn spirv_has_control_flow(bytes: &[u8]) -> bool {
    const FLOW: [u32; 5] = [57, 246, 247, 250, 251];
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let mut at = 5;
    while at < words.len() {
        let (count, op) = (words[at] >> 16, words[at] & 0xffff);
        if FLOW.contains(&op) {
            return true;
        }
        at += count.max(1) as usize;
    }
    false
}

/// One program to measure: its name, stage and source (SPIR-V bytes or GLSL text).
pub struct Program {
    /// `folder/stem`, or `engines/` and the corpus file.
    pub name: String,
    pub stage: Stage,
    spirv: Option<Vec<u8>>,
    glsl: Option<String>,
}

impl Program {
    /// Its source, named.
    pub fn source(&self) -> Source<'_> {
        match (&self.spirv, &self.glsl) {
            (Some(bytes), _) => Source::spirv(bytes).named(&self.name),
            (None, Some(text)) => Source::glsl(text, self.stage).named(&self.name),
            (None, None) => unreachable!("a program has a source"),
        }
    }
}

/// Every program with a branch, loop or call: the `glsl` and `edge` fixtures' SPIR-V (one
/// variant each), `tests/fixtures/loops`, and the engine corpus's SPIR-V.
pub fn corpus() -> Vec<Program> {
    let mut all = Vec::new();
    for folder in ["glsl", "edge"] {
        for path in crate::fixture_files(folder, ".spv") {
            let file = path.file_name().unwrap().to_string_lossy().to_string();
            let stem = file.strip_suffix(".spv").unwrap();
            if [".opt", ".g", ".v13", "optsize"]
                .iter()
                .any(|s| stem.contains(s))
            {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            if !spirv_has_control_flow(&bytes) {
                continue;
            }
            let fragment = stem.ends_with(".frag") || stem.contains(".ps.");
            all.push(Program {
                name: format!("{folder}/{stem}"),
                stage: if fragment {
                    Stage::Fragment
                } else {
                    Stage::Vertex
                },
                spirv: Some(bytes),
                glsl: None,
            });
        }
    }
    for ext in [".vert", ".frag"] {
        for path in crate::fixture_files("loops", ext) {
            let file = path.file_name().unwrap().to_string_lossy().to_string();
            all.push(Program {
                name: format!("loops/{file}"),
                stage: if ext == ".frag" {
                    Stage::Fragment
                } else {
                    Stage::Vertex
                },
                spirv: None,
                glsl: Some(std::fs::read_to_string(&path).unwrap()),
            });
        }
    }
    let dir = crate::fixtures("thirdparty/engines");
    let tsv = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("MANIFEST.tsv");
    for line in tsv.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 7 || f[6] == "-" {
            continue;
        }
        let bytes = std::fs::read(dir.join(f[6])).unwrap_or_else(|e| panic!("{}: {e}", f[6]));
        if !spirv_has_control_flow(&bytes) {
            continue;
        }
        all.push(Program {
            name: format!("engines/{}", f[0]),
            stage: if f[2] == "vertex" {
                Stage::Vertex
            } else {
                Stage::Fragment
            },
            spirv: Some(bytes),
            glsl: None,
        });
    }
    all
}
