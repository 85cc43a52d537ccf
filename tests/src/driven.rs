//! Driving compiled programs as an application does, through their reflection: register
//! numbers from the reflection's spelling, and the constant registers an application
//! uploads (the literals the reflection lists).

use spv2retro::{Compiled, Profile};

/// The three Stage3D profiles with distinct AGAL versions' code: AGAL 1, 2 and 3.
pub const AGAL_PROFILES: [Profile; 3] = [
    Profile::Baseline,
    Profile::Standard,
    Profile::StandardExtended,
];

/// The number of a register as the reflection spells it (`vc12` is 12, `o1` is 1).
pub fn register_number(register: &str) -> usize {
    let digits = register.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    digits
        .parse()
        .unwrap_or_else(|_| panic!("register {register}"))
}

/// The PICA200 bool registers `b0`–`b15` with the bool uniforms among `uniforms` set (a
/// value other than 0 is true).
pub fn bools_with(c: &Compiled, uniforms: &[(&str, &[f32])]) -> [bool; 16] {
    let mut bools = [false; 16];
    for (name, values) in uniforms {
        let u = c.reflection.uniforms.iter().find(|u| u.name == *name);
        if let Some(u) = u.filter(|u| u.register.starts_with('b')) {
            bools[register_number(&u.register)] = values.first().is_some_and(|&x| x != 0.0);
        }
    }
    bools
}

/// 128 float constant registers holding the literals the reflection lists (the PICA200's
/// integer `i` registers, another file, left out).
pub fn literal_constants(c: &Compiled) -> Vec<[f32; 4]> {
    let mut regs = vec![[0.0f32; 4]; 128];
    for k in c
        .reflection
        .constants
        .iter()
        .filter(|k| !k.register.starts_with('i'))
    {
        regs[register_number(&k.register)] = k.value;
    }
    regs
}

/// The register of the output called `name`.
pub fn output_register(c: &Compiled, name: &str) -> usize {
    let o = c.reflection.outputs.iter().find(|o| o.name == name);
    register_number(&o.unwrap_or_else(|| panic!("no output {name}")).register)
}

/// [`literal_constants`] with the uniforms named in `uniforms` filled in as an application
/// does: each one's floats from its register and component on (two vec2s share a register
/// in std140).
pub fn constants_with(c: &Compiled, uniforms: &[(&str, &[f32])]) -> Vec<[f32; 4]> {
    let mut regs = literal_constants(c);
    for (name, values) in uniforms {
        let u = c.reflection.uniforms.iter().find(|u| u.name == *name);
        let u = u.unwrap_or_else(|| panic!("no uniform {name}: {:?}", c.reflection.uniforms));
        // A PICA200 bool register is not a constant register (see `bools_with`).
        if u.register.starts_with('b') {
            continue;
        }
        let start = register_number(&u.register) * 4 + usize::from(u.component);
        for (k, v) in values.iter().enumerate() {
            regs[(start + k) / 4][(start + k) % 4] = *v;
        }
    }
    regs
}

/// The register of the input called `name`.
pub fn input_register(c: &Compiled, name: &str) -> usize {
    let i = c.reflection.inputs.iter().find(|i| i.name == name);
    register_number(&i.unwrap_or_else(|| panic!("no input {name}")).register)
}

/// The PICA200 simulator's uniforms as an application sets them: the literals, and the
/// uniforms named in `uniforms` (see [`constants_with`] and [`bools_with`]).
pub fn pica_uniforms(c: &Compiled, uniforms: &[(&str, &[f32])]) -> backend_pica::sim::Uniforms {
    let mut u = backend_pica::sim::Uniforms::default();
    for (slot, v) in u.float.iter_mut().zip(constants_with(c, uniforms)) {
        *slot = v;
    }
    u.bool = bools_with(c, uniforms);
    u
}

/// A texture that is a formula of the raw coordinate (the simulator's
/// [`Texture::exact`](backend_agal::sim::Texture::exact)): a test computes the same formula
/// for its expected values, with no filtering, wrapping or mip level in between.
pub struct Formula<F: Fn([f32; 4]) -> [f32; 4]>(pub F);

impl<F: Fn([f32; 4]) -> [f32; 4]> backend_agal::sim::Texture for Formula<F> {
    fn is_cube(&self) -> bool {
        false
    }
    fn levels(&self) -> u32 {
        1
    }
    fn size(&self, _level: u32) -> (u32, u32) {
        (1, 1)
    }
    fn texel(&self, _face: u32, _level: u32, _x: u32, _y: u32) -> [f32; 4] {
        [0.0; 4]
    }
    fn exact(&self, coord: [f32; 4], _bias: f32) -> Option<[f32; 4]> {
        Some((self.0)(coord))
    }
}

/// Runs `c` once through its reflection, as an application binds it: inputs and uniforms by
/// name (the preview's driver; unset inputs read zeros, unset uniforms their `default` or
/// zeros, matrices the identity).
pub fn run_by_name(
    c: &Compiled,
    inputs: &[(&str, Vec<f32>)],
    uniforms: &[(&str, Vec<f32>)],
) -> preview::Outputs {
    let values = preview::Values {
        inputs: inputs
            .iter()
            .map(|(n, v)| (n.to_string(), v.clone()))
            .collect(),
        uniforms: uniforms
            .iter()
            .map(|(n, v)| (n.to_string(), v.clone()))
            .collect(),
        textures: Vec::new(),
    };
    preview::run(
        preview::Program {
            bytes: &c.bytes,
            reflection: &c.reflection,
        },
        &values,
    )
    .unwrap_or_else(|e| panic!("{e}\n{}", c.listing))
}
