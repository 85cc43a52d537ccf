//! The configuration as text: a listing (one line per stage, `--emit asm`) and a C header
//! whose `static inline` function sets it up through citro3d's API (`--emit c`).

use std::fmt::Write;

use super::config::{Color, Combiner, TexEnv, TextureKind};

fn combiner(c: &Combiner) -> String {
    let args: Vec<String> = (0..c.func.arity())
        .map(|k| c.operands[k].spell(c.sources[k]))
        .collect();
    let scale = if c.scale > 1 {
        format!(" * {}", c.scale)
    } else {
        String::new()
    };
    format!("{}({}){scale}", c.func.short(), args.join(", "))
}

fn color(c: &Color) -> String {
    match c {
        Color::Bytes(b) => format!("#{:02x}{:02x}{:02x}{:02x}", b[0], b[1], b[2], b[3]),
        Color::Uniform { name, .. } => format!("uniform {name}"),
    }
}

/// The listing: a comment header naming the units and the colour varying, one line per
/// stage that computes, the buffer and the alpha test.
pub fn listing(t: &TexEnv, source: &str) -> String {
    let mut out = format!("; texture combiners of {source} (spv2pica)\n");
    for u in &t.textures {
        let _ = writeln!(
            out,
            "; unit {}: {} ({}) at {} = varying {}",
            u.unit,
            u.sampler,
            match u.kind {
                TextureKind::D2 => "2d",
                TextureKind::Cube => "cube",
            },
            u.texcoord(),
            u.varying
        );
    }
    if let Some((c, _)) = &t.color {
        let _ = writeln!(out, "; primary colour: varying {c}");
    }
    let used = t.stages_used().max(1);
    for (k, s) in t.stages[..used].iter().enumerate() {
        let mut buffer = Vec::new();
        if s.update_rgb {
            buffer.push("rgb");
        }
        if s.update_alpha {
            buffer.push("alpha");
        }
        let _ = writeln!(
            out,
            "stage {k}: rgb = {}; alpha = {}; constant {}{}",
            combiner(&s.rgb),
            combiner(&s.alpha),
            color(&s.color),
            if buffer.is_empty() {
                String::new()
            } else {
                format!("; to buffer {}", buffer.join(", "))
            }
        );
    }
    if used < 6 {
        let _ = writeln!(out, "; stages {used}-5 pass the result on");
    }
    let b = t.buffer_color;
    let _ = writeln!(
        out,
        "buffer colour #{:02x}{:02x}{:02x}{:02x}",
        b[0], b[1], b[2], b[3]
    );
    match t.alpha_test {
        Some(a) => {
            let _ = writeln!(out, "alpha test: keep {} {}", a.func.name(), a.reference);
        }
        None => out.push_str("alpha test: off\n"),
    }
    out
}

/// `name` as a C identifier (letters, digits and `_`; not starting with a digit).
pub fn c_identifier(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

fn mode_calls(out: &mut String, call: &str, rgb: String, alpha: String) {
    if rgb == alpha {
        let _ = writeln!(out, "    {call}(env, C3D_Both, {rgb});");
    } else {
        let _ = writeln!(out, "    {call}(env, C3D_RGB, {rgb});");
        let _ = writeln!(out, "    {call}(env, C3D_Alpha, {alpha});");
    }
}

/// The C header: `static inline void PREFIX_texenv(void)` sets all six stages, the buffer
/// and the alpha test through citro3d; `PREFIX_set_NAME(r, g, b, a)` sets the stage colour
/// a uniform became (floats in [0, 1], as the shader's uniform).
pub fn c_header(t: &TexEnv, prefix: &str, source: &str) -> String {
    let p = c_identifier(prefix);
    let guard = format!("{}_TEXENV_H", p.to_ascii_uppercase());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "/* The 3DS fragment stage of {source}: its texture combiners, compiled by spv2pica.\n\
         \x20* Call {p}_texenv() once before drawing with it (it sets all six stages, the\n\
         \x20* combiner buffer and the alpha test through citro3d)."
    );
    for u in &t.textures {
        let _ = writeln!(
            out,
            " * Texture unit {}: bind the texture of sampler \"{}\" with C3D_TexBind({}, tex){}; \
             its coordinates are the vertex output with semantic {} (varying \"{}\").",
            u.unit,
            u.sampler,
            u.unit,
            if u.kind == TextureKind::Cube {
                " (a cube map)"
            } else {
                ""
            },
            u.texcoord(),
            u.varying
        );
    }
    if let Some((c, _)) = &t.color {
        let _ = writeln!(
            out,
            " * The vertex colour (semantic color, GPU_PRIMARY_COLOR) is the varying \"{c}\"."
        );
    }
    out.push_str(" */\n");
    let _ = writeln!(
        out,
        "#ifndef {guard}\n#define {guard}\n\n#include <citro3d.h>\n"
    );
    let _ = writeln!(
        out,
        "static inline void {p}_texenv(void)\n{{\n    C3D_TexEnv* env;"
    );
    for (k, s) in t.stages.iter().enumerate() {
        let _ = writeln!(
            out,
            "    env = C3D_GetTexEnv({k});\n    C3D_TexEnvInit(env);"
        );
        if s.is_pass_through() {
            continue;
        }
        let src = |c: &Combiner| {
            c.sources
                .iter()
                .map(|x| x.name())
                .collect::<Vec<_>>()
                .join(", ")
        };
        mode_calls(&mut out, "C3D_TexEnvSrc", src(&s.rgb), src(&s.alpha));
        let ops_rgb = s
            .rgb
            .operands
            .iter()
            .map(|o| o.rgb_name())
            .collect::<Vec<_>>()
            .join(", ");
        let ops_alpha = s
            .alpha
            .operands
            .iter()
            .map(|o| o.alpha_name())
            .collect::<Vec<_>>()
            .join(", ");
        let _ = writeln!(out, "    C3D_TexEnvOpRgb(env, {ops_rgb});");
        let _ = writeln!(out, "    C3D_TexEnvOpAlpha(env, {ops_alpha});");
        mode_calls(
            &mut out,
            "C3D_TexEnvFunc",
            s.rgb.func.name().into(),
            s.alpha.func.name().into(),
        );
        if s.color.word() != 0xFFFF_FFFF {
            let _ = writeln!(out, "    C3D_TexEnvColor(env, 0x{:08X}u);", s.color.word());
        }
        if s.rgb.scale != 1 || s.alpha.scale != 1 {
            mode_calls(
                &mut out,
                "C3D_TexEnvScale",
                s.rgb.scale_name().into(),
                s.alpha.scale_name().into(),
            );
        }
    }
    let (rgb, alpha) = t.update_masks();
    let _ = writeln!(out, "    C3D_TexEnvBufUpdate(C3D_RGB, 0x{rgb:X});");
    let _ = writeln!(out, "    C3D_TexEnvBufUpdate(C3D_Alpha, 0x{alpha:X});");
    let _ = writeln!(
        out,
        "    C3D_TexEnvBufColor(0x{:08X}u);",
        u32::from_le_bytes(t.buffer_color)
    );
    match t.alpha_test {
        Some(a) => {
            let _ = writeln!(
                out,
                "    C3D_AlphaTest(true, {}, {});",
                a.func.name(),
                a.reference
            );
        }
        None => out.push_str("    C3D_AlphaTest(false, GPU_ALWAYS, 0);\n"),
    }
    out.push_str("}\n");
    // Setters for the uniforms that are stage colours.
    for (name, stages) in t.uniform_colors() {
        let id = c_identifier(&name);
        let _ = writeln!(
            out,
            "\n/* The uniform \"{name}\": the constant colour of stage{} {}; r, g, b, a in [0, 1]. */\n\
             static inline void {p}_set_{id}(float r, float g, float b, float a)\n{{\n    \
             float v[4] = {{ r, g, b, a }};\n    u32 rgba = 0;\n    int i;\n    \
             for (i = 0; i < 4; i++) {{\n        float x = v[i] < 0.0f ? 0.0f : v[i] > 1.0f ? 1.0f : v[i];\n        \
             rgba |= (u32)(x * 255.0f + 0.5f) << (8 * i);\n    }}",
            if stages.len() > 1 { "s" } else { "" },
            stages
                .iter()
                .map(|k| k.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        for k in stages {
            let _ = writeln!(out, "    C3D_TexEnvColor(C3D_GetTexEnv({k}), rgba);");
        }
        out.push_str("}\n");
    }
    let _ = writeln!(out, "\n#endif /* {guard} */");
    out
}
