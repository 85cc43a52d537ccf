//! The texture combiners run on bytes, as Citra's software renderer runs them
//! (`pica200-fragment-pipeline.md` §3–§5): each stage's operands, its function on bytes,
//! clamping, the scale, the combiner buffer's one-stage delay and the alpha test.

use super::config::{Channel, Combiner, Func, Source, TexEnv};

/// A fragment's inputs: the interpolated vertex colour and the texture units' samples, as
/// bytes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Inputs {
    /// GPU_PRIMARY_COLOR.
    pub primary: [u8; 4],
    /// Units 0, 1, 2.
    pub textures: [[u8; 4]; 3],
}

/// A float in [0, 1] as the byte the hardware holds (rounded to nearest).
pub fn to_byte(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// The fragment's colour, or `None` when the alpha test discards it.
pub fn run(t: &TexEnv, inputs: &Inputs) -> Option<[u8; 4]> {
    let mut previous = [0u8; 4];
    // What the buffer holds for the stage about to run, and what the next one will see.
    let mut buffer = [0u8; 4];
    let mut next_buffer = t.buffer_color;
    for (k, s) in t.stages.iter().enumerate() {
        let plain = |src: Source, previous: [u8; 4], buffer: [u8; 4]| -> [u8; 4] {
            match src {
                Source::PrimaryColor => inputs.primary,
                Source::Texture(u) => inputs.textures.get(u as usize).copied().unwrap_or([0; 4]),
                // Stage 0 reads 0 from the buffer.
                Source::PreviousBuffer if k == 0 => [0; 4],
                Source::PreviousBuffer => buffer,
                Source::Constant => s.color.bytes(),
                Source::Previous if k == 0 => inputs.primary,
                Source::Previous => previous,
            }
        };
        let read = |src: Source, previous: [u8; 4], buffer: [u8; 4], c: &Combiner| -> [u8; 4] {
            // Stage 0: a source 1 or 2 of GPU_PREVIOUS reads the combiner's source 3 (the
            // compiler never writes one; listed for configurations read back).
            if k == 0 && src == Source::Previous {
                plain(c.sources[2], previous, buffer)
            } else {
                plain(src, previous, buffer)
            }
        };
        let operands = |c: &Combiner, alpha: bool| -> [[u8; 3]; 3] {
            std::array::from_fn(|i| {
                let v = read(c.sources[i], previous, buffer, c);
                let o = c.operands[i];
                let pick = |ch: Channel| -> [u8; 3] {
                    match ch {
                        Channel::Rgb if !alpha => [v[0], v[1], v[2]],
                        Channel::Rgb | Channel::A => [v[3]; 3],
                        Channel::R => [v[0]; 3],
                        Channel::G => [v[1]; 3],
                        Channel::B => [v[2]; 3],
                    }
                };
                let x = pick(o.channel);
                if o.one_minus { x.map(|b| 255 - b) } else { x }
            })
        };
        let rgb_ops = operands(&s.rgb, false);
        let a_ops = operands(&s.alpha, true);
        let rgb = combine(s.rgb.func, &rgb_ops, s.rgb.scale);
        let alpha = if s.rgb.func == Func::Dot3Rgba {
            rgb[0]
        } else {
            combine(s.alpha.func, &a_ops, s.alpha.scale)[0]
        };
        let out = [rgb[0], rgb[1], rgb[2], alpha];
        // The buffer lags a stage: stage k+1 sees what stage k-1 wrote.
        buffer = next_buffer;
        if k < 4 {
            if s.update_rgb {
                next_buffer[..3].copy_from_slice(&out[..3]);
            }
            if s.update_alpha {
                next_buffer[3] = out[3];
            }
        }
        previous = out;
    }
    match t.alpha_test {
        Some(a) if !a.func.passes(previous[3], a.reference) => None,
        _ => Some(previous),
    }
}

/// One combiner on bytes (Citra's software formulas), then the scale.
fn combine(f: Func, o: &[[u8; 3]; 3], scale: u8) -> [u8; 3] {
    let (a, b, c) = (o[0], o[1], o[2]);
    let lane = |i: usize| -> u32 {
        let (x, y, z) = (u32::from(a[i]), u32::from(b[i]), u32::from(c[i]));
        match f {
            Func::Replace => x,
            Func::Modulate => x * y / 255,
            Func::Add => (x + y).min(255),
            Func::AddSigned => (x as i32 + y as i32 - 128).clamp(0, 255) as u32,
            Func::Interpolate => (x * z + y * (255 - z)) / 255,
            Func::Subtract => x.saturating_sub(y),
            Func::MultiplyAdd => ((x * y + 255 * z) / 255).min(255),
            Func::AddMultiply => (x + y).min(255) * z / 255,
            Func::Dot3Rgb | Func::Dot3Rgba => {
                let d: i32 = (0..3)
                    .map(|k| {
                        ((2 * i32::from(a[k]) - 255) * (2 * i32::from(b[k]) - 255) + 128) / 256
                    })
                    .sum();
                d.clamp(0, 255) as u32
            }
        }
    };
    std::array::from_fn(|i| (lane(i) * u32::from(scale.max(1))).min(255) as u8)
}
