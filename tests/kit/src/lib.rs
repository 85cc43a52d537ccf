//! What the workspace's integration tests share, so that each is written once: float
//! comparison with a tolerance ([`close`], [`close_to`], [`within`]), the deterministic
//! generators whose seeds the tests record ([`Rng`], [`SplitMix64`]), and paths ([`fixture`],
//! [`scratch`]).
//!
//! Every test crate runs its tests as threads of one process, so nothing here keeps state a
//! test could see from another, except the names [`scratch`] has handed out.

use std::collections::BTreeSet;
use std::ops::{Add, Mul, Sub};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

// ---------------------------------------------------------------------------------------
// Comparison

/// `f32` or `f64`: a comparison computes in its arguments' type, as the tests always did.
pub trait Float:
    Copy + PartialOrd + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self>
{
    /// 1.
    const ONE: Self;
    /// The absolute value.
    fn abs(self) -> Self;
    /// The larger of the two (the other one if either is NaN).
    fn max(self, other: Self) -> Self;
    /// Whether the value is NaN.
    fn is_nan(self) -> bool;
}

macro_rules! float {
    ($t:ty) => {
        impl Float for $t {
            const ONE: Self = 1.0;
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn max(self, other: Self) -> Self {
                <$t>::max(self, other)
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
        }
    };
}
float!(f32);
float!(f64);

/// Equal values agree whatever the tolerance (infinities of one sign too), and so do two NaNs.
fn same<F: Float>(a: F, b: F) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

/// Whether two results agree: `|a − b| ≤ tolerance · max(|a|, |b|, 1)`, relative to the
/// larger, absolute below 1. Symmetric: for two computations of one value (a program and
/// the interpreter, two programs), neither of which is the reference.
///
/// As in every copy this replaces, an infinity scales the bound to infinity, so it is close
/// to any value but NaN (the same holds for an infinite `want` in [`close_to`] and
/// [`within`]).
pub fn close<F: Float>(a: F, b: F, tolerance: F) -> bool {
    same(a, b) || (a - b).abs() <= tolerance * a.abs().max(b.abs()).max(F::ONE)
}

/// Whether `got` is `want`: `|got − want| ≤ tolerance · max(|want|, 1)`, relative to the
/// expected value, absolute below 1.
pub fn close_to<F: Float>(got: F, want: F, tolerance: F) -> bool {
    same(got, want) || (got - want).abs() <= tolerance * want.abs().max(F::ONE)
}

/// Whether `got` is `want` within an absolute and a relative part added:
/// `|got − want| ≤ absolute + relative · |want|`, for rounding with a floor as well as a
/// scale (f24 lanes on the PICA200).
pub fn within<F: Float>(got: F, want: F, absolute: F, relative: F) -> bool {
    same(got, want) || (got - want).abs() <= absolute + relative * want.abs()
}

/// [`close_to`] lane by lane, over the shorter of the two. `got` may be narrower than
/// `want` (`f32` lanes against an `f64` reference), and is widened exactly.
pub fn all_close_to<G: Copy + Into<F>, F: Float>(got: &[G], want: &[F], tolerance: F) -> bool {
    got.iter()
        .zip(want)
        .all(|(&g, &w)| close_to(g.into(), w, tolerance))
}

// ---------------------------------------------------------------------------------------
// Deterministic generators

/// xorshift64*: small, fast, and the same sequence everywhere. The seed is the state; it must
/// not be 0. The tests record seeds (regression cases, failure messages), so the sequence of
/// every method here is fixed: change none of them.
///
/// There is deliberately no `below`: the `tests` crate's generator trait (`Source`) has one
/// over `next_u32`, and an inherent method of that name would silently take over its calls.
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// SplitMix64: a counter through a mixer, good from any seed (0 and names' hashes too).
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// What both generators draw from their 64 bits, the same way.
macro_rules! draws {
    ($t:ty) => {
        impl $t {
            /// A number in `0..n` (0 when `n` is 0): the next 64 bits modulo `n`.
            pub fn index(&mut self, n: usize) -> usize {
                (self.next_u64() % n.max(1) as u64) as usize
            }

            /// A float in [lo, hi): the top 24 of the next 64 bits as the fraction.
            pub fn float(&mut self, lo: f32, hi: f32) -> f32 {
                let u = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
                lo + (hi - lo) * u
            }

            /// Four floats in [lo, hi), lane 0 first.
            pub fn lanes(&mut self, lo: f32, hi: f32) -> [f32; 4] {
                [
                    self.float(lo, hi),
                    self.float(lo, hi),
                    self.float(lo, hi),
                    self.float(lo, hi),
                ]
            }
        }
    };
}
draws!(Rng);
draws!(SplitMix64);

// ---------------------------------------------------------------------------------------
// Paths

/// `rel` in the shared fixture corpus, `tests/fixtures`: `fixture("glsl/phong.frag.spv")`.
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the kit lives in tests/kit")
        .join("fixtures")
        .join(rel)
}

/// A fresh, empty directory for one test, `<temp>/spv2retro-test-<pid>-<name>` (emptied if a
/// crashed run left it behind). The tests of a crate share one process, so `name` must be
/// unique among them: a second call with the same name panics rather than let two tests
/// running at once write into one directory.
#[track_caller]
pub fn scratch(name: &str) -> PathBuf {
    static HANDED_OUT: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    let fresh = HANDED_OUT
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(name.to_string());
    assert!(
        fresh,
        "scratch directory `{name}` was already handed out in this process: two tests would share it"
    );
    let dir = std::env::temp_dir().join(format!("spv2retro-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

// ---------------------------------------------------------------------------------------
// One test binary per crate

/// Fails unless every test file of a crate is a module of its test binary. Each crate has
/// `autotests = false` and one `[[test]]`, `tests/main.rs`: cargo builds nothing else, so a
/// file in `tests/` that `main.rs` does not declare would silently never run. A file `x.rs`
/// needs `mod x;` in `main.rs`, and so does a folder `x/` with a `mod.rs`; other folders hold
/// a module's own submodules (`tests/spv2pica/picasso.rs`). `crate_dir` is the crate's
/// `CARGO_MANIFEST_DIR`.
#[track_caller]
pub fn assert_every_test_file_is_a_module(crate_dir: &str) {
    let dir = Path::new(crate_dir).join("tests");
    let main = std::fs::read_to_string(dir.join("main.rs"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.join("main.rs").display()));
    let declared: BTreeSet<&str> = main
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let line = line.strip_prefix("pub ").unwrap_or(line);
            line.strip_prefix("mod ")?.strip_suffix(';')
        })
        .collect();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let module = if path.is_dir() {
            path.join("mod.rs").is_file().then_some(name)
        } else {
            name.strip_suffix(".rs")
                .filter(|&m| m != "main")
                .map(str::to_string)
        };
        if let Some(module) = module.filter(|m| !declared.contains(m.as_str())) {
            missing.push(module);
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "{} does not declare {missing:?}: add `mod NAME;` for each, or they never run",
        dir.join("main.rs").display()
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_comparisons_scale_as_documented() {
        // Relative above 1, absolute below.
        assert!(close(1000.0f32, 1000.9, 1e-3) && !close(1000.0f32, 1001.1, 1e-3));
        assert!(close(0.0f32, 0.0009, 1e-3) && !close(0.0f32, 0.0011, 1e-3));
        // `close` scales by the larger (either way round), `close_to` by the expected value.
        assert!(close(10.009f64, 10.0, 1e-3) && close(10.0f64, 10.009, 1e-3));
        assert!(close(100.0f64, 0.0, 1.0) && !close_to(100.0f64, 0.0, 1.0));
        // `within` adds its absolute and relative parts.
        assert!(within(10.015f64, 10.0, 0.01, 0.001) && !within(10.025f64, 10.0, 0.01, 0.001));
        // Widened lanes, over the shorter.
        assert!(all_close_to(&[1.0f32, 2.0], &[1.0f64, 2.0005, 99.0], 1e-3));
        assert!(!all_close_to(&[1.0f32, 2.0], &[1.0f64, 2.1], 1e-3));
        // Equal values agree whatever the tolerance; NaN only with NaN.
        for f in [close::<f32>, close_to::<f32>] {
            assert!(f(f32::INFINITY, f32::INFINITY, 0.0) && f(f32::NAN, f32::NAN, 0.0));
            assert!(!f(f32::NAN, 1.0, 1.0) && !f(1.0, f32::NAN, 1.0));
        }
    }

    /// The sequences the tests' seeds stand for, as the copies this replaced drew them
    /// (computed with those copies): a change here changes every recorded seed's case.
    #[test]
    fn the_generators_draw_what_they_always_drew() {
        let mut r = Rng(1);
        let first = [r.next_u64(), r.next_u64(), r.next_u64()];
        assert_eq!(
            first,
            [
                0x47e4_ce4b_896c_dd1d,
                0xabcf_a6a8_e079_651d,
                0xb9d1_0d8f_eb73_1f57
            ]
        );
        let mut r = Rng(0x5eed_1234_abcd_0001);
        let picks: Vec<usize> = (0..6).map(|_| r.index(7)).collect();
        assert_eq!(picks, [3, 0, 3, 4, 1, 2]);
        let mut r = Rng(11);
        let lanes = r.lanes(-2.0, 2.0);
        assert_eq!(
            lanes[..2].iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
            [1066963432, 1068479432]
        );
        let mut s = SplitMix64(0);
        assert_eq!(
            [s.next_u64(), s.next_u64()],
            [0xe220_a839_7b1d_cdaf, 0x6e78_9e6a_a1b9_65f4]
        );
        assert_eq!(SplitMix64(7).float(-1.0, 3.0).to_bits(), 1057959812);
    }
}
