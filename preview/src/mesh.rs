//! Meshes to draw: triangles of vertices with a position, a normal, texture coordinates and a
//! colour.
//!
//! The built-in meshes are posed so that a vertex shader that passes positions through (all
//! matrices the identity, the default) already shows their shape: the cube turned to show
//! three faces, the sphere lit by its colours, both within −0.7…0.7 in x and y and with z in
//! −1…1 (in front of a GL clip volume).

use crate::Error;

/// One vertex.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vertex {
    /// Position (w = 1).
    pub position: [f32; 4],
    /// Unit normal (w = 0).
    pub normal: [f32; 4],
    /// Texture coordinates (z = 0, w = 1).
    pub uv: [f32; 4],
    /// Colour (RGBA).
    pub color: [f32; 4],
}

/// Triangles, counter-clockwise seen from the front.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    /// Three vertices per triangle.
    pub triangles: Vec<[Vertex; 3]>,
}

/// The built-in meshes' names.
pub const BUILTIN: [&str; 3] = ["cube", "sphere", "quad"];

/// A built-in mesh by name.
pub fn builtin(name: &str) -> Option<Mesh> {
    match name {
        "cube" => Some(cube()),
        "sphere" => Some(sphere(24, 12)),
        "quad" => Some(quad()),
        _ => None,
    }
}

/// Turns `p` by `yaw` about y, then `pitch` about x.
fn pose(p: [f32; 3], yaw: f32, pitch: f32) -> [f32; 3] {
    let (sy, cy) = yaw.sin_cos();
    let (sp, cp) = pitch.sin_cos();
    let x = cy * p[0] + sy * p[2];
    let z = -sy * p[0] + cy * p[2];
    let y = cp * p[1] - sp * z;
    let z = sp * p[1] + cp * z;
    [x, y, z]
}

fn vertex(p: [f32; 3], n: [f32; 3], uv: [f32; 2], color: [f32; 3]) -> Vertex {
    Vertex {
        position: [p[0], p[1], p[2], 1.0],
        normal: [n[0], n[1], n[2], 0.0],
        uv: [uv[0], uv[1], 0.0, 1.0],
        color: [color[0], color[1], color[2], 1.0],
    }
}

/// A cube of side 0.8, turned to show three faces, each face a colour.
pub fn cube() -> Mesh {
    let (yaw, pitch) = (0.6f32, -0.45f32);
    // normal, u axis, v axis, colour
    type Face = ([f32; 3], [f32; 3], [f32; 3], [f32; 3]);
    let faces: [Face; 6] = [
        (
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.9, 0.3, 0.3],
        ),
        (
            [0.0, 0.0, -1.0],
            [-1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.3, 0.9, 0.9],
        ),
        (
            [1.0, 0.0, 0.0],
            [0.0, 0.0, -1.0],
            [0.0, 1.0, 0.0],
            [0.3, 0.9, 0.3],
        ),
        (
            [-1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.0, 1.0, 0.0],
            [0.9, 0.3, 0.9],
        ),
        (
            [0.0, 1.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 0.0, -1.0],
            [0.3, 0.3, 0.9],
        ),
        (
            [0.0, -1.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.9, 0.9, 0.3],
        ),
    ];
    let h = 0.4f32;
    let mut triangles = Vec::new();
    for (n, u, v, c) in faces {
        let corner = |a: f32, b: f32| -> Vertex {
            let p: [f32; 3] = std::array::from_fn(|i| (n[i] + a * u[i] + b * v[i]) * h);
            vertex(
                pose(p, yaw, pitch),
                pose(n, yaw, pitch),
                [(a + 1.0) / 2.0, (b + 1.0) / 2.0],
                c,
            )
        };
        let (p00, p10, p11, p01) = (
            corner(-1.0, -1.0),
            corner(1.0, -1.0),
            corner(1.0, 1.0),
            corner(-1.0, 1.0),
        );
        triangles.push([p00, p10, p11]);
        triangles.push([p00, p11, p01]);
    }
    Mesh { triangles }
}

/// A UV sphere of radius 0.7, its colour its normal mapped to 0…1.
pub fn sphere(slices: u32, stacks: u32) -> Mesh {
    let r = 0.7f32;
    let at = |i: u32, j: u32| -> Vertex {
        let u = i as f32 / slices as f32;
        let v = j as f32 / stacks as f32;
        let (theta, phi) = (u * std::f32::consts::TAU, v * std::f32::consts::PI);
        let n = [phi.sin() * theta.sin(), -phi.cos(), phi.sin() * theta.cos()];
        let n = pose(n, 0.0, -0.3);
        vertex(
            [n[0] * r, n[1] * r, n[2] * r],
            n,
            [u, v],
            [(n[0] + 1.0) / 2.0, (n[1] + 1.0) / 2.0, (n[2] + 1.0) / 2.0],
        )
    };
    let mut triangles = Vec::new();
    for j in 0..stacks {
        for i in 0..slices {
            let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
            if j > 0 {
                triangles.push([a, c, b]);
            }
            if j + 1 < stacks {
                triangles.push([a, d, c]);
            }
        }
    }
    Mesh { triangles }
}

/// A square from −1 to 1 at z = 0 facing +z: the full clip rectangle with identity matrices.
pub fn quad() -> Mesh {
    let c = |x: f32, y: f32| {
        vertex(
            [x, y, 0.0],
            [0.0, 0.0, 1.0],
            [(x + 1.0) / 2.0, (1.0 - y) / 2.0],
            [(x + 1.0) / 2.0, (y + 1.0) / 2.0, 0.5],
        )
    };
    let (a, b, cc, d) = (c(-1.0, -1.0), c(1.0, -1.0), c(1.0, 1.0), c(-1.0, 1.0));
    Mesh {
        triangles: vec![[a, b, cc], [a, cc, d]],
    }
}

/// A Wavefront OBJ file: `v`, `vt`, `vn` and `f` lines (polygons as fans, negative indices
/// from the end); other lines are ignored. Vertices without a normal get their face's.
pub fn parse_obj(text: &str) -> Result<Mesh, Error> {
    let mut positions: Vec<[f32; 3]> = Vec::new();
    let mut uvs: Vec<[f32; 2]> = Vec::new();
    let mut normals: Vec<[f32; 3]> = Vec::new();
    let mut triangles = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = |what: &str| Error::Usage(format!("OBJ line {}: {what}", n + 1));
        let mut words = line.split_whitespace();
        let floats = |words: std::str::SplitWhitespace<'_>| -> Result<Vec<f32>, Error> {
            words
                .map(|w| {
                    w.parse::<f32>()
                        .map_err(|_| at(&format!("`{w}` is not a number")))
                })
                .collect()
        };
        match words.next() {
            Some("v") => {
                let f = floats(words)?;
                if f.len() < 3 {
                    return Err(at("a vertex needs x y z"));
                }
                positions.push([f[0], f[1], f[2]]);
            }
            Some("vt") => {
                let f = floats(words)?;
                uvs.push([
                    f.first().copied().unwrap_or(0.0),
                    f.get(1).copied().unwrap_or(0.0),
                ]);
            }
            Some("vn") => {
                let f = floats(words)?;
                if f.len() < 3 {
                    return Err(at("a normal needs x y z"));
                }
                normals.push([f[0], f[1], f[2]]);
            }
            Some("f") => {
                let mut corners = Vec::new();
                for w in words {
                    let mut parts = w.split('/');
                    let index = |p: Option<&str>, len: usize| -> Result<Option<usize>, Error> {
                        let Some(p) = p.filter(|p| !p.is_empty()) else {
                            return Ok(None);
                        };
                        let i: i64 = p
                            .parse()
                            .map_err(|_| at(&format!("`{p}` is not an index")))?;
                        let k = if i < 0 { len as i64 + i } else { i - 1 };
                        if k < 0 || k >= len as i64 {
                            return Err(at(&format!("index {i} is out of range")));
                        }
                        Ok(Some(k as usize))
                    };
                    let v = index(parts.next(), positions.len())?
                        .ok_or_else(|| at("a face corner needs a vertex index"))?;
                    let t = index(parts.next(), uvs.len())?;
                    let nn = index(parts.next(), normals.len())?;
                    corners.push((v, t, nn));
                }
                if corners.len() < 3 {
                    return Err(at("a face needs three corners"));
                }
                let p = |k: usize| positions[corners[k].0];
                let (a, b, c) = (p(0), p(1), p(2));
                let e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
                let e2 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
                let mut face_n = [
                    e1[1] * e2[2] - e1[2] * e2[1],
                    e1[2] * e2[0] - e1[0] * e2[2],
                    e1[0] * e2[1] - e1[1] * e2[0],
                ];
                let len = (face_n.iter().map(|x| x * x).sum::<f32>()).sqrt();
                if len > 0.0 {
                    face_n = face_n.map(|x| x / len);
                }
                let corner = |k: usize| {
                    let (v, t, nn) = corners[k];
                    let n = nn.map_or(face_n, |i| normals[i]);
                    vertex(
                        positions[v],
                        n,
                        t.map_or([0.0, 0.0], |i| uvs[i]),
                        [(n[0] + 1.0) / 2.0, (n[1] + 1.0) / 2.0, (n[2] + 1.0) / 2.0],
                    )
                };
                for k in 1..corners.len() - 1 {
                    triangles.push([corner(0), corner(k), corner(k + 1)]);
                }
            }
            _ => {}
        }
        if triangles.len() > 1_000_000 {
            return Err(at("more than a million triangles"));
        }
    }
    if triangles.is_empty() {
        return Err(Error::Usage("the OBJ file has no faces".into()));
    }
    Ok(Mesh { triangles })
}
