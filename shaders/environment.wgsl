// The environment prefilter (src/gpu/environment/prefilter.ts), run once when an
// environment loads: equirect → cube map, the cube's mip chain (2×2 averages), the GGX
// specular mip chain (importance sampled, with filtered importance sampling: each sample
// reads the mip whose texel covers its solid angle, Křivánek & Colbert, GPU Gems 3 ch. 20).
// The diffuse irradiance (src/gpu/environment/sh9.ts) and the split-sum BRDF table (Karis,
// "Real Shading in Unreal Engine 4", 2013; src/gpu/environment/brdf-lut.ts) are made on the CPU.
// Built as pbr.wgsl + fullscreen.wgsl + this file. PrefilterParams is mirrored by
// src/gpu/environment/prefilter-params.ts (test/gpu/environment/prefilter.test.ts).

struct PrefilterParams {
  // Cube face 0…5: +X, −X, +Y, −Y, +Z, −Z.
  face: u32,
  // Perceptual roughness of the specular level being made.
  roughness: f32,
  sampleCount: u32,
  // Solid angle of one texel of the source cube's level 0 (4π / (6 size²)).
  sourceTexelSolidAngle: f32,
}

// PrefilterBinding in src/gpu/environment/prefilter-params.ts. Each pipeline uses some of
// them: the equirect pass 0, 1, 2; the cube passes 0, 1, 3.
@group(0) @binding(0) var<uniform> params: PrefilterParams;
@group(0) @binding(1) var sourceSampler: sampler;
@group(0) @binding(2) var equirect: texture_2d<f32>;
@group(0) @binding(3) var sourceCube: texture_cube<f32>;

// The passes draw with vsFullscreen (fullscreen.wgsl): FullscreenOutput.uv is 0…1 across the
// target, y down.

// The direction through `uv` (0…1, y down) of cube face `face` (the WebGPU/D3D cube layout).
fn faceDirection(face: u32, uv: vec2f) -> vec3f {
  let s = uv.x * 2.0 - 1.0;
  let t = uv.y * 2.0 - 1.0;
  switch (face) {
    case 0u: { return normalize(vec3f(1.0, -t, -s)); }
    case 1u: { return normalize(vec3f(-1.0, -t, s)); }
    case 2u: { return normalize(vec3f(s, 1.0, t)); }
    case 3u: { return normalize(vec3f(s, -1.0, -t)); }
    case 4u: { return normalize(vec3f(s, -t, 1.0)); }
    default: { return normalize(vec3f(-s, -t, -1.0)); }
  }
}

// src/gpu/environment/equirect.ts's orientation: u = 0.5 faces −Z, v = 0 is +Y.
fn equirectUv(d: vec3f) -> vec2f {
  return vec2f(atan2(d.x, -d.z) / (2.0 * PI) + 0.5, acos(clamp(d.y, -1.0, 1.0)) / PI);
}

@fragment
fn fsEquirectToCube(in: FullscreenOutput) -> @location(0) vec4f {
  let d = faceDirection(params.face, in.uv);
  return vec4f(textureSampleLevel(equirect, sourceSampler, equirectUv(d), 0.0).rgb, 1.0);
}

// One level of the cube's mip chain: the bound view is the level above, one level only; a
// bilinear tap at this texel's centre is the mean of its 2×2 parent texels.
@fragment
fn fsDownsample(in: FullscreenOutput) -> @location(0) vec4f {
  return vec4f(textureSampleLevel(sourceCube, sourceSampler, faceDirection(params.face, in.uv), 0.0).rgb, 1.0);
}

fn hammersley(i: u32, n: u32) -> vec2f {
  return vec2f(f32(i) / f32(n), f32(reverseBits(i)) * 2.3283064365386963e-10);
}

// A GGX half vector around `n` for the uniform sample `xi` (pdf D(h) n·h).
fn importanceSampleGgx(xi: vec2f, n: vec3f, alpha: f32) -> vec3f {
  let phi = 2.0 * PI * xi.x;
  let cosTheta = sqrt((1.0 - xi.y) / (1.0 + (alpha * alpha - 1.0) * xi.y));
  let sinTheta = sqrt(max(0.0, 1.0 - cosTheta * cosTheta));
  let up = select(vec3f(1.0, 0.0, 0.0), vec3f(0.0, 0.0, 1.0), abs(n.z) < 0.999);
  let tangent = normalize(cross(up, n));
  let bitangent = cross(n, tangent);
  return normalize(tangent * (sinTheta * cos(phi)) + bitangent * (sinTheta * sin(phi)) + n * cosTheta);
}

// The radiance level as large as the specular chain's level 0 (log2 of their sizes'
// ratio; src/gpu/environment/prefilter.ts sets it).
override MIRROR_SOURCE_LEVEL: f32 = 2.0;

// One level of the specular chain: radiance around the reflected direction weighted by
// GGX of this level's roughness (n = v = r, the split-sum assumption).
@fragment
fn fsSpecular(in: FullscreenOutput) -> @location(0) vec4f {
  let n = faceDirection(params.face, in.uv);
  let levels = f32(textureNumLevels(sourceCube));
  if (params.roughness <= 0.0) {
    // The mirror level: the source's mip of this level's size.
    return vec4f(textureSampleLevel(sourceCube, sourceSampler, n, MIRROR_SOURCE_LEVEL).rgb, 1.0);
  }
  let alpha = params.roughness * params.roughness;
  var sum = vec3f(0.0);
  var weight = 0.0;
  for (var i = 0u; i < params.sampleCount; i++) {
    let h = importanceSampleGgx(hammersley(i, params.sampleCount), n, alpha);
    let nDotH = dot(n, h);
    let l = 2.0 * nDotH * h - n;
    let nDotL = dot(n, l);
    if (nDotL > 0.0) {
      // pdf of l: D(h) n·h / (4 v·h), and v·h = n·h here.
      let pdf = distributionGgx(nDotH, alpha) * 0.25;
      let sampleSolidAngle = 1.0 / (f32(params.sampleCount) * pdf + 1e-6);
      let lod = clamp(0.5 * log2(sampleSolidAngle / params.sourceTexelSolidAngle) + 1.0, 0.0, levels - 1.0);
      sum += textureSampleLevel(sourceCube, sourceSampler, l, lod).rgb * nDotL;
      weight += nDotL;
    }
  }
  return vec4f(sum / max(weight, 1e-6), 1.0);
}
