//! Shaders this project did not write: glslang's and SPIRV-Cross's own test shaders, compiled
//! by glslang (or spirv-as) and checked by spirv-val (`tests/fixtures/thirdparty`, each
//! folder rebuilt by its `fetch.sh`). Every module goes through the library for the PICA200
//! (vertex shaders) and every AGAL profile, and
//! must end in one of two ways: a program that Flash's rules accept (AGAL) and that runs in
//! the simulator without a fault, or a refusal whose every error names a user-facing rule of
//! what the targets cannot do or a limit ([`spv2retro::Fault`]). Never a panic, never
//! `*.internal`, and never a validity rule (`phys.*`, `layout.*`, `id.*`, `type.*`, `cfg.*`):
//! spirv-val accepted every module. The counts are printed (`--nocapture`).

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use backend_agal::sim::{FragmentInputs, Image, Texture, VertexInputs, run_fragment, run_vertex};
use backend_agal::{Profile, Program};
use backend_pica::sim::{Simulator, Uniforms};
use spv2retro::{Compiled, Options, Source, Stage, Target, compile};
use tests::mirtest::Rng;

/// glslang's and SPIRV-Cross's test shaders (each folder rebuilt by its `fetch.sh`).
fn modules() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for suite in ["glslang", "spirv-cross"] {
        let dir = tests::fixtures("thirdparty").join(suite).join("spv");
        let mut these: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "spv"))
            .collect();
        these.sort();
        files.extend(these);
    }
    files
}

fn number(register: &str) -> usize {
    register
        .trim_start_matches(|c: char| c.is_ascii_alphabetic())
        .parse()
        .unwrap_or(0)
}

/// Runs a compiled program once on random inputs and uniforms; the error says what faulted.
fn run(c: &Compiled, rng: &mut Rng) -> Result<(), String> {
    let mut constants = vec![[0.0f32; 4]; 256];
    for r in constants.iter_mut() {
        *r = rng.lanes(-1.0, 1.0);
    }
    for k in &c.reflection.constants {
        constants[number(&k.register)] = k.value;
    }
    match c.target {
        Target::Pica => {
            let sim = Simulator::new(&c.bytes).map_err(|e| format!("load: {e:?}"))?;
            let mut inputs = [[0.0f32; 4]; 16];
            for i in inputs.iter_mut() {
                *i = rng.lanes(-1.0, 1.0);
            }
            let mut u = Uniforms::default();
            for (slot, v) in u.float.iter_mut().zip(&constants) {
                *slot = *v;
            }
            let out = sim.run(0, &inputs, &u).map_err(|e| format!("run: {e:?}"))?;
            if !out.missing.is_empty() {
                return Err(format!("outputs never written: {:?}", out.missing));
            }
        }
        Target::Agal => {
            let program = Program::decode(&c.bytes).map_err(|e| format!("decode: {e}"))?;
            if c.stage == Stage::Vertex {
                let attributes: Vec<[f32; 4]> = (0..8).map(|_| rng.lanes(-1.0, 1.0)).collect();
                run_vertex(
                    &program,
                    &VertexInputs {
                        attributes: &attributes,
                        constants: &constants,
                        instance_id: 0,
                    },
                )
                .map_err(|e| format!("run: {e}"))?;
            } else {
                let texel = |k: usize| [(k % 3) as f32 * 0.5, (k % 2) as f32, 0.25, 1.0];
                let flat = Image::new_2d(2, 2, (0..4).map(texel).collect()).unwrap();
                let cube = Image::new_cube(2, (0..24).map(texel).collect()).unwrap();
                let mut bound: Vec<&dyn Texture> = vec![&flat; 16];
                for s in &c.reflection.samplers {
                    if s.dim == "cube" {
                        bound[number(&s.register).min(15)] = &cube;
                    }
                }
                let varyings: Vec<[f32; 4]> = (0..10).map(|_| rng.lanes(-1.0, 1.0)).collect();
                run_fragment(
                    &program,
                    &varyings,
                    &FragmentInputs {
                        constants: &constants,
                        textures: &bound,
                    },
                )
                .map_err(|e| format!("run: {e}"))?;
            }
        }
    }
    Ok(())
}

/// Shaders whose loops never end, by their own GLSL: the simulator stops them.
const ENDLESS: &[&str] = &["spv.while-continue-break.vert"];

#[test]
fn third_party_shaders_compile_or_are_refused_by_a_user_facing_rule() {
    let files = modules();
    assert!(files.len() >= 100, "only {} modules", files.len());
    // Every target and profile.
    let mut targets: Vec<(&str, Options)> = vec![("pica", Options::pica())];
    targets.extend(Profile::ALL.map(|p| (p.name(), Options::agal(p))));
    let mut compiled: BTreeMap<&str, usize> = BTreeMap::new();
    let mut refused: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut runs = 0;
    let mut out_of_range = 0;
    let mut rng = Rng(0x7e57);
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for (target, options) in &targets {
            // The PICA200 has no fragment stage: that refusal is tested elsewhere.
            if *target == "pica" && !name.contains(".vert") {
                continue;
            }
            runs += 1;
            let result = catch_unwind(AssertUnwindSafe(|| {
                compile(Source::spirv(&bytes).named(&name), options)
            }));
            match result {
                Err(_) => failures.push(format!("{name} ({target}): panicked")),
                Ok(Ok(c)) => {
                    if c.target == Target::Agal {
                        let profile = Profile::from_name(target).expect("a profile's name");
                        if let Err(e) = backend_agal::validate(&c.bytes, profile) {
                            failures.push(format!("{name} ({target}): Flash rejects it: {e:?}"));
                            continue;
                        }
                    }
                    match run(&c, &mut rng) {
                        Ok(()) => *compiled.entry(target).or_default() += 1,
                        // An array index read from the random inputs (SPIRV-Cross's
                        // `multiindex`: `Data[aIndex.x][aIndex.y]`) may be negative: the
                        // source's own out-of-range access, which the simulator reports.
                        Err(e) if e.contains("relative index") => {
                            *compiled.entry(target).or_default() += 1;
                            out_of_range += 1;
                        }
                        // glslang's `while (i < 10) { if (i % 2 == 0) continue; … }` never
                        // leaves (i stays 0): the PICA200 program runs on as the GLSL does,
                        // where a LOOP would have stopped it after 256 trips.
                        Err(e)
                            if e.contains("StepLimit")
                                && ENDLESS.iter().any(|n| name.starts_with(n)) =>
                        {
                            *compiled.entry(target).or_default() += 1;
                        }
                        Err(e) => failures.push(format!("{name} ({target}): {e}")),
                    }
                }
                Ok(Err(e)) => {
                    let rules: Vec<&str> = e.diagnostics().0.iter().map(|d| d.rule).collect();
                    // Every module passed spirv-val: none may be called invalid, and none
                    // may reach a bug; only unsupported or over a limit.
                    let wrong = e.diagnostics().0.iter().any(|d| {
                        !matches!(
                            d.fault(),
                            spv2retro::Fault::Unsupported | spv2retro::Fault::Limit
                        )
                    });
                    if rules.is_empty() || wrong || e.to_string().contains("this is a bug") {
                        failures.push(format!("{name} ({target}): {e}"));
                    } else {
                        *refused.entry(format!("{target} {}", rules[0])).or_default() += 1;
                    }
                }
            }
        }
    }
    println!(
        "{} modules, {runs} compiles: compiled and ran {compiled:?} ({out_of_range} runs \
         indexed outside an array by their random inputs); refused (first rule) {refused:#?}; \
         failures {}",
        files.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
