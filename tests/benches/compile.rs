//! Compile time per shader over the corpus, as a user's build pays it: load and validate the
//! SPIR-V, lower it, compile it (optimisation included) to the target's bytes.
//!
//! `cargo bench -p tests --bench compile` (add `-- pica/` to run one group). Criterion prints
//! each shader's time; the corpus totals come last.

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use frontend_spirv::entry::{self, Stage};
use frontend_spirv::{Input, Options};

/// Every raw glslang module of the corpus (variants of the same source behave alike).
fn corpus() -> Vec<(String, Vec<u8>)> {
    tests::fixture_files("glsl", ".spv")
        .into_iter()
        .filter_map(|p| {
            let name = p.file_name()?.to_string_lossy().to_string();
            // One file per source: the raw .spv.
            let stem = name.strip_suffix(".spv")?;
            (!stem.contains(".opt")
                && !stem.contains(".g")
                && !stem.contains(".v13")
                && !stem.contains("optsize"))
            .then(|| (stem.to_string(), std::fs::read(&p).ok()))
            .and_then(|(n, b)| Some((n, b?)))
        })
        .collect()
}

/// What `spv2pica` does: bytes in, `.shbin` bytes out.
fn compile_pica(bytes: &[u8]) -> Option<Vec<u8>> {
    let valid = frontend_spirv::load(Input::Binary(bytes), &Options::default()).ok()?;
    let query = entry::Query {
        name: None,
        stage: Some(Stage::Vertex),
        supported: &[Stage::Vertex],
        unsupported_reason: &|_| String::new(),
    };
    let e = entry::select(&valid, &query).ok()?;
    let m = frontend_spirv::lower::lower(&valid, &e).ok()?;
    let p = backend_pica::codegen::compile(&m, &Default::default()).ok()?;
    Some(p.bytes())
}

fn bench_pica(c: &mut Criterion) {
    let shaders: Vec<(String, Vec<u8>)> = corpus()
        .into_iter()
        .filter(|(_, b)| compile_pica(b).is_some())
        .collect();
    let mut group = c.benchmark_group("pica");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(800));
    for (name, bytes) in &shaders {
        group.bench_with_input(BenchmarkId::from_parameter(name), bytes, |b, bytes| {
            b.iter(|| compile_pica(std::hint::black_box(bytes)))
        });
    }
    group.bench_function("whole corpus", |b| {
        b.iter(|| {
            for (_, bytes) in &shaders {
                std::hint::black_box(compile_pica(bytes));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench_pica);
criterion_main!(benches);
