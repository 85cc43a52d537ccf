#version 450
// Particles as point sprites: the vertex shader moves each point into view space and passes
// its colour on; the geometry shader (sprite.g.pica, hand-written) makes the quad.

layout(location = 0) in vec3 inPosition;
layout(location = 1) in vec4 inColor;

layout(location = 0) out vec4 outColor;

layout(std140, binding = 0) uniform Scene {
    mat4 modelView;
};

void main() {
    gl_Position = modelView * vec4(inPosition, 1.0);
    outColor = inColor;
}
