//! The agal half of the hand-written reference set (see the parent module).
//!
//! Each original is an `.agalasm` file under `tests/fixtures/handwritten/agal/PROJECT/`
//! (AGALMiniAssembler text, exactly the instructions the project builds for one variant) next
//! to its GLSL rewrite (the same name without `.agalasm`). The original's header comments say
//! where it comes from and, in `// @` lines, how the application feeds it, which is what the
//! simulator check (`tests/tests/handwritten_agal.rs`) needs:
//!
//! ```text
//! // @profile baseline|standard            the profile the original is assembled for
//! // @attribute va1 float2 0:1 0:1         a vertex attribute: format (float1-4, bytes4) and
//! //                                       the range of each lane in the buffer
//! // @uniform alpha vc4 4 0:1 splat        a per-draw upload: the rewrite's uniform name, the
//! //                                       original's register, floats, ranges (one for all
//! //                                       or one per float of a register), `splat`: one
//! //                                       value in every lane (Starling's alpha)
//! // @const fc5 0 0 0 0.0001               a fixed upload (a literal in the rewrite)
//! // @varying v1 xy 0:1                    vertex: an output compared (the lanes the rewrite
//! //                                       declares); fragment: an input (ranges per lane)
//! // @sampler fs0                          a texture the fragment program samples
//! ```

use super::{Reference, Target};
use backend_agal::{HEADER_LEN, Profile, TOKEN_LEN, Version};
use spv2retro::Stage;
use std::path::PathBuf;

/// The originals, `project/name.stage` (the rewrite's path under the folder).
pub const PROGRAMS: &[&str] = &[
    "starling/effect.vert",
    "starling/effect.frag",
    "starling/filter.vert",
    "starling/filter.frag",
    "starling/filter_straight_alpha.frag",
    "starling/mesh.vert",
    "starling/mesh.frag",
    "starling/mesh_untextured.vert",
    "starling/blur.vert",
    "starling/blur.frag",
    "starling/color_matrix.frag",
    "starling/displacement_map.vert",
    "starling/displacement_map.frag",
    "starling/composite.vert",
    "starling/composite_drop_shadow.frag",
    "starling/composite_inner_knockout.frag",
    "starling/distance_field.vert",
    "starling/distance_field.frag",
    "starling/distance_field_shadow.vert",
    "starling/distance_field_shadow.frag",
    "starling/multi_texture.vert",
    "starling/multi_texture_baseline.frag",
    "starling/multi_texture_standard.frag",
    "starling1/quad.vert",
    "starling1/image.vert",
    "starling1/blur.vert",
    "starling1/blur_tinted.frag",
    "starling1/displacement_map.frag",
    "away3d/skybox.vert",
    "away3d/skybox.frag",
    "away3d/segment.vert",
    "away3d/outline.vert",
    "away3d/depth_map.vert",
    "away3d/depth_map.frag",
    "away3d/distance_map.vert",
    "away3d/distance_map.frag",
    "away3d/bright_pass.frag",
    "away3d/bloom_composite.frag",
];

/// The folder of the AGAL references.
pub fn folder() -> PathBuf {
    crate::fixtures("handwritten/agal")
}

/// An attribute's format in the vertex buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `float1` … `float4`: that many floats; the missing lanes read 0, 0, 1 (z, w = 1).
    Float(usize),
    /// `bytes4`: four bytes read as 0 … 1.
    Bytes4,
}

/// A value range.
pub type Range = (f32, f32);

/// A vertex attribute the application binds.
#[derive(Clone, Debug)]
pub struct Attribute {
    pub register: u16,
    pub format: Format,
    /// Per lane present in the buffer (the last repeats).
    pub ranges: Vec<Range>,
}

/// A per-draw upload: the rewrite's uniform of that name, the original's registers.
#[derive(Clone, Debug)]
pub struct Upload {
    pub name: String,
    /// The original's first constant register.
    pub register: u16,
    pub floats: usize,
    /// Per float (the last repeats).
    pub ranges: Vec<Range>,
    /// One value in every float.
    pub splat: bool,
}

/// A varying: compared (vertex) or fed (fragment).
#[derive(Clone, Debug)]
pub struct Varying {
    pub register: u16,
    /// The lanes the rewrite declares (0 = x …).
    pub lanes: Vec<usize>,
    /// Per lane (the last repeats).
    pub ranges: Vec<Range>,
}

/// How the application feeds an original (its `// @` lines).
#[derive(Clone, Debug, Default)]
pub struct Setup {
    pub profile: Profile,
    pub attributes: Vec<Attribute>,
    pub uploads: Vec<Upload>,
    /// Fixed uploads: register, value.
    pub constants: Vec<(u16, [f32; 4])>,
    pub varyings: Vec<Varying>,
    pub samplers: Vec<u16>,
}

fn register(text: &str, prefix: &str) -> Result<u16, String> {
    text.strip_prefix(prefix)
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("`{text}` is not a {prefix} register"))
}

fn ranges<'a>(words: impl Iterator<Item = &'a str>) -> Result<Vec<Range>, String> {
    words
        .map(|w| {
            let (a, b) = w
                .split_once(':')
                .ok_or_else(|| format!("`{w}` is not a range lo:hi"))?;
            let a: f32 = a.parse().map_err(|_| format!("bad number in `{w}`"))?;
            let b: f32 = b.parse().map_err(|_| format!("bad number in `{w}`"))?;
            Ok((a, b))
        })
        .collect()
}

impl Setup {
    /// Reads the `// @` lines of an original.
    pub fn parse(text: &str, stage: Stage) -> Result<Setup, String> {
        let mut setup = Setup::default();
        let constant = if stage == Stage::Vertex { "vc" } else { "fc" };
        for line in text.lines() {
            let Some(rest) = line.trim().strip_prefix("// @") else {
                continue;
            };
            let mut words = rest.split_whitespace();
            let key = words.next().unwrap_or_default();
            match key {
                "profile" => {
                    let name = words.next().unwrap_or_default();
                    setup.profile = Profile::from_name(name)
                        .ok_or_else(|| format!("unknown profile `{name}`"))?;
                }
                "attribute" => {
                    let reg = register(words.next().unwrap_or_default(), "va")?;
                    let format = match words.next().unwrap_or_default() {
                        "bytes4" => Format::Bytes4,
                        f => match f.strip_prefix("float").and_then(|n| n.parse().ok()) {
                            Some(n @ 1..=4) => Format::Float(n),
                            _ => return Err(format!("unknown format `{f}`")),
                        },
                    };
                    let mut r = ranges(words)?;
                    if r.is_empty() {
                        r.push(if format == Format::Bytes4 {
                            (0.0, 1.0)
                        } else {
                            (-2.0, 2.0)
                        });
                    }
                    setup.attributes.push(Attribute {
                        register: reg,
                        format,
                        ranges: r,
                    });
                }
                "uniform" => {
                    let name = words.next().unwrap_or_default().to_string();
                    let reg = register(words.next().unwrap_or_default(), constant)?;
                    let floats: usize = words
                        .next()
                        .and_then(|n| n.parse().ok())
                        .ok_or_else(|| format!("uniform `{name}` has no float count"))?;
                    let rest: Vec<&str> = words.collect();
                    let splat = rest.contains(&"splat");
                    let mut r = ranges(rest.into_iter().filter(|w| *w != "splat"))?;
                    if r.is_empty() {
                        r.push((-2.0, 2.0));
                    }
                    setup.uploads.push(Upload {
                        name,
                        register: reg,
                        floats,
                        ranges: r,
                        splat,
                    });
                }
                "const" => {
                    let reg = register(words.next().unwrap_or_default(), constant)?;
                    let values: Vec<f32> = words
                        .map(|w| w.parse().map_err(|_| format!("bad constant `{w}`")))
                        .collect::<Result<_, _>>()?;
                    let value: [f32; 4] = values
                        .try_into()
                        .map_err(|_| format!("{constant}{reg} needs four values"))?;
                    setup.constants.push((reg, value));
                }
                "varying" => {
                    let reg = register(words.next().unwrap_or_default(), "v")?;
                    let mask = words.next().unwrap_or_default();
                    let lanes = mask
                        .chars()
                        .map(|c| "xyzw".find(c).ok_or_else(|| format!("bad mask `{mask}`")))
                        .collect::<Result<_, _>>()?;
                    let mut r = ranges(words)?;
                    if r.is_empty() {
                        r.push((0.0, 1.0));
                    }
                    setup.varyings.push(Varying {
                        register: reg,
                        lanes,
                        ranges: r,
                    });
                }
                "sampler" => setup
                    .samplers
                    .push(register(words.next().unwrap_or_default(), "fs")?),
                _ => return Err(format!("unknown directive `@{key}`")),
            }
        }
        Ok(setup)
    }
}

/// One AGAL reference with its original's text and setup.
#[derive(Clone, Debug)]
pub struct Original {
    pub reference: Reference,
    pub text: String,
    pub setup: Setup,
}

impl Original {
    /// The AGAL version the original is assembled for.
    pub fn version(&self) -> Version {
        self.setup.profile.version()
    }

    /// The original assembled, as AGALMiniAssembler makes it.
    pub fn assemble(&self) -> Vec<u8> {
        let stage = match self.reference.stage {
            Stage::Vertex => backend_agal::Stage::Vertex,
            _ => backend_agal::Stage::Fragment,
        };
        backend_agal::asm::assemble(&self.text, stage, self.version())
            .unwrap_or_else(|e| panic!("{}: {e}", self.reference.original.display()))
    }
}

/// Every AGAL original with its setup.
pub fn originals() -> Vec<Original> {
    let dir = folder();
    PROGRAMS
        .iter()
        .map(|program| {
            let stage = if program.ends_with(".vert") {
                Stage::Vertex
            } else {
                Stage::Fragment
            };
            let rewrite = dir.join(program);
            let original = dir.join(format!("{program}.agalasm"));
            let text = std::fs::read_to_string(&original)
                .unwrap_or_else(|e| panic!("{}: {e}", original.display()));
            let setup = Setup::parse(&text, stage)
                .unwrap_or_else(|e| panic!("{}: {e}", original.display()));
            let mut o = Original {
                reference: Reference {
                    name: program.to_string(),
                    target: Target::Agal(setup.profile),
                    stage,
                    rewrite,
                    original,
                    hand_instructions: 0,
                    semantics: Vec::new(),
                },
                text,
                setup,
            };
            let bytes = o.assemble();
            o.reference.hand_instructions = (bytes.len() - HEADER_LEN) / TOKEN_LEN;
            o
        })
        .collect()
}

/// The agal references.
pub fn references() -> Vec<Reference> {
    originals().into_iter().map(|o| o.reference).collect()
}
