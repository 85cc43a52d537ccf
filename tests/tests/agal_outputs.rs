//! A narrower value returned to a wider output through a swizzle (`a.yzzx` of a vec3 `a`
//! into a vec4): every lane the swizzle names reaches the output, on AGAL as on the PICA200.
//! (Found by the generated-shader run: AGAL moved three lanes, repeating the third.)

use backend_agal::Program;
use backend_agal::sim::{VertexInputs, run_vertex};
use backend_pica::sim::{Simulator, Uniforms};
use spv2retro::{Options, Source, Stage, compile};
use tests::driven::{AGAL_PROFILES, literal_constants, output_register, register_number};

const SHADER: &str = "#version 450
layout(location = 0) in vec4 p;
layout(location = 0) out vec4 color;
void main() {
    vec3 a = p.xyz * 2.0 + 1.0;
    color = a.yzzx;
    gl_Position = a.zxyy;
}
";

#[test]
fn a_vec3_returned_to_a_vec4_output_keeps_every_lane() {
    let p = [0.5f32, -1.0, 2.0, 7.0];
    let a = [p[0] * 2.0 + 1.0, p[1] * 2.0 + 1.0, p[2] * 2.0 + 1.0];
    let color = [a[1], a[2], a[2], a[0]];
    let position = [a[2], a[0], a[1], a[1]];
    for profile in AGAL_PROFILES {
        let c = compile(Source::glsl(SHADER, Stage::Vertex), &Options::agal(profile))
            .unwrap_or_else(|e| panic!("{profile:?}: {e}"));
        let program = Program::decode(&c.bytes).unwrap();
        let out = run_vertex(
            &program,
            &VertexInputs {
                attributes: &[p],
                constants: &literal_constants(&c),
                instance_id: 0,
            },
        )
        .unwrap();
        assert_eq!(
            out.varyings[output_register(&c, "color")],
            color,
            "{profile:?}"
        );
        assert_eq!(out.position, position, "{profile:?}");
    }
    let c = compile(Source::glsl(SHADER, Stage::Vertex), &Options::pica()).unwrap();
    let sim = Simulator::new(&c.bytes).unwrap();
    let mut u = Uniforms::default();
    for (slot, v) in u.float.iter_mut().zip(literal_constants(&c)) {
        *slot = v;
    }
    let mut inputs = [[0.0f32; 4]; 16];
    inputs[register_number(&c.reflection.inputs[0].register)] = p;
    let out = sim.run(0, &inputs, &u).unwrap();
    assert_eq!(out.outputs[output_register(&c, "color")], color);
    assert_eq!(out.outputs[output_register(&c, "gl_Position")], position);
}

/// Varyings built lane by lane are built in the varying register: a `vec3` from a computed
/// `vec2` and a computed scalar (Starling's distance-field shadow: `sub v7.xy …`, `add
/// v7.z …`), whose last piece also writes the fourth lane (Flash wants all four written), a
/// `vec4` from a product and literals, and a `vec2` of two dot products. No temporary is
/// copied into a varying, Flash's rules hold (every compile is validated), and the values are
/// right.
const PIECES: &str = "#version 450
layout(location = 0) in vec4 p;
layout(location = 1) in vec4 q;
layout(location = 0) out vec3 shadow;
layout(location = 1) out vec4 tinted;
layout(location = 2) out vec2 lit;
void main() {
    gl_Position = p;
    shadow = vec3(p.xy - q.zw * 2.0, p.x + (p.x - q.x));
    tinted = vec4(p.x * q.y, 0.5, 0.25, 1.0);
    lit = vec2(dot(p, q), dot(p.xyz, q.xyz));
}
";

#[test]
fn varyings_built_lane_by_lane_are_built_in_place_and_padded() {
    let p = [0.5f32, -1.0, 2.0, 7.0];
    let q = [1.5f32, 0.25, -0.5, 3.0];
    let shadow = [p[0] - q[2] * 2.0, p[1] - q[3] * 2.0, p[0] + (p[0] - q[0])];
    let tinted = [p[0] * q[1], 0.5, 0.25, 1.0];
    let dot: f32 = (0..4).map(|k| p[k] * q[k]).sum();
    let dot3: f32 = (0..3).map(|k| p[k] * q[k]).sum();
    let lit = [dot, dot3];
    for profile in AGAL_PROFILES {
        let c = compile(Source::glsl(PIECES, Stage::Vertex), &Options::agal(profile))
            .unwrap_or_else(|e| panic!("{profile:?}: {e}"));
        // No copy of a temporary into a varying: every piece lands in place.
        assert!(
            !c.listing
                .lines()
                .any(|l| l.starts_with("mov v") && l.contains(", vt")),
            "{profile:?}:\n{}",
            c.listing
        );
        let program = Program::decode(&c.bytes).unwrap();
        let out = run_vertex(
            &program,
            &VertexInputs {
                attributes: &[p, q],
                constants: &literal_constants(&c),
                instance_id: 0,
            },
        )
        .unwrap();
        let near =
            |got: &[f32], want: &[f32]| got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-5);
        let v = |name: &str| out.varyings[output_register(&c, name)];
        assert!(
            near(&v("shadow"), &shadow),
            "{profile:?}: {:?}\n{}",
            v("shadow"),
            c.listing
        );
        assert!(
            near(&v("tinted"), &tinted),
            "{profile:?}: {:?}",
            v("tinted")
        );
        assert!(near(&v("lit"), &lit), "{profile:?}: {:?}", v("lit"));
    }
}

/// A scalar returned as a whole vector (`c = vec4(s)`) is computed straight into every lane
/// of its output in one instruction, its lane-wise sources read replicated (as on the
/// PICA200): the colour output is written once, with no temporary and no copy. A dot
/// product writes its value to every lane of its destination anyway.
const SPLAT: &str = "#version 450
layout(location = 0) in vec4 a;
layout(location = 1) in vec4 b;
layout(location = 0) out vec4 c;
void main() { c = vec4(a.x * b.y + a.z); }
";

const SPLAT_DOT: &str = "#version 450
layout(location = 0) in vec4 a;
layout(location = 1) in vec4 b;
layout(location = 0) out vec4 c;
void main() { c = vec4(dot(a, b)); }
";

#[test]
fn a_splat_scalar_is_computed_into_the_whole_colour_output() {
    use backend_agal::sim::{FragmentInputs, run_fragment};
    let (a, b) = ([0.5f32, -2.0, 3.0, 1.0], [1.5f32, 0.25, -1.0, 2.0]);
    let cases = [
        (SPLAT, a[0] * b[1] + a[2], "add oc,"),
        (
            SPLAT_DOT,
            a.iter().zip(&b).map(|(x, y)| x * y).sum(),
            "dp4 oc,",
        ),
    ];
    for (shader, want, into) in cases {
        for profile in AGAL_PROFILES {
            let options = Options::agal(profile).stage(Stage::Fragment);
            let c = compile(Source::glsl(shader, Stage::Fragment), &options)
                .unwrap_or_else(|e| panic!("{profile:?}: {e}"));
            assert!(c.listing.contains(into), "{profile:?}:\n{}", c.listing);
            assert!(!c.listing.contains("mov oc"), "{profile:?}:\n{}", c.listing);
            let out = run_fragment(
                &Program::decode(&c.bytes).unwrap(),
                &[a, b],
                &FragmentInputs {
                    constants: &literal_constants(&c),
                    textures: &(),
                },
            )
            .unwrap();
            for l in 0..4 {
                assert!(
                    (out.colors[0][l] - want).abs() < 1e-5,
                    "{profile:?} lane {l}: {:?}, want {want}\n{}",
                    out.colors[0],
                    c.listing
                );
            }
        }
    }
}
