// One triangle covering the whole viewport, for passes that draw every pixel of their target
// (mipmap levels, environment faces, the BRDF table). `uv` is 0…1 across the target, y down.

struct FullscreenOutput {
  @builtin(position) position: vec4f,
  @location(0) uv: vec2f,
}

@vertex
fn vsFullscreen(@builtin(vertex_index) index: u32) -> FullscreenOutput {
  // (0,0), (2,0), (0,2) in uv: one triangle covering the whole viewport.
  let uv = vec2f(f32((index << 1u) & 2u), f32(index & 2u));
  var out: FullscreenOutput;
  out.position = vec4f(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0, 0.0, 1.0);
  out.uv = uv;
  return out;
}
