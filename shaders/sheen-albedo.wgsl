// The sheen albedo table (src/gpu/environment/sheen-albedo.ts): the directional albedo of the
// Charlie sheen lobe of KHR_materials_sheen (white sheen colour), E(n·v, roughness) =
// ∫ D_Charlie · V_Sheen · n·l dω over the hemisphere — the sample viewer's "sheen E" table, which
// scales the layers under the sheen by 1 − max(sheen colour) · E. Prepended: pbr.wgsl and
// pbr-extensions/lobes.wgsl. Texel (i, j) holds n·v = i / (size − 1), roughness = j / (size − 1),
// so the shader's bilinear read at value × (size − 1) lands on texel centres.

// Uniform hemisphere directions, stratified (Hammersley).
const SHEEN_ALBEDO_SAMPLES: u32 = 2048u;

struct SheenAlbedoOutput {
  @builtin(position) clipPosition: vec4f,
}

@vertex
fn vsSheenAlbedo(@builtin(vertex_index) vertex: u32) -> SheenAlbedoOutput {
  let xy = vec2f(f32((vertex << 1u) & 2u), f32(vertex & 2u)) * 2.0 - 1.0;
  return SheenAlbedoOutput(vec4f(xy, 0.0, 1.0));
}

fn radicalInverse(bitsIn: u32) -> f32 {
  var bits = (bitsIn << 16u) | (bitsIn >> 16u);
  bits = ((bits & 0x55555555u) << 1u) | ((bits & 0xAAAAAAAAu) >> 1u);
  bits = ((bits & 0x33333333u) << 2u) | ((bits & 0xCCCCCCCCu) >> 2u);
  bits = ((bits & 0x0F0F0F0Fu) << 4u) | ((bits & 0xF0F0F0F0u) >> 4u);
  bits = ((bits & 0x00FF00FFu) << 8u) | ((bits & 0xFF00FF00u) >> 8u);
  return f32(bits) * 2.3283064365386963e-10;
}

@fragment
fn fsSheenAlbedo(in: SheenAlbedoOutput) -> @location(0) vec4f {
  let size = f32(SHEEN_ALBEDO_SIZE);
  let texel = floor(in.clipPosition.xy);
  let nDotV = max(texel.x / (size - 1.0), 1e-3);
  let roughness = texel.y / (size - 1.0);
  let v = vec3f(sqrt(1.0 - nDotV * nDotV), 0.0, nDotV);
  var sum = 0.0;
  for (var i = 0u; i < SHEEN_ALBEDO_SAMPLES; i++) {
    // Uniform in solid angle: cos θ uniform in [0, 1], φ uniform.
    let cosTheta = (f32(i) + 0.5) / f32(SHEEN_ALBEDO_SAMPLES);
    let phi = 2.0 * PI * radicalInverse(i);
    let sinTheta = sqrt(1.0 - cosTheta * cosTheta);
    let l = vec3f(sinTheta * cos(phi), sinTheta * sin(phi), cosTheta);
    let h = normalize(l + v);
    sum += distributionCharlie(roughness, h.z) * visibilitySheen(cosTheta, nDotV, roughness) * cosTheta;
  }
  // The uniform hemisphere's pdf is 1 / 2π.
  return vec4f(sum * 2.0 * PI / f32(SHEEN_ALBEDO_SAMPLES), 0.0, 0.0, 1.0);
}
