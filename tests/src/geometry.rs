//! The geometry programs a hand-writer wrote and their GLSL rewrites (devkitPro's
//! `geoshader` and `particles` examples, `tests/fixtures/geometry`), run side by side in the
//! PICA200 simulator: [`geoshader`] and [`particles`] check that both draw the same and
//! measure both (words, executed steps). `tests/tests/geometry.rs` holds the compiled programs
//! to the hand-written counts; the size report prints them.

use backend_pica::shbin;
use backend_pica::sim::{Outcome, Simulator, Uniforms};
use spv2retro::{Compiled, Options, Source, compile};

use crate::driven::register_number;
use crate::fixtures;

/// glslang's SPIR-V of `tests/fixtures/geometry/NAME`.
pub fn spv(name: &str) -> Vec<u8> {
    std::fs::read(fixtures("geometry").join(format!("{name}.spv"))).unwrap()
}

/// `tests/fixtures/geometry/NAME` compiled for the PICA200 with `options`.
pub fn pica(name: &str, options: &Options) -> Compiled {
    compile(Source::spirv(&spv(name)).named(name), options)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Runs the vertex program on each vertex (inputs by name) and packs what its output mask
/// enables, vertex after vertex, into the geometry program's input registers.
pub fn through_vertex_program(
    vs: &Compiled,
    vertices: &[Vec<(&str, [f32; 4])>],
    vs_uniforms: &Uniforms,
) -> [[f32; 4]; 16] {
    let sim = Simulator::new(&vs.bytes).unwrap();
    let dvle = &shbin::read(&vs.bytes).unwrap().dvles[0];
    let enabled: Vec<usize> = (0..16)
        .filter(|r| dvle.output_mask & (1 << r) != 0)
        .collect();
    let mut gs_in = [[0.0f32; 4]; 16];
    for (k, vertex) in vertices.iter().enumerate() {
        let mut v = [[0.0f32; 4]; 16];
        for (name, value) in vertex {
            let input = vs
                .reflection
                .inputs
                .iter()
                .find(|i| i.name == *name)
                .unwrap();
            v[register_number(&input.register)] = *value;
        }
        let out = sim.run(0, &v, vs_uniforms).unwrap();
        assert!(out.missing.is_empty(), "{:?}", out.missing);
        for (j, &r) in enabled.iter().enumerate() {
            gs_in[k * enabled.len() + j] = out.outputs[r];
        }
    }
    gs_in
}

/// A drawn triangle: each vertex's output registers, in the winding the GPU draws.
pub type Triangle = [[[f32; 4]; 16]; 3];

/// The primitive assembler: three slots, a triangle at each `prim`, reversed by `inv`.
pub fn triangles(out: &Outcome) -> Vec<Triangle> {
    let mut slots = [[[0.0f32; 4]; 16]; 3];
    let mut tris = Vec::new();
    for v in &out.vertices {
        slots[usize::from(v.vertex)] = v.outputs;
        if v.primitive {
            tris.push(if v.winding {
                [slots[0], slots[2], slots[1]]
            } else {
                slots
            });
        }
    }
    tris
}

/// The register of output `name`.
pub fn output_reg(c: &Compiled, name: &str) -> usize {
    let o = c.reflection.outputs.iter().find(|o| o.name == name);
    register_number(&o.unwrap_or_else(|| panic!("no output {name}")).register)
}

/// A hand-written program and its rewrite, run on the same values: (words, executed
/// steps) of each. The words of a hand-written geometry program are everything after its
/// vertex program's (its main and the procedures it calls).
#[derive(Clone, Debug)]
pub struct Measured {
    /// The values it ran on.
    pub setting: String,
    /// The hand-written program's.
    pub hand: (u32, u64),
    /// The compiled program's.
    pub compiled: (u32, u64),
}

/// The triangle `geoshader` is fed: each vertex's inputs by name.
pub fn geoshader_vertices() -> Vec<Vec<(&'static str, [f32; 4])>> {
    let positions = [
        [200.0f32, 200.0, 0.5],
        [100.0, 40.0, 0.5],
        [300.0, 40.0, 0.5],
    ];
    let colours = [
        [1.0f32, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 0.5],
    ];
    (0..3)
        .map(|k| {
            let p = positions[k];
            vec![
                ("inPosition", [p[0], p[1], p[2], 0.0]),
                ("inColor", colours[k]),
            ]
        })
        .collect()
}

/// `geoshader`'s geometry uniforms: the rows of a projection in c0-c3, for both programs
/// (the rewrite declares it row_major).
pub fn geoshader_uniforms() -> Uniforms {
    let rows = [
        [2.0f32, 0.0, 0.0, 0.5],
        [0.0, 3.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 1.0],
        [0.0, 0.0, -1.0, 0.0],
    ];
    let mut u = Uniforms::default();
    u.float[..4].copy_from_slice(&rows);
    u
}

/// devkitPro's `geoshader`: the hand-written `.shbin` picasso made and the GLSL rewrite
/// (compiled with `options`), fed the same triangle, draw the same three triangles (this
/// panics if not). The rewrite's geometry program, what it drew, and both measured.
pub fn geoshader(options: &Options) -> (Compiled, Vec<Triangle>, Measured) {
    let set =
        fixtures("thirdparty/picasso/devkitPro+3ds-examples/graphics-gpu-geoshader-source-program");
    let hand = std::fs::read(set.join("picasso.shbin")).unwrap();
    let (vs, gs) = (
        pica("geoshader.vert", options),
        pica("geoshader.geom", options),
    );
    let u = geoshader_uniforms();
    assert_eq!(gs.reflection.uniforms[0].register, "c0");
    let vertices = geoshader_vertices();
    let ours_in = through_vertex_program(&vs, &vertices, &Uniforms::default());
    let ours = Simulator::new(&gs.bytes)
        .unwrap()
        .run(0, &ours_in, &u)
        .unwrap();
    // The hand-written pair: inputs v0 (position) and v1 (colour), stride 6.
    let hand_sim = Simulator::new(&hand).unwrap();
    let mut hand_in = [[0.0f32; 4]; 16];
    for (k, vertex) in vertices.iter().enumerate() {
        let mut v = [[0.0f32; 4]; 16];
        v[0] = vertex[0].1;
        v[1] = vertex[1].1;
        let out = hand_sim.run(0, &v, &Uniforms::default()).unwrap();
        hand_in[2 * k] = out.outputs[0];
        hand_in[2 * k + 1] = out.outputs[1];
    }
    let theirs = hand_sim.run(1, &hand_in, &u).unwrap();
    let (a, b) = (triangles(&ours), triangles(&theirs));
    assert_eq!(a.len(), 3);
    assert_eq!(b.len(), 3);
    let (rp, rc) = (output_reg(&gs, "gl_Position"), output_reg(&gs, "color"));
    for (t, (x, y)) in a.iter().zip(&b).enumerate() {
        for k in 0..3 {
            assert_eq!(x[k][rp], y[k][0], "triangle {t} vertex {k} position");
            assert_eq!(x[k][rc], y[k][1], "triangle {t} vertex {k} colour");
        }
    }
    let hand_binary = shbin::read(&hand).unwrap();
    let measured = Measured {
        setting: "one triangle into three".into(),
        hand: (
            hand_binary.code.len() as u32 - hand_binary.dvles[0].entry_end,
            theirs.steps,
        ),
        compiled: (gs.reflection.stats.instructions as u32, ours.steps),
    };
    (gs, a, measured)
}

/// devkitPro's `particles`: the hand-written fixed-mode geometry program (picasso's `.shbin`)
/// and its GLSL rewrite (compiled with `options`), fed the same four control points (in
/// c0-c23, where the geometry unit writes them) and uniforms (each by its name in its own
/// program), emit the same particles (this panics if not), in three settings, each measured.
pub fn particles(options: &Options) -> Vec<Measured> {
    let set = fixtures(
        "thirdparty/picasso/devkitPro+3ds-examples/graphics-gpu-particles-source-particle",
    );
    let hand = std::fs::read(set.join("picasso.shbin")).unwrap();
    let hand_binary = shbin::read(&hand).unwrap();
    let hand_gsh = &hand_binary.dvles[1];
    assert_eq!(
        (hand_gsh.geometry.mode, hand_gsh.geometry.fixed_num),
        (2, 4)
    );
    let gs = pica("particles.geom", options);
    let mut measured = Vec::new();
    let g = gs.reflection.geometry.as_ref().unwrap();
    assert_eq!((g.mode.as_str(), g.stride), ("fixed", 6));
    // The control points: a position, an attribute (size xy, alpha w) and a spread matrix.
    let mut array = [[0.0f32; 4]; 24];
    for i in 0..4 {
        let f = i as f32;
        array[i * 6] = [f * 0.5 - 0.75, 0.25 * f, -2.0 - f, 1.0];
        array[i * 6 + 1] = [0.05 + 0.01 * f, 0.06, 0.0, 1.0 - 0.2 * f];
        for k in 0..4 {
            let mut row = [0.0f32; 4];
            row[k.min(2)] = 0.1 + 0.05 * f;
            array[i * 6 + 2 + k] = row;
        }
    }
    let mut floats = [
        ("param", vec![[12.0f32, 0.37, 1.0, 1.0]]),
        ("randParam", vec![[17.0, 37.0, 65535.0, 1.0 / 65535.0]]),
        ("randSeed", vec![[45.0, 47.564, 46.15, 45.9875]]),
        ("uvCoords", vec![[3.0, 1.0, 3.0, 3.0], [1.0, 1.0, 1.0, 3.0]]),
    ];
    // The last: late enough that some particles are past the path's end and, not respawning,
    // are skipped.
    for (multiply_w, rand_sphere, no_respawn, time) in [
        (true, true, false, 0.37f32),
        (false, false, true, 0.37),
        (true, false, true, 0.9),
    ] {
        floats[0].1[0][1] = time;
        let bools = [
            ("multiplyW", multiply_w),
            ("randSphere", rand_sphere),
            ("noRespawn", no_respawn),
        ];
        // Each program's own registers, by name (the hand-written from its uniform table).
        let mut theirs = Uniforms::default();
        let mut ours = Uniforms::default();
        theirs.float[..24].copy_from_slice(&array);
        ours.float[..24].copy_from_slice(&array);
        for (name, values) in &floats {
            let u = hand_gsh.uniforms.iter().find(|u| u.name == *name).unwrap();
            let (_, first, _) = u.range().unwrap();
            for (k, v) in values.iter().enumerate() {
                theirs.float[usize::from(first) + k] = *v;
            }
            let r = gs
                .reflection
                .uniforms
                .iter()
                .find(|u| u.name == *name)
                .unwrap();
            for (k, v) in values.iter().enumerate() {
                ours.float[register_number(&r.register) + k] = *v;
            }
        }
        for (name, value) in bools {
            let u = hand_gsh.uniforms.iter().find(|u| u.name == name).unwrap();
            theirs.bool[usize::from(u.range().unwrap().1)] = value;
            let r = gs
                .reflection
                .uniforms
                .iter()
                .find(|u| u.name == name)
                .unwrap();
            ours.bool[register_number(&r.register)] = value;
        }
        let a = Simulator::new(&hand)
            .unwrap()
            .run(1, &[[0.0; 4]; 16], &theirs)
            .unwrap();
        let b = Simulator::new(&gs.bytes)
            .unwrap()
            .run(0, &[[0.0; 4]; 16], &ours)
            .unwrap();
        assert!(!a.vertices.is_empty());
        assert_eq!(a.vertices.len(), b.vertices.len(), "vertices emitted");
        let (rp, rc, ruv) = (
            output_reg(&gs, "gl_Position"),
            output_reg(&gs, "color"),
            output_reg(&gs, "uv"),
        );
        for (k, (x, y)) in a.vertices.iter().zip(&b.vertices).enumerate() {
            assert_eq!(
                (x.vertex, x.primitive, x.winding),
                (y.vertex, y.primitive, y.winding),
                "vertex {k}"
            );
            let near = |p: [f32; 4], q: [f32; 4], lanes: usize| {
                (0..lanes).all(|l| (p[l] - q[l]).abs() <= 1e-3 * p[l].abs().max(1.0))
            };
            // The hand-written outputs: oPosition o0, oColor o1, oTexCoord o2.
            assert!(
                near(x.outputs[0], y.outputs[rp], 4),
                "vertex {k}: {:?} vs {:?}",
                x.outputs[0],
                y.outputs[rp]
            );
            assert!(near(x.outputs[1], y.outputs[rc], 4), "vertex {k} colour");
            assert!(near(x.outputs[2], y.outputs[ruv], 2), "vertex {k} uv");
        }
        measured.push(Measured {
            setting: format!(
                "multiplyW {multiply_w}, randSphere {rand_sphere}, noRespawn {no_respawn}, time {time}: {} vertices",
                a.vertices.len()
            ),
            hand: (
                hand_binary.code.len() as u32 - hand_binary.dvles[0].entry_end,
                a.steps,
            ),
            compiled: (gs.reflection.stats.instructions as u32, b.steps),
        });
    }
    measured
}
