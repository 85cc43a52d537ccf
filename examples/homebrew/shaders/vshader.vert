#version 450
// The vertex shader of 3ds-examples' textured cube, in GLSL: transform by model-view and
// projection, pass the texture coordinate through, per-vertex diffuse light.

layout(location = 0) in vec3 inPosition;
layout(location = 1) in vec2 inTexCoord;
layout(location = 2) in vec3 inNormal;

layout(location = 0) out vec4 outColor;
layout(location = 1) out vec2 outTexCoord;

layout(std140, binding = 0) uniform Scene {
    mat4 projection;
    mat4 modelView;
    vec4 lightDir;
    vec4 lightColor;
    vec4 ambient;
};

void main() {
    gl_Position = projection * (modelView * vec4(inPosition, 1.0));
    vec3 n = normalize(mat3(modelView) * inNormal);
    float diffuse = max(dot(n, -lightDir.xyz), 0.0);
    outColor = ambient + lightColor * diffuse;
    outTexCoord = inTexCoord;
}
