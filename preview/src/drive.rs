//! One run of a program, driven through its reflection as an application drives it.
//!
//! Inputs are placed in the registers the reflection names (`v3`, `va1`, `v0` for an AGAL
//! varying); uniforms from their register and component on, value after value (a `mat4` is 16
//! floats in the order its registers hold them); the literals an AGAL program needs are
//! uploaded from the reflection's `constants` (a PICA200 `.shbin` carries its own). Unset
//! inputs read zeros, unset uniforms zeros, except matrices, which read the identity, and
//! uniforms the source gives a value (the reflection's `default`), which read it. Fragment
//! programs sample the textures given by sampler binding, else the built-in ones.
//!
//! A PICA200 fragment program is the texture combiners' configuration (see
//! [`crate::combiners`]): its inputs are its varyings, by name (the colour varying and the
//! texture coordinates), its uniforms the stage colours, and its one output the colour the
//! combiners compute.

use backend_agal::sim as agal;
use backend_pica::sim as pica;
use machine::reflect::Reflection;

use crate::combiners::Combiners;
use crate::{Error, texture};

/// A compiled program: its bytes and its reflection.
#[derive(Clone, Copy, Debug)]
pub struct Program<'a> {
    /// The `.shbin` or AGAL bytes.
    pub bytes: &'a [u8],
    /// What the compiler said about them.
    pub reflection: &'a Reflection,
}

/// The values a run uses, by name.
#[derive(Clone, Debug, Default)]
pub struct Values {
    /// Inputs: up to four floats each.
    pub inputs: Vec<(String, Vec<f32>)>,
    /// Uniforms: as many floats as they hold.
    pub uniforms: Vec<(String, Vec<f32>)>,
    /// Textures by sampler binding (fragment programs).
    pub textures: Vec<(u32, agal::Image)>,
}

/// A named register's value.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    /// The input's or output's name.
    pub name: String,
    /// Its register, as the reflection spells it.
    pub register: String,
    /// Its four lanes (lanes the output does not carry are 0).
    pub value: [f32; 4],
}

/// A vertex a geometry program emitted.
#[derive(Clone, Debug, PartialEq)]
pub struct Emitted {
    /// SETEMIT's slot.
    pub vertex: u8,
    /// Whether it completed a triangle.
    pub primitive: bool,
    /// Whether that triangle's winding is inverted.
    pub winding: bool,
    /// The outputs, by name.
    pub outputs: Vec<Value>,
}

/// What a run produced.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Outputs {
    /// Every input, with the value it had.
    pub inputs: Vec<Value>,
    /// Every output (of a vertex or fragment program).
    pub outputs: Vec<Value>,
    /// A fragment program discarded the fragment (its outputs are what it computed; for a
    /// PICA200 fragment program, the colour the alpha test discarded).
    pub discarded: bool,
    /// A geometry program's vertices.
    pub emitted: Vec<Emitted>,
    /// Instructions (AGAL: tokens) executed; none for the texture combiners, which run
    /// every stage.
    pub steps: Option<u64>,
}

/// The number in a register's spelling (`vc12` → 12); `None` for `op`, `oc`.
pub(crate) fn number(register: &str) -> Option<usize> {
    let digits = register.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    digits.parse().ok()
}

/// Which machine runs a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Pica,
    PicaFragment,
    AgalVertex,
    AgalFragment,
}

/// A program decoded once, its constant registers filled, ready for many runs.
pub(crate) struct Loaded<'a> {
    pub program: Program<'a>,
    pub kind: Kind,
    pica: Option<pica::Simulator>,
    agal: Option<backend_agal::Program>,
    combiners: Option<Combiners>,
    /// PICA200 uniforms (floats and bools) / AGAL constants.
    pica_uniforms: pica::Uniforms,
    constants: Vec<[f32; 4]>,
    textures: Vec<(u32, agal::Image)>,
    /// Register of each input, in the reflection's order (for a PICA200 fragment program,
    /// its index: its varyings are numbered in that order).
    pub input_registers: Vec<usize>,
}

impl<'a> Loaded<'a> {
    pub fn new(program: Program<'a>, values: &Values) -> Result<Loaded<'a>, Error> {
        let r = program.reflection;
        let kind = match (r.target.as_str(), r.stage.as_str()) {
            ("pica", "fragment") => Kind::PicaFragment,
            ("pica", _) => Kind::Pica,
            ("agal", "vertex") => Kind::AgalVertex,
            ("agal", "fragment") => Kind::AgalFragment,
            (t, s) => {
                return Err(Error::Program(format!(
                    "a {s} program for {t} cannot be run"
                )));
            }
        };
        let mut loaded = Loaded {
            program,
            kind,
            pica: None,
            agal: None,
            combiners: None,
            pica_uniforms: pica::Uniforms::default(),
            constants: vec![[0.0; 4]; 256],
            textures: Vec::new(),
            input_registers: Vec::new(),
        };
        match kind {
            Kind::Pica => {
                loaded.pica = Some(
                    pica::Simulator::new(program.bytes)
                        .map_err(|e| Error::Program(format!("the .shbin does not load: {e}")))?,
                );
            }
            Kind::PicaFragment => {
                loaded.combiners = Some(Combiners::new(program, values)?);
                loaded.input_registers = (0..r.inputs.len()).collect();
                return Ok(loaded);
            }
            _ => {
                loaded.agal =
                    Some(backend_agal::Program::decode(program.bytes).map_err(|e| {
                        Error::Program(format!("the AGAL bytes do not decode: {e}"))
                    })?);
                for c in &r.constants {
                    if let Some(n) = number(&c.register) {
                        if let Some(slot) = loaded.constants.get_mut(n) {
                            *slot = c.value;
                        }
                    }
                }
                if kind == Kind::AgalFragment {
                    loaded.textures = texture::bound(&values.textures, &r.samplers);
                    if loaded.textures.is_empty() {
                        loaded.textures.push((0, texture::builtin(0, false)));
                    }
                }
            }
        }
        for input in &r.inputs {
            loaded
                .input_registers
                .push(number(&input.register).ok_or_else(|| {
                    Error::Program(format!("input `{}` has no register number", input.name))
                })?);
        }
        // Uniforms: identity matrices unless given, then what the user gave.
        for u in &r.uniforms {
            if u.type_name.starts_with("mat") {
                let cols: usize = u
                    .type_name
                    .get(3..4)
                    .and_then(|c| c.parse().ok())
                    .unwrap_or(4);
                let start = number(&u.register).unwrap_or(0);
                for k in 0..u.count as usize {
                    let lane = (k % cols) + usize::from(u.component);
                    loaded.set_float(start + k, lane % 4, 1.0);
                }
            }
        }
        // The source's initial values (GLSL's `uniform float x = 0.5;`), as an
        // application that honours them uploads them.
        for u in &r.uniforms {
            let (Some(default), Some(start)) = (&u.default, number(&u.register)) else {
                continue;
            };
            if u.register.starts_with('b') {
                loaded.pica_uniforms.bool[start.min(15)] =
                    default.first().is_some_and(|&f| f != 0.0);
                continue;
            }
            for (k, &f) in default.iter().enumerate() {
                let at = start * 4 + usize::from(u.component) + k;
                loaded.set_float(at / 4, at % 4, f);
            }
        }
        for (name, floats) in &values.uniforms {
            let Some(u) = r.uniforms.iter().find(|u| u.name == *name) else {
                return Err(Error::Usage(format!(
                    "the program has no uniform `{name}`; it has {}",
                    list(r.uniforms.iter().map(|u| u.name.as_str()))
                )));
            };
            let Some(start) = number(&u.register) else {
                continue;
            };
            let capacity = (u.count as usize * 4).saturating_sub(usize::from(u.component));
            if floats.len() > capacity {
                return Err(Error::Usage(format!(
                    "uniform `{name}` ({}) holds {capacity} floats; {} were given",
                    u.type_name,
                    floats.len()
                )));
            }
            if u.register.starts_with('b') {
                loaded.pica_uniforms.bool[start.min(15)] =
                    floats.first().is_some_and(|&f| f != 0.0);
                continue;
            }
            for (k, &f) in floats.iter().enumerate() {
                let at = start * 4 + usize::from(u.component) + k;
                loaded.set_float(at / 4, at % 4, f);
            }
        }
        Ok(loaded)
    }

    fn set_float(&mut self, register: usize, lane: usize, value: f32) {
        if self.kind == Kind::Pica {
            if let Some(r) = self.pica_uniforms.float.get_mut(register) {
                r[lane] = value;
            }
        } else if let Some(r) = self.constants.get_mut(register) {
            r[lane] = value;
        }
    }

    /// The input registers for `values` (by name; unnamed ones 0).
    pub fn input_file(&self, values: &[(String, Vec<f32>)]) -> Result<Vec<[f32; 4]>, Error> {
        let r = self.program.reflection;
        let mut regs = vec![[0.0f32; 4]; 16];
        for (name, floats) in values {
            let Some(k) = r.inputs.iter().position(|i| i.name == *name) else {
                return Err(Error::Usage(format!(
                    "the program has no input `{name}`; it has {}",
                    list(r.inputs.iter().map(|i| i.name.as_str()))
                )));
            };
            if floats.len() > 4 {
                return Err(Error::Usage(format!(
                    "input `{name}` takes at most 4 values; {} were given",
                    floats.len()
                )));
            }
            let reg = self.input_registers[k];
            if reg >= regs.len() {
                regs.resize(reg + 1, [0.0; 4]);
            }
            for (l, &f) in floats.iter().enumerate() {
                regs[reg][l] = f;
            }
        }
        Ok(regs)
    }

    /// Runs a vertex (or geometry) program on input registers: the output registers.
    pub fn vertex(&self, inputs: &[[f32; 4]]) -> Result<Raw, Error> {
        match self.kind {
            Kind::Pica => self.run_pica(inputs, &self.pica_uniforms),
            Kind::AgalVertex => {
                let program = self.agal.as_ref().expect("loaded");
                let out = agal::run_vertex(
                    program,
                    &agal::VertexInputs {
                        attributes: inputs,
                        constants: &self.constants,
                        instance_id: 0,
                    },
                )
                .map_err(|e| Error::Simulator(e.to_string()))?;
                Ok(Raw {
                    outputs: out.varyings,
                    position: Some(out.position),
                    discarded: false,
                    emitted: Vec::new(),
                    steps: Some(out.steps),
                })
            }
            Kind::AgalFragment | Kind::PicaFragment => {
                let out = self.fragment_quad([inputs; 4])?;
                Ok(out.into_iter().next().expect("four"))
            }
        }
    }

    /// Runs a fixed-mode geometry program (PICA200): its vertex array in `c0…`, where the
    /// geometry unit writes it.
    pub fn geometry_fixed(&self, array: &[[f32; 4]]) -> Result<Raw, Error> {
        let mut uniforms = self.pica_uniforms.clone();
        for (d, s) in uniforms.float.iter_mut().zip(array) {
            *d = *s;
        }
        self.run_pica(&[], &uniforms)
    }

    /// One run of the PICA200 program's first DVLE.
    fn run_pica(&self, inputs: &[[f32; 4]], uniforms: &pica::Uniforms) -> Result<Raw, Error> {
        let sim = self
            .pica
            .as_ref()
            .ok_or_else(|| Error::Program("not a PICA200 program".into()))?;
        let mut v = [[0.0f32; 4]; 16];
        for (d, s) in v.iter_mut().zip(inputs) {
            *d = *s;
        }
        let out = sim
            .run(0, &v, uniforms)
            .map_err(|e| Error::Simulator(e.to_string()))?;
        Ok(Raw {
            outputs: out.outputs.to_vec(),
            position: None,
            discarded: false,
            emitted: out.vertices,
            steps: Some(out.steps),
        })
    }

    /// Runs a fragment program on a 2×2 quad of varying sets.
    pub fn fragment_quad(&self, varyings: [&[[f32; 4]]; 4]) -> Result<[Raw; 4], Error> {
        if let Some(c) = &self.combiners {
            return Ok(varyings.map(|v| c.raw(v)));
        }
        let program = self
            .agal
            .as_ref()
            .ok_or_else(|| Error::Program("not a fragment program".into()))?;
        let textures: Vec<&dyn agal::Texture> = {
            let top = self
                .textures
                .iter()
                .map(|(b, _)| *b)
                .max()
                .map_or(0, |b| b + 1);
            let mut v: Vec<&dyn agal::Texture> = Vec::new();
            for b in 0..top {
                match self.textures.iter().find(|(k, _)| *k == b) {
                    Some((_, img)) => v.push(img),
                    None => v.push(&self.textures[0].1),
                }
            }
            v
        };
        let out = agal::run_fragment_quad(
            program,
            varyings,
            &agal::FragmentInputs {
                constants: &self.constants,
                textures: &textures,
            },
        )
        .map_err(|e| Error::Simulator(e.to_string()))?;
        Ok(out.map(|o| {
            let mut outputs = o.colors.to_vec();
            outputs.push([o.depth.unwrap_or(0.0), 0.0, 0.0, 0.0]);
            Raw {
                outputs,
                position: None,
                discarded: o.discarded,
                emitted: Vec::new(),
                steps: Some(o.steps),
            }
        }))
    }

    /// The value of output `name`'s register in `raw`.
    pub fn output(&self, raw: &Raw, register: &str) -> [f32; 4] {
        output_of(self.kind, raw, register)
    }
}

/// Registers a run wrote.
#[derive(Clone, Debug)]
pub(crate) struct Raw {
    /// `o0…` (PICA200), the varyings `v0…` (AGAL vertex), `oc0…oc3` then `od` (AGAL fragment),
    /// the colour (PICA200 fragment).
    pub outputs: Vec<[f32; 4]>,
    /// `op` (AGAL vertex).
    pub position: Option<[f32; 4]>,
    pub discarded: bool,
    pub emitted: Vec<pica::EmittedVertex>,
    pub steps: Option<u64>,
}

impl Raw {
    /// Output registers alone (a vertex a geometry program emitted).
    pub fn of_outputs(outputs: &[[f32; 4]]) -> Raw {
        Raw {
            outputs: outputs.to_vec(),
            position: None,
            discarded: false,
            emitted: Vec::new(),
            steps: None,
        }
    }
}

fn output_of(kind: Kind, raw: &Raw, register: &str) -> [f32; 4] {
    match (kind, register) {
        (Kind::AgalVertex, "op") => raw.position.unwrap_or_default(),
        (Kind::AgalFragment, "oc") => raw.outputs[0],
        (Kind::AgalFragment, "od") => raw.outputs[4],
        (Kind::PicaFragment, _) => raw.outputs[0],
        _ => number(register)
            .and_then(|n| raw.outputs.get(n).copied())
            .unwrap_or_default(),
    }
}

fn masked(value: [f32; 4], mask: &str) -> [f32; 4] {
    if mask.is_empty() {
        return value;
    }
    std::array::from_fn(|l| {
        if mask.contains(['x', 'y', 'z', 'w'][l]) {
            value[l]
        } else {
            0.0
        }
    })
}

pub(crate) fn list<'s>(names: impl Iterator<Item = &'s str>) -> String {
    let names: Vec<String> = names.map(|n| format!("`{n}`")).collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// Runs `program` once with `values`, and reads every output back by name.
pub fn run(program: Program<'_>, values: &Values) -> Result<Outputs, Error> {
    let loaded = Loaded::new(program, values)?;
    let r = program.reflection;
    let regs = loaded.input_file(&values.inputs)?;
    let raw = loaded.vertex(&regs)?;
    let inputs = r
        .inputs
        .iter()
        .zip(&loaded.input_registers)
        .map(|(i, &reg)| Value {
            name: i.name.clone(),
            register: i.register.clone(),
            value: regs.get(reg).copied().unwrap_or_default(),
        })
        .collect();
    // One value per output: a PICA200 output split over two semantics (`texcoord0` xy,
    // `texcoord0w` z) is one register.
    let mut carried: Vec<(String, String, String)> = Vec::new();
    for o in &r.outputs {
        match carried
            .iter_mut()
            .find(|(n, reg, _)| *n == o.name && *reg == o.register)
        {
            Some((_, _, mask)) => mask.push_str(&o.mask),
            None => carried.push((o.name.clone(), o.register.clone(), o.mask.clone())),
        }
    }
    let named = |raw: &Raw| -> Vec<Value> {
        carried
            .iter()
            .map(|(name, register, mask)| Value {
                name: name.clone(),
                register: register.clone(),
                value: masked(output_of(loaded.kind, raw, register), mask),
            })
            .collect()
    };
    let emitted: Vec<Emitted> = raw
        .emitted
        .iter()
        .map(|e| {
            let as_raw = Raw::of_outputs(&e.outputs);
            Emitted {
                vertex: e.vertex,
                primitive: e.primitive,
                winding: e.winding,
                outputs: named(&as_raw),
            }
        })
        .collect();
    let geometry = r.stage == "geometry";
    Ok(Outputs {
        inputs,
        outputs: if geometry { Vec::new() } else { named(&raw) },
        discarded: raw.discarded,
        emitted,
        steps: raw.steps,
    })
}
