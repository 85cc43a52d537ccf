//! What a 3DS homebrew's renderer does with its shaders, minus the hardware: the program's
//! bytes come from `include_bytes!` (4-byte aligned, as `DVLB_ParseFile` reads words) and the
//! uniform locations are constants, not string look-ups. On the console this would be
//!
//! ```text
//! let dvlb = DVLB_ParseFile(shaders::vshader::BYTES.as_ptr() as *mut u32,
//!                           shaders::vshader::BYTES.len() as u32);
//! C3D_FVUnifMtx4x4(GPU_VERTEX_SHADER, shaders::vshader::PROJECTION.register as i32, &projection);
//! ```
//!
//! Here it prints what it would upload, one line per uniform, which the workspace's
//! integration test compares with the reflection.

mod shaders {
    include!(concat!(env!("OUT_DIR"), "/shaders.rs"));
}

/// The same vertex shader as citro3d-rs's `include_shader!` gives it: the `.shbin` alone,
/// compiled while this crate compiles (the path is relative to the crate's folder).
static SHADER: &[u8] = spv2retro_macros::include_shader!("shaders/vshader.vert");

/// A program's name, bytes and uniforms.
type Program = (
    &'static str,
    &'static [u8],
    &'static [(&'static str, shaders::Uniform)],
);

fn main() {
    let programs: [Program; 6] = [
        (
            "vshader",
            shaders::vshader::BYTES,
            shaders::vshader::UNIFORMS,
        ),
        ("sprite", shaders::sprite::BYTES, shaders::sprite::UNIFORMS),
        (
            "sprite.geometry",
            shaders::sprite::BYTES,
            shaders::sprite::geometry::UNIFORMS,
        ),
        (
            "sprite_vs",
            shaders::sprite_vs::BYTES,
            shaders::sprite_vs::UNIFORMS,
        ),
        (
            "sprite_fs",
            shaders::sprite_fs::BYTES,
            shaders::sprite_fs::UNIFORMS,
        ),
        ("tint", shaders::tint::BYTES, shaders::tint::UNIFORMS),
    ];
    for (name, bytes, uniforms) in programs {
        let aligned = (bytes.as_ptr() as usize).is_multiple_of(4);
        println!("program {name} {} bytes aligned={aligned}", bytes.len());
        for (uniform, u) in uniforms {
            println!(
                "uniform {name} {uniform} {}{} {} {}",
                u.file, u.register, u.component, u.count
            );
        }
    }
    // `include_shader!`'s bytes: what `spv2pica shaders/vshader.vert` writes, aligned.
    let aligned = (SHADER.as_ptr() as usize).is_multiple_of(4);
    println!(
        "include_shader vshader {} bytes aligned={aligned}",
        SHADER.len()
    );
    let hex: String = SHADER.iter().map(|b| format!("{b:02x}")).collect();
    println!("include_shader vshader bytes {hex}");
    // The matrices a citro3d renderer uploads, by constant rather than by name.
    let projection = shaders::vshader::PROJECTION;
    let model_view = shaders::vshader::MODEL_VIEW;
    println!(
        "upload projection to c{}..c{}, modelView to c{}..c{}",
        projection.register,
        projection.register + projection.count - 1,
        model_view.register,
        model_view.register + model_view.count - 1
    );
    // The sprite program's geometry shader has its own uniform space (GPU_GEOMETRY_SHADER).
    let size = shaders::sprite::geometry::SIZE;
    println!("upload the sprite size to geometry c{}", size.register);
    for (register, value) in shaders::sprite_fs::CONSTANTS {
        println!("constant sprite_fs fc{register} {value:?}");
    }
    // The textured mesh's fragment stage: on the console, each stage's five words are a
    // C3D_TexEnv (`*C3D_GetTexEnv(k) = transmute(STAGES[k])`), or WORDS go to
    // GPUCMD_AddRawCommands.
    let texenv = &shaders::textured::texenv::STAGES;
    for (k, words) in texenv.iter().enumerate() {
        println!(
            "texenv textured stage {k} {}",
            words.map(|w| format!("{w:08x}")).join(" ")
        );
    }
    println!(
        "texenv textured alpha_test {:08x} words {}",
        shaders::textured::texenv::ALPHA_TEST,
        shaders::textured::texenv::WORDS.len()
    );
    for (name, stages) in shaders::textured::texenv::COLORS {
        println!("texenv textured color {name} stages {stages:?}");
    }
}
