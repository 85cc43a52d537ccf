//! `--runtime openfl` (`Options::runtime(Runtime::OpenFl)`) over every fixture of
//! `tests/fixtures/glsl` and `tests/fixtures/edge` (AGAL 1, `baseline`): a model of what
//! OpenFL 8.9.6's AGAL-to-GLSL converter does with a program (`AGALConverter.hx` in the
//! `openfl` npm package; tools/tests/openfl.rs runs the real one in Chromium) finds nothing
//! it refuses or mishandles in any program compiled for it, every program the default
//! runtime writes that the model flags is written differently, and every program that
//! changed computes in the simulator what the default one does.

use backend_agal::{Address, Opcode, Program, RegType, Version};
use spv2retro::{Compiled, Options, Profile, Runtime, Source, compile};
use tests::driven::run_by_name;

/// How OpenFL's converter uses a register (`RegisterUsage`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Usage {
    Vector,
    Matrix,
    Array,
}

/// What the model finds wrong with a program in OpenFL 8.9.6, if anything: a refusal (the
/// converter throws, or WebGL refuses the GLSL it writes), or a register whose value can go
/// stale (a `vec4` uniform inside a matrix's four registers, which `UniformMap.markDirty`
/// skips when the matrix is set again).
fn openfl_problem(bytes: &[u8]) -> Option<String> {
    let p = Program::decode(bytes).ok()?;
    if p.version != Version::V1 {
        return Some("Version must be 1 (AGALConverter.hx:73)".into());
    }
    // RegisterMap: (constant register name, usage) in the order the converter adds them.
    let mut map: Vec<(u16, Usage)> = Vec::new();
    let mut add = |map: &mut Vec<(u16, Usage)>, n: u16, usage: Usage| -> Result<(), String> {
        match map.iter().find(|(m, _)| *m == n) {
            Some((_, u)) if *u != usage => Err(format!(
                "Cannot use register in multiple ways yet (mat4/vec4): vc{n}/fc{n} as {u:?} and \
                 {usage:?} (RegisterMap.add, AGALConverter.hx:609)"
            )),
            Some(_) => Ok(()),
            None => {
                map.push((n, usage));
                Ok(())
            }
        }
    };
    for (k, inst) in p.instructions.iter().enumerate() {
        let op = inst.opcode();
        let at = |what: &str| format!("token {k} ({}): {what}", op.name());
        let supported = (op as u32) <= (Opcode::M34 as u32)
            || matches!(
                op,
                Opcode::Kil | Opcode::Tex | Opcode::Sge | Opcode::Slt | Opcode::Seq | Opcode::Sne
            );
        if !supported {
            return Some(at(
                "the converter throws \"Opcode N\" (AGALConverter.hx:468-470)",
            ));
        }
        let mask = inst.dest().map_or(0xF, |d| d.mask.bits());
        let sources = [inst.src1(), inst.src2()];
        if matches!(op, Opcode::M33 | Opcode::M34 | Opcode::M44) {
            let m = sources[1].expect("a matrix operand");
            let rows = if op == Opcode::M44 { 4 } else { 3 };
            let full = if op == Opcode::M44 { 0xF } else { 0x7 };
            let (n, usage) = match m.address {
                Address::Direct(n) => (n, map.iter().find(|(r, _)| *r == n).map(|(_, u)| *u)),
                Address::Indirect(i) => (u16::from(i.offset), Some(Usage::Array)),
            };
            let dots = matches!(usage, Some(Usage::Vector | Usage::Array));
            // The GLSL: `dest = src * vcN` (m44, m34) or `src * mat3(vcN)` (m33) before a
            // vector read of vcN, dot products after; each must fit the destination mask.
            let fits = match (op, dots) {
                (Opcode::M34, false) => false,
                (_, _) => mask & full == full && (op != Opcode::M33 || mask == 0x7 || dots),
            };
            if !fits {
                return Some(at(&format!(
                    "writes mask {mask:#x} from {}: WebGL refuses the GLSL (AGALConverter.hx:270-363)",
                    if dots {
                        "dot products"
                    } else {
                        "a mat4 product"
                    }
                )));
            }
            if let Address::Direct(n) = m.address {
                if dots {
                    for r in 0..rows {
                        if let Err(e) = add(&mut map, n + r, Usage::Vector) {
                            return Some(at(&e));
                        }
                    }
                } else if let Err(e) = add(&mut map, n, Usage::Matrix) {
                    return Some(at(&e));
                }
            } else if let Err(e) = add(&mut map, n, Usage::Array) {
                return Some(at(&e));
            }
            if let Some(s) = sources[0].filter(|s| s.reg == RegType::Constant) {
                if let Err(e) = read(&mut map, &mut add, s) {
                    return Some(at(&e));
                }
            }
            continue;
        }
        if let Some(s) = inst.sampler() {
            use backend_agal::sampler::{Filter, Wrap};
            if !matches!(s.filter, Filter::Nearest | Filter::Linear)
                || !matches!(s.wrap, Wrap::Clamp | Wrap::Repeat)
            {
                return Some(at("sampler flags SamplerRegister.toSamplerState refuses"));
            }
        }
        if op == Opcode::Crs && mask != 0x7 {
            return Some(at("crs into lanes other than .xyz: a vec3 into them"));
        }
        for s in sources.into_iter().flatten() {
            if s.reg == RegType::Constant {
                if let Err(e) = read(&mut map, &mut add, s) {
                    return Some(at(&e));
                }
            }
        }
    }
    // Stale registers: a vector uniform among a matrix's other three registers.
    for &(n, u) in &map {
        if u == Usage::Matrix {
            if let Some((r, _)) = map
                .iter()
                .find(|(r, v)| (n + 1..n + 4).contains(r) && *v == Usage::Vector)
            {
                return Some(format!(
                    "vc{r}/fc{r} is a vec4 uniform inside mat4 vc{n}/fc{n}: UniformMap.markDirty \
                     (Program3D.hx:1093-1124) does not refresh it when the matrix is set again"
                ));
            }
        }
    }
    None
}

fn read(
    map: &mut Vec<(u16, Usage)>,
    add: &mut impl FnMut(&mut Vec<(u16, Usage)>, u16, Usage) -> Result<(), String>,
    s: &backend_agal::Source,
) -> Result<(), String> {
    match s.address {
        Address::Direct(n) => add(map, n, Usage::Vector),
        Address::Indirect(i) => add(map, u16::from(i.offset), Usage::Array),
    }
}

/// Values by name.
type Named = Vec<(String, Vec<f32>)>;

/// The value of each of a program's inputs and uniforms: the same for both runtimes'
/// programs (their interfaces are the same).
fn values(c: &Compiled, seed: u64) -> (Named, Named) {
    let mut rng = test_kit::SplitMix64(seed);
    let inputs = c
        .reflection
        .inputs
        .iter()
        .map(|i| (i.name.clone(), rng.lanes(-1.0, 1.0).to_vec()))
        .collect();
    let uniforms = c
        .reflection
        .uniforms
        .iter()
        .filter(|u| !u.register.starts_with('b'))
        .map(|u| {
            let n = (u.count as usize * 4).saturating_sub(usize::from(u.component));
            let n = if u.type_name == "float" || u.type_name == "bool" {
                1
            } else {
                n
            };
            (
                u.name.clone(),
                (0..n).map(|_| rng.float(-1.0, 1.0)).collect(),
            )
        })
        .collect();
    (inputs, uniforms)
}

#[test]
fn openfl_runtime_programs_have_nothing_openfl_mishandles_and_compute_the_same() {
    let mut files = tests::fixture_files("glsl", ".spv");
    files.extend(tests::fixture_files("edge", ".spv"));
    let (mut compiled, mut flagged, mut changed) = (0, Vec::new(), 0);
    // Changed though the model sees nothing wrong: the runtime's rule is simpler than the
    // converter (a vector read before the matrix is fine there; it expands the matrix anyway).
    let mut unflagged = Vec::new();
    let mut failures = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let name = path.display().to_string();
        let options = Options::agal(Profile::Baseline);
        let Ok(flash) = compile(Source::spirv(&bytes).named(&name), &options) else {
            continue;
        };
        let openfl = compile(
            Source::spirv(&bytes).named(&name),
            &options.clone().runtime(Runtime::OpenFl),
        )
        .unwrap_or_else(|e| panic!("{name}: refused for openfl but not for flash: {e}"));
        compiled += 1;
        if let Some(why) = openfl_problem(&openfl.bytes) {
            failures.push(format!("{name} (openfl): {why}\n{}", openfl.listing));
        }
        let problem = openfl_problem(&flash.bytes);
        if let Some(why) = &problem {
            flagged.push(format!("{name}: {why}"));
            if flash.bytes == openfl.bytes {
                failures.push(format!(
                    "{name}: flagged ({why}) but unchanged under openfl"
                ));
            }
        }
        if flash.bytes == openfl.bytes {
            continue;
        }
        changed += 1;
        if problem.is_none() {
            unflagged.push(name.clone());
        }
        assert_eq!(
            flash.reflection.uniforms, openfl.reflection.uniforms,
            "{name}"
        );
        for seed in 0..4 {
            let (inputs, uniforms) = values(&flash, seed);
            let inputs: Vec<(&str, Vec<f32>)> = inputs
                .iter()
                .map(|(n, v)| (n.as_str(), v.clone()))
                .collect();
            let uniforms: Vec<(&str, Vec<f32>)> = uniforms
                .iter()
                .map(|(n, v)| (n.as_str(), v.clone()))
                .collect();
            let a = run_by_name(&flash, &inputs, &uniforms);
            let b = run_by_name(&openfl, &inputs, &uniforms);
            assert_eq!(a.discarded, b.discarded, "{name} seed {seed}");
            for (x, y) in a.outputs.iter().zip(&b.outputs) {
                let same = x.value.iter().zip(&y.value).all(|(p, q)| {
                    (p.is_nan() && q.is_nan()) || (p - q).abs() <= 1e-4 * (1.0 + p.abs())
                });
                if !same {
                    failures.push(format!(
                        "{name} seed {seed}: {} is {:?} (flash) but {:?} (openfl)\n{}\n{}",
                        x.name, x.value, y.value, flash.listing, openfl.listing
                    ));
                }
            }
        }
    }
    eprintln!(
        "{compiled} fixtures compile for AGAL 1; OpenFL 8.9.6 (the model) mishandles {} of the \
         default runtime's programs; --runtime openfl changes {changed}:\n{}\nchanged, \
         though the model finds nothing wrong: {}",
        flagged.len(),
        flagged.join("\n"),
        unflagged.join(", ")
    );
    assert!(compiled > 100, "{compiled} fixtures compiled");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The model against the converter's behaviour that tools/tests/openfl.rs sees in Chromium.
#[test]
fn the_model_refuses_what_openfl_refuses() {
    let asm = |text: &str, stage| backend_agal::asm::assemble(text, stage, Version::V1).unwrap();
    let vertex = backend_agal::Stage::Vertex;
    assert_eq!(
        openfl_problem(&asm("m44 op, va0, vc0\nmov v0, va1\n", vertex)),
        None
    );
    // The vector read first: dot products, fine.
    assert_eq!(
        openfl_problem(&asm("mov v0, vc0\nm44 op, va0, vc0\n", vertex)),
        None
    );
    let after = openfl_problem(&asm("m44 op, va0, vc0\nmov v0, vc0\n", vertex)).unwrap();
    assert!(after.contains("multiple ways"), "{after}");
    let m34 = openfl_problem(&asm(
        "m34 op.xyz, va0, vc0\nmov op.w, vc3\nmov v0, va1\n",
        vertex,
    ));
    assert!(m34.unwrap().contains("WebGL refuses"));
    let stale = openfl_problem(&asm("m44 op, va0, vc0\nmov v0, vc1\n", vertex)).unwrap();
    assert!(stale.contains("markDirty"), "{stale}");
    let v2 = backend_agal::asm::assemble("mov op, va0\n", vertex, Version::V2).unwrap();
    assert!(openfl_problem(&v2).unwrap().contains("Version must be 1"));
}
