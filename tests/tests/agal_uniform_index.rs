//! A fragment program reading a uniform array by a computed index (raylib's palette_switch):
//! AGAL addresses constants relatively only in vertex programs, so the read selects among
//! the array's registers. Every index is run on AGAL 1, 2 and 3 and compared with the element
//! the test picks itself.

use spv2retro::{Options, Profile, Source, Stage, compile};

const PROFILES: [Profile; 3] = [
    Profile::Baseline,
    Profile::Standard,
    Profile::StandardExtended,
];

/// The first output of `c` run with `inputs` and `uniforms` by name.
fn run(
    c: &spv2retro::Compiled,
    inputs: &[(&str, Vec<f32>)],
    uniforms: &[(&str, Vec<f32>)],
) -> [f32; 4] {
    tests::driven::run_by_name(c, inputs, uniforms).outputs[0].value
}

#[test]
fn a_palette_read_by_a_computed_index_picks_each_element() {
    let src = "precision mediump float;\nuniform vec4 tint;\nuniform vec4 palette[8];\n\
               varying float index;\n\
               void main() { gl_FragColor = palette[int(index)] * tint.x; }\n";
    let palette: Vec<f32> = (0..32).map(|k| k as f32 * 0.5 - 3.0).collect();
    for profile in PROFILES {
        let c = compile(Source::glsl(src, Stage::Fragment), &Options::agal(profile))
            .unwrap_or_else(|e| panic!("{profile:?}: {e}"));
        for i in 0..8 {
            let got = run(
                &c,
                &[("index", vec![i as f32 + 0.25])],
                &[
                    ("tint", vec![2.0, 0.0, 0.0, 0.0]),
                    ("palette", palette.clone()),
                ],
            );
            let want: Vec<f32> = palette[i * 4..i * 4 + 4].iter().map(|v| v * 2.0).collect();
            assert_eq!(got.to_vec(), want, "{profile:?} index {i}");
        }
    }
}

#[test]
fn an_array_of_structures_read_by_a_computed_index_picks_each_member() {
    let src = "#version 330\nstruct Light { vec4 color; float scale; };\n\
               uniform Light lights[3];\nflat in int which;\nout vec4 c;\n\
               void main() { c = lights[which].color * lights[which].scale; }\n";
    for profile in [Profile::Standard, Profile::StandardExtended] {
        let c = compile(Source::glsl(src, Stage::Fragment), &Options::agal(profile))
            .unwrap_or_else(|e| panic!("{profile:?}: {e}"));
        let uniforms: Vec<(String, Vec<f32>)> = (0..3)
            .flat_map(|k| {
                [
                    (
                        format!("lights[{k}].color"),
                        vec![k as f32, 1.0 + k as f32, -2.0, 0.5],
                    ),
                    (format!("lights[{k}].scale"), vec![10.0 + k as f32]),
                ]
            })
            .collect();
        let named: Vec<(&str, Vec<f32>)> = uniforms
            .iter()
            .map(|(n, v)| (n.as_str(), v.clone()))
            .collect();
        for k in 0..3usize {
            let got = run(&c, &[("which", vec![k as f32])], &named);
            let s = 10.0 + k as f32;
            let want = [k as f32 * s, (1.0 + k as f32) * s, -2.0 * s, 0.5 * s];
            assert_eq!(got, want, "{profile:?} light {k}");
        }
    }
}

#[test]
fn an_index_beyond_what_one_read_may_select_among_is_a_limit_with_the_numbers() {
    let src = "precision mediump float;\nuniform vec4 big[100];\nvarying float i;\n\
               void main() { gl_FragColor = big[int(i)]; }\n";
    let e = compile(
        Source::glsl(src, Stage::Fragment),
        &Options::agal(Profile::StandardExtended),
    )
    .unwrap_err();
    assert_eq!(e.diagnostics().0[0].rule, "agal.limit", "{e}");
    assert!(
        e.to_string().contains("at most 64; this one reaches 100"),
        "{e}"
    );
}
