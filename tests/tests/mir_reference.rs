//! The lowering computes what the source says: every corpus shader (its raw `.spv` and its
//! `.opt.spv`, and for the vertex shaders also the SPIR-V naga makes of the source) runs in
//! the MIR interpreter, as lowered and after `mir::passes::optimize`, against a value the
//! test computes in plain Rust (f64) by re-implementing the GLSL/HLSL source
//! (`tests::reference`).

use tests::reference::{self, Mir, fixture_modules, naga_module, shaders::*};

const RUNNERS: &[&dyn reference::Runner] = &[&Mir { optimise: false }, &Mir { optimise: true }];

macro_rules! mir_tests {
    ($($test:ident: $stem:literal => $reference:ident [$($path:literal),*];)*) => {
        $(
            #[test]
            fn $test() {
                reference::check($stem, $reference, &[$($path),*], &fixture_modules($stem), RUNNERS);
            }
        )*
        /// Every shader the file covers.
        const COVERED: &[&str] = &[$($stem),*];
    };
}

tests::for_each_shader!(mir_tests);

mod naga {
    use super::*;

    macro_rules! naga_tests {
        ($($test:ident: $stem:literal => $reference:ident [$($path:literal),*];)*) => {
            $(
                #[test]
                fn $test() {
                    reference::check($stem, $reference, &[$($path),*], &naga_module($stem), RUNNERS);
                }
            )*
        };
    }

    tests::for_each_naga_shader!(naga_tests);
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
        let dir = tests::fixtures("glsl");
        assert!(dir.join(stem).exists(), "{stem}: no source");
        for variant in ["spv", "opt.spv"] {
            assert!(
                dir.join(format!("{stem}.{variant}")).exists(),
                "{stem}.{variant}"
            );
        }
    }
}
