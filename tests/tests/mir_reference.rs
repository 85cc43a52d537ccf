//! The lowering computes what the source says: for each corpus shader (its raw `.spv` and its
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

#![allow(clippy::needless_range_loop)] // index-based matrix and lane maths reads closest to GLSL

use std::array::from_fn;

use mir::eval::{Lanes, Outcome, Textures, run};
use mir::inst::SampleKind;
use mir::module::{MatrixLayout, SamplerId, TextureDim};
use tests::fixtures;
use tests::mirtest::{Rng, close, lower};

/// Random cases compared per fixture file (each one on the lowered and the optimised MIR).
const CASES: usize = 250;
/// Relative tolerance (absolute below 1): f32 evaluation against an f64 reference.
const TOL: f32 = 1e-4;

const CM: MatrixLayout = MatrixLayout::ColumnMajor;
const RM: MatrixLayout = MatrixLayout::RowMajor;

// ------------------------------------------------------------------------------------------
// Plain-Rust vector maths (GLSL semantics, f64).
// ------------------------------------------------------------------------------------------

type V2 = [f64; 2];
type V3 = [f64; 3];
type V4 = [f64; 4];
/// A GLSL matrix with `C` columns of `R` rows: `m[column][row]`.
type Mat<const C: usize, const R: usize> = [[f64; R]; C];

fn add<const N: usize>(a: [f64; N], b: [f64; N]) -> [f64; N] {
    from_fn(|i| a[i] + b[i])
}
fn sub<const N: usize>(a: [f64; N], b: [f64; N]) -> [f64; N] {
    from_fn(|i| a[i] - b[i])
}
fn mul<const N: usize>(a: [f64; N], b: [f64; N]) -> [f64; N] {
    from_fn(|i| a[i] * b[i])
}
fn sc<const N: usize>(a: [f64; N], s: f64) -> [f64; N] {
    from_fn(|i| a[i] * s)
}
fn adds<const N: usize>(a: [f64; N], s: f64) -> [f64; N] {
    from_fn(|i| a[i] + s)
}
fn neg<const N: usize>(a: [f64; N]) -> [f64; N] {
    from_fn(|i| -a[i])
}
fn dot<const N: usize>(a: [f64; N], b: [f64; N]) -> f64 {
    (0..N).map(|i| a[i] * b[i]).sum()
}
fn length<const N: usize>(a: [f64; N]) -> f64 {
    dot(a, a).sqrt()
}
fn normalize<const N: usize>(a: [f64; N]) -> [f64; N] {
    sc(a, 1.0 / length(a))
}
fn reflect<const N: usize>(i: [f64; N], n: [f64; N]) -> [f64; N] {
    sub(i, sc(n, 2.0 * dot(n, i)))
}
fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn clamp(x: f64, lo: f64, hi: f64) -> f64 {
    x.max(lo).min(hi)
}
fn sat(x: f64) -> f64 {
    clamp(x, 0.0, 1.0)
}
fn mix(x: f64, y: f64, a: f64) -> f64 {
    x + (y - x) * a
}
fn mixv<const N: usize>(x: [f64; N], y: [f64; N], a: f64) -> [f64; N] {
    from_fn(|i| mix(x[i], y[i], a))
}
fn smoothstep(e0: f64, e1: f64, x: f64) -> f64 {
    let t = sat((x - e0) / (e1 - e0));
    t * t * (3.0 - 2.0 * t)
}
fn fract(x: f64) -> f64 {
    x - x.floor()
}
fn sign(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}
fn v4(v: V3, w: f64) -> V4 {
    [v[0], v[1], v[2], w]
}
fn xyz(v: V4) -> V3 {
    [v[0], v[1], v[2]]
}
fn xy<const N: usize>(v: [f64; N]) -> V2 {
    [v[0], v[1]]
}
fn zw(v: V4) -> V2 {
    [v[2], v[3]]
}
/// `m * v` (GLSL: column vector on the right).
fn mv<const C: usize, const R: usize>(m: &Mat<C, R>, v: [f64; C]) -> [f64; R] {
    let mut out = [0.0; R];
    for c in 0..C {
        for r in 0..R {
            out[r] += m[c][r] * v[c];
        }
    }
    out
}
/// `v * m` (GLSL: row vector on the left, i.e. `transpose(m) * v`).
fn vm<const C: usize, const R: usize>(v: [f64; R], m: &Mat<C, R>) -> [f64; C] {
    from_fn(|c| dot(v, m[c]))
}
/// `mat3(m)`.
fn mat3(m: &Mat<4, 4>) -> Mat<3, 3> {
    from_fn(|c| from_fn(|r| m[c][r]))
}
/// HLSL `mul(v, M)` with `M[row][column]` (a row vector times `R`×`C`).
fn hmul_vm<const R: usize, const C: usize>(v: [f64; R], m: &[[f64; C]; R]) -> [f64; C] {
    from_fn(|j| (0..R).map(|i| v[i] * m[i][j]).sum())
}
/// HLSL `mul(M, v)` with `M[row][column]`.
fn hmul_mv<const R: usize, const C: usize>(m: &[[f64; C]; R], v: [f64; C]) -> [f64; R] {
    from_fn(|i| dot(m[i], v))
}

/// `None` (re-draw the case) when `x` is within `eps` of the threshold `t`.
fn away(x: f64, t: f64, eps: f64) -> Option<()> {
    ((x - t).abs() >= eps).then_some(())
}
/// `None` (re-draw) when `v` is too short to normalise reliably.
fn long<const N: usize>(v: [f64; N], min: f64) -> Option<()> {
    (length(v) >= min).then_some(())
}

// ------------------------------------------------------------------------------------------
// The texture: smooth and deterministic; 2D ignores lanes past v, cube uses the direction.
// ------------------------------------------------------------------------------------------

fn texel(sampler: usize, c: V3, lod: f64) -> V4 {
    let s = sampler as f64;
    [
        0.5 + 0.5 * (3.0 * c[0] + s).sin(),
        0.5 + 0.5 * (2.0 * c[1] - s).cos(),
        0.5 + 0.5 * (1.3 * c[2] + 0.7 * lod + 0.5 * s).sin(),
        0.55 + 0.45 * (1.7 * c[0] + 2.3 * c[1] - 0.9 * c[2] + s).sin(),
    ]
}

struct SmoothTextures<'m> {
    module: &'m mir::Module,
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
enum Key {
    Position,
    Location(u32),
}

enum Expect {
    Outputs(Vec<(Key, Vec<f64>)>),
    Discard,
}

fn pos(v: V4) -> (Key, Vec<f64>) {
    (Key::Position, v.to_vec())
}
fn loc(l: u32, v: &[f64]) -> (Key, Vec<f64>) {
    (Key::Location(l), v.to_vec())
}
fn outputs(list: Vec<(Key, Vec<f64>)>) -> Option<Expect> {
    Some(Expect::Outputs(list))
}

/// One case being built: the values the module will read, and a log of what was set.
struct Ctx<'a> {
    module: &'a mir::Module,
    rng: &'a mut Rng,
    inputs: Vec<Lanes>,
    uniforms: Vec<Lanes>,
    bools: Vec<bool>,
    log: Vec<String>,
    /// The branches the reference took (checked against the ones each shader must reach).
    paths: Vec<String>,
}

impl<'a> Ctx<'a> {
    fn new(module: &'a mir::Module, rng: &'a mut Rng) -> Self {
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

    fn f(&mut self, lo: f64, hi: f64) -> f64 {
        self.rng.float(lo as f32, hi as f32) as f64
    }
    fn v<const N: usize>(&mut self, lo: f64, hi: f64) -> [f64; N] {
        from_fn(|_| self.f(lo, hi))
    }
    fn rmat<const C: usize, const R: usize>(&mut self, lo: f64, hi: f64) -> Mat<C, R> {
        from_fn(|_| self.v(lo, hi))
    }
    /// An integer in `lo..=hi`.
    fn int(&mut self, lo: i32, hi: i32) -> i32 {
        lo + (self.rng.next_u64() % (hi - lo + 1) as u64) as i32
    }
    fn coin(&mut self) -> bool {
        self.rng.next_u64() & 1 == 1
    }
    fn pick(&mut self, choices: &[f64]) -> f64 {
        choices[(self.rng.next_u64() % choices.len() as u64) as usize]
    }

    /// Records that this case takes the branch `label`.
    fn path(&mut self, label: impl Into<String>) {
        self.paths.push(label.into());
    }

    // --- setting values ---

    /// The input at `location` (at least the lanes the module says it reads).
    fn input(&mut self, location: u32, v: &[f64]) {
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

    fn uniform(&self, name: &str) -> &'a mir::module::Uniform {
        self.module
            .uniforms
            .iter()
            .find(|u| u.name == name)
            .unwrap_or_else(|| panic!("no uniform {name:?} in the reflection"))
    }

    /// Element `index` of the uniform `name` (a scalar, vector, or array of them).
    fn set_at(&mut self, name: &str, index: u32, v: &[f64]) {
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
    fn set(&mut self, name: &str, v: &[f64]) {
        self.set_at(name, 0, v);
    }

    /// Element `index` of the matrix (array) uniform `name`, stored with `layout` (what the
    /// source declares; the reflection must agree): one column or one row per register.
    fn set_mat_at<const C: usize, const R: usize>(
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
    fn set_mat<const C: usize, const R: usize>(
        &mut self,
        name: &str,
        layout: MatrixLayout,
        m: &Mat<C, R>,
    ) {
        self.set_mat_at(name, 0, layout, m);
    }
    /// An HLSL matrix (`m[row][column]`, HLSL's default column_major packing: one HLSL column
    /// per register). glslang gives SPIR-V the transpose, decorated RowMajor.
    fn set_hlsl_mat<const R: usize, const C: usize>(
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
    fn loose_bool(&mut self, name: &str, b: bool) {
        let u = self.uniform(name);
        assert!(u.is_bool, "{name} should be a bool register");
        self.bools[u.register as usize] = b;
        self.log.push(format!("{name} (b{}) = {b}", u.register));
    }

    // --- textures, as the reference reads them ---

    fn sampler(&self, name: &str) -> (usize, TextureDim) {
        let (id, s) = self
            .module
            .samplers
            .iter()
            .find(|(_, s)| s.name == name)
            .unwrap_or_else(|| panic!("no sampler {name:?}"));
        (id.index(), s.dim)
    }
    fn tex2d(&self, name: &str, uv: V2, lod: f64) -> V4 {
        let (index, dim) = self.sampler(name);
        assert_eq!(dim, TextureDim::D2, "{name}");
        texel(index, [uv[0], uv[1], 0.0], lod)
    }
    fn tex_cube(&self, name: &str, dir: V3) -> V4 {
        let (index, dim) = self.sampler(name);
        assert_eq!(dim, TextureDim::Cube, "{name}");
        texel(index, normalize(dir), 0.0)
    }
}

/// `N` for a `...[N]` type name, else 1.
fn array_len(type_name: &str) -> u32 {
    type_name
        .strip_suffix(']')
        .and_then(|t| t.rsplit_once('['))
        .map_or(1, |(_, n)| n.parse().expect("array length"))
}

type Reference = fn(&mut Ctx) -> Option<Expect>;

fn seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    }) | 1
}

/// Compares `outcome` with `expect`; `Err` describes the first difference.
fn compare(module: &mir::Module, outcome: &Outcome, expect: &Expect) -> Result<(), String> {
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
                    .all(|(e, g)| close(*g, *e as f32, TOL) && g.is_finite());
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

/// Runs `reference` against `stem.spv` and `stem.opt.spv`, each lowered and then optimised;
/// the cases compared must take every branch in `paths`.
fn check(stem: &str, reference: Reference, paths: &[&str]) {
    let modules = ["spv", "opt.spv"].map(|variant| {
        let file = format!("{stem}.{variant}");
        let bytes = std::fs::read(fixtures("glsl").join(&file)).expect(&file);
        (file, bytes)
    });
    check_modules(stem, reference, paths, &modules);
}

/// Runs `reference` against the SPIR-V that naga's GLSL front end and SPIR-V back end make
/// of `stem`'s source: a second producer with its own habits, checked against the same
/// reference.
fn check_naga(stem: &str, reference: Reference, paths: &[&str]) {
    let source = std::fs::read_to_string(fixtures("glsl").join(stem)).expect(stem);
    let stage = if stem.ends_with(".frag") {
        naga::ShaderStage::Fragment
    } else {
        naga::ShaderStage::Vertex
    };
    let module = naga::front::glsl::Frontend::default()
        .parse(&naga::front::glsl::Options::from(stage), &source)
        .unwrap_or_else(|e| panic!("{stem}: naga's GLSL front end: {e:?}"));
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{stem}: naga validation: {e:?}"));
    let options = naga::back::spv::Options {
        lang_version: (1, 0),
        // Its default flips gl_Position.y (for wgpu's coordinate space); GLSL does not.
        flags: naga::back::spv::Options::default().flags
            - naga::back::spv::WriterFlags::ADJUST_COORDINATE_SPACE,
        ..Default::default()
    };
    let words = naga::back::spv::write_vec(&module, &info, &options, None)
        .unwrap_or_else(|e| panic!("{stem}: naga's SPIR-V back end: {e}"));
    let bytes = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    check_modules(stem, reference, paths, &[(format!("{stem} (naga)"), bytes)]);
}

/// Runs `reference` against each `(name, SPIR-V)` module, lowered and then optimised.
fn check_modules(stem: &str, reference: Reference, paths: &[&str], modules: &[(String, Vec<u8>)]) {
    let mut failures = Vec::new();
    for (file, bytes) in modules {
        let file = file.as_str();
        let lowered = lower(bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
        let mut optimised = lowered.clone();
        mir::passes::optimize(&mut optimised).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(
            lowered.inputs, optimised.inputs,
            "{file}: optimize changed the inputs"
        );
        assert_eq!(
            lowered.outputs, optimised.outputs,
            "{file}: optimize changed the outputs"
        );
        assert_eq!(
            lowered.uniforms, optimised.uniforms,
            "{file}: optimize changed the uniforms"
        );
        let textures = SmoothTextures { module: &optimised };
        let mut rng = Rng(seed(stem));
        let (mut compared, mut drawn) = (0, 0);
        let mut failed = [false; 2];
        let mut taken = std::collections::BTreeSet::new();
        while compared < CASES {
            drawn += 1;
            assert!(
                drawn < CASES * 8,
                "{file}: too many cases re-drawn ({drawn})"
            );
            let mut ctx = Ctx::new(&optimised, &mut rng);
            let Some(expect) = reference(&mut ctx) else {
                continue;
            };
            compared += 1;
            taken.extend(ctx.paths.iter().cloned());
            let env = mir::eval::Env {
                inputs: &ctx.inputs,
                uniforms: &ctx.uniforms,
                bools: &ctx.bools,
                textures: &textures,
            };
            for (k, (what, module)) in [("lowered", &lowered), ("optimised", &optimised)]
                .into_iter()
                .enumerate()
            {
                if failed[k] {
                    continue;
                }
                let result = run(module, &env)
                    .map_err(|e| e.to_string())
                    .and_then(|o| compare(module, &o, &expect));
                if let Err(e) = result {
                    failed[k] = true;
                    failures.push(format!(
                        "{file} ({what} MIR), case {compared}: {e}\n    with {}",
                        ctx.log.join("\n         ")
                    ));
                }
            }
        }
        assert_eq!(compared, CASES);
        for p in paths {
            assert!(
                taken.contains(*p),
                "{file}: no case took {p:?} (took {taken:?})"
            );
        }
        eprintln!("{file}: {compared} cases compared ({drawn} drawn), lowered and optimised");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

macro_rules! shader_tests {
    ($($(#[$attr:meta])* $test:ident: $stem:literal => $reference:ident [$($path:literal),*];)*) => {
        $(
            #[test]
            $(#[$attr])*
            fn $test() {
                check($stem, $reference, &[$($path),*]);
            }
        )*
        /// Every shader the file covers (for the count check below).
        const COVERED: &[&str] = &[$($stem),*];
    };
}

// ------------------------------------------------------------------------------------------
// The references, one per shader, following its source line by line.
// ------------------------------------------------------------------------------------------

fn mvp_color(c: &mut Ctx) -> Option<Expect> {
    let mvp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("mvp", CM, &mvp);
    let p: V3 = c.v(-2.0, 2.0);
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &color);
    outputs(vec![pos(mv(&mvp, v4(p, 1.0))), loc(0, &color)])
}

fn modelview_proj_texcoord(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    let p: V4 = c.v(-2.0, 2.0);
    let tc: V2 = c.v(-1.0, 2.0);
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &tc);
    c.input(2, &color);
    let eye = mv(&model_view, p);
    outputs(vec![pos(mv(&proj, eye)), loc(1, &tc), loc(0, &color)])
}

fn vertex_lighting(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let normal_matrix: Mat<3, 3> = c.rmat(-1.0, 1.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    c.set_mat("normalMatrix", CM, &normal_matrix);
    let mut light_pos: V4 = c.v(-3.0, 3.0);
    light_pos[3] = c.pick(&[0.0, 1.0]);
    let [ld, ls, amb, md, ms]: [V4; 5] = from_fn(|_| c.v(0.0, 1.0));
    let shininess = c.f(1.0, 16.0);
    c.set("lightPosEye", &light_pos);
    c.set("lightDiffuse", &ld);
    c.set("lightSpecular", &ls);
    c.set("ambient", &amb);
    c.set("materialDiffuse", &md);
    c.set("materialSpecular", &ms);
    c.set("shininess", &[shininess]);
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &tc);

    let eye = mv(&model_view, v4(p, 1.0));
    let nn = mv(&normal_matrix, n_in);
    long(nn, 0.2)?;
    let n = normalize(nn);
    let l = sub(xyz(light_pos), sc(xyz(eye), light_pos[3]));
    long(l, 0.2)?;
    let l = normalize(l);
    long(xyz(eye), 0.2)?;
    let v = normalize(neg(xyz(eye)));
    long(add(l, v), 0.2)?;
    let h = normalize(add(l, v));
    away(dot(n, l), 0.0, 1e-3)?; // NdotL > 0.0 decides whether pow() counts
    let ndotl = dot(n, l).max(0.0);
    let ndoth = dot(n, h).max(0.0);
    c.path(if ndotl > 0.0 { "lit" } else { "unlit" });
    let spec = if ndotl > 0.0 {
        ndoth.powf(shininess)
    } else {
        0.0
    };
    let color = add(
        add(mul(xyz(amb), xyz(md)), mul(sc(xyz(ld), ndotl), xyz(md))),
        mul(sc(xyz(ls), spec), xyz(ms)),
    );
    outputs(vec![
        pos(mv(&proj, eye)),
        loc(0, &v4(color, md[3])),
        loc(1, &tc),
    ])
}

fn normal_quat(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let mut model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let emission: V4 = c.v(0.0, 1.0);
    let p: V3 = c.v(-2.0, 2.0);
    let tc: V2 = c.v(-1.0, 2.0);
    let mut n_in: V3 = c.v(-1.0, 1.0);
    // One case in six: a normal pointing exactly along -Z after the transform (exact in f32),
    // which takes the degenerate branch.
    let degenerate = c.int(0, 5) == 0;
    if degenerate {
        let s = c.pick(&[0.5, 1.0, 2.0]);
        model_view[2] = [0.0, 0.0, s, model_view[2][3]];
        n_in = [0.0, 0.0, -c.pick(&[0.25, 1.0, 2.0])];
    }
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    c.set("materialEmission", &emission);
    c.input(0, &p);
    c.input(1, &tc);
    c.input(2, &n_in);

    let eye = mv(&model_view, v4(p, 1.0));
    let nn = mv(&mat3(&model_view), n_in);
    long(nn, 0.2)?;
    let n = normalize(nn);
    let w = 1.0 + n[2];
    let q = if w > 0.00001 {
        // Away from the threshold, and where 1 + n.z does not lose most of its digits.
        (w > 0.05).then_some(())?;
        c.path("quat");
        normalize([-n[1], n[0], 0.0, w])
    } else {
        assert!(degenerate);
        c.path("degenerate");
        [1.0, 0.0, 0.0, 0.0]
    };
    outputs(vec![
        pos(mv(&proj, eye)),
        loc(0, &emission),
        loc(1, &tc),
        loc(4, &q),
        loc(5, &neg(xyz(eye))),
    ])
}

fn fog(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    let start = c.f(0.0, 5.0);
    let end = start + c.f(1.0, 10.0);
    let end = end as f32 as f64;
    let density = c.f(0.0, 0.5);
    c.set("fogStart", &[start]);
    c.set("fogEnd", &[end]);
    c.set("fogDensity", &[density]);
    let p: V3 = c.v(-2.0, 2.0);
    let tc: V2 = c.v(-1.0, 2.0);
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &tc);
    c.input(2, &color);
    let eye = mv(&model_view, v4(p, 1.0));
    let dist = length(xyz(eye));
    let linear = sat((end - dist) / (end - start));
    let fd = density * dist;
    let exp_fog = sat((-fd * fd).exp());
    outputs(vec![
        pos(mv(&proj, eye)),
        loc(0, &color),
        loc(1, &tc),
        loc(2, &[linear, exp_fog]),
    ])
}

fn skinning4(c: &mut Ctx) -> Option<Expect> {
    let vp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("viewProjection", CM, &vp);
    let light_dir: V4 = c.v(-1.0, 1.0);
    let light_color: V4 = c.v(0.0, 1.0);
    let ambient: V4 = c.v(0.0, 0.5);
    c.set("lightDirWorld", &light_dir);
    c.set("lightColor", &light_color);
    c.set("ambientColor", &ambient);
    let bones: [Mat<4, 4>; 16] = from_fn(|_| c.rmat(-1.5, 1.5));
    for (i, b) in bones.iter().enumerate() {
        c.set_mat_at("bones", i as u32, CM, b);
    }
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    // Float bone indices with a fractional part: int() truncates.
    let indices: V4 = c.v(0.0, 15.99);
    let weights: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &tc);
    c.input(3, &indices);
    c.input(4, &weights);

    let mut skinned_pos = [0.0; 4];
    let mut skinned_normal = [0.0; 3];
    for i in 0..4 {
        let bone = &bones[indices[i] as usize];
        skinned_pos = add(skinned_pos, sc(mv(bone, v4(p, 1.0)), weights[i]));
        skinned_normal = add(skinned_normal, sc(xyz(mv(bone, v4(n_in, 0.0))), weights[i]));
    }
    long(skinned_normal, 0.2)?;
    let n = normalize(skinned_normal);
    let diffuse = dot(n, xyz(light_dir)).max(0.0);
    outputs(vec![
        pos(mv(&vp, v4(xyz(skinned_pos), 1.0))),
        loc(
            0,
            &v4(add(xyz(ambient), sc(xyz(light_color), diffuse)), 1.0),
        ),
        loc(1, &tc),
    ])
}

fn skinning2_affine(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", RM, &proj);
    let bones: [Mat<4, 3>; 24] = from_fn(|_| c.rmat(-1.5, 1.5));
    for (i, b) in bones.iter().enumerate() {
        c.set_mat_at("bones", i as u32, RM, b);
    }
    let tint: V4 = c.v(0.0, 1.0);
    c.set("tint", &tint);
    let p: V3 = c.v(-2.0, 2.0);
    let tc: V2 = c.v(-1.0, 2.0);
    let indices: V2 = c.v(0.0, 23.99);
    let w0 = c.f(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &tc);
    c.input(2, &indices);
    c.input(3, &[w0]);
    let p4 = v4(p, 1.0);
    let (b0, b1) = (indices[0] as usize, indices[1] as usize);
    let skinned = add(sc(mv(&bones[b0], p4), w0), sc(mv(&bones[b1], p4), 1.0 - w0));
    outputs(vec![
        pos(mv(&proj, v4(skinned, 1.0))),
        loc(0, &tint),
        loc(1, &tc),
    ])
}

fn lights_const_loop(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-1.0, 1.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    let mut light_pos = [[0.0; 4]; 4];
    let mut light_color = [[0.0; 4]; 4];
    for i in 0..4 {
        light_pos[i] = c.v(-3.0, 3.0);
        light_pos[i][3] = c.f(0.01, 0.5);
        light_color[i] = c.v(0.0, 1.0);
        c.set_at("lightPosEye", i as u32, &light_pos[i]);
        c.set_at("lightColor", i as u32, &light_color[i]);
    }
    let ambient: V4 = c.v(0.0, 0.5);
    c.set("ambient", &ambient);
    let p: V3 = c.v(-1.5, 1.5);
    let n_in: V3 = c.v(-1.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &tc);

    let eye = mv(&model_view, v4(p, 1.0));
    let nn = mv(&mat3(&model_view), n_in);
    long(nn, 0.2)?;
    let n = normalize(nn);
    let mut total = xyz(ambient);
    for i in 0..4 {
        let to_light = sub(xyz(light_pos[i]), xyz(eye));
        let d2 = dot(to_light, to_light);
        (d2 > 0.05).then_some(())?;
        let l = sc(to_light, 1.0 / d2.sqrt());
        let atten = (1.0 - d2 * light_pos[i][3]).max(0.0);
        total = add(total, sc(xyz(light_color[i]), dot(n, l).max(0.0) * atten));
    }
    outputs(vec![
        pos(mv(&proj, eye)),
        loc(0, &v4(total.map(|x| x.min(1.0)), 1.0)),
        loc(1, &tc),
    ])
}

fn lights_uniform_loop(c: &mut Ctx) -> Option<Expect> {
    let mvp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let normal_matrix: Mat<3, 3> = c.rmat(-1.0, 1.0);
    c.set_mat("mvp", CM, &mvp);
    c.set_mat("normalMatrix", CM, &normal_matrix);
    let ambient: V4 = c.v(0.0, 0.5);
    c.set("ambient", &ambient);
    let count = c.int(-1, 8);
    c.set("numLights", &[count as f64]);
    let dirs: [V4; 8] = from_fn(|_| c.v(-1.0, 1.0));
    let colors: [V4; 8] = from_fn(|_| c.v(0.0, 1.0));
    for i in 0..8 {
        c.set_at("lightDir", i as u32, &dirs[i]);
        c.set_at("lightColor", i as u32, &colors[i]);
    }
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &color);

    let nn = mv(&normal_matrix, n_in);
    long(nn, 0.2)?;
    let n = normalize(nn);
    let mut lit = xyz(ambient);
    c.path(format!("n={count}"));
    for i in 0..count.max(0) as usize {
        let ndl = dot(n, xyz(dirs[i])).max(0.0);
        lit = add(lit, sc(xyz(colors[i]), ndl));
    }
    outputs(vec![
        pos(mv(&mvp, v4(p, 1.0))),
        loc(0, &v4(mul(xyz(color), lit), color[3])),
    ])
}

fn bool_uniform_branch(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    let material: V4 = c.v(0.0, 1.0);
    c.set("materialColor", &material);
    let (sphere_map, use_vertex_color) = (c.coin(), c.coin());
    // std140 bools (uint in SPIR-V), carried in floats: 1 or 0.
    c.set("sphereMap", &[sphere_map as u8 as f64]);
    c.set("useVertexColor", &[use_vertex_color as u8 as f64]);
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &tc);
    c.input(3, &color);

    let eye = mv(&model_view, v4(p, 1.0));
    c.path(if sphere_map { "sphere" } else { "texcoord" });
    c.path(if use_vertex_color {
        "vertex colour"
    } else {
        "material"
    });
    let uv = if sphere_map {
        long(xyz(eye), 0.2)?;
        let u = normalize(xyz(eye));
        let nn = mv(&mat3(&model_view), n_in);
        long(nn, 0.2)?;
        let n = normalize(nn);
        let r = reflect(u, n);
        let m = 2.0 * (r[0] * r[0] + r[1] * r[1] + (r[2] + 1.0) * (r[2] + 1.0)).sqrt();
        (m > 0.2).then_some(())?;
        adds(sc(xy(r), 1.0 / m), 0.5)
    } else {
        tc
    };
    let out_color = if use_vertex_color {
        mul(material, color)
    } else {
        material
    };
    outputs(vec![pos(mv(&proj, eye)), loc(0, &out_color), loc(1, &uv)])
}

fn computed_branch(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    let light: V4 = c.v(-1.0, 1.0);
    let [front, back, ambient]: [V4; 3] = from_fn(|_| c.v(0.0, 1.0));
    c.set("lightDirEye", &light);
    c.set("frontColor", &front);
    c.set("backColor", &back);
    c.set("ambient", &ambient);
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    c.input(0, &p);
    c.input(1, &n_in);

    let eye = mv(&model_view, v4(p, 1.0));
    let nn = mv(&mat3(&model_view), n_in);
    long(nn, 0.2)?;
    let mut n = normalize(nn);
    let v = neg(xyz(eye));
    away(dot(n, v), 0.0, 1e-3 * (1.0 + length(v)))?;
    let material = if dot(n, v) < 0.0 {
        n = neg(n);
        c.path("back");
        back
    } else {
        c.path("front");
        front
    };
    let diffuse = dot(n, xyz(light)).max(0.0);
    outputs(vec![
        pos(mv(&proj, eye)),
        loc(
            0,
            &v4(mul(xyz(material), adds(xyz(ambient), diffuse)), material[3]),
        ),
    ])
}

fn billboard(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let atlas: V4 = c.v(-1.0, 1.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    c.set("atlasRect", &atlas);
    let center: V3 = c.v(-2.0, 2.0);
    let corner: V2 = c.v(-0.5, 0.5);
    let size_rot = [
        c.f(0.1, 2.0),
        c.f(-std::f64::consts::PI, std::f64::consts::PI),
    ];
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &center);
    c.input(1, &corner);
    c.input(2, &size_rot);
    c.input(3, &color);

    let mut eye = mv(&model_view, v4(center, 1.0));
    let (s, co) = (size_rot[1].sin(), size_rot[1].cos());
    let offset = sc(
        [
            corner[0] * co - corner[1] * s,
            corner[0] * s + corner[1] * co,
        ],
        size_rot[0],
    );
    eye[0] += offset[0];
    eye[1] += offset[1];
    let tc = add(xy(atlas), mul(adds(corner, 0.5), zw(atlas)));
    outputs(vec![pos(mv(&proj, eye)), loc(0, &color), loc(1, &tc)])
}

fn texture_matrix(c: &mut Ctx) -> Option<Expect> {
    let mvp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let tm: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("mvp", CM, &mvp);
    c.set_mat("textureMatrix0", CM, &tm);
    let so: V4 = c.v(-2.0, 2.0);
    let diffuse: V4 = c.v(0.0, 1.0);
    c.set("scaleOffset1", &so);
    c.set("diffuse", &diffuse);
    let p: V3 = c.v(-2.0, 2.0);
    let tc0: V2 = c.v(-1.0, 2.0);
    let tc1: V2 = c.v(-1.0, 2.0);
    c.input(0, &p);
    c.input(1, &tc0);
    c.input(2, &tc1);
    let t = mv(&tm, [tc0[0], tc0[1], 0.0, 1.0]);
    outputs(vec![
        pos(mv(&mvp, v4(p, 1.0))),
        loc(0, &diffuse),
        loc(1, &[t[0], t[1], t[3]]),
        loc(2, &add(mul(tc1, xy(so)), zw(so))),
    ])
}

fn starling_vert(c: &mut Ctx) -> Option<Expect> {
    let m: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("mvpMatrix", RM, &m);
    let alpha: V4 = c.v(0.0, 1.0);
    c.set("alpha", &alpha);
    let p: V2 = c.v(-100.0, 100.0);
    let tc: V2 = c.v(0.0, 1.0);
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &tc);
    c.input(2, &color);
    outputs(vec![
        pos(mv(&m, [p[0], p[1], 0.0, 1.0])),
        loc(0, &tc),
        loc(1, &mul(color, alpha)),
    ])
}

fn skybox_v(c: &mut Ctx) -> Option<Expect> {
    let vp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("viewProjection", RM, &vp);
    let camera: V4 = c.v(-5.0, 5.0);
    let scale: V4 = c.v(0.5, 3.0);
    c.set("cameraPosition", &camera);
    c.set("scale", &scale);
    let p: V3 = c.v(-1.0, 1.0);
    c.input(0, &p);
    let world = add(mul(p, xyz(scale)), xyz(camera));
    let clip = mv(&vp, v4(world, 1.0));
    outputs(vec![pos([clip[0], clip[1], clip[3], clip[3]]), loc(0, &p)])
}

fn helper_functions(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    let [key_dir, fill_dir]: [V4; 2] = from_fn(|_| c.v(-1.0, 1.0));
    let [key_color, fill_color, rim_color]: [V4; 3] = from_fn(|_| c.v(0.0, 1.0));
    let rim_power = c.f(1.0, 8.0);
    c.set("keyLightDir", &key_dir);
    c.set("keyLightColor", &key_color);
    c.set("fillLightDir", &fill_dir);
    c.set("fillLightColor", &fill_color);
    c.set("rimColor", &rim_color);
    c.set("rimPower", &[rim_power]);
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &tc);

    let to_eye = |m: &Mat<4, 4>, p: V3| mv(m, v4(p, 1.0));
    let lambert = |n: V3, l: V3, paths: &mut Vec<String>| {
        let d = dot(n, l);
        if d <= 0.0 {
            paths.push("early return".into());
            return 0.0;
        }
        d
    };
    let add_light = |n: V3, dir: V3, color: V3, accum: &mut V3, paths: &mut Vec<String>| {
        long(dir, 0.2)?;
        *accum = add(*accum, sc(color, lambert(n, normalize(dir), paths)));
        Some(())
    };
    let rim = |n: V3, v: V3| {
        let r = 1.0 - dot(n, v).max(0.0);
        sc(xyz(rim_color), r.powf(rim_power))
    };

    let eye = to_eye(&model_view, p);
    let nn = mv(&mat3(&model_view), n_in);
    long(nn, 0.2)?;
    let n = normalize(nn);
    long(xyz(eye), 0.2)?;
    let v = normalize(neg(xyz(eye)));
    let mut light = [0.0; 3];
    add_light(n, xyz(key_dir), xyz(key_color), &mut light, &mut c.paths)?;
    add_light(n, xyz(fill_dir), xyz(fill_color), &mut light, &mut c.paths)?;
    let rim_light = rim(n, v);
    outputs(vec![
        pos(mv(&proj, eye)),
        loc(0, &v4(add(light, rim_light), 1.0)),
        loc(1, &tc),
    ])
}

fn struct_lights(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-1.0, 1.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    let mut lights = [([0.0; 3], 0.0, [0.0; 4]); 4];
    for (i, light) in lights.iter_mut().enumerate() {
        *light = (c.v(-3.0, 3.0), c.f(2.0, 10.0), c.v(0.0, 1.0));
        c.set(&format!("lights[{i}].position"), &light.0);
        c.set(&format!("lights[{i}].range"), &[light.1]);
        c.set(&format!("lights[{i}].color"), &light.2);
    }
    let ambient: V4 = c.v(0.0, 0.5);
    c.set("ambient", &ambient);
    let p: V3 = c.v(-1.0, 1.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    c.input(0, &p);
    c.input(1, &n_in);

    let eye = mv(&model_view, v4(p, 1.0));
    let nn = mv(&mat3(&model_view), n_in);
    long(nn, 0.2)?;
    let n = normalize(nn);
    let mut sum = xyz(ambient);
    for (position, range, color) in lights {
        let d = sub(position, xyz(eye));
        let dist = length(d);
        (dist > 0.1).then_some(())?;
        let falloff = sat(1.0 - dist / range);
        sum = add(
            sum,
            sc(xyz(color), dot(n, sc(d, 1.0 / dist)).max(0.0) * falloff),
        );
    }
    outputs(vec![pos(mv(&proj, eye)), loc(0, &v4(sum, 1.0))])
}

fn row_major_block(c: &mut Ctx) -> Option<Expect> {
    let wvp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let world_inverse: Mat<3, 3> = c.rmat(-1.0, 1.0);
    c.set_mat("worldViewProj", RM, &wvp);
    c.set_mat("worldInverse", RM, &world_inverse);
    let light: V4 = c.v(-1.0, 1.0);
    let diffuse: V4 = c.v(0.0, 1.0);
    c.set("lightDir", &light);
    c.set("diffuse", &diffuse);
    let p: V4 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &tc);
    let nn = vm(n_in, &world_inverse);
    long(nn, 0.2)?;
    let n = normalize(nn);
    outputs(vec![
        pos(mv(&wvp, p)),
        loc(
            0,
            &v4(sc(xyz(diffuse), dot(n, xyz(light)).max(0.0)), diffuse[3]),
        ),
        loc(1, &tc),
    ])
}

fn column_major_block(c: &mut Ctx) -> Option<Expect> {
    let mvp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let normal_matrix: Mat<3, 3> = c.rmat(-1.0, 1.0);
    let uv_rotation: Mat<2, 2> = c.rmat(-1.0, 1.0);
    let uv_project: Mat<4, 2> = c.rmat(-1.0, 1.0);
    c.set_mat("modelViewProjection", CM, &mvp);
    c.set_mat("normalMatrix", CM, &normal_matrix);
    c.set_mat("uvRotation", CM, &uv_rotation);
    c.set_mat("uvProject", CM, &uv_project);
    let light: V4 = c.v(-1.0, 1.0);
    let color: V4 = c.v(0.0, 1.0);
    c.set("lightDir", &light);
    c.set("color", &color);
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &tc);
    let nn = mv(&normal_matrix, n_in);
    long(nn, 0.2)?;
    let n = normalize(nn);
    let ndl = dot(n, xyz(light)).max(0.0);
    let uv = adds(mv(&uv_rotation, adds(tc, -0.5)), 0.5);
    let uv = add(uv, mv(&uv_project, v4(p, 0.0)));
    outputs(vec![
        pos(mv(&mvp, v4(p, 1.0))),
        loc(0, &v4(sc(xyz(color), ndl), color[3])),
        loc(1, &uv),
    ])
}

fn switch_texgen(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    let [plane_s, plane_t]: [V4; 2] = from_fn(|_| c.v(-1.0, 1.0));
    let color: V4 = c.v(0.0, 1.0);
    let mode = c.int(-1, 5);
    c.set("planeS", &plane_s);
    c.set("planeT", &plane_t);
    c.set("color", &color);
    c.set("mode", &[mode as f64]);
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &tc);

    let obj = v4(p, 1.0);
    let eye = mv(&model_view, obj);
    let nn = mv(&mat3(&model_view), n_in);
    long(nn, 0.2)?;
    let en = normalize(nn);
    long(xyz(eye), 0.2)?;
    c.path(format!("mode {}", mode.clamp(-1, 4)));
    let tc_out = match mode {
        0 => [tc[0], tc[1], 0.0],
        1 => [dot(plane_s, obj), dot(plane_t, obj), 0.0],
        2 => {
            let r = reflect(normalize(xyz(eye)), en);
            let m = 2.0 * length(add(r, [0.0, 0.0, 1.0]));
            (m > 0.2).then_some(())?;
            let uv = adds(sc(xy(r), 1.0 / m), 0.5);
            [uv[0], uv[1], 0.0]
        }
        3 => reflect(normalize(xyz(eye)), en),
        _ => [0.0; 3],
    };
    outputs(vec![pos(mv(&proj, eye)), loc(0, &color), loc(1, &tc_out)])
}

fn while_waves(c: &mut Ctx) -> Option<Expect> {
    let mvp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("mvp", CM, &mvp);
    let [deep, shallow]: [V4; 2] = from_fn(|_| c.v(0.0, 1.0));
    let time = c.f(0.0, 10.0);
    let wave_count = c.int(-1, 8);
    c.set("deepColor", &deep);
    c.set("shallowColor", &shallow);
    c.set("time", &[time]);
    c.set("waveCount", &[wave_count as f64]);
    let mut waves = [([0.0; 4], 0.0); 6];
    for (i, w) in waves.iter_mut().enumerate() {
        let mut dir_freq: V4 = c.v(-1.0, 1.0);
        dir_freq[2] = c.f(0.1, 3.0);
        let amplitude = if c.int(0, 3) == 0 {
            0.0
        } else {
            c.f(-0.5, 1.0)
        };
        *w = (dir_freq, amplitude);
        c.set(&format!("waves[{i}].dirFreq"), &dir_freq);
        c.set(&format!("waves[{i}].amplitude"), &[amplitude]);
    }
    let p: V3 = c.v(-2.0, 2.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &p);
    c.input(1, &tc);

    let mut height = 0.0;
    let mut slope = [0.0; 2];
    let mut i = 0;
    loop {
        if i >= wave_count || i >= 6 {
            c.path(if i >= 6 {
                "break at 6"
            } else {
                "break at waveCount"
            });
            break;
        }
        let (dir_freq, amplitude) = waves[i as usize];
        i += 1;
        if amplitude <= 0.0 {
            c.path("continue");
            continue;
        }
        c.path("wave");
        let phase = dot(xy(dir_freq), [p[0], p[2]]) * dir_freq[2] + time * dir_freq[3];
        height += amplitude * phase.sin();
        slope = add(
            slope,
            sc(xy(dir_freq), amplitude * dir_freq[2] * phase.cos()),
        );
    }
    let displaced = [p[0], p[1] + height, p[2]];
    let steep = sat(length(slope));
    outputs(vec![
        pos(mv(&mvp, v4(displaced, 1.0))),
        loc(0, &mixv(deep, shallow, steep)),
        loc(1, &add(tc, sc(slope, 0.05))),
    ])
}

fn builtins(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    let [base, glow]: [V4; 2] = from_fn(|_| c.v(0.0, 1.0));
    let focus_point: V4 = c.v(-3.0, 3.0);
    let time = c.f(0.0, 10.0);
    let scanlines = c.f(1.0, 20.0);
    let gamma = c.f(0.5, 3.0);
    c.set("baseColor", &base);
    c.set("glowColor", &glow);
    c.set("focusPoint", &focus_point);
    c.set("time", &[time]);
    c.set("scanlines", &[scanlines]);
    c.set("gamma", &[gamma]);
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let t_in: V3 = c.v(-1.0, 1.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &t_in);

    let mut eye = mv(&model_view, v4(p, 1.0));
    let nn = mv(&mat3(&model_view), n_in);
    long(nn, 0.2)?;
    let n = normalize(nn);
    let t = mv(&mat3(&model_view), t_in);
    long(t, 0.2)?;
    let t = sc(t, 1.0 / dot(t, t).sqrt());
    let b = cross(n, t);
    long(xyz(eye), 0.2)?;
    let v = normalize(neg(xyz(eye)));
    let r = reflect(neg(v), n);
    let fresnel = (1.0 - sat(dot(n, v))).powi(3);

    // atan(y, x): keep away from the branch cut (x < 0, y = ±0) and the origin.
    let xz_len = length([p[0], p[2]]);
    (xz_len > 0.1).then_some(())?;
    if p[0] < 0.0 {
        away(p[2], 0.0, 1e-2)?;
    }
    let angle = p[2].atan2(p[0]);
    let tilt = (p[1] / xz_len.max(0.001)).atan();
    // The compiler's atan is a polynomial with error below 1e-4 rad; scaled by 1/2π and 1/π
    // here, that is below 1.6e-5 and 3.2e-5, inside the default tolerance.
    #[allow(clippy::approx_constant)] // the shader's own literals
    let uv = [angle * 0.15915494 + 0.5, tilt * 0.31830989 + 0.5];

    let scan = p[1] * scanlines;
    let line = fract(scan + time);
    // fract, floor and step are discontinuous: keep away from their jumps.
    away(fract(scan + time + 1e-3), 1e-3, 2e-3)?; // line near 0 or 1
    away(line, 0.5, 1e-3)?;
    away(fract(scan + 1e-3), 1e-3, 2e-3)?; // scan near an integer
    let band = scan.floor() * 0.5;
    let on = if line >= 0.5 { 1.0 } else { 0.0 };
    c.path(if on == 1.0 { "on" } else { "off" });

    let wobble = (time * 7.0 + band).sin() * (time * 3.0).cos();
    eye[0] += sign(wobble) * wobble.abs().min(0.05) * on;

    let focus = smoothstep(0.0, 4.0, length(sub(xyz(eye), xyz(focus_point))));
    let intensity = (gamma * (fresnel + 0.2 * on).max(0.0001).log2()).exp2();

    let mut color = mixv(xyz(base), xyz(glow), intensity);
    color = sc(color, 1.0 - 0.5 * focus);
    color = add(color, sc(b.map(f64::abs), 0.1 * r[1].max(0.0)));

    outputs(vec![
        pos(mv(&proj, eye)),
        loc(0, &v4(color, sat(base[3] + fresnel))),
        loc(1, &uv),
        loc(2, &[line, focus]),
    ])
}

fn starling_frag(c: &mut Ctx) -> Option<Expect> {
    let tc: V2 = c.v(-1.0, 2.0);
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &tc);
    c.input(1, &color);
    let t = c.tex2d("texture0", tc, 0.0);
    outputs(vec![loc(0, &mul(t, color))])
}

fn color_matrix(c: &mut Ctx) -> Option<Expect> {
    let m: Mat<4, 4> = c.rmat(-1.0, 1.0);
    c.set_mat("matrix", RM, &m);
    let offset: V4 = c.v(-0.5, 0.5);
    c.set("offset", &offset);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &tc);
    let texel = c.tex2d("inputTexture", tc, 0.0);
    let a = texel[3].max(0.0001);
    let straight = v4(sc(xyz(texel), 1.0 / a), texel[3]);
    let result = add(mv(&m, straight), offset).map(sat);
    outputs(vec![loc(0, &v4(sc(xyz(result), result[3]), result[3]))])
}

fn blur5(c: &mut Ctx) -> Option<Expect> {
    let step: V4 = c.v(-0.2, 0.2);
    let tint: V4 = c.v(0.0, 2.0);
    c.set("texelStep", &step);
    c.set("tint", &tint);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &tc);
    let o1 = xy(step);
    let o2 = sc(xy(step), 2.0);
    let t = |uv: V2| c.tex2d("source", uv, 0.0);
    let mut sum = sc(t(tc), 0.375);
    sum = add(sum, sc(t(sub(tc, o1)), 0.25));
    sum = add(sum, sc(t(add(tc, o1)), 0.25));
    sum = add(sum, sc(t(sub(tc, o2)), 0.0625));
    sum = add(sum, sc(t(add(tc, o2)), 0.0625));
    outputs(vec![loc(0, &mul(sum, tint))])
}

fn skybox_f(c: &mut Ctx) -> Option<Expect> {
    let exposure: V4 = c.v(0.0, 2.0);
    c.set("exposure", &exposure);
    let dir: V3 = c.v(-1.0, 1.0);
    c.input(0, &dir);
    long(dir, 0.2)?;
    outputs(vec![loc(0, &mul(c.tex_cube("skyTexture", dir), exposure))])
}

fn distance_field_text(c: &mut Ctx) -> Option<Expect> {
    let outline_color: V4 = c.v(0.0, 1.0);
    let threshold = c.f(0.3, 0.7);
    let softness = c.f(0.02, 0.2);
    let outline_width = if c.coin() { 0.0 } else { c.f(0.0, 0.3) };
    c.set("outlineColor", &outline_color);
    c.set("threshold", &[threshold]);
    c.set("softness", &[softness]);
    c.set("outlineWidth", &[outline_width]);
    let tc: V2 = c.v(-1.0, 2.0);
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &tc);
    c.input(1, &color);
    let dist = c.tex2d("distanceField", tc, 0.0)[3];
    c.path(if dist < threshold - softness {
        "outside"
    } else if dist > threshold + softness {
        "inside"
    } else {
        "edge"
    });
    let inner = smoothstep(threshold - softness, threshold + softness, dist);
    let outer_edge = threshold - outline_width;
    let outer = smoothstep(outer_edge - softness, outer_edge + softness, dist);
    let fill = sc(color, inner);
    let outline = sc(outline_color, outer - inner);
    outputs(vec![loc(0, &add(fill, sc(outline, color[3])))])
}

fn phong(c: &mut Ctx) -> Option<Expect> {
    let light_pos: V4 = c.v(-3.0, 3.0);
    let [light_color, ambient, specular]: [V4; 3] = from_fn(|_| c.v(0.0, 1.0));
    let shininess = c.f(1.0, 16.0);
    c.set("lightPosEye", &light_pos);
    c.set("lightColor", &light_color);
    c.set("ambientColor", &ambient);
    c.set("specularColor", &specular);
    c.set("shininess", &[shininess]);
    let n_in: V3 = c.v(-1.0, 1.0);
    let eye: V3 = c.v(-3.0, 3.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &n_in);
    c.input(1, &eye);
    c.input(2, &tc);
    long(n_in, 0.2)?;
    let n = normalize(n_in);
    let l = sub(xyz(light_pos), eye);
    long(l, 0.2)?;
    let l = normalize(l);
    long(eye, 0.2)?;
    let v = normalize(neg(eye));
    let r = reflect(neg(l), n);
    let diffuse = dot(n, l).max(0.0);
    let spec = dot(r, v).max(0.0).powf(shininess);
    let albedo = c.tex2d("diffuseMap", tc, 0.0);
    let color = add(
        mul(
            xyz(albedo),
            add(xyz(ambient), sc(xyz(light_color), diffuse)),
        ),
        mul(sc(xyz(specular), spec), xyz(light_color)),
    );
    outputs(vec![loc(0, &v4(color, albedo[3]))])
}

fn fog_blend(c: &mut Ctx) -> Option<Expect> {
    let fog_color: V4 = c.v(0.0, 1.0);
    let exp_weight = c.f(0.0, 1.0);
    c.set("fogColor", &fog_color);
    c.set("expWeight", &[exp_weight]);
    let color: V4 = c.v(0.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    let fog: V2 = c.v(-0.5, 1.5);
    c.input(0, &color);
    c.input(1, &tc);
    c.input(2, &fog);
    let base = mul(c.tex2d("baseMap", tc, 0.0), color);
    let f = sat(mix(fog[0], fog[1], exp_weight));
    outputs(vec![loc(
        0,
        &v4(mixv(xyz(fog_color), xyz(base), f), base[3]),
    )])
}

fn alpha_test(c: &mut Ctx) -> Option<Expect> {
    let alpha_ref = c.f(0.0, 1.0);
    c.set("alphaRef", &[alpha_ref]);
    let color: V4 = c.v(0.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &color);
    c.input(1, &tc);
    let texel = c.tex2d("cutoutMap", tc, 0.0);
    let a = texel[3] * color[3];
    away(a, alpha_ref, 1e-4)?;
    if a < alpha_ref {
        c.path("discard");
        return Some(Expect::Discard);
    }
    c.path("kept");
    outputs(vec![loc(0, &v4(mul(xyz(texel), xyz(color)), 1.0))])
}

fn toon_bands(c: &mut Ctx) -> Option<Expect> {
    let light: V4 = c.v(-1.0, 1.0);
    let [highlight, midtone, shadow]: [V4; 3] = from_fn(|_| c.v(0.0, 1.0));
    let threshold = c.f(0.0, 0.6);
    c.set("lightDir", &light);
    c.set("highlight", &highlight);
    c.set("midtone", &midtone);
    c.set("shadow", &shadow);
    c.set("outlineThreshold", &[threshold]);
    let n_in: V3 = c.v(-1.0, 1.0);
    let view: V3 = c.v(-1.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &n_in);
    c.input(1, &view);
    c.input(2, &tc);
    long(n_in, 0.2)?;
    long(xyz(light), 0.2)?;
    long(view, 0.2)?;
    let n = normalize(n_in);
    let ndl = dot(n, normalize(xyz(light)));
    away(ndl, 0.8, 1e-4)?;
    away(ndl, 0.2, 1e-4)?;
    let band = if ndl > 0.8 {
        c.path("highlight");
        xyz(highlight)
    } else if ndl > 0.2 {
        c.path("midtone");
        xyz(midtone)
    } else {
        c.path("shadow");
        xyz(shadow)
    };
    let albedo = c.tex2d("albedoMap", tc, 0.0);
    let mut color = mul(xyz(albedo), band);
    let facing = dot(n, normalize(view)).abs();
    away(facing, threshold, 1e-4)?;
    if facing < threshold {
        c.path("outline");
        color = sc(color, 0.1);
    } else {
        c.path("face");
        color = sc(color, 1.1).map(|x| x.min(1.0));
    }
    outputs(vec![loc(0, &v4(color, albedo[3]))])
}

fn texture_lookups(c: &mut Ctx) -> Option<Expect> {
    let lod_bias = c.f(-2.0, 2.0);
    let glow_level = c.f(0.0, 4.0);
    c.set("lodBias", &[lod_bias]);
    c.set("glowLevel", &[glow_level]);
    let tc: V2 = c.v(-1.0, 2.0);
    let mut decal: V3 = c.v(-2.0, 2.0);
    decal[2] = c.f(0.5, 2.0) * c.pick(&[-1.0, 1.0]);
    let mut light: V4 = c.v(-2.0, 2.0);
    light[3] = c.f(0.5, 2.0) * c.pick(&[-1.0, 1.0]);
    c.input(0, &tc);
    c.input(1, &decal);
    c.input(2, &light);
    let base = c.tex2d("baseMap", tc, lod_bias);
    let decal = c.tex2d("decalMap", [decal[0] / decal[2], decal[1] / decal[2]], 0.0);
    // textureProj on a sampler2D with a vec4: (s/q, t/q); r is ignored.
    let projected = c.tex2d(
        "projectorMap",
        [light[0] / light[3], light[1] / light[3]],
        0.0,
    );
    let glow = c.tex2d("glowMap", tc, glow_level);
    let mut color = mixv(xyz(base), xyz(decal), decal[3]);
    color = mul(color, adds(xyz(projected), 0.5));
    color = add(color, sc(xyz(glow), glow[3]));
    outputs(vec![loc(0, &v4(color, base[3]))])
}

fn gl_mvp_fog(c: &mut Ctx) -> Option<Expect> {
    let proj: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("projection", CM, &proj);
    c.set_mat("modelView", CM, &model_view);
    let fog_params = [
        c.f(-2.0, 2.0),
        c.f(0.05, 1.0),
        c.f(-9.0, 9.0),
        c.f(-9.0, 9.0),
    ];
    c.set("fogParams", &fog_params);
    let use_fog = c.coin();
    c.loose_bool("useFog", use_fog);
    let p: V3 = c.v(-2.0, 2.0);
    let tc: V2 = c.v(-1.0, 2.0);
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &tc);
    c.input(2, &color);
    let eye = mv(&model_view, v4(p, 1.0));
    let mut fog = 1.0;
    c.path(if use_fog { "fog" } else { "no fog" });
    if use_fog {
        fog = sat(1.0 - (-eye[2] - fog_params[0]) * fog_params[1]);
    }
    outputs(vec![
        pos(mv(&proj, eye)),
        loc(0, &color),
        loc(1, &tc),
        loc(2, &[fog]),
    ])
}

fn gl_lit(c: &mut Ctx) -> Option<Expect> {
    let mvp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let model_view: Mat<4, 4> = c.rmat(-2.0, 2.0);
    let normal_matrix: Mat<3, 3> = c.rmat(-1.0, 1.0);
    c.set_mat("modelViewProjection", CM, &mvp);
    c.set_mat("modelView", CM, &model_view);
    c.set_mat("normalMatrix", CM, &normal_matrix);
    let light_pos: V4 = c.v(-3.0, 3.0);
    let [light_color, ambient]: [V4; 2] = from_fn(|_| c.v(0.0, 1.0));
    let shininess = c.f(1.0, 16.0);
    c.set("lightPosition", &light_pos);
    c.set("lightColor", &light_color);
    c.set("ambient", &ambient);
    c.set("shininess", &[shininess]);
    let (lighting, specular) = (c.coin(), c.coin());
    c.loose_bool("lightingEnabled", lighting);
    c.loose_bool("specularEnabled", specular);
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let color_in: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &color_in);

    let mut color = color_in;
    c.path(match (lighting, specular) {
        (false, _) => "unlit",
        (true, false) => "diffuse",
        (true, true) => "specular",
    });
    if lighting {
        let eye = xyz(mv(&model_view, v4(p, 1.0)));
        let nn = mv(&normal_matrix, n_in);
        long(nn, 0.2)?;
        let n = normalize(nn);
        let l = sub(xyz(light_pos), eye);
        long(l, 0.2)?;
        let l = normalize(l);
        let ndl = dot(n, l).max(0.0);
        let mut lit = add(xyz(ambient), sc(xyz(light_color), ndl));
        if specular {
            long(eye, 0.2)?;
            let h = sub(l, normalize(eye));
            long(h, 0.2)?;
            let h = normalize(h);
            lit = add(
                lit,
                sc(xyz(light_color), dot(n, h).max(0.0).powf(shininess)),
            );
        }
        let rgb = mul(xyz(color), lit);
        color = v4(rgb, color[3]);
    }
    outputs(vec![pos(mv(&mvp, v4(p, 1.0))), loc(0, &color)])
}

fn gl_skinning(c: &mut Ctx) -> Option<Expect> {
    let vp: Mat<4, 4> = c.rmat(-2.0, 2.0);
    c.set_mat("viewProjection", CM, &vp);
    let diffuse: V4 = c.v(0.0, 1.0);
    c.set("diffuseColor", &diffuse);
    let last_bone = c.int(0, 7);
    c.set("lastBone", &[last_bone as f64]);
    let bones: [Mat<4, 4>; 8] = from_fn(|_| c.rmat(-1.5, 1.5));
    for (i, b) in bones.iter().enumerate() {
        c.set_mat_at("bones", i as u32, CM, b);
    }
    let p: V3 = c.v(-2.0, 2.0);
    let tc: V2 = c.v(-1.0, 2.0);
    let indices: V2 = c.v(0.0, 7.99);
    let weights: V2 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &tc);
    c.input(2, &indices);
    c.input(3, &weights);
    let p4 = v4(p, 1.0);
    if indices[0] as i32 > last_bone {
        c.path("clamped");
    }
    let i0 = (indices[0] as i32).min(last_bone) as usize;
    let i1 = (indices[1] as i32).min(last_bone) as usize;
    let world = add(
        sc(mv(&bones[i0], p4), weights[0]),
        sc(mv(&bones[i1], p4), weights[1]),
    );
    outputs(vec![pos(mv(&vp, world)), loc(0, &diffuse), loc(1, &tc)])
}

fn gl_textured(c: &mut Ctx) -> Option<Expect> {
    let tint: V4 = c.v(0.0, 1.0);
    let alpha_ref = c.f(0.0, 1.0);
    let alpha_test = c.coin();
    c.set("tint", &tint);
    c.set("alphaRef", &[alpha_ref]);
    c.loose_bool("alphaTest", alpha_test);
    let color: V4 = c.v(0.0, 1.0);
    let tc: V2 = c.v(-1.0, 2.0);
    c.input(0, &color);
    c.input(1, &tc);
    let out = mul(mul(c.tex2d("diffuseMap", tc, 0.0), color), tint);
    away(out[3], alpha_ref, 1e-4)?;
    if alpha_test && out[3] < alpha_ref {
        c.path("discard");
        return Some(Expect::Discard);
    }
    c.path(if alpha_test { "passed" } else { "no test" });
    outputs(vec![loc(0, &out)])
}

fn sprite_vs(c: &mut Ctx) -> Option<Expect> {
    let vp: [[f64; 4]; 4] = c.rmat(-2.0, 2.0);
    c.set_hlsl_mat("viewProjection", 0, &vp);
    let size = [c.f(64.0, 512.0).floor(), c.f(64.0, 512.0).floor()];
    let viewport = [
        size[0],
        size[1],
        (1.0 / size[0]) as f32 as f64,
        (1.0 / size[1]) as f32 as f64,
    ];
    let snap = c.pick(&[0.0, 1.0, 0.25, 0.5]);
    c.set("viewportSize", &viewport);
    c.set("snapToPixel", &[snap]);
    let p: V2 = c.v(-2.0, 2.0);
    let uv: V2 = c.v(0.0, 1.0);
    let color: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &uv);
    c.input(2, &color);

    let mut clip = hmul_mv(&vp, [p[0], p[1], 0.0, 1.0]);
    (clip[3].abs() > 0.3).then_some(())?;
    let ndc = sc(xy(clip), 1.0 / clip[3]);
    (ndc[0].abs() < 4.0 && ndc[1].abs() < 4.0).then_some(())?;
    let pixel = mul(adds(sc(ndc, 0.5), 0.5), xy(viewport));
    // round() jumps at .5: keep away.
    away(fract(pixel[0]), 0.5, 0.01)?;
    away(fract(pixel[1]), 0.5, 0.01)?;
    let snapped = sc(
        adds(mul(pixel.map(f64::round), zw(viewport)), -0.5),
        2.0 * clip[3],
    );
    c.path(format!("snap {snap}"));
    let lerped = mixv(xy(clip), snapped, snap);
    clip[0] = lerped[0];
    clip[1] = lerped[1];
    outputs(vec![pos(clip), loc(0, &color), loc(1, &uv)])
}

fn sprite_ps(c: &mut Ctx) -> Option<Expect> {
    let tint: V4 = c.v(0.0, 1.0);
    let cutoff = c.f(-0.1, 1.0);
    c.set("tint", &tint);
    c.set("alphaCutoff", &[cutoff]);
    let color: V4 = c.v(0.0, 1.0);
    let uv: V2 = c.v(-1.0, 2.0);
    c.input(0, &color);
    c.input(1, &uv);
    let col = mul(mul(c.tex2d("spriteTexture", uv, 0.0), color), tint);
    away(col[3] - cutoff, 0.0, 1e-4)?;
    if col[3] - cutoff < 0.0 {
        c.path("clip");
        return Some(Expect::Discard);
    }
    c.path("kept");
    outputs(vec![loc(0, &v4(sc(xyz(col), col[3]), col[3]))])
}

fn lit_vs(c: &mut Ctx) -> Option<Expect> {
    let world: [[f64; 4]; 4] = c.rmat(-2.0, 2.0);
    let vp: [[f64; 4]; 4] = c.rmat(-2.0, 2.0);
    c.set_hlsl_mat("world", 0, &world);
    c.set_hlsl_mat("viewProjection", 0, &vp);
    let dirs: [V4; 2] = from_fn(|_| c.v(-1.0, 1.0));
    let colors: [V4; 2] = from_fn(|_| c.v(0.0, 1.0));
    for i in 0..2 {
        c.set_at("lightDirection", i as u32, &dirs[i]);
        c.set_at("lightColor", i as u32, &colors[i]);
    }
    let [ambient, material]: [V4; 2] = from_fn(|_| c.v(0.0, 1.0));
    c.set("ambientColor", &ambient);
    c.set("materialColor", &material);
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let uv: V2 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &uv);

    let world_pos = hmul_vm(v4(p, 1.0), &world);
    let world3: [[f64; 3]; 3] = from_fn(|r| from_fn(|col| world[r][col]));
    let nn = hmul_vm(n_in, &world3);
    long(nn, 0.2)?;
    let n = normalize(nn);
    let mut light = xyz(ambient);
    for i in 0..2 {
        light = add(light, sc(xyz(colors[i]), sat(dot(n, xyz(dirs[i])))));
    }
    outputs(vec![
        pos(hmul_vm(world_pos, &vp)),
        loc(0, &v4(mul(xyz(material), light), material[3])),
        loc(1, &uv),
    ])
}

fn skinned_vs(c: &mut Ctx) -> Option<Expect> {
    let vp: [[f64; 4]; 4] = c.rmat(-2.0, 2.0);
    c.set_hlsl_mat("viewProjection", 0, &vp);
    let light: V4 = c.v(-1.0, 1.0);
    c.set("lightDirection", &light);
    // float4x3: 4 rows, 3 columns (m[row][column]).
    let bones: [[[f64; 3]; 4]; 20] = from_fn(|_| from_fn(|_| c.v(-1.5, 1.5)));
    for (i, b) in bones.iter().enumerate() {
        c.set_hlsl_mat("bones", i as u32, b);
    }
    let p: V3 = c.v(-2.0, 2.0);
    let n_in: V3 = c.v(-1.0, 1.0);
    let uv: V2 = c.v(0.0, 1.0);
    // uint4 BLENDINDICES arrive as whole numbers in floats.
    let indices: V4 = from_fn(|_| c.int(0, 19) as f64);
    let weights: V4 = c.v(0.0, 1.0);
    c.input(0, &p);
    c.input(1, &n_in);
    c.input(2, &uv);
    c.input(3, &indices);
    c.input(4, &weights);

    let p4 = v4(p, 1.0);
    let mut skinned_pos = [0.0; 3];
    let mut skinned_normal = [0.0; 3];
    for i in 0..4 {
        let bone = &bones[indices[i] as usize];
        let bone3: [[f64; 3]; 3] = from_fn(|r| bone[r]);
        skinned_pos = add(skinned_pos, sc(hmul_vm(p4, bone), weights[i]));
        skinned_normal = add(skinned_normal, sc(hmul_vm(n_in, &bone3), weights[i]));
    }
    long(skinned_normal, 0.2)?;
    let ndl = sat(dot(normalize(skinned_normal), xyz(light)));
    let shade = 0.25 + 0.75 * ndl;
    outputs(vec![
        pos(hmul_vm(v4(skinned_pos, 1.0), &vp)),
        loc(0, &[shade, shade, shade, 1.0]),
        loc(1, &uv),
    ])
}

fn tonemap(c: &mut Ctx) -> Option<Expect> {
    let exposure = c.f(0.25, 4.0);
    let bloom_strength = c.f(0.0, 2.0);
    let vignette_strength = c.f(0.0, 1.5);
    let center: V2 = c.v(0.2, 0.8);
    c.set("exposure", &[exposure]);
    c.set("bloomStrength", &[bloom_strength]);
    c.set("vignetteStrength", &[vignette_strength]);
    c.set("vignetteCenter", &center);
    let uv: V2 = c.v(-0.5, 1.5);
    c.input(0, &uv);
    let mut hdr = sc(xyz(c.tex2d("sceneTexture", uv, 0.0)), exposure);
    hdr = add(
        hdr,
        sc(xyz(c.tex2d("bloomTexture", uv, 1.0)), bloom_strength),
    );
    let mut mapped: V3 = from_fn(|i| hdr[i] / (1.0 + hdr[i]));
    let d = sub(uv, center);
    let v = smoothstep(0.8, 0.2, dot(d, d) * 2.0);
    mapped = sc(mapped, mix(1.0, v, vignette_strength));
    let luma = dot(mapped, [0.299, 0.587, 0.114]);
    if mapped.iter().any(|x| *x < 0.0) {
        c.path("saturated");
    }
    outputs(vec![loc(0, &v4(mapped.map(sat), luma))])
}

shader_tests! {
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
}

/// The file covers at least 30 corpus shaders, each with a source file and both variants.
#[test]
fn covers_the_corpus() {
    assert!(
        COVERED.len() >= 30,
        "only {} shaders covered",
        COVERED.len()
    );
    for stem in COVERED {
        let dir = fixtures("glsl");
        assert!(dir.join(stem).exists(), "{stem}: no source");
        for variant in ["spv", "opt.spv"] {
            assert!(
                dir.join(format!("{stem}.{variant}")).exists(),
                "{stem}.{variant}"
            );
        }
    }
}

/// The vertex shaders again, as naga's GLSL front end and SPIR-V back end make them (its GLSL
/// front end has no combined image-samplers, which every fragment shader here uses).
macro_rules! naga_tests {
    ($($test:ident: $stem:literal => $reference:ident [$($path:literal),*];)*) => {
        $(
            #[test]
            fn $test() {
                check_naga($stem, $reference, &[$($path),*]);
            }
        )*
    };
}

naga_tests! {
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
