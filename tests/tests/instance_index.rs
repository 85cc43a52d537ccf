//! `gl_InstanceIndex`: AGAL 3 vertex programs read it from `iid`; AGAL 1 and 2 and the
//! PICA200 have no such register, and say so.

use backend_agal::Program;
use backend_agal::sim::{VertexInputs, run_vertex};
use spv2retro::{Options, Profile, Source, Stage, compile};
use tests::driven::{literal_constants, register_number as number};

const SHADER: &str = "#version 450
layout(location = 0) in vec4 pos;
layout(location = 0) out vec4 color;
void main() {
    color = vec4(float(gl_InstanceIndex) * 0.5, 0.0, 0.0, 1.0);
    gl_Position = pos + vec4(float(gl_InstanceIndex), 0.0, 0.0, 0.0);
}
";

#[test]
fn agal_3_reads_the_instance_number_from_iid() {
    let c = compile(
        Source::glsl(SHADER, Stage::Vertex),
        &Options::agal(Profile::StandardExtended),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(c.listing.contains("iid"), "{}", c.listing);
    let p = Program::decode(&c.bytes).unwrap();
    let constants = literal_constants(&c);
    let color = c
        .reflection
        .outputs
        .iter()
        .find(|o| o.name == "color")
        .unwrap();
    let pos = [0.25, -0.5, 0.75, 1.0];
    for id in 0..6u32 {
        let out = run_vertex(
            &p,
            &VertexInputs {
                attributes: &[pos],
                constants: &constants,
                instance_id: id,
            },
        )
        .unwrap();
        let i = id as f32;
        assert_eq!(
            out.varyings[number(&color.register)],
            [i * 0.5, 0.0, 0.0, 1.0]
        );
        assert_eq!(out.position, [0.25 + i, -0.5, 0.75, 1.0]);
    }
}

#[test]
fn without_an_instance_register_it_is_refused_once_and_says_where_it_is() {
    for profile in [Profile::Baseline, Profile::Standard] {
        let e = compile(Source::glsl(SHADER, Stage::Vertex), &Options::agal(profile))
            .expect_err("AGAL 1 and 2 have no iid");
        let text = e.to_string();
        assert_eq!(text.matches("error[").count(), 1, "{text}");
        assert!(
            text.contains("error[agal.unsupported]: gl_InstanceIndex"),
            "{text}"
        );
        assert!(text.contains("standardExtended"), "{text}");
    }
    let e = compile(Source::glsl(SHADER, Stage::Vertex), &Options::pica())
        .expect_err("the PICA200 has no instance register");
    let text = e.to_string();
    assert!(
        text.contains("error[pica.unsupported]: gl_InstanceIndex"),
        "{text}"
    );
}
