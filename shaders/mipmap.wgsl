// Mipmap generation: each level is drawn from the one above it with one full-screen
// triangle and a linear (box-equivalent at exactly half size) filter. On …-srgb views
// the sampler decodes and the target encodes, so filtering happens in linear light.
// After fullscreen.wgsl (vsFullscreen).

@group(0) @binding(0) var sourceTexture: texture_2d<f32>;
@group(0) @binding(1) var sourceSampler: sampler;

@fragment
fn fsDownsample(in: FullscreenOutput) -> @location(0) vec4f {
  return textureSample(sourceTexture, sourceSampler, in.uv);
}
