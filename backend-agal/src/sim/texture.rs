//! Textures for the simulator: the [`Texture`] trait a test implements (or the ready-made
//! [`Image`]), and sampling with AGAL's sampler flags.
//!
//! - Filter: `nearest` picks the texel under the coordinate; `linear` (and the anisotropic
//!   modes, which are simplified to it) blends the four nearest texel centres.
//! - Wrap: `repeat` takes the coordinate modulo 1, `clamp` clamps texel indices to the edge;
//!   `clamp_u_repeat_v` / `repeat_u_clamp_v` per axis. Cube maps always clamp at face edges
//!   (no filtering across faces).
//! - Mipmaps: the level of detail is log2 of the larger screen-space footprint of one pixel in
//!   texels, from the coordinate differences inside the 2×2 quad, plus the LOD bias.
//!   `mipnone` uses level 0, `mipnearest` the nearest level, `miplinear` blends the two nearest;
//!   levels are clamped to what the texture has. A fragment run alone (not in a quad) has zero
//!   differences, so it samples level 0 (plus the bias).
//! - Cube maps: faces 0–5 are +X, −X, +Y, −Y, +Z, −Z (Stage3D's `uploadFromBitmapData` side
//!   order); the face and its (s, t) come from the major axis as in OpenGL's cube-map table,
//!   with t = 0 at the face's first row.
//! - Exact textures ([`Texture::exact`]): a formula of the raw coordinate, for tests that
//!   compare with a reference computing the same formula.

use super::Vec4;
use crate::sampler::{Dimension, Filter, Mipmap, Sampler, Special, Wrap};

/// A texture the simulator can sample.
pub trait Texture {
    /// Whether it is a cube map (six faces) rather than a 2D texture.
    fn is_cube(&self) -> bool;
    /// How many mip levels it has (at least 1).
    fn levels(&self) -> u32;
    /// Width and height of a level (of each face, for a cube map).
    fn size(&self, level: u32) -> (u32, u32);
    /// The texel at column `x`, row `y` (row 0 first) of a level and face (0 for 2D).
    /// The simulator only asks for `x < width`, `y < height`, existing levels and faces.
    fn texel(&self, face: u32, level: u32, x: u32, y: u32) -> Vec4;
    /// For a texture defined by a formula rather than by texels: its colour at the raw
    /// coordinate of `tex` (before wrapping; a direction for a cube map) and the sampler's
    /// LOD bias. The simulator then takes this value as it is, without filtering, wrapping
    /// or mip selection. Texel textures return `None` (the default).
    fn exact(&self, _coord: Vec4, _bias: f32) -> Option<Vec4> {
        None
    }
}

/// Sampler state set by the application (`Context3D.setSamplerStateAt`), used instead of the
/// instruction's flags when the instruction has `ignoresampler`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplerState {
    /// Filter.
    pub filter: Filter,
    /// Mipmapping.
    pub mipmap: Mipmap,
    /// Wrapping.
    pub wrap: Wrap,
}

/// The textures bound to the sampler registers.
pub trait Textures {
    /// The texture bound to `fsN`, if any.
    fn texture(&self, sampler: u16) -> Option<&dyn Texture>;
    /// The application's sampler state for `fsN`, if set.
    fn sampler_state(&self, _sampler: u16) -> Option<SamplerState> {
        None
    }
}

/// No textures bound.
impl Textures for () {
    fn texture(&self, _sampler: u16) -> Option<&dyn Texture> {
        None
    }
}

/// `fs0`, `fs1` … bound to the textures of an array, in order.
impl<const N: usize> Textures for [&dyn Texture; N] {
    fn texture(&self, sampler: u16) -> Option<&dyn Texture> {
        self.get(usize::from(sampler)).copied()
    }
}

/// `fs0`, `fs1` … bound to the textures of a vector, in order.
impl Textures for Vec<&dyn Texture> {
    fn texture(&self, sampler: u16) -> Option<&dyn Texture> {
        self.get(usize::from(sampler)).copied()
    }
}

/// A texture held in memory: one or six faces, each a chain of mip levels of RGBA floats.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    cube: bool,
    /// `levels[level] = (width, height, texels of every face, face after face, row after row)`.
    levels: Vec<(u32, u32, Vec<Vec4>)>,
}

impl Image {
    /// A 2D texture from level-0 texels (row after row); `None` if the sizes do not match.
    pub fn new_2d(width: u32, height: u32, texels: Vec<Vec4>) -> Option<Image> {
        let n = usize::try_from(u64::from(width) * u64::from(height)).ok()?;
        (texels.len() == n && n > 0).then(|| Image {
            cube: false,
            levels: vec![(width, height, texels)],
        })
    }

    /// A cube map from six square faces of `size`², +X −X +Y −Y +Z −Z, concatenated.
    pub fn new_cube(size: u32, faces: Vec<Vec4>) -> Option<Image> {
        let n = usize::try_from(u64::from(size) * u64::from(size) * 6).ok()?;
        (faces.len() == n && n > 0).then(|| Image {
            cube: true,
            levels: vec![(size, size, faces)],
        })
    }

    /// Adds the next mip level (same face layout); `None` if the sizes do not match.
    pub fn with_level(mut self, width: u32, height: u32, texels: Vec<Vec4>) -> Option<Image> {
        let faces = if self.cube { 6 } else { 1 };
        let n = usize::try_from(u64::from(width) * u64::from(height) * faces).ok()?;
        if texels.len() != n || n == 0 {
            return None;
        }
        self.levels.push((width, height, texels));
        Some(self)
    }

    /// Adds mip levels down to 1×1 by averaging 2×2 blocks.
    pub fn with_mipmaps(mut self) -> Image {
        loop {
            let Some((w, h, data)) = self.levels.last() else {
                return self;
            };
            let (w, h) = (*w, *h);
            if w <= 1 && h <= 1 {
                return self;
            }
            let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
            let faces = if self.cube { 6 } else { 1 };
            let mut next = Vec::new();
            for face in 0..faces {
                for y in 0..nh {
                    for x in 0..nw {
                        let mut acc = [0.0f32; 4];
                        let mut count = 0.0;
                        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                            let (sx, sy) = ((2 * x + dx).min(w - 1), (2 * y + dy).min(h - 1));
                            let i = (face * h * w + sy * w + sx) as usize;
                            if let Some(t) = data.get(i) {
                                for (a, v) in acc.iter_mut().zip(t) {
                                    *a += v;
                                }
                                count += 1.0;
                            }
                        }
                        next.push(acc.map(|a| a / count));
                    }
                }
            }
            self.levels.push((nw, nh, next));
        }
    }
}

impl Texture for Image {
    fn is_cube(&self) -> bool {
        self.cube
    }
    fn levels(&self) -> u32 {
        self.levels.len() as u32
    }
    fn size(&self, level: u32) -> (u32, u32) {
        self.levels
            .get(level as usize)
            .map_or((1, 1), |(w, h, _)| (*w, *h))
    }
    fn texel(&self, face: u32, level: u32, x: u32, y: u32) -> Vec4 {
        self.levels
            .get(level as usize)
            .and_then(|(w, h, d)| d.get((face * h * w + y * w + x) as usize))
            .copied()
            .unwrap_or_default()
    }
}

/// The flags sampling uses: the instruction's, or the application's with `ignoresampler`.
pub(super) fn effective(s: &Sampler, textures: &dyn Textures) -> (Filter, Mipmap, Wrap) {
    if s.special.contains(Special::IGNORE_SAMPLER) {
        if let Some(st) = textures.sampler_state(s.index) {
            return (st.filter, st.mipmap, st.wrap);
        }
    }
    (s.filter, s.mipmap, s.wrap)
}

/// Where a coordinate lands: face and (s, t) in [0, 1] for cube maps, face 0 and (u, v) for 2D.
pub(super) fn project(dim: Dimension, c: Vec4) -> (u32, f32, f32) {
    if dim == Dimension::TwoD {
        return (0, c[0], c[1]);
    }
    let [x, y, z, _] = c;
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let face = if ax >= ay && ax >= az {
        if x >= 0.0 { 0 } else { 1 }
    } else if ay >= az {
        if y >= 0.0 { 2 } else { 3 }
    } else if z >= 0.0 {
        4
    } else {
        5
    };
    face_coords(face, c)
}

/// (s, t) of a direction on a given face (used for the neighbours' coordinates in LOD).
pub(super) fn face_coords(face: u32, c: Vec4) -> (u32, f32, f32) {
    let [x, y, z, _] = c;
    let (sc, tc, ma) = match face {
        0 => (-z, -y, x),
        1 => (z, -y, x),
        2 => (x, z, y),
        3 => (x, -z, y),
        4 => (x, -y, z),
        _ => (-x, -y, z),
    };
    let m = ma.abs();
    (face, (sc / m + 1.0) * 0.5, (tc / m + 1.0) * 0.5)
}

fn wrap_index(i: i64, n: u32, repeat: bool) -> u32 {
    let n = i64::from(n.max(1));
    let r = if repeat {
        i.rem_euclid(n)
    } else {
        i.clamp(0, n - 1)
    };
    r as u32
}

fn sample_level(
    tex: &dyn Texture,
    face: u32,
    level: u32,
    (u, v): (f32, f32),
    filter: Filter,
    (ru, rv): (bool, bool),
) -> Vec4 {
    let (w, h) = tex.size(level);
    let fw = w.max(1) as f32;
    let fh = h.max(1) as f32;
    let u = if ru { u - u.floor() } else { u };
    let v = if rv { v - v.floor() } else { v };
    if filter == Filter::Nearest {
        let x = wrap_index((u * fw).floor() as i64, w, ru);
        let y = wrap_index((v * fh).floor() as i64, h, rv);
        return tex.texel(face, level, x, y);
    }
    let (uu, vv) = (u * fw - 0.5, v * fh - 0.5);
    let (x0, y0) = (uu.floor(), vv.floor());
    let (fx, fy) = (uu - x0, vv - y0);
    let (x0, y0) = (x0 as i64, y0 as i64);
    let t = |dx: i64, dy: i64| {
        tex.texel(
            face,
            level,
            wrap_index(x0 + dx, w, ru),
            wrap_index(y0 + dy, h, rv),
        )
    };
    let (a, b, c, d) = (t(0, 0), t(1, 0), t(0, 1), t(1, 1));
    let mut out = [0.0; 4];
    for (i, o) in out.iter_mut().enumerate() {
        let top = a[i] + (b[i] - a[i]) * fx;
        let bottom = c[i] + (d[i] - c[i]) * fx;
        *o = top + (bottom - top) * fy;
    }
    out
}

/// Samples at a (projected) coordinate with a level of detail already computed (before the
/// bias).
pub(super) fn sample(
    tex: &dyn Texture,
    s: &Sampler,
    flags: (Filter, Mipmap, Wrap),
    (face, u, v): (u32, f32, f32),
    lod: f32,
) -> Vec4 {
    let (filter, mipmap, wrap) = flags;
    let repeat = if s.dimension == Dimension::TwoD {
        wrap.repeats()
    } else {
        (false, false)
    };
    let last = tex.levels().max(1) - 1;
    let lod = (lod + s.bias()).clamp(0.0, last as f32);
    let lod = if lod.is_nan() { 0.0 } else { lod };
    match mipmap {
        Mipmap::None => sample_level(tex, face, 0, (u, v), filter, repeat),
        Mipmap::Nearest => sample_level(tex, face, lod.round() as u32, (u, v), filter, repeat),
        Mipmap::Linear => {
            let lo = lod.floor() as u32;
            let hi = (lo + 1).min(last);
            let f = lod - lo as f32;
            let a = sample_level(tex, face, lo, (u, v), filter, repeat);
            let b = sample_level(tex, face, hi, (u, v), filter, repeat);
            let mut out = a;
            for (o, (x, y)) in out.iter_mut().zip(a.iter().zip(b)) {
                *o = x + (y - x) * f;
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checker() -> Image {
        // 2×2: red green / blue white
        Image::new_2d(
            2,
            2,
            vec![
                [1., 0., 0., 1.],
                [0., 1., 0., 1.],
                [0., 0., 1., 1.],
                [1., 1., 1., 1.],
            ],
        )
        .unwrap()
    }

    #[test]
    fn nearest_and_linear() {
        let t = checker();
        let mut s = Sampler::new(0);
        let n = (Filter::Nearest, Mipmap::None, Wrap::Clamp);
        assert_eq!(sample(&t, &s, n, (0, 0.75, 0.25), 0.0), [0., 1., 0., 1.]);
        assert_eq!(sample(&t, &s, n, (0, 1.75, 0.25), 0.0), [0., 1., 0., 1.]); // clamped
        let r = (Filter::Nearest, Mipmap::None, Wrap::Repeat);
        assert_eq!(sample(&t, &s, r, (0, 1.25, 0.25), 0.0), [1., 0., 0., 1.]);
        s.filter = Filter::Linear;
        let l = (Filter::Linear, Mipmap::None, Wrap::Clamp);
        assert_eq!(sample(&t, &s, l, (0, 0.5, 0.25), 0.0), [0.5, 0.5, 0., 1.]);
    }

    #[test]
    fn mip_chain_and_cube_faces() {
        let t = checker().with_mipmaps();
        assert_eq!(t.levels(), 2);
        assert_eq!(t.texel(0, 1, 0, 0), [0.5, 0.5, 0.5, 1.0]);
        assert_eq!(project(Dimension::Cube, [0.0, 0.0, -2.0, 0.0]).0, 5);
        assert_eq!(project(Dimension::Cube, [3.0, 1.0, 1.0, 0.0]).0, 0);
        let (_, s, t) = project(Dimension::Cube, [0.0, 1.0, 0.0, 0.0]);
        assert_eq!((s, t), (0.5, 0.5));
    }
}
