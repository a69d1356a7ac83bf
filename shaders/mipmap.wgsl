// Mipmap generation: each level is drawn from the one above it with one full-screen
// triangle and a linear (box-equivalent at exactly half size) filter. On …-srgb views
// the sampler decodes and the target encodes, so filtering happens in linear light.

struct FullscreenOutput {
  @builtin(position) position: vec4f,
  @location(0) uv: vec2f,
}

@group(0) @binding(0) var sourceTexture: texture_2d<f32>;
@group(0) @binding(1) var sourceSampler: sampler;

@vertex
fn vsFullscreen(@builtin(vertex_index) index: u32) -> FullscreenOutput {
  // (0,0), (2,0), (0,2) in uv: one triangle covering the whole viewport.
  let uv = vec2f(f32((index << 1u) & 2u), f32(index & 2u));
  var out: FullscreenOutput;
  out.position = vec4f(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0, 0.0, 1.0);
  out.uv = uv;
  return out;
}

@fragment
fn fsDownsample(in: FullscreenOutput) -> @location(0) vec4f {
  return textureSample(sourceTexture, sourceSampler, in.uv);
}
