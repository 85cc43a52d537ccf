//! Differential testing on generated shaders: random valid vertex shaders
//! (`tests::generate`) are assembled, validated, lowered and compiled; the PICA200
//! simulator runs the bytes and must agree with the MIR interpreter on the unoptimised
//! module. A fixed seed makes the run repeatable; `fuzz/` has the unbounded version.

use backend_pica::sim::{Simulator, Uniforms};
use frontend_spirv::{Input, Options};
use mir::eval::{Outcome, run};
use tests::generate::{Source, vertex_shader};
use tests::mirtest::{Procedural, Rng, Values, lower};

/// How many shaders `cargo test` generates (`GENERATED=N` for a longer run).
fn shaders() -> u64 {
    std::env::var("GENERATED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(500)
}

/// Inputs and uniforms on the generator's grid: multiples of 1/8 in [-4, 4].
fn grid_values(m: &mir::Module, rng: &mut Rng) -> Values {
    let mut v = Values::random(m, rng, false);
    let mut grid = |x: &mut f32| *x = (rng.below(65) as i32 - 32) as f32 / 8.0;
    for lanes in v.inputs.iter_mut().chain(v.uniforms.iter_mut()) {
        lanes.iter_mut().for_each(&mut grid);
    }
    v
}

#[test]
fn generated_shaders_agree_with_the_interpreter() {
    let mut failures = Vec::new();
    let mut compared = 0usize;
    let (mut refused, mut with_ifs, mut with_loops) = (0usize, 0usize, 0usize);
    for seed in 0..shaders() {
        let mut rng = Rng(0x5eed_0000 ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let size = 4 + rng.below(40) as usize;
        let text = vertex_shader(&mut rng, size);
        let valid = match frontend_spirv::load(Input::Text(&text), &Options::default()) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!(
                    "seed {seed}: invalid module: {}\n{text}",
                    e.render("gen", Some(&text))
                ));
                continue;
            }
        };
        let bytes: Vec<u8> = frontend_spirv::asm::assemble(&text, &Default::default())
            .map(|a| a.words.iter().flat_map(|w| w.to_le_bytes()).collect())
            .unwrap_or_default();
        let _ = valid;
        let m = match lower(&bytes) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("seed {seed}: does not lower: {e}\n{text}"));
                continue;
            }
        };
        let program = match backend_pica::codegen::compile(&m, &Default::default()) {
            Ok(p) => p,
            Err(e) => {
                let text2 = e.render("gen", None);
                // Too big for the PICA200 is an honest refusal, not a failure.
                if !text2.contains("pica.limit") {
                    failures.push(format!("seed {seed}: {text2}\n{text}"));
                }
                refused += 1;
                continue;
            }
        };
        with_ifs += text.contains("OpSelectionMerge") as usize;
        with_loops += text.contains("OpLoopMerge") as usize;
        let sim = Simulator::new(&program.bytes).expect("reads back");
        for case in 0..4 {
            let values = grid_values(&m, &mut rng);
            let env = values.env(&Procedural);
            let Ok(Outcome::Outputs(want)) = run(&m, &env) else {
                failures.push(format!("seed {seed}: the interpreter fails"));
                break;
            };
            let mut inputs = [[0.0f32; 4]; 16];
            for (i, (_, input)) in m.inputs.iter().enumerate() {
                inputs[input.location as usize] = values.inputs[i];
            }
            let mut u = Uniforms::default();
            for (slot, v) in u.float.iter_mut().zip(&values.uniforms) {
                *slot = *v;
            }
            let out = match sim.run(0, &inputs, &u) {
                Ok(o) => o,
                Err(e) => {
                    failures.push(format!("seed {seed} case {case}: {e}\n{text}"));
                    break;
                }
            };
            for (k, slot) in program.outputs.iter().enumerate() {
                let Some((reg, mask)) = slot else { continue };
                let got = out.outputs[*reg as usize];
                for (l, (&w, &g)) in want[k].iter().zip(&got).enumerate() {
                    if mask.bits() & (1 << l) == 0 {
                        continue;
                    }
                    compared += 1;
                    // Values stay within [-16, 16]; f24 rounding along a chain of a few
                    // dozen operations stays under 0.02.
                    if !(w - g).abs().le(&(0.02 + 1e-3 * w.abs())) {
                        failures.push(format!(
                            "seed {seed} case {case}: output {k} lane {l}: interpreter {w}, \
                             PICA200 {g}\n{text}"
                        ));
                    }
                }
            }
            if failures.len() > 3 {
                break;
            }
        }
        if failures.len() > 3 {
            break;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    eprintln!(
        "{} generated shaders ({refused} over a PICA200 limit; of the others {with_ifs} with \
         ifs, {with_loops} with loops), {compared} output lanes compared",
        shaders()
    );
    assert!(
        with_ifs > 0 && with_loops > 0,
        "the generator made no control flow"
    );
}

/// The same generated shaders compiled for AGAL 1 and 2 (no loop instruction: every loop
/// unrolled, breaks predicated, switches flattened) and run in the AGAL simulator, against
/// the interpreter. A refusal by a profile limit or a rule a user can act on is counted; an
/// internal error is a failure.
#[test]
fn generated_shaders_agree_with_the_interpreter_on_agal() {
    use backend_agal::codegen::{Options as AgalOptions, compile};
    use backend_agal::operand::RegType;
    use backend_agal::sim::{VertexInputs, run_vertex};
    use backend_agal::{Profile, Program};
    let mut failures = Vec::new();
    let (mut compared, mut compiled, mut refused) = (0usize, 0usize, 0usize);
    let count = (shaders() / 2).max(1);
    for seed in 0..count {
        let mut rng = Rng(0xa6a1_0000 ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let size = 4 + rng.below(40) as usize;
        let text = vertex_shader(&mut rng, size);
        let bytes: Vec<u8> = frontend_spirv::asm::assemble(&text, &Default::default())
            .map(|a| a.words.iter().flat_map(|w| w.to_le_bytes()).collect())
            .unwrap_or_default();
        let Ok(m) = lower(&bytes) else { continue };
        for profile in [Profile::Baseline, Profile::Standard] {
            let options = AgalOptions {
                profile,
                ..AgalOptions::default()
            };
            let c = match compile(&m, &options) {
                Ok(c) => c,
                Err(e) => {
                    let text2 = e.render("gen", None);
                    if text2.contains(".internal") || text2.contains("this is a bug") {
                        failures.push(format!("seed {seed} {profile:?}: {text2}\n{text}"));
                    }
                    refused += 1;
                    continue;
                }
            };
            compiled += 1;
            let program = Program::decode(&c.bytes).expect("decodes");
            for case in 0..3 {
                let values = grid_values(&m, &mut rng);
                let env = values.env(&Procedural);
                let Ok(Outcome::Outputs(want)) = run(&m, &env) else {
                    break;
                };
                let mut constants = values.uniforms.clone();
                for &(reg, v) in &c.constants {
                    let reg = usize::from(reg);
                    if constants.len() <= reg {
                        constants.resize(reg + 1, [0.0; 4]);
                    }
                    constants[reg] = v;
                }
                let mut inputs = vec![[0.0f32; 4]; 16];
                for (k, &(_, n)) in c.interface.inputs.iter().enumerate() {
                    inputs[usize::from(n)] = values.inputs[k];
                }
                let out = match run_vertex(
                    &program,
                    &VertexInputs {
                        attributes: &inputs,
                        constants: &constants,
                        instance_id: 0,
                    },
                ) {
                    Ok(o) => o,
                    Err(e) => {
                        failures.push(format!("seed {seed} {profile:?} case {case}: {e}\n{text}"));
                        break;
                    }
                };
                for (k, slot) in c.interface.outputs.iter().enumerate() {
                    let Some(o) = slot else { continue };
                    let got = if o.reg == RegType::Varying {
                        out.varyings[usize::from(o.index)]
                    } else {
                        out.position
                    };
                    for (l, (&w, &g)) in want[k].iter().zip(&got).enumerate() {
                        if o.mask.bits() & (1 << l) == 0 {
                            continue;
                        }
                        compared += 1;
                        if !(w - g).abs().le(&(1e-3 + 1e-4 * w.abs())) {
                            failures.push(format!(
                                "seed {seed} {profile:?} case {case}: output {k} lane {l}: \
                                 interpreter {w}, AGAL {g}\n{text}"
                            ));
                        }
                    }
                }
                if failures.len() > 3 {
                    break;
                }
            }
        }
        if failures.len() > 3 {
            break;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    eprintln!(
        "{count} generated shaders on AGAL 1 and 2: {compiled} programs ran, {refused} refused \
         by a limit or a rule; {compared} output lanes compared"
    );
    assert!(compiled > 0);
}
