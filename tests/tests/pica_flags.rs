//! A bool an `if`'s arms decide and a later branch alone tests is carried in the PICA200's
//! CMP flags (`backend_pica::codegen::flags`): each arm ends with the CMP that sets them (two
//! comparisons joined by `||` or `&&` in `cmp.x` and `cmp.y`), a constant arm compares a
//! register with itself, and the branch tests `cmp.x`, `cmp.x || cmp.y` or `cmp.x && cmp.y`.
//! Each program is compiled from GLSL, run in the simulator through its reflection on
//! values both ways round each comparison, and compared with what this test computes.

use spv2retro::{Compiled, Options, Source, Stage, compile};
use test_kit::within;
use tests::driven::run_by_name;

fn build(body: &str) -> Compiled {
    let text = format!(
        "#version 450
layout(location = 0) in vec4 v;
layout(location = 0) out vec4 o;
uniform vec4 k;
uniform bool wrap;
void main() {{
{body}
    gl_Position = v;
}}"
    );
    compile(
        Source::glsl(&text, Stage::Vertex),
        &Options::pica().stage(Stage::Vertex),
    )
    .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The output `o` for input `v`, uniform `k` and bool `wrap`.
fn run(c: &Compiled, v: [f32; 4], k: [f32; 4], wrap: bool) -> [f32; 4] {
    let out = run_by_name(
        c,
        &[("v", v.to_vec())],
        &[("k", k.to_vec()), ("wrap", vec![f32::from(u8::from(wrap))])],
    );
    out.outputs
        .iter()
        .find(|o| o.name == "o")
        .expect("output o")
        .value
}

/// Runs `c` and compares `o` with `want`, lane by lane.
fn check(c: &Compiled, v: [f32; 4], k: [f32; 4], wrap: bool, want: [f32; 4]) {
    let got = run(c, v, k, wrap);
    for l in 0..4 {
        assert!(
            within(got[l], want[l], 1e-3, 1e-3),
            "v {v:?} wrap {wrap}: {got:?}, want {want:?}\n{}",
            c.listing
        );
    }
}

/// The values each test runs: each lane below, between and above 0 and 1.
fn cases() -> Vec<[f32; 4]> {
    let xs = [-0.5f32, 0.25, 0.75, 1.5];
    let mut out = Vec::new();
    for &a in &xs {
        for &b in &xs {
            out.push([a, b, a * 0.5 + 0.1, 1.0]);
        }
    }
    out
}

/// particles' skip test: under a bool uniform, `t` outside [0, 1] skips (two comparisons
/// in one CMP); otherwise `t` wraps and nothing is skipped (a constant arm).
#[test]
fn an_or_of_two_comparisons_decided_under_a_bool_uniform() {
    let c = build(
        "    float t = v.x * k.x + k.y;
    bool skip;
    if (wrap) {
        t = t - floor(t);
        skip = false;
    } else {
        skip = t < 0.0 || 1.0 < t;
    }
    vec4 r = vec4(0.0);
    if (!skip) {
        r = vec4(t * v.y + v.z, t * t - v.w, sqrt(abs(t) + 1.0), exp2(t));
    }
    o = r;",
    );
    assert!(c.listing.contains("ifc !cmp.x && !cmp.y"), "{}", c.listing);
    assert!(!c.listing.contains("slt"), "{}", c.listing);
    for v in cases() {
        for wrap in [false, true] {
            let k = [1.25f32, -0.125, 0.0, 0.0];
            let mut t = v[0] * k[0] + k[1];
            let skip = if wrap {
                t -= t.floor();
                false
            } else {
                !(0.0..=1.0).contains(&t)
            };
            let want = if skip {
                [0.0; 4]
            } else {
                [
                    t * v[1] + v[2],
                    t * t - v[3],
                    (t.abs() + 1.0).sqrt(),
                    t.exp2(),
                ]
            };
            check(&c, v, k, wrap, want);
        }
    }
}

/// A retry loop: an arm's constant `true` makes the flags hold the negation (`x < x` in
/// that arm, the other arm's comparison inverted), and the loop's test jumps back on them.
#[test]
fn a_do_while_on_a_bool_an_if_decides() {
    let c = build(
        "    vec4 x = v;
    float n = 0.0;
    bool done;
    do {
        x = x * 0.5 + k.xyzw;
        n += 1.0;
        if (wrap) {
            done = true;
        } else {
            done = x.x >= k.z && x.y >= k.w;
        }
    } while (!done);
    o = vec4(x.xy, n, 1.0);",
    );
    assert!(c.listing.contains("jmpc cmp.x || cmp.y"), "{}", c.listing);
    assert!(!c.listing.contains("sge"), "{}", c.listing);
    for v in cases() {
        for wrap in [false, true] {
            let k = [0.25f32, 0.5, 0.45, 0.95];
            let (mut x, mut n) = (v, 0.0f32);
            loop {
                for l in 0..4 {
                    x[l] = x[l] * 0.5 + k[l];
                }
                n += 1.0;
                let done = wrap || (x[0] >= k[2] && x[1] >= k[3]);
                if done {
                    break;
                }
            }
            let want = [x[0], x[1], n, 1.0];
            check(&c, v, k, wrap, want);
        }
    }
}
