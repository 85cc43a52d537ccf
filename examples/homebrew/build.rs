//! Compiles the shaders under `shaders/` into OUT_DIR and writes `shaders.rs`, the module
//! `src/main.rs` includes. A bad shader fails the build with its file, rule and position.

use spv2retro::build::Shaders;
use spv2retro::{Options, Profile};

fn main() -> Result<(), spv2retro::Error> {
    Shaders::new()
        // The 3DS vertex program, from GLSL.
        .shader("shaders/vshader.vert", Options::pica())
        // Particle sprites: a GLSL vertex shader linked with a hand-written geometry shader
        // into one .shbin, as `picasso -o sprite.shbin sprite.vert sprite.g.pica` would.
        .linked(
            "sprite",
            ["shaders/sprite.vert", "shaders/sprite.g.pica"],
            Options::pica(),
        )
        // A lit, textured mesh: the fragment shader becomes the texture combiners'
        // configuration, and the vertex outputs get the semantics it reads.
        .linked(
            "textured",
            ["shaders/textured.vert", "shaders/textured.frag"],
            Options::pica(),
        )
        // A Stage3D pair, for an AIR port of the same game.
        .shader(
            "shaders/stage3d/sprite_vs.vert",
            Options::agal(Profile::Baseline),
        )
        .shader(
            "shaders/stage3d/sprite_fs.frag",
            Options::agal(Profile::Baseline),
        )
        // Hand-written AGALMiniAssembler text, assembled and checked against Flash's rules.
        .shader(
            "shaders/stage3d/tint.frag.agalasm",
            Options::agal(Profile::Baseline),
        )
        .compile()?;
    Ok(())
}
