//! The citro3d harness itself (`tests::c3d`): C compiled against citro3d's real `texenv.h`
//! and run gives the register words citro3d would send, checked against the register layout
//! (`docs`: pica200-fragment-pipeline.md §5-§7, 3dbrew's GPU/Internal Registers).

use tests::c3d::{INIT_STAGE, State, run};

/// `texture0 * vColor` in stage 0, as the register documentation's example configures it.
const MODULATE_HEADER: &str = r#"#include <citro3d.h>

static inline void sprite_texenv(void)
{
    C3D_TexEnv* env = C3D_GetTexEnv(0);
    C3D_TexEnvInit(env);
    C3D_TexEnvSrc(env, C3D_Both, GPU_TEXTURE0, GPU_PRIMARY_COLOR, GPU_PRIMARY_COLOR);
    C3D_TexEnvFunc(env, C3D_Both, GPU_MODULATE);
}
"#;

fn ok(header: &str, calls: &str) -> State {
    run(header, calls).unwrap_or_else(|e| panic!("{e}\n--- header\n{header}\n--- calls\n{calls}"))
}

#[test]
fn defaults_are_citro3d_after_c3d_init() {
    let state = ok("#include <citro3d.h>\n", "");
    assert_eq!(state, State::AFTER_INIT);
    // citro3d's own C3D_TexEnvInit: sources PREVIOUS (0xF), PRIMARY, PRIMARY for RGB and
    // alpha; operands 0; REPLACE; colour 0xFFFFFFFF; scale 1x.
    assert_eq!(INIT_STAGE, [0x000F_000F, 0, 0, 0xFFFF_FFFF, 0]);
}

#[test]
fn texture0_times_vertex_colour_in_stage_0() {
    let state = ok(MODULATE_HEADER, "sprite_texenv();");
    // SOURCE: RGB src1 TEXTURE0 (3) bits 0-3, src2/src3 PRIMARY (0); alpha the same at 16-27.
    // COMBINER: MODULATE (1) for RGB bits 0-3 and alpha 16-19.
    assert_eq!(
        state.stages[0],
        [
            0x0003_0003,
            0x0000_0000,
            0x0001_0001,
            0xFFFF_FFFF,
            0x0000_0000
        ]
    );
    assert_eq!(&state.stages[1..], &[INIT_STAGE; 5]);
    assert_eq!(
        (state.update_buffer, state.buffer_color, state.alpha_test),
        (0, 0xFFFF_FFFF, 0x10)
    );
}

#[test]
fn every_builder_lands_in_its_register_bits() {
    // Stage 5, every field different, RGB and alpha told apart.
    let header = r#"#include <citro3d.h>

static inline void configure(void)
{
    C3D_TexEnv* env = C3D_GetTexEnv(5);
    C3D_TexEnvInit(env);
    C3D_TexEnvSrc(env, C3D_RGB, GPU_CONSTANT, GPU_PREVIOUS, GPU_TEXTURE1);
    C3D_TexEnvSrc(env, C3D_Alpha, GPU_PREVIOUS_BUFFER, GPU_TEXTURE2, GPU_FRAGMENT_PRIMARY_COLOR);
    C3D_TexEnvOpRgb(env, GPU_TEVOP_RGB_SRC_ALPHA, GPU_TEVOP_RGB_ONE_MINUS_SRC_COLOR, GPU_TEVOP_RGB_SRC_B);
    C3D_TexEnvOpAlpha(env, GPU_TEVOP_A_ONE_MINUS_SRC_ALPHA, GPU_TEVOP_A_SRC_R, GPU_TEVOP_A_SRC_G);
    C3D_TexEnvFunc(env, C3D_RGB, GPU_INTERPOLATE);
    C3D_TexEnvFunc(env, C3D_Alpha, GPU_ADD);
    C3D_TexEnvColor(env, 0x80402010u);
    C3D_TexEnvScale(env, C3D_RGB, GPU_TEVSCALE_2);
    C3D_TexEnvScale(env, C3D_Alpha, GPU_TEVSCALE_4);
}
"#;
    let state = ok(header, "configure();");
    assert_eq!(
        state.stages[5],
        [
            // RGB 0xE | 0xF << 4 | 0x4 << 8; alpha 0xD | 0x5 << 4 | 0x1 << 8, at bit 16.
            0x015D_04FE,
            // RGB operands 2 | 1 << 4 | 12 << 8 at bits 0-11; alpha 1 | 2 << 4 | 4 << 8 at 12-23.
            0x0042_1C12,
            // INTERPOLATE (4) for RGB, ADD (2) for alpha.
            0x0002_0004,
            0x8040_2010,
            // 2x (1) for RGB, 4x (2) for alpha.
            0x0002_0001,
        ]
    );
    assert_eq!(&state.stages[..5], &[INIT_STAGE; 5]);
}

#[test]
fn set_tex_env_copies_and_null_resets() {
    let calls = "sprite_texenv();\n\
                 C3D_SetTexEnv(3, C3D_GetTexEnv(0));\n\
                 C3D_SetTexEnv(0, NULL);";
    let state = ok(MODULATE_HEADER, calls);
    assert_eq!(state.stages[0], INIT_STAGE);
    assert_eq!(
        state.stages[3],
        [
            0x0003_0003,
            0x0000_0000,
            0x0001_0001,
            0xFFFF_FFFF,
            0x0000_0000
        ]
    );
}

#[test]
fn buffer_update_buffer_colour_and_alpha_test_round_trip() {
    let state = ok(
        "#include <citro3d.h>\n",
        "C3D_TexEnvBufUpdate(C3D_RGB, 0x3);\n\
         C3D_TexEnvBufUpdate(C3D_Alpha, 0x1F); /* citro3d keeps mask & 0xF */\n\
         C3D_TexEnvBufColor(0x80402010u);\n\
         C3D_AlphaTest(true, GPU_GEQUAL, 128);",
    );
    assert_eq!(state.update_buffer, 0xF300);
    assert_eq!(state.buffer_color, 0x8040_2010);
    assert_eq!(state.alpha_test, 0x8071);
    assert_eq!(state.stages, [INIT_STAGE; 6]);

    // Both halves at once, with libctru's mask builder; a later call replaces, not adds.
    let state = ok(
        "#include <citro3d.h>\n",
        "C3D_TexEnvBufUpdate(C3D_Both, 0xF);\n\
         C3D_TexEnvBufUpdate(C3D_Both, GPU_TEV_BUFFER_WRITE_CONFIG(0, 1, 0, 0));\n\
         C3D_AlphaTest(false, GPU_LESS, 7);",
    );
    assert_eq!(state.update_buffer, 0x2200);
    assert_eq!(state.alpha_test, 0x0740);
}

#[test]
fn a_c_error_in_the_header_is_the_compilers_message() {
    let header = "#include <citro3d.h>\n\nint x = ;\n";
    let e = run(header, "").expect_err("a C error");
    assert!(e.contains("header.h:3"), "{e}");
    assert!(e.contains("expected expression"), "{e}");
}

#[test]
fn a_warning_is_an_error() {
    let e = run("#include <citro3d.h>\n", "int unused;").expect_err("-Werror");
    assert!(e.contains("calls:1") && e.contains("unused"), "{e}");
}

#[test]
fn a_stage_past_five_is_an_error() {
    let e = run(
        "#include <citro3d.h>\n",
        "C3D_TexEnvInit(C3D_GetTexEnv(6));",
    )
    .expect_err("stage 6");
    assert!(e.contains("C3D_GetTexEnv: stage 6"), "{e}");
}

#[test]
fn the_callers_printing_is_ignored() {
    let header = "#include <citro3d.h>\n#include <stdio.h>\n";
    let state = ok(header, "printf(\"c3d-stat\\nhello\\n\");");
    assert_eq!(state, State::AFTER_INIT);
}
