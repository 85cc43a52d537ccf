//! The AGAL back end as a whole: every program it emits for every profile passes Flash's
//! rules and assembles back from its listing; each profile limit and each construct AGAL
//! cannot express is an error that says so; lane packing, linkage, sampler flags, reflection
//! and glsl2agal's JSON. (Values are checked against references in `agal_reference.rs`.)

use backend_agal::codegen::{Options, SamplerFlags, check_link, compile};
use backend_agal::sim::{FragmentInputs, run_fragment_quad};
use backend_agal::{Profile, Program, Stage, asm, validate};
use mir::arena::Arena;
use mir::func::{Function, Terminator};
use mir::inst::{Op, Operand, SampleKind};
use mir::module::{BuiltIn, Input, Module, Output, Sampler, TextureDim, Uniform};
use mir::types::{Swizzle, Ty};
use mir::{Diagnostics, Span, Value};
use tests::fixture_files;
use tests::mirtest::lower;

fn fixture(name: &str) -> Module {
    let path = tests::fixtures("glsl").join(name);
    lower(&std::fs::read(&path).expect(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn options(profile: Profile) -> Options {
    Options {
        profile,
        ..Options::default()
    }
}

/// The rendered errors of a compile that must fail.
fn rejected(m: &Module, o: &Options) -> String {
    match compile(m, o) {
        Ok(c) => panic!(
            "compiled for {}, expected an error:\n{}",
            o.profile,
            c.listing()
        ),
        Err(e) => e.render("shader", None),
    }
}

fn compiles(m: &Module, profile: Profile) -> backend_agal::codegen::Compiled {
    compile(m, &options(profile))
        .unwrap_or_else(|e| panic!("{profile}: {}", e.render("shader", None)))
}

// ------------------------------------------------------------------------------------------
// Small modules, built in MIR, for the limits and unsupported constructs.
// ------------------------------------------------------------------------------------------

fn module(stage: mir::Stage) -> Module {
    Module {
        stage,
        geometry: None,
        entry_point: "main".into(),
        inputs: Arena::new(),
        outputs: Vec::new(),
        uniforms: Vec::new(),
        samplers: Arena::new(),
        function: Function::new("main"),
        source_files: Vec::new(),
    }
}

fn ins(m: &mut Module, op: Op, args: Vec<Operand>, lanes: u8) -> Value {
    let b = m.function.entry;
    m.function
        .ins(b, op, args, Ty::float(lanes), Span::new(7, 40))
}

fn input(m: &mut Module, location: u32) -> Value {
    let id = m
        .inputs
        .push(Input::at(format!("in{location}"), location, 4));
    ins(m, Op::LoadInput(id), vec![], 4)
}

fn uniform(m: &mut Module, name: &str, register: u32, count: u32) {
    m.uniforms.push(Uniform {
        name: name.into(),
        block: None,
        type_name: if count == 1 {
            "vec4".into()
        } else {
            format!("vec4[{count}]")
        },
        layout: None,
        register,
        component: 0,
        count,
        is_bool: false,
        default: None,
    });
}

fn output(m: &mut Module, location: Option<u32>, builtin: Option<BuiltIn>, lanes: u8) {
    m.outputs.push(Output {
        name: format!("out{}", m.outputs.len()),
        location,
        builtin,
        lanes,
    });
}

fn finish(mut m: Module, values: Vec<Value>) -> Module {
    let b = m.function.entry;
    m.function.blocks[b].term = Terminator::Return(values.into_iter().map(Operand::new).collect());
    mir::verify::verify(&m).unwrap_or_else(|e| panic!("test module: {e}"));
    m
}

/// A vertex program writing its input at `location` to the position and to the varying at
/// `varying`.
fn vertex_passing(location: u32, varying: u32) -> Module {
    let mut m = module(mir::Stage::Vertex);
    let x = input(&mut m, location);
    output(&mut m, None, Some(BuiltIn::Position), 4);
    output(&mut m, Some(varying), None, 4);
    finish(m, vec![x, x])
}

/// A fragment program writing its varying to the colour output at `location`.
fn fragment_writing(location: u32) -> Module {
    let mut m = module(mir::Stage::Fragment);
    let x = input(&mut m, 0);
    output(&mut m, Some(location), None, 4);
    finish(m, vec![x])
}

/// A fragment program sampling the texture at `binding` with each coordinate swizzle of its
/// varyings, `taps` times, and adding up the texels.
fn fragment_sampling(binding: u32, taps: usize, bias: Option<[f32; 2]>) -> Module {
    let mut m = module(mir::Stage::Fragment);
    let s = m.samplers.push(Sampler {
        name: "tex".into(),
        binding,
        dim: TextureDim::D2,
    });
    let varyings: Vec<Value> = (0..8).map(|l| input(&mut m, l)).collect();
    let mut sum: Option<Value> = None;
    for k in 0..taps {
        let v = varyings[k % 8];
        let lanes = [(k / 8) % 4, (k / 32 + 1 + k / 8) % 4];
        let coord = Operand::swizzled(v, Swizzle([lanes[0] as u8, lanes[1] as u8, 0, 0]));
        let (kind, args) = match bias {
            Some(b) => {
                let c = ins(&mut m, Op::float_const(&[b[k % 2]]), vec![], 1);
                (SampleKind::Bias, vec![coord, Operand::new(c)])
            }
            None => (SampleKind::Implicit, vec![coord]),
        };
        let t = ins(
            &mut m,
            Op::Sample {
                sampler: s,
                kind,
                proj: false,
            },
            args,
            4,
        );
        sum = Some(match sum {
            None => t,
            Some(acc) => ins(&mut m, Op::Add, vec![Operand::new(acc), Operand::new(t)], 4),
        });
    }
    output(&mut m, Some(0), None, 4);
    finish(m, vec![sum.expect("a tap")])
}

// ------------------------------------------------------------------------------------------
// Every program we emit.
// ------------------------------------------------------------------------------------------

#[test]
fn every_program_for_every_profile_passes_flash_validation_and_reassembles() {
    let (mut programs, mut refused) = (0, 0);
    let mut failures = Vec::new();
    for path in fixture_files("glsl", ".spv") {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let Ok(m) = lower(&std::fs::read(&path).unwrap()) else {
            continue;
        };
        for profile in Profile::ALL {
            match compile(&m, &options(profile)) {
                Ok(c) => {
                    programs += 1;
                    if let Err(e) = validate(&c.bytes, profile) {
                        failures.push(format!("{name} ({profile}): {e:?}"));
                    }
                    let again = asm::assemble(&c.listing(), c.program.stage, c.program.version);
                    if again.as_deref() != Ok(c.bytes.as_slice()) {
                        failures.push(format!(
                            "{name} ({profile}): the listing reassembles differently"
                        ));
                    }
                    let decoded = Program::decode(&c.bytes).expect("our bytes decode");
                    assert_eq!(decoded, c.program, "{name}");
                    assert_eq!(
                        c.reflection.stats.instructions,
                        c.program.instructions.len()
                    );
                }
                Err(e) => {
                    refused += 1;
                    for d in &e.0 {
                        if !matches!(d.rule, "agal.limit" | "agal.unsupported") {
                            failures.push(format!("{name} ({profile}): {}", d.render(&name, None)));
                        }
                    }
                }
            }
        }
    }
    eprintln!("{programs} programs emitted and validated, {refused} refused with a reason");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(programs >= 500, "only {programs} programs");
}

#[test]
fn compiling_twice_gives_the_same_bytes() {
    for name in [
        "builtins.vert.spv",
        "toon_bands.frag.spv",
        "particles_scalar.vert.spv",
    ] {
        let m = fixture(name);
        for profile in [Profile::Baseline, Profile::Standard] {
            assert_eq!(
                compiles(&m, profile).bytes,
                compiles(&m, profile).bytes,
                "{name}"
            );
        }
    }
}

#[test]
fn the_header_says_the_profile_version() {
    let m = fixture("starling_mesh.frag.spv");
    for (profile, v) in [
        (Profile::BaselineConstrained, 1u8),
        (Profile::Baseline, 1),
        (Profile::BaselineExtended, 1),
        (Profile::StandardConstrained, 2),
        (Profile::Standard, 2),
        (Profile::StandardExtended, 3),
    ] {
        let c = compiles(&m, profile);
        assert_eq!(c.bytes[..7], [0xa0, v, 0, 0, 0, 0xa1, 1], "{profile}");
        assert_eq!(c.reflection.agal_version, Some(v));
    }
}

// ------------------------------------------------------------------------------------------
// One rejection per profile limit, naming the limit and the count.
// ------------------------------------------------------------------------------------------

#[test]
fn limit_tokens() {
    // 250 dependent multiplies: past AGAL 1's 200 tokens, within AGAL 2's 1024.
    let mut m = module(mir::Stage::Vertex);
    uniform(&mut m, "k", 0, 4);
    let mut x = input(&mut m, 0);
    for i in 0..250 {
        let k = ins(&mut m, Op::LoadUniform { register: i % 4 }, vec![], 4);
        x = ins(&mut m, Op::Mul, vec![Operand::new(x), Operand::new(k)], 4);
    }
    output(&mut m, None, Some(BuiltIn::Position), 4);
    let m = finish(m, vec![x]);
    let e = rejected(&m, &options(Profile::Baseline));
    assert!(
        e.contains("error[agal.limit]: the program is 250 instructions long; the baseline profile allows 200"),
        "{e}"
    );
    assert_eq!(
        compiles(&m, Profile::Standard).program.instructions.len(),
        250
    );
}

#[test]
fn limit_tokens_at_the_boundary() {
    // Exactly each profile's token limit compiles; one more is refused with both counts.
    let chain = |n: u32| {
        let mut m = module(mir::Stage::Vertex);
        uniform(&mut m, "k", 0, 4);
        let mut x = input(&mut m, 0);
        for i in 0..n {
            let k = ins(&mut m, Op::LoadUniform { register: i % 4 }, vec![], 4);
            x = ins(&mut m, Op::Mul, vec![Operand::new(x), Operand::new(k)], 4);
        }
        output(&mut m, None, Some(BuiltIn::Position), 4);
        finish(m, vec![x])
    };
    for (profile, limit) in [(Profile::Baseline, 200), (Profile::Standard, 1024)] {
        let at = compiles(&chain(limit), profile);
        assert_eq!(at.program.instructions.len(), limit as usize, "{profile}");
        let e = rejected(&chain(limit + 1), &options(profile));
        assert!(
            e.contains(&format!(
                "the program is {} instructions long; the {profile} profile allows {limit}",
                limit + 1
            )),
            "{e}"
        );
    }
}

#[test]
fn limit_constants_at_the_boundary() {
    // AGAL 1 fragment programs have fc0 to fc27: 28 registers of uniforms fit, 29 do not.
    let palette = |registers: u32| {
        let mut m = module(mir::Stage::Fragment);
        uniform(&mut m, "palette", 0, registers);
        let u = ins(
            &mut m,
            Op::LoadUniform {
                register: registers - 1,
            },
            vec![],
            4,
        );
        output(&mut m, Some(0), None, 4);
        finish(m, vec![u])
    };
    compiles(&palette(28), Profile::Baseline);
    let e = rejected(&palette(29), &options(Profile::Baseline));
    assert!(
        e.contains(
            "the uniforms take 29 constant registers; the baseline profile has 28 fc registers"
        ),
        "{e}"
    );
}

/// Seven products of three attributes, summed in one order and multiplied in the other:
/// with the sum, eight temporaries are live at once, whatever the order.
fn eight_live_values() -> Module {
    let mut m = module(mir::Stage::Vertex);
    let inputs: Vec<Value> = (0..8).map(|l| input(&mut m, l)).collect();
    let products: Vec<Value> = (0..7)
        .map(|k| {
            // Three factors: a product of a temporary, which is not computed again at
            // its readers to save registers (rematerialisation is one instruction deep).
            let (a, b, c) = (inputs[k], inputs[(k + 1) % 8], inputs[(k + 2) % 8]);
            let ab = ins(&mut m, Op::Mul, vec![Operand::new(a), Operand::new(b)], 4);
            ins(&mut m, Op::Mul, vec![Operand::new(ab), Operand::new(c)], 4)
        })
        .collect();
    let mut sum = products[0];
    for &p in &products[1..] {
        sum = ins(&mut m, Op::Add, vec![Operand::new(sum), Operand::new(p)], 4);
    }
    let mut product = products[6];
    for &p in products[..6].iter().rev() {
        product = ins(
            &mut m,
            Op::Mul,
            vec![Operand::new(product), Operand::new(p)],
            4,
        );
    }
    output(&mut m, None, Some(BuiltIn::Position), 4);
    output(&mut m, Some(0), None, 4);
    finish(m, vec![sum, product])
}

#[test]
fn limit_temporaries() {
    let m = eight_live_values();
    let e = rejected(&m, &options(Profile::BaselineConstrained));
    assert!(
        e.contains("temporaries here; the baselineConstrained profile has 7 (vt0 to vt6)"),
        "{e}"
    );
    assert!(
        e.contains("--> instruction #"),
        "the instruction is named: {e}"
    );
    assert!(compiles(&m, Profile::Baseline).temporaries <= 8);
}

#[test]
fn limit_constants() {
    // A fragment uniform array of 30 registers: AGAL 1 has 28 fc, AGAL 2 64.
    let mut m = module(mir::Stage::Fragment);
    uniform(&mut m, "palette", 0, 30);
    let u = ins(&mut m, Op::LoadUniform { register: 29 }, vec![], 4);
    output(&mut m, Some(0), None, 4);
    let m = finish(m, vec![u]);
    let e = rejected(&m, &options(Profile::Baseline));
    assert!(
        e.contains(
            "the uniforms take 30 constant registers; the baseline profile has 28 fc registers"
        ),
        "{e}"
    );
    compiles(&m, Profile::Standard);

    // Uniforms and literals share the file: 27 registers of uniforms and two of literals.
    let mut m = module(mir::Stage::Fragment);
    uniform(&mut m, "palette", 0, 27);
    let u = ins(&mut m, Op::LoadUniform { register: 26 }, vec![], 4);
    let a = ins(&mut m, Op::float_const(&[0.5, 0.25, 0.125, 2.0]), vec![], 4);
    let b = ins(&mut m, Op::float_const(&[3.0, 5.0, 7.0, 9.0]), vec![], 4);
    let p = ins(&mut m, Op::Mul, vec![Operand::new(u), Operand::new(a)], 4);
    let s = ins(&mut m, Op::Add, vec![Operand::new(p), Operand::new(b)], 4);
    output(&mut m, Some(0), None, 4);
    let m = finish(m, vec![s]);
    let e = rejected(&m, &options(Profile::Baseline));
    assert!(
        e.contains("the program needs 29 constant registers (27 for uniforms, 2 for literals); the baseline profile has 28 (fc0 to fc27)"),
        "{e}"
    );
    let c = compiles(&m, Profile::Standard);
    assert_eq!(
        c.reflection
            .constants
            .iter()
            .map(|k| k.register.as_str())
            .collect::<Vec<_>>(),
        ["fc27", "fc28"],
        "literals follow the uniforms"
    );
}

#[test]
fn limit_attributes() {
    let m = vertex_passing(8, 0);
    let e = rejected(&m, &options(Profile::Standard));
    assert!(
        e.contains("input `in8` at location 8: the standard profile has 8 attributes (va0 to va7)"),
        "{e}"
    );
    let c = compiles(&m, Profile::StandardExtended);
    assert_eq!(c.reflection.inputs[0].register, "va8");
}

#[test]
fn limit_varyings() {
    let m = vertex_passing(0, 8);
    let e = rejected(&m, &options(Profile::Baseline));
    assert!(
        e.contains("output `out1` at location 8: the baseline profile has 8 varyings (v0 to v7)"),
        "{e}"
    );
    let e = rejected(&m, &options(Profile::StandardConstrained));
    assert!(
        e.contains("the standardConstrained profile has 8 varyings"),
        "{e}"
    );
    assert_eq!(
        compiles(&m, Profile::Standard).reflection.outputs[1].register,
        "v8"
    );
}

#[test]
fn limit_samplers() {
    let m = fragment_sampling(8, 1, None);
    let e = rejected(&m, &options(Profile::Baseline));
    assert!(
        e.contains("sampler `tex` (binding 8): AGAL samples through fs0 to fs7, 8 sampler registers in this profile"),
        "{e}"
    );
    rejected(&m, &options(Profile::StandardConstrained));
    let c = compiles(&m, Profile::Standard);
    assert!(c.listing().contains("fs8 <2d,linear,mipnone,repeat,rgba>"));
}

#[test]
fn limit_color_outputs() {
    let m = fragment_writing(1);
    let e = rejected(&m, &options(Profile::Baseline));
    assert!(
        e.contains("output `out0` at location 1: the baseline profile has 1 colour output (oc)"),
        "{e}"
    );
    rejected(&m, &options(Profile::StandardConstrained));
    // oc1 alone would break Flash's "consecutive outputs" rule (#3775): oc0 is written with
    // zeros (and `agal.unwritten-output` says so), as for a shader with no colour at all.
    let c = compiles(&m, Profile::Standard);
    assert_eq!(c.listing(), "mov oc1, v0\nmov oc, fc0.xxxx\n");
    assert!(
        c.warnings.iter().any(|w| w.rule == "agal.unwritten-output"),
        "{:?}",
        c.warnings
    );
    // Two render targets, oc and oc1, where the profile has them.
    let mut m = module(mir::Stage::Fragment);
    let x = input(&mut m, 0);
    let y = input(&mut m, 1);
    output(&mut m, Some(0), None, 4);
    output(&mut m, Some(1), None, 4);
    let m = finish(m, vec![x, y]);
    assert_eq!(
        compiles(&m, Profile::Standard).listing(),
        "mov oc, v0\nmov oc1, v1\n"
    );
    rejected(&m, &options(Profile::Baseline));
}

#[test]
fn limit_depth_output() {
    let mut m = module(mir::Stage::Fragment);
    let x = input(&mut m, 0);
    let z = ins(
        &mut m,
        Op::Mov,
        vec![Operand::swizzled(x, Swizzle::splat(2))],
        1,
    );
    output(&mut m, Some(0), None, 4);
    output(&mut m, None, Some(BuiltIn::FragDepth), 1);
    let m = finish(m, vec![x, z]);
    let e = rejected(&m, &options(Profile::BaselineExtended));
    assert!(
        e.contains(
            "writes the fragment depth: AGAL 1 (the baselineExtended profile) has no depth output"
        ),
        "{e}"
    );
    let c = compiles(&m, Profile::Standard);
    assert!(c.listing().contains("mov od.x, v0.zzzz"), "{}", c.listing());
}

#[test]
fn limit_native_instructions_of_baseline_constrained() {
    let m = fixture("skinning4.vert.spv");
    let e = rejected(&m, &options(Profile::BaselineConstrained));
    assert!(
        e.contains(
            "arithmetic instructions; the baselineConstrained profile's native shaders take 64"
        ),
        "{e}"
    );
    compiles(&m, Profile::Baseline);

    let m = fragment_sampling(0, 33, None);
    let e = rejected(&m, &options(Profile::BaselineConstrained));
    assert!(
        e.contains("the program has 33 texture instructions; the baselineConstrained profile's native shaders take 32"),
        "{e}"
    );
    assert_eq!(
        compiles(&m, Profile::Baseline)
            .listing()
            .matches("tex ")
            .count(),
        33
    );
}

// ------------------------------------------------------------------------------------------
// One rejection per construct AGAL cannot express.
// ------------------------------------------------------------------------------------------

#[test]
fn unsupported_texture_in_a_vertex_program() {
    let e = rejected(
        &fixture("vertex_texture.vert.spv"),
        &options(Profile::Standard),
    );
    assert!(
        e.contains("AGAL vertex programs cannot sample textures"),
        "{e}"
    );
}

/// A loop bounded by a uniform and nothing else (no array read by its counter): no number
/// of copies is enough. (`lights_uniform_loop`, whose arrays bound it, compiles: see
/// `loop_breaks.rs`.)
#[test]
fn unsupported_data_dependent_loop() {
    let glsl = "#version 450
layout(location = 0) in vec4 pos;
layout(location = 0) out vec4 color;
layout(std140, binding = 0) uniform U { int n; };
void main() {
    float acc = 0.0;
    for (int i = 0; i < n; ++i) acc += pos.x * float(i);
    color = vec4(acc);
    gl_Position = pos;
}
";
    let spirv = spv2retro::spirv_from_glsl(glsl, spv2retro::Stage::Vertex).unwrap();
    let m = tests::mirtest::lower(&spirv).unwrap();
    for profile in [Profile::Baseline, Profile::Standard] {
        let e = rejected(&m, &options(profile));
        assert!(
            e.contains("error[agal.unsupported]: a loop that cannot be unrolled: AGAL has no loop instructions"),
            "{e}"
        );
        assert!(e.contains("bound it by a constant"), "{e}");
        assert_eq!(
            e.matches("error[").count(),
            1,
            "one error for one loop: {e}"
        );
    }
}

#[test]
fn unsupported_derivatives_in_agal_1() {
    let mut m = module(mir::Stage::Fragment);
    let x = input(&mut m, 0);
    let d = ins(&mut m, Op::Ddx, vec![Operand::new(x)], 4);
    output(&mut m, Some(0), None, 4);
    let m = finish(m, vec![d]);
    let e = rejected(&m, &options(Profile::Baseline));
    assert!(
        e.contains("ddx and ddy need AGAL 2, and the baseline profile is AGAL 1"),
        "{e}"
    );
    // AGAL 2 has them: in a 2×2 quad, ddx is the right neighbour minus the left one.
    let c = compiles(&m, Profile::Standard);
    let program = Program::decode(&c.bytes).unwrap();
    let lanes: [[f32; 4]; 4] = [
        [1.0, 2.0, 3.0, 4.0],
        [1.5, 2.5, 5.0, 3.0],
        [7.0, 0.0, 1.0, 1.0],
        [9.0, 1.0, 0.5, -2.0],
    ];
    let varyings: [Vec<[f32; 4]>; 4] = lanes.map(|v| vec![v]);
    let quad = [
        varyings[0].as_slice(),
        varyings[1].as_slice(),
        varyings[2].as_slice(),
        varyings[3].as_slice(),
    ];
    let out = run_fragment_quad(
        &program,
        quad,
        &FragmentInputs {
            constants: &[],
            textures: &(),
        },
    )
    .unwrap();
    for (k, o) in out.iter().enumerate() {
        let row = k & 2;
        let expect: [f32; 4] = std::array::from_fn(|i| lanes[row + 1][i] - lanes[row][i]);
        assert_eq!(o.colors[0], expect, "fragment {k}");
    }
}

#[test]
fn relative_addressing_in_a_fragment_program_selects_among_the_registers() {
    // AGAL has no relative constant addressing in fragment programs (#3639): the read
    // selects among the array's registers (agal_uniform_index.rs runs it for every index).
    let mut m = module(mir::Stage::Fragment);
    uniform(&mut m, "palette", 0, 8);
    let x = input(&mut m, 0);
    let u = ins(
        &mut m,
        Op::LoadUniform { register: 0 },
        vec![Operand::lane(x, 0)],
        4,
    );
    output(&mut m, Some(0), None, 4);
    let m = finish(m, vec![u]);
    let c = compile(&m, &options(Profile::Standard)).unwrap_or_else(|e| panic!("{e:?}"));
    let listing = c.listing();
    assert!(!listing.contains("fc["), "{listing}");
    for k in 0..8 {
        assert!(
            listing.contains(&format!("fc{k}")),
            "fc{k} is read: {listing}"
        );
    }
}

#[test]
fn unsupported_lod_bias_and_explicit_level() {
    let e = rejected(
        &fixture("texture_lookups.frag.spv"),
        &options(Profile::Standard),
    );
    assert!(e.contains("sampled with a computed LOD bias"), "{e}");
    assert!(e.contains("sampled at an explicit level of detail"), "{e}");
    let e = rejected(&fixture("tonemap.ps.hlsl.spv"), &options(Profile::Standard));
    assert!(e.contains("explicit level of detail"), "{e}");
    // A constant bias is the sampler's; two different ones on one sampler break #3696.
    let one = compiles(
        &fragment_sampling(0, 2, Some([0.5, 0.5])),
        Profile::Baseline,
    );
    assert!(
        one.listing()
            .contains("fs0 <2d,linear,mipnone,repeat,rgba,0.5>")
    );
    let e = rejected(
        &fragment_sampling(0, 2, Some([0.5, -1.0])),
        &options(Profile::Baseline),
    );
    assert!(
        e.contains("is sampled with different flags") && e.contains("#3696"),
        "{e}"
    );
    let e = rejected(
        &fragment_sampling(0, 1, Some([0.3, 0.3])),
        &options(Profile::Baseline),
    );
    assert!(e.contains("LOD bias 0.3"), "{e}");
}

#[test]
fn unsupported_stage_and_vertex_discard() {
    let m = finish(module(mir::Stage::Geometry), vec![]);
    let e = rejected(&m, &options(Profile::Standard));
    assert!(e.contains("Stage3D has no geometry stage"), "{e}");

    let mut m = module(mir::Stage::Vertex);
    let x = input(&mut m, 0);
    let zero = ins(&mut m, Op::float_const(&[0.0]), vec![], 1);
    let b = m.function.entry;
    let c = m.function.ins(
        b,
        Op::Cmp(mir::CmpOp::Lt),
        vec![Operand::lane(x, 0), Operand::new(zero)],
        Ty::bool(1),
        Span::default(),
    );
    m.function
        .push(b, Op::Kill, vec![Operand::new(c)], &[], Span::default());
    output(&mut m, None, Some(BuiltIn::Position), 4);
    let m = finish(m, vec![x]);
    let e = rejected(&m, &options(Profile::Standard));
    assert!(e.contains("discard in a vertex program"), "{e}");
}

#[test]
fn sampler_flags_are_checked() {
    let m = fixture("skybox.frag.spv");
    let flags = |spec: &str| Options {
        samplers: vec![SamplerFlags::parse(spec).unwrap()],
        ..Options::default()
    };
    let e = rejected(&m, &flags("0=repeat"));
    assert!(
        e.contains("Flash requires cube maps to clamp (#3662)"),
        "{e}"
    );
    let e = rejected(&m, &flags("0=mipnone"));
    assert!(e.contains("cube maps to enable mipmapping (#3704"), "{e}");
    let e = rejected(&m, &flags("0=bilinear"));
    assert!(e.contains("unknown flag `bilinear`"), "{e}");
    let e = rejected(&m, &flags("3=nearest"));
    assert!(e.contains("the shader has no sampler at binding 3"), "{e}");
    let c = compile(&m, &flags("0=nearest,mipnearest,-0.5")).unwrap();
    assert!(
        c.listing()
            .contains("fs0 <cube,nearest,mipnearest,clamp,rgba,-0.5>"),
        "{}",
        c.listing()
    );
    assert_eq!(
        c.reflection.samplers[0].flags,
        ["cube", "nearest", "mipnearest", "clamp", "rgba", "-0.5"]
    );
}

// ------------------------------------------------------------------------------------------
// Lane packing, flattening, linkage, reflection.
// ------------------------------------------------------------------------------------------

#[test]
fn scalar_heavy_shaders_fit_agal_1_only_with_lane_packing() {
    for (name, profile) in [
        ("particles_scalar.vert.spv", Profile::BaselineConstrained),
        ("builtins.vert.spv", Profile::Baseline),
    ] {
        let m = fixture(name);
        let without = Options {
            profile,
            packing: backend_agal::codegen::Packing::Off,
            ..Options::default()
        };
        let e = rejected(&m, &without);
        assert!(e.contains("temporaries here"), "{name}: {e}");
        let c = compiles(&m, profile);
        assert!(c.packed_lanes, "{name}");
        assert!(c.temporaries <= usize::from(profile.limits().temporaries));
        eprintln!(
            "{name} ({profile}): {} instructions in {} temporaries with packing",
            c.program.instructions.len(),
            c.temporaries
        );
    }
}

/// Nested `if`s in a fragment program, `depth` deep: at each level, when lane `level % 4` of
/// the varying is positive, the value is multiplied by uniforms seven times (too much work
/// for if-conversion to flatten); the innermost arm also samples a texture, at the varying
/// or at computed coordinates.
fn nested_ifs(depth: usize, computed_coordinates: bool) -> Module {
    let mut m = module(mir::Stage::Fragment);
    uniform(&mut m, "k", 0, 2);
    let s = m.samplers.push(Sampler {
        name: "tex".into(),
        binding: 0,
        dim: TextureDim::D2,
    });
    let x = input(&mut m, 0);
    let f = &mut m.function;
    let span = Span::new(9, 50);
    fn level(
        f: &mut Function,
        header: mir::BlockId,
        x: Value,
        acc: Value,
        at: usize,
        depth: usize,
        tex: (mir::module::SamplerId, bool),
    ) -> (mir::BlockId, Value) {
        let span = Span::new(9, 50);
        let then_b = f.new_block(span);
        let merge = f.new_block(span);
        let p = f.add_param(merge, Ty::float(4));
        let zero = f.ins(header, Op::float_const(&[0.0]), vec![], Ty::float(1), span);
        let c = f.ins(
            header,
            Op::Cmp(mir::CmpOp::Gt),
            vec![Operand::lane(x, (at % 4) as u8), Operand::new(zero)],
            Ty::bool(1),
            span,
        );
        f.blocks[header].term = Terminator::Branch {
            cond: Operand::new(c),
            then: mir::func::Edge::to(then_b),
            otherwise: mir::func::Edge {
                target: merge,
                args: vec![Operand::new(acc)],
            },
        };
        f.blocks[header].structure = Some(mir::func::Structure::If { merge });
        let mut w = acc;
        for i in 0..7 {
            let k = f.ins(
                then_b,
                Op::LoadUniform { register: i % 2 },
                vec![],
                Ty::float(4),
                span,
            );
            w = f.ins(
                then_b,
                Op::Mul,
                vec![Operand::new(w), Operand::new(k)],
                Ty::float(4),
                span,
            );
        }
        let (exit, v) = if at + 1 < depth {
            level(f, then_b, x, w, at + 1, depth, tex)
        } else {
            let coord = if tex.1 {
                let k = f.ins(
                    then_b,
                    Op::LoadUniform { register: 1 },
                    vec![],
                    Ty::float(4),
                    span,
                );
                f.ins(
                    then_b,
                    Op::Mul,
                    vec![Operand::new(x), Operand::new(k)],
                    Ty::float(4),
                    span,
                )
            } else {
                x
            };
            let t = f.ins(
                then_b,
                Op::Sample {
                    sampler: tex.0,
                    kind: SampleKind::Implicit,
                    proj: false,
                },
                vec![Operand::new(coord)],
                Ty::float(4),
                span,
            );
            let w = f.ins(
                then_b,
                Op::Add,
                vec![Operand::new(w), Operand::new(t)],
                Ty::float(4),
                span,
            );
            (then_b, w)
        };
        f.blocks[exit].term = Terminator::Jump(mir::func::Edge {
            target: merge,
            args: vec![Operand::new(v)],
        });
        (merge, p)
    }
    let entry = f.entry;
    let (end, v) = level(f, entry, x, x, 0, depth, (s, computed_coordinates));
    let _ = span;
    output(&mut m, Some(0), None, 4);
    m.function.blocks[end].term = Terminator::Return(vec![Operand::new(v)]);
    mir::verify::verify(&m).unwrap_or_else(|e| panic!("test module: {e}"));
    m
}

/// The conditional opcodes of a listing.
fn conditionals(listing: &str) -> usize {
    listing
        .lines()
        .filter(|l| {
            ["ife ", "ine ", "ifl ", "ifg "]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .count()
}

#[test]
fn agal_2_keeps_legal_ifs_and_flattens_the_others() {
    // Texture reads at a varying inside `if`s, four deep: four conditional blocks.
    let c = compiles(&nested_ifs(4, false), Profile::Standard);
    assert!(!c.flattened);
    assert_eq!(conditionals(&c.listing()), 4, "{}", c.listing());
    // Computed coordinates inside an `if` (#3741), or five levels (#3624): flattened.
    for m in [nested_ifs(2, true), nested_ifs(5, false)] {
        let c = compiles(&m, Profile::Standard);
        assert!(c.flattened);
        assert_eq!(conditionals(&c.listing()), 0, "{}", c.listing());
    }
    // AGAL 1 has no conditionals at all.
    let c = compiles(&nested_ifs(4, false), Profile::Baseline);
    assert_eq!(conditionals(&c.listing()), 0);
    // A real shader's `if`s: branches or blends, whichever is shorter (its blends of
    // uniform colours need no clamp), never longer than AGAL 1's all-blended program.
    let toon = compiles(&fixture("toon_bands.frag.spv"), Profile::Standard);
    let flat = compiles(&fixture("toon_bands.frag.spv"), Profile::Baseline);
    assert!(
        toon.program.instructions.len() <= flat.program.instructions.len(),
        "{}\n{}",
        toon.listing(),
        flat.listing()
    );
}

#[test]
fn vertex_and_fragment_programs_link() {
    let vs = compiles(&fixture("stage3d_mesh.vert.spv"), Profile::Baseline);
    let fs = compiles(&fixture("starling_mesh.frag.spv"), Profile::Baseline);
    check_link(&vs, &fs).expect("Starling's pair links");

    let blur = compiles(&fixture("stage3d_blur.frag.spv"), Profile::Baseline);
    let e = check_link(&vs, &blur).unwrap_err().render("pair", None);
    assert!(
        e.contains("v2 is read by the fragment program but not written"),
        "{e}"
    );
    assert!(e.contains("the fragment shader reads `vInnerBefore` (location 2, varying v2), which the vertex shader does not write"), "{e}");

    let sky = compiles(&fixture("skybox.frag.spv"), Profile::Baseline);
    let e = check_link(&vs, &sky).unwrap_err().render("pair", None);
    assert!(
        e.contains("the fragment shader reads 3 components of `vDirection` (location 0), but the vertex shader's `vTexCoords` has 2"),
        "{e}"
    );

    let two = compiles(&fixture("starling_mesh.frag.spv"), Profile::Standard);
    let e = check_link(&vs, &two).unwrap_err().render("pair", None);
    assert!(e.contains("#3757"), "{e}");
}

#[test]
fn reflection_and_glsl2agal_json() {
    let c = compiles(&fixture("color_matrix.frag.spv"), Profile::Baseline);
    let r = &c.reflection;
    assert_eq!((r.target.as_str(), r.stage.as_str()), ("agal", "fragment"));
    assert_eq!(r.inputs[0].register, "v0");
    assert_eq!(r.outputs[0].register, "oc");
    assert_eq!(r.outputs[0].mask, "xyzw");
    let m = r.uniforms.iter().find(|u| u.name == "matrix").unwrap();
    assert_eq!((m.register.as_str(), m.count), ("fc0", 4));
    assert_eq!(m.layout.as_deref(), Some("row_major"));
    assert_eq!(r.samplers[0].register, "fs0");
    assert_eq!(r.constants[0].register, "fc5");
    assert_eq!(r.stats.constant_registers, r.constants.len());
    let json = c.glsl2agal_json();
    for key in [
        "\"info\":\"\"",
        "\"varnames\":{",
        "\"matrix\":\"fc0\"",
        "\"inputTexture\":\"fs0\"",
        "\"consts\":{\"fc5\":[",
        "\"agalasm\":\"tex ft",
        "\"agalbin\":[160,1,0,0,0,161,1,40,",
    ] {
        assert!(json.contains(key), "{key} in {json}");
    }

    // A loose `uniform bool` takes the constant register after the uniforms.
    let c = compiles(&fixture("gl_mvp_fog.vert.spv"), Profile::Baseline);
    let fog = c
        .reflection
        .uniforms
        .iter()
        .find(|u| u.name == "useFog")
        .unwrap();
    let (_, reg) = c.bool_registers[0];
    assert_eq!(fog.register, format!("vc{reg}"));
    let last_float = c
        .uniforms
        .iter()
        .filter(|u| u.name != "useFog")
        .map(|u| u.register + u.count)
        .max()
        .unwrap();
    assert_eq!(reg, last_float);
}

#[test]
fn diagnostics_carry_the_instruction() {
    let m = fixture("texture_lookups.frag.spv");
    let Err(Diagnostics(d)) = compile(&m, &options(Profile::Standard)) else {
        panic!("compiled");
    };
    assert!(d.iter().all(|d| d.span.is_some()), "{d:?}");
}

#[test]
fn stage_of_each_program() {
    assert_eq!(
        compiles(&fixture("phong.frag.spv"), Profile::Baseline)
            .program
            .stage,
        Stage::Fragment
    );
}

#[test]
fn branches_and_flattened_branches_compute_what_the_mir_computes() {
    use backend_agal::sim::{Image, run_fragment};
    use tests::mirtest::Rng;
    // A 1×1 texture of (0, 0, 0, 1) samples as the interpreter's `NoTextures` does.
    let image = Image::new_2d(1, 1, vec![[0.0, 0.0, 0.0, 1.0]]).unwrap();
    let bound: [&dyn backend_agal::sim::Texture; 1] = [&image];
    let mut rng = Rng(0x5eed);
    let mut compared = 0;
    for (m, what) in [
        (nested_ifs(4, false), "four deep"),
        (nested_ifs(5, false), "five deep"),
        (nested_ifs(2, true), "computed coordinates"),
    ] {
        for profile in [Profile::Baseline, Profile::Standard] {
            let c = compiles(&m, profile);
            let program = Program::decode(&c.bytes).unwrap();
            for _ in 0..200 {
                let varying = rng.lanes(-1.0, 1.0);
                let uniforms = vec![rng.lanes(0.5, 1.5), rng.lanes(0.5, 1.5)];
                let env = mir::eval::Env {
                    inputs: &[varying],
                    uniforms: &uniforms,
                    bools: &[],
                    textures: &mir::eval::NoTextures,
                };
                let Ok(mir::eval::Outcome::Outputs(want)) = mir::eval::run(&m, &env) else {
                    panic!("the interpreter runs {what}");
                };
                let mut constants = uniforms.clone();
                for &(r, v) in &c.constants {
                    constants.resize(constants.len().max(usize::from(r) + 1), [0.0; 4]);
                    constants[usize::from(r)] = v;
                }
                let got = run_fragment(
                    &program,
                    &[varying],
                    &FragmentInputs {
                        constants: &constants,
                        textures: &bound,
                    },
                )
                .unwrap();
                for (g, w) in got.colors[0].iter().zip(want[0]) {
                    assert!(
                        (g - w).abs() <= 1e-5 * w.abs().max(1.0),
                        "{what} ({profile}): {:?} vs {:?} at {varying:?}",
                        got.colors[0],
                        want[0]
                    );
                }
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 1200);
}

#[test]
fn a_program_that_always_discards_still_writes_its_output() {
    let mut m = module(mir::Stage::Fragment);
    input(&mut m, 0);
    output(&mut m, Some(0), None, 4);
    let b = m.function.entry;
    m.function.blocks[b].term = Terminator::Discard;
    mir::verify::verify(&m).unwrap();
    let c = compiles(&m, Profile::Baseline);
    assert_eq!(
        c.listing(),
        "mov ft0.x, fc0.xxxx\nkil ft0.xxxx\nmov oc, fc0.yyyy\n"
    );
    let program = Program::decode(&c.bytes).unwrap();
    let constants: Vec<[f32; 4]> = c.constants.iter().map(|(_, v)| *v).collect();
    let out = backend_agal::sim::run_fragment(
        &program,
        &[[0.0; 4]],
        &FragmentInputs {
            constants: &constants,
            textures: &(),
        },
    )
    .unwrap();
    assert!(out.discarded);
}

/// `construct(dot(v, c[r]), dot(v, c[r + 1]), …)`: what a vector times a column-major matrix
/// (or a row-major matrix times a vector) becomes, with `width`-lane dots and `rows` rows
/// read directly or relatively (by lane x of attribute 1).
fn matrix_rows(width: u8, rows: u32, relative: bool) -> Module {
    let mut m = module(mir::Stage::Vertex);
    uniform(&mut m, "rows", 0, 12);
    let v = input(&mut m, 0);
    let index = relative.then(|| input(&mut m, 1));
    let dots: Vec<Value> = (0..rows)
        .map(|i| {
            let args = index.map(|x| vec![Operand::lane(x, 0)]).unwrap_or_default();
            let r = ins(&mut m, Op::LoadUniform { register: 4 + i }, args, 4);
            ins(
                &mut m,
                Op::Dot(width),
                vec![Operand::new(v), Operand::new(r)],
                1,
            )
        })
        .collect();
    let mut lanes: Vec<Operand> = dots.into_iter().map(Operand::new).collect();
    while lanes.len() < 4 {
        let one = ins(&mut m, Op::float_const(&[1.0]), vec![], 1);
        lanes.push(Operand::new(one));
    }
    let c = ins(&mut m, Op::Construct, lanes, 4);
    output(&mut m, None, Some(BuiltIn::Position), 4);
    finish(m, vec![c])
}

#[test]
fn matrix_rows_are_one_matrix_instruction() {
    use backend_agal::sim::{VertexInputs, run_vertex};
    use tests::mirtest::Rng;
    let mut rng = Rng(0x3a7);
    for (width, rows, relative, expect) in [
        (4, 4, false, "m44 op, va0, vc4\n"),
        (4, 3, false, "m34 op.xyz, va0, vc4\n"),
        (3, 3, false, "m33 op.xyz, va0.xyzz, vc4\n"),
        (4, 4, true, "m44 op, va0, vc[va1.x+4]\n"),
    ] {
        let m = matrix_rows(width, rows, relative);
        let c = compiles(&m, Profile::Baseline);
        let listing = c.listing();
        // Temporaries by any number.
        let first = listing.lines().next().unwrap_or_default();
        let first = match first.find("vt") {
            Some(k) => format!("{}vtN{}", &first[..k], &first[k + 3..]),
            None => first.to_string(),
        };
        assert_eq!(format!("{first}\n"), expect, "{listing}");
        let program = Program::decode(&c.bytes).unwrap();
        for _ in 0..50 {
            let mut uniforms: Vec<[f32; 4]> = (0..12).map(|_| rng.lanes(-2.0, 2.0)).collect();
            let a0 = rng.lanes(-2.0, 2.0);
            let a1 = [f32::from(rng.next_u64() as u8 % 5), 0.0, 0.0, 0.0];
            let inputs = [a0, a1];
            let env = mir::eval::Env {
                inputs: &inputs[..m.inputs.len()],
                uniforms: &uniforms,
                bools: &[],
                textures: &mir::eval::NoTextures,
            };
            let Ok(mir::eval::Outcome::Outputs(want)) = mir::eval::run(&m, &env) else {
                panic!("interpreter")
            };
            for &(r, v) in &c.constants {
                uniforms.resize(uniforms.len().max(usize::from(r) + 1), [0.0; 4]);
                uniforms[usize::from(r)] = v;
            }
            let out = run_vertex(
                &program,
                &VertexInputs {
                    attributes: &inputs,
                    constants: &uniforms,
                    instance_id: 0,
                },
            )
            .unwrap();
            for (g, w) in out.position.iter().zip(want[0]) {
                assert!(
                    (g - w).abs() <= 1e-5 * w.abs().max(1.0),
                    "{listing}: {g} vs {w}"
                );
            }
        }
    }
}

#[test]
fn values_from_registers_are_recomputed_when_the_temporaries_run_out() {
    use backend_agal::sim::{VertexInputs, run_vertex};
    // Nine products of an attribute and a uniform, summed in one order and multiplied in
    // the other: all nine live at once, one more than AGAL 1 has; each is one `mul` from
    // registers that need no temporary, so it can be computed again where it is read.
    let mut m = module(mir::Stage::Vertex);
    uniform(&mut m, "k", 0, 9);
    let x = input(&mut m, 0);
    let p: Vec<Value> = (0..9)
        .map(|i| {
            let k = ins(&mut m, Op::LoadUniform { register: i }, vec![], 4);
            ins(&mut m, Op::Mul, vec![Operand::new(x), Operand::new(k)], 4)
        })
        .collect();
    let mut sum = p[0];
    for &v in &p[1..] {
        sum = ins(&mut m, Op::Add, vec![Operand::new(sum), Operand::new(v)], 4);
    }
    let mut prod = p[8];
    for &v in p[..8].iter().rev() {
        prod = ins(
            &mut m,
            Op::Mul,
            vec![Operand::new(prod), Operand::new(v)],
            4,
        );
    }
    let out = ins(
        &mut m,
        Op::Add,
        vec![Operand::new(sum), Operand::new(prod)],
        4,
    );
    output(&mut m, None, Some(BuiltIn::Position), 4);
    let m = finish(m, vec![out]);
    let without = Options {
        rematerialise: false,
        ..Options::default()
    };
    let e = rejected(&m, &without);
    assert!(
        e.contains("temporaries here; the baseline profile has 8"),
        "{e}"
    );
    let c = compiles(&m, Profile::Baseline);
    let program = Program::decode(&c.bytes).unwrap();
    let mut rng = tests::mirtest::Rng(0x77);
    for _ in 0..50 {
        let uniforms: Vec<[f32; 4]> = (0..9).map(|_| rng.lanes(0.5, 1.5)).collect();
        let a = rng.lanes(-1.0, 1.0);
        let env = mir::eval::Env {
            inputs: &[a],
            uniforms: &uniforms,
            bools: &[],
            textures: &mir::eval::NoTextures,
        };
        let Ok(mir::eval::Outcome::Outputs(want)) = mir::eval::run(&m, &env) else {
            panic!("interpreter")
        };
        let got = run_vertex(
            &program,
            &VertexInputs {
                attributes: &[a],
                constants: &uniforms,
                instance_id: 0,
            },
        )
        .unwrap();
        for (g, w) in got.position.iter().zip(want[0]) {
            assert!((g - w).abs() <= 1e-5 * w.abs().max(1.0), "{g} vs {w}");
        }
    }
}
