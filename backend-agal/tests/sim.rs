//! The simulator on the golden programs and on small programs, against values each test
//! computes on its own (in f32, in the order the program does it where rounding matters).

use crate::common;

use backend_agal::sim::{
    self, FragmentInputs, Image, SamplerState, Texture, Textures, Vec4, VertexInputs,
};
use backend_agal::{Program, Stage, Version, asm};
use test_kit::within;

fn program(name: &str) -> Program {
    Program::decode(&common::bytes(name)).unwrap()
}

fn dot4(a: Vec4, b: Vec4) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
}

fn no_textures() -> FragmentInputs<'static> {
    FragmentInputs {
        constants: &[],
        textures: &(),
    }
}

#[test]
fn basic_m44_vertex() {
    let va = [[1.0, 2.0, 3.0, 1.0], [0.25, 0.5, 0.75, 1.0]];
    let vc = [
        [1.0, 0.0, 0.0, 5.0],
        [0.0, 2.0, 0.0, -1.0],
        [0.5, 0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0, 2.0],
    ];
    let out = sim::run_vertex(
        &program("basic_m44_vertex"),
        &VertexInputs {
            attributes: &va,
            constants: &vc,
            instance_id: 0,
        },
    )
    .unwrap();
    let expected = [
        dot4(va[0], vc[0]),
        dot4(va[0], vc[1]),
        dot4(va[0], vc[2]),
        dot4(va[0], vc[3]),
    ];
    assert_eq!(out.position, expected);
    assert_eq!(out.position, [6.0, 3.0, 3.5, 5.0]);
    assert_eq!(out.varyings[0], va[1]);
}

#[test]
fn relative_vertex() {
    let va = [[2.7, 0.0, 0.0, 1.0], [0.0, 1.2, 0.0, 1.0]];
    let vc: Vec<Vec4> = (0..16)
        .map(|i| [i as f32, 10.0 * i as f32, 0.5, 1.0])
        .collect();
    let out = sim::run_vertex(
        &program("relative_vertex"),
        &VertexInputs {
            attributes: &va,
            constants: &vc,
            instance_id: 0,
        },
    )
    .unwrap();
    // vc[trunc(2.7) + 5] + vc[trunc(1.2) + 6] = vc7 + vc7
    assert_eq!(out.position, [14.0, 140.0, 1.0, 2.0]);
}

/// MolehillJulia: the vertex program passes the plane position through, the fragment
/// program iterates z ← z² + c 23 times and colours by the count.
#[test]
fn fractal_pair() {
    let vc = [
        [0.0, 0.0, 0.0, 1.0],
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let fc = [
        [0.0, 0.0, 2.0, 4.0],
        [0.1, 0.4, 0.7, 0.2],
        [10.0, 23.0, 1.0, -1.0],
        [0.25, -0.575, 0.0, 0.0],
    ];
    let vp = program("fractal_vertex");
    let fp = program("fractal_fragment");
    for (x, y) in [
        (0.0f32, 0.0f32),
        (0.3, -0.2),
        (-1.2, 0.9),
        (1.5, 1.5),
        (-0.1, 0.65),
    ] {
        let va = [[x.signum(), y.signum(), 0.0, 1.0], [x, y, 0.0, 1.0]];
        let out = sim::run_vertex(
            &vp,
            &VertexInputs {
                attributes: &va,
                constants: &vc,
                instance_id: 0,
            },
        )
        .unwrap();
        assert_eq!(out.position, va[0]);
        // `mov v0.zw, vc0.zw` is `vc0.zwww` by position: z gets vc0.w, w gets vc0.w.
        assert_eq!(out.varyings[0], [x, y, 1.0, 1.0]);

        // The test's own Julia iteration.
        let (mut zx, mut zy) = (x, y);
        let mut count = 0.0f32;
        for _ in 0..23 {
            let two_x = 2.0 * zx;
            let nx = zx * zx + zy * -zy + 0.0 * 0.0;
            let ny = two_x * zy;
            zx = nx + 0.25;
            zy = ny + -0.575;
            let r2 = zx * zx + zy * zy + 0.0 * 0.0;
            count += if r2 < 4.0 { 1.0 } else { 0.0 };
        }
        let t = count / 23.0;
        let colour: Vec4 = std::array::from_fn(|i| {
            let c = ((t + fc[1][i]) + fc[1][3]) / 2.0;
            let c = ((c - c.floor()) * 2.0 - 1.0).abs();
            if count < 23.0 { c } else { 0.0 }
        });
        let f = sim::run_fragment(
            &fp,
            &out.varyings,
            &FragmentInputs {
                constants: &fc,
                textures: &(),
            },
        )
        .unwrap();
        assert!(!f.discarded);
        assert!(
            (0..4).all(|l| within(f.colors[0][l], colour[l], 1e-5, 1e-5)),
            "({x}, {y}): {:?} vs {colour:?} after {count}",
            f.colors[0]
        );
    }
}

/// Ruffle's opcode coverage program (invalid for Flash, but it runs): log, exp, pow, sge, m33,
/// m34, min, rsq.
#[test]
fn misc_opcodes_vertex() {
    let a: Vec4 = [0.5, 2.0, 3.0, 4.0];
    let vc: Vec<Vec4> = vec![
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.5, 0.5, 0.5, 0.5],
        [1.0, 2.0, 3.0, 4.0],
    ];
    let out = sim::run_vertex(
        &program("misc_opcodes_vertex"),
        &VertexInputs {
            attributes: &[a],
            constants: &vc,
            instance_id: 0,
        },
    )
    .unwrap();
    let vt0 = a.map(f32::log2);
    let vt1 = vt0.map(f32::exp2);
    let vt2: Vec4 = std::array::from_fn(|i| vt1[i].powf(a[i]));
    let vt3: Vec4 = std::array::from_fn(|i| if vt2[i] >= a[i] { 1.0 } else { 0.0 });
    // m33 vt4, vc0, vt3: rows vt3, vt4, vt5 (vt4 and vt5 still zero); w untouched.
    let d3 = |p: Vec4, q: Vec4| p[0] * q[0] + p[1] * q[1] + p[2] * q[2];
    let vt4 = [d3(vc[0], vt3), 0.0, 0.0, 0.0];
    // m34 vt5, vc2, vt3: rows vt3, vt4 (just written), vt5 (zero).
    let vt5 = [dot4(vc[2], vt3), dot4(vc[2], vt4), 0.0, 0.0];
    let vt6: Vec4 = std::array::from_fn(|i| vt5[i].min(vt4[i]));
    let expected = vt6.map(|v| 1.0 / v.sqrt());
    for (g, e) in out.position.iter().zip(expected) {
        assert!(
            g == &e || (g.is_infinite() && e.is_infinite()),
            "{:?} vs {expected:?}",
            out.position
        );
    }
}

/// `oc = ddx(v0)`, discarded where `ddy(ddx(v0)).x < 0`: a quad with v0 = (k·x·y, x, y, 1).
#[test]
fn misc_opcodes_fragment_quad() {
    let p = program("misc_opcodes_fragment");
    for k in [-3.0f32, 2.0] {
        let v = |x: f32, y: f32| [[k * x * y, x, y, 1.0]];
        let lanes = [v(0.0, 0.0), v(1.0, 0.0), v(0.0, 1.0), v(1.0, 1.0)];
        let out = sim::run_fragment_quad(
            &p,
            [&lanes[0], &lanes[1], &lanes[2], &lanes[3]],
            &no_textures(),
        )
        .unwrap();
        // ddx per row: (k·y, 1, 0, 0); ddy of that: (k, 0, 0, 0) everywhere.
        for (i, o) in out.iter().enumerate() {
            let y = (i / 2) as f32;
            assert_eq!(o.colors[0], [k * y, 1.0, 0.0, 0.0]);
            assert_eq!(o.discarded, k < 0.0);
        }
    }
    // One fragment alone: derivatives are zero, nothing is discarded.
    let out = sim::run_fragment(&p, &[[1.0, 2.0, 3.0, 4.0]], &no_textures()).unwrap();
    assert_eq!((out.colors[0], out.discarded), ([0.0; 4], false));
}

/// The ray tracer runs to the end; a pixel whose ray hits nothing shows the environment map.
#[test]
fn raytrace_runs() {
    let vp = program("raytrace_vertex");
    let fp = program("raytrace_fragment");
    let vc = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 0.0],
    ];
    let out = sim::run_vertex(
        &vp,
        &VertexInputs {
            attributes: &[[0.2, -0.4, 0.0, 0.0]],
            constants: &vc,
            instance_id: 0,
        },
    )
    .unwrap();
    assert_eq!(out.position, [0.2, -0.4, 0.0, 1.0]);
    assert_eq!(out.varyings[0], [0.2, -0.4, -0.4, -0.4]);
    let sky = Image::new_cube(1, vec![[0.25, 0.5, 0.75, 1.0]; 6]).unwrap();
    let textures: [&dyn Texture; 1] = [&sky];
    let fc: Vec<Vec4> = (0..24)
        .map(|i| [0.0, 1.0, 0.5, 2.0].map(|v: f32| v + i as f32 * 0.01))
        .collect();
    let f = sim::run_fragment(
        &fp,
        &out.varyings,
        &FragmentInputs {
            constants: &fc,
            textures: &textures,
        },
    )
    .unwrap();
    assert!(f.colors[0].iter().all(|c| !c.is_nan()), "{:?}", f.colors[0]);
}

fn frag(text: &str) -> Program {
    asm::parse(text, Stage::Fragment, Version::V2).unwrap()
}

#[test]
fn conditionals_select_per_lane() {
    let p = frag("ifg v0.x, fc0.x\nmov ft0, fc1\nels\nmov ft0, fc2\neif\nmov oc, ft0");
    let fc = [[0.5; 4], [1.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0]];
    let inputs = FragmentInputs {
        constants: &fc,
        textures: &(),
    };
    let lanes = [[[0.2; 4]], [[0.5; 4]], [[0.7; 4]], [[-1.0; 4]]];
    let out =
        sim::run_fragment_quad(&p, [&lanes[0], &lanes[1], &lanes[2], &lanes[3]], &inputs).unwrap();
    let colours: Vec<Vec4> = out.iter().map(|o| o.colors[0]).collect();
    assert_eq!(colours, [fc[2], fc[1], fc[1], fc[2]]); // ifg is >=
    let nested = frag(
        "ine v0.x, fc0.x\nife v0.y, fc0.y\nmov ft0, fc1\nels\nmov ft0, fc2\neif\nels\nmov ft0, fc0\neif\nmov oc, ft0",
    );
    let run = |v: Vec4| sim::run_fragment(&nested, &[v], &inputs).unwrap().colors[0];
    assert_eq!(run([0.5, 0.0, 0.0, 0.0]), fc[0]);
    assert_eq!(run([0.0, 0.5, 0.0, 0.0]), fc[1]);
    assert_eq!(run([0.0, 0.0, 0.0, 0.0]), fc[2]);
}

#[test]
fn arithmetic_semantics() {
    let p = asm::parse(
        "mov vt0, va0\nnrm vt1.xyz, vt0\nmov vt1.w, vc0.w\ncrs vt2.xyz, va1, va2\nmov vt2.w, vc0.x\n\
         dp3 vt3, va1, va2\nsat vt4, va3\nfrc vt5, va3\nslt vt6, va3, vc0\nsub vt7, vt6, vt5\n\
         mov v0, vt1\nmov v1, vt2\nmov v2, vt3\nmov v3, vt4\nmov v4, vt5\nmov v5, vt7\nrcp op, va4",
        Stage::Vertex,
        Version::V1,
    )
    .unwrap();
    let va = [
        [3.0, 0.0, 4.0, 9.0],
        [1.0, 2.0, 3.0, 0.0],
        [4.0, 5.0, 6.0, 0.0],
        [-0.5, 0.25, 1.5, -1.25],
        [2.0, 4.0, -8.0, 0.5],
    ];
    let vc = [[0.0, 0.0, 0.0, 7.0]];
    let o = sim::run_vertex(
        &p,
        &VertexInputs {
            attributes: &va,
            constants: &vc,
            instance_id: 0,
        },
    )
    .unwrap();
    assert_eq!(o.varyings[0], [0.6, 0.0, 0.8, 7.0]);
    assert_eq!(
        o.varyings[1],
        [
            2.0 * 6.0 - 3.0 * 5.0,
            3.0 * 4.0 - 1.0 * 6.0,
            1.0 * 5.0 - 2.0 * 4.0,
            0.0
        ]
    );
    assert_eq!(o.varyings[2], [32.0; 4]);
    assert_eq!(o.varyings[3], [0.0, 0.25, 1.0, 0.0]);
    assert_eq!(o.varyings[4], [0.5, 0.25, 0.5, 0.75]);
    assert_eq!(o.varyings[5], [0.5, -0.25, -0.5, 0.25]);
    assert_eq!(o.position, [0.5, 0.25, -0.125, 2.0]);
    assert_eq!(o.varyings_written[0], backend_agal::Mask::XYZW);
}

fn four_by_four() -> Image {
    // Texel (x, y) = (x, y, 0, 1) / 4.
    let texels = (0..16)
        .map(|i| [(i % 4) as f32 / 4.0, (i / 4) as f32 / 4.0, 0.0, 1.0])
        .collect();
    Image::new_2d(4, 4, texels).unwrap()
}

#[test]
fn texture_2d_filter_and_wrap() {
    let tex = four_by_four();
    let textures: [&dyn Texture; 1] = [&tex];
    let inputs = FragmentInputs {
        constants: &[],
        textures: &textures,
    };
    let run = |flags: &str, uv: [f32; 2]| {
        let p = frag(&format!("tex ft0, v0, fs0 <{flags}>\nmov oc, ft0"));
        sim::run_fragment(&p, &[[uv[0], uv[1], 0.0, 0.0]], &inputs)
            .unwrap()
            .colors[0]
    };
    assert_eq!(run("2d,nearest,clamp", [0.3, 0.6]), [0.25, 0.5, 0.0, 1.0]);
    assert_eq!(run("2d,nearest,repeat", [1.3, -0.4]), [0.25, 0.5, 0.0, 1.0]);
    assert_eq!(run("2d,nearest,clamp", [1.3, -0.4]), [0.75, 0.0, 0.0, 1.0]);
    assert_eq!(
        run("2d,nearest,clamp_u_repeat_v", [1.3, -0.4]),
        [0.75, 0.5, 0.0, 1.0]
    );
    // Linear: halfway between texel centres 1 and 2 horizontally, on centre 0 vertically.
    assert_eq!(run("2d,linear,clamp", [0.5, 0.125]), [0.375, 0.0, 0.0, 1.0]);
    // Repeat blends the last column with the first.
    assert_eq!(
        run("2d,linear,repeat", [1.0, 0.125]),
        [0.375, 0.0, 0.0, 1.0]
    );
}

#[test]
fn texture_mipmaps_follow_the_quad_footprint() {
    let tex = four_by_four().with_mipmaps();
    assert_eq!(tex.levels(), 3);
    let textures: [&dyn Texture; 1] = [&tex];
    let inputs = FragmentInputs {
        constants: &[],
        textures: &textures,
    };
    let p = frag("tex ft0, v0, fs0 <2d,nearest,mipnearest,clamp>\nmov oc, ft0");
    // Neighbouring fragments 4 texels apart: level 2 (1×1, the average).
    let at = |u: f32, v: f32| [[u, v, 0.0, 0.0]];
    let quad = [at(0.0, 0.0), at(1.0, 0.0), at(0.0, 1.0), at(1.0, 1.0)];
    let out =
        sim::run_fragment_quad(&p, [&quad[0], &quad[1], &quad[2], &quad[3]], &inputs).unwrap();
    assert_eq!(out[0].colors[0], [0.375, 0.375, 0.0, 1.0]);
    // One texel apart: level 0.
    let quad = [at(0.1, 0.1), at(0.35, 0.1), at(0.1, 0.35), at(0.35, 0.35)];
    let out =
        sim::run_fragment_quad(&p, [&quad[0], &quad[1], &quad[2], &quad[3]], &inputs).unwrap();
    assert_eq!(out[0].colors[0], [0.0, 0.0, 0.0, 1.0]);
    // A LOD bias of +1 moves one level down (2×2 averages).
    let biased = frag("tex ft0, v0, fs0 <2d,nearest,mipnearest,clamp,1>\nmov oc, ft0");
    let out =
        sim::run_fragment_quad(&biased, [&quad[0], &quad[1], &quad[2], &quad[3]], &inputs).unwrap();
    assert_eq!(out[0].colors[0], [0.125, 0.125, 0.0, 1.0]);
}

#[test]
fn cube_maps_pick_the_major_axis_face() {
    let faces: Vec<Vec4> = (0..6).map(|f| [f as f32, 0.0, 0.0, 1.0]).collect();
    let tex = Image::new_cube(1, faces).unwrap();
    let textures: [&dyn Texture; 1] = [&tex];
    let inputs = FragmentInputs {
        constants: &[],
        textures: &textures,
    };
    let p = frag("tex ft0, v0, fs0 <cube,linear,miplinear,clamp>\nmov oc, ft0");
    for (dir, face) in [
        ([1.0, 0.2, -0.3], 0.0),
        ([-2.0, 1.0, 1.0], 1.0),
        ([0.1, 3.0, 0.0], 2.0),
        ([0.0, -1.0, 0.5], 3.0),
        ([0.3, 0.3, 0.9], 4.0),
        ([0.0, 0.0, -1.0], 5.0),
    ] {
        let out = sim::run_fragment(&p, &[[dir[0], dir[1], dir[2], 0.0]], &inputs).unwrap();
        assert_eq!(out.colors[0][0], face, "{dir:?}");
    }
}

#[test]
fn ignoresampler_uses_the_application_state() {
    struct Bound<'a>(&'a Image);
    impl Textures for Bound<'_> {
        fn texture(&self, _: u16) -> Option<&dyn Texture> {
            Some(self.0)
        }
        fn sampler_state(&self, _: u16) -> Option<SamplerState> {
            use backend_agal::sampler::{Filter, Mipmap, Wrap};
            Some(SamplerState {
                filter: Filter::Nearest,
                mipmap: Mipmap::None,
                wrap: Wrap::Repeat,
            })
        }
    }
    let tex = four_by_four();
    let bound = Bound(&tex);
    let inputs = FragmentInputs {
        constants: &[],
        textures: &bound,
    };
    let p = frag("tex ft0, v0, fs0 <2d,linear,clamp,ignoresampler>\nmov oc, ft0");
    let out = sim::run_fragment(&p, &[[1.3, 0.6, 0.0, 0.0]], &inputs).unwrap();
    assert_eq!(out.colors[0], [0.25, 0.5, 0.0, 1.0]);
}

#[test]
fn errors_instead_of_panics() {
    use backend_agal::sim::SimErrorKind as K;
    let p = frag("tex ft0, v0, fs3 <2d>\nmov oc, ft0");
    let e = sim::run_fragment(&p, &[], &no_textures()).unwrap_err();
    assert_eq!((e.token, e.kind), (1, K::NoTexture(3)));
    let p = frag("mov ft0, oc\nmov oc, ft0");
    assert_eq!(
        sim::run_fragment(&p, &[], &no_textures()).unwrap_err().kind,
        K::Unreadable(backend_agal::RegType::Output)
    );
    let p = frag("eif\nmov oc, v0");
    assert_eq!(
        sim::run_fragment(&p, &[], &no_textures()).unwrap_err().kind,
        K::Nesting
    );
    let v = asm::parse("mov op, vc[va0.x+0]", Stage::Vertex, Version::V1).unwrap();
    let e = sim::run_vertex(
        &v,
        &VertexInputs {
            attributes: &[[-3.0; 4]],
            constants: &[],
            instance_id: 0,
        },
    )
    .unwrap_err();
    assert_eq!(e.kind, K::BadRelativeIndex(-3));
    assert_eq!(
        sim::run_vertex(&p, &VertexInputs::default())
            .unwrap_err()
            .kind,
        K::WrongStage
    );
}
