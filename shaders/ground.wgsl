// The ground disc's frame draw (src/gpu/frame/ground.ts), in the mesh module: it reads the frame
// uniforms and the key light's shadow lookup (keyLightVisibility) of mesh.wgsl.

// The ground disc (RenderSettings.ground): a horizontal disc under the model that receives
// its shadow; a matte grey, lit like the surfaces' diffuse term, fading out towards its rim.
const GROUND_ALBEDO: vec3f = vec3f(0.42, 0.42, 0.42);
// The fade starts at this fraction of the radius.
const GROUND_FADE_START: f32 = 0.45;

struct GroundOutput {
  @builtin(position) clipPosition: vec4f,
  @location(0) worldPosition: vec3f,
  // −1…1 across the disc's bounding square.
  @location(1) disc: vec2f,
}

// Two triangles of the disc's square, from the vertex index alone (no vertex buffer).
@vertex
fn vsGround(@builtin(vertex_index) vertex: u32) -> GroundOutput {
  let corners = array<vec2f, 6>(vec2f(-1.0, -1.0), vec2f(1.0, 1.0), vec2f(1.0, -1.0), vec2f(-1.0, -1.0), vec2f(-1.0, 1.0), vec2f(1.0, 1.0));
  let c = corners[vertex];
  let world = frame.groundCenter + vec3f(c.x, 0.0, c.y) * frame.groundRadius;
  var out: GroundOutput;
  out.clipPosition = frame.viewProjection * vec4f(world, 1.0);
  out.worldPosition = world;
  out.disc = c;
  return out;
}

@fragment
fn fsGround(in: GroundOutput) -> @location(0) vec4f {
  let r = length(in.disc);
  let alpha = 1.0 - smoothstep(GROUND_FADE_START, 1.0, r);
  let n = vec3f(0.0, 1.0, 0.0);
  let nDotL = clamp(dot(n, frame.lightDirection), 0.0, 1.0);
  let visibility = keyLightVisibility(in.worldPosition, n);
  if (frame.environmentLevels > 0.0) {
    // With an environment the ground only catches the shadow, as model-viewer's does: it
    // darkens what is behind it and is invisible elsewhere.
    let shade = alpha * (1.0 - visibility);
    return vec4f(0.0, 0.0, 0.0, shade);
  }
  let color = GROUND_ALBEDO / PI * frame.lightColor * nDotL * visibility + GROUND_ALBEDO * frame.skyColor;
  var display = toneMap(color * frame.exposure, frame.toneMapping);
  if (ENCODE_SRGB) {
    display = linearToSrgb(display);
  }
  return vec4f(display * alpha, alpha);
}
