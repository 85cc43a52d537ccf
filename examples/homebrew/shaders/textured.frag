// The texture times the lighting, tinted; fragments whose alpha is under a half are cut
// (the 3DS's alpha test).
#version 450
layout(location = 0) in vec2 uv;
layout(location = 1) in vec4 shade;
layout(binding = 0) uniform sampler2D albedo;
layout(binding = 1) uniform Material { vec4 tint; };
layout(location = 0) out vec4 color;
void main() {
    vec4 c = texture(albedo, uv) * shade * tint;
    if (c.a < 0.5) discard;
    color = c;
}
