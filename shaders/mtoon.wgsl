// The MToon material path (src/gpu/pipelines/mtoon-path.ts): VRMC_materials_mtoon 1.0, VRM's
// toon material, appended to the shared mesh source. Group 2 holds the MToon uniforms and a
// texture per slot; `fsMToon` shades, `materialVertexOffset` pushes the outline's vertices out.
//
// Lighting (the specification's, with three-vrm 3.x where it is silent):
//   shading = linearstep(−1 + toony, 1 − toony, N·L + shift) × shadow
//   colour  = light × mix(shade, lit, shading) + gi(N) × lit + rim × mix(1, lighting, rimLightingMix) + emission
//   gi(N)   = mix(rawGi(N), (rawGi(up) + rawGi(down)) / 2, giEqualizationFactor)
// The light is the key light (`legacy`: radiance lightColor / π, as a Lambertian surface
// reflects it, so three.js's DirectionalLight of the same intensity matches) and rawGi the
// hemisphere. Under an environment (image-based lighting) its SH9 irradiance R(n) is split
// along its dominant direction d, the direction the shadow comes from: a key light
// max(R(d) − R(−d), 0) and the rest as GI, rawGi(n) = R(n) − key · max(n·d, 0). A toon
// surface facing d then gets R(d) as a Lambertian one would, and its shade side the shade
// colour, instead of the flat irradiance an environment alone would give.
//
// Outline (OUTLINE pipelines, MeshVariant 'outline'): the inverted hull — the same skinned
// vertices pushed out along their normal by the width (metres, or with screen coordinates a
// fraction of the view's half height at the vertex's depth, as three-vrm), front faces culled,
// coloured outlineColor × mix(1, surface colour, outlineLightingMix). The back faces it shows
// shade with their own normal facing the eye (geometricNormal), as three-vrm's negated normal.
//
// Every binding, bit and offset here is a copy of src/gpu/layouts/mtoon-uniforms.ts; test/gpu/layouts/mtoon-uniforms.test.ts compares them.

// MToonFeature: what the material uses (MTOON_FEATURES).
const MTOON_BASE_COLOR_TEXTURE: u32 = 1u;
const MTOON_NORMAL_TEXTURE: u32 = 2u;
const MTOON_EMISSIVE_TEXTURE: u32 = 4u;
const MTOON_SHADE_MULTIPLY_TEXTURE: u32 = 8u;
const MTOON_SHADING_SHIFT_TEXTURE: u32 = 16u;
const MTOON_MATCAP_TEXTURE: u32 = 32u;
const MTOON_RIM_MULTIPLY_TEXTURE: u32 = 64u;
const MTOON_OUTLINE_WIDTH_MULTIPLY_TEXTURE: u32 = 128u;
const MTOON_UV_ANIMATION_MASK_TEXTURE: u32 = 256u;
const MTOON_UV_ANIMATION: u32 = 512u;
const MTOON_OUTLINE: u32 = 1024u;
const MTOON_OUTLINE_SCREEN_COORDINATES: u32 = 2048u;

// Slots without their texture bit are not sampled (the default bound there is never read); the
// UV animation is compiled in only for materials whose UVs move.
override MTOON_FEATURES: u32 = 4095u;
// The outline pipeline (MeshVariant 'outline'): pushes the vertices out, colours by the outline.
override OUTLINE: bool = false;

// The outline's depth nudge in clip w units, behind the surface it outlines (three-vrm's 1e-6).
const OUTLINE_DEPTH_NUDGE: f32 = 1e-6;
// Keeps pow() defined for a zero fresnel power (the specification's epsilon).
const RIM_POWER_EPSILON: f32 = 1e-5;

struct MToonUniforms {
  litFactor: vec4f,
  shadeColorFactor: vec3f,
  shadingShiftFactor: f32,
  emissiveFactor: vec3f,
  shadingShiftTextureScale: f32,
  matcapFactor: vec3f,
  shadingToonyFactor: f32,
  parametricRimColorFactor: vec3f,
  giEqualizationFactor: f32,
  outlineColorFactor: vec3f,
  rimLightingMixFactor: f32,
  parametricRimFresnelPowerFactor: f32,
  parametricRimLiftFactor: f32,
  outlineWidthFactor: f32,
  outlineLightingMixFactor: f32,
  uvAnimationScrollXSpeedFactor: f32,
  uvAnimationScrollYSpeedFactor: f32,
  uvAnimationRotationSpeedFactor: f32,
  uvAnimationTime: f32,
  normalScale: f32,
  alphaCutoff: f32,
  alphaMode: u32,
  // Bit s (MTOON_* texture bits) set: that slot reads TEXCOORD_1.
  texCoords: u32,
  // KHR_texture_transform per slot, after the UV animation: uv' = M · (u, v, 1).
  baseColorUvTransform: mat3x2f,
  normalUvTransform: mat3x2f,
  emissiveUvTransform: mat3x2f,
  shadeMultiplyUvTransform: mat3x2f,
  shadingShiftUvTransform: mat3x2f,
  matcapUvTransform: mat3x2f,
  rimMultiplyUvTransform: mat3x2f,
  outlineWidthMultiplyUvTransform: mat3x2f,
  uvAnimationMaskUvTransform: mat3x2f,
}

@group(2) @binding(0) var<uniform> mtoon: MToonUniforms;
@group(2) @binding(1) var baseColorTexture: texture_2d<f32>;
@group(2) @binding(2) var baseColorSampler: sampler;
@group(2) @binding(3) var normalTexture: texture_2d<f32>;
@group(2) @binding(4) var normalSampler: sampler;
@group(2) @binding(5) var emissiveTexture: texture_2d<f32>;
@group(2) @binding(6) var emissiveSampler: sampler;
@group(2) @binding(7) var shadeMultiplyTexture: texture_2d<f32>;
@group(2) @binding(8) var shadeMultiplySampler: sampler;
@group(2) @binding(9) var shadingShiftTexture: texture_2d<f32>;
@group(2) @binding(10) var shadingShiftSampler: sampler;
@group(2) @binding(11) var matcapTexture: texture_2d<f32>;
@group(2) @binding(12) var matcapSampler: sampler;
@group(2) @binding(13) var rimMultiplyTexture: texture_2d<f32>;
@group(2) @binding(14) var rimMultiplySampler: sampler;
@group(2) @binding(15) var outlineWidthMultiplyTexture: texture_2d<f32>;
@group(2) @binding(16) var outlineWidthMultiplySampler: sampler;
@group(2) @binding(17) var uvAnimationMaskTexture: texture_2d<f32>;
@group(2) @binding(18) var uvAnimationMaskSampler: sampler;

fn mtoonUses(feature: u32) -> bool {
  return (MTOON_FEATURES & feature) != 0u;
}

// The UV set slot `slot` (its MTOON_* texture bit) reads.
fn mtoonTexcoord(texcoord0: vec2f, texcoord1: vec2f, slot: u32) -> vec2f {
  return select(texcoord0, texcoord1, (mtoon.texCoords & slot) != 0u);
}

// The UV animation (the specification's order): a turn about (0.5, 0.5) counter-clockwise in
// U-right V-down space, then the scroll, each by its speed × time × the mask (B of the mask texture).
fn animateUv(uv: vec2f, mask: f32) -> vec2f {
  if (!mtoonUses(MTOON_UV_ANIMATION)) {
    return uv;
  }
  let t = mtoon.uvAnimationTime * mask;
  let phase = mtoon.uvAnimationRotationSpeedFactor * t;
  let c = cos(phase);
  let s = sin(phase);
  let centred = uv - vec2f(0.5);
  let turned = vec2f(c * centred.x + s * centred.y, c * centred.y - s * centred.x) + vec2f(0.5);
  return turned + vec2f(mtoon.uvAnimationScrollXSpeedFactor, mtoon.uvAnimationScrollYSpeedFactor) * t;
}

// A slot's UV: its set, animated, then its texture transform.
fn mtoonUv(texcoord0: vec2f, texcoord1: vec2f, slot: u32, transform: mat3x2f, mask: f32) -> vec2f {
  return transform * vec3f(animateUv(mtoonTexcoord(texcoord0, texcoord1, slot), mask), 1.0);
}

fn maskUv(texcoord0: vec2f, texcoord1: vec2f) -> vec2f {
  return mtoon.uvAnimationMaskUvTransform * vec3f(mtoonTexcoord(texcoord0, texcoord1, MTOON_UV_ANIMATION_MASK_TEXTURE), 1.0);
}

// The mesh vertex stage's material hook (mesh.wgsl toWorld): the outline's vertices move out
// along the world normal; surfaces stay.
fn materialVertexOffset(worldPosition: vec3f, worldNormal: vec3f, texcoord0: vec2f, texcoord1: vec2f) -> vec4f {
  if (!OUTLINE) {
    return vec4f(0.0);
  }
  var width = mtoon.outlineWidthFactor * frame.outlineWidthScale;
  if (mtoonUses(MTOON_OUTLINE_WIDTH_MULTIPLY_TEXTURE)) {
    var mask = 1.0;
    if (mtoonUses(MTOON_UV_ANIMATION_MASK_TEXTURE)) {
      mask = textureSampleLevel(uvAnimationMaskTexture, uvAnimationMaskSampler, maskUv(texcoord0, texcoord1), 0.0).b;
    }
    let uv = mtoonUv(texcoord0, texcoord1, MTOON_OUTLINE_WIDTH_MULTIPLY_TEXTURE, mtoon.outlineWidthMultiplyUvTransform, mask);
    width *= textureSampleLevel(outlineWidthMultiplyTexture, outlineWidthMultiplySampler, uv, 0.0).g;
  }
  if (mtoonUses(MTOON_OUTLINE_SCREEN_COORDINATES)) {
    // The view depth over the focal length: the world size of a fraction of the half view height there.
    let viewDepth = -(frame.view * vec4f(worldPosition, 1.0)).z;
    width *= viewDepth / frame.projection[1][1];
  }
  return vec4f(normalizeOrZero(worldNormal) * width, OUTLINE_DEPTH_NUDGE);
}

// saturate((t − a) / (b − a)), with a hard step when a = b (toony 1).
fn linearstep(a: f32, b: f32, t: f32) -> f32 {
  return clamp((t - a) / max(b - a, 1e-6), 0.0, 1.0);
}

// Light a toon surface gets: the key light's reflected radiance (`key`), its direction, and
// the GI before equalisation at n, up and down.
struct MToonLight {
  key: vec3f,
  direction: vec3f,
  giN: vec3f,
  giUp: vec3f,
  giDown: vec3f,
}

fn mtoonLight(n: vec3f) -> MToonLight {
  let l = frame.lightDirection;
  var light: MToonLight;
  light.direction = l;
  if (frame.environmentLevels > 0.0) {
    let key = max(environmentDiffuse(l) - environmentDiffuse(-l), vec3f(0.0));
    light.key = key;
    light.giN = max(environmentDiffuse(n) - key * max(dot(n, l), 0.0), vec3f(0.0));
    light.giUp = max(environmentDiffuse(vec3f(0.0, 1.0, 0.0)) - key * max(l.y, 0.0), vec3f(0.0));
    light.giDown = max(environmentDiffuse(vec3f(0.0, -1.0, 0.0)) - key * max(-l.y, 0.0), vec3f(0.0));
  } else {
    light.key = frame.lightColor / PI;
    light.giN = mix(frame.groundColor, frame.skyColor, n.y * 0.5 + 0.5);
    light.giUp = frame.skyColor;
    light.giDown = frame.groundColor;
  }
  return light;
}

// The matcap texture's UV for world normal n seen from `viewPosition` (view space), as
// three-vrm maps it: the view-space normal on a frame facing the eye, V down.
fn matcapUv(n: vec3f, viewPosition: vec3f) -> vec2f {
  let v = normalize(-viewPosition);
  let nView = (frame.view * vec4f(n, 0.0)).xyz;
  let x = normalize(vec3f(v.z, 0.0, -v.x));
  let y = cross(v, x);
  return mtoon.matcapUvTransform * vec3f(vec2f(0.5) + 0.5 * vec2f(dot(x, nView), -dot(y, nView)), 1.0);
}

@fragment
fn fsMToon(in: VertexOutput, @builtin(front_facing) frontFacing: bool) -> @location(0) vec4f {
  // Every texture sample and derivative first, in uniform control flow (override conditions are uniform).
  var mask = 1.0;
  if (mtoonUses(MTOON_UV_ANIMATION_MASK_TEXTURE)) {
    mask = textureSample(uvAnimationMaskTexture, uvAnimationMaskSampler, maskUv(in.texcoord0, in.texcoord1)).b;
  }
  let normalUv = mtoonUv(in.texcoord0, in.texcoord1, MTOON_NORMAL_TEXTURE, mtoon.normalUvTransform, mask);
  var baseSample = vec4f(1.0);
  if (mtoonUses(MTOON_BASE_COLOR_TEXTURE)) {
    baseSample = textureSample(baseColorTexture, baseColorSampler, mtoonUv(in.texcoord0, in.texcoord1, MTOON_BASE_COLOR_TEXTURE, mtoon.baseColorUvTransform, mask));
  }
  var normalSample = vec3f(0.5, 0.5, 1.0);
  if (mtoonUses(MTOON_NORMAL_TEXTURE)) {
    normalSample = textureSample(normalTexture, normalSampler, normalUv).xyz;
  }
  var emissiveSample = vec3f(1.0);
  if (mtoonUses(MTOON_EMISSIVE_TEXTURE)) {
    emissiveSample = textureSample(emissiveTexture, emissiveSampler, mtoonUv(in.texcoord0, in.texcoord1, MTOON_EMISSIVE_TEXTURE, mtoon.emissiveUvTransform, mask)).rgb;
  }
  var shadeSample = vec3f(1.0);
  if (mtoonUses(MTOON_SHADE_MULTIPLY_TEXTURE)) {
    shadeSample = textureSample(shadeMultiplyTexture, shadeMultiplySampler, mtoonUv(in.texcoord0, in.texcoord1, MTOON_SHADE_MULTIPLY_TEXTURE, mtoon.shadeMultiplyUvTransform, mask)).rgb;
  }
  var shiftSample = 0.0;
  if (mtoonUses(MTOON_SHADING_SHIFT_TEXTURE)) {
    shiftSample = textureSample(shadingShiftTexture, shadingShiftSampler, mtoonUv(in.texcoord0, in.texcoord1, MTOON_SHADING_SHIFT_TEXTURE, mtoon.shadingShiftUvTransform, mask)).r;
  }
  var rimSample = vec3f(1.0);
  if (mtoonUses(MTOON_RIM_MULTIPLY_TEXTURE)) {
    rimSample = textureSample(rimMultiplyTexture, rimMultiplySampler, mtoonUv(in.texcoord0, in.texcoord1, MTOON_RIM_MULTIPLY_TEXTURE, mtoon.rimMultiplyUvTransform, mask)).rgb;
  }
  let dpx = dpdx(in.worldPosition);
  let dpy = dpdy(in.worldPosition);
  let duvx = dpdx(normalUv);
  let duvy = dpdy(normalUv);

  // Vertex colours are ignored (the specification).
  var base = mtoon.litFactor * baseSample;
  base.a = materialAlpha(base.a, mtoon.alphaMode, mtoon.alphaCutoff);

  let toEye = normalize(frame.cameraPosition - in.worldPosition);
  var n = geometricNormal(in, frontFacing, toEye, dpx, dpy);
  if (mtoonUses(MTOON_NORMAL_TEXTURE)) {
    n = mappedNormal(in, n, frontFacing, normalSample, mtoon.normalScale, dpx, dpy, duvx, duvy);
  }

  var matcap = vec3f(0.0);
  if (mtoonUses(MTOON_MATCAP_TEXTURE)) {
    let viewPosition = (frame.view * vec4f(in.worldPosition, 1.0)).xyz;
    matcap = mtoon.matcapFactor * textureSample(matcapTexture, matcapSampler, matcapUv(n, viewPosition)).rgb;
  }

  let light = mtoonLight(n);
  let shade = mtoon.shadeColorFactor * shadeSample;
  let shift = mtoon.shadingShiftFactor + shiftSample * mtoon.shadingShiftTextureScale;
  let toony = mtoon.shadingToonyFactor;
  let nDotL = clamp(dot(n, light.direction), -1.0, 1.0);
  let shading = linearstep(-1.0 + toony, 1.0 - toony, nDotL + shift) * keyLightVisibility(in.worldPosition, in.normal);
  let gi = mix(light.giN, 0.5 * (light.giUp + light.giDown), mtoon.giEqualizationFactor);
  var color = light.key * mix(shade, base.rgb, shading) + gi * base.rgb;

  let rimShape = pow(clamp(1.0 - dot(n, toEye) + mtoon.parametricRimLiftFactor, 0.0, 1.0), max(mtoon.parametricRimFresnelPowerFactor, RIM_POWER_EPSILON));
  let rim = (mtoon.parametricRimColorFactor * rimShape + matcap) * rimSample;
  color += rim * mix(vec3f(1.0), light.key + light.giN, mtoon.rimLightingMixFactor);
  color += mtoon.emissiveFactor * emissiveSample;
  if (OUTLINE) {
    color = mtoon.outlineColorFactor * mix(vec3f(1.0), color, mtoon.outlineLightingMixFactor);
  }
  return outputColor(color, base.a);
}
