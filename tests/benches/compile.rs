//! Compile time, as a user's build pays it: load and validate the SPIR-V, lower it, compile
//! it (optimisation included) to the target's bytes.
//!
//! `cargo bench -p tests --bench compile` (add a filter, e.g. `-- scaling/`, to run one
//! group):
//! - `pica/<shader>`, `agal/<shader>`: each corpus shader, and the whole corpus;
//! - `naga/<shader>`: naga's SPIR-V front end + validation + GLSL back end on the same files,
//!   so the ratio to a well-known translator is visible in the same run;
//! - `scaling/<what>/<N>`: shaders of about 10 (a pass-through), 100, 1 000 and 10 000
//!   SPIR-V instructions (generated; N is the exact count); criterion's throughput line is
//!   instructions per second, which should stay flat as N grows. Large shaders exceed the
//!   targets (512 PICA instructions, 8 AGAL temporaries): their time is the time to compile
//!   up to the limit and report it. `front+mir` (load, lower, optimise) has no limits and
//!   runs through.

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use spv2retro::{Options, Profile, Source, Stage, compile};

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

fn stage_of(name: &str) -> Stage {
    if name.ends_with(".frag") || name.contains(".ps.") {
        Stage::Fragment
    } else {
        Stage::Vertex
    }
}

/// What `spv2pica` does: bytes in, `.shbin` bytes out.
fn compile_pica(bytes: &[u8]) -> Option<Vec<u8>> {
    compile(Source::spirv(bytes), &Options::pica())
        .ok()
        .map(|p| p.bytes)
}

/// What `spv2agal` does under the baseline profile.
fn compile_agal(bytes: &[u8], stage: Stage) -> Option<Vec<u8>> {
    compile(
        Source::spirv(bytes),
        &Options::agal(Profile::Baseline).stage(stage),
    )
    .ok()
    .map(|p| p.bytes)
}

/// naga: SPIR-V front end, validation, GLSL ES 3.10 back end.
fn naga_to_glsl(bytes: &[u8]) -> Option<String> {
    use naga::back::glsl;
    let module = naga::front::spv::parse_u8_slice(bytes, &Default::default()).ok()?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .ok()?;
    let entry = module.entry_points.first()?;
    let pipeline = glsl::PipelineOptions {
        shader_stage: entry.stage,
        entry_point: entry.name.clone(),
        multiview: None,
    };
    let options = glsl::Options::default();
    let mut out = String::new();
    glsl::Writer::new(
        &mut out,
        &module,
        &info,
        &options,
        &pipeline,
        naga::proc::BoundsCheckPolicies::default(),
    )
    .ok()?
    .write()
    .ok()?;
    Some(out)
}

/// The front end and the optimiser alone: no target limits.
fn front_and_mir(bytes: &[u8]) -> Option<usize> {
    let m = tests::mirtest::lower(bytes).ok()?;
    let mut m = m;
    mir::passes::optimize_with(&mut m, &backend_pica::codegen::prepare::passes()).ok()?;
    Some(m.function.insts.len())
}

fn quick<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(800));
    group
}

fn bench_pica(c: &mut Criterion) {
    let shaders: Vec<(String, Vec<u8>)> = corpus()
        .into_iter()
        .filter(|(_, b)| compile_pica(b).is_some())
        .collect();
    let mut group = quick(c, "pica");
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

fn bench_agal(c: &mut Criterion) {
    let shaders: Vec<(String, Vec<u8>, Stage)> = corpus()
        .into_iter()
        .map(|(n, b)| {
            let stage = stage_of(&n);
            (n, b, stage)
        })
        .filter(|(_, b, s)| compile_agal(b, *s).is_some())
        .collect();
    let mut group = quick(c, "agal");
    for (name, bytes, stage) in &shaders {
        group.bench_with_input(BenchmarkId::from_parameter(name), bytes, |b, bytes| {
            b.iter(|| compile_agal(std::hint::black_box(bytes), *stage))
        });
    }
    group.bench_function("whole corpus", |b| {
        b.iter(|| {
            for (_, bytes, stage) in &shaders {
                std::hint::black_box(compile_agal(bytes, *stage));
            }
        })
    });
    group.finish();
}

fn bench_naga(c: &mut Criterion) {
    let shaders: Vec<(String, Vec<u8>)> = corpus()
        .into_iter()
        .filter(|(_, b)| naga_to_glsl(b).is_some())
        .collect();
    let mut group = quick(c, "naga");
    for (name, bytes) in &shaders {
        group.bench_with_input(BenchmarkId::from_parameter(name), bytes, |b, bytes| {
            b.iter(|| naga_to_glsl(std::hint::black_box(bytes)))
        });
    }
    group.bench_function("whole corpus", |b| {
        b.iter(|| {
            for (_, bytes) in &shaders {
                std::hint::black_box(naga_to_glsl(bytes));
            }
        })
    });
    group.finish();
}

/// SPIR-V instructions in a module (after the 5-word header).
fn instructions(words: &[u32]) -> usize {
    let (mut at, mut n) = (5, 0);
    while at < words.len() {
        at += (words[at] >> 16).max(1) as usize;
        n += 1;
    }
    n
}

/// The smallest shader there is: a position passed through (17 instructions).
const PASS_THROUGH: &str = "
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint Vertex %main \"main\" %pos %out
               OpDecorate %pos Location 0
               OpDecorate %out BuiltIn Position
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
       %vec4 = OpTypeVector %float 4
      %in_ty = OpTypePointer Input %vec4
     %out_ty = OpTypePointer Output %vec4
        %pos = OpVariable %in_ty Input
        %out = OpVariable %out_ty Output
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %p = OpLoad %vec4 %pos
               OpStore %out %p
               OpReturn
               OpFunctionEnd
";

/// The smallest generated shader with at least `target` instructions (below the
/// generator's smallest, about 140, the pass-through shader).
fn generated(target: usize) -> Vec<u32> {
    if target <= 20 {
        return frontend_spirv::asm::assemble(PASS_THROUGH, &Default::default())
            .expect("the pass-through shader assembles")
            .words;
    }
    let make = |size: usize| {
        let mut rng = tests::mirtest::Rng(0x5eed_0000 + target as u64);
        let text = tests::generate::vertex_shader(&mut rng, size);
        frontend_spirv::asm::assemble(&text, &Default::default())
            .expect("generated text assembles")
            .words
    };
    let (mut lo, mut hi) = (0usize, 1usize);
    while instructions(&make(hi)) < target {
        lo = hi;
        hi *= 2;
    }
    while lo + 1 < hi {
        let mid = (lo + hi) / 2;
        if instructions(&make(mid)) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    make(if instructions(&make(lo)) >= target {
        lo
    } else {
        hi
    })
}

fn bench_scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("scaling");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(2));
    for target in [10, 100, 1_000, 10_000] {
        let words = generated(target);
        let n = instructions(&words);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("front+mir", n), &bytes, |b, bytes| {
            b.iter(|| front_and_mir(std::hint::black_box(bytes)))
        });
        group.bench_with_input(BenchmarkId::new("pica", n), &bytes, |b, bytes| {
            b.iter(|| compile_pica(std::hint::black_box(bytes)))
        });
        group.bench_with_input(BenchmarkId::new("agal", n), &bytes, |b, bytes| {
            b.iter(|| compile_agal(std::hint::black_box(bytes), Stage::Vertex))
        });
        if naga_to_glsl(&bytes).is_some() {
            group.bench_with_input(BenchmarkId::new("naga", n), &bytes, |b, bytes| {
                b.iter(|| naga_to_glsl(std::hint::black_box(bytes)))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_pica, bench_agal, bench_naga, bench_scaling);
criterion_main!(benches);
