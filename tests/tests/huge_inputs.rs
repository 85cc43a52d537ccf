//! Inputs of a megabyte are handled or refused cleanly: a generated shader of over 1 MB
//! (far past what either target runs) ends in the target's limit error, not a hang or a
//! crash; a megabyte of noise is refused by the reader; and a small shader buried in a
//! megabyte of debug names compiles. How the time grows with the size is measured by the
//! `scaling` benchmark (`cargo bench -p tests --bench compile -- scaling/`), not here.

use spv2retro::{Options, Profile, Source, Stage, compile};

fn generated_bytes(size: usize) -> Vec<u8> {
    let mut rng = tests::mirtest::Rng(0x4a6e_0001);
    let text = tests::generate::vertex_shader(&mut rng, size);
    let words = frontend_spirv::asm::assemble(&text, &Default::default())
        .expect("generated text assembles")
        .words;
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn a_megabyte_shader_ends_in_the_targets_limits() {
    let bytes = generated_bytes(15_000);
    assert!(bytes.len() >= 1 << 20, "{} bytes", bytes.len());
    let source = Source::spirv(&bytes).named("huge.spv");
    let e = compile(&source, &Options::pica()).expect_err("too big for the PICA200");
    assert!(
        e.to_string().starts_with("huge.spv: error[pica.limit]"),
        "{e}"
    );
    // AGAL 3: its loops would unroll past 2048 instructions, or its values past the
    // temporaries; either way the message names the limit.
    let e = compile(
        &source,
        &Options::agal(Profile::StandardExtended).stage(Stage::Vertex),
    )
    .expect_err("too big for AGAL 3");
    let text = e.to_string();
    assert!(
        text.starts_with("huge.spv: error[agal.limit]")
            || (text.starts_with("huge.spv: error[agal.unsupported]")
                && text.contains("2048 instructions")),
        "{e}"
    );
}

#[test]
fn a_megabyte_of_noise_is_refused() {
    let mut rng = tests::mirtest::Rng(7);
    let mut bytes: Vec<u8> = (0..1 << 20).map(|_| rng.next_u64() as u8).collect();
    let e = compile(Source::spirv(&bytes), &Options::pica()).expect_err("noise");
    assert!(e.to_string().contains("error["), "{e}");
    // With a valid header in front.
    bytes[..20].copy_from_slice(&[
        0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
    ]);
    let e = compile(Source::spirv(&bytes), &Options::pica()).expect_err("noise");
    assert!(e.to_string().contains("error["), "{e}");
}

#[test]
fn a_small_shader_in_a_megabyte_of_names_compiles() {
    let mut text = String::from(
        "OpCapability Shader\nOpMemoryModel Logical GLSL450\n\
         OpEntryPoint Vertex %main \"main\" %pos %out\n",
    );
    // 40 000 names on the ids of a small shader: debug information, no code.
    for i in 0..40_000 {
        text += &format!("OpName %pos \"position_name_number_{i:06}\"\n");
    }
    text += "OpDecorate %pos Location 0\nOpDecorate %out BuiltIn Position\n\
             %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n\
             %vec4 = OpTypeVector %float 4\n%in_ty = OpTypePointer Input %vec4\n\
             %out_ty = OpTypePointer Output %vec4\n%pos = OpVariable %in_ty Input\n\
             %out = OpVariable %out_ty Output\n%main = OpFunction %void None %fn\n\
             %entry = OpLabel\n%p = OpLoad %vec4 %pos\nOpStore %out %p\nOpReturn\nOpFunctionEnd\n";
    let words = frontend_spirv::asm::assemble(&text, &Default::default())
        .unwrap()
        .words;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    assert!(bytes.len() >= 1 << 20, "{} bytes", bytes.len());
    let program = compile(Source::spirv(&bytes), &Options::pica()).unwrap();
    assert_eq!(&program.bytes[..4], b"DVLB");
}
