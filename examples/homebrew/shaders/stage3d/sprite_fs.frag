#version 450

layout(location = 0) in vec2 vUv;
layout(location = 0) out vec4 color;

layout(set = 0, binding = 1) uniform texture2D atlas;
layout(set = 0, binding = 2) uniform sampler atlasSampler;
layout(std140, binding = 0) uniform Material {
    vec4 tint;
};

void main() {
    color = texture(sampler2D(atlas, atlasSampler), vUv) * tint * 2.0;
}
