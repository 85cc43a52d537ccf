//! The SPIR-V → MIR lowering computes what GLSL says, operation by operation.
//!
//! Each test is a tiny GLSL 450 vertex shader, compiled here by naga (GLSL front end, SPIR-V
//! back end), lowered with `tests::mirtest::lower`, and run in the MIR interpreter before and
//! after `mir::passes::optimize` on random inputs. Every lane of every user output is compared
//! with a value computed in plain Rust f64 from the same inputs, by an independent
//! implementation of the GLSL semantics (the `reference` closures and the helpers below).
//!
//! Conventions:
//! - inputs are `layout(location = k) in vec4 ak;` (declared in reverse order, so that their
//!   order in `module.inputs` is not their location order; they are found by location);
//! - outputs are `layout(location = k) out <type> rk;`, found by location in `module.outputs`;
//! - integers are made in the shader with `ivec4(ak)`/`uvec4(ak)` from inputs drawn as whole
//!   numbers (the compiler carries integers in floats);
//! - inputs are drawn where each function is defined, and a case whose result would hinge on
//!   rounding (a value within 1e-3 of a rounding or comparison threshold, a near-singular
//!   refraction) is re-drawn: the `reference` closure returns `None` for it.
//!
//! Each test also asserts that its SPIR-V contains the instructions it is there for (naga may
//! write an operation differently from glslang: integer `clamp` as min and max, signed `%` as
//! `a - b * (a / b)`). What naga never writes (GLSL.std.450 `Round`, `SClamp`/`UClamp`,
//! `OpSRem`/`OpSMod`, `OpCompositeInsert`, `OpVectorInsertDynamic`, two-vector shuffles,
//! non-square outer products, scalar geometric functions, specialisation constants) is checked
//! at the end on a module written in SPIR-V assembly and assembled by `frontend_spirv::asm`.

#![allow(clippy::needless_range_loop)] // index-based matrix and lane maths reads closest to GLSL

use std::collections::BTreeSet;

use mir::eval::{Env, Lanes, Outcome, run};
use tests::mirtest::{Procedural, Rng, lower};

/// Random cases per shader (each run on the lowered and on the optimised MIR).
const CASES: usize = 50;
/// Tolerance, relative (absolute below 1): the interpreter computes in f32 with the standard
/// library's functions, against an f64 reference. The largest difference seen is 1.7e-6 (asin,
/// through the compiler's atan polynomial, documented to 1e-5 rad); others are below 7e-7.
/// Tests whose results are exact (comparisons, logic, integers) use 0.
const TOL: f64 = 1e-5;

// ------------------------------------------------------------------------------------------
// The harness.
// ------------------------------------------------------------------------------------------

/// The vertex shader with inputs `a0..a{inputs-1}` (vec4) and outputs `r0..` of the given
/// types, around `body` (the statements of `main`, which also sets `gl_Position`).
fn shader(inputs: usize, outputs: &[&str], decls: &str, body: &str) -> String {
    let mut s = String::from("#version 450\n");
    for k in (0..inputs).rev() {
        s += &format!("layout(location = {k}) in vec4 a{k};\n");
    }
    for (k, ty) in outputs.iter().enumerate() {
        s += &format!("layout(location = {k}) out {ty} r{k};\n");
    }
    s += decls;
    s += "\nvoid main() {\n";
    s += body;
    s += "\n    gl_Position = vec4(0.0);\n}\n";
    s
}

/// naga's SPIR-V for a GLSL vertex shader, as the library's GLSL input makes it.
fn naga_spirv(name: &str, source: &str) -> Vec<u8> {
    spv2retro::spirv_from_glsl(source, spv2retro::Stage::Vertex)
        .unwrap_or_else(|e| panic!("{name}: {e}\n{source}"))
}

/// SPIR-V assembled from text by the project's assembler.
fn assembled(name: &str, text: &str) -> Vec<u8> {
    let options = frontend_spirv::asm::Options {
        version: Some((1, 0)),
        preserve_numeric_ids: false,
    };
    let out = frontend_spirv::asm::assemble(text, &options)
        .unwrap_or_else(|d| panic!("{name}: {}", d.render(name, Some(text))));
    out.words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The instructions in a SPIR-V binary: opcode names (`"Dot"`), and `"GLSL.Name"` for
/// GLSL.std.450 instructions (any `OpExtInst` counts as one: these modules import nothing
/// else).
fn spirv_ops(bytes: &[u8]) -> BTreeSet<String> {
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut ops = BTreeSet::new();
    let mut at = 5;
    while at < words.len() {
        let (count, code) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        assert!(count > 0, "malformed SPIR-V at word {at}");
        let op = spirv::Op::from_u32(code).unwrap_or_else(|| panic!("opcode {code}"));
        if op == spirv::Op::ExtInst {
            let g = spirv::GlslStd450Op::from_u32(words[at + 4]).expect("GLSL.std.450 instruction");
            ops.insert(format!("GLSL.{g:?}"));
        } else {
            ops.insert(format!("{op:?}"));
        }
        at += count;
    }
    ops
}

/// Inputs by location, as the shader gets them.
type Drawn = Vec<Lanes>;
/// The same in f64, for references.
type In = [[f64; 4]];
/// Expected values by output location (each as many lanes as the output has).
type Expected = Vec<Vec<f64>>;

fn seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    }) | 1
}

/// Lowers `bytes`, optimises a copy, and runs both on [`CASES`] inputs from `draw`, comparing
/// each output lane with `reference` (`None`: re-draw the case) within `tol`. `Err` lists the
/// differences (or the lowering's error).
fn try_check(
    name: &str,
    bytes: &[u8],
    tol: f64,
    draw: &dyn Fn(&mut Rng) -> Drawn,
    reference: &dyn Fn(&In) -> Option<Expected>,
) -> Result<(), String> {
    let lowered = lower(bytes).map_err(|e| format!("{name}: lowering failed:\n{e}"))?;
    let mut optimised = lowered.clone();
    mir::passes::optimize(&mut optimised).map_err(|e| format!("{name}: optimize: {e}"))?;
    assert_eq!(lowered.inputs, optimised.inputs, "{name}: inputs changed");
    assert_eq!(
        lowered.outputs, optimised.outputs,
        "{name}: outputs changed"
    );
    let mut rng = Rng(seed(name));
    let mut failures = Vec::new();
    let (mut compared, mut drawn) = (0, 0);
    while compared < CASES {
        drawn += 1;
        assert!(drawn < CASES * 20, "{name}: too many cases re-drawn");
        let values = draw(&mut rng);
        let wide: Vec<[f64; 4]> = values.iter().map(|l| l.map(f64::from)).collect();
        let Some(expected) = reference(&wide) else {
            continue;
        };
        compared += 1;
        for (stage, module) in [("lowered", &lowered), ("optimised", &optimised)] {
            let inputs: Vec<Lanes> = module
                .inputs
                .iter()
                .map(|(_, input)| {
                    *values.get(input.location as usize).unwrap_or_else(|| {
                        panic!("{name}: no value drawn for location {}", input.location)
                    })
                })
                .collect();
            let env = Env {
                inputs: &inputs,
                uniforms: &[],
                bools: &[],
                textures: &Procedural,
            };
            let got = match run(module, &env) {
                Ok(Outcome::Outputs(got)) => got,
                other => return Err(format!("{name} ({stage}): run gave {other:?}")),
            };
            for (location, want) in expected.iter().enumerate() {
                let index = module
                    .outputs
                    .iter()
                    .position(|o| o.location == Some(location as u32))
                    .unwrap_or_else(|| panic!("{name}: no output at location {location}"));
                let width = module.outputs[index].lanes as usize;
                assert_eq!(
                    width,
                    want.len(),
                    "{name}: output r{location} has {width} lanes, the reference {}",
                    want.len()
                );
                for (lane, &w) in want.iter().enumerate() {
                    let g = f64::from(got[index][lane]);
                    // A NaN fails too.
                    let agrees = (g - w).abs() <= tol * w.abs().max(1.0);
                    if !agrees {
                        failures.push(format!(
                            "{stage}, case {compared}: r{location}[{lane}] = {g}, expected {w} \
                             (inputs {values:?})"
                        ));
                    }
                }
            }
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        let n = failures.len();
        failures.truncate(12);
        Err(format!(
            "{name}: {n} lanes differ, the first ones:\n{}",
            failures.join("\n")
        ))
    }
}

/// [`try_check`] on naga's SPIR-V for `glsl`, panicking on any difference; see [`check_spirv`].
fn check(
    name: &str,
    glsl: &str,
    covers: &[&str],
    tol: f64,
    draw: impl Fn(&mut Rng) -> Drawn,
    reference: impl Fn(&In) -> Option<Expected>,
) {
    check_spirv(
        name,
        &naga_spirv(name, glsl),
        covers,
        tol,
        &draw,
        &reference,
    );
}

/// [`try_check`], panicking on any difference; the SPIR-V must contain each instruction of
/// `covers` (see [`spirv_ops`]), so that the test checks what it claims to.
fn check_spirv(
    name: &str,
    bytes: &[u8],
    covers: &[&str],
    tol: f64,
    draw: &dyn Fn(&mut Rng) -> Drawn,
    reference: &dyn Fn(&In) -> Option<Expected>,
) {
    let ops = spirv_ops(bytes);
    let missing: Vec<&&str> = covers.iter().filter(|c| !ops.contains(**c)).collect();
    assert!(
        missing.is_empty(),
        "{name}: the SPIR-V has no {missing:?}; it has {ops:?}"
    );
    if let Err(e) = try_check(name, bytes, tol, draw, reference) {
        panic!("{e}");
    }
}

// ------------------------------------------------------------------------------------------
// Drawing inputs.
// ------------------------------------------------------------------------------------------

/// `n` vec4 inputs, every lane from `lane`.
fn draw_all(rng: &mut Rng, n: usize, lane: impl Fn(&mut Rng) -> f32) -> Drawn {
    (0..n)
        .map(|_| [lane(rng), lane(rng), lane(rng), lane(rng)])
        .collect()
}

/// A whole number in [lo, hi].
fn whole(rng: &mut Rng, lo: i32, hi: i32) -> f32 {
    let span = (hi - lo + 1) as u64;
    (lo as i64 + (rng.next_u64() % span) as i64) as f32
}

/// A whole number in [lo, hi] other than 0.
fn nonzero(rng: &mut Rng, lo: i32, hi: i32) -> f32 {
    loop {
        let x = whole(rng, lo, hi);
        if x != 0.0 {
            return x;
        }
    }
}

/// One of `values`.
fn pick(rng: &mut Rng, values: &[f32]) -> f32 {
    values[(rng.next_u64() % values.len() as u64) as usize]
}

/// Whether `x` is at least 1e-3 from every whole multiple of `step`.
fn clear_of(x: f64, step: f64) -> bool {
    let r = x / step;
    (r - r.round()).abs() * step >= 1e-3
}

// ------------------------------------------------------------------------------------------
// Plain-Rust GLSL semantics (f64).
// ------------------------------------------------------------------------------------------

/// The lanes of `v` named by `s` (`"xyz"`, `"wzyx"`, ...).
fn sw(v: &[f64; 4], s: &str) -> Vec<f64> {
    s.chars()
        .map(|c| match c {
            'x' => v[0],
            'y' => v[1],
            'z' => v[2],
            'w' => v[3],
            _ => panic!("swizzle {s}"),
        })
        .collect()
}

/// The concatenation of the parts.
fn cat(parts: &[&[f64]]) -> Vec<f64> {
    parts.concat()
}

/// A GLSL matrix: `m[column][row]`.
type M = Vec<Vec<f64>>;

fn mat(cols: &[Vec<f64>]) -> M {
    cols.to_vec()
}
fn mat_vec(m: &M, v: &[f64]) -> Vec<f64> {
    assert_eq!(m.len(), v.len());
    (0..m[0].len())
        .map(|r| (0..m.len()).map(|c| m[c][r] * v[c]).sum())
        .collect()
}
fn vec_mat(v: &[f64], m: &M) -> Vec<f64> {
    assert_eq!(m[0].len(), v.len());
    m.iter()
        .map(|col| col.iter().zip(v).map(|(a, b)| a * b).sum())
        .collect()
}
fn mat_mul(a: &M, b: &M) -> M {
    assert_eq!(a.len(), b[0].len());
    b.iter()
        .map(|bc| {
            (0..a[0].len())
                .map(|r| (0..a.len()).map(|k| a[k][r] * bc[k]).sum())
                .collect()
        })
        .collect()
}
fn transpose(m: &M) -> M {
    (0..m[0].len())
        .map(|r| m.iter().map(|col| col[r]).collect())
        .collect()
}
/// `outerProduct(c, r)`: column `j` is `c * r[j]`.
fn outer(c: &[f64], r: &[f64]) -> M {
    r.iter()
        .map(|&s| c.iter().map(|&x| x * s).collect())
        .collect()
}
fn mat_scale(m: &M, s: f64) -> M {
    m.iter()
        .map(|col| col.iter().map(|x| x * s).collect())
        .collect()
}
/// The determinant by the Leibniz formula (sum over permutations).
fn det(m: &M) -> f64 {
    let n = m.len();
    let mut perm: Vec<usize> = (0..n).collect();
    let mut total = 0.0;
    permutations(&mut perm, 0, &mut |p| {
        let inversions = (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .filter(|&(i, j)| p[i] > p[j])
            .count();
        let sign = if inversions % 2 == 0 { 1.0 } else { -1.0 };
        total += sign * (0..n).map(|c| m[c][p[c]]).product::<f64>();
    });
    total
}
fn permutations(p: &mut Vec<usize>, k: usize, f: &mut dyn FnMut(&[usize])) {
    if k == p.len() {
        f(p);
        return;
    }
    for i in k..p.len() {
        p.swap(k, i);
        permutations(p, k + 1, f);
        p.swap(k, i);
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
fn length(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}
fn scale(a: &[f64], s: f64) -> Vec<f64> {
    a.iter().map(|x| x * s).collect()
}
fn sub(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x - y).collect()
}
fn add(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}
fn normalize(a: &[f64]) -> Vec<f64> {
    scale(a, 1.0 / length(a))
}
fn cross(a: &[f64], b: &[f64]) -> Vec<f64> {
    vec![
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
/// `faceforward(n, i, nref)`: `n` if `dot(nref, i) < 0`, else `-n`.
fn faceforward(n: &[f64], i: &[f64], nref: &[f64]) -> Vec<f64> {
    if dot(nref, i) < 0.0 {
        n.to_vec()
    } else {
        scale(n, -1.0)
    }
}
/// `reflect(i, n) = i - 2 dot(n, i) n`.
fn reflect(i: &[f64], n: &[f64]) -> Vec<f64> {
    sub(i, &scale(n, 2.0 * dot(n, i)))
}
/// `refract(i, n, eta)`, 0 on total internal reflection.
fn refract(i: &[f64], n: &[f64], eta: f64) -> Vec<f64> {
    let d = dot(n, i);
    let k = 1.0 - eta * eta * (1.0 - d * d);
    if k < 0.0 {
        vec![0.0; i.len()]
    } else {
        sub(&scale(i, eta), &scale(n, eta * d + k.sqrt()))
    }
}
/// The `k` of `refract`, which decides total internal reflection.
fn refract_k(i: &[f64], n: &[f64], eta: f64) -> f64 {
    let d = dot(n, i);
    1.0 - eta * eta * (1.0 - d * d)
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
/// Round half to even.
fn round_even(x: f64) -> f64 {
    let f = x.floor();
    let d = x - f;
    let up = d > 0.5 || (d == 0.5 && f % 2.0 != 0.0);
    if up { f + 1.0 } else { f }
}
/// Round half away from zero.
fn round_away(x: f64) -> f64 {
    sign(x) * (x.abs() + 0.5).floor()
}
fn fract(x: f64) -> f64 {
    x - x.floor()
}
fn clamp(x: f64, lo: f64, hi: f64) -> f64 {
    x.max(lo).min(hi)
}
fn mix(x: f64, y: f64, a: f64) -> f64 {
    x * (1.0 - a) + y * a
}
fn step(edge: f64, x: f64) -> f64 {
    if x < edge { 0.0 } else { 1.0 }
}
fn smoothstep(e0: f64, e1: f64, x: f64) -> f64 {
    let t = clamp((x - e0) / (e1 - e0), 0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}
/// A bool as GLSL's `float(b)`.
fn b(x: bool) -> f64 {
    if x { 1.0 } else { 0.0 }
}
/// GLSL `int(x)`: truncation toward zero.
fn int(x: f64) -> f64 {
    x.trunc()
}
/// GLSL integer `/`: truncates toward zero.
fn idiv(a: f64, b: f64) -> f64 {
    let (a, b) = (a as i64, b as i64);
    (a / b) as f64
}
/// GLSL integer `%` (for `int`, with the sign of the dividend: `a - b * (a / b)`).
fn irem(a: f64, b: f64) -> f64 {
    let (a, b) = (a as i64, b as i64);
    (a % b) as f64
}
/// Lane-wise `f` over two 4-lane inputs.
fn zip4(a: &[f64; 4], b: &[f64; 4], f: impl Fn(f64, f64) -> f64) -> Vec<f64> {
    (0..4).map(|l| f(a[l], b[l])).collect()
}
/// Lane-wise `f` over one 4-lane input.
fn map4(a: &[f64; 4], f: impl Fn(f64) -> f64) -> Vec<f64> {
    a.iter().map(|&x| f(x)).collect()
}

// ------------------------------------------------------------------------------------------
// Vectors and matrices.
// ------------------------------------------------------------------------------------------

#[test]
fn vector_and_matrix_products() {
    let glsl = shader(
        6,
        &["vec4"; 25],
        "",
        r"
    mat4 m = mat4(a0, a1, a2, a3);
    r0 = a4 * a5.x;
    r1 = a5.y * a4.wzyx;
    r2 = m * a4;
    r3 = a4 * m;
    r4 = vec4(dot(a0, a1), dot(a2.xyz, a3.zyx), dot(a4.xy, a5.wz), dot(a1.yzw, a5.xxy));
    mat4 ms = m * a5.z;
    r5 = ms[0]; r6 = ms[1]; r7 = ms[2]; r8 = ms[3];
    mat4 sm = a5.w * m;
    r9 = sm[0]; r10 = sm[1]; r11 = sm[2]; r12 = sm[3];
    mat4 mm = m * mat4(a4, a5, a0.wzyx, a1.yxwz);
    r13 = mm[0]; r14 = mm[1]; r15 = mm[2]; r16 = mm[3];
    mat4 t = transpose(m);
    r17 = t[0]; r18 = t[1]; r19 = t[2]; r20 = t[3];
    mat4 o = outerProduct(a4, a5);
    r21 = o[0]; r22 = o[1]; r23 = o[2]; r24 = o[3];",
    );
    check(
        "vector_and_matrix_products",
        &glsl,
        &[
            "VectorTimesScalar",
            "MatrixTimesScalar",
            "MatrixTimesVector",
            "VectorTimesMatrix",
            "MatrixTimesMatrix",
            "Dot",
            "Transpose",
            "OuterProduct",
        ],
        TOL,
        |rng| draw_all(rng, 6, |r| r.float(-2.0, 2.0)),
        |a| {
            let m = mat(&[a[0].to_vec(), a[1].to_vec(), a[2].to_vec(), a[3].to_vec()]);
            let mut out = vec![
                scale(&a[4], a[5][0]),
                scale(&sw(&a[4], "wzyx"), a[5][1]),
                mat_vec(&m, &a[4]),
                vec_mat(&a[4], &m),
                vec![
                    dot(&a[0], &a[1]),
                    dot(&sw(&a[2], "xyz"), &sw(&a[3], "zyx")),
                    dot(&sw(&a[4], "xy"), &sw(&a[5], "wz")),
                    dot(&sw(&a[1], "yzw"), &sw(&a[5], "xxy")),
                ],
            ];
            out.extend(mat_scale(&m, a[5][2]));
            out.extend(mat_scale(&m, a[5][3]));
            let n = mat(&[
                a[4].to_vec(),
                a[5].to_vec(),
                sw(&a[0], "wzyx"),
                sw(&a[1], "yxwz"),
            ]);
            out.extend(mat_mul(&m, &n));
            out.extend(transpose(&m));
            out.extend(outer(&a[4], &a[5]));
            Some(out)
        },
    );
}

#[test]
fn matrix_shapes() {
    let glsl = shader(
        6,
        &[
            "vec4", "vec3", "vec3", "vec3", "vec2", "vec4", "vec3", "vec2", "vec4", "vec2", "vec3",
            "vec4", "vec4", "vec4", "vec3", "vec3", "vec3", "vec2", "vec2", "vec2", "vec3", "vec3",
            "vec3", "vec3", "vec3", "vec3", "vec4", "vec4", "vec4", "vec4", "vec4", "vec3", "vec3",
        ],
        "",
        r"
    mat2 m2 = mat2(a0.xy, a0.zw);
    mat3 m3 = mat3(a1.xyz, a2.xyz, a3.xyz);
    mat2x3 m23 = mat2x3(a1.xyz, a2.xyz);
    mat3x4 m34 = mat3x4(a3, a4, a5);
    mat4x2 m42 = mat4x2(a0.xy, a1.zw, a2.yx, a5.wz);
    mat3x2 m32 = mat3x2(a4.xy, a4.zw, a5.xy);
    r0 = vec4(m2 * a4.xy, a4.zw * m2);
    r1 = m3 * a4.xyz;
    r2 = a5.xyz * m3;
    r3 = m23 * a4.zw;
    r4 = a4.xyz * m23;
    r5 = m34 * a4.xyz;
    r6 = a5 * m34;
    r7 = m42 * a5;
    r8 = a3.xy * m42;
    r9 = m32 * a3.xyz;
    r10 = a3.zw * m32;
    mat2x4 p = m34 * m23;
    r11 = p[0]; r12 = p[1];
    mat2 q2 = m2 * mat2(a5.xy, a5.zw);
    r13 = vec4(q2[0], q2[1]);
    mat3 q3 = m3 * mat3(a4.xyz, a5.xyz, a0.xyz);
    r14 = q3[0]; r15 = q3[1]; r16 = q3[2];
    mat3x2 t23 = transpose(m23);
    r17 = t23[0]; r18 = t23[1]; r19 = t23[2];
    mat4x3 t34 = transpose(m34);
    r20 = t34[0]; r21 = t34[1]; r22 = t34[2]; r23 = t34[3];
    // naga types outerProduct(vec3, vec2) as mat3x2 (it should be mat2x3) and rejects the
    // store, so only square outer products here.
    mat3 o3 = outerProduct(a0.xyz, a1.zxy);
    mat2 o2 = outerProduct(a0.xy, a1.wz);
    r24 = vec3(o2[0], o2[1].x); r25 = vec3(o2[1].y, o3[2].yz);
    r31 = o3[0]; r32 = o3[1];
    mat3x4 ms = m34 * a0.x;
    r26 = ms[0]; r27 = ms[1]; r28 = ms[2];
    mat4x2 p42 = m32 * mat4x3(a0.xyz, a1.xyz, a2.xyz, a3.xyz);
    r29 = vec4(p42[0], p42[1]); r30 = vec4(p42[2], p42[3]);",
    );
    check(
        "matrix_shapes",
        &glsl,
        &[
            "MatrixTimesScalar",
            "MatrixTimesVector",
            "VectorTimesMatrix",
            "MatrixTimesMatrix",
            "Transpose",
            "OuterProduct",
        ],
        TOL,
        |rng| draw_all(rng, 6, |r| r.float(-2.0, 2.0)),
        |a| {
            let m2 = mat(&[sw(&a[0], "xy"), sw(&a[0], "zw")]);
            let m3 = mat(&[sw(&a[1], "xyz"), sw(&a[2], "xyz"), sw(&a[3], "xyz")]);
            let m23 = mat(&[sw(&a[1], "xyz"), sw(&a[2], "xyz")]);
            let m34 = mat(&[a[3].to_vec(), a[4].to_vec(), a[5].to_vec()]);
            let m42 = mat(&[
                sw(&a[0], "xy"),
                sw(&a[1], "zw"),
                sw(&a[2], "yx"),
                sw(&a[5], "wz"),
            ]);
            let m32 = mat(&[sw(&a[4], "xy"), sw(&a[4], "zw"), sw(&a[5], "xy")]);
            let mut out = vec![
                cat(&[
                    &mat_vec(&m2, &sw(&a[4], "xy")),
                    &vec_mat(&sw(&a[4], "zw"), &m2),
                ]),
                mat_vec(&m3, &sw(&a[4], "xyz")),
                vec_mat(&sw(&a[5], "xyz"), &m3),
                mat_vec(&m23, &sw(&a[4], "zw")),
                vec_mat(&sw(&a[4], "xyz"), &m23),
                mat_vec(&m34, &sw(&a[4], "xyz")),
                vec_mat(&a[5], &m34),
                mat_vec(&m42, &a[5]),
                vec_mat(&sw(&a[3], "xy"), &m42),
                mat_vec(&m32, &sw(&a[3], "xyz")),
                vec_mat(&sw(&a[3], "zw"), &m32),
            ];
            out.extend(mat_mul(&m34, &m23));
            let q2 = mat_mul(&m2, &mat(&[sw(&a[5], "xy"), sw(&a[5], "zw")]));
            out.push(cat(&[&q2[0], &q2[1]]));
            out.extend(mat_mul(
                &m3,
                &mat(&[sw(&a[4], "xyz"), sw(&a[5], "xyz"), sw(&a[0], "xyz")]),
            ));
            out.extend(transpose(&m23));
            out.extend(transpose(&m34));
            let o3 = outer(&sw(&a[0], "xyz"), &sw(&a[1], "zxy"));
            let o2 = outer(&sw(&a[0], "xy"), &sw(&a[1], "wz"));
            out.push(cat(&[&o2[0], &o2[1][..1]]));
            out.push(cat(&[&o2[1][1..], &o3[2][1..]]));
            out.extend(mat_scale(&m34, a[0][0]));
            let p42 = mat_mul(
                &m32,
                &mat(&[
                    sw(&a[0], "xyz"),
                    sw(&a[1], "xyz"),
                    sw(&a[2], "xyz"),
                    sw(&a[3], "xyz"),
                ]),
            );
            out.push(cat(&[&p42[0], &p42[1]]));
            out.push(cat(&[&p42[2], &p42[3]]));
            out.push(o3[0].clone());
            out.push(o3[1].clone());
            Some(out)
        },
    );
}

#[test]
fn determinants() {
    let glsl = shader(
        4,
        &["vec4", "vec2"],
        "",
        r"
    r0 = vec4(determinant(mat2(a0.xy, a0.zw)),
              determinant(mat3(a1.xyz, a2.xyz, a3.xyz)),
              determinant(mat4(a0, a1, a2, a3)),
              determinant(mat3(a0.wzy, a3.xzw, a2.ywx)));
    r1 = vec2(determinant(mat2(a3.xy, a2.zw)), determinant(mat4(a3, a1.wzyx, a0, a2.yxwz)));",
    );
    check(
        "determinants",
        &glsl,
        &["GLSL.Determinant"],
        TOL,
        |rng| draw_all(rng, 4, |r| r.float(-1.5, 1.5)),
        |a| {
            let m4 = |c: [Vec<f64>; 4]| mat(&c);
            Some(vec![
                vec![
                    det(&mat(&[sw(&a[0], "xy"), sw(&a[0], "zw")])),
                    det(&mat(&[
                        sw(&a[1], "xyz"),
                        sw(&a[2], "xyz"),
                        sw(&a[3], "xyz"),
                    ])),
                    det(&m4([
                        a[0].to_vec(),
                        a[1].to_vec(),
                        a[2].to_vec(),
                        a[3].to_vec(),
                    ])),
                    det(&mat(&[
                        sw(&a[0], "wzy"),
                        sw(&a[3], "xzw"),
                        sw(&a[2], "ywx"),
                    ])),
                ],
                vec![
                    det(&mat(&[sw(&a[3], "xy"), sw(&a[2], "zw")])),
                    det(&m4([
                        a[3].to_vec(),
                        sw(&a[1], "wzyx"),
                        a[0].to_vec(),
                        sw(&a[2], "yxwz"),
                    ])),
                ],
            ])
        },
    );
}

#[test]
fn composites() {
    let glsl = shader(
        4,
        &[
            "vec4", "vec4", "vec4", "vec4", "vec4", "vec4", "vec4", "vec4", "vec4", "vec3", "vec3",
            "vec3", "vec4", "vec4", "vec4", "vec4", "vec4", "vec3", "vec3", "vec3", "vec3", "vec4",
            "vec4",
        ],
        "struct S { vec4 p; float f; vec2 q; };",
        r"
    vec4 c0 = vec4(a0.x, a1.yz, 2.5);
    vec3 c1 = vec3(a2.w);
    vec2 c2 = vec2(a3);
    r0 = c0;
    r1 = vec4(c1, c2.x);
    r2 = vec4(c2.y, a0.z, a1.w, a2.x);
    r3 = a0.wzyx;
    r4 = vec4(a1.xxy, a2.w);
    r5 = vec4(a0.xy, a1.zw);
    vec4 v = a2;
    v.y = a3.x;
    v.zw = a1.yx;
    r6 = v;
    S s = S(a0, a1.x, a2.zw);
    s.f = s.f + a3.y;
    s.q.y = a0.w;
    r7 = vec4(s.p.z, s.f, s.q);
    float arr[3] = float[3](a0.x, a1.y, a2.z);
    arr[1] = a3.w;
    r8 = vec4(arr[0], arr[1], arr[2], float(arr.length()));
    mat4 m4 = mat4(a0, a1, a2, a3);
    mat3 m3 = mat3(m4);
    r9 = m3[0]; r10 = m3[1]; r11 = m3[2];
    mat4 w = mat4(mat2(a0.xy, a1.xy));
    r12 = w[0]; r13 = w[1]; r14 = w[2]; r15 = w[3];
    mat2 d = mat2(a3.z);
    r16 = vec4(d[0], d[1]);
    mat3 e = mat3(a0.x, a0.y, a0.z, a1.x, a1.y, a1.z, a2.x, a2.y, a2.z);
    r17 = e[1];
    r18 = (m3 + e)[2];
    r19 = (m3 - e)[0];
    r20 = (-e)[2];
    m4[1][2] = a3.x;
    m4[3] = a2.wzyx;
    r21 = m4[1];
    r22 = m4[3];",
    );
    check(
        "composites",
        &glsl,
        &[
            "CompositeConstruct",
            "CompositeExtract",
            "VectorShuffle",
            "AccessChain",
            "FAdd",
            "FSub",
        ],
        TOL,
        |rng| draw_all(rng, 4, |r| r.float(-2.0, 2.0)),
        |a| {
            let m4 = mat(&[a[0].to_vec(), a[1].to_vec(), a[2].to_vec(), a[3].to_vec()]);
            let m3: M = (0..3).map(|c| m4[c][..3].to_vec()).collect();
            let e = mat(&[sw(&a[0], "xyz"), sw(&a[1], "xyz"), sw(&a[2], "xyz")]);
            let mut out = vec![
                vec![a[0][0], a[1][1], a[1][2], 2.5],
                vec![a[2][3], a[2][3], a[2][3], a[3][0]],
                vec![a[3][1], a[0][2], a[1][3], a[2][0]],
                sw(&a[0], "wzyx"),
                vec![a[1][0], a[1][0], a[1][1], a[2][3]],
                cat(&[&sw(&a[0], "xy"), &sw(&a[1], "zw")]),
                vec![a[2][0], a[3][0], a[1][1], a[1][0]],
                vec![a[0][2], a[1][0] + a[3][1], a[2][2], a[0][3]],
                vec![a[0][0], a[3][3], a[2][2], 3.0],
            ];
            out.extend(m3.clone());
            out.extend([
                vec![a[0][0], a[0][1], 0.0, 0.0],
                vec![a[1][0], a[1][1], 0.0, 0.0],
                vec![0.0, 0.0, 1.0, 0.0],
                vec![0.0, 0.0, 0.0, 1.0],
            ]);
            out.push(vec![a[3][2], 0.0, 0.0, a[3][2]]);
            out.push(e[1].clone());
            out.push(add(&m3[2], &e[2]));
            out.push(sub(&m3[0], &e[0]));
            out.push(scale(&e[2], -1.0));
            out.push(vec![a[1][0], a[1][1], a[3][0], a[1][3]]);
            out.push(sw(&a[2], "wzyx"));
            Some(out)
        },
    );
}

/// A lane for comparisons: often one of a few exact values, so that equal operands occur.
fn comparable(rng: &mut Rng) -> f32 {
    if rng.next_u64() & 1 == 0 {
        pick(rng, &[-1.0, -0.5, 0.0, 0.5, 1.0])
    } else {
        rng.float(-1.0, 1.0)
    }
}

#[test]
fn comparisons() {
    let glsl = shader(
        6,
        &["vec4"; 18],
        "",
        r"
    ivec4 i = ivec4(a2);
    ivec4 j = ivec4(a3);
    uvec4 u = uvec4(a4);
    uvec4 w = uvec4(a5);
    r0 = vec4(lessThan(a0, a1));
    r1 = vec4(lessThanEqual(a0, a1));
    r2 = vec4(greaterThan(a0, a1));
    r3 = vec4(greaterThanEqual(a0, a1));
    r4 = vec4(equal(a0, a1));
    r5 = vec4(notEqual(a0, a1));
    r6 = vec4(lessThan(i, j));
    r7 = vec4(lessThanEqual(i, j));
    r8 = vec4(greaterThan(i, j));
    r9 = vec4(greaterThanEqual(i, j));
    r10 = vec4(equal(i, j));
    r11 = vec4(notEqual(i, j));
    r12 = vec4(float(a0.x < a1.x), float(a0.y <= a1.y), float(a0.z > a1.z), float(a0.w >= a1.w));
    r13 = vec4(float(a0.x == a1.x), float(a0.y != a1.y), float(i.x < j.x), float(i.y >= j.y));
    r14 = vec4(float(i.z == j.z), float(i.w != j.w), float(i.x <= j.x), float(i.y > j.y));
    r15 = vec4(lessThan(u, w));
    r16 = vec4(greaterThanEqual(u, w));
    r17 = vec4(float(u.x == w.x), float(u.y != w.y), float(u.z <= w.z), float(u.w > w.w));",
    );
    check(
        "comparisons",
        &glsl,
        &[
            "FOrdLessThan",
            "FOrdLessThanEqual",
            "FOrdGreaterThan",
            "FOrdGreaterThanEqual",
            "FOrdEqual",
            "FOrdNotEqual",
            "SLessThan",
            "SLessThanEqual",
            "SGreaterThan",
            "SGreaterThanEqual",
            "IEqual",
            "INotEqual",
            "ULessThan",
            "ULessThanEqual",
            "UGreaterThan",
            "UGreaterThanEqual",
            "Select",
        ],
        0.0,
        |rng| {
            let mut d = draw_all(rng, 2, comparable);
            d.extend(draw_all(rng, 2, |r| whole(r, -3, 3)));
            d.extend(draw_all(rng, 2, |r| whole(r, 0, 4)));
            d
        },
        |a| {
            let (x, y, i, j, u, w) = (&a[0], &a[1], &a[2], &a[3], &a[4], &a[5]);
            let all = |p: &[f64; 4], q: &[f64; 4]| {
                vec![
                    zip4(p, q, |s, t| b(s < t)),
                    zip4(p, q, |s, t| b(s <= t)),
                    zip4(p, q, |s, t| b(s > t)),
                    zip4(p, q, |s, t| b(s >= t)),
                    zip4(p, q, |s, t| b(s == t)),
                    zip4(p, q, |s, t| b(s != t)),
                ]
            };
            let mut out = all(x, y);
            out.extend(all(i, j));
            out.push(vec![
                b(x[0] < y[0]),
                b(x[1] <= y[1]),
                b(x[2] > y[2]),
                b(x[3] >= y[3]),
            ]);
            out.push(vec![
                b(x[0] == y[0]),
                b(x[1] != y[1]),
                b(i[0] < j[0]),
                b(i[1] >= j[1]),
            ]);
            out.push(vec![
                b(i[2] == j[2]),
                b(i[3] != j[3]),
                b(i[0] <= j[0]),
                b(i[1] > j[1]),
            ]);
            out.push(zip4(u, w, |s, t| b(s < t)));
            out.push(zip4(u, w, |s, t| b(s >= t)));
            out.push(vec![
                b(u[0] == w[0]),
                b(u[1] != w[1]),
                b(u[2] <= w[2]),
                b(u[3] > w[3]),
            ]);
            Some(out)
        },
    );
}

#[test]
fn logic_and_select() {
    let glsl = shader(
        4,
        &["vec4"; 8],
        "",
        r"
    bvec4 p = lessThan(a0, a1);
    bvec4 q = greaterThan(a2, a3);
    r0 = vec4(float(p.x && q.x), float(p.y || q.y), float(!p.z), float(p.w ^^ q.w));
    r1 = vec4(not(p));
    r2 = vec4(equal(p, q));
    r3 = vec4(notEqual(p, q));
    r4 = vec4(float(p.x == q.x), float(p.y != q.y), float(any(p)), float(all(q)));
    r5 = mix(a0, a1, p);
    r6 = p.x ? a2 : a3;
    r7 = vec4(q.y ? a0.x : a1.x, (p.z && q.z) ? a2.y : a3.y, a0.z > 0.0 ? 1.0 : -1.0,
              (p.w || !q.w) ? a1.w : a2.w);",
    );
    check(
        "logic_and_select",
        &glsl,
        &[
            "LogicalAnd",
            "LogicalOr",
            "LogicalNot",
            "LogicalEqual",
            "LogicalNotEqual",
            "Any",
            "All",
            "Select",
            "BranchConditional",
        ],
        0.0,
        |rng| draw_all(rng, 4, comparable),
        |a| {
            let p: Vec<bool> = (0..4).map(|l| a[0][l] < a[1][l]).collect();
            let q: Vec<bool> = (0..4).map(|l| a[2][l] > a[3][l]).collect();
            let lanes = |f: &dyn Fn(usize) -> f64| (0..4).map(f).collect::<Vec<f64>>();
            Some(vec![
                vec![b(p[0] && q[0]), b(p[1] || q[1]), b(!p[2]), b(p[3] != q[3])],
                lanes(&|l| b(!p[l])),
                lanes(&|l| b(p[l] == q[l])),
                lanes(&|l| b(p[l] != q[l])),
                vec![
                    b(p[0] == q[0]),
                    b(p[1] != q[1]),
                    b(p.iter().any(|&x| x)),
                    b(q.iter().all(|&x| x)),
                ],
                lanes(&|l| if p[l] { a[1][l] } else { a[0][l] }),
                if p[0] { a[2].to_vec() } else { a[3].to_vec() },
                vec![
                    if q[1] { a[0][0] } else { a[1][0] },
                    if p[2] && q[2] { a[2][1] } else { a[3][1] },
                    if a[0][2] > 0.0 { 1.0 } else { -1.0 },
                    if p[3] || !q[3] { a[1][3] } else { a[2][3] },
                ],
            ])
        },
    );
}

#[test]
fn conversions() {
    let glsl = shader(
        5,
        &["vec4"; 8],
        "",
        r"
    ivec4 i = ivec4(a1);
    r0 = vec4(ivec4(a0));
    r1 = vec4(int(a0.x), int(a0.y) + 1, int(-a0.z), int(a0.w * 2.0));
    r2 = vec4(i) * 0.5;
    r3 = vec4(float(i.x) / 4.0, float(i.y + i.z), float(-i.w), float(i.x * i.y));
    r4 = vec4(uvec4(a3));
    r5 = vec4(uvec4(a2) + 3u);
    r6 = vec4(float(uint(a2.x)), float(int(uint(a2.y))), float(uint(ivec4(a2).z)),
              float(uint(a3.w) * 2u));
    r7 = vec4(float(bool(ivec4(a4).x)), float(int(a0.x > 0.0)), float(uint(a0.y < 0.0)),
              float(bool(a4.w)));",
    );
    check(
        "conversions",
        &glsl,
        &[
            "ConvertFToS",
            "ConvertFToU",
            "ConvertSToF",
            "ConvertUToF",
            "Bitcast",
            "FUnordNotEqual",
            "INotEqual",
        ],
        TOL,
        |rng| {
            let mut d = draw_all(rng, 1, |r| r.float(-5.0, 5.0));
            d.extend(draw_all(rng, 1, |r| whole(r, -20, 20)));
            d.extend(draw_all(rng, 1, |r| whole(r, 0, 20)));
            d.extend(draw_all(rng, 1, |r| r.float(0.0, 5.0)));
            d.extend(draw_all(rng, 1, |r| {
                pick(r, &[-2.0, -1.0, 0.0, 0.0, 1.0, 3.0])
            }));
            d
        },
        |a| {
            // Truncation must not hinge on rounding: a0 (and 2 a0.w) and a3 clear of integers.
            if !a[0].iter().chain(&a[3]).all(|&x| clear_of(x, 0.5)) {
                return None;
            }
            let (f, i, u, g, k) = (&a[0], &a[1], &a[2], &a[3], &a[4]);
            Some(vec![
                map4(f, int),
                vec![int(f[0]), int(f[1]) + 1.0, int(-f[2]), int(f[3] * 2.0)],
                map4(i, |x| x * 0.5),
                vec![i[0] / 4.0, i[1] + i[2], -i[3], i[0] * i[1]],
                map4(g, int),
                map4(u, |x| x + 3.0),
                vec![u[0], u[1], u[2], int(g[3]) * 2.0],
                vec![b(k[0] != 0.0), b(f[0] > 0.0), b(f[1] < 0.0), b(k[3] != 0.0)],
            ])
        },
    );
}

#[test]
fn integer_arithmetic() {
    let glsl = shader(
        4,
        &["vec4"; 24],
        "",
        r"
    ivec4 i = ivec4(a0);
    ivec4 j = ivec4(a1);
    uvec4 u = uvec4(a2);
    uvec4 w = uvec4(a3);
    r0 = vec4(i + j);
    r1 = vec4(i - j);
    r2 = vec4(i * j);
    r3 = vec4(i / j);
    r4 = vec4(i % j);
    r5 = vec4(-i);
    r6 = vec4(i * 3 - j / 2);
    r7 = vec4(u + w);
    r8 = vec4(u - min(u, w));
    r9 = vec4(u * w);
    r10 = vec4(u / w);
    r11 = vec4(u % w);
    r12 = vec4(abs(i));
    r13 = vec4(sign(i));
    r14 = vec4(min(i, j));
    r15 = vec4(max(i, j));
    r16 = vec4(clamp(i, -abs(j), abs(j) * 3));
    r17 = vec4(min(u, w));
    r18 = vec4(max(u, w));
    r19 = vec4(clamp(u, w, w + 10u));
    r20 = vec4(float(i.x / j.x), float(i.y % j.y), float(u.z / w.z), float(u.w % w.w));
    r21 = vec4(clamp(i, -5, 5));
    r22 = vec4(min(i, 3).xy, max(u, 4u).zw);
    r23 = vec4(abs(i.x), sign(i.y), min(i.z, j.z), clamp(u.w, 2u, 9u));",
    );
    check(
        "integer_arithmetic",
        &glsl,
        &[
            "IAdd",
            "ISub",
            "IMul",
            "SDiv",
            "UDiv",
            "UMod",
            "SNegate",
            "GLSL.SAbs",
            "GLSL.SSign",
            "GLSL.SMin",
            "GLSL.SMax",
            "GLSL.UMin",
            "GLSL.UMax",
        ],
        0.0,
        |rng| {
            // a0 sometimes small, so that 0 (for sign) and small quotients occur.
            let mut d = draw_all(rng, 1, |r| {
                if r.next_u64() & 3 == 0 {
                    whole(r, -2, 2)
                } else {
                    whole(r, -30, 30)
                }
            });
            d.extend(draw_all(rng, 1, |r| nonzero(r, -7, 7)));
            d.extend(draw_all(rng, 1, |r| whole(r, 0, 30)));
            d.extend(draw_all(rng, 1, |r| whole(r, 1, 7)));
            d
        },
        |a| {
            let (i, j, u, w) = (&a[0], &a[1], &a[2], &a[3]);
            Some(vec![
                zip4(i, j, |x, y| x + y),
                zip4(i, j, |x, y| x - y),
                zip4(i, j, |x, y| x * y),
                zip4(i, j, idiv),
                zip4(i, j, irem),
                map4(i, |x| -x),
                zip4(i, j, |x, y| x * 3.0 - idiv(y, 2.0)),
                zip4(u, w, |x, y| x + y),
                zip4(u, w, |x, y| x - x.min(y)),
                zip4(u, w, |x, y| x * y),
                zip4(u, w, idiv),
                zip4(u, w, irem),
                map4(i, f64::abs),
                map4(i, sign),
                zip4(i, j, f64::min),
                zip4(i, j, f64::max),
                zip4(i, j, |x, y| clamp(x, -y.abs(), y.abs() * 3.0)),
                zip4(u, w, f64::min),
                zip4(u, w, f64::max),
                zip4(u, w, |x, y| clamp(x, y, y + 10.0)),
                vec![
                    idiv(i[0], j[0]),
                    irem(i[1], j[1]),
                    idiv(u[2], w[2]),
                    irem(u[3], w[3]),
                ],
                map4(i, |x| clamp(x, -5.0, 5.0)),
                vec![i[0].min(3.0), i[1].min(3.0), u[2].max(4.0), u[3].max(4.0)],
                vec![
                    i[0].abs(),
                    sign(i[1]),
                    i[2].min(j[2]),
                    clamp(u[3], 2.0, 9.0),
                ],
            ])
        },
    );
}

#[test]
fn rounding_and_angles() {
    let glsl = shader(
        3,
        &["vec4"; 16],
        "",
        r"
    r0 = round(a0);
    r1 = roundEven(a0);
    r2 = roundEven(a1);
    r3 = trunc(a0);
    r4 = floor(a0);
    r5 = ceil(a0);
    r6 = fract(a2);
    r7 = abs(a2);
    r8 = sign(a2);
    r9 = sign(a1);
    r10 = abs(a1);
    r11 = fract(a1);
    r12 = radians(a2 * 90.0);
    r13 = degrees(a2);
    r14 = vec4(trunc(a1.x), floor(a1.y), ceil(a1.z), round(a0.w));
    r15 = vec4(floor(a0.x), ceil(a0.y), fract(a2.z), abs(a2.w));",
    );
    check(
        "rounding_and_angles",
        &glsl,
        &[
            "GLSL.RoundEven",
            "GLSL.Trunc",
            "GLSL.Floor",
            "GLSL.Ceil",
            "GLSL.Fract",
            "GLSL.FAbs",
            "GLSL.FSign",
            "GLSL.Radians",
            "GLSL.Degrees",
        ],
        TOL,
        |rng| {
            let mut d = draw_all(rng, 1, |r| r.float(-4.0, 4.0));
            // Ties, whole numbers and zero.
            d.extend(draw_all(rng, 1, |r| {
                pick(
                    r,
                    &[
                        -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -2.0, -1.0, 0.0, 1.0, 2.0,
                    ],
                )
            }));
            d.extend(draw_all(rng, 1, |r| r.float(-4.0, 4.0)));
            d
        },
        |a| {
            // GLSL's round() may go either way at .5, and every rounding of a0 must be clear.
            if !a[0].iter().all(|&x| clear_of(x, 0.5)) {
                return None;
            }
            let (x, t, y) = (&a[0], &a[1], &a[2]);
            Some(vec![
                map4(x, round_away),
                map4(x, round_even),
                map4(t, round_even),
                map4(x, f64::trunc),
                map4(x, f64::floor),
                map4(x, f64::ceil),
                map4(y, fract),
                map4(y, f64::abs),
                map4(y, sign),
                map4(t, sign),
                map4(t, f64::abs),
                map4(t, fract),
                map4(y, |v| v * 90.0 * std::f64::consts::PI / 180.0),
                map4(y, |v| v * 180.0 / std::f64::consts::PI),
                vec![t[0].trunc(), t[1].floor(), t[2].ceil(), round_away(x[3])],
                vec![x[0].floor(), x[1].ceil(), fract(y[2]), y[3].abs()],
            ])
        },
    );
}

#[test]
fn trigonometry() {
    let glsl = shader(
        6,
        &["vec4"; 8],
        "",
        r"
    r0 = sin(a0);
    r1 = cos(a0);
    r2 = tan(a1);
    r3 = asin(a2);
    r4 = acos(a2);
    r5 = atan(a3);
    r6 = atan(a4, a5);
    r7 = vec4(sin(a0.x), cos(a0.y), tan(a1.z), atan(a4.w, a5.w));",
    );
    check(
        "trigonometry",
        &glsl,
        &[
            "GLSL.Sin",
            "GLSL.Cos",
            "GLSL.Tan",
            "GLSL.Asin",
            "GLSL.Acos",
            "GLSL.Atan",
            "GLSL.Atan2",
        ],
        TOL,
        |rng| {
            let mut d = draw_all(rng, 1, |r| r.float(-6.0, 6.0));
            d.extend(draw_all(rng, 1, |r| r.float(-4.5, 4.5)));
            d.extend(draw_all(rng, 1, |r| r.float(-0.99, 0.99)));
            d.extend(draw_all(rng, 1, |r| r.float(-10.0, 10.0)));
            d.extend(draw_all(rng, 2, |r| r.float(-3.0, 3.0)));
            d
        },
        |a| {
            // tan away from its poles; atan2 away from the origin and from the cut at ±π.
            if a[1].iter().any(|x| x.cos().abs() < 0.1) {
                return None;
            }
            for l in 0..4 {
                let (y, x) = (a[4][l], a[5][l]);
                if x.abs().max(y.abs()) < 0.1 || (x < 0.0 && y.abs() < 1e-3) {
                    return None;
                }
            }
            let (s, t, u, v, y, x) = (&a[0], &a[1], &a[2], &a[3], &a[4], &a[5]);
            Some(vec![
                map4(s, f64::sin),
                map4(s, f64::cos),
                map4(t, f64::tan),
                map4(u, f64::asin),
                map4(u, f64::acos),
                map4(v, f64::atan),
                zip4(y, x, f64::atan2),
                vec![s[0].sin(), s[1].cos(), t[2].tan(), y[3].atan2(x[3])],
            ])
        },
    );
}

#[test]
fn exponentials() {
    let glsl = shader(
        6,
        &["vec4"; 9],
        "",
        r"
    r0 = pow(a0, a1);
    r1 = exp(a2);
    r2 = log(a3);
    r3 = exp2(a4);
    r4 = log2(a3);
    r5 = sqrt(a3);
    r6 = inversesqrt(a3);
    r7 = vec4(pow(a0.x, a1.x), exp(a2.y), log(a3.z), sqrt(a3.w));
    r8 = vec4(sqrt(a5.xy), pow(a5.z, 2.0), exp2(a5.w));",
    );
    check(
        "exponentials",
        &glsl,
        &[
            "GLSL.Pow",
            "GLSL.Exp",
            "GLSL.Log",
            "GLSL.Exp2",
            "GLSL.Log2",
            "GLSL.Sqrt",
            "GLSL.InverseSqrt",
        ],
        TOL,
        |rng| {
            let mut d = draw_all(rng, 1, |r| r.float(0.1, 4.0));
            d.extend(draw_all(rng, 1, |r| r.float(-3.0, 3.0)));
            d.extend(draw_all(rng, 1, |r| r.float(-5.0, 5.0)));
            d.extend(draw_all(rng, 1, |r| r.float(0.05, 20.0)));
            d.extend(draw_all(rng, 1, |r| r.float(-8.0, 8.0)));
            d.extend(draw_all(rng, 1, |r| pick(r, &[0.0, 0.25, 1.0, 4.0, 9.0])));
            d
        },
        |a| {
            let (p, e, x, l, x2, k) = (&a[0], &a[1], &a[2], &a[3], &a[4], &a[5]);
            Some(vec![
                zip4(p, e, f64::powf),
                map4(x, f64::exp),
                map4(l, f64::ln),
                map4(x2, f64::exp2),
                map4(l, f64::log2),
                map4(l, f64::sqrt),
                map4(l, |v| 1.0 / v.sqrt()),
                vec![p[0].powf(e[0]), x[1].exp(), l[2].ln(), l[3].sqrt()],
                vec![k[0].sqrt(), k[1].sqrt(), k[2] * k[2], k[3].exp2()],
            ])
        },
    );
}

#[test]
fn common_functions() {
    let glsl = shader(
        6,
        &["vec4"; 12],
        "",
        r"
    r0 = min(a0, a1);
    r1 = max(a0, a1);
    r2 = clamp(a0, a4, a5);
    r3 = mix(a0, a1, a3);
    r4 = mix(a0, a1, a3.x);
    r5 = step(a1, a0);
    r6 = smoothstep(a4, a5, a0);
    r7 = fma(a0, a1, a2);
    r8 = vec4(min(a0.x, 0.5), max(a0.y, a1.x), clamp(a0.z, -0.5, 0.75), step(a0.w, a0.w));
    r9 = vec4(step(0.25, a0.xy), smoothstep(-1.0, 1.0, a0.zw));
    r10 = min(a0, a1.y);
    r11 = vec4(clamp(a0.xy, -0.3, 0.3), max(a0.zw, a2.z));",
    );
    check(
        "common_functions",
        &glsl,
        &[
            "GLSL.FMin",
            "GLSL.FMax",
            "GLSL.FClamp",
            "GLSL.FMix",
            "GLSL.Step",
            "GLSL.SmoothStep",
            "GLSL.Fma",
        ],
        TOL,
        |rng| {
            let mut d = draw_all(rng, 3, |r| r.float(-2.0, 2.0));
            d.extend(draw_all(rng, 1, |r| r.float(0.0, 1.0)));
            d.extend(draw_all(rng, 1, |r| r.float(-1.5, 0.0)));
            d.extend(draw_all(rng, 1, |r| r.float(0.5, 1.5)));
            d
        },
        |a| {
            let (x, y, z, t, lo, hi) = (&a[0], &a[1], &a[2], &a[3], &a[4], &a[5]);
            // step's result must not hinge on rounding.
            if (0..4).any(|l| (x[l] - y[l]).abs() < 1e-3)
                || (0..2).any(|l| (x[l] - 0.25).abs() < 1e-3)
            {
                return None;
            }
            Some(vec![
                zip4(x, y, f64::min),
                zip4(x, y, f64::max),
                (0..4).map(|l| clamp(x[l], lo[l], hi[l])).collect(),
                (0..4).map(|l| mix(x[l], y[l], t[l])).collect(),
                zip4(x, y, |p, q| mix(p, q, t[0])),
                zip4(y, x, step),
                (0..4).map(|l| smoothstep(lo[l], hi[l], x[l])).collect(),
                (0..4).map(|l| x[l] * y[l] + z[l]).collect(),
                vec![x[0].min(0.5), x[1].max(y[0]), clamp(x[2], -0.5, 0.75), 1.0],
                vec![
                    step(0.25, x[0]),
                    step(0.25, x[1]),
                    smoothstep(-1.0, 1.0, x[2]),
                    smoothstep(-1.0, 1.0, x[3]),
                ],
                map4(x, |p| p.min(y[1])),
                vec![
                    clamp(x[0], -0.3, 0.3),
                    clamp(x[1], -0.3, 0.3),
                    x[2].max(z[2]),
                    x[3].max(z[2]),
                ],
            ])
        },
    );
}

#[test]
fn geometry() {
    let glsl = shader(
        6,
        &[
            "vec4", "vec4", "vec3", "vec4", "vec3", "vec4", "vec3", "vec4", "vec3", "vec4", "vec3",
            "vec2", "vec4", "vec3",
        ],
        "",
        r"
    r0 = vec4(length(a0), length(a0.xyz), length(a0.xy), length(a0.w));
    r1 = vec4(distance(a0, a1), distance(a0.xyz, a1.xyz), distance(a0.xy, a1.zw),
              distance(a0.x, a1.y));
    r2 = cross(a0.xyz, a1.xyz);
    r3 = normalize(a0);
    r4 = normalize(a1.xyz);
    // naga rejects normalize(float).
    r5 = vec4(normalize(a0.xy), normalize(a1.zw));
    r6 = faceforward(a0.xyz, a1.xyz, a5.xyz);
    r7 = faceforward(a0, a1, a5);
    r8 = reflect(a2.xyz, a3.xyz);
    r9 = reflect(a0, a1);
    r10 = refract(normalize(a2.xyz), normalize(a3.xyz), a4.x);
    r11 = refract(normalize(a0.xy), normalize(a1.xy), a4.y);
    r12 = refract(normalize(a2), normalize(a3), a4.z);
    // dot(nref, i) is exactly 0 here: faceforward gives -n.
    r13 = faceforward(a0.xyz, a1.xyz, vec3(a1.y, -a1.x, 0.0));",
    );
    check(
        "geometry",
        &glsl,
        &[
            "GLSL.Length",
            "GLSL.Distance",
            "GLSL.Cross",
            "GLSL.Normalize",
            "GLSL.FaceForward",
            "GLSL.Reflect",
            "GLSL.Refract",
        ],
        TOL,
        |rng| {
            let mut d = draw_all(rng, 4, |r| r.float(-2.0, 2.0));
            d.extend(draw_all(rng, 1, |r| r.float(0.3, 2.5)));
            d.extend(draw_all(rng, 1, |r| r.float(-2.0, 2.0)));
            d
        },
        |a| {
            let v = |k: usize, s: &str| sw(&a[k], s);
            // Nothing normalised is near zero, no faceforward near its switch, no refraction
            // near total internal reflection.
            let normalised = [
                v(0, "xyzw"),
                v(1, "xyz"),
                v(0, "xy"),
                v(1, "zw"),
                v(2, "xyz"),
                v(3, "xyz"),
                v(1, "xy"),
                v(2, "xyzw"),
                v(3, "xyzw"),
            ];
            if normalised.iter().any(|x| length(x) < 0.2) {
                return None;
            }
            if dot(&v(5, "xyz"), &v(1, "xyz")).abs() < 1e-3 || dot(&a[5], &a[1]).abs() < 1e-3 {
                return None;
            }
            let refractions = [
                (normalize(&v(2, "xyz")), normalize(&v(3, "xyz")), a[4][0]),
                (normalize(&v(0, "xy")), normalize(&v(1, "xy")), a[4][1]),
                (normalize(&a[2]), normalize(&a[3]), a[4][2]),
            ];
            if refractions
                .iter()
                .any(|(i, n, eta)| refract_k(i, n, *eta).abs() < 1e-3)
            {
                return None;
            }
            let [r10, r11, r12] = refractions.map(|(i, n, eta)| refract(&i, &n, eta));
            Some(vec![
                vec![
                    length(&a[0]),
                    length(&v(0, "xyz")),
                    length(&v(0, "xy")),
                    a[0][3].abs(),
                ],
                vec![
                    length(&sub(&a[0], &a[1])),
                    length(&sub(&v(0, "xyz"), &v(1, "xyz"))),
                    length(&sub(&v(0, "xy"), &v(1, "zw"))),
                    (a[0][0] - a[1][1]).abs(),
                ],
                cross(&v(0, "xyz"), &v(1, "xyz")),
                normalize(&a[0]),
                normalize(&v(1, "xyz")),
                cat(&[&normalize(&v(0, "xy")), &normalize(&v(1, "zw"))]),
                faceforward(&v(0, "xyz"), &v(1, "xyz"), &v(5, "xyz")),
                faceforward(&a[0], &a[1], &a[5]),
                reflect(&v(2, "xyz"), &v(3, "xyz")),
                reflect(&a[0], &a[1]),
                r10,
                r11,
                r12,
                faceforward(&v(0, "xyz"), &v(1, "xyz"), &[a[1][1], -a[1][0], 0.0]),
            ])
        },
    );
}

#[test]
fn dynamic_indexing() {
    let glsl = shader(
        6,
        &["vec4"; 13],
        "",
        r"
    float arr[4] = float[4](a0.x, a0.y, a0.z, a0.w);
    vec4 varr[3] = vec4[3](a1, a2, a3);
    int i = int(a4.x);
    int j = int(a4.y);
    r0 = vec4(arr[i], a1[i], varr[j].x, varr[j][i]);
    r1 = varr[j];
    r2 = vec4(a2[3 - i], arr[(i + 1) % 4], a3[j + 1], a0[i / 2]);
    arr[i] = a4.z;
    r3 = vec4(arr[0], arr[1], arr[2], arr[3]);
    vec4 v = a5;
    v[i] = a4.w;
    r4 = v;
    varr[j][i] = a4.z;
    r5 = varr[0]; r6 = varr[1]; r7 = varr[2];
    mat4 m = mat4(a0, a1, a2, a3);
    r8 = m[i];
    r9 = vec4(m[j][i], m[i][j], m[3 - i].x, m[i].w);
    m[j][i] = a5.x;
    r10 = m[j];
    r11 = vec4((a1 + a2)[i], (a3 * 2.0)[j], (a0 - a5)[3 - i], 0.0);
    float acc = 0.0;
    int steps = 0;
    for (int k = 0; k <= i; k++) {
        acc += a0[k] * float(k + 1) + varr[k % 3][3 - k];
        steps++;
    }
    r12 = vec4(acc, float(steps), 0.0, 0.0);",
    );
    check(
        "dynamic_indexing",
        &glsl,
        &["AccessChain", "VectorExtractDynamic", "LoopMerge"],
        TOL,
        |rng| {
            let mut d = draw_all(rng, 4, |r| r.float(-2.0, 2.0));
            d.push([
                whole(rng, 0, 3),
                whole(rng, 0, 2),
                rng.float(5.0, 6.0),
                rng.float(7.0, 8.0),
            ]);
            d.extend(draw_all(rng, 1, |r| r.float(-2.0, 2.0)));
            d
        },
        |a| {
            let (i, j) = (a[4][0] as usize, a[4][1] as usize);
            let mut arr = a[0];
            let mut varr = [a[1], a[2], a[3]];
            let mut m = [a[0], a[1], a[2], a[3]];
            let mut out = vec![
                vec![arr[i], a[1][i], varr[j][0], varr[j][i]],
                varr[j].to_vec(),
                vec![a[2][3 - i], arr[(i + 1) % 4], a[3][j + 1], a[0][i / 2]],
            ];
            arr[i] = a[4][2];
            out.push(arr.to_vec());
            let mut v = a[5];
            v[i] = a[4][3];
            out.push(v.to_vec());
            varr[j][i] = a[4][2];
            out.extend(varr.iter().map(|x| x.to_vec()));
            out.push(m[i].to_vec());
            out.push(vec![m[j][i], m[i][j], m[3 - i][0], m[i][3]]);
            m[j][i] = a[5][0];
            out.push(m[j].to_vec());
            out.push(vec![
                a[1][i] + a[2][i],
                a[3][j] * 2.0,
                a[0][3 - i] - a[5][3 - i],
                0.0,
            ]);
            // varr as the loop sees it: after the store above.
            let acc: f64 = (0..=i)
                .map(|k| a[0][k] * (k + 1) as f64 + varr[k % 3][3 - k])
                .sum();
            out.push(vec![acc, (i + 1) as f64, 0.0, 0.0]);
            Some(out)
        },
    );
}

// ------------------------------------------------------------------------------------------
// What naga cannot produce, in SPIR-V assembly.
// ------------------------------------------------------------------------------------------

/// What naga never writes: GLSL.std.450 `Round` (naga writes `round()` as `RoundEven`; away
/// from .5, and at .5, where the direction is the implementation's choice, `|Round(t) - t| =
/// 0.5`), `SClamp`/`UClamp` (naga writes integer `clamp` as min and max), `OpSRem`/`OpSMod`
/// (naga writes `%` on `int` as `a - b * (a / b)`), `OpCompositeInsert` into a vector and,
/// with a two-index path, into a matrix (naga stores into a variable instead),
/// `OpVectorInsertDynamic`, `OpVectorShuffle` picking from both of two vectors
/// of different widths (naga shuffles one vector), a non-square `OpOuterProduct` (naga mistypes
/// those), scalar `FaceForward`/`Reflect`/`Refract`/`Normalize` (naga rejects them), and
/// specialisation constants at their defaults (naga's SPIR-V back
/// end rejects overrides): `OpSpecConstant` float and int, `OpSpecConstantTrue`/`False`,
/// `OpSpecConstantOp`.
const ASSEMBLED: &str = r#"
               OpCapability Shader
       %glsl = OpExtInstImport "GLSL.std.450"
               OpMemoryModel Logical GLSL450
               OpEntryPoint Vertex %main "main" %a5 %a1 %a0 %a2 %a3 %a4 %a6 %r0 %r1 %r2 %r3 %r4 %r5 %r6 %r7 %r8 %r9 %r10 %r11 %r12 %r13 %r14 %r15 %r16 %r17
               OpDecorate %a0 Location 0
               OpDecorate %a1 Location 1
               OpDecorate %a2 Location 2
               OpDecorate %a3 Location 3
               OpDecorate %a4 Location 4
               OpDecorate %a5 Location 5
               OpDecorate %a6 Location 6
               OpDecorate %r0 Location 0
               OpDecorate %r1 Location 1
               OpDecorate %r2 Location 2
               OpDecorate %r3 Location 3
               OpDecorate %r4 Location 4
               OpDecorate %r5 Location 5
               OpDecorate %r6 Location 6
               OpDecorate %r7 Location 7
               OpDecorate %r8 Location 8
               OpDecorate %r9 Location 9
               OpDecorate %r10 Location 10
               OpDecorate %r11 Location 11
               OpDecorate %r12 Location 12
               OpDecorate %r13 Location 13
               OpDecorate %r14 Location 14
               OpDecorate %r15 Location 15
               OpDecorate %r16 Location 16
               OpDecorate %r17 Location 17
               OpDecorate %k SpecId 0
               OpDecorate %n SpecId 1
               OpDecorate %t SpecId 2
               OpDecorate %f SpecId 3
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
         %v2 = OpTypeVector %float 2
         %v3 = OpTypeVector %float 3
         %v4 = OpTypeVector %float 4
       %mat2 = OpTypeMatrix %v4 2
        %int = OpTypeInt 32 1
       %uint = OpTypeInt 32 0
        %iv4 = OpTypeVector %int 4
        %uv4 = OpTypeVector %uint 4
       %bool = OpTypeBool
      %in_v4 = OpTypePointer Input %v4
     %out_v4 = OpTypePointer Output %v4
         %a0 = OpVariable %in_v4 Input
         %a1 = OpVariable %in_v4 Input
         %a2 = OpVariable %in_v4 Input
         %a3 = OpVariable %in_v4 Input
         %a4 = OpVariable %in_v4 Input
         %a5 = OpVariable %in_v4 Input
         %a6 = OpVariable %in_v4 Input
         %r0 = OpVariable %out_v4 Output
         %r1 = OpVariable %out_v4 Output
         %r2 = OpVariable %out_v4 Output
         %r3 = OpVariable %out_v4 Output
         %r4 = OpVariable %out_v4 Output
         %r5 = OpVariable %out_v4 Output
         %r6 = OpVariable %out_v4 Output
         %r7 = OpVariable %out_v4 Output
         %r8 = OpVariable %out_v4 Output
         %r9 = OpVariable %out_v4 Output
        %r10 = OpVariable %out_v4 Output
        %r11 = OpVariable %out_v4 Output
        %r12 = OpVariable %out_v4 Output
        %r13 = OpVariable %out_v4 Output
        %r14 = OpVariable %out_v4 Output
        %r15 = OpVariable %out_v4 Output
        %r16 = OpVariable %out_v4 Output
        %r17 = OpVariable %out_v4 Output
          %k = OpSpecConstant %float 2.5
          %n = OpSpecConstant %int -3
          %t = OpSpecConstantTrue %bool
          %f = OpSpecConstantFalse %bool
      %int_2 = OpConstant %int 2
         %n2 = OpSpecConstantOp %int IMul %n %int_2
    %float_1 = OpConstant %float 1
    %float_0 = OpConstant %float 0
  %float_0_5 = OpConstant %float 0.5
     %int_m3 = OpConstant %int -3
      %int_4 = OpConstant %int 4
        %ilo = OpConstantComposite %iv4 %int_m3 %int_m3 %int_m3 %int_m3
        %ihi = OpConstantComposite %iv4 %int_4 %int_4 %int_4 %int_4
     %uint_2 = OpConstant %uint 2
     %uint_9 = OpConstant %uint 9
        %ulo = OpConstantComposite %uv4 %uint_2 %uint_2 %uint_2 %uint_2
        %uhi = OpConstantComposite %uv4 %uint_9 %uint_9 %uint_9 %uint_9
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %x0 = OpLoad %v4 %a0
         %x1 = OpLoad %v4 %a1
         %rd = OpExtInst %v4 %glsl Round %x0
               OpStore %r0 %rd
         %e3 = OpCompositeExtract %float %x0 3
        %in1 = OpCompositeInsert %v4 %e3 %x1 1
        %in2 = OpCompositeInsert %v4 %k %in1 3
               OpStore %r1 %in2
         %nf = OpConvertSToF %float %n
        %n2f = OpConvertSToF %float %n2
         %tf = OpSelect %float %t %float_1 %float_0
         %ff = OpSelect %float %f %float_1 %float_0
         %sv = OpCompositeConstruct %v4 %k %nf %tf %ff
               OpStore %r2 %sv
         %ks = OpVectorTimesScalar %v4 %x1 %k
         %c3 = OpCompositeInsert %v4 %n2f %ks 0
               OpStore %r3 %c3
          %m = OpCompositeConstruct %mat2 %x0 %x1
         %mi = OpCompositeInsert %mat2 %e3 %m 1 2
        %mi2 = OpCompositeInsert %mat2 %x1 %mi 0
        %mc0 = OpCompositeExtract %v4 %mi2 0
        %mc1 = OpCompositeExtract %v4 %mi2 1
               OpStore %r4 %mc0
               OpStore %r5 %mc1
         %x2 = OpLoad %v4 %a2
        %rt2 = OpExtInst %v4 %glsl Round %x2
        %dt2 = OpFSub %v4 %rt2 %x2
        %at2 = OpExtInst %v4 %glsl FAbs %dt2
               OpStore %r6 %at2
         %x3 = OpLoad %v4 %a3
         %x4 = OpLoad %v4 %a4
         %i3 = OpConvertFToS %iv4 %x3
         %i4 = OpConvertFToS %iv4 %x4
       %srem = OpSRem %iv4 %i3 %i4
       %smod = OpSMod %iv4 %i3 %i4
      %sremf = OpConvertSToF %v4 %srem
      %smodf = OpConvertSToF %v4 %smod
               OpStore %r7 %sremf
               OpStore %r8 %smodf
         %sc = OpExtInst %iv4 %glsl SClamp %i3 %ilo %ihi
        %scf = OpConvertSToF %v4 %sc
               OpStore %r9 %scf
         %x5 = OpLoad %v4 %a5
         %u5 = OpConvertFToU %uv4 %x5
         %uc = OpExtInst %uv4 %glsl UClamp %u5 %ulo %uhi
        %ucf = OpConvertUToF %v4 %uc
               OpStore %r10 %ucf
         %x6 = OpLoad %v4 %a6
        %x6x = OpCompositeExtract %float %x6 0
        %x6y = OpCompositeExtract %float %x6 1
        %idx = OpConvertFToS %int %x6x
        %vid = OpVectorInsertDynamic %v4 %x0 %x6y %idx
               OpStore %r11 %vid
        %vex = OpVectorExtractDynamic %float %x1 %idx
        %vev = OpCompositeConstruct %v4 %vex %x6y %vex %float_1
               OpStore %r12 %vev
       %x0xy = OpVectorShuffle %v2 %x0 %x0 0 1
      %x1zyx = OpVectorShuffle %v3 %x1 %x1 2 1 0
        %sh1 = OpVectorShuffle %v4 %x0xy %x1zyx 4 1 3 0
               OpStore %r13 %sh1
        %sh2 = OpVectorShuffle %v4 %x1 %x0 7 2 4 1
               OpStore %r14 %sh2
       %x1zx = OpVectorShuffle %v2 %x1 %x1 2 0
         %op = OpOuterProduct %mat2 %x0 %x1zx
        %op0 = OpCompositeExtract %v4 %op 0
        %op1 = OpCompositeExtract %v4 %op 1
               OpStore %r15 %op0
               OpStore %r16 %op1
        %x0x = OpCompositeExtract %float %x0 0
        %x0y = OpCompositeExtract %float %x0 1
        %x0z = OpCompositeExtract %float %x0 2
        %x0w = OpCompositeExtract %float %x0 3
        %x1x = OpCompositeExtract %float %x1 0
        %x1y = OpCompositeExtract %float %x1 1
        %x1z = OpCompositeExtract %float %x1 2
        %x1w = OpCompositeExtract %float %x1 3
        %sff = OpExtInst %float %glsl FaceForward %x0x %x1x %x1y
        %srf = OpExtInst %float %glsl Reflect %x0y %x1z
        %srr = OpExtInst %float %glsl Refract %x0z %x1w %float_0_5
        %snm = OpExtInst %float %glsl Normalize %x0w
        %sgv = OpCompositeConstruct %v4 %sff %srf %srr %snm
               OpStore %r17 %sgv
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn assembled_ops() {
    let draw = |rng: &mut Rng| {
        let mut d = draw_all(rng, 2, |r| r.float(-4.0, 4.0));
        d.extend(draw_all(rng, 1, |r| {
            pick(r, &[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5])
        }));
        d.extend(draw_all(rng, 1, |r| whole(r, -9, 9)));
        d.extend(draw_all(rng, 1, |r| nonzero(r, -4, 4)));
        d.extend(draw_all(rng, 1, |r| whole(r, 0, 12)));
        d.push([whole(rng, 0, 3), rng.float(5.0, 6.0), 0.0, 0.0]);
        d
    };
    let reference = |a: &In| {
        let (x, y, i, j, u) = (&a[0], &a[1], &a[3], &a[4], &a[5]);
        if !x.iter().all(|&v| clear_of(v, 0.5)) {
            return None;
        }
        // Scalar refraction and faceforward away from their switches.
        if refract_k(&[x[2]], &[y[3]], 0.5).abs() < 1e-3 || (y[0] * y[1]).abs() < 1e-3 {
            return None;
        }
        let (idx, z) = (a[6][0] as usize, a[6][1]);
        let mut inserted = x.to_vec();
        inserted[idx] = z;
        Some(vec![
            map4(x, round_away),
            vec![y[0], x[3], y[2], 2.5],
            vec![2.5, -3.0, 1.0, 0.0],
            vec![-6.0, y[1] * 2.5, y[2] * 2.5, y[3] * 2.5],
            y.to_vec(),
            vec![y[0], y[1], x[3], y[3]],
            vec![0.5; 4],
            zip4(i, j, irem),
            // OpSMod: the sign of the divisor.
            zip4(i, j, |p, q| p - q * (p / q).floor()),
            map4(i, |p| clamp(p, -3.0, 4.0)),
            map4(u, |p| clamp(p, 2.0, 9.0)),
            inserted,
            vec![y[idx], z, y[idx], 1.0],
            vec![y[0], x[1], y[1], x[0]],
            vec![x[3], y[2], x[0], y[1]],
            scale(x, y[2]),
            scale(x, y[0]),
            vec![
                faceforward(&[x[0]], &[y[0]], &[y[1]])[0],
                reflect(&[x[1]], &[y[2]])[0],
                refract(&[x[2]], &[y[3]], 0.5)[0],
                normalize(&[x[3]])[0],
            ],
        ])
    };
    let covers = [
        "GLSL.Round",
        "GLSL.SClamp",
        "GLSL.UClamp",
        "SRem",
        "SMod",
        "CompositeInsert",
        "VectorInsertDynamic",
        "VectorExtractDynamic",
        "VectorShuffle",
        "OuterProduct",
        "GLSL.FaceForward",
        "GLSL.Reflect",
        "GLSL.Refract",
        "GLSL.Normalize",
        "SpecConstant",
        "SpecConstantTrue",
        "SpecConstantFalse",
        "SpecConstantOp",
    ];
    let bytes = assembled("assembled_ops", ASSEMBLED);
    check_spirv("assembled_ops", &bytes, &covers, TOL, &draw, &reference);
}
