//! On AGAL 1 an `if` on a `uniform bool` is a blend whose flag is the bool's register itself
//! (it holds 1.0 or 0.0: no comparison). A value that may be infinite is still clamped before
//! the flag multiplies it, so the arm not taken cannot turn the result into NaN (`0 * inf`).
//! Run in the AGAL simulator against values computed here, both ways of the bool.

use backend_agal::sim::{VertexInputs, run_vertex};
use backend_agal::{Profile, Program};
use spv2retro::{Options, Source, Stage, compile};
use tests::driven::{constants_with, output_register};

const SHADER: &str = "#version 450
layout(location = 0) in vec4 a;
layout(location = 0) out vec4 c;
uniform bool useInverse;
void main() {
    gl_Position = a;
    c = useInverse ? vec4(1.0 / a.x) : a;
}
";

#[test]
fn a_bool_uniform_is_its_own_flag_and_the_blend_stays_finite() {
    let c = compile(
        Source::glsl(SHADER, Stage::Vertex),
        &Options::agal(Profile::Baseline),
    )
    .unwrap();
    let listing = &c.listing;
    assert!(
        !listing.contains("sne") && !listing.contains("seq"),
        "{listing}"
    );
    assert!(
        listing.contains("max") && listing.contains("min"),
        "the clamp:\n{listing}"
    );
    let program = Program::decode(&c.bytes).unwrap();
    for (flag, a, want) in [
        (0.0f32, [0.0f32, 2.0, 3.0, 4.0], [0.0f32, 2.0, 3.0, 4.0]),
        (1.0, [2.0, 2.0, 3.0, 4.0], [0.5; 4]),
        (0.0, [-4.0, 1.0, 1.0, 1.0], [-4.0, 1.0, 1.0, 1.0]),
    ] {
        let constants = constants_with(&c, &[("useInverse", &[flag])]);
        let out = run_vertex(
            &program,
            &VertexInputs {
                attributes: &[a],
                constants: &constants,
                instance_id: 0,
            },
        )
        .unwrap();
        assert_eq!(
            out.varyings[output_register(&c, "c")],
            want,
            "flag {flag}, a {a:?}"
        );
    }
}
