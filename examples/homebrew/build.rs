//! Compiles the shaders under `shaders/` into OUT_DIR and writes `shaders.rs`, the module
//! `src/main.rs` includes. A bad shader fails the build with its file, rule and position.

use spv2retro::build::Shaders;
use spv2retro::{Options, Profile};

fn main() -> Result<(), spv2retro::Error> {
    Shaders::new()
        // The 3DS vertex program, from GLSL.
        .shader("shaders/vshader.vert", Options::pica())
        // A Stage3D pair, for an AIR port of the same game.
        .shader(
            "shaders/stage3d/sprite_vs.vert",
            Options::agal(Profile::Baseline),
        )
        .shader(
            "shaders/stage3d/sprite_fs.frag",
            Options::agal(Profile::Baseline),
        )
        .compile()?;
    Ok(())
}
