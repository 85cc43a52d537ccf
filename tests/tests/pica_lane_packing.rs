//! Lane packing on the PICA200 (the machine layer's, shared with AGAL): a vertex shader of
//! more scalars live at once than the sixteen temporaries is refused without it and runs
//! correctly with it, in the simulator, against values this test computes itself.

use backend_pica::codegen::{Options as PicaOptions, Packing, compile as pica_compile};
use backend_pica::sim::{Simulator, Uniforms};
use spv2retro::{Options, Source, Stage, compile, spirv_from_glsl};
use tests::mirtest::{Rng, lower};

/// A chain of `n` scalars, each made from the one before it (so neither the IR's
/// vectoriser nor rematerialisation can shorten their lives), every one read twice at the
/// end: `n` values live at once.
fn chain_shader(n: usize) -> String {
    let mut s = String::from(
        "#version 450\n\
         layout(location = 0) in vec4 pos;\n\
         layout(location = 0) out vec4 col;\n\
         layout(std140, binding = 0) uniform U { vec4 k[6]; } u;\n\
         void main() {\n    float a0 = pos.x * pos.y + pos.z;\n",
    );
    for i in 1..n {
        s += &format!(
            "    float a{i} = a{} * u.k[{}][{}] + pos.w;\n",
            i - 1,
            i / 4,
            i % 4
        );
    }
    let sum: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    let products: Vec<String> = (0..n / 2)
        .map(|i| format!("a{i} * a{}", n - 1 - i))
        .collect();
    s += &format!("    float s = {};\n", sum.join(" + "));
    s += &format!("    float p = {};\n", products.join(" + "));
    s += "    col = vec4(s, p, a3, 1.0);\n    gl_Position = pos;\n}\n";
    s
}

/// What the shader computes, in f64.
fn expected(n: usize, pos: [f32; 4], k: &[[f32; 4]; 6]) -> [f64; 4] {
    let p = pos.map(f64::from);
    let mut a = vec![p[0] * p[1] + p[2]];
    for i in 1..n {
        a.push(a[i - 1] * f64::from(k[i / 4][i % 4]) + p[3]);
    }
    let s: f64 = a.iter().sum();
    let prod: f64 = (0..n / 2).map(|i| a[i] * a[n - 1 - i]).sum();
    [s, prod, a[3], 1.0]
}

fn register_number(r: &str) -> usize {
    r.trim_start_matches(|c: char| c.is_ascii_alphabetic())
        .parse()
        .unwrap()
}

#[test]
fn more_scalars_than_temporaries_fit_only_packed_and_compute_the_shader() {
    const N: usize = 22;
    let glsl = chain_shader(N);
    let spirv = spirv_from_glsl(&glsl, Stage::Vertex).unwrap();
    let m = lower(&spirv).unwrap();

    let unpacked = PicaOptions {
        packing: Packing::Off,
        ..PicaOptions::default()
    };
    let e = pica_compile(&m, &unpacked).expect_err("22 live scalars need 22 registers");
    let d = &e.0[0];
    assert_eq!(d.rule, "pica.limit", "{}", d.message);
    assert!(d.message.contains("needs 22 temporaries"), "{}", d.message);

    let packed = pica_compile(&m, &PicaOptions::default()).unwrap();
    assert!(packed.packed_lanes);
    assert!(
        packed.temporaries <= 16,
        "{} temporaries",
        packed.temporaries
    );
    eprintln!(
        "{N} chained scalars: {} instructions in {} temporaries, packed",
        packed.code.len(),
        packed.temporaries
    );

    // What users run: the library on the GLSL; the same program.
    let c = compile(Source::glsl(&glsl, Stage::Vertex), &Options::pica()).unwrap();
    assert_eq!(c.bytes, packed.bytes);
    let sim = Simulator::new(&c.bytes).unwrap();
    let r = &c.reflection;
    let k_reg = register_number(&r.uniforms.iter().find(|u| u.name == "k").unwrap().register);
    let pos_reg = register_number(&r.inputs[0].register);
    let out_reg =
        |name: &str| register_number(&r.outputs.iter().find(|o| o.name == name).unwrap().register);
    let (col, position) = (out_reg("col"), out_reg("gl_Position"));
    let mut rng = Rng(0x9ac4_1a9e);
    let mut f = |lo: f32, hi: f32| rng.float(lo, hi);
    for _ in 0..50 {
        let pos = [f(-1.0, 1.0), f(-1.0, 1.0), f(-1.0, 1.0), f(0.0, 0.5)];
        let k: [[f32; 4]; 6] = std::array::from_fn(|_| std::array::from_fn(|_| f(-0.9, 0.9)));
        let mut u = Uniforms::default();
        for (i, row) in k.iter().enumerate() {
            u.float[k_reg + i] = *row;
        }
        for c in &r.constants {
            u.float[register_number(&c.register)] = c.value;
        }
        let mut inputs = [[0.0f32; 4]; 16];
        inputs[pos_reg] = pos;
        let out = sim.run(0, &inputs, &u).unwrap();
        let want = expected(N, pos, &k);
        for (lane, (&got, &want)) in out.outputs[col].iter().zip(&want).enumerate() {
            // float24 arithmetic: 16 bits of mantissa.
            let tolerance = 1e-3 * (1.0 + want.abs());
            assert!(
                (f64::from(got) - want).abs() <= tolerance,
                "col.{lane}: {got} vs {want} (pos {pos:?})"
            );
        }
        for (got, want) in out.outputs[position].iter().zip(pos) {
            assert!((got - want).abs() <= 1e-4, "{got} vs {want}");
        }
    }
}
