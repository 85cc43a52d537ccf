//! The same input gives the same bytes, every time: no hash-order leak from the front end,
//! the optimiser, the register allocator or the encoders. Each module is compiled on
//! several threads (each has its own hash seeds) and again on this one, for every target
//! and stage it has; every listing, reflection and byte must agree.

use spv2retro::{Options, Profile, Source, Stage, compile};

/// Everything a compile produces, as one comparable string of bytes.
fn outcome(bytes: &[u8], options: &Options) -> Vec<u8> {
    match compile(Source::spirv(bytes), options) {
        Ok(p) => {
            let mut out = p.bytes;
            out.extend(p.listing.into_bytes());
            out.extend(p.reflection.to_json().into_bytes());
            out
        }
        Err(e) => e.to_string().into_bytes(),
    }
}

fn option_sets(name: &str) -> Vec<Options> {
    let stage = if name.contains(".frag") || name.contains(".ps.") {
        Stage::Fragment
    } else {
        Stage::Vertex
    };
    let mut sets = vec![
        Options::agal(Profile::Baseline).stage(stage),
        Options::agal(Profile::StandardExtended).stage(stage),
    ];
    if stage == Stage::Vertex {
        sets.push(Options::pica());
    }
    sets
}

#[test]
fn every_corpus_module_compiles_to_the_same_bytes_every_time() {
    let mut modules: Vec<(String, Vec<u8>)> = tests::fixture_files("glsl", ".spv")
        .into_iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().to_string(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    // Generated shaders too: larger, with loops and ifs the corpus does not have.
    for seed in 0..20u64 {
        let mut rng = tests::mirtest::Rng(0xd373_0000 + seed);
        let text = tests::generate::vertex_shader(&mut rng, 40);
        let words = frontend_spirv::asm::assemble(&text, &Default::default())
            .unwrap()
            .words;
        modules.push((
            format!("generated {seed}"),
            words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        ));
    }
    let first: Vec<Vec<Vec<u8>>> = modules
        .iter()
        .map(|(name, bytes)| {
            option_sets(name)
                .iter()
                .map(|o| outcome(bytes, o))
                .collect()
        })
        .collect();
    let mut compared = 0;
    std::thread::scope(|scope| {
        let runs: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    modules
                        .iter()
                        .map(|(name, bytes)| {
                            option_sets(name)
                                .iter()
                                .map(|o| outcome(bytes, o))
                                .collect::<Vec<_>>()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for run in runs {
            let again = run.join().unwrap();
            for ((name, _), (a, b)) in modules.iter().zip(first.iter().zip(&again)) {
                for (k, (x, y)) in a.iter().zip(b).enumerate() {
                    assert!(x == y, "{name}: option set {k} gave different output");
                    compared += 1;
                }
            }
        }
    });
    assert!(compared > 300, "only {compared} compiles compared");
}
