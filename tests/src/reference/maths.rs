//! Plain-Rust vector maths with GLSL's semantics, in f64, for the references.

#![allow(clippy::needless_range_loop)] // index-based matrix and lane maths reads closest to GLSL

use std::array::from_fn;

// ------------------------------------------------------------------------------------------
// Plain-Rust vector maths (GLSL semantics, f64).
// ------------------------------------------------------------------------------------------

pub type V2 = [f64; 2];
pub type V3 = [f64; 3];
pub type V4 = [f64; 4];
/// A GLSL matrix with `C` columns of `R` rows: `m[column][row]`.
pub type Mat<const C: usize, const R: usize> = [[f64; R]; C];

pub fn add<const N: usize>(a: [f64; N], b: [f64; N]) -> [f64; N] {
    from_fn(|i| a[i] + b[i])
}
pub fn sub<const N: usize>(a: [f64; N], b: [f64; N]) -> [f64; N] {
    from_fn(|i| a[i] - b[i])
}
pub fn mul<const N: usize>(a: [f64; N], b: [f64; N]) -> [f64; N] {
    from_fn(|i| a[i] * b[i])
}
pub fn sc<const N: usize>(a: [f64; N], s: f64) -> [f64; N] {
    from_fn(|i| a[i] * s)
}
pub fn adds<const N: usize>(a: [f64; N], s: f64) -> [f64; N] {
    from_fn(|i| a[i] + s)
}
pub fn neg<const N: usize>(a: [f64; N]) -> [f64; N] {
    from_fn(|i| -a[i])
}
pub fn dot<const N: usize>(a: [f64; N], b: [f64; N]) -> f64 {
    (0..N).map(|i| a[i] * b[i]).sum()
}
pub fn length<const N: usize>(a: [f64; N]) -> f64 {
    dot(a, a).sqrt()
}
pub fn normalize<const N: usize>(a: [f64; N]) -> [f64; N] {
    sc(a, 1.0 / length(a))
}
pub fn reflect<const N: usize>(i: [f64; N], n: [f64; N]) -> [f64; N] {
    sub(i, sc(n, 2.0 * dot(n, i)))
}
pub fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
pub fn clamp(x: f64, lo: f64, hi: f64) -> f64 {
    x.max(lo).min(hi)
}
pub fn sat(x: f64) -> f64 {
    clamp(x, 0.0, 1.0)
}
pub fn mix(x: f64, y: f64, a: f64) -> f64 {
    x + (y - x) * a
}
pub fn mixv<const N: usize>(x: [f64; N], y: [f64; N], a: f64) -> [f64; N] {
    from_fn(|i| mix(x[i], y[i], a))
}
pub fn smoothstep(e0: f64, e1: f64, x: f64) -> f64 {
    let t = sat((x - e0) / (e1 - e0));
    t * t * (3.0 - 2.0 * t)
}
pub fn fract(x: f64) -> f64 {
    x - x.floor()
}
pub fn sign(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}
pub fn v4(v: V3, w: f64) -> V4 {
    [v[0], v[1], v[2], w]
}
pub fn xyz(v: V4) -> V3 {
    [v[0], v[1], v[2]]
}
pub fn xy<const N: usize>(v: [f64; N]) -> V2 {
    [v[0], v[1]]
}
pub fn zw(v: V4) -> V2 {
    [v[2], v[3]]
}
/// `m * v` (GLSL: column vector on the right).
pub fn mv<const C: usize, const R: usize>(m: &Mat<C, R>, v: [f64; C]) -> [f64; R] {
    let mut out = [0.0; R];
    for c in 0..C {
        for r in 0..R {
            out[r] += m[c][r] * v[c];
        }
    }
    out
}
/// `v * m` (GLSL: row vector on the left, i.e. `transpose(m) * v`).
pub fn vm<const C: usize, const R: usize>(v: [f64; R], m: &Mat<C, R>) -> [f64; C] {
    from_fn(|c| dot(v, m[c]))
}
/// `mat3(m)`.
pub fn mat3(m: &Mat<4, 4>) -> Mat<3, 3> {
    from_fn(|c| from_fn(|r| m[c][r]))
}
/// HLSL `mul(v, M)` with `M[row][column]` (a row vector times `R`×`C`).
pub fn hmul_vm<const R: usize, const C: usize>(v: [f64; R], m: &[[f64; C]; R]) -> [f64; C] {
    from_fn(|j| (0..R).map(|i| v[i] * m[i][j]).sum())
}
/// HLSL `mul(M, v)` with `M[row][column]`.
pub fn hmul_mv<const R: usize, const C: usize>(m: &[[f64; C]; R], v: [f64; C]) -> [f64; R] {
    from_fn(|i| dot(m[i], v))
}

/// `None` (re-draw the case) when `x` is within `eps` of the threshold `t`.
pub fn away(x: f64, t: f64, eps: f64) -> Option<()> {
    ((x - t).abs() >= eps).then_some(())
}
/// `None` (re-draw) when `v` is too short to normalise reliably.
pub fn long<const N: usize>(v: [f64; N], min: f64) -> Option<()> {
    (length(v) >= min).then_some(())
}
