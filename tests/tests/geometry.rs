//! PICA200 geometry programs from GLSL (glslang's SPIR-V, `tests/fixtures/geometry`), run as
//! the 3DS runs them: each vertex through the vertex program, the output registers its
//! output mask enables packed in register order into the geometry program's `v` registers
//! (what `shaderProgramSetGsh` sets up, with the reflection's stride), then the emitted
//! vertices assembled into triangles as the primitive assembler does (three slots; SETEMIT's
//! `prim` draws them, `inv` reverses the winding). The triangles are compared with the ones
//! GL's rules give for the GLSL, computed here in f64.

use backend_pica::shbin::{self, ShaderType};
use backend_pica::sim::{Simulator, Uniforms};
use spv2retro::{Compiled, Options, Source, compile};
use test_kit::all_close_to;
use tests::driven::{constants_with, register_number};
use tests::fixtures;
use tests::geometry::{self, Triangle, output_reg, spv, through_vertex_program, triangles};

type V4 = [f64; 4];

/// What a vertex of a triangle should have: (output register, values, lanes compared).
type Expected = Vec<(usize, V4, usize)>;

fn pica(name: &str) -> Compiled {
    geometry::pica(name, &Options::pica())
}

fn uniforms(c: &Compiled, values: &[(&str, &[f32])]) -> Uniforms {
    let regs = constants_with(c, values);
    let mut u = Uniforms::default();
    for (k, r) in u.float.iter_mut().enumerate() {
        *r = regs[k];
    }
    u
}

/// Column-major `m`, as the std140 block stores it.
fn columns(m: &[[f64; 4]; 4]) -> Vec<f32> {
    (0..4)
        .flat_map(|c| (0..4).map(move |r| m[r][c] as f32))
        .collect()
}

fn mul(m: &[[f64; 4]; 4], v: V4) -> V4 {
    std::array::from_fn(|r| (0..4).map(|c| m[r][c] * v[c]).sum())
}

/// GL's triangles of a strip: the i-th is (i, i+1, i+2), every odd one reversed.
fn strip<T: Copy>(vertices: &[T]) -> Vec<[T; 3]> {
    (0..vertices.len().saturating_sub(2))
        .map(|i| {
            if i % 2 == 0 {
                [vertices[i], vertices[i + 1], vertices[i + 2]]
            } else {
                [vertices[i + 1], vertices[i], vertices[i + 2]]
            }
        })
        .collect()
}

/// How far a drawn lane may be from the expected one ([`all_close_to`]).
const TOLERANCE: f64 = 1e-3;

/// Whether `got` is `want` (per vertex: register and expected values), allowing a rotation
/// (the same winding).
fn same_triangle(got: &Triangle, want: &[Expected; 3]) -> bool {
    (0..3).any(|rot| {
        (0..3).all(|k| {
            want[k].iter().all(|&(reg, value, lanes)| {
                all_close_to(&got[(k + rot) % 3][reg][..lanes], &value, TOLERANCE)
            })
        })
    })
}

fn check_triangles(got: &[Triangle], want: &[[Expected; 3]]) {
    assert_eq!(got.len(), want.len(), "triangles drawn");
    for (t, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            same_triangle(g, w),
            "triangle {t}: got {:?}, want {w:?}",
            g.iter().map(|v| [v[0], v[1]]).collect::<Vec<_>>()
        );
    }
}

fn check_geometry_dvle(gs: &Compiled, stride: u32) {
    let binary = shbin::read(&gs.bytes).expect("a .shbin libctru can parse");
    assert_eq!(binary.dvles[0].shader_type, ShaderType::Geometry);
    assert_eq!(binary.dvles[0].geometry.mode, 0, "point mode");
    let g = gs
        .reflection
        .geometry
        .as_ref()
        .expect("geometry reflection");
    assert_eq!(g.stride, stride);
    assert_eq!(g.mode, "point");
    assert_eq!(gs.reflection.stage, "geometry");
}

fn translate_scale() -> [[f64; 4]; 4] {
    [
        [2.0, 0.0, 0.0, 0.25],
        [0.0, 3.0, 0.0, -0.5],
        [0.0, 0.0, 1.0, 1.0],
        [0.0, 0.0, 0.0, 1.0],
    ]
}

fn rotate_translate() -> [[f64; 4]; 4] {
    [
        [0.0, -1.0, 0.0, 1.0],
        [1.0, 0.0, 0.0, 2.0],
        [0.0, 0.0, 1.0, -3.0],
        [0.0, 0.0, 0.0, 1.0],
    ]
}

#[test]
fn point_sprites_make_a_quad_per_point() {
    let (vs, gs) = (pica("sprite.vert"), pica("sprite.geom"));
    // gl_Position, vColor, vSize: three registers for one vertex.
    check_geometry_dvle(&gs, 3);
    let model_view = rotate_translate();
    let projection = translate_scale();
    let vs_u = uniforms(&vs, &[("modelView", &columns(&model_view))]);
    let gs_u = uniforms(&gs, &[("projection", &columns(&projection))]);
    for (pos, color, size) in [
        ([0.5f32, -1.0, 2.0], [1.0f32, 0.5, 0.25, 1.0], 0.5f32),
        ([-3.0, 0.25, -1.5], [0.0, 1.0, 0.0, 0.5], 2.0),
    ] {
        let gs_in = through_vertex_program(
            &vs,
            &[vec![
                ("inPosition", [pos[0], pos[1], pos[2], 0.0]),
                ("inColor", color),
                ("inSize", [size, 0.0, 0.0, 0.0]),
            ]],
            &vs_u,
        );
        let out = Simulator::new(&gs.bytes)
            .unwrap()
            .run(0, &gs_in, &gs_u)
            .unwrap();
        assert_eq!(out.vertices.len(), 4);
        // Independently: the view-space centre, four corners offset by ±size/2, projected.
        let p = mul(
            &model_view,
            [pos[0].into(), pos[1].into(), pos[2].into(), 1.0],
        );
        let corners: Vec<(V4, V4)> = [
            (-0.5, -0.5, 0.0, 0.0),
            (0.5, -0.5, 1.0, 0.0),
            (-0.5, 0.5, 0.0, 1.0),
            (0.5, 0.5, 1.0, 1.0),
        ]
        .iter()
        .map(|&(dx, dy, u, v)| {
            let s = f64::from(size);
            let q = [p[0] + dx * s, p[1] + dy * s, p[2], p[3]];
            (mul(&projection, q), [u, v, 0.0, 0.0])
        })
        .collect();
        let c = color.map(f64::from);
        let (rp, rc, ruv) = (
            output_reg(&gs, "gl_Position"),
            output_reg(&gs, "color"),
            output_reg(&gs, "uv"),
        );
        let want: Vec<[Expected; 3]> = strip(&corners)
            .into_iter()
            .map(|t| t.map(|(pos, uv)| vec![(rp, pos, 4), (rc, c, 4), (ruv, uv, 2)]))
            .collect();
        check_triangles(&triangles(&out), &want);
    }
}

#[test]
fn lines_are_widened_into_two_triangles() {
    let (vs, gs) = (pica("line.vert"), pica("line.geom"));
    check_geometry_dvle(&gs, 4);
    let mvp = translate_scale();
    let vs_u = uniforms(&vs, &[("mvp", &columns(&mvp))]);
    let half = 0.125f32;
    let gs_u = uniforms(&gs, &[("width", &[half, 0.0, 0.0, 0.0])]);
    let ends = [
        ([0.0f32, 0.0, 0.5, 1.0], [1.0f32, 0.0, 0.0, 1.0]),
        ([0.5, 0.25, -0.5, 2.0], [0.0, 0.0, 1.0, 1.0]),
    ];
    let gs_in = through_vertex_program(
        &vs,
        &ends
            .iter()
            .map(|(p, c)| vec![("inPosition", *p), ("inColor", *c)])
            .collect::<Vec<_>>(),
        &vs_u,
    );
    let out = Simulator::new(&gs.bytes)
        .unwrap()
        .run(0, &gs_in, &gs_u)
        .unwrap();
    let p: Vec<V4> = ends
        .iter()
        .map(|(q, _)| mul(&mvp, q.map(f64::from)))
        .collect();
    let (a, b) = (
        [p[0][0] / p[0][3], p[0][1] / p[0][3]],
        [p[1][0] / p[1][3], p[1][1] / p[1][3]],
    );
    let len = ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt();
    let n = [
        -(b[1] - a[1]) / len * f64::from(half),
        (b[0] - a[0]) / len * f64::from(half),
    ];
    let mut corners = Vec::new();
    for (k, q) in p.iter().enumerate() {
        let c = ends[k].1.map(f64::from);
        for s in [1.0, -1.0] {
            corners.push((
                [q[0] + s * n[0] * q[3], q[1] + s * n[1] * q[3], q[2], q[3]],
                c,
            ));
        }
    }
    let (rp, rc) = (output_reg(&gs, "gl_Position"), output_reg(&gs, "color"));
    let want: Vec<[Expected; 3]> = strip(&corners)
        .into_iter()
        .map(|t| t.map(|(pos, c)| vec![(rp, pos, 4), (rc, c, 4)]))
        .collect();
    check_triangles(&triangles(&out), &want);
}

#[test]
fn triangles_are_subdivided_onto_the_sphere() {
    let (vs, gs) = (pica("subdivide.vert"), pica("subdivide.geom"));
    check_geometry_dvle(&gs, 6);
    let projection = translate_scale();
    let gs_u = uniforms(&gs, &[("projection", &columns(&projection))]);
    let corners = [
        ([1.0f32, 0.0, 0.0, 1.0], [1.0f32, 0.0, 0.0, 1.0]),
        ([0.0, 2.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0]),
        ([0.0, 0.0, -0.5, 1.0], [0.0, 0.0, 1.0, 0.5]),
    ];
    let gs_in = through_vertex_program(
        &vs,
        &corners
            .iter()
            .map(|(p, c)| vec![("inPosition", *p), ("inColor", *c)])
            .collect::<Vec<_>>(),
        &Uniforms::default(),
    );
    let out = Simulator::new(&gs.bytes)
        .unwrap()
        .run(0, &gs_in, &gs_u)
        .unwrap();
    let p: Vec<V4> = corners.iter().map(|c| c.0.map(f64::from)).collect();
    let c: Vec<V4> = corners.iter().map(|c| c.1.map(f64::from)).collect();
    let mid = |a: V4, b: V4| -> V4 { std::array::from_fn(|i| (a[i] + b[i]) * 0.5) };
    let (m, mc): (Vec<V4>, Vec<V4>) = (0..3)
        .map(|i| (mid(p[i], p[(i + 1) % 3]), mid(c[i], c[(i + 1) % 3])))
        .unzip();
    let on_sphere = |q: V4| {
        let l = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt();
        mul(&projection, [q[0] / l, q[1] / l, q[2] / l, 1.0])
    };
    let (rp, rc) = (output_reg(&gs, "gl_Position"), output_reg(&gs, "color"));
    let v = |q: V4, col: V4| vec![(rp, on_sphere(q), 4), (rc, col, 4)];
    let want = vec![
        [v(p[0], c[0]), v(m[0], mc[0]), v(m[2], mc[2])],
        [v(m[0], mc[0]), v(p[1], c[1]), v(m[1], mc[1])],
        [v(m[2], mc[2]), v(m[1], mc[1]), v(p[2], c[2])],
        [v(m[0], mc[0]), v(m[1], mc[1]), v(m[2], mc[2])],
    ];
    check_triangles(&triangles(&out), &want);
}

/// devkitPro's geoshader example: the hand-written `.shbin` picasso made and the GLSL
/// rewrite, fed the same triangle, draw the same triangles (`tests::geometry::geoshader`).
/// The compiled program is never longer and never runs more steps than the hand-written one;
/// like it, it calls a procedure per triangle.
#[test]
fn the_geoshader_example_rewritten_in_glsl_draws_what_the_hand_written_one_draws() {
    let (gs, drawn, m) = geometry::geoshader(&Options::pica());
    let ((hand_words, hand_steps), (words, steps)) = (m.hand, m.compiled);
    println!(
        "geoshader.g.pica: hand-written {hand_words} words / {hand_steps} executed; compiled {words} words / {steps} executed"
    );
    assert!(
        words <= hand_words && steps <= hand_steps,
        "compiled {words} words / {steps} steps, hand-written {hand_words} / {hand_steps}\n{}",
        gs.listing
    );
    assert!(gs.listing.contains("call "), "{}", gs.listing);
    // Without procedures: longer, fewer steps, the same triangles.
    let (inline, inline_drawn, n) = geometry::geoshader(&Options::pica().procedures(false));
    assert!(!inline.listing.contains("call "), "{}", inline.listing);
    assert!(n.compiled.0 > words && n.compiled.1 < steps, "{n:?}");
    assert_eq!(inline_drawn, drawn);
    // Linked after its vertex program into one .shbin (as `spv2pica a.vert b.geom` does: the
    // listing assembled again), the procedure moves with the program and still draws the same.
    let (vs_bytes, gs_bytes) = (spv("geoshader.vert"), spv("geoshader.geom"));
    let linked = spv2retro::picasso::link(
        &[
            Source::spirv(&vs_bytes).named("geoshader.vert.spv"),
            Source::spirv(&gs_bytes).named("geoshader.geom.spv"),
        ],
        &Options::pica(),
        true,
    )
    .unwrap();
    let binary = shbin::read(&linked.bytes).expect("a .shbin libctru can parse");
    assert!(binary.dvles[1].entry_start > 0);
    let linked_vs = linked.shaders[0].compiled.as_ref().unwrap();
    let vertices = geometry::geoshader_vertices();
    let linked_in = through_vertex_program(linked_vs, &vertices, &Uniforms::default());
    let again = Simulator::new(&linked.bytes)
        .unwrap()
        .run(1, &linked_in, &geometry::geoshader_uniforms())
        .unwrap();
    assert_eq!(triangles(&again), drawn);
}

/// A vertex and a geometry program linked into one `.shbin`, from the library and the command
/// line alike: the geometry program reads the vertex program's registers where the link put
/// them, whatever locations the vertex program writes.
#[test]
fn a_vertex_and_a_geometry_program_link_into_one_shbin() {
    use spv2retro::picasso::link;
    let (vs_bytes, gs_bytes) = (spv("sprite.vert"), spv("sprite.geom"));
    let inputs = [
        Source::spirv(&vs_bytes).named("sprite.vert.spv"),
        Source::spirv(&gs_bytes).named("sprite.geom.spv"),
    ];
    let linked = link(&inputs, &Options::pica(), true).unwrap();
    assert_eq!(linked.shaders.len(), 2);
    let binary = shbin::read(&linked.bytes).expect("a .shbin libctru can parse");
    assert_eq!(binary.dvles[0].shader_type, ShaderType::Vertex);
    assert_eq!(binary.dvles[1].shader_type, ShaderType::Geometry);
    let vs = linked.shaders[0].compiled.as_ref().unwrap();
    let gs = linked.shaders[1].compiled.as_ref().unwrap();
    // The vertex program feeds a geometry program: its outputs pass whole (dummy).
    assert!(vs.warnings.0.is_empty(), "{:?}", vs.warnings);
    assert!(
        vs.reflection
            .outputs
            .iter()
            .skip(1)
            .all(|o| o.semantic.as_deref() == Some("dummy"))
    );
    // Run both DVLEs of the linked file.
    let sim = Simulator::new(&linked.bytes).unwrap();
    let model_view = rotate_translate();
    let projection = translate_scale();
    let vs_u = uniforms(vs, &[("modelView", &columns(&model_view))]);
    let gs_u = uniforms(gs, &[("projection", &columns(&projection))]);
    let mut v = [[0.0f32; 4]; 16];
    for (name, value) in [
        ("inPosition", [1.0f32, 2.0, 3.0, 0.0]),
        ("inColor", [0.25, 0.5, 0.75, 1.0]),
        ("inSize", [4.0, 0.0, 0.0, 0.0]),
    ] {
        let input = vs
            .reflection
            .inputs
            .iter()
            .find(|i| i.name == name)
            .unwrap();
        v[register_number(&input.register)] = value;
    }
    let out = sim.run(0, &v, &vs_u).unwrap();
    let enabled: Vec<usize> = (0..16)
        .filter(|r| binary.dvles[0].output_mask & (1 << r) != 0)
        .collect();
    let stride = gs.reflection.geometry.as_ref().unwrap().stride as usize;
    assert_eq!(stride, enabled.len());
    let mut gs_in = [[0.0f32; 4]; 16];
    for (j, &r) in enabled.iter().enumerate() {
        gs_in[j] = out.outputs[r];
    }
    let out = sim.run(1, &gs_in, &gs_u).unwrap();
    let tris = triangles(&out);
    assert_eq!(tris.len(), 2);
    // The first corner: (-0.5, -0.5) · size 4 from the view-space centre.
    let p = mul(&model_view, [1.0, 2.0, 3.0, 1.0]);
    let want = mul(&projection, [p[0] - 2.0, p[1] - 2.0, p[2], p[3]]);
    assert!(
        all_close_to(&tris[0][0][output_reg(gs, "gl_Position")], &want, TOLERANCE),
        "{:?} vs {want:?}",
        tris[0][0][0]
    );
    assert!(all_close_to(
        &tris[0][0][output_reg(gs, "color")],
        &[0.25, 0.5, 0.75, 1.0],
        TOLERANCE
    ));
}

#[test]
fn what_the_pica200_cannot_draw_is_refused_by_rule() {
    for (name, rule, words) in [
        ("points_out.geom", "pica.geometry", "draws only triangles"),
        (
            "uneven.geom",
            "pica.geometry",
            "different numbers of vertices",
        ),
        (
            "invocations.geom",
            "lower.interface",
            "2 invocations per primitive",
        ),
    ] {
        let e = compile(Source::spirv(&spv(name)).named(name), &Options::pica()).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains(rule) && text.contains(words),
            "{name}: {text}"
        );
    }
    // Linked after a vertex program that does not write what it reads.
    let (v, g) = (spv("line.vert"), spv("wide.geom"));
    let inputs = [
        Source::spirv(&v).named("line.vert.spv"),
        Source::spirv(&g).named("wide.geom.spv"),
    ];
    let text = spv2retro::picasso::link(&inputs, &Options::pica(), true)
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("reads `a1` (location 1), which the vertex program before it does not write"),
        "{text}"
    );
    // Fifteen varyings over a triangle with its neighbours: 6 × 16 registers, which with
    // the uniform after them exceed the 96 float registers even in fixed mode.
    let e = compile(Source::spirv(&spv("too_wide.geom")), &Options::pica()).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("pica.limit") && text.contains("96 in all"),
        "{text}"
    );
}

/// More registers than point mode's sixteen (3 vertices of 8): fixed mode, the vertices in
/// `c0`-`c23` (where the geometry unit writes them), the program's uniform after them.
#[test]
fn a_primitive_of_more_than_sixteen_registers_arrives_in_fixed_mode() {
    let gs = pica("wide.geom");
    let g = gs.reflection.geometry.as_ref().unwrap();
    assert_eq!((g.mode.as_str(), g.stride), ("fixed", 8));
    let binary = shbin::read(&gs.bytes).unwrap();
    let params = binary.dvles[0].geometry;
    assert_eq!(
        (params.mode, params.fixed_start, params.fixed_num),
        (2, 0, 3)
    );
    assert_eq!(gs.reflection.uniforms[0].register, "c24");
    let mut u = uniforms(&gs, &[("scale", &[0.5, 0.0, 0.0, 0.0])]);
    let value = |i: usize, k: usize| [i as f32 + 0.25 * k as f32, k as f32, 1.0 - i as f32, 2.0];
    for i in 0..3 {
        for k in 0..8 {
            u.float[i * 8 + k] = value(i, k);
        }
    }
    let out = Simulator::new(&gs.bytes)
        .unwrap()
        .run(0, &[[0.0; 4]; 16], &u)
        .unwrap();
    let tris = triangles(&out);
    assert_eq!(tris.len(), 1);
    let (rp, rc) = (output_reg(&gs, "gl_Position"), output_reg(&gs, "c"));
    for (i, vertex) in tris[0].iter().enumerate() {
        let want_pos = value(i, 0).map(f64::from);
        let want_c: V4 =
            std::array::from_fn(|l| 0.5 * (1..8).map(|k| f64::from(value(i, k)[l])).sum::<f64>());
        assert!(
            all_close_to(&vertex[rp], &want_pos, TOLERANCE),
            "vertex {i}"
        );
        assert!(
            all_close_to(&vertex[rc], &want_c, TOLERANCE),
            "vertex {i}: {:?} vs {want_c:?}",
            vertex[rc]
        );
    }
}

/// devkitPro's particles example: the hand-written fixed-mode geometry program and its GLSL
/// rewrite emit the same particles in three settings (`tests::geometry::particles`); the
/// compiled program is never longer and never runs more steps than the hand-written one.
#[test]
fn the_particles_example_rewritten_in_glsl_emits_what_the_hand_written_one_emits() {
    for m in geometry::particles(&Options::pica()) {
        let ((hand_words, hand_steps), (words, steps)) = (m.hand, m.compiled);
        println!(
            "particle.g.pica ({}): hand-written {hand_words} words / {hand_steps} executed; compiled {words} words / {steps} executed",
            m.setting
        );
        assert!(
            words <= hand_words && steps <= hand_steps,
            "{}: compiled {words} words / {steps} steps, hand-written {hand_words} / {hand_steps}",
            m.setting
        );
    }
}

/// A loop that emits 34 vertices (17 trips, more than the 8 a vertex program's loops unroll
/// to) unrolls, since each SETEMIT needs its slot as a constant: a ring of 32 triangles.
#[test]
fn a_loop_that_emits_unrolls_to_max_vertices() {
    let gs = pica("ring.geom");
    let (inner, outer) = (0.25f32, 0.5f32);
    let u = uniforms(&gs, &[("radii", &[inner, outer, 0.0, 0.0])]);
    let mut v = [[0.0f32; 4]; 16];
    v[0] = [0.25, -0.5, 0.1, 1.0];
    v[1] = [1.0, 0.5, 0.25, 1.0];
    let out = Simulator::new(&gs.bytes).unwrap().run(0, &v, &u).unwrap();
    assert_eq!(out.vertices.len(), 34);
    let (rp, rc) = (output_reg(&gs, "gl_Position"), output_reg(&gs, "color"));
    let mut ring = Vec::new();
    for i in 0..=16 {
        // The shader's 6.2831853 is TAU to well within the comparison's tolerance.
        let a = f64::from(i) * (std::f64::consts::TAU / 16.0);
        for (r, shade) in [(outer, 1.0), (inner, 0.5)] {
            let r = f64::from(r);
            ring.push((
                [0.25 + a.cos() * r, -0.5 + a.sin() * r, 0.1, 1.0],
                [shade, 0.5 * shade, 0.25 * shade, shade],
            ));
        }
    }
    let want: Vec<[Expected; 3]> = strip(&ring)
        .into_iter()
        .map(|t| t.map(|(pos, c)| vec![(rp, pos, 4), (rc, c, 4)]))
        .collect();
    check_triangles(&triangles(&out), &want);
}

/// Every geometry program's listing (`--emit asm`) assembles back, through the assembler that
/// makes picasso 2.7.1's bytes for the public sources (fixed-mode `particles` among them), to
/// the program the compiler wrote, word for word and table for table (names aside, where
/// picasso cannot spell them): the geometry DVLE's header (type, mode, vertex array) is
/// written as picasso writes it, not only as this project reads it.
#[test]
fn geometry_listings_assemble_to_the_compilers_bytes() {
    for name in [
        "sprite",
        "line",
        "subdivide",
        "geoshader",
        "particles",
        "wide",
        "ring",
    ] {
        let c = pica(&format!("{name}.geom"));
        let linked = spv2retro::picasso::link(
            &[Source::picasso(&c.listing).named("g.g.pica")],
            &Options::pica(),
            true,
        )
        .unwrap_or_else(|e| panic!("{name}: {e}\n{}", c.listing));
        let (a, b) = (
            shbin::read(&linked.bytes).unwrap(),
            shbin::read(&c.bytes).unwrap(),
        );
        assert_eq!(a.code, b.code, "{name}");
        assert_eq!(a.descriptors, b.descriptors, "{name}");
        let (x, y) = (&a.dvles[0], &b.dvles[0]);
        assert_eq!(x.shader_type, y.shader_type, "{name}");
        assert_eq!(x.geometry, y.geometry, "{name}");
        assert_eq!(x.merge_outmaps, y.merge_outmaps, "{name}");
        assert_eq!(x.constants, y.constants, "{name}");
        assert_eq!(x.outputs, y.outputs, "{name}");
        assert_eq!(
            (x.input_mask, x.output_mask),
            (y.input_mask, y.output_mask),
            "{name}"
        );
        // The uniform table's registers; its names only as picasso can spell them (the
        // listing warns: `gl_in[0].gl_Position` is `gl_in_0_$gl_Position` there).
        let ranges = |d: &shbin::Dvle| d.uniforms.iter().map(|u| u.range()).collect::<Vec<_>>();
        assert_eq!(ranges(x), ranges(y), "{name}");
    }
}

/// GLSL geometry text read directly (through glslang) compiles to the bytes the SPIR-V that
/// Debian's `glslangValidator` made of the same text compiles to (`regen.sh`), or is refused
/// by the same rule, for every fixture.
#[test]
fn glsl_geometry_text_compiles_as_glslangs_spirv_of_it() {
    let dir = fixtures("geometry");
    let mut compared = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("geom") {
            continue;
        }
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let from_text = compile(
            Source::glsl(&text, spv2retro::Stage::Geometry).named(&name),
            &Options::pica(),
        );
        let from_spirv = compile(Source::spirv(&spv(&name)).named(&name), &Options::pica());
        let rule = |e: &spv2retro::Error| {
            e.to_string()
                .split("error[")
                .nth(1)
                .and_then(|r| r.split(']').next())
                .unwrap_or("?")
                .to_string()
        };
        match (&from_text, &from_spirv) {
            (Ok(a), Ok(b)) => assert!(a.bytes == b.bytes, "{name}: the programs differ"),
            (Err(a), Err(b)) => assert_eq!(rule(a), rule(b), "{name}: {a}\n{b}"),
            _ => panic!(
                "{name}: from the text {:?}, from the SPIR-V {:?}",
                from_text.as_ref().map(|_| ()).map_err(ToString::to_string),
                from_spirv.as_ref().map(|_| ()).map_err(ToString::to_string)
            ),
        }
        compared += 1;
    }
    assert!(compared >= 11, "{compared} fixtures");
}

/// A classic GLSL 1.50 pair (no locations, loose uniforms), linked as picasso links: the
/// geometry shader's input takes the vertex varying of its name, its uniforms registers in
/// declaration order, and the quad it emits is where GL puts it. A typo is refused at its
/// line by glslang's rule.
#[test]
fn a_classic_glsl_geometry_shader_links_after_its_vertex_shader() {
    use spv2retro::picasso::link;
    let vert = "#version 150\nin vec4 position;\nin vec4 color;\nout vec4 vTint;\nout vec4 vColor;\n\
                void main() { gl_Position = position; vTint = vec4(1.0); vColor = color; }\n";
    let geom = "#version 150\nlayout(points) in;\nlayout(triangle_strip, max_vertices = 4) out;\n\
                in vec4 vColor[];\nout vec4 gColor;\nuniform mat4 proj;\nuniform vec2 size;\n\
                void main() {\n    for (int i = 0; i < 4; i++) {\n\
                        vec2 c = vec2(float(i - (i / 2) * 2), float(i / 2)) * 2.0 - 1.0;\n\
                        gl_Position = proj * (gl_in[0].gl_Position + vec4(c * size, 0.0, 0.0));\n\
                        gColor = vColor[0];\n        EmitVertex();\n    }\n    EndPrimitive();\n}\n";
    let inputs = [
        Source::glsl(vert, spv2retro::Stage::Vertex).named("sprite.vert"),
        Source::glsl(geom, spv2retro::Stage::Geometry).named("sprite.geom"),
    ];
    let linked = link(&inputs, &Options::pica(), true).expect("the pair links");
    let vs = linked.shaders[0].compiled.as_ref().unwrap();
    let gs = linked.shaders[1].compiled.as_ref().unwrap();
    let register = |c: &Compiled, name: &str| {
        c.reflection
            .uniforms
            .iter()
            .find(|u| u.name == name)
            .map(|u| u.register.clone())
    };
    assert_eq!(register(gs, "proj").as_deref(), Some("c0"));
    assert_eq!(register(gs, "size").as_deref(), Some("c4"));
    let sim = Simulator::new(&linked.bytes).unwrap();
    let binary = shbin::read(&linked.bytes).unwrap();
    let mut v = [[0.0f32; 4]; 16];
    for (name, value) in [
        ("position", [1.0f32, 2.0, 3.0, 1.0]),
        ("color", [0.25, 0.5, 0.75, 1.0]),
    ] {
        let input = vs
            .reflection
            .inputs
            .iter()
            .find(|i| i.name == name)
            .unwrap();
        v[register_number(&input.register)] = value;
    }
    let out = sim.run(0, &v, &Uniforms::default()).unwrap();
    let enabled: Vec<usize> = (0..16)
        .filter(|r| binary.dvles[0].output_mask & (1 << r) != 0)
        .collect();
    let mut gs_in = [[0.0f32; 4]; 16];
    for (j, &r) in enabled.iter().enumerate() {
        gs_in[j] = out.outputs[r];
    }
    let projection = translate_scale();
    let gs_u = uniforms(
        gs,
        &[("proj", &columns(&projection)), ("size", &[0.5, 0.25])],
    );
    let out = sim.run(1, &gs_in, &gs_u).unwrap();
    assert_eq!(out.vertices.len(), 4);
    for (k, vertex) in out.vertices.iter().enumerate() {
        let c = [(k % 2) as f64 * 2.0 - 1.0, (k / 2) as f64 * 2.0 - 1.0];
        let want = mul(&projection, [1.0 + c[0] * 0.5, 2.0 + c[1] * 0.25, 3.0, 1.0]);
        let got = vertex.outputs[output_reg(gs, "gl_Position")];
        assert!(
            all_close_to(&got, &want, TOLERANCE),
            "corner {k}: {got:?} vs {want:?}"
        );
        // vColor, not vTint: the input took the vertex varying of its name.
        let color = vertex.outputs[output_reg(gs, "gColor")];
        assert!(
            all_close_to(&color, &[0.25, 0.5, 0.75, 1.0], TOLERANCE),
            "{color:?}"
        );
    }
    let bad = geom.replace("gColor = vColor[0];", "gColor = vColour[0];");
    let e = link(
        &[
            Source::glsl(vert, spv2retro::Stage::Vertex).named("sprite.vert"),
            Source::glsl(&bad, spv2retro::Stage::Geometry).named("sprite.geom"),
        ],
        &Options::pica(),
        true,
    )
    .expect_err("a typo");
    let shown = e.to_string();
    assert!(shown.contains("error[glsl.glslang]"), "{shown}");
    assert!(shown.contains("sprite.geom:12"), "{shown}");
}
