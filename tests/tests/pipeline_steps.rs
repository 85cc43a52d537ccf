//! The pass pipeline as users see it: `--print-pipeline` and `--emit mir --after STEP`, on
//! shaders with loops, breaks and branches, for the PICA200 and each AGAL version.

use backend_agal::Profile;
use spv2retro::{Options, Source, mir_text, mir_text_after, pipeline_text};

/// The step numbers `pipeline_text` prints.
fn numbers(listing: &str) -> Vec<usize> {
    listing
        .lines()
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .collect()
}

/// The shader's MIR after every step: each step's stop succeeds, the last one's is the
/// pipeline's end, and the MIR changes along the way (the steps do something, and a stop
/// does stop).
fn every_step(file: &str, options: &Options) {
    let path = format!("{}/fixtures/glsl/{file}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap();
    let source = || Source::spirv(&bytes).named(file);
    let steps = numbers(&pipeline_text(options));
    assert_eq!(
        steps,
        (1..=steps.len()).collect::<Vec<_>>(),
        "numbered 1, 2, …"
    );
    let end = mir_text(source(), options).expect("compiles");
    let mut texts = Vec::new();
    for n in &steps {
        let text = mir_text_after(source(), options, &n.to_string())
            .unwrap_or_else(|e| panic!("{file}: --after {n}: {e}"));
        texts.push(text);
    }
    assert_eq!(texts.last(), Some(&end), "{file}: the last step is the end");
    texts.dedup();
    assert!(
        texts.len() >= 6,
        "{file}: only {} different texts over {} steps",
        texts.len(),
        steps.len()
    );
}

#[test]
fn every_step_of_the_pica_pipeline_can_be_stopped_after() {
    every_step("while_waves.vert.spv", &Options::pica());
    every_step("lights_uniform_loop.vert.spv", &Options::pica());
}

#[test]
fn every_step_of_each_agal_pipeline_can_be_stopped_after() {
    every_step(
        "lights_uniform_loop.vert.spv",
        &Options::agal(Profile::Baseline),
    );
    every_step("toon_bands.frag.spv", &Options::agal(Profile::Standard));
    every_step(
        "lights_const_loop.vert.spv",
        &Options::agal(Profile::StandardExtended),
    );
}

#[test]
fn a_refused_program_shows_its_mir_before_the_step_that_refuses_it() {
    // A loop whose trip count depends on data: AGAL cannot unroll it.
    let path = format!(
        "{}/fixtures/glsl/while_waves.vert.spv",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).unwrap();
    let options = Options::agal(Profile::Standard);
    let e = mir_text(Source::spirv(&bytes), &options).unwrap_err();
    assert_eq!(e.diagnostics().0[0].rule, "agal.unsupported");
    let before = mir_text_after(Source::spirv(&bytes), &options, "agal.conditional-blocks")
        .expect("the steps before the refusal run");
    assert!(before.contains("loop"), "{before}");
    let e = mir_text_after(Source::spirv(&bytes), &options, "agal.loops").unwrap_err();
    assert_eq!(e.diagnostics().0[0].rule, "agal.unsupported");
}

#[test]
fn a_step_is_named_by_its_number_or_its_unique_name() {
    let path = format!(
        "{}/fixtures/glsl/while_waves.vert.spv",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).unwrap();
    let source = || Source::spirv(&bytes);
    let options = Options::pica();
    let listing = pipeline_text(&options);
    let unroll = listing
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some("unroll"))
        .and_then(|l| l.split_whitespace().next())
        .expect("the PICA200 unrolls");
    assert_eq!(
        mir_text_after(source(), &options, "unroll").unwrap(),
        mir_text_after(source(), &options, unroll).unwrap()
    );
    let e = mir_text_after(source(), &options, "expand").unwrap_err();
    let d = &e.diagnostics().0[0];
    assert_eq!(d.rule, "pipeline.option");
    assert!(d.message.contains("'expand' runs at steps"), "{e}");
    assert_eq!(d.fault(), mir::Fault::Input);
}
