// A lit, textured mesh: the vertex shader lights each vertex into its colour.
#version 450
layout(location = 0) in vec4 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec2 texcoord;
layout(location = 0) out vec2 uv;
layout(location = 1) out vec4 shade;
layout(binding = 0) uniform Scene { mat4 mvp; vec4 light; };
void main() {
    gl_Position = mvp * position;
    uv = texcoord;
    float lambert = max(dot(normal, light.xyz), 0.0);
    shade = vec4(vec3(0.2 + 0.8 * lambert), 1.0);
}
