//! Textures for fragment programs, and PNG in and out.
//!
//! The built-in textures are what a shader author recognises at a glance: a checkerboard
//! (8×8 squares, white and dark grey) shows how coordinates map, a gradient (red along u,
//! green along v) shows their values. Both are 64×64 with mipmaps; a cube map has the
//! checkerboard on every face, tinted per face.

use backend_agal::sim::Image;

use crate::Error;

/// The texture bound to a sampler when the user gives none: even bindings the checkerboard,
/// odd ones the gradient.
pub fn builtin(binding: u32, cube: bool) -> Image {
    let size = 64u32;
    let texel = |x: u32, y: u32| -> [f32; 4] {
        if binding.is_multiple_of(2) {
            if (x / 8 + y / 8).is_multiple_of(2) {
                [1.0, 1.0, 1.0, 1.0]
            } else {
                [0.2, 0.2, 0.25, 1.0]
            }
        } else {
            [
                (x as f32 + 0.5) / size as f32,
                (y as f32 + 0.5) / size as f32,
                0.5,
                1.0,
            ]
        }
    };
    if cube {
        let mut faces = Vec::new();
        for face in 0..6u32 {
            let tint = [
                [1.0, 0.6, 0.6],
                [0.6, 1.0, 0.6],
                [0.6, 0.6, 1.0],
                [1.0, 1.0, 0.6],
                [0.6, 1.0, 1.0],
                [1.0, 0.6, 1.0],
            ][face as usize];
            for y in 0..size {
                for x in 0..size {
                    let t = texel(x, y);
                    faces.push([t[0] * tint[0], t[1] * tint[1], t[2] * tint[2], 1.0]);
                }
            }
        }
        Image::new_cube(size, faces)
            .expect("sizes match")
            .with_mipmaps()
    } else {
        let texels = (0..size)
            .flat_map(|y| (0..size).map(move |x| (x, y)))
            .map(|(x, y)| texel(x, y))
            .collect();
        Image::new_2d(size, size, texels)
            .expect("sizes match")
            .with_mipmaps()
    }
}

/// The textures bound for a fragment program: those `given` by binding, and for each of its
/// `samplers` the user gave none, the built-in one.
pub(crate) fn bound(
    given: &[(u32, Image)],
    samplers: &[machine::reflect::SamplerInfo],
) -> Vec<(u32, Image)> {
    let mut bound = given.to_vec();
    for s in samplers {
        if !bound.iter().any(|(b, _)| *b == s.binding) {
            bound.push((s.binding, builtin(s.binding, s.dim == "cube")));
        }
    }
    bound
}

/// A texture of one colour (1×1), as `--texture B=r,g,b,a` gives one.
pub fn solid(color: [f32; 4]) -> Image {
    Image::new_2d(1, 1, vec![color]).expect("one texel")
}

/// A PNG file as a 2D texture (any colour type and bit depth, to RGBA floats in 0..1).
pub fn load_png(bytes: &[u8]) -> Result<Image, Error> {
    let mut decoder = png::Decoder::new(bytes);
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder
        .read_info()
        .map_err(|e| Error::Usage(format!("not a PNG image: {e}")))?;
    // The size from the header, before any pixel memory is taken.
    let (w, h) = (reader.info().width, reader.info().height);
    if w > 4096 || h > 4096 {
        return Err(Error::Usage(format!(
            "the image is {w}×{h}; textures are at most 4096×4096"
        )));
    }
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader
        .next_frame(&mut buf)
        .map_err(|e| Error::Usage(format!("the PNG image does not decode: {e}")))?;
    let channels = info.color_type.samples();
    let texels = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|c| {
            let f = |v: u8| f32::from(v) / 255.0;
            match c {
                [g] => [f(*g), f(*g), f(*g), 1.0],
                [g, a] => [f(*g), f(*g), f(*g), f(*a)],
                [r, g, b] => [f(*r), f(*g), f(*b), 1.0],
                [r, g, b, a] => [f(*r), f(*g), f(*b), f(*a)],
                _ => [0.0; 4],
            }
        })
        .collect();
    Image::new_2d(w, h, texels)
        .map(Image::with_mipmaps)
        .ok_or_else(|| Error::Usage("the PNG image is empty".into()))
}

/// RGBA8 pixels, row after row, as a PNG file (the same bytes for the same pixels).
pub fn encode_png(width: u32, height: u32, rgba: &[u8]) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder
            .write_header()
            .map_err(|e| Error::Io(format!("cannot write the PNG: {e}")))?;
        writer
            .write_image_data(rgba)
            .map_err(|e| Error::Io(format!("cannot write the PNG: {e}")))?;
    }
    Ok(out)
}
