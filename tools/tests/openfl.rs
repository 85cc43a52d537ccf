//! The compiler's AGAL programs in a real Stage3D: OpenFL's (the `openfl` npm package, 8.9.6,
//! which converts AGAL to GLSL and draws with WebGL) in headless Chromium, compared pixel by
//! pixel with what `spv2retro preview` draws for the same pair in the AGAL simulator (same
//! mesh, textures, uniforms and literal constants, 64×64).
//!
//! Each case is a GLSL vertex and fragment shader compiled with [`spv2retro::compile_pair`]
//! for every AGAL 1 profile (the only version OpenFL reads) and both runtimes (`flash`, the
//! default, and `openfl`); identical byte pairs are drawn once. tests/browser/openfl/ has the
//! page; tests/browser/README.md says how to run it by hand. Skipped, with a message, where
//! Chromium, node or tests/browser/node_modules is missing (`.ci/install-browser` installs
//! them).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use preview::mesh::{self, Mesh, Vertex};
use preview::{Program, Scene, Values};
use spv2retro::{Compiled, Options, Profile, Runtime, Source, Stage, compile_pair};
use test_kit::scratch;

const SIZE: u32 = 64;
/// The preview's background (preview/src/render.rs), the clear colour in OpenFL.
const BACKGROUND: [f32; 3] = [0.13, 0.14, 0.16];
/// The share of compared pixels (those not within a pixel of an edge) that must be within
/// the case's [`Tolerance::close`].
const CLOSE_SHARE: f64 = 0.99;

/// How close OpenFL's pixels must be to the preview's, per channel, in 1/255.
#[derive(Clone, Copy, Debug)]
struct Tolerance {
    /// What counts as the same colour (at 99% of the compared pixels).
    close: u8,
    /// The largest difference at any compared pixel.
    max: u8,
}

/// Colours computed from vertex values and constants: float rounding and the framebuffer's
/// rounding to bytes.
const EXACT: Tolerance = Tolerance { close: 2, max: 8 };
/// A texture magnified with bilinear filtering across a step of 204 levels (white and dark
/// grey): GPUs weigh the four texels with a few bits of fixed-point sub-texel precision
/// (SwiftShader here is off by up to 7 levels at the squares' borders), the simulator in
/// floats.
const FILTERED: Tolerance = Tolerance { close: 8, max: 12 };

/// A square RGBA8 texture.
#[derive(Clone)]
struct Texture {
    size: u32,
    rgba: Vec<u8>,
}

impl Texture {
    fn from_fn(size: u32, f: impl Fn(u32, u32) -> [u8; 4]) -> Texture {
        let rgba = (0..size)
            .flat_map(|y| (0..size).map(move |x| (x, y)))
            .flat_map(|(x, y)| f(x, y))
            .collect();
        Texture { size, rgba }
    }

    /// White and dark grey squares of `square`² texels (the preview's checkerboard, in
    /// bytes, is 64 texels with squares of 8).
    fn checkerboard(size: u32, square: u32) -> Texture {
        Texture::from_fn(size, |x, y| {
            if (x / square + y / square).is_multiple_of(2) {
                [255, 255, 255, 255]
            } else {
                [51, 51, 64, 255]
            }
        })
    }

    /// 64×64, red along u, green along v.
    fn gradient() -> Texture {
        Texture::from_fn(64, |x, y| [(x * 4 + 2) as u8, (y * 4 + 2) as u8, 128, 255])
    }

    fn image(&self) -> backend_agal::sim::Image {
        let texels = self
            .rgba
            .chunks(4)
            .map(|c| std::array::from_fn(|l| f32::from(c[l]) / 255.0))
            .collect();
        backend_agal::sim::Image::new_2d(self.size, self.size, texels).expect("sizes match")
    }
}

/// What OpenFL 8.9.6 does with the default (`flash`) runtime's programs.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Flash {
    /// Draws them.
    Draws,
    /// Refuses them with a message containing this.
    Refuses(&'static str),
    /// Draws the first frame right, and the second (the case's `second` uniforms set with
    /// the program still set) with registers left from the first.
    Stale,
}

struct Case {
    name: &'static str,
    vertex: &'static str,
    fragment: &'static str,
    mesh: Mesh,
    uniforms: Vec<(&'static str, Vec<f32>)>,
    textures: Vec<(u32, Texture)>,
    flash: Flash,
    /// Profiles to compile for (default: the AGAL 1 ones).
    profiles: &'static [Profile],
    tolerance: Tolerance,
    /// Uniforms set again for a second frame, drawn with the program still set: the picture
    /// compared is that frame's.
    second: Option<Vec<(&'static str, Vec<f32>)>>,
}

impl Case {
    /// The uniforms of the frame compared.
    fn drawn_uniforms(&self) -> &[(&'static str, Vec<f32>)] {
        self.second.as_deref().unwrap_or(&self.uniforms)
    }
}

const AGAL1: &[Profile] = &[
    Profile::BaselineConstrained,
    Profile::Baseline,
    Profile::BaselineExtended,
];

// ----------------------------------------------------------------------------------------
// The shaders.

const TEX_VERT: &str = "#version 450
layout(location = 0) in vec4 position;
layout(location = 1) in vec2 uv;
layout(location = 0) out vec2 vUv;
void main() { gl_Position = position; vUv = uv; }
";

const TEX_FRAG: &str = "#version 450
layout(location = 0) in vec2 vUv;
layout(location = 0) out vec4 color;
layout(binding = 0) uniform sampler2D tex;
void main() { color = texture(tex, vUv); }
";

const COLOR_VERT: &str = "#version 450
layout(location = 0) in vec4 position;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 vColor;
void main() { gl_Position = position; vColor = color; }
";

const COLOR_FRAG: &str = "#version 450
layout(location = 0) in vec4 vColor;
layout(location = 0) out vec4 color;
void main() { color = vColor; }
";

/// `mvp * position` with a row-major matrix: one `m44`.
const M44_VERT: &str = "#version 450
layout(location = 0) in vec4 position;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 vColor;
layout(std140, binding = 0) uniform U { layout(row_major) mat4 mvp; };
void main() { gl_Position = mvp * position; vColor = color; }
";

/// The same with GLSL's default column-major matrix: `mul`s and `add`s of the columns.
const MVP_VERT: &str = "#version 450
layout(location = 0) in vec4 position;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 vColor;
layout(std140, binding = 0) uniform U { mat4 mvp; };
void main() { gl_Position = mvp * position; vColor = color; }
";

const LIGHT_VERT: &str = "#version 450
layout(location = 0) in vec4 position;
layout(location = 1) in vec3 normal;
layout(location = 0) out vec3 vNormal;
void main() { gl_Position = position; vNormal = normal; }
";

/// `normalize`, `dot`, `max`, `pow`: Blinn-Phong.
const LIGHT_FRAG: &str = "#version 450
layout(location = 0) in vec3 vNormal;
layout(location = 0) out vec4 color;
layout(std140, binding = 0) uniform L { vec4 lightDir; vec4 tint; float shininess; };
void main() {
  vec3 n = normalize(vNormal);
  vec3 l = normalize(lightDir.xyz);
  float d = max(dot(n, l), 0.0);
  vec3 h = normalize(l + vec3(0.0, 0.0, 1.0));
  float s = pow(max(dot(n, h), 0.0), shininess);
  color = vec4(tint.rgb * d + vec3(s), 1.0);
}
";

/// `kil`: a corner and the white squares of the lower part cut away.
const KIL_FRAG: &str = "#version 450
layout(location = 0) in vec2 vUv;
layout(location = 0) out vec4 color;
layout(binding = 0) uniform sampler2D tex;
void main() {
  vec4 t = texture(tex, vUv);
  if (vUv.x + vUv.y < 0.8 || t.r > 0.5 && vUv.y > 0.6) discard;
  color = t * vec4(vUv, 1.0, 1.0);
}
";

/// Two textures mixed.
const BLEND_FRAG: &str = "#version 450
layout(location = 0) in vec2 vUv;
layout(location = 0) out vec4 color;
layout(binding = 0) uniform sampler2D a;
layout(binding = 1) uniform sampler2D b;
layout(std140, binding = 2) uniform B { float amount; };
void main() { color = mix(texture(a, vUv), texture(b, vUv * 2.0), amount); }
";

/// A row-major `mat4x3` times a vector: one `m34` (three rows), by default.
const M34_VERT: &str = "#version 450
layout(location = 0) in vec4 position;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 vColor;
layout(std140, binding = 0) uniform U { layout(row_major) mat4x3 model; };
void main() { gl_Position = vec4(model * position, 1.0); vColor = color; }
";

/// A matrix's first register also read as a vector after the `m44` (`mvp[0]`, its first
/// column, is lane x of each row). Opaque, as every case: the preview blends the nearest
/// surface alone over the background, where a GPU blends every surface drawn in turn.
const SHARED_VERT: &str = "#version 450
layout(location = 0) in vec4 position;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 vColor;
layout(std140, binding = 0) uniform U { layout(row_major) mat4 mvp; };
void main() { gl_Position = mvp * position; vColor = vec4((color * mvp[0]).xyz + 0.25, 1.0); }
";

/// The second row of a matrix (`vc1`) read as a vector besides the `m44`: a `vec4` uniform
/// inside OpenFL's `mat4 vc0`, which it does not refresh when the matrix is set again.
const STALE_VERT: &str = "#version 450
layout(location = 0) in vec4 position;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 vColor;
layout(std140, binding = 0) uniform U { layout(row_major) mat4 mvp; };
void main() {
  gl_Position = mvp * position;
  vColor = vec4(color.rgb * abs(vec3(mvp[0][1], mvp[1][1], mvp[2][1])) + 0.2, 1.0);
}
";

/// Two rows of a matrix product: `m34` and `m33` writing `.xy`, by default.
const TWO_ROWS_VERT: &str = "#version 450
layout(location = 0) in vec4 position;
layout(location = 1) in vec3 normal;
layout(location = 0) out vec4 vColor;
layout(std140, binding = 0) uniform U { layout(row_major) mat4 m; layout(row_major) mat3 n; };
void main() {
  vec2 p = (m * position).xy;
  vec2 q = (n * normal).xy;
  gl_Position = vec4(p * 0.9, position.z, 1.0);
  vColor = vec4(q * 0.5 + 0.5, 0.5, 1.0);
}
";

/// `m44` and a three-row `m33` (which OpenFL converts).
const M33_VERT: &str = "#version 450
layout(location = 0) in vec4 position;
layout(location = 1) in vec3 normal;
layout(location = 0) out vec3 vNormal;
layout(std140, binding = 0) uniform U { layout(row_major) mat4 mvp; layout(row_major) mat3 nm; };
void main() { gl_Position = mvp * position; vNormal = nm * normal; }
";

const NORMAL_FRAG: &str = "#version 450
layout(location = 0) in vec3 vNormal;
layout(location = 0) out vec4 color;
void main() { color = vec4(normalize(vNormal) * 0.5 + 0.5, 1.0); }
";

/// A turn about y and x, scaled by 0.9 and moved a little: rows.
fn transform() -> [[f32; 4]; 4] {
    transform_by(0.5, 0.3)
}

/// A turn by `yaw` about y and `pitch` about x, scaled by 0.9 and moved a little: rows.
fn transform_by(yaw: f32, pitch: f32) -> [[f32; 4]; 4] {
    let (sy, cy) = yaw.sin_cos();
    let (sx, cx) = pitch.sin_cos();
    let ry = [[cy, 0.0, sy], [0.0, 1.0, 0.0], [-sy, 0.0, cy]];
    let rx = [[1.0, 0.0, 0.0], [0.0, cx, -sx], [0.0, sx, cx]];
    let r: [[f32; 3]; 3] =
        std::array::from_fn(|i| std::array::from_fn(|j| (0..3).map(|k| rx[i][k] * ry[k][j]).sum()));
    let t = [0.05, -0.03, 0.0];
    std::array::from_fn(|i| {
        if i == 3 {
            [0.0, 0.0, 0.0, 1.0]
        } else {
            [0.9 * r[i][0], 0.9 * r[i][1], 0.9 * r[i][2], t[i]]
        }
    })
}

fn rows(m: [[f32; 4]; 4], n: usize) -> Vec<f32> {
    m.iter().take(n).flatten().copied().collect()
}

fn columns(m: [[f32; 4]; 4]) -> Vec<f32> {
    (0..4).flat_map(|c| (0..4).map(move |r| m[r][c])).collect()
}

/// A row-major `mat3` in std140: three registers of x, y, z and padding.
fn mat3_rows(m: [[f32; 4]; 4]) -> Vec<f32> {
    (0..3)
        .flat_map(|r| [m[r][0], m[r][1], m[r][2], 0.0])
        .collect()
}

fn cases() -> Vec<Case> {
    let m = transform();
    let case = |name, vertex, fragment, mesh: Mesh| Case {
        name,
        vertex,
        fragment,
        mesh,
        uniforms: Vec::new(),
        textures: Vec::new(),
        flash: Flash::Draws,
        profiles: AGAL1,
        tolerance: EXACT,
        second: None,
    };
    vec![
        // Texel centres at pixel centres.
        Case {
            textures: vec![(0, Texture::checkerboard(64, 8))],
            ..case("textured quad", TEX_VERT, TEX_FRAG, mesh::quad())
        },
        // Magnified about 1.5 times, with depth: bilinear filtering between texels. (A
        // minified checkerboard aliases: a hundredth of a texel moves a pixel by tens of
        // levels, and GPUs place samples to a fixed-point grid.)
        Case {
            textures: vec![(0, Texture::checkerboard(16, 4))],
            tolerance: FILTERED,
            ..case("textured cube", TEX_VERT, TEX_FRAG, mesh::cube())
        },
        case(
            "vertex colour",
            COLOR_VERT,
            COLOR_FRAG,
            mesh::sphere(24, 12),
        ),
        Case {
            uniforms: vec![("mvp", rows(m, 4))],
            ..case("mat4 uniform (m44)", M44_VERT, COLOR_FRAG, mesh::cube())
        },
        Case {
            uniforms: vec![("mvp", columns(m))],
            ..case(
                "mat4 uniform (column-major)",
                MVP_VERT,
                COLOR_FRAG,
                mesh::cube(),
            )
        },
        Case {
            uniforms: vec![
                ("lightDir", vec![0.3, 0.5, 0.8, 0.0]),
                ("tint", vec![0.9, 0.6, 0.3, 1.0]),
                ("shininess", vec![12.0]),
            ],
            ..case(
                "pow normalize dot",
                LIGHT_VERT,
                LIGHT_FRAG,
                mesh::sphere(24, 12),
            )
        },
        Case {
            textures: vec![(0, Texture::checkerboard(64, 8))],
            ..case("discard (kil)", TEX_VERT, KIL_FRAG, mesh::quad())
        },
        Case {
            textures: vec![(0, Texture::checkerboard(64, 8)), (1, Texture::gradient())],
            uniforms: vec![("amount", vec![0.35])],
            ..case("two textures", TEX_VERT, BLEND_FRAG, mesh::quad())
        },
        Case {
            uniforms: vec![("model", rows(m, 3))],
            flash: Flash::Refuses("Error compiling vertex shader"),
            ..case("m34", M34_VERT, COLOR_FRAG, mesh::cube())
        },
        Case {
            uniforms: vec![("mvp", rows(m, 4))],
            flash: Flash::Refuses("Cannot use register in multiple ways yet (mat4/vec4)"),
            ..case(
                "m44 register read as a vector",
                SHARED_VERT,
                COLOR_FRAG,
                mesh::cube(),
            )
        },
        Case {
            uniforms: vec![("m", rows(m, 4)), ("n", mat3_rows(m))],
            flash: Flash::Refuses("Error compiling vertex shader"),
            ..case(
                "two-row m34 and m33",
                TWO_ROWS_VERT,
                COLOR_FRAG,
                mesh::sphere(24, 12),
            )
        },
        Case {
            uniforms: vec![("mvp", rows(m, 4)), ("nm", mat3_rows(m))],
            ..case("m33", M33_VERT, NORMAL_FRAG, mesh::sphere(24, 12))
        },
        Case {
            uniforms: vec![("mvp", rows(m, 4))],
            second: Some(vec![("mvp", rows(transform_by(-0.7, 0.6), 4))]),
            flash: Flash::Stale,
            ..case(
                "m44 row read as a vector, second frame",
                STALE_VERT,
                COLOR_FRAG,
                mesh::cube(),
            )
        },
        Case {
            flash: Flash::Refuses("Version must be 1"),
            profiles: &[Profile::Standard],
            ..case("AGAL 2", COLOR_VERT, COLOR_FRAG, mesh::quad())
        },
    ]
}

// ----------------------------------------------------------------------------------------
// Driving both.

/// One pair of programs to draw, and what it stands for.
struct Drawn {
    label: String,
    case: usize,
    /// (profile, runtime) pairs that compile to these bytes.
    variants: Vec<(Profile, Runtime)>,
    vertex: Compiled,
    fragment: Compiled,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

fn number(register: &str) -> usize {
    register
        .trim_start_matches(|c: char| c.is_ascii_alphabetic())
        .parse()
        .unwrap_or_else(|_| panic!("register {register}"))
}

/// The constant registers an application uploads for `program`: its uniforms (every one
/// given by the case) and the literal constants of its reflection.
fn constant_registers(program: &Compiled, uniforms: &[(&str, Vec<f32>)]) -> Vec<f32> {
    let r = &program.reflection;
    let mut regs = vec![0.0f32; 4];
    let mut set = |at: usize, f: f32| {
        if regs.len() <= at {
            regs.resize((at / 4 + 1) * 4, 0.0);
        }
        regs[at] = f;
    };
    for u in &r.uniforms {
        let Some((_, floats)) = uniforms.iter().find(|(n, _)| *n == u.name) else {
            panic!("the case gives no value for uniform `{}`", u.name);
        };
        for (k, &f) in floats.iter().enumerate() {
            set(number(&u.register) * 4 + usize::from(u.component) + k, f);
        }
    }
    for c in &r.constants {
        for (k, &f) in c.value.iter().enumerate() {
            set(number(&c.register) * 4 + k, f);
        }
    }
    regs
}

fn vertex_inputs(program: &Compiled, v: &Vertex) -> Vec<[f32; 4]> {
    program
        .reflection
        .inputs
        .iter()
        .enumerate()
        .map(|(k, input)| {
            [v.position, v.color, v.uv, v.normal][preview::render::attribute(&input.name, k)]
        })
        .collect()
}

/// The case as stage3d.mjs reads it.
fn description(d: &Drawn, case: &Case) -> serde_json::Value {
    let inputs = &d.vertex.reflection.inputs;
    let vertices: Vec<f32> = case
        .mesh
        .triangles
        .iter()
        .flatten()
        .flat_map(|v| vertex_inputs(&d.vertex, v).into_iter().flatten())
        .collect();
    let uniforms = &case.uniforms;
    let second = case.second.as_ref().map(|u| {
        serde_json::json!({
            "vertexConstants": constant_registers(&d.vertex, u),
            "fragmentConstants": constant_registers(&d.fragment, u),
        })
    });
    serde_json::json!({
        "second": second,
        "name": d.label,
        "vertex": hex(&d.vertex.bytes),
        "fragment": hex(&d.fragment.bytes),
        "floatsPerVertex": inputs.len() * 4,
        "vertices": vertices,
        "attributes": inputs.iter().enumerate()
            .map(|(k, i)| serde_json::json!({"register": number(&i.register), "offset": k * 4}))
            .collect::<Vec<_>>(),
        "vertexConstants": constant_registers(&d.vertex, uniforms),
        "fragmentConstants": constant_registers(&d.fragment, uniforms),
        "textures": d.fragment.reflection.samplers.iter().map(|s| {
            let t = &case.textures.iter().find(|(b, _)| *b == s.binding)
                .unwrap_or_else(|| panic!("the case binds no texture at {}", s.binding)).1;
            serde_json::json!({"sampler": number(&s.register), "width": t.size,
                "height": t.size, "rgba": hex(&t.rgba)})
        }).collect::<Vec<_>>(),
        "background": BACKGROUND,
    })
}

/// What the preview draws for the pair (RGBA8, rows from the top).
fn preview_pixels(d: &Drawn, case: &Case) -> Vec<u8> {
    let uniforms_of = |c: &Compiled| Values {
        inputs: Vec::new(),
        uniforms: case
            .drawn_uniforms()
            .iter()
            .filter(|(n, _)| c.reflection.uniforms.iter().any(|u| u.name == *n))
            .map(|(n, f)| (n.to_string(), f.clone()))
            .collect(),
        textures: Vec::new(),
    };
    let vertex_values = uniforms_of(&d.vertex);
    let mut fragment_values = uniforms_of(&d.fragment);
    fragment_values.textures = case.textures.iter().map(|(b, t)| (*b, t.image())).collect();
    let frame = preview::render(
        Scene::Pair {
            vertex: Program {
                bytes: &d.vertex.bytes,
                reflection: &d.vertex.reflection,
            },
            vertex_values: &vertex_values,
            fragment: Program {
                bytes: &d.fragment.bytes,
                reflection: &d.fragment.reflection,
            },
            fragment_values: &fragment_values,
            mesh: &case.mesh,
        },
        SIZE,
        SIZE,
        &mut |_, _| {},
    )
    .unwrap_or_else(|e| panic!("{}: the preview cannot draw it: {e}", d.label));
    frame.rgba
}

/// Pixels whose centre lies within a pixel of a triangle edge where coverage or colour may
/// change (any edge but one shared by exactly two triangles with the same two vertices, one
/// on each side of it on the screen: silhouettes and folds, seams, the borders between
/// faces): rasterisers may put those pixels on either side. The vertex program places the
/// vertices (run in the simulator).
fn edge_pixels(d: &Drawn, case: &Case) -> Vec<bool> {
    let program = Program {
        bytes: &d.vertex.bytes,
        reflection: &d.vertex.reflection,
    };
    let position = d
        .vertex
        .reflection
        .outputs
        .iter()
        .position(|o| o.builtin.as_deref() == Some("Position"))
        .expect("gl_Position");
    let key = |v: &Vertex| -> Vec<u32> {
        [v.position, v.normal, v.uv, v.color]
            .iter()
            .flatten()
            .map(|f| f.to_bits())
            .collect()
    };
    let mut screen: HashMap<Vec<u32>, [f32; 2]> = HashMap::new();
    let mut place = |v: &Vertex| -> [f32; 2] {
        *screen.entry(key(v)).or_insert_with(|| {
            let values = Values {
                inputs: d
                    .vertex
                    .reflection
                    .inputs
                    .iter()
                    .zip(vertex_inputs(&d.vertex, v))
                    .map(|(i, x)| (i.name.clone(), x.to_vec()))
                    .collect(),
                uniforms: case
                    .drawn_uniforms()
                    .iter()
                    .filter(|(n, _)| d.vertex.reflection.uniforms.iter().any(|u| u.name == *n))
                    .map(|(n, f)| (n.to_string(), f.clone()))
                    .collect(),
                textures: Vec::new(),
            };
            let out = preview::run(program, &values).expect("the vertex program runs");
            let p = out.outputs[position].value;
            let s = SIZE as f32;
            [(p[0] / p[3] + 1.0) * 0.5 * s, (1.0 - p[1] / p[3]) * 0.5 * s]
        })
    };
    // Each edge (by its two vertices) with its screen ends and the third corner of each
    // triangle it bounds.
    type Ends = ([f32; 2], [f32; 2]);
    type Key = (Vec<u32>, Vec<u32>);
    let mut edges: HashMap<Key, (Ends, Vec<[f32; 2]>)> = HashMap::new();
    for tri in &case.mesh.triangles {
        for (a, b, c) in [(0, 1, 2), (1, 2, 0), (2, 0, 1)] {
            let (ka, kb) = (key(&tri[a]), key(&tri[b]));
            let (pa, pb, pc) = (place(&tri[a]), place(&tri[b]), place(&tri[c]));
            let k = if ka <= kb { (ka, kb) } else { (kb, ka) };
            edges.entry(k).or_insert(((pa, pb), Vec::new())).1.push(pc);
        }
    }
    let side = |(a, b): Ends, p: [f32; 2]| {
        ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])).signum()
    };
    let mut near = vec![false; (SIZE * SIZE) as usize];
    for (ends, opposite) in edges.values() {
        // An edge inside a surface: two triangles, one on each side of it on the screen.
        if let [c, d] = opposite[..] {
            if side(*ends, c) * side(*ends, d) < 0.0 {
                continue;
            }
        }
        for y in 0..SIZE {
            for x in 0..SIZE {
                let p = [x as f32 + 0.5, y as f32 + 0.5];
                if distance_to_segment(p, ends.0, ends.1) <= 1.0 {
                    near[(y * SIZE + x) as usize] = true;
                }
            }
        }
    }
    near
}

fn distance_to_segment(p: [f32; 2], a: [f32; 2], b: [f32; 2]) -> f32 {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let len2 = dx * dx + dy * dy;
    let t = if len2 > 0.0 {
        (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let (cx, cy) = (a[0] + t * dx - p[0], a[1] + t * dy - p[1]);
    (cx * cx + cy * cy).sqrt()
}

/// How two pictures differ, over the pixels not near an edge.
#[derive(Debug)]
struct Difference {
    compared: usize,
    close: usize,
    max: u8,
    /// Over every pixel (edges too): how many differ by more than the tolerance.
    differing_anywhere: usize,
    /// Pixels the shape covers (not the background) in the preview, as a sanity check.
    covered: usize,
}

fn compare(openfl: &[u8], preview: &[u8], edges: &[bool], close: u8) -> Difference {
    let mut d = Difference {
        compared: 0,
        close: 0,
        max: 0,
        differing_anywhere: 0,
        covered: 0,
    };
    let background = BACKGROUND.map(|c| (c * 255.0 + 0.5) as u8);
    for (k, (o, p)) in openfl.chunks(4).zip(preview.chunks(4)).enumerate() {
        let err = (0..3).map(|l| o[l].abs_diff(p[l])).max().unwrap_or(0);
        d.covered += usize::from(p[..3] != background);
        d.differing_anywhere += usize::from(err > close);
        if edges[k] {
            continue;
        }
        d.compared += 1;
        d.close += usize::from(err <= close);
        d.max = d.max.max(err);
    }
    d
}

/// The largest channel difference ×8 in grey; pixels near an edge (not compared) in blue.
fn difference_picture(openfl: &[u8], preview: &[u8], edges: &[bool]) -> Vec<u8> {
    openfl
        .chunks(4)
        .zip(preview.chunks(4))
        .zip(edges)
        .flat_map(|((o, p), &edge)| {
            let e = (0..3).map(|l| o[l].abs_diff(p[l])).max().unwrap_or(0);
            let g = e.saturating_mul(8);
            if edge {
                [g / 2, g / 2, 96, 255]
            } else {
                [g, g, g, 255]
            }
        })
        .collect()
}

fn write_png(path: &Path, rgba: &[u8]) {
    let mut e = png::Encoder::new(std::fs::File::create(path).unwrap(), SIZE, SIZE);
    e.set_color(png::ColorType::Rgba);
    e.set_depth(png::BitDepth::Eight);
    e.write_header().unwrap().write_image_data(rgba).unwrap();
}

fn slug(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// What is missing for the browser tests, if anything.
fn missing(browser_dir: &Path, chromium: &str) -> Vec<&'static str> {
    [
        (
            !Path::new(chromium).exists(),
            "chromium (Debian's chromium package)",
        ),
        (
            Command::new("node").arg("--version").output().is_err(),
            "node",
        ),
        (
            !browser_dir.join("node_modules/playwright-core").exists(),
            "playwright-core (npm ci in tests/browser)",
        ),
        (
            !browser_dir
                .join("node_modules/openfl/dist/openfl.js")
                .exists(),
            "openfl (npm ci in tests/browser)",
        ),
    ]
    .into_iter()
    .filter(|(m, _)| *m)
    .map(|(_, what)| what)
    .collect()
}

#[test]
fn openfl_stage3d_draws_the_compilers_agal_as_the_preview_does() {
    let browser_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/browser");
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let cases = cases();

    // Compile every case for its profiles and both runtimes; one drawing per distinct pair.
    // `--runtime openfl` changes only the programs OpenFL refuses.
    let mut drawn: Vec<Drawn> = Vec::new();
    for (k, case) in cases.iter().enumerate() {
        for &profile in case.profiles {
            let mut bytes = Vec::new();
            for runtime in Runtime::ALL {
                let (v, f) = compile_pair(
                    Source::glsl(case.vertex, Stage::Vertex).named("case.vert"),
                    Source::glsl(case.fragment, Stage::Fragment).named("case.frag"),
                    &Options::agal(profile).runtime(runtime),
                )
                .unwrap_or_else(|e| panic!("{} ({profile}, {runtime}): {e}", case.name));
                bytes.push((v.bytes.clone(), f.bytes.clone()));
                let same = |d: &&mut Drawn| {
                    d.case == k && d.vertex.bytes == v.bytes && d.fragment.bytes == f.bytes
                };
                match drawn.iter_mut().find(same) {
                    Some(d) => d.variants.push((profile, runtime)),
                    None => drawn.push(Drawn {
                        label: String::new(),
                        case: k,
                        variants: vec![(profile, runtime)],
                        vertex: v,
                        fragment: f,
                    }),
                }
            }
            assert_eq!(
                bytes[0] == bytes[1],
                case.flash == Flash::Draws || profile.version() > backend_agal::Version::V1,
                "{} ({profile}): --runtime openfl should change exactly the programs OpenFL \
                 refuses",
                case.name
            );
        }
    }
    for d in &mut drawn {
        let variants: Vec<String> = d.variants.iter().map(|(p, r)| format!("{p}/{r}")).collect();
        d.label = format!("{} [{}]", cases[d.case].name, variants.join(" "));
    }

    let missing = missing(&browser_dir, &chromium);
    if !missing.is_empty() {
        eprintln!(
            "skipped: the OpenFL Stage3D test needs {} (.ci/install-browser installs them)",
            missing.join(", ")
        );
        return;
    }

    let dir = scratch("openfl-stage3d");
    let input = serde_json::json!({
        "width": SIZE,
        "height": SIZE,
        "cases": drawn.iter().map(|d| description(d, &cases[d.case])).collect::<Vec<_>>(),
    });
    let (cases_path, results_path) = (dir.join("cases.json"), dir.join("results.json"));
    std::fs::write(&cases_path, input.to_string()).unwrap();
    let out = Command::new("node")
        .arg(browser_dir.join("openfl/stage3d.mjs"))
        .arg(&cases_path)
        .arg(&results_path)
        .env("CHROMIUM", &chromium)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "stage3d.mjs failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprint!("{stdout}");
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&results_path).unwrap()).unwrap();
    let results = results["results"].as_array().unwrap();
    assert_eq!(results.len(), drawn.len());

    // Pictures for a person to look at: target/openfl-stage3d/NN-<case>.{openfl,preview,
    // diff}.png, NN the line of the run's output.
    let shots = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/openfl-stage3d");
    let _ = std::fs::remove_dir_all(&shots);
    std::fs::create_dir_all(&shots).unwrap();
    let mut failures = Vec::new();
    for (n, (d, r)) in drawn.iter().zip(results).enumerate() {
        let case = &cases[d.case];
        let flash_bytes = d.variants.iter().any(|(_, r)| *r == Runtime::Flash);
        let expect = if flash_bytes {
            case.flash
        } else {
            Flash::Draws
        };
        let error = r["error"].as_str().unwrap_or("");
        match (expect, r["ok"].as_bool() == Some(true)) {
            (Flash::Refuses(why), false) => {
                if !error.contains(why) {
                    failures.push(format!(
                        "{}: refused, but not with {why:?}: {error}",
                        d.label
                    ));
                } else {
                    eprintln!(
                        "{}: refused as expected: {}",
                        d.label,
                        error.lines().next().unwrap_or("")
                    );
                }
                continue;
            }
            (Flash::Refuses(why), true) => {
                failures.push(format!(
                    "{}: drawn, where OpenFL 8.9.6 refuses it ({why})",
                    d.label
                ));
                continue;
            }
            (Flash::Draws | Flash::Stale, false) => {
                failures.push(format!(
                    "{}: OpenFL refused it: {error}\nvertex GLSL:\n{}\nfragment GLSL:\n{}\nlog: {}",
                    d.label, r["vertexGlsl"], r["fragmentGlsl"], r["log"]
                ));
                continue;
            }
            (Flash::Draws | Flash::Stale, true) => {}
        }
        let openfl = unhex(r["rgba"].as_str().unwrap());
        let preview = preview_pixels(d, case);
        let edges = edge_pixels(d, case);
        let t = case.tolerance;
        let diff = compare(&openfl, &preview, &edges, t.close);
        let name = format!("{n:02}-{}", slug(case.name));
        write_png(&shots.join(format!("{name}.openfl.png")), &openfl);
        write_png(&shots.join(format!("{name}.preview.png")), &preview);
        write_png(
            &shots.join(format!("{name}.diff.png")),
            &difference_picture(&openfl, &preview, &edges),
        );
        let share = diff.close as f64 / diff.compared.max(1) as f64;
        eprintln!(
            "{}: {} of {} pixels compared (the rest within a pixel of an edge), {:.2}% within \
             {}/255, max error {}/255; {} pixels differ by more than that counting edges; {} \
             pixels covered",
            d.label,
            diff.compared,
            SIZE * SIZE,
            share * 100.0,
            t.close,
            diff.max,
            diff.differing_anywhere,
            diff.covered
        );
        let matches = diff.covered >= 200 && share >= CLOSE_SHARE && diff.max <= t.max;
        if expect == Flash::Stale {
            if matches {
                failures.push(format!(
                    "{}: the second frame is right, where OpenFL 8.9.6 leaves a vec4 uniform \
                     inside a mat4 stale",
                    d.label
                ));
            } else {
                eprintln!("{}: the second frame is wrong, as expected", d.label);
            }
        } else if !matches {
            failures.push(format!(
                "{}: {diff:?} (need ≥ {:.0}% within {}/255, max ≤ {}/255, ≥ 200 covered); \
                 pictures in {}",
                d.label,
                CLOSE_SHARE * 100.0,
                t.close,
                t.max,
                shots.display()
            ));
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `spv2agal --runtime openfl` on the command line: a fixture whose default program has an
/// `m34` gets `dp4`s instead; an unknown runtime is a usage error.
#[test]
fn spv2agal_takes_the_runtime() {
    let agal = env!("CARGO_BIN_EXE_spv2agal");
    let shader = test_kit::fixture("glsl/row_major_forms.vert.spv");
    let listing = |runtime: &str| {
        let out = Command::new(agal)
            .args([
                shader.to_str().unwrap(),
                "--emit",
                "asm",
                "-o",
                "-",
                "--runtime",
                runtime,
            ])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(listing("flash").contains("m34 "));
    let openfl = listing("openfl");
    assert!(
        !openfl.contains("m34 ") && openfl.contains("dp4 "),
        "{openfl}"
    );
    let out = Command::new(agal)
        .args([shader.to_str().unwrap(), "--runtime", "air", "--check"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("expected flash or openfl"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
