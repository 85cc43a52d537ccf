//! A triangle rasteriser with a depth buffer: clip-space triangles in, for each covered pixel
//! (centre sampled) the nearest triangle's attributes, interpolated perspective-correctly.
//!
//! Clip space is GL's: x and y from −1 (left, bottom) to 1, z from −1 (near) to 1 (far) after
//! the divide by w. Triangles with a vertex at w ≤ 0 (behind the eye) are skipped rather than
//! clipped; both windings are drawn.

/// The pixels drawn so far.
#[derive(Clone, Debug)]
pub struct Target {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    depth: Vec<f32>,
    /// Per pixel: the attributes of the nearest triangle drawn there, if any.
    pub attributes: Vec<Option<Vec<[f32; 4]>>>,
}

impl Target {
    /// An empty target.
    pub fn new(width: usize, height: usize) -> Target {
        Target {
            width,
            height,
            depth: vec![f32::INFINITY; width * height],
            attributes: vec![None; width * height],
        }
    }

    /// Draws one triangle: its clip-space positions and, per vertex, its attributes.
    pub fn triangle(&mut self, clip: [[f32; 4]; 3], attributes: [&[[f32; 4]]; 3]) {
        if clip.iter().any(|p| {
            p[3].partial_cmp(&1e-6) != Some(std::cmp::Ordering::Greater)
                || p.iter().any(|c| !c.is_finite())
        }) {
            return;
        }
        let (w, h) = (self.width as f32, self.height as f32);
        let screen: [[f32; 3]; 3] = clip.map(|p| {
            [
                (p[0] / p[3] + 1.0) * 0.5 * w,
                (1.0 - p[1] / p[3]) * 0.5 * h,
                p[2] / p[3],
            ]
        });
        let edge = |a: [f32; 3], b: [f32; 3], x: f32, y: f32| {
            (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0])
        };
        let area = edge(screen[0], screen[1], screen[2][0], screen[2][1]);
        if area.abs() < 1e-12 {
            return;
        }
        let min_x = screen.iter().map(|s| s[0]).fold(f32::INFINITY, f32::min);
        let max_x = screen
            .iter()
            .map(|s| s[0])
            .fold(f32::NEG_INFINITY, f32::max);
        let min_y = screen.iter().map(|s| s[1]).fold(f32::INFINITY, f32::min);
        let max_y = screen
            .iter()
            .map(|s| s[1])
            .fold(f32::NEG_INFINITY, f32::max);
        let x0 = (min_x.floor().max(0.0)) as usize;
        let x1 = (max_x.ceil().min(w)) as usize;
        let y0 = (min_y.floor().max(0.0)) as usize;
        let y1 = (max_y.ceil().min(h)) as usize;
        let inv_w = clip.map(|p| 1.0 / p[3]);
        let n = attributes.iter().map(|a| a.len()).min().unwrap_or(0);
        for py in y0..y1 {
            for px in x0..x1 {
                let (x, y) = (px as f32 + 0.5, py as f32 + 0.5);
                let b = [
                    edge(screen[1], screen[2], x, y) / area,
                    edge(screen[2], screen[0], x, y) / area,
                    edge(screen[0], screen[1], x, y) / area,
                ];
                if b.iter().any(|&v| v < 0.0) {
                    continue;
                }
                let z = b[0] * screen[0][2] + b[1] * screen[1][2] + b[2] * screen[2][2];
                let k = py * self.width + px;
                if !(-1.0..=1.0).contains(&z) || z >= self.depth[k] {
                    continue;
                }
                self.depth[k] = z;
                // Perspective-correct weights.
                let pw = [b[0] * inv_w[0], b[1] * inv_w[1], b[2] * inv_w[2]];
                let sum = pw[0] + pw[1] + pw[2];
                let wt = pw.map(|v| v / sum);
                let values = (0..n)
                    .map(|a| {
                        std::array::from_fn(|l| {
                            wt[0] * attributes[0][a][l]
                                + wt[1] * attributes[1][a][l]
                                + wt[2] * attributes[2][a][l]
                        })
                    })
                    .collect();
                self.attributes[k] = Some(values);
            }
        }
    }
}
