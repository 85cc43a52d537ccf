//! The optimiser does not change what a program computes: every corpus module is
//! interpreted before and after `mir::passes::optimize` on the same random inputs.

use mir::eval::{Outcome, run};
use tests::fixture_files;
use tests::mirtest::{Procedural, Rng, Values, close, lower};

#[test]
fn optimisation_preserves_results_on_the_corpus() {
    let mut failures = Vec::new();
    let mut compared = 0;
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
        let mut optimised = original.clone();
        let stats = match mir::passes::optimize(&mut optimised) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        totals.0 += stats.before;
        totals.1 += stats.after;
        let mut rng = Rng(0x1234_5678 ^ name.len() as u64);
        for trial in 0..24 {
            let values = Values::random(&original, &mut rng, trial % 2 == 0);
            let env = values.env(&Procedural);
            let Ok(expected) = run(&original, &env) else {
                continue;
            };
            let got = match run(&optimised, &env) {
                Ok(g) => g,
                Err(e) => {
                    failures.push(format!(
                        "{name} trial {trial}: the optimised program fails: {e}"
                    ));
                    break;
                }
            };
            compared += 1;
            let same = match (&expected, &got) {
                (Outcome::Outputs(a), Outcome::Outputs(b)) => a
                    .iter()
                    .zip(b)
                    .all(|(x, y)| x.iter().zip(y).all(|(p, q)| close(*p, *q, 1e-4))),
                (Outcome::Discarded, Outcome::Discarded) => true,
                _ => false,
            };
            if !same {
                failures.push(format!(
                    "{name} trial {trial}: before {expected:?}, after {got:?}"
                ));
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared > 1000, "only {compared} runs compared");
    eprintln!(
        "{compared} runs compared; MIR instructions {} before, {} after optimisation",
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
            pack: false,
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
    let without = mir::liveness::pressure(&unpacked.function);
    let with = mir::liveness::pressure(&packed.function);
    eprintln!("live temporaries: optimised without packing {without:?}, with {with:?}");
    assert!(without.values > 8, "{without:?}");
    assert!(with.values <= 8, "{with:?}");
    assert!(with.values < without.values, "{without:?} -> {with:?}");
    assert!(
        packed.function.inst_count() < unpacked.function.inst_count(),
        "packing saves instructions"
    );
}
