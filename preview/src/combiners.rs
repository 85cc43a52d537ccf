//! The PICA200's fragment stage, driven as an application drives it.
//!
//! A compiled PICA200 fragment program's bytes are the GPU command list that sets the texture
//! combiners (`pica200-fragment-pipeline.md` §6). [`texenv`] executes that list into the
//! registers it writes and reads them back as a [`TexEnv`]; the reflection says the rest:
//! which stage colours are uniforms (which the application sets with `C3D_TexEnvColor`),
//! which sampler each texture unit reads and from which varying, which varying is the vertex
//! colour. Each fragment then runs the combiners in [`sim::run`], on bytes:
//!
//! - the colour varying (`GPU_PRIMARY_COLOR`) is |c| clamped to 0…1 and rounded to a byte. The
//!   hardware takes |c| and saturates it per vertex, before interpolating: when a vertex
//!   program draws with the configuration, its colour output is saturated per vertex before
//!   the rasteriser interpolates it;
//! - texture unit N samples its image at its varying's (u, v), a cube map (unit 0 only) at the
//!   direction (u, v, w) of `texcoord0` and `texcoord0w`, as citro3d's `C3D_TexInit` leaves a
//!   texture: the nearest texel, coordinates clamped to the edge, mip level 0. The image's
//!   first row is v = 0, as in the AGAL preview. The sample is rounded to bytes;
//! - stage 5's result is the colour; the alpha test may discard it (the colour it would have
//!   had is still reported).
//!
//! Stage colours that are uniforms take the values given by name, else the source's initial
//! value, else zeros, as every uniform does in this crate (lanes past the uniform's type keep
//! the command list's bytes).

use std::collections::HashMap;

use backend_agal::sim::{Image, Texture};
use backend_pica::fragment::config::{
    AlphaTest, Channel, Color, Combiner, Func, Operand, Source, Stage, TestFunc, TexEnv,
    TextureKind, TextureUnit,
};
use backend_pica::fragment::sim;
use backend_pica::fragment::words;
use machine::reflect::Reflection;

use crate::drive::{Program, Raw, Values};
use crate::{Error, texture};

/// The state `C3D_Init` leaves a register in: stages that pass the previous result on, the
/// buffer colour 0xFFFFFFFF, no buffer updates, the alpha test off.
fn initial(register: u16) -> u32 {
    let pass = Stage::pass_through().words();
    for base in words::STAGE_REGISTERS {
        if (base..base + 5).contains(&register) {
            return pass[usize::from(register - base)];
        }
    }
    match register {
        words::BUFFER_COLOR => 0xFFFF_FFFF,
        words::ALPHA_TEST => AlphaTest::word(None),
        _ => 0,
    }
}

/// Executes a GPU command list (little-endian words: a first parameter, a header, further
/// parameters, padding to 8 bytes) into the registers it writes, with byte masks.
fn execute(bytes: &[u8]) -> Result<HashMap<u16, u32>, Error> {
    if !bytes.len().is_multiple_of(4) {
        return Err(Error::Program(format!(
            "the command list is {} bytes, not whole 32-bit words",
            bytes.len()
        )));
    }
    let w: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut registers = HashMap::new();
    let mut k = 0;
    while k < w.len() {
        let Some(&header) = w.get(k + 1) else {
            return Err(Error::Program(format!(
                "the command list ends inside the command at word {k}"
            )));
        };
        let id = (header & 0x3FF) as u16;
        let mask = (0..4).fold(0u32, |m, b| {
            if header >> (16 + b) & 1 != 0 {
                m | 0xFF << (8 * b)
            } else {
                m
            }
        });
        let extra = (header >> 20 & 0xFF) as usize;
        let consecutive = header >> 31 != 0;
        let Some(further) = w.get(k + 2..k + 2 + extra) else {
            return Err(Error::Program(format!(
                "the command at word {k} has {extra} further parameters past the list's end"
            )));
        };
        for (i, &p) in std::iter::once(&w[k]).chain(further).enumerate() {
            let register = if consecutive { id + i as u16 } else { id };
            let old = registers
                .get(&register)
                .copied()
                .unwrap_or_else(|| initial(register));
            registers.insert(register, old & !mask | p & mask);
        }
        k += 2 + extra + extra % 2;
    }
    Ok(registers)
}

fn source(code: u32, stage: usize) -> Result<Source, Error> {
    Ok(match code {
        0x0 => Source::PrimaryColor,
        0x3..=0x5 => Source::Texture((code - 3) as u8),
        0xD => Source::PreviousBuffer,
        0xE => Source::Constant,
        0xF => Source::Previous,
        0x1 | 0x2 => {
            return Err(Error::Program(format!(
                "stage {stage} reads a fragment-lighting colour: fragment lighting is not simulated"
            )));
        }
        0x6 => {
            return Err(Error::Program(format!(
                "stage {stage} reads texture unit 3: the procedural texture is not simulated"
            )));
        }
        _ => {
            return Err(Error::Program(format!(
                "stage {stage} reads the undocumented source {code:#x}"
            )));
        }
    })
}

fn operand(code: u32, alpha: bool, stage: usize) -> Result<Operand, Error> {
    let channel = if alpha {
        match code >> 1 {
            0 => Channel::A,
            1 => Channel::R,
            2 => Channel::G,
            _ => Channel::B,
        }
    } else {
        match code >> 1 {
            0 => Channel::Rgb,
            1 => Channel::A,
            2 => Channel::R,
            4 => Channel::G,
            6 => Channel::B,
            _ => {
                return Err(Error::Program(format!(
                    "stage {stage} has the undocumented RGB operand {code}"
                )));
            }
        }
    };
    Ok(Operand {
        channel,
        one_minus: code & 1 != 0,
    })
}

/// One combiner from its stage's five words (SOURCE, OPERAND, COMBINER, COLOR, SCALE): the RGB
/// half, or the alpha half when `alpha`. Scale 3, undocumented, is 1× as in the emulators.
fn combiner(w: &[u32; 5], alpha: bool, stage: usize) -> Result<Combiner, Error> {
    let shift = if alpha { 16 } else { 0 };
    let (op_shift, op_bits) = if alpha { (12, 0x7) } else { (0, 0xF) };
    let mut sources = [Source::PrimaryColor; 3];
    let mut operands = [Operand {
        channel: Channel::Rgb,
        one_minus: false,
    }; 3];
    for i in 0..3 {
        sources[i] = source(w[0] >> (shift + 4 * i) & 0xF, stage)?;
        operands[i] = operand(w[1] >> (op_shift + 4 * i) & op_bits, alpha, stage)?;
    }
    let code = w[2] >> shift & 0xF;
    let func = *Func::ALL.get(code as usize).ok_or_else(|| {
        Error::Program(format!(
            "stage {stage} has the undocumented combiner function {code}"
        ))
    })?;
    let scale = match w[4] >> shift & 0x3 {
        1 => 2,
        2 => 4,
        _ => 1,
    };
    Ok(Combiner {
        sources,
        operands,
        func,
        scale,
    })
}

/// The configuration a PICA200 fragment program sets: its command list (the bytes) executed
/// from the state `C3D_Init` leaves, read back, with the texture units, the colour varying
/// and the stage colours that are uniforms (`Color::Uniform`, their bytes as the list sets
/// them) from the reflection. For a compiled program it equals the compiler's `TexEnv`.
pub fn texenv(program: Program<'_>) -> Result<TexEnv, Error> {
    let r = program.reflection;
    let info = r.texenv.as_ref().ok_or_else(|| {
        Error::Program("the reflection of a PICA200 fragment program has no texenv".into())
    })?;
    let registers = execute(program.bytes)?;
    let reg = |id: u16| registers.get(&id).copied().unwrap_or_else(|| initial(id));
    let update = reg(words::UPDATE_BUFFER);
    let mut stages: Vec<Stage> = Vec::with_capacity(6);
    for (k, base) in words::STAGE_REGISTERS.iter().enumerate() {
        let w: [u32; 5] = std::array::from_fn(|i| reg(base + i as u16));
        stages.push(Stage {
            rgb: combiner(&w, false, k)?,
            alpha: combiner(&w, true, k)?,
            color: Color::Bytes(w[3].to_le_bytes()),
            update_rgb: k < 4 && update >> (8 + k) & 1 != 0,
            update_alpha: k < 4 && update >> (12 + k) & 1 != 0,
        });
    }
    for u in &r.uniforms {
        for k in stages_of(&u.register) {
            let bytes = stages[k].color.bytes();
            stages[k].color = Color::Uniform {
                name: u.name.clone(),
                bytes,
            };
        }
    }
    let test = reg(words::ALPHA_TEST);
    let alpha_test = (test & 1 != 0).then(|| {
        let code = test >> 4 & 0x7;
        AlphaTest {
            func: TEST_FUNCS
                .into_iter()
                .find(|f| f.code() == code)
                .unwrap_or(TestFunc::Always),
            reference: (test >> 8 & 0xFF) as u8,
        }
    });
    let location = |varying: &str| -> Result<u32, Error> {
        r.inputs
            .iter()
            .find(|i| i.name == varying)
            .map(|i| i.location)
            .ok_or_else(|| {
                Error::Program(format!(
                    "the reflection's texenv reads the varying `{varying}`, which is not among \
                     its inputs"
                ))
            })
    };
    let mut textures = Vec::new();
    for t in &info.textures {
        let binding = r
            .samplers
            .iter()
            .find(|s| s.name == t.sampler)
            .map(|s| s.binding)
            .ok_or_else(|| {
                Error::Program(format!(
                    "texture unit {} reads the sampler `{}`, which the reflection does not list",
                    t.unit, t.sampler
                ))
            })?;
        textures.push(TextureUnit {
            unit: t.unit,
            sampler: t.sampler.clone(),
            binding,
            varying: t.varying.clone(),
            location: location(&t.varying)?,
            kind: if t.kind == "cube" {
                TextureKind::Cube
            } else {
                TextureKind::D2
            },
        });
    }
    let color = match &info.primary_color {
        Some(name) => Some((name.clone(), location(name)?)),
        None => None,
    };
    let stages: [Stage; 6] = stages.try_into().expect("six stages");
    Ok(TexEnv {
        stages,
        buffer_color: reg(words::BUFFER_COLOR).to_le_bytes(),
        alpha_test,
        textures,
        color,
    })
}

const TEST_FUNCS: [TestFunc; 8] = [
    TestFunc::Never,
    TestFunc::Always,
    TestFunc::Equal,
    TestFunc::NotEqual,
    TestFunc::Less,
    TestFunc::LessEqual,
    TestFunc::Greater,
    TestFunc::GreaterEqual,
];

/// The stages a uniform's reflection register names (`texenv2`, `texenv1,texenv3`).
fn stages_of(register: &str) -> Vec<usize> {
    register
        .split(',')
        .filter_map(|s| s.trim().strip_prefix("texenv")?.parse().ok())
        .filter(|&k: &usize| k < 6)
        .collect()
}

/// How many lanes a uniform of GLSL type `t` has.
fn lanes_of(t: &str) -> usize {
    match t {
        "float" | "int" | "uint" | "bool" => 1,
        _ => t
            .strip_prefix("vec")
            .and_then(|n| n.parse().ok())
            .unwrap_or(4)
            .min(4),
    }
}

/// A texture unit as bound for a run.
#[derive(Clone, Debug)]
struct Unit {
    /// The varying (index in the reflection's inputs) holding its coordinates.
    input: usize,
    image: Image,
    cube: bool,
}

/// A fragment configuration loaded for many runs: the configuration with the stage colours
/// set, the textures bound.
#[derive(Clone, Debug)]
pub(crate) struct Combiners {
    texenv: TexEnv,
    /// The same without the alpha test: the colour of a discarded fragment.
    untested: TexEnv,
    /// The varying (index in the reflection's inputs) read as the vertex colour.
    primary: Option<usize>,
    units: [Option<Unit>; 3],
}

/// A fragment's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shaded {
    /// Stage 5's colour (what it was, for a discarded fragment).
    pub color: [u8; 4],
    /// The alpha test discarded it.
    pub discarded: bool,
}

impl Combiners {
    /// Loads `program` with `values` (uniforms by name, textures by sampler binding; unset
    /// bindings get the built-in textures).
    pub fn new(program: Program<'_>, values: &Values) -> Result<Combiners, Error> {
        let r = program.reflection;
        let mut texenv = texenv(program)?;
        for (name, _) in &values.uniforms {
            if !r.uniforms.iter().any(|u| u.name == *name) {
                return Err(Error::Usage(format!(
                    "the program has no uniform `{name}`; it has {}",
                    crate::drive::list(r.uniforms.iter().map(|u| u.name.as_str()))
                )));
            }
        }
        for u in &r.uniforms {
            let lanes = lanes_of(&u.type_name);
            let given = values
                .uniforms
                .iter()
                .find(|(n, _)| *n == u.name)
                .map(|(_, f)| f.as_slice());
            if let Some(f) = given {
                if f.len() > lanes {
                    return Err(Error::Usage(format!(
                        "uniform `{}` ({}) holds {lanes} floats; {} were given",
                        u.name,
                        u.type_name,
                        f.len()
                    )));
                }
            }
            let floats = given.or(u.default.as_deref()).unwrap_or(&[]);
            for k in stages_of(&u.register) {
                let stage = &mut texenv.stages[k];
                let mut bytes = stage.color.bytes();
                for (lane, b) in bytes.iter_mut().enumerate().skip(usize::from(u.component)) {
                    let at = lane - usize::from(u.component);
                    if at < lanes {
                        *b = sim::to_byte(floats.get(at).copied().unwrap_or(0.0));
                    }
                }
                if let Color::Uniform { bytes: b, .. } = &mut stage.color {
                    *b = bytes;
                }
            }
        }
        let index = |name: &str| r.inputs.iter().position(|i| i.name == name);
        let bound = texture::bound(&values.textures, &r.samplers);
        let mut units: [Option<Unit>; 3] = Default::default();
        for t in &texenv.textures {
            let cube = t.kind == TextureKind::Cube;
            let image = bound
                .iter()
                .find(|(b, _)| *b == t.binding)
                .map(|(_, image)| image.clone())
                .unwrap_or_else(|| texture::builtin(t.binding, cube));
            if image.is_cube() != cube {
                return Err(Error::Usage(format!(
                    "the sampler `{}` (binding {}) is a {}; the texture given is a {}",
                    t.sampler,
                    t.binding,
                    if cube { "cube map" } else { "2D texture" },
                    if image.is_cube() {
                        "cube map"
                    } else {
                        "2D texture"
                    },
                )));
            }
            let slot = units
                .get_mut(usize::from(t.unit))
                .ok_or_else(|| Error::Program(format!("texture unit {} does not exist", t.unit)))?;
            *slot = Some(Unit {
                input: index(&t.varying).unwrap_or(usize::MAX),
                image,
                cube,
            });
        }
        let primary = texenv.color.as_ref().and_then(|(name, _)| index(name));
        let mut untested = texenv.clone();
        untested.alpha_test = None;
        Ok(Combiners {
            texenv,
            untested,
            primary,
            units,
        })
    }

    /// One fragment, its varyings in the reflection's order (missing ones read zeros).
    pub fn shade(&self, varyings: &[[f32; 4]]) -> Shaded {
        let varying = |k: usize| varyings.get(k).copied().unwrap_or_default();
        let primary = self
            .primary
            .map_or([0; 4], |k| varying(k).map(|c| sim::to_byte(c.abs())));
        let textures = std::array::from_fn(|u| {
            self.units[u].as_ref().map_or([0; 4], |unit| {
                sample(&unit.image, unit.cube, varying(unit.input)).map(sim::to_byte)
            })
        });
        let inputs = sim::Inputs { primary, textures };
        match sim::run(&self.texenv, &inputs) {
            Some(color) => Shaded {
                color,
                discarded: false,
            },
            None => Shaded {
                color: sim::run(&self.untested, &inputs).unwrap_or_default(),
                discarded: true,
            },
        }
    }

    /// [`Combiners::shade`] as the registers a run writes: the colour (bytes / 255).
    pub fn raw(&self, varyings: &[[f32; 4]]) -> Raw {
        let s = self.shade(varyings);
        let mut raw = Raw::of_outputs(&[s.color.map(|b| f32::from(b) / 255.0)]);
        raw.discarded = s.discarded;
        raw
    }
}

/// The nearest texel of level 0 at `coord`, clamped to the edge: (u, v) of a 2D texture, the
/// direction (u, v, w) of a cube map (faces +X −X +Y −Y +Z −Z, OpenGL's face table).
fn sample(image: &Image, cube: bool, coord: [f32; 4]) -> [f32; 4] {
    let (face, s, t) = if cube {
        cube_face(coord)
    } else {
        (0, coord[0], coord[1])
    };
    let (w, h) = image.size(0);
    let index = |c: f32, n: u32| -> u32 {
        let i = (c * n as f32).floor();
        if i.is_nan() {
            0
        } else {
            i.clamp(0.0, n.saturating_sub(1) as f32) as u32
        }
    };
    image.texel(face, 0, index(s, w), index(t, h))
}

/// The face a direction points at, and its (s, t) in 0…1.
fn cube_face(c: [f32; 4]) -> (u32, f32, f32) {
    let [x, y, z, _] = c;
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, sc, tc, ma) = if ax >= ay && ax >= az {
        if x >= 0.0 {
            (0, -z, -y, ax)
        } else {
            (1, z, -y, ax)
        }
    } else if ay >= az {
        if y >= 0.0 {
            (2, x, z, ay)
        } else {
            (3, x, -z, ay)
        }
    } else if z >= 0.0 {
        (4, x, -y, az)
    } else {
        (5, -x, -y, az)
    };
    if ma == 0.0 {
        return (face, 0.5, 0.5);
    }
    (face, (sc / ma + 1.0) * 0.5, (tc / ma + 1.0) * 0.5)
}

/// How a PICA200 vertex program's outputs become a fragment configuration's varyings when
/// they draw together: by the vertex outputs' semantics, as the rasteriser passes them. The
/// varying read as the colour takes the `color` output (each lane |c| clamped to 0…1 per
/// vertex, before interpolation); a texture coordinate varying takes `texcoordN` (u, v), and
/// for unit 0 `texcoord0w` as w. Lanes no output carries read 0.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// Per fragment input (the reflection's order): per lane, the vertex output register and
    /// lane it comes from.
    lanes: Vec<[Option<(usize, usize)>; 4]>,
    /// The fragment input that is the colour.
    colour: Option<usize>,
}

impl Plan {
    /// The plan for `vertex` feeding `fragment`; an error names a semantic the fragment
    /// configuration reads and no vertex output carries.
    pub fn new(vertex: &Reflection, fragment: &Reflection) -> Result<Plan, Error> {
        // The (register, lane) of each lane of a semantic, in mask order.
        let carried = |semantic: &str| -> Vec<(usize, usize)> {
            vertex
                .outputs
                .iter()
                .filter(|o| o.semantic.as_deref() == Some(semantic))
                .flat_map(|o| {
                    let reg = crate::drive::number(&o.register).unwrap_or(usize::MAX);
                    ['x', 'y', 'z', 'w']
                        .into_iter()
                        .enumerate()
                        .filter(|(_, c)| o.mask.contains(*c))
                        .map(move |(l, _)| (reg, l))
                })
                .collect()
        };
        let mut plan = Plan {
            lanes: Vec::new(),
            colour: None,
        };
        for (k, input) in fragment.inputs.iter().enumerate() {
            let mut lanes = [None; 4];
            let semantic = input.register.split(',').next().unwrap_or("").trim();
            let wanted = match semantic {
                "color" => 4,
                "texcoord0" | "texcoord1" | "texcoord2" => 2,
                _ => 0,
            };
            if wanted > 0 {
                let mut from = carried(semantic);
                if from.is_empty() {
                    return Err(Error::Usage(format!(
                        "the fragment program reads the varying `{}` as `{semantic}`, and no \
                         output of the vertex program carries `{semantic}` (it has {})",
                        input.name,
                        crate::drive::list(
                            vertex
                                .outputs
                                .iter()
                                .map(|o| o.semantic.as_deref().unwrap_or(o.name.as_str()))
                        )
                    )));
                }
                from.truncate(wanted);
                if semantic == "texcoord0" {
                    from.resize(2, (usize::MAX, 0));
                    from.extend(carried("texcoord0w").first());
                }
                for (lane, f) in lanes.iter_mut().zip(from) {
                    *lane = (f.0 != usize::MAX).then_some(f);
                }
            }
            if semantic == "color" {
                plan.colour = Some(k);
            }
            plan.lanes.push(lanes);
        }
        Ok(plan)
    }

    /// The varyings of one vertex, from its output registers.
    pub fn varyings(&self, outputs: &[[f32; 4]]) -> Vec<[f32; 4]> {
        self.lanes
            .iter()
            .enumerate()
            .map(|(k, lanes)| {
                let v = lanes.map(|l| {
                    l.and_then(|(reg, lane)| outputs.get(reg).map(|o| o[lane]))
                        .unwrap_or(0.0)
                });
                if self.colour == Some(k) {
                    v.map(|c| {
                        let c = c.abs();
                        if c.is_nan() { 0.0 } else { c.min(1.0) }
                    })
                } else {
                    v
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_write_through_their_byte_masks_and_padding() {
        // A consecutive command of two parameters (one padding word), then a masked write
        // of the second register alone.
        let words: [u32; 7] = [
            0x1111_1111,
            0x801F_00C0,
            0x2222_2222,
            0,
            0xAABB_CCDD,
            0x0002_00C1,
            0,
        ];
        let bytes: Vec<u8> = words[..6].iter().flat_map(|w| w.to_le_bytes()).collect();
        let regs = execute(&bytes).unwrap();
        assert_eq!(regs[&0x0C0], 0x1111_1111);
        assert_eq!(regs[&0x0C1], 0x2222_CC22);
        assert!(execute(&bytes[..5]).is_err());
        assert!(execute(&bytes[..4]).is_err());
    }

    #[test]
    fn cube_faces_follow_opengl() {
        assert_eq!(cube_face([1.0, 0.0, 0.0, 0.0]), (0, 0.5, 0.5));
        assert_eq!(cube_face([0.0, -2.0, 0.0, 0.0]).0, 3);
        assert_eq!(cube_face([0.1, 0.2, -3.0, 0.0]).0, 5);
        let image = Image::new_2d(2, 2, vec![[0.0; 4], [1.0; 4], [0.5; 4], [0.25; 4]]).unwrap();
        assert_eq!(sample(&image, false, [0.9, 0.1, 0.0, 0.0]), [1.0; 4]);
        assert_eq!(sample(&image, false, [-3.0, 7.0, 0.0, 0.0]), [0.5; 4]);
        assert_eq!(sample(&image, false, [f32::NAN, 0.6, 0.0, 0.0]), [0.5; 4]);
    }
}
