//! Modules made in the test by naga (its GLSL and WGSL front ends, its SPIR-V back end): a
//! second producer besides glslang, with its own habits (no OpSelectionMerge-free branches,
//! loop bounding counters, OpSampledImage from separate textures and samplers). All must be
//! accepted.

use frontend_spirv::{Input, Options};
use naga::back::spv;
use naga::valid::{Capabilities, ValidationFlags, Validator};

fn spirv_from_module(module: &naga::Module, what: &str) -> Vec<u8> {
    let info = Validator::new(ValidationFlags::all(), Capabilities::default())
        .validate(module)
        .unwrap_or_else(|e| panic!("{what}: naga validation: {e:?}"));
    let options = spv::Options {
        lang_version: (1, 0),
        ..spv::Options::default()
    };
    let words = spv::write_vec(module, &info, &options, None)
        .unwrap_or_else(|e| panic!("{what}: naga SPIR-V output: {e}"));
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn from_glsl(source: &str, stage: naga::ShaderStage) -> Vec<u8> {
    let module = naga::front::glsl::Frontend::default()
        .parse(&naga::front::glsl::Options::from(stage), source)
        .unwrap_or_else(|e| panic!("naga GLSL front end: {e:?}\n{source}"));
    spirv_from_module(&module, source)
}

fn from_wgsl(source: &str) -> Vec<u8> {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("naga WGSL front end: {e:?}\n{source}"));
    spirv_from_module(&module, source)
}

fn accept(bytes: &[u8], what: &str) {
    if let Err(diags) = frontend_spirv::load(Input::Binary(bytes), &Options::default()) {
        panic!("{}", diags.render(what, None));
    }
}

const VERTEX: &[&str] = &[
    // MVP transform with a color.
    r#"#version 450
layout(location = 0) in vec4 position;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 v_color;
layout(set = 0, binding = 0) uniform Camera { mat4 mvp; };
void main() { v_color = color; gl_Position = mvp * position; }
"#,
    // Lighting with a loop over lights and a branch.
    r#"#version 450
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 0) out vec4 v_color;
struct Light { vec4 position; vec4 color; };
layout(set = 0, binding = 0) uniform Scene {
    mat4 projection; mat4 modelView; mat3 normalMatrix; Light lights[4]; int lightCount;
};
void main() {
    vec3 n = normalize(normalMatrix * normal);
    vec4 eye = modelView * vec4(position, 1.0);
    vec3 total = vec3(0.05);
    for (int i = 0; i < 4; i++) {
        if (i >= lightCount) { break; }
        vec3 l = normalize(lights[i].position.xyz - eye.xyz);
        float d = max(dot(n, l), 0.0);
        if (d > 0.0) {
            total += lights[i].color.rgb * d;
        } else {
            continue;
        }
    }
    v_color = vec4(clamp(total, 0.0, 1.0), 1.0);
    gl_Position = projection * eye;
}
"#,
    // Skinning with a bone palette and helper functions.
    r#"#version 450
layout(location = 0) in vec4 position;
layout(location = 1) in vec4 weights;
layout(location = 2) in vec4 indices;
layout(location = 0) out vec2 v_uv;
layout(set = 0, binding = 0) uniform Bones { mat4 palette[16]; mat4 viewProjection; };
vec4 skin(vec4 p, int bone, float w) { return palette[bone] * p * w; }
void main() {
    vec4 p = skin(position, int(indices.x), weights.x) + skin(position, int(indices.y), weights.y);
    v_uv = p.xy * 0.5 + 0.5;
    gl_Position = viewProjection * p;
}
"#,
    // A switch and a while loop.
    r#"#version 450
layout(location = 0) in vec4 position;
layout(location = 0) out vec4 v_color;
layout(set = 0, binding = 0) uniform Params { int mode; float time; };
void main() {
    vec4 c = vec4(0.0);
    switch (mode) {
        case 0: c = vec4(1.0, 0.0, 0.0, 1.0); break;
        case 1: c = vec4(0.0, 1.0, 0.0, 1.0); break;
        default: c = vec4(fract(time));
    }
    float t = time;
    while (t > 1.0) { t -= 1.0; }
    v_color = c * t;
    gl_Position = position;
}
"#,
];

const FRAGMENT: &[&str] = &[
    // Textured and tinted, with separate texture and sampler.
    r#"#version 450
layout(location = 0) in vec2 v_uv;
layout(location = 1) in vec4 v_color;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 0) uniform texture2D tex;
layout(set = 0, binding = 1) uniform sampler samp;
void main() { o_color = texture(sampler2D(tex, samp), v_uv) * v_color; }
"#,
    // Alpha test with discard.
    r#"#version 450
layout(location = 0) in vec2 v_uv;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 0) uniform texture2D tex;
layout(set = 0, binding = 1) uniform sampler samp;
layout(set = 0, binding = 2) uniform Cut { float threshold; };
void main() {
    vec4 c = texture(sampler2D(tex, samp), v_uv);
    if (c.a < threshold) { discard; }
    o_color = c;
}
"#,
    // Per-pixel Phong with pow and reflect.
    r#"#version 450
layout(location = 0) in vec3 v_normal;
layout(location = 1) in vec3 v_eye;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 0) uniform Material { vec4 diffuse; vec4 specular; vec3 lightDir; float shininess; };
void main() {
    vec3 n = normalize(v_normal);
    vec3 r = reflect(-lightDir, n);
    float s = pow(max(dot(r, normalize(-v_eye)), 0.0), shininess);
    o_color = diffuse * max(dot(n, lightDir), 0.0) + specular * s;
}
"#,
    // Fog with mix, smoothstep and a cube map.
    r#"#version 450
layout(location = 0) in vec3 v_dir;
layout(location = 1) in float v_depth;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 0) uniform textureCube sky;
layout(set = 0, binding = 1) uniform sampler samp;
layout(set = 0, binding = 2) uniform Fog { vec4 fogColor; float fogStart; float fogEnd; };
void main() {
    vec4 c = texture(samplerCube(sky, samp), v_dir);
    float f = smoothstep(fogStart, fogEnd, v_depth);
    o_color = mix(c, fogColor, f);
}
"#,
];

const WGSL: &[&str] = &[
    r#"
struct Camera { mvp: mat4x4<f32> }
@group(0) @binding(0) var<uniform> camera: Camera;
struct Out { @builtin(position) pos: vec4<f32>, @location(0) color: vec4<f32> }
@vertex fn main(@location(0) p: vec4<f32>, @location(1) c: vec4<f32>) -> Out {
    var o: Out;
    o.pos = camera.mvp * p;
    o.color = select(c, vec4<f32>(1.0), p.x > 0.0);
    return o;
}
"#,
    r#"
@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@fragment fn main(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {
    var acc = vec4<f32>(0.0);
    for (var i = 0; i < 5; i++) {
        let offset = vec2<f32>(f32(i - 2) * 0.01, 0.0);
        acc += textureSample(t, s, uv + offset) * 0.2;
    }
    return acc;
}
"#,
];

#[test]
fn naga_glsl_vertex_shaders_are_accepted() {
    for (i, source) in VERTEX.iter().enumerate() {
        accept(
            &from_glsl(source, naga::ShaderStage::Vertex),
            &format!("naga vertex #{i}"),
        );
    }
}

#[test]
fn naga_glsl_fragment_shaders_are_accepted() {
    for (i, source) in FRAGMENT.iter().enumerate() {
        accept(
            &from_glsl(source, naga::ShaderStage::Fragment),
            &format!("naga fragment #{i}"),
        );
    }
}

#[test]
fn naga_wgsl_shaders_are_accepted() {
    for (i, source) in WGSL.iter().enumerate() {
        accept(&from_wgsl(source), &format!("naga wgsl #{i}"));
    }
}
