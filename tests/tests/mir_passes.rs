//! The optimiser does not change what a program computes: every corpus module is
//! interpreted before and after `mir::passes::optimize` on the same random inputs.

use mir::eval::{Outcome, run};
use tests::fixture_files;
use tests::mirtest::{Procedural, Rng, Values, close, lower};

#[test]
fn optimisation_preserves_results_on_the_corpus() {
    let mut failures = Vec::new();
    let mut compared = 0;
    let mut tolerated = 0;
    let mut totals = (0usize, 0usize);
    for path in fixture_files("glsl", ".spv") {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let original = match lower(&bytes) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}: does not lower: {e}"));
                continue;
            }
        };
        // The default pipeline, and the back ends' (bools as floats, expansions).
        let mut variants = Vec::new();
        for (what, options) in [
            ("default", mir::passes::Options::default()),
            ("pica", backend_pica::codegen::prepare::passes()),
            ("agal 1", backend_agal::codegen::prepare::passes(false)),
            ("agal 2", backend_agal::codegen::prepare::passes(true)),
        ] {
            let mut optimised = original.clone();
            match mir::passes::optimize_with(&mut optimised, &options) {
                Ok(stats) => {
                    if what == "default" {
                        totals.0 += stats.before;
                        totals.1 += stats.after;
                    }
                    variants.push((what, optimised));
                }
                Err(e) => failures.push(format!("{name} ({what}): {e}")),
            }
        }
        let mut rng = Rng(0x1234_5678 ^ name.len() as u64);
        for trial in 0..24 {
            let values = Values::random(&original, &mut rng, trial % 2 == 0);
            let env = values.env(&Procedural);
            let Ok(expected) = run(&original, &env) else {
                continue;
            };
            for (what, optimised) in &variants {
                let got = match run(optimised, &env) {
                    Ok(g) => g,
                    Err(e) => {
                        failures.push(format!(
                            "{name} trial {trial} ({what}): the optimised program fails: {e}"
                        ));
                        continue;
                    }
                };
                compared += 1;
                // The back ends' sin and cos are polynomials after a range reduction
                // (`fract(x / 2pi)`), which loses f32 bits for large angles: 1e-3.
                let tolerance = if *what == "default" { 1e-4 } else { 1e-3 };
                let same = match (&expected, &got) {
                    (Outcome::Outputs(a), Outcome::Outputs(b)) => a
                        .iter()
                        .zip(b)
                        .all(|(x, y)| x.iter().zip(y).all(|(p, q)| close(*p, *q, tolerance))),
                    (Outcome::Discarded, Outcome::Discarded) => true,
                    _ => false,
                };
                // The back ends' pipelines compute some things the way their hardware
                // does, which the interpreter's IEEE arithmetic sees differently: AGAL 1
                // runs both arms of every `if` and blends them, `c * a + (1 - c) * b`,
                // which makes an infinite arm not taken NaN; `pow(x, y)` becomes
                // `exp2(y * log2(x))`, NaN in IEEE for x = 0, y = 0 (undefined in GLSL;
                // 1 on the PICA200, where inf * 0 is 0). Such differences are counted, not
                // failed; they must stay rare (random uniforms such as a zero or negative
                // shininess exponent cause them).
                let poisoned = *what != "default" && non_finite_where_finite(&expected, &got);
                if poisoned {
                    tolerated += 1;
                } else if !same {
                    failures.push(format!(
                        "{name} trial {trial} ({what}): before {expected:?}, after {got:?}"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared > 1000, "only {compared} runs compared");
    assert!(
        tolerated * 100 <= compared,
        "{tolerated} of {compared} runs had a non-finite blend"
    );
    eprintln!(
        "{compared} runs compared ({tolerated} back-end runs non-finite where IEEE arithmetic is); \
         MIR instructions {} before, {} after optimisation",
        totals.0, totals.1
    );
}

/// Lane packing is what lets scalar code fit the smallest register file (AGAL 1 has eight
/// temporaries): the particle shader, written lane by lane, needs more than eight registers
/// when optimised without it, and at most eight with it.
#[test]
fn scalar_code_fits_in_eight_temporaries() {
    let bytes = std::fs::read(tests::fixtures("glsl").join("particles_scalar.vert.spv")).unwrap();
    let lowered = lower(&bytes).unwrap();
    let unpacked = {
        let mut m = lowered.clone();
        let options = mir::passes::Options {
            vectorize: false,
            ..Default::default()
        };
        mir::passes::optimize_with(&mut m, &options).unwrap();
        m
    };
    let packed = {
        let mut m = lowered.clone();
        mir::passes::optimize(&mut m).unwrap();
        m
    };
    let without = mir::analysis::liveness::pressure(&unpacked.function);
    let with = mir::analysis::liveness::pressure(&packed.function);
    eprintln!("live temporaries: optimised without packing {without:?}, with {with:?}");
    assert!(without.values > 8, "{without:?}");
    assert!(with.values <= 8, "{with:?}");
    assert!(with.values < without.values, "{without:?} -> {with:?}");
    assert!(
        packed.function.inst_count() < unpacked.function.inst_count(),
        "packing saves instructions"
    );
}

/// Whether `got` has a non-finite lane where `expected` has a finite one (and otherwise
/// agrees).
fn non_finite_where_finite(expected: &Outcome, got: &Outcome) -> bool {
    let (Outcome::Outputs(a), Outcome::Outputs(b)) = (expected, got) else {
        return false;
    };
    let mut any = false;
    for (x, y) in a.iter().zip(b) {
        for (p, q) in x.iter().zip(y) {
            if p.is_finite() && !q.is_finite() {
                any = true;
            } else if !close(*p, *q, 1e-4) {
                return false;
            }
        }
    }
    any
}
