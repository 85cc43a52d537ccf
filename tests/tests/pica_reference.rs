//! Every corpus vertex shader compiled for the PICA200 and run in its simulator (which
//! decodes the `.shbin` bytes) against the independent references of `tests::reference`:
//! the raw and spirv-opt'd glslang output and naga's, with the f24 tolerance. Each runs
//! twice: as users get it, and with every small value lane-packed (the machine layer's
//! packing, which users get only when a program needs more than sixteen temporaries).

use backend_pica::codegen::{Options, Packing, compile};
use backend_pica::shbin::Semantic;
use backend_pica::sim::{Simulator, Uniforms};
use mir::eval::{Outcome, Textures};
use tests::reference::{self, Case, Prepared, Runner, fixture_modules, naga_module, shaders::*};

/// The PICA200 back end and its simulator, packing lanes when told.
struct Pica(Packing);

/// The two ways every shader runs.
const RUNNERS: [&dyn Runner; 2] = [&Pica(Packing::WhenNeeded), &Pica(Packing::Always)];

struct Compiled {
    module: mir::Module,
    program: backend_pica::codegen::Compiled,
    sim: Simulator,
}

impl Prepared for Compiled {
    fn run(&self, case: &Case, _textures: &dyn Textures) -> Result<Outcome, String> {
        // As an application loads them: inputs by location, uniforms by register.
        let mut inputs = [[0.0f32; 4]; 16];
        for (i, (_, input)) in self.module.inputs.iter().enumerate() {
            inputs[input.location as usize] = case.inputs[i];
        }
        let mut u = Uniforms::default();
        for (slot, v) in u.float.iter_mut().zip(case.uniforms) {
            *slot = *v;
        }
        for (slot, b) in u.bool.iter_mut().zip(case.bools) {
            *slot = *b;
        }
        let out = self.sim.run(0, &inputs, &u).map_err(|e| e.to_string())?;
        if !out.missing.is_empty() {
            return Err(format!("outputs never written: {:?}", out.missing));
        }
        let values = self
            .program
            .outputs
            .iter()
            .map(|slot| match slot {
                Some((reg, _)) => out.outputs[*reg as usize],
                None => [0.0; 4],
            })
            .collect();
        Ok(Outcome::Outputs(values))
    }
}

impl Runner for Pica {
    fn name(&self) -> String {
        match self.0 {
            Packing::Always => "PICA200 simulator, lanes packed".into(),
            _ => "PICA200 simulator".into(),
        }
    }

    /// f24 arithmetic keeps 16 mantissa bits (7.6e-6 relative per operation, inputs and
    /// uniforms rounded too); the longest chains here (sin/cos polynomials, normalised
    /// vectors raised to powers) stay within 2e-3.
    fn tolerance(&self) -> f32 {
        2e-3
    }

    fn accepts(&self, module: &mir::Module) -> bool {
        module.stage == mir::Stage::Vertex
    }

    fn prepare(&self, module: &mir::Module) -> Result<Box<dyn Prepared>, String> {
        // A vec4 at a location whose default semantic takes fewer components (Starling's
        // colour at location 1, a texture coordinate on the PICA200) gets a four-component
        // semantic, as its user would ask with --semantic, so every lane can be checked.
        let semantics = module
            .outputs
            .iter()
            .filter_map(|o| match o.location {
                Some(l @ (1..=3 | 5)) if o.lanes == 4 => Some((l, Semantic::NormalQuat)),
                _ => None,
            })
            .collect();
        let options = Options {
            semantics,
            packing: self.0,
            ..Options::default()
        };
        let program = compile(module, &options).map_err(|e| e.render("", None))?;
        let sim = Simulator::new(&program.bytes).map_err(|e| e.to_string())?;
        Ok(Box::new(Compiled {
            module: module.clone(),
            program,
            sim,
        }))
    }
}

macro_rules! pica_tests {
    ($($test:ident: $stem:literal => $reference:ident [$($path:literal),*];)*) => {
        $(
            #[test]
            fn $test() {
                reference::check($stem, $reference, &[$($path),*], &fixture_modules($stem), &RUNNERS);
            }
        )*
    };
}

tests::for_each_shader!(pica_tests);

mod naga {
    use super::*;

    macro_rules! naga_tests {
        ($($test:ident: $stem:literal => $reference:ident [$($path:literal),*];)*) => {
            $(
                #[test]
                fn $test() {
                    reference::check($stem, $reference, &[$($path),*], &naga_module($stem), &RUNNERS);
                }
            )*
        };
    }

    tests::for_each_naga_shader!(naga_tests);
}
