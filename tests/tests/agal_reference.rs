//! Every corpus shader compiled to AGAL for the baseline profile (AGAL 1) and the standard
//! profile (AGAL 2), validated by the in-tree Flash validator, decoded and run in the AGAL
//! simulator, and compared with the independent references of `tests::reference` (raw and
//! spirv-opt'd glslang output). Shaders that need what AGAL lacks are compiled too, and must
//! fail with the error that says so.

use backend_agal::Stage;
use backend_agal::codegen::{Compiled, Options, Packing, compile};
use backend_agal::limits::Profile;
use backend_agal::operand::RegType;
use backend_agal::sampler::Dimension;
use backend_agal::sim::{
    FragmentInputs, Texture, Textures as SimTextures, Vec4, VertexInputs, run_fragment, run_vertex,
};
use backend_agal::{Program, validate};
use mir::eval::{Outcome, Textures};
use mir::inst::SampleKind;
use mir::module::SamplerId;
use tests::mirtest::lower;
use tests::reference::{self, Case, Prepared, Runner, fixture_modules, shaders::*};

/// The AGAL back end for one profile, and its simulator.
/// The AGAL back end for a profile, packing lanes when told, and its simulator.
struct Agal(Profile, Packing);

struct Run {
    compiled: Compiled,
    /// The program decoded from the bytes (what the simulator runs).
    program: Program,
}

/// A texture the simulator samples by the reference's own formula at the raw coordinate
/// (`Texture::exact`), so that values compare without texel quantisation.
struct Exact<'a> {
    id: SamplerId,
    cube: bool,
    inner: &'a dyn Textures,
}

impl Texture for Exact<'_> {
    fn is_cube(&self) -> bool {
        self.cube
    }
    fn levels(&self) -> u32 {
        1
    }
    fn size(&self, _level: u32) -> (u32, u32) {
        (1, 1)
    }
    fn texel(&self, _face: u32, _level: u32, _x: u32, _y: u32) -> Vec4 {
        [0.0; 4]
    }
    fn exact(&self, coord: Vec4, bias: f32) -> Option<Vec4> {
        let kind = if bias == 0.0 {
            SampleKind::Implicit
        } else {
            SampleKind::Bias
        };
        Some(self.inner.sample(self.id, coord, kind, bias))
    }
}

/// The module's samplers at their bindings.
struct Bound<'a>(Vec<(u32, Exact<'a>)>);

impl SimTextures for Bound<'_> {
    fn texture(&self, sampler: u16) -> Option<&dyn Texture> {
        self.0
            .iter()
            .find(|(b, _)| *b == u32::from(sampler))
            .map(|(_, t)| t as &dyn Texture)
    }
}

impl Prepared for Run {
    fn run(&self, case: &Case, textures: &dyn Textures) -> Result<Outcome, String> {
        let c = &self.compiled;
        // As an application loads them: uniforms by register, bool uniforms as 1.0 / 0.0 in
        // their registers, then the literal pool the reflection lists.
        let mut constants: Vec<Vec4> = case.uniforms.to_vec();
        let mut put = |reg: usize, v: Vec4| {
            if constants.len() <= reg {
                constants.resize(reg + 1, [0.0; 4]);
            }
            constants[reg] = v;
        };
        for &(b, reg) in &c.bool_registers {
            let on = case.bools.get(b as usize).copied().unwrap_or(false);
            put(reg as usize, [if on { 1.0 } else { 0.0 }, 0.0, 0.0, 0.0]);
        }
        for &(reg, v) in &c.constants {
            put(usize::from(reg), v);
        }
        let mut inputs = vec![[0.0f32; 4]; 16];
        for (k, &(_, n)) in c.interface.inputs.iter().enumerate() {
            inputs[usize::from(n)] = case.inputs[k];
        }
        match self.program.stage {
            Stage::Vertex => {
                let out = run_vertex(
                    &self.program,
                    &VertexInputs {
                        attributes: &inputs,
                        constants: &constants,
                        instance_id: 0,
                    },
                )
                .map_err(|e| e.to_string())?;
                let values = c
                    .interface
                    .outputs
                    .iter()
                    .map(|slot| match slot {
                        Some(o) if o.reg == RegType::Varying => out.varyings[usize::from(o.index)],
                        Some(_) => out.position,
                        None => [0.0; 4],
                    })
                    .collect();
                Ok(Outcome::Outputs(values))
            }
            Stage::Fragment => {
                // The interface lists the samplers in the module's order (their MIR ids).
                let bound = Bound(
                    c.interface
                        .samplers
                        .iter()
                        .enumerate()
                        .map(|(i, s)| {
                            (
                                u32::from(s.index),
                                Exact {
                                    id: SamplerId::new(i),
                                    cube: s.dimension == Dimension::Cube,
                                    inner: textures,
                                },
                            )
                        })
                        .collect(),
                );
                let out = run_fragment(
                    &self.program,
                    &inputs,
                    &FragmentInputs {
                        constants: &constants,
                        textures: &bound,
                    },
                )
                .map_err(|e| e.to_string())?;
                if out.discarded {
                    return Ok(Outcome::Discarded);
                }
                let values = c
                    .interface
                    .outputs
                    .iter()
                    .map(|slot| match slot {
                        Some(o) if o.reg == RegType::Depth => {
                            [out.depth.unwrap_or(f32::NAN), 0.0, 0.0, 0.0]
                        }
                        Some(o) => out.colors[usize::from(o.index)],
                        None => [0.0; 4],
                    })
                    .collect();
                Ok(Outcome::Outputs(values))
            }
        }
    }
}

impl Runner for Agal {
    fn name(&self) -> String {
        match self.1 {
            Packing::Always => format!("AGAL simulator ({}, lanes packed)", self.0),
            _ => format!("AGAL simulator ({})", self.0),
        }
    }

    /// float32 throughout, like the MIR interpreter, but with AGAL's own `sin`, `cos`, `pow`,
    /// `nrm` and the expansions (floor through `frc`, blends of flattened `if`s) rounding
    /// differently.
    fn tolerance(&self) -> f32 {
        2e-4
    }

    fn prepare(&self, module: &mir::Module) -> Result<Box<dyn Prepared>, String> {
        let options = Options {
            profile: self.0,
            packing: self.1,
            ..Options::default()
        };
        let compiled = compile(module, &options).map_err(|e| e.render("", None))?;
        validate(&compiled.bytes, self.0).map_err(|e| format!("{e:?}"))?;
        let program = Program::decode(&compiled.bytes).map_err(|e| e.to_string())?;
        Ok(Box::new(Run { compiled, program }))
    }
}

/// Shaders AGAL cannot compile in any profile, with the words the error must contain.
fn rejected(stem: &str) -> Option<&'static str> {
    match stem {
        // `while (true)` with the counter stepped in the body and a compound exit test.
        "while_waves.vert" => Some("AGAL has no loop instructions"),
        "texture_lookups.frag" => Some("computed LOD bias"),
        "tonemap.ps.hlsl" => Some("explicit level of detail"),
        _ => None,
    }
}

/// Runs the reference through the baseline (AGAL 1) and standard (AGAL 2) programs of the
/// shader's raw and optimised SPIR-V; a shader AGAL cannot express must fail in both, for
/// its reason.
fn agal_check(stem: &str, reference: reference::Reference, paths: &[&str]) {
    agal_check_modules(
        stem,
        reference,
        paths,
        &fixture_modules(stem),
        rejected(stem),
    );
}

fn agal_check_modules(
    stem: &str,
    reference: reference::Reference,
    paths: &[&str],
    modules: &[(String, Vec<u8>)],
    rejection: Option<&str>,
) {
    // As users get them, and with every small value lane-packed (users get packing only
    // when a program needs more temporaries than the profile has).
    let profiles = [
        Agal(Profile::Baseline, Packing::WhenNeeded),
        Agal(Profile::Standard, Packing::WhenNeeded),
        Agal(Profile::Baseline, Packing::Always),
        Agal(Profile::Standard, Packing::Always),
    ];
    let mut runners: Vec<&dyn Runner> = Vec::new();
    for runner in &profiles {
        match rejection {
            None => runners.push(runner),
            Some(why) => {
                for (file, bytes) in modules {
                    let m = lower(bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
                    let options = Options {
                        profile: runner.0,
                        ..Options::default()
                    };
                    match compile(&m, &options) {
                        Ok(_) => panic!("{file} ({}): compiled, expected `{why}`", runner.0),
                        Err(e) => {
                            let text = e.render(file, None);
                            assert!(text.contains(why), "{file} ({}): {text}", runner.0);
                        }
                    }
                }
            }
        }
    }
    if !runners.is_empty() {
        reference::check(stem, reference, paths, modules, &runners);
    }
}

macro_rules! agal_tests {
    ($($test:ident: $stem:literal => $reference:ident [$($path:literal),*];)*) => {
        $(
            #[test]
            fn $test() {
                agal_check($stem, $reference, &[$($path),*]);
            }
        )*
    };
}

tests::for_each_shader!(agal_tests);

/// The vertex shaders as naga's GLSL front end and SPIR-V writer make them: another
/// producer's habits.
mod naga {
    use super::*;
    use tests::reference::naga_module;

    macro_rules! naga_tests {
        ($($test:ident: $stem:literal => $reference:ident [$($path:literal),*];)*) => {
            $(
                #[test]
                fn $test() {
                    agal_check_modules(
                        $stem,
                        $reference,
                        &[$($path),*],
                        &naga_module($stem),
                        rejected_naga($stem),
                    );
                }
            )*
        };
    }

    /// The library's GLSL input turns naga's loop bounding off, so naga's counted loops
    /// unroll like glslang's, and the same shaders are refused.
    fn rejected_naga(stem: &str) -> Option<&'static str> {
        rejected(stem)
    }

    tests::for_each_naga_shader!(naga_tests);
}

// ------------------------------------------------------------------------------------------
// What Stage3D libraries hand-write, in GLSL: at most their instruction counts, and the
// programs compute what the library's shaders compute.
// ------------------------------------------------------------------------------------------

mod stage3d {
    use super::*;
    use tests::reference::maths::*;
    use tests::reference::{Ctx, Expect, RM, loc, outputs, pos};

    /// Starling MeshEffect (textured): `m44 op, va0, vc0`, `mov v0, va1`, `mul v1, va2, vc4`.
    fn mesh(c: &mut Ctx) -> Option<Expect> {
        let m: Mat<4, 4> = c.rmat(-2.0, 2.0);
        c.set_mat("mvpMatrix", RM, &m);
        let alpha: V4 = c.v(0.0, 1.0);
        c.set("alpha", &alpha);
        let p: V4 = c.v(-100.0, 100.0);
        let tc: V2 = c.v(0.0, 1.0);
        let color: V4 = c.v(0.0, 1.0);
        c.input(0, &p);
        c.input(1, &tc);
        c.input(2, &color);
        outputs(vec![
            pos(mv(&m, p)),
            loc(0, &tc),
            loc(1, &mul(color, alpha)),
        ])
    }

    /// Starling ColorMatrixFilter: un-premultiply, matrix and offset, premultiply.
    fn color_matrix(c: &mut Ctx) -> Option<Expect> {
        let m: Mat<4, 4> = c.rmat(-1.0, 1.0);
        c.set_mat("matrix", RM, &m);
        let offset: V4 = c.v(-0.5, 0.5);
        c.set("offset", &offset);
        let min_color: V4 = [0.0, 0.0, 0.0, c.f(0.0001, 0.01)];
        c.set("minColor", &min_color);
        let tc: V2 = c.v(-1.0, 2.0);
        c.input(0, &tc);
        let t = c.tex2d("inputTexture", tc, 0.0);
        let k: V4 = std::array::from_fn(|i| t[i].max(min_color[i]));
        let straight = [k[0] / k[3], k[1] / k[3], k[2] / k[3], k[3]];
        let r = add(mv(&m, straight), offset);
        outputs(vec![loc(0, &[r[0] * r[3], r[1] * r[3], r[2] * r[3], r[3]])])
    }

    /// Starling BlurFilter: five weighted taps at coordinates the vertex program computed.
    fn blur(c: &mut Ctx) -> Option<Expect> {
        let w: V4 = c.v(0.0, 1.0);
        c.set("weights", &w);
        let uv: [V2; 5] = std::array::from_fn(|_| c.v(-1.0, 2.0));
        for (l, p) in uv.iter().enumerate() {
            c.input(l as u32, p);
        }
        let t = |p: V2| c.tex2d("source", p, 0.0);
        let mut sum = sc(t(uv[0]), w[0]);
        for (p, weight) in uv[1..].iter().zip([w[2], w[1], w[1], w[2]]) {
            sum = add(sum, sc(t(*p), weight));
        }
        outputs(vec![loc(0, &sum)])
    }

    /// Away3D SkyBoxPass: `m44 vt7, va0, vc0`, `mul op, vt7, vc4`, `mov v0, va0`.
    fn skybox(c: &mut Ctx) -> Option<Expect> {
        let vp: Mat<4, 4> = c.rmat(-2.0, 2.0);
        c.set_mat("viewProjection", RM, &vp);
        let scale: V4 = c.v(0.5, 2.0);
        c.set("scale", &scale);
        let p: V4 = c.v(-1.0, 1.0);
        c.input(0, &p);
        outputs(vec![pos(mul(mv(&vp, p), scale)), loc(0, &xyz(p))])
    }

    /// Each shader, its reference (`None`: the corpus test runs it), and the library's
    /// hand-written instruction count.
    const SHADERS: [(&str, Option<reference::Reference>, usize); 6] = [
        ("stage3d_mesh.vert", Some(mesh), 3),
        ("starling_mesh.frag", None, 2),
        ("stage3d_color_matrix.frag", Some(color_matrix), 7),
        ("stage3d_blur.frag", Some(blur), 14),
        ("stage3d_skybox.vert", Some(skybox), 3),
        ("skybox.frag", None, 2),
    ];

    #[test]
    fn hand_written_counts_are_met_in_every_profile() {
        let mut table = Vec::new();
        for (stem, _, hand) in SHADERS {
            for (file, bytes) in fixture_modules(stem) {
                let m = lower(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
                for profile in Profile::ALL {
                    let options = Options {
                        profile,
                        ..Options::default()
                    };
                    let compiled = compile(&m, &options)
                        .unwrap_or_else(|e| panic!("{file} ({profile}): {}", e.render("", None)));
                    let n = compiled.program.instructions.len();
                    assert!(
                        n <= hand,
                        "{file} ({profile}): {n} instructions, the hand-written program has \
                         {hand}:\n{}",
                        compiled.listing()
                    );
                    table.push(format!("{file} {profile}: {n} (by hand {hand})"));
                }
            }
        }
        eprintln!("{}", table.join("\n"));
    }

    #[test]
    fn the_mirrors_compute_what_the_libraries_compute() {
        for (stem, reference, _) in SHADERS {
            if let Some(r) = reference {
                agal_check(stem, r, &[]);
            }
        }
    }
}

/// Lane packing's programs compute the same: particles_scalar fits baselineConstrained's
/// seven temporaries only packed, builtins baseline's eight (also run in the corpus test).
#[test]
fn packed_programs_compute_the_reference() {
    for (stem, reference, profile) in [
        (
            "particles_scalar.vert",
            particles_scalar as reference::Reference,
            Profile::BaselineConstrained,
        ),
        ("builtins.vert", builtins, Profile::Baseline),
    ] {
        let modules = fixture_modules(stem);
        for (file, bytes) in &modules {
            let m = lower(bytes).unwrap();
            let c = compile(
                &m,
                &Options {
                    profile,
                    ..Options::default()
                },
            )
            .unwrap();
            assert!(c.packed_lanes, "{file} ({profile}) is packed");
        }
        let paths: &[&str] = if stem == "builtins.vert" {
            &["on", "off"]
        } else {
            &[]
        };
        reference::check(
            stem,
            reference,
            paths,
            &modules,
            &[&Agal(profile, Packing::WhenNeeded)],
        );
    }
}
