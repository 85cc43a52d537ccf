//! GLSL's `inverse()` of 2×2, 3×3 and 4×4 matrices (GLSL.std.450 MatrixInverse): the
//! adjugate over the determinant. Compiled from GLSL through the library for the PICA200 and
//! every AGAL profile, run in the simulators, and compared with a Gauss-Jordan inverse this
//! test computes in f64.

use backend_agal::Program;
use backend_agal::sim::{VertexInputs, run_vertex};
use backend_pica::sim::{Simulator, Uniforms};
use spv2retro::{Compiled, Options, Profile, Source, Stage, compile};
use test_kit::all_close_to;
use tests::driven::{AGAL_PROFILES, constants_with, register_number as number};
use tests::mirtest::Rng;

/// The literals, and column k of the matrix in uniform `ck`.
fn constants(c: &Compiled, columns: &[[f32; 4]]) -> Vec<[f32; 4]> {
    let names: Vec<String> = (0..columns.len()).map(|k| format!("c{k}")).collect();
    let n = columns.len();
    let uniforms: Vec<(&str, &[f32])> = names
        .iter()
        .zip(columns)
        .map(|(name, col)| (name.as_str(), &col[..n]))
        .collect();
    constants_with(c, &uniforms)
}

/// `inverse(m) * v` for an n×n matrix `m` made of uniform columns.
fn shader(n: usize) -> String {
    let cols: Vec<String> = (0..n).map(|c| format!("c{c}")).collect();
    let ty = format!("vec{n}");
    let swz = &"xyzw"[..n];
    format!(
        "#version 450
layout(location = 0) in vec4 v;
layout(location = 0) out vec4 color;
layout(std140, binding = 0) uniform U {{ {decl} }};
void main() {{
    mat{n} m = mat{n}({list});
    vec4 r = vec4(0.0);
    r.{swz} = inverse(m) * v.{swz};
    color = r;
    gl_Position = v;
}}
",
        decl = cols
            .iter()
            .map(|c| format!("{ty} {c};"))
            .collect::<String>(),
        list = cols.join(", "),
    )
}

/// The inverse of column-major `m` (n×n), by Gauss-Jordan elimination with pivoting.
fn inverse(m: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = m.len();
    // a[row][col]
    let mut a: Vec<Vec<f64>> = (0..n).map(|r| (0..n).map(|c| m[c][r]).collect()).collect();
    let mut inv: Vec<Vec<f64>> = (0..n)
        .map(|r| (0..n).map(|c| f64::from(u8::from(r == c))).collect())
        .collect();
    for col in 0..n {
        let p = (col..n)
            .max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))
            .unwrap();
        a.swap(col, p);
        inv.swap(col, p);
        let d = a[col][col];
        for k in 0..n {
            a[col][k] /= d;
            inv[col][k] /= d;
        }
        for r in 0..n {
            if r != col {
                let f = a[r][col];
                for k in 0..n {
                    a[r][k] -= f * a[col][k];
                    inv[r][k] -= f * inv[col][k];
                }
            }
        }
    }
    // Back to columns.
    (0..n)
        .map(|c| (0..n).map(|r| inv[r][c]).collect())
        .collect()
}

#[test]
fn inverse_of_2x2_3x3_and_4x4_matrices() {
    for n in 2..=4 {
        let glsl = shader(n);
        let pica = compile(Source::glsl(&glsl, Stage::Vertex), &Options::pica())
            .unwrap_or_else(|e| panic!("mat{n}: {e}"));
        let sim = Simulator::new(&pica.bytes).unwrap();
        let agal: Vec<(Profile, Compiled, Program)> = AGAL_PROFILES
            .iter()
            .filter_map(|&p| {
                match compile(Source::glsl(&glsl, Stage::Vertex), &Options::agal(p)) {
                    Ok(c) => {
                        let prog = Program::decode(&c.bytes).unwrap();
                        Some((p, c, prog))
                    }
                    // 4×4 is long: a profile's limit is the one acceptable refusal.
                    Err(e) => {
                        assert!(e.to_string().contains("agal.limit"), "mat{n} {p:?}: {e}");
                        None
                    }
                }
            })
            .collect();
        assert!(!agal.is_empty(), "mat{n}: no AGAL profile");
        eprintln!(
            "mat{n}: PICA200 {} instructions; AGAL {:?}",
            pica.reflection.stats.instructions,
            agal.iter()
                .map(|(p, c, _)| (format!("{p:?}"), c.reflection.stats.instructions))
                .collect::<Vec<_>>()
        );
        let mut rng = Rng(0x1a7 + n as u64);
        for _ in 0..60 {
            // Well conditioned: random entries plus 2 on the diagonal.
            let columns: Vec<[f32; 4]> = (0..n)
                .map(|c| {
                    let mut col = rng.lanes(-1.0, 1.0);
                    col[c] += 2.0;
                    for x in col.iter_mut().skip(n) {
                        *x = 0.0;
                    }
                    col
                })
                .collect();
            let v = rng.lanes(-1.0, 1.0);
            let m: Vec<Vec<f64>> = columns
                .iter()
                .map(|c| c[..n].iter().map(|&x| f64::from(x)).collect())
                .collect();
            let inv = inverse(&m);
            let mut want = [0.0f64; 4];
            for (r, w) in want.iter_mut().enumerate().take(n) {
                *w = (0..n).map(|c| inv[c][r] * f64::from(v[c])).sum();
            }
            let close = |got: [f32; 4], tol: f64| all_close_to(&got, &want, tol);
            for (p, c, prog) in &agal {
                let out = run_vertex(
                    prog,
                    &VertexInputs {
                        attributes: &[v],
                        constants: &constants(c, &columns),
                        instance_id: 0,
                    },
                )
                .unwrap();
                let o = c
                    .reflection
                    .outputs
                    .iter()
                    .find(|o| o.name == "color")
                    .unwrap();
                let got = out.varyings[number(&o.register)];
                assert!(close(got, 1e-4), "mat{n} {p:?}: {got:?} vs {want:?}");
            }
            let mut u = Uniforms::default();
            for (slot, x) in u.float.iter_mut().zip(constants(&pica, &columns)) {
                *slot = x;
            }
            let mut inputs = [[0.0f32; 4]; 16];
            inputs[number(&pica.reflection.inputs[0].register)] = v;
            let out = sim.run(0, &inputs, &u).unwrap();
            let o = pica
                .reflection
                .outputs
                .iter()
                .find(|o| o.name == "color")
                .unwrap();
            let got = out.outputs[number(&o.register)];
            assert!(close(got, 5e-3), "mat{n} PICA200: {got:?} vs {want:?}");
        }
    }
}
