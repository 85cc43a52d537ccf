//! Independent references for the corpus shaders, and the harness that runs a compiled
//! form of each shader (the MIR interpreter, or a back end and its simulator) against them.
//!
//! `.opt.spv`, and for the vertex shaders also the SPIR-V naga makes of the source), random inputs and uniforms are fed to the MIR interpreter, before and after
//! `mir::passes::optimize`, and every output is compared with a value this file computes in
//! plain Rust (f64) by re-implementing the GLSL/HLSL source, independently of the compiler.
//!
//! How values get in: inputs by location (their index in `module.inputs` is looked up), uniforms
//! by reflection name (register and component from `module.uniforms`, matrices stored by the
//! layout the source declares, which is checked against the reflection), loose `uniform bool`s
//! in the bool registers. Every register and every input lane the shader should not read holds
//! large garbage, so reading the wrong register or lane shows. Cases whose result would hinge on
//! rounding (a value at a branch threshold, normalising a near-zero vector) are re-drawn.
//!
//! Textures: `SmoothTextures` below rather than `mirtest::Procedural`, because the latter has
//! alpha ≡ 1 (so alpha tests, alpha-weighted maths and distance fields would not see the texel's
//! alpha), has a `fract` discontinuity in blue, and depends on the third coordinate lane even for
//! 2D samplers (where the hardware ignores it). `SmoothTextures` is a deterministic, smooth
//! function of (u, v) for 2D and of the direction for cube maps, with a level-of-detail term.
//!
//! A [`Runner`] turns a lowered module into something that runs a case; [`check`] draws the
//! cases, runs every runner on each and compares. The shader table is a macro,
//! [`for_each_shader!`](crate::for_each_shader), so each test file makes its own `#[test]`s
//! from the one list.

#![allow(clippy::needless_range_loop)] // index-based matrix and lane maths reads closest to GLSL

pub mod maths;
pub mod shaders;

use std::array::from_fn;

use mir::eval::{Lanes, Outcome, Textures};
use mir::inst::SampleKind;
use mir::module::{MatrixLayout, SamplerId, TextureDim};

use crate::fixtures;
use crate::mirtest::{Rng, close, lower};
use maths::*;

/// Random cases compared per fixture file.
pub const CASES: usize = 250;

/// A column-major matrix (one column per register).
pub const CM: MatrixLayout = MatrixLayout::ColumnMajor;
/// A row-major matrix (one row per register).
pub const RM: MatrixLayout = MatrixLayout::RowMajor;

// ------------------------------------------------------------------------------------------
// The texture: smooth and deterministic; 2D ignores lanes past v, cube uses the direction.
// ------------------------------------------------------------------------------------------

pub fn texel(sampler: usize, c: V3, lod: f64) -> V4 {
    let s = sampler as f64;
    [
        0.5 + 0.5 * (3.0 * c[0] + s).sin(),
        0.5 + 0.5 * (2.0 * c[1] - s).cos(),
        0.5 + 0.5 * (1.3 * c[2] + 0.7 * lod + 0.5 * s).sin(),
        0.55 + 0.45 * (1.7 * c[0] + 2.3 * c[1] - 0.9 * c[2] + s).sin(),
    ]
}

pub struct SmoothTextures<'m> {
    /// The module whose samplers' dimensions decide the coordinates.
    pub module: &'m mir::Module,
}

impl Textures for SmoothTextures<'_> {
    fn sample(&self, sampler: SamplerId, coord: Lanes, kind: SampleKind, lod: f32) -> Lanes {
        let lod = if kind == SampleKind::Implicit {
            0.0
        } else {
            lod as f64
        };
        let c = coord.map(f64::from);
        let c = match self.module.samplers[sampler].dim {
            TextureDim::D2 => [c[0], c[1], 0.0],
            TextureDim::Cube => normalize([c[0], c[1], c[2]]),
        };
        texel(sampler.index(), c, lod).map(|x| x as f32)
    }
}

// ------------------------------------------------------------------------------------------
// The harness.
// ------------------------------------------------------------------------------------------

/// Which output an expected value is for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Key {
    /// `gl_Position`.
    Position,
    /// The output at a location.
    Location(u32),
}

/// What a case must produce.
pub enum Expect {
    /// These output values.
    Outputs(Vec<(Key, Vec<f64>)>),
    /// A discarded fragment.
    Discard,
}

pub fn pos(v: V4) -> (Key, Vec<f64>) {
    (Key::Position, v.to_vec())
}
pub fn loc(l: u32, v: &[f64]) -> (Key, Vec<f64>) {
    (Key::Location(l), v.to_vec())
}
pub fn outputs(list: Vec<(Key, Vec<f64>)>) -> Option<Expect> {
    Some(Expect::Outputs(list))
}

/// One case being built: the values the module will read, and a log of what was set.
pub struct Ctx<'a> {
    module: &'a mir::Module,
    rng: &'a mut Rng,
    /// The inputs, in the module's input order.
    pub inputs: Vec<Lanes>,
    /// The float uniform registers.
    pub uniforms: Vec<Lanes>,
    /// The bool uniform registers.
    pub bools: Vec<bool>,
    /// What the reference set, for messages.
    pub log: Vec<String>,
    /// The branches the reference took (checked against the ones each shader must reach).
    pub paths: Vec<String>,
}

impl<'a> Ctx<'a> {
    pub fn new(module: &'a mir::Module, rng: &'a mut Rng) -> Self {
        // Garbage everywhere; the reference sets what the shader reads.
        let inputs = module
            .inputs
            .iter()
            .map(|_| rng.lanes(-90.0, 90.0))
            .collect();
        let registers = module
            .uniforms
            .iter()
            .filter(|u| !u.is_bool)
            .map(|u| u.register + u.count)
            .max()
            .unwrap_or(0) as usize;
        let uniforms = (0..registers).map(|_| rng.lanes(-90.0, 90.0)).collect();
        let bools = (0..16).map(|_| rng.next_u64() & 1 == 1).collect();
        Ctx {
            module,
            rng,
            inputs,
            uniforms,
            bools,
            log: Vec::new(),
            paths: Vec::new(),
        }
    }

    // --- random values, all exactly representable in f32 ---

    pub fn f(&mut self, lo: f64, hi: f64) -> f64 {
        self.rng.float(lo as f32, hi as f32) as f64
    }
    pub fn v<const N: usize>(&mut self, lo: f64, hi: f64) -> [f64; N] {
        from_fn(|_| self.f(lo, hi))
    }
    pub fn rmat<const C: usize, const R: usize>(&mut self, lo: f64, hi: f64) -> Mat<C, R> {
        from_fn(|_| self.v(lo, hi))
    }
    /// An integer in `lo..=hi`.
    pub fn int(&mut self, lo: i32, hi: i32) -> i32 {
        lo + (self.rng.next_u64() % (hi - lo + 1) as u64) as i32
    }
    pub fn coin(&mut self) -> bool {
        self.rng.next_u64() & 1 == 1
    }
    pub fn pick(&mut self, choices: &[f64]) -> f64 {
        choices[(self.rng.next_u64() % choices.len() as u64) as usize]
    }

    /// Records that this case takes the branch `label`.
    pub fn path(&mut self, label: impl Into<String>) {
        self.paths.push(label.into());
    }

    // --- setting values ---

    /// The input at `location` (at least the lanes the module says it reads).
    pub fn input(&mut self, location: u32, v: &[f64]) {
        let (id, input) = self
            .module
            .inputs
            .iter()
            .find(|(_, i)| i.location == location)
            .unwrap_or_else(|| panic!("no input at location {location}"));
        assert!(
            v.len() >= input.lanes as usize,
            "input {} reads {} lanes, the reference gives {}",
            input.name,
            input.lanes,
            v.len()
        );
        for (l, x) in v.iter().enumerate() {
            self.inputs[id.index()][l] = *x as f32;
        }
        self.log
            .push(format!("in@{location} {} = {v:?}", input.name));
    }

    pub fn uniform(&self, name: &str) -> &'a mir::module::Uniform {
        self.module
            .uniforms
            .iter()
            .find(|u| u.name == name)
            .unwrap_or_else(|| panic!("no uniform {name:?} in the reflection"))
    }

    /// Element `index` of the uniform `name` (a scalar, vector, or array of them).
    pub fn set_at(&mut self, name: &str, index: u32, v: &[f64]) {
        let u = self.uniform(name);
        assert!(!u.is_bool, "{name} is a bool register");
        let len = array_len(&u.type_name);
        assert!(index < len, "{name}[{index}] out of range");
        let register = (u.register + index * (u.count / len)) as usize;
        assert!(
            u.component as usize + v.len() <= 4,
            "{name}: too many lanes"
        );
        for (l, x) in v.iter().enumerate() {
            self.uniforms[register][u.component as usize + l] = *x as f32;
        }
        self.log.push(format!("{name}[{index}] = {v:?}"));
    }
    pub fn set(&mut self, name: &str, v: &[f64]) {
        self.set_at(name, 0, v);
    }

    /// Element `index` of the matrix (array) uniform `name`, stored with `layout` (what the
    /// source declares; the reflection must agree): one column or one row per register.
    pub fn set_mat_at<const C: usize, const R: usize>(
        &mut self,
        name: &str,
        index: u32,
        layout: MatrixLayout,
        m: &Mat<C, R>,
    ) {
        let u = self.uniform(name);
        assert_eq!(
            u.layout,
            Some(layout),
            "{name}: matrix layout in the reflection"
        );
        let len = array_len(&u.type_name);
        assert!(index < len, "{name}[{index}] out of range");
        let stride = u.count / len;
        let base = (u.register + index * stride) as usize;
        assert_eq!(u.component, 0);
        match layout {
            MatrixLayout::ColumnMajor => {
                assert_eq!(stride as usize, C, "{name}: one register per column");
                for c in 0..C {
                    for r in 0..R {
                        self.uniforms[base + c][r] = m[c][r] as f32;
                    }
                }
            }
            MatrixLayout::RowMajor => {
                assert_eq!(stride as usize, R, "{name}: one register per row");
                for r in 0..R {
                    for c in 0..C {
                        self.uniforms[base + r][c] = m[c][r] as f32;
                    }
                }
            }
        }
        self.log
            .push(format!("{name}[{index}] ({layout:?}, columns) = {m:?}"));
    }
    pub fn set_mat<const C: usize, const R: usize>(
        &mut self,
        name: &str,
        layout: MatrixLayout,
        m: &Mat<C, R>,
    ) {
        self.set_mat_at(name, 0, layout, m);
    }
    /// An HLSL matrix (`m[row][column]`, HLSL's default column_major packing: one HLSL column
    /// per register). glslang gives SPIR-V the transpose, decorated RowMajor.
    pub fn set_hlsl_mat<const R: usize, const C: usize>(
        &mut self,
        name: &str,
        index: u32,
        m: &[[f64; C]; R],
    ) {
        // The SPIR-V matrix has the HLSL rows as its columns; RowMajor stores its rows, which
        // are the HLSL columns.
        self.set_mat_at::<R, C>(name, index, RM, m);
    }

    /// A loose `uniform bool` (a bool register).
    pub fn loose_bool(&mut self, name: &str, b: bool) {
        let u = self.uniform(name);
        assert!(u.is_bool, "{name} should be a bool register");
        self.bools[u.register as usize] = b;
        self.log.push(format!("{name} (b{}) = {b}", u.register));
    }

    // --- textures, as the reference reads them ---

    pub fn sampler(&self, name: &str) -> (usize, TextureDim) {
        let (id, s) = self
            .module
            .samplers
            .iter()
            .find(|(_, s)| s.name == name)
            .unwrap_or_else(|| panic!("no sampler {name:?}"));
        (id.index(), s.dim)
    }
    pub fn tex2d(&self, name: &str, uv: V2, lod: f64) -> V4 {
        let (index, dim) = self.sampler(name);
        assert_eq!(dim, TextureDim::D2, "{name}");
        texel(index, [uv[0], uv[1], 0.0], lod)
    }
    pub fn tex_cube(&self, name: &str, dir: V3) -> V4 {
        let (index, dim) = self.sampler(name);
        assert_eq!(dim, TextureDim::Cube, "{name}");
        texel(index, normalize(dir), 0.0)
    }
}

/// `N` for a `...[N]` type name, else 1.
pub fn array_len(type_name: &str) -> u32 {
    type_name
        .strip_suffix(']')
        .and_then(|t| t.rsplit_once('['))
        .map_or(1, |(_, n)| n.parse().expect("array length"))
}

pub type Reference = fn(&mut Ctx) -> Option<Expect>;

pub fn seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    }) | 1
}

/// Compares `outcome` with `expect`; `Err` describes the first difference.
pub fn compare(
    module: &mir::Module,
    outcome: &Outcome,
    expect: &Expect,
    tolerance: f32,
) -> Result<(), String> {
    match (outcome, expect) {
        (Outcome::Discarded, Expect::Discard) => Ok(()),
        (Outcome::Outputs(got), Expect::Outputs(want)) => {
            if got.len() != want.len() || module.outputs.len() != want.len() {
                return Err(format!(
                    "{} outputs, the reference has {}",
                    module.outputs.len(),
                    want.len()
                ));
            }
            for (output, value) in module.outputs.iter().zip(got) {
                let key = match (output.builtin, output.location) {
                    (Some(mir::module::BuiltIn::Position), _) => Key::Position,
                    (None, Some(l)) => Key::Location(l),
                    other => return Err(format!("unexpected output {other:?}")),
                };
                let Some((_, w)) = want.iter().find(|(k, _)| *k == key) else {
                    return Err(format!(
                        "output {} ({key:?}) not in the reference",
                        output.name
                    ));
                };
                if w.len() != output.lanes as usize {
                    return Err(format!(
                        "output {}: {} lanes, the reference has {}",
                        output.name,
                        output.lanes,
                        w.len()
                    ));
                }
                let ok = w
                    .iter()
                    .zip(value)
                    .all(|(e, g)| close(*g, *e as f32, tolerance) && g.is_finite());
                if !ok {
                    return Err(format!(
                        "output {} ({key:?}): expected {w:?}, got {:?}",
                        output.name,
                        &value[..w.len()]
                    ));
                }
            }
            Ok(())
        }
        (got, Expect::Discard) => Err(format!("expected a discard, got {got:?}")),
        (Outcome::Discarded, Expect::Outputs(w)) => {
            Err(format!("discarded, the reference outputs {w:?}"))
        }
    }
}

/// One case's values, as a runner feeds them in.
pub struct Case<'a> {
    /// The inputs, in the module's input order.
    pub inputs: &'a [Lanes],
    /// The float uniform registers.
    pub uniforms: &'a [Lanes],
    /// The bool uniform registers.
    pub bools: &'a [bool],
}

/// Runs a lowered module: the MIR interpreter, or a compiler and its simulator.
pub trait Runner {
    /// What it is, for messages.
    fn name(&self) -> String;
    /// Relative tolerance against the f64 reference (absolute below 1).
    fn tolerance(&self) -> f32;
    /// Whether it runs this module at all (a back end takes some stages only).
    fn accepts(&self, _module: &mir::Module) -> bool {
        true
    }
    /// Compiles `module`, or says why it cannot.
    fn prepare(&self, module: &mir::Module) -> Result<Box<dyn Prepared>, String>;
}

/// A compiled module that runs cases.
pub trait Prepared {
    /// Runs one case: the outputs in the module's output order, or a discard.
    fn run(&self, case: &Case, textures: &dyn Textures) -> Result<Outcome, String>;
}

/// The MIR interpreter, on the module as lowered or after `mir::passes::optimize`.
pub struct Mir {
    /// Optimise first.
    pub optimise: bool,
}

struct MirPrepared(mir::Module);

impl Prepared for MirPrepared {
    fn run(&self, case: &Case, textures: &dyn Textures) -> Result<Outcome, String> {
        let env = mir::eval::Env {
            inputs: case.inputs,
            uniforms: case.uniforms,
            bools: case.bools,
            textures,
        };
        mir::eval::run(&self.0, &env).map_err(|e| e.to_string())
    }
}

impl Runner for Mir {
    fn name(&self) -> String {
        if self.optimise {
            "optimised MIR"
        } else {
            "lowered MIR"
        }
        .into()
    }

    fn tolerance(&self) -> f32 {
        1e-4
    }

    fn prepare(&self, module: &mir::Module) -> Result<Box<dyn Prepared>, String> {
        let mut m = module.clone();
        if self.optimise {
            mir::passes::optimize(&mut m).map_err(|e| e.to_string())?;
            assert_eq!(module.inputs, m.inputs, "optimize changed the inputs");
            assert_eq!(module.outputs, m.outputs, "optimize changed the outputs");
            assert_eq!(module.uniforms, m.uniforms, "optimize changed the uniforms");
        }
        Ok(Box::new(MirPrepared(m)))
    }
}

/// The SPIR-V of `stem`'s raw and spirv-opt'd fixtures.
pub fn fixture_modules(stem: &str) -> Vec<(String, Vec<u8>)> {
    ["spv", "opt.spv"]
        .iter()
        .map(|variant| {
            let file = format!("{stem}.{variant}");
            let bytes = std::fs::read(fixtures("glsl").join(&file)).expect(&file);
            (file, bytes)
        })
        .collect()
}

/// The SPIR-V naga's GLSL front end and SPIR-V back end make of `stem`'s source: a second
/// producer with its own habits.
pub fn naga_module(stem: &str) -> Vec<(String, Vec<u8>)> {
    let source = std::fs::read_to_string(fixtures("glsl").join(stem)).expect(stem);
    let stage = if stem.ends_with(".frag") {
        spv2retro::Stage::Fragment
    } else {
        spv2retro::Stage::Vertex
    };
    let bytes = spv2retro::spirv_from_glsl(&source, stage)
        .unwrap_or_else(|e| panic!("{stem}: the library's GLSL input: {e}"));
    vec![(format!("{stem} (naga)"), bytes)]
}

/// Runs `reference` against each `(name, SPIR-V)` module through every runner that takes
/// it; the cases compared must take every branch in `paths`. Returns how many modules ran.
pub fn check(
    stem: &str,
    reference: Reference,
    paths: &[&str],
    modules: &[(String, Vec<u8>)],
    runners: &[&dyn Runner],
) -> usize {
    let mut failures = Vec::new();
    let mut ran = 0;
    for (file, bytes) in modules {
        let file = file.as_str();
        let lowered = lower(bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        let prepared: Vec<(String, f32, Box<dyn Prepared>)> = runners
            .iter()
            .filter(|r| r.accepts(&lowered))
            .map(|r| {
                let p = r
                    .prepare(&lowered)
                    .unwrap_or_else(|e| panic!("{file} ({}): {e}", r.name()));
                (r.name(), r.tolerance(), p)
            })
            .collect();
        if prepared.is_empty() {
            continue;
        }
        ran += 1;
        let textures = SmoothTextures { module: &lowered };
        let mut rng = Rng(seed(stem));
        let (mut compared, mut drawn) = (0, 0);
        let mut failed = vec![false; prepared.len()];
        let mut taken = std::collections::BTreeSet::new();
        while compared < CASES {
            drawn += 1;
            assert!(
                drawn < CASES * 8,
                "{file}: too many cases re-drawn ({drawn})"
            );
            let mut ctx = Ctx::new(&lowered, &mut rng);
            let Some(expect) = reference(&mut ctx) else {
                continue;
            };
            compared += 1;
            taken.extend(ctx.paths.iter().cloned());
            let case = Case {
                inputs: &ctx.inputs,
                uniforms: &ctx.uniforms,
                bools: &ctx.bools,
            };
            for (k, (what, tolerance, p)) in prepared.iter().enumerate() {
                if failed[k] {
                    continue;
                }
                let result = p
                    .run(&case, &textures)
                    .and_then(|o| compare(&lowered, &o, &expect, *tolerance));
                if let Err(e) = result {
                    failed[k] = true;
                    failures.push(format!(
                        "{file} ({what}), case {compared}: {e}\n    with {}",
                        ctx.log.join("\n         ")
                    ));
                }
            }
        }
        for p in paths {
            assert!(
                taken.contains(*p),
                "{file}: no case took {p:?} (took {taken:?})"
            );
        }
        let names: Vec<&str> = prepared.iter().map(|p| p.0.as_str()).collect();
        eprintln!(
            "{file}: {compared} cases compared ({drawn} drawn): {}",
            names.join(", ")
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    ran
}

/// Calls macro `$m` with the table of corpus shaders: `test_name: "stem" => reference
/// [paths];`, where `reference` is a function in [`shaders`] and `paths` are the branches
/// its cases must take.
#[macro_export]
macro_rules! for_each_shader {
    ($m:ident) => {
        $m! {
            mvp_color_vert: "mvp_color.vert" => mvp_color [];
            modelview_proj_texcoord_vert: "modelview_proj_texcoord.vert" => modelview_proj_texcoord [];
            vertex_lighting_vert: "vertex_lighting.vert" => vertex_lighting ["lit", "unlit"];
            normal_quat_vert: "normal_quat.vert" => normal_quat ["quat", "degenerate"];
            fog_vert: "fog.vert" => fog [];
            skinning4_vert: "skinning4.vert" => skinning4 [];
            skinning2_affine_vert: "skinning2_affine.vert" => skinning2_affine [];
            lights_const_loop_vert: "lights_const_loop.vert" => lights_const_loop [];
            lights_uniform_loop_vert: "lights_uniform_loop.vert" => lights_uniform_loop ["n=-1", "n=0", "n=1", "n=8"];
            bool_uniform_branch_vert: "bool_uniform_branch.vert" => bool_uniform_branch ["sphere", "texcoord", "vertex colour", "material"];
            computed_branch_vert: "computed_branch.vert" => computed_branch ["front", "back"];
            billboard_vert: "billboard.vert" => billboard [];
            texture_matrix_vert: "texture_matrix.vert" => texture_matrix [];
            starling_mesh_vert: "starling_mesh.vert" => starling_vert [];
            skybox_vert: "skybox.vert" => skybox_v [];
            helper_functions_vert: "helper_functions.vert" => helper_functions ["early return"];
            struct_lights_vert: "struct_lights.vert" => struct_lights [];
            row_major_block_vert: "row_major_block.vert" => row_major_block [];
            column_major_block_vert: "column_major_block.vert" => column_major_block [];
            switch_texgen_vert: "switch_texgen.vert" => switch_texgen ["mode -1", "mode 0", "mode 1", "mode 2", "mode 3", "mode 4"];
            while_waves_vert: "while_waves.vert" => while_waves ["break at 6", "break at waveCount", "continue", "wave"];
            builtins_vert: "builtins.vert" => builtins ["on", "off"];
            starling_mesh_frag: "starling_mesh.frag" => starling_frag [];
            color_matrix_frag: "color_matrix.frag" => color_matrix [];
            blur5_frag: "blur5.frag" => blur5 [];
            skybox_frag: "skybox.frag" => skybox_f [];
            distance_field_text_frag: "distance_field_text.frag" => distance_field_text ["outside", "inside", "edge"];
            phong_frag: "phong.frag" => phong [];
            fog_blend_frag: "fog_blend.frag" => fog_blend [];
            alpha_test_frag: "alpha_test.frag" => alpha_test ["discard", "kept"];
            toon_bands_frag: "toon_bands.frag" => toon_bands ["highlight", "midtone", "shadow", "outline", "face"];
            texture_lookups_frag: "texture_lookups.frag" => texture_lookups [];
            gl_mvp_fog_vert: "gl_mvp_fog.vert" => gl_mvp_fog ["fog", "no fog"];
            gl_lit_vert: "gl_lit.vert" => gl_lit ["unlit", "diffuse", "specular"];
            gl_skinning_vert: "gl_skinning.vert" => gl_skinning ["clamped"];
            gl_textured_frag: "gl_textured.frag" => gl_textured ["discard", "passed", "no test"];
            sprite_vs_hlsl: "sprite.vs.hlsl" => sprite_vs ["snap 0", "snap 1", "snap 0.5"];
            sprite_ps_hlsl: "sprite.ps.hlsl" => sprite_ps ["clip", "kept"];
            lit_vs_hlsl: "lit.vs.hlsl" => lit_vs [];
            skinned_vs_hlsl: "skinned.vs.hlsl" => skinned_vs [];
            tonemap_ps_hlsl: "tonemap.ps.hlsl" => tonemap ["saturated"];
            ctr_simple_tri_vert: "ctr_simple_tri.vert" => ctr_simple_tri [];
            ctr_skybox_vert: "ctr_skybox.vert" => ctr_skybox [];
            ctr_textured_cube_vert: "ctr_textured_cube.vert" => ctr_textured_cube [];
            ctr_lenny_vert: "ctr_lenny.vert" => ctr_lenny ["quat", "degenerate"];
            particles_scalar_vert: "particles_scalar.vert" => particles_scalar [];
        }
    };
}

/// Like [`for_each_shader!`](crate::for_each_shader), for the vertex shaders naga's GLSL
/// front end compiles (it has no combined image-samplers, which every fragment shader here
/// uses).
#[macro_export]
macro_rules! for_each_naga_shader {
    ($m:ident) => {
        $m! {
            naga_mvp_color_vert: "mvp_color.vert" => mvp_color [];
            naga_modelview_proj_texcoord_vert: "modelview_proj_texcoord.vert" => modelview_proj_texcoord [];
            naga_vertex_lighting_vert: "vertex_lighting.vert" => vertex_lighting ["lit", "unlit"];
            naga_normal_quat_vert: "normal_quat.vert" => normal_quat ["quat", "degenerate"];
            naga_fog_vert: "fog.vert" => fog [];
            naga_skinning4_vert: "skinning4.vert" => skinning4 [];
            naga_lights_const_loop_vert: "lights_const_loop.vert" => lights_const_loop [];
            naga_lights_uniform_loop_vert: "lights_uniform_loop.vert" => lights_uniform_loop ["n=-1", "n=0", "n=1", "n=8"];
            naga_computed_branch_vert: "computed_branch.vert" => computed_branch ["front", "back"];
            naga_billboard_vert: "billboard.vert" => billboard [];
            naga_helper_functions_vert: "helper_functions.vert" => helper_functions ["early return"];
            naga_struct_lights_vert: "struct_lights.vert" => struct_lights [];
            naga_switch_texgen_vert: "switch_texgen.vert" => switch_texgen ["mode -1", "mode 0", "mode 1", "mode 2", "mode 3", "mode 4"];
            naga_while_waves_vert: "while_waves.vert" => while_waves ["break at 6", "break at waveCount", "continue", "wave"];
        }
    };
}
