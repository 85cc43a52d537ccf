//! Pictures of programs running.
//!
//! - A vertex program transforms a mesh: each mesh vertex runs through it (its inputs filled
//!   from the mesh by name: `…pos…` the position, `…norm…` the normal, `…uv…`/`…tex…`/
//!   `…coord…` the texture coordinates, `…col…` the colour; others by location, in that
//!   order), the triangles are drawn where `gl_Position` puts them, and each pixel shows the
//!   program's colour output interpolated: the PICA200's `color` output, else its
//!   `texcoord0` as red and green, else its first other output; in AGAL its first varying.
//! - A fragment program (AGAL, or a PICA200 combiner configuration) shades a full-screen
//!   quad: every varying it reads holds the quad's texture coordinates (u to the right, v
//!   down, 0, 1), interpolated across it.
//! - A vertex and a fragment program draw together: in AGAL the vertex program's varyings,
//!   interpolated, are the fragment program's; on the PICA200 the outputs whose semantics the
//!   combiners read (`color`, saturated per vertex, and `texcoord0`, `texcoord0w`,
//!   `texcoord1`, `texcoord2`) are interpolated, and each pixel runs the combiners (see
//!   [`crate::combiners`]).
//!
//! Fragments run 2×2 at a time, so derivatives and mip levels work (AGAL). Textures are the
//! [`Values::textures`] given, else the built-in ones. The background is dark grey; colours
//! are clamped to 0…1 and blended over it by their alpha. The same inputs give the same
//! bytes.

use crate::combiners::Plan;
use crate::drive::{Kind, Loaded, Program, Values};
use crate::mesh::Mesh;
use crate::raster::Target;
use crate::{Error, texture};

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub enum Scene<'a> {
    /// A vertex program transforming a mesh.
    Vertex {
        /// The program.
        program: Program<'a>,
        /// Its values (inputs the mesh does not give, uniforms).
        values: &'a Values,
        /// The mesh.
        mesh: &'a Mesh,
    },
    /// A fragment program (AGAL or PICA200) on a full-screen quad.
    Fragment {
        /// The program.
        program: Program<'a>,
        /// Its values (uniforms, textures).
        values: &'a Values,
    },
    /// A vertex and a geometry program together (PICA200).
    Geometry {
        /// The vertex program.
        vertex: Program<'a>,
        /// Its values.
        vertex_values: &'a Values,
        /// The geometry program.
        geometry: Program<'a>,
        /// Its values.
        geometry_values: &'a Values,
        /// The mesh whose primitives it reads.
        mesh: &'a Mesh,
    },
    /// A vertex and a fragment program together (AGAL, or PICA200).
    Pair {
        /// The vertex program.
        vertex: Program<'a>,
        /// Its values.
        vertex_values: &'a Values,
        /// The fragment program.
        fragment: Program<'a>,
        /// Its values.
        fragment_values: &'a Values,
        /// The mesh.
        mesh: &'a Mesh,
    },
}

/// A picture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// RGBA8, row after row from the top.
    pub rgba: Vec<u8>,
}

impl Frame {
    /// The one colour of a picture that has no other (every pixel the same), if so.
    pub fn flat(&self) -> Option<[u8; 4]> {
        let mut pixels = self.rgba.chunks_exact(4);
        let first: [u8; 4] = pixels.next()?.try_into().ok()?;
        pixels.all(|p| p == first).then_some(first)
    }

    /// The picture as a PNG file.
    pub fn png(&self) -> Result<Vec<u8>, Error> {
        texture::encode_png(self.width, self.height, &self.rgba)
    }
}

const BACKGROUND: [f32; 3] = [0.13, 0.14, 0.16];

/// The largest picture drawn (pixels).
pub const MAX_PIXELS: u64 = 4096 * 4096;

/// Draws `scene` at `width`×`height`; `progress(done, total)` is called after each row of
/// pixels is shaded.
pub fn render(
    scene: Scene<'_>,
    width: u32,
    height: u32,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Frame, Error> {
    if width == 0 || height == 0 || u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(Error::Usage(format!(
            "a picture of {width}×{height}: sizes are 1×1 to 4096×4096"
        )));
    }
    let (w, h) = (width as usize, height as usize);
    let mut target = Target::new(w, h);
    let mut pixels = vec![[BACKGROUND[0], BACKGROUND[1], BACKGROUND[2], 1.0]; w * h];
    match scene {
        Scene::Vertex {
            program,
            values,
            mesh,
        } => {
            let loaded = Loaded::new(program, values)?;
            expect_vertex(&loaded)?;
            let colour = colour_register(program);
            draw_mesh(&loaded, values, mesh, &mut target, |raw| {
                vec![colour.as_ref().map_or([1.0; 4], |(reg, uv)| {
                    let c = loaded.output(raw, reg);
                    if *uv { [c[0], c[1], 0.0, 1.0] } else { c }
                })]
            })?;
            for (k, a) in target.attributes.iter().enumerate() {
                if let Some(a) = a {
                    pixels[k] = a[0];
                }
            }
            progress(h, h);
        }
        Scene::Fragment { program, values } => {
            let loaded = fragment_program(program, values)?;
            let size = loaded
                .input_registers
                .iter()
                .map(|&r| r + 1)
                .max()
                .unwrap_or(0)
                .max(10);
            for py in 0..h {
                for px in 0..w {
                    let uv = [
                        (px as f32 + 0.5) / w as f32,
                        (py as f32 + 0.5) / h as f32,
                        0.0,
                        1.0,
                    ];
                    let mut regs = vec![[0.0f32; 4]; size];
                    for &reg in &loaded.input_registers {
                        regs[reg] = uv;
                    }
                    target.attributes[py * w + px] = Some(regs);
                }
            }
            shade(&loaded, &target, &mut pixels, progress)?;
        }
        Scene::Geometry {
            vertex,
            vertex_values,
            geometry,
            geometry_values,
            mesh,
        } => {
            let v = Loaded::new(vertex, vertex_values)?;
            expect_vertex(&v)?;
            let g = Loaded::new(geometry, geometry_values)?;
            if geometry.reflection.stage != "geometry" || v.kind != Kind::Pica {
                return Err(Error::Usage(
                    "a vertex and a geometry program draw together on the PICA200".into(),
                ));
            }
            draw_geometry(&v, vertex_values, &g, mesh, &mut target)?;
            for (k, a) in target.attributes.iter().enumerate() {
                if let Some(a) = a {
                    pixels[k] = a[0];
                }
            }
            progress(h, h);
        }
        Scene::Pair {
            vertex,
            vertex_values,
            fragment,
            fragment_values,
            mesh,
        } => {
            let v = Loaded::new(vertex, vertex_values)?;
            expect_vertex(&v)?;
            let f = fragment_program(fragment, fragment_values)?;
            match (v.kind, f.kind) {
                (Kind::AgalVertex, Kind::AgalFragment) => {
                    draw_mesh(&v, vertex_values, mesh, &mut target, |raw| {
                        raw.outputs.clone()
                    })?;
                }
                (Kind::Pica, Kind::PicaFragment) => {
                    let plan = Plan::new(vertex.reflection, fragment.reflection)?;
                    draw_mesh(&v, vertex_values, mesh, &mut target, |raw| {
                        plan.varyings(&raw.outputs)
                    })?;
                }
                _ => {
                    return Err(Error::Usage(format!(
                        "a {} vertex program and a {} fragment program: a pair is an AGAL \
                         vertex and fragment program, or a PICA200 vertex program and \
                         fragment configuration",
                        vertex.reflection.target, fragment.reflection.target
                    )));
                }
            }
            shade(&f, &target, &mut pixels, progress)?;
        }
    }
    let rgba = pixels
        .iter()
        .flat_map(|p| {
            let a = if p[3].is_nan() {
                1.0
            } else {
                p[3].clamp(0.0, 1.0)
            };
            let ch = |l: usize| {
                let c = if p[l].is_nan() {
                    0.0
                } else {
                    p[l].clamp(0.0, 1.0)
                };
                let c = c * a + BACKGROUND[l] * (1.0 - a);
                (c * 255.0 + 0.5) as u8
            };
            [ch(0), ch(1), ch(2), 255]
        })
        .collect();
    Ok(Frame {
        width,
        height,
        rgba,
    })
}

fn expect_vertex(loaded: &Loaded<'_>) -> Result<(), Error> {
    let stage = loaded.program.reflection.stage.as_str();
    if stage != "vertex" {
        return Err(Error::Usage(format!(
            "a {stage} program cannot transform a mesh: preview draws vertex programs, \
             fragment programs, a PICA200 vertex program with the geometry program after it, \
             and a vertex and fragment pair"
        )));
    }
    Ok(())
}

fn fragment_program<'a>(program: Program<'a>, values: &Values) -> Result<Loaded<'a>, Error> {
    let loaded = Loaded::new(program, values)?;
    if !matches!(loaded.kind, Kind::AgalFragment | Kind::PicaFragment) {
        return Err(Error::Usage(format!(
            "a {} program is not a fragment program",
            program.reflection.stage
        )));
    }
    Ok(loaded)
}

/// The register of the vertex program's colour output, and whether it is texture
/// coordinates (drawn as red and green).
fn colour_register(program: Program<'_>) -> Option<(String, bool)> {
    let outs = &program.reflection.outputs;
    let not_position = |o: &&machine::reflect::OutputInfo| {
        o.builtin.as_deref() != Some("Position") && o.register != "op"
    };
    if let Some(o) = outs.iter().find(|o| o.semantic.as_deref() == Some("color")) {
        return Some((o.register.clone(), false));
    }
    if let Some(o) = outs
        .iter()
        .find(|o| o.semantic.as_deref() == Some("texcoord0"))
    {
        return Some((o.register.clone(), true));
    }
    outs.iter()
        .find(not_position)
        .map(|o| (o.register.clone(), false))
}

/// Which mesh attribute feeds a vertex program's input `name` (its `k`-th input): 0 the
/// position, 1 the colour, 2 the texture coordinates, 3 the normal (see the module
/// documentation). For a harness that feeds the same mesh to another renderer.
pub fn attribute(name: &str, k: usize) -> usize {
    let n = name.to_ascii_lowercase();
    if n.contains("pos") || n == "gl_vertex" {
        0
    } else if n.contains("norm") {
        3
    } else if n.contains("uv") || n.contains("tex") || n.contains("coord") {
        2
    } else if n.contains("col") {
        1
    } else {
        k.min(3)
    }
}

/// The register of the program's `gl_Position`.
fn position_register(loaded: &Loaded<'_>) -> Result<String, Error> {
    loaded
        .program
        .reflection
        .outputs
        .iter()
        .find(|o| o.builtin.as_deref() == Some("Position") || o.register == "op")
        .map(|o| o.register.clone())
        .ok_or_else(|| {
            Error::Usage(format!(
                "the {} program writes no gl_Position",
                loaded.program.reflection.stage
            ))
        })
}

/// The input registers for mesh vertex `v`: `base` (what the user gave), the mesh's
/// attributes in every input the user did not set.
fn mesh_inputs(
    loaded: &Loaded<'_>,
    values: &Values,
    base: &[[f32; 4]],
    v: &crate::mesh::Vertex,
) -> Vec<[f32; 4]> {
    let mut regs = base.to_vec();
    for (i, input) in loaded.program.reflection.inputs.iter().enumerate() {
        if values.inputs.iter().any(|(n, _)| *n == input.name) {
            continue;
        }
        let source = [v.position, v.color, v.uv, v.normal][attribute(&input.name, i)];
        let reg = loaded.input_registers[i];
        if reg < regs.len() {
            regs[reg] = source;
        }
    }
    regs
}

/// Runs every mesh vertex through `loaded` and draws the triangles with the attributes
/// `keep` takes from each run.
fn draw_mesh(
    loaded: &Loaded<'_>,
    values: &Values,
    mesh: &Mesh,
    target: &mut Target,
    keep: impl Fn(&crate::drive::Raw) -> Vec<[f32; 4]>,
) -> Result<(), Error> {
    let base = loaded.input_file(&values.inputs)?;
    let position = position_register(loaded)?;
    for tri in &mesh.triangles {
        let mut clip = [[0.0f32; 4]; 3];
        let mut attrs: [Vec<[f32; 4]>; 3] = Default::default();
        for (k, v) in tri.iter().enumerate() {
            let regs = mesh_inputs(loaded, values, &base, v);
            let raw = loaded.vertex(&regs)?;
            clip[k] = loaded.output(&raw, &position);
            attrs[k] = keep(&raw);
        }
        target.triangle(clip, [&attrs[0], &attrs[1], &attrs[2]]);
    }
    Ok(())
}

/// A vertex program and the geometry program after it (PICA200): each primitive of the mesh
/// (a vertex for `points`, an edge for `lines`, a triangle for `triangles`) runs through the
/// vertex program, its output registers reach the geometry program as the geometry unit
/// passes them (point or fixed mode, by the geometry program's reflection), and the
/// triangles it emits are drawn with its colour output.
fn draw_geometry(
    v: &Loaded<'_>,
    vertex_values: &Values,
    g: &Loaded<'_>,
    mesh: &Mesh,
    target: &mut Target,
) -> Result<(), Error> {
    let info = g.program.reflection.geometry.clone().ok_or_else(|| {
        Error::Program("the geometry program's reflection has no geometry".into())
    })?;
    // The vertex program's enabled output registers, in register order.
    let mut registers: Vec<usize> = v
        .program
        .reflection
        .outputs
        .iter()
        .filter_map(|o| crate::drive::number(&o.register))
        .collect();
    registers.sort_unstable();
    registers.dedup();
    let per = registers.len();
    let primitives: Vec<Vec<crate::mesh::Vertex>> = match info.vertices_in {
        1 => mesh.triangles.iter().flatten().map(|v| vec![*v]).collect(),
        2 => mesh
            .triangles
            .iter()
            .flat_map(|t| [vec![t[0], t[1]], vec![t[1], t[2]], vec![t[2], t[0]]])
            .collect(),
        3 => mesh.triangles.iter().map(|t| t.to_vec()).collect(),
        n => {
            return Err(Error::Usage(format!(
                "a geometry program reading {n} vertices ({}) has no mesh to draw: preview \
                 draws points, lines and triangles",
                info.input_primitive
            )));
        }
    };
    let position = position_register(g)?;
    let colour = colour_register(g.program);
    let base = v.input_file(&vertex_values.inputs)?;
    for prim in &primitives {
        let mut packed = vec![[0.0f32; 4]; per * prim.len()];
        for (i, vertex) in prim.iter().enumerate() {
            let regs = mesh_inputs(v, vertex_values, &base, vertex);
            let raw = v.vertex(&regs)?;
            for (k, &r) in registers.iter().enumerate() {
                packed[i * per + k] = raw.outputs.get(r).copied().unwrap_or_default();
            }
        }
        let raw = if info.mode == "fixed" {
            g.geometry_fixed(&packed)?
        } else {
            g.vertex(&packed)?
        };
        let mut slots = [([0.0f32; 4], [0.0f32; 4]); 3];
        for e in &raw.emitted {
            let outputs = crate::drive::Raw::of_outputs(&e.outputs);
            let clip = g.output(&outputs, &position);
            let c = colour.as_ref().map_or([1.0; 4], |(reg, uv)| {
                let c = g.output(&outputs, reg);
                if *uv { [c[0], c[1], 0.0, 1.0] } else { c }
            });
            slots[usize::from(e.vertex.min(2))] = (clip, c);
            if e.primitive {
                let order = if e.winding { [0, 2, 1] } else { [0, 1, 2] };
                let clip = order.map(|k| slots[k].0);
                let attrs: [Vec<[f32; 4]>; 3] = order.map(|k| vec![slots[k].1]);
                target.triangle(clip, [&attrs[0], &attrs[1], &attrs[2]]);
            }
        }
    }
    Ok(())
}

/// Shades every covered pixel with the fragment program, 2×2 at a time (a quad's uncovered
/// pixels take a covered neighbour's varyings, so its derivatives stay finite).
fn shade(
    loaded: &Loaded<'_>,
    target: &Target,
    pixels: &mut [[f32; 4]],
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(), Error> {
    let (w, h) = (target.width, target.height);
    for qy in (0..h).step_by(2) {
        for qx in (0..w).step_by(2) {
            let at = [(qx, qy), (qx + 1, qy), (qx, qy + 1), (qx + 1, qy + 1)];
            let covered: Vec<Option<&Vec<[f32; 4]>>> = at
                .iter()
                .map(|&(x, y)| {
                    (x < w && y < h)
                        .then(|| target.attributes[y * w + x].as_ref())
                        .flatten()
                })
                .collect();
            let Some(any) = covered.iter().flatten().next().copied() else {
                continue;
            };
            let lanes: [&[[f32; 4]]; 4] =
                std::array::from_fn(|i| covered[i].unwrap_or(any).as_slice());
            let out = loaded.fragment_quad(lanes)?;
            for (i, &(x, y)) in at.iter().enumerate() {
                if covered[i].is_some() && !out[i].discarded {
                    pixels[y * w + x] = out[i].outputs[0];
                }
            }
        }
        progress((qy + 2).min(h), h);
    }
    Ok(())
}
