// glTF metallic-roughness shading pieces (glTF 2.0 spec, Appendix B) and the output
// transforms. Prepended to shaders/mesh.wgsl; the constants marked below are checked
// against src/gpu/layouts/bindings.ts by test/gpu/layouts/bindings.test.ts.

const PI: f32 = 3.141592653589793;
/** Reflectance of every dielectric at normal incidence (glTF Appendix B). */
const DIELECTRIC_F0: f32 = 0.04;
/** Keeps GGX finite on perfectly smooth surfaces. */
const MIN_ROUGHNESS: f32 = 0.03;

// ToneMapping in src/gpu/layouts/bindings.ts.
const TONE_MAP_NONE: u32 = 0u;
const TONE_MAP_PBR_NEUTRAL: u32 = 1u;
const TONE_MAP_ACES: u32 = 2u;
const TONE_MAP_AGX: u32 = 3u;

// Trowbridge-Reitz/GGX normal distribution, alpha = perceptual roughness².
fn distributionGgx(nDotH: f32, alpha: f32) -> f32 {
  let a2 = alpha * alpha;
  let f = nDotH * nDotH * (a2 - 1.0) + 1.0;
  return a2 / (PI * f * f);
}

// Height-correlated Smith visibility V = G / (4 n·l n·v).
fn visibilitySmithGgx(nDotL: f32, nDotV: f32, alpha: f32) -> f32 {
  let a2 = alpha * alpha;
  let ggxV = nDotL * sqrt(nDotV * nDotV * (1.0 - a2) + a2);
  let ggxL = nDotV * sqrt(nDotL * nDotL * (1.0 - a2) + a2);
  let sum = ggxV + ggxL;
  return select(0.0, 0.5 / sum, sum > 0.0);
}

fn fresnelSchlick(f0: vec3f, vDotH: f32) -> vec3f {
  return f0 + (vec3f(1.0) - f0) * pow(1.0 - vDotH, 5.0);
}

// Split-sum environment BRDF without a lookup table (Karis, "Physically Based Shading
// on Mobile"): the specular share of a uniform environment for f0 and roughness.
fn environmentBrdf(f0: vec3f, roughness: f32, nDotV: f32) -> vec3f {
  let ab = environmentBrdfScaleBias(roughness, nDotV);
  return f0 * ab.x + ab.y;
}

// The same fit's f0 scale and bias (what the split-sum table holds), for the extensions' Fresnel.
fn environmentBrdfScaleBias(roughness: f32, nDotV: f32) -> vec2f {
  let c0 = vec4f(-1.0, -0.0275, -0.572, 0.022);
  let c1 = vec4f(1.0, 0.0425, 1.04, -0.04);
  let r = roughness * c0 + c1;
  let a004 = min(r.x * r.x, exp2(-9.28 * nDotV)) * r.x + r.y;
  return vec2f(-1.04, 1.04) * a004 + r.zw;
}

// Khronos PBR Neutral tone mapper (reference implementation, 2024).
fn toneMapPbrNeutral(colorIn: vec3f) -> vec3f {
  let startCompression = 0.8 - 0.04;
  let desaturation = 0.15;
  var color = colorIn;
  let x = min(color.r, min(color.g, color.b));
  let offset = select(0.04, x - 6.25 * x * x, x < 0.08);
  color -= offset;
  let peak = max(color.r, max(color.g, color.b));
  if (peak < startCompression) {
    return color;
  }
  let d = 1.0 - startCompression;
  let newPeak = 1.0 - d * d / (peak + d - startCompression);
  color *= newPeak / peak;
  let g = 1.0 - 1.0 / (desaturation * (peak - newPeak) + 1.0);
  return mix(color, vec3f(newPeak), g);
}

// ACES filmic curve, Narkowicz's fit of the reference rendering + output transforms.
fn toneMapAces(color: vec3f) -> vec3f {
  let x = color * 0.6;
  return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), vec3f(0.0), vec3f(1.0));
}

// AgX (Troy Sobotka), Benjamin Wrensch's minimal fit ("Minimal AgX Implementation", 2023):
// into the AgX working space, log2 encoding over [−12.47, 4.03] EV, a sixth-order contrast
// curve, back out, then the 2.2 display curve undone so the output is linear like the others.
fn toneMapAgx(colorIn: vec3f) -> vec3f {
  let agxIn = mat3x3f(
    vec3f(0.842479062253094, 0.0423282422610123, 0.0423756549057051),
    vec3f(0.0784335999999992, 0.878468636469772, 0.0784336),
    vec3f(0.0792237451477643, 0.0791661274605434, 0.879142973793104));
  let agxOut = mat3x3f(
    vec3f(1.19687900512017, -0.0528968517574562, -0.0529716355144438),
    vec3f(-0.0980208811401368, 1.15190312990417, -0.0980434501171241),
    vec3f(-0.0990297440797205, -0.0989611768448433, 1.15107367264116));
  let minEv = -12.47393;
  let maxEv = 4.026069;
  var x = agxIn * max(colorIn, vec3f(0.0));
  x = clamp((log2(max(x, vec3f(1e-10))) - minEv) / (maxEv - minEv), vec3f(0.0), vec3f(1.0));
  let x2 = x * x;
  let x4 = x2 * x2;
  x = 15.5 * x4 * x2 - 40.14 * x4 * x + 31.96 * x4 - 6.868 * x2 * x + 0.4298 * x2 + 0.1191 * x - 0.00232;
  x = agxOut * x;
  return clamp(pow(max(x, vec3f(0.0)), vec3f(2.2)), vec3f(0.0), vec3f(1.0));
}

fn toneMap(color: vec3f, mode: u32) -> vec3f {
  switch (mode) {
    case TONE_MAP_PBR_NEUTRAL: { return clamp(toneMapPbrNeutral(color), vec3f(0.0), vec3f(1.0)); }
    case TONE_MAP_ACES: { return toneMapAces(color); }
    case TONE_MAP_AGX: { return toneMapAgx(color); }
    default: { return clamp(color, vec3f(0.0), vec3f(1.0)); }
  }
}

// The sRGB transfer function (IEC 61966-2-1), for targets that store raw values.
fn linearToSrgb(c: vec3f) -> vec3f {
  let low = c * 12.92;
  let high = 1.055 * pow(c, vec3f(1.0 / 2.4)) - 0.055;
  return select(high, low, c <= vec3f(0.0031308));
}
