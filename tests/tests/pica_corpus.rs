//! Every vertex shader of the corpus through the PICA200 back end: it compiles, the bytes run
//! in the simulator (which decodes the `.shbin`, not our IR) to what the MIR interpreter
//! computes from the unoptimised module on the same random inputs, and the listing
//! (`--emit asm`) assembles back to the same bytes.

use backend_pica::sim::{Simulator, Uniforms};
use mir::eval::{Outcome, run};
use tests::fixture_files;
use tests::mirtest::{Procedural, Rng, Values, lower};

/// The corpus's vertex modules, by file name.
fn vertex_modules() -> Vec<(String, mir::Module)> {
    fixture_files("glsl", ".spv")
        .into_iter()
        .filter_map(|path| {
            let name = path.file_name()?.to_string_lossy().to_string();
            let m = lower(&std::fs::read(&path).ok()?).ok()?;
            (m.stage == mir::Stage::Vertex).then_some((name, m))
        })
        .collect()
}

/// The simulator's inputs and uniforms for `values`, as an application would load them
/// (inputs by location, uniforms by register).
pub fn machine_inputs(m: &mir::Module, values: &Values) -> ([[f32; 4]; 16], Uniforms) {
    let mut inputs = [[0.0f32; 4]; 16];
    for (i, (_, input)) in m.inputs.iter().enumerate() {
        inputs[input.location as usize] = values.inputs[i];
    }
    let mut u = Uniforms::default();
    for (slot, v) in u.float.iter_mut().zip(&values.uniforms) {
        *slot = *v;
    }
    for (slot, b) in u.bool.iter_mut().zip(&values.bools) {
        *slot = *b;
    }
    (inputs, u)
}

/// Corpus shaders the PICA200 must refuse, and what the error must say.
const REJECTED: &[(&str, &str)] = &[("vertex_texture.vert", "texture sampling")];

/// Relative difference, against 1 below 1 in magnitude.
fn difference(a: f32, b: f32) -> f32 {
    (a - b).abs() / a.abs().max(b.abs()).max(1.0)
}

#[test]
fn the_corpus_compiles_and_runs_as_the_mir_says() {
    let modules = vertex_modules();
    assert!(modules.len() >= 60, "only {} vertex modules", modules.len());
    let mut failures = Vec::new();
    let (mut compared, mut skipped, mut worst) = (0usize, 0usize, (0.0f32, String::new()));
    for (name, m) in &modules {
        let result = backend_pica::codegen::compile(m, &Default::default());
        // Valid shaders the PICA200 cannot run must be refused, saying why.
        if REJECTED.iter().any(|(stem, _)| name.starts_with(stem)) {
            let (_, why) = REJECTED
                .iter()
                .find(|(stem, _)| name.starts_with(stem))
                .unwrap();
            match result {
                Ok(_) => failures.push(format!("{name}: compiled, but must be refused")),
                Err(e) => {
                    let text = e.render(name, None);
                    if !text.contains(why) {
                        failures.push(format!("{name}: refused, but not for {why:?}: {text}"));
                    }
                }
            }
            continue;
        }
        let program = match result {
            Ok(p) => p,
            Err(e) => {
                failures.push(e.render(name, None));
                continue;
            }
        };
        let sim = Simulator::new(&program.bytes).expect("our own .shbin reads back");
        let mut rng = Rng(0x9e37_79b9 ^ name.len() as u64);
        for trial in 0..48 {
            let values = Values::random(m, &mut rng, trial % 2 == 0);
            let env = values.env(&Procedural);
            let Ok(Outcome::Outputs(expected)) = run(m, &env) else {
                continue;
            };
            let (inputs, uniforms) = machine_inputs(m, &values);
            let out = match sim.run(0, &inputs, &uniforms) {
                Ok(o) => o,
                Err(e) => {
                    failures.push(format!("{name} trial {trial}: {e}"));
                    break;
                }
            };
            if !out.missing.is_empty() {
                failures.push(format!("{name}: outputs never written: {:?}", out.missing));
                break;
            }
            for (k, slot) in program.outputs.iter().enumerate() {
                let Some((reg, mask)) = slot else { continue };
                for (l, &want) in expected[k].iter().enumerate() {
                    if mask.bits() & (1 << l) == 0 {
                        continue;
                    }
                    // Where IEEE arithmetic gives no number, GLSL leaves the result
                    // undefined (a division by zero, pow(0, -1)): nothing to compare.
                    if !want.is_finite() {
                        skipped += 1;
                        continue;
                    }
                    let got = out.outputs[*reg as usize][l];
                    compared += 1;
                    let d = difference(want, got);
                    if d > worst.0 {
                        worst = (d, format!("{name} output {k} lane {l}: {want} vs {got}"));
                    }
                    // The PICA200 computes in f24 (16-bit mantissa): 2e-3 covers the
                    // longest chains here (sin and cos polynomials after a range reduction).
                    if d.is_nan() || d > 2e-3 {
                        failures.push(format!(
                            "{name} trial {trial} output {k} lane {l}: expected {want}, simulated {got}"
                        ));
                    }
                }
            }
        }
    }
    eprintln!(
        "{} vertex modules, {compared} output lanes compared ({skipped} undefined skipped); \
         largest difference {:.2e} ({})",
        modules.len(),
        worst.0,
        worst.1
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared > 10_000, "only {compared} lanes compared");
}

#[test]
fn listings_assemble_back_to_the_same_bytes() {
    let mut same = 0;
    let mut failures = Vec::new();
    for (name, m) in vertex_modules() {
        let Ok(program) = backend_pica::codegen::compile(&m, &Default::default()) else {
            assert!(
                REJECTED.iter().any(|(stem, _)| name.starts_with(stem)),
                "{name}"
            );
            continue;
        };
        let bytes = program.bytes.clone();
        let listing = backend_pica::disasm::disassemble(&program.binary);
        let again = backend_pica::asm::assemble_str("listing.v.pica", &listing.files[0].text)
            .map(|b| backend_pica::shbin::write(&b).expect("writes"));
        match again {
            Ok(b) if b == bytes => same += 1,
            // Uniform names picasso cannot spell (struct arrays), and std140 scalars that
            // share a register (picasso gives each .fvec its own), are the only reasons a
            // listing may differ; the listing says so.
            Ok(_)
                if listing.warnings.iter().all(|w| {
                    w.contains("is not usable in picasso")
                        || w.contains("below the allocation point")
                }) && !listing.warnings.is_empty() => {}
            Ok(_) => failures.push(format!("{name}: differs; warnings {:?}", listing.warnings)),
            Err(e) => failures.push(format!("{name}: does not assemble: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(same >= 50, "only {same} listings are byte-identical");
    eprintln!("{same} listings assemble to identical bytes");
}
