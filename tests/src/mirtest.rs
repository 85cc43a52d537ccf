//! Helpers for tests that run MIR: lowering a corpus module, random environments, and a
//! procedural texture.

use frontend_spirv::entry::{self, Stage};
use frontend_spirv::{Input, Options};
use mir::eval::{Env, Lanes, Textures};
use mir::inst::SampleKind;
use mir::module::SamplerId;

/// Loads, validates and lowers `bytes` (its only vertex or fragment entry point).
pub fn lower(bytes: &[u8]) -> Result<mir::Module, String> {
    let valid = frontend_spirv::load(Input::Binary(bytes), &Options::default())
        .map_err(|d| d.render("module", None))?;
    let reason = |_: Stage| String::from("not supported");
    let query = entry::Query {
        name: None,
        stage: None,
        supported: &[Stage::Vertex, Stage::Fragment],
        unsupported_reason: &reason,
    };
    let entry = entry::select(&valid, &query).map_err(|d| d.render("module", None))?;
    let module =
        frontend_spirv::lower::lower(&valid, &entry).map_err(|d| d.render("module", None))?;
    mir::verify::verify(&module).map_err(|e| e.to_string())?;
    Ok(module)
}

/// The shared deterministic generator (xorshift64*): the test kit's.
pub use test_kit::Rng;

/// Owned inputs, uniforms and bools for a run.
pub struct Values {
    /// One value per input.
    pub inputs: Vec<Lanes>,
    /// The float uniform registers.
    pub uniforms: Vec<Lanes>,
    /// The bool uniform registers.
    pub bools: Vec<bool>,
}

impl Values {
    /// Random values for `module`: uniforms either small integers (as indices, counts and
    /// selectors want) or floats in [-2, 2].
    pub fn random(module: &mir::Module, rng: &mut Rng, small_ints: bool) -> Values {
        let inputs = module.inputs.iter().map(|_| rng.lanes(-2.0, 2.0)).collect();
        let registers = module
            .uniforms
            .iter()
            .filter(|u| !u.is_bool)
            .map(|u| u.register + u.count)
            .max()
            .unwrap_or(0) as usize;
        let uniforms = (0..registers)
            .map(|_| {
                if small_ints {
                    let l = rng.lanes(0.0, 4.0);
                    l.map(f32::floor)
                } else {
                    rng.lanes(-2.0, 2.0)
                }
            })
            .collect();
        let bools = (0..16).map(|_| rng.next_u64() & 1 == 1).collect();
        Values {
            inputs,
            uniforms,
            bools,
        }
    }

    /// The environment for `mir::eval::run`.
    pub fn env<'a>(&'a self, textures: &'a dyn Textures) -> Env<'a> {
        Env {
            inputs: &self.inputs,
            uniforms: &self.uniforms,
            bools: &self.bools,
            textures,
        }
    }
}

/// A procedural texture: colour from the coordinates, so that sampling is checkable.
pub struct Procedural;

impl Textures for Procedural {
    fn sample(&self, sampler: SamplerId, coord: Lanes, kind: SampleKind, lod: f32) -> Lanes {
        let lod = match kind {
            SampleKind::Implicit => 0.0,
            _ => lod,
        };
        let s = sampler.index() as f32;
        [
            (coord[0] * 3.0 + s).sin() * 0.5 + 0.5,
            (coord[1] * 2.0 - s).cos() * 0.5 + 0.5,
            (coord[2] + lod).fract().abs(),
            1.0,
        ]
    }
}

/// Whether two results agree within a relative tolerance (NaN equals NaN): the test kit's.
pub use test_kit::close;
