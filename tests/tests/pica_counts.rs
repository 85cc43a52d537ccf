//! Code size against hand-written PICA200 assembly: the vertex shaders of devkitPro's
//! 3ds-examples, written in GLSL (tests/fixtures/glsl/ctr_*.vert), must compile to no more
//! instructions than their hand-written originals, and an MVP transform with a colour to 6.
//! The table is printed for the report.

use tests::mirtest::lower;

/// (fixture, hand-written instructions, what it is).
const HAND_WRITTEN: &[(&str, usize, &str)] = &[
    ("ctr_simple_tri.vert.spv", 8, "3ds-examples simple_tri"),
    ("ctr_skybox.vert.spv", 12, "3ds-examples cubemap skybox"),
    (
        "ctr_textured_cube.vert.spv",
        34,
        "3ds-examples textured_cube",
    ),
    ("ctr_lenny.vert.spv", 29, "3ds-examples lenny (qtm)"),
    (
        "mvp_color.vert.spv",
        6,
        "MVP transform with colour (issue target)",
    ),
];

#[test]
fn never_more_instructions_than_hand_written() {
    let mut report = String::from("| shader | hand-written | ours |\n|---|---|---|\n");
    let mut worse = Vec::new();
    for &(file, hand, what) in HAND_WRITTEN {
        let bytes = std::fs::read(tests::fixtures("glsl").join(file)).unwrap();
        let m = lower(&bytes).unwrap();
        let p = backend_pica::codegen::compile(&m, &Default::default()).unwrap();
        let ours = p.code.len();
        report += &format!("| {what} | {hand} | {ours} |\n");
        if ours > hand {
            worse.push(format!("{file}: {ours} instructions, hand-written {hand}"));
        }
    }
    eprintln!("{report}");
    assert!(worse.is_empty(), "{}", worse.join("\n"));
}
