#version 450
// Starling-style textured quad: one matrix, a texture coordinate and a tint.

layout(location = 0) in vec4 position;
layout(location = 1) in vec2 uv;

layout(location = 0) out vec2 vUv;

layout(std140, binding = 0) uniform Transform {
    mat4 mvp;
};

void main() {
    gl_Position = mvp * position;
    vUv = uv;
}
