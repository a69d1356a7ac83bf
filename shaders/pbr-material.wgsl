// The PBR material path (src/gpu/pipelines/pbr-path.ts): glTF metallic-roughness, its
// KHR_materials_pbrSpecularGlossiness and KHR_materials_unlit specialisations. Appended to the
// shared mesh source (mesh.wgsl and what comes before it): the material's uniforms and
// textures (group 2), the shaded fragment entry points fsMain / fsMainLean, and the path's
// vertex hook. Every binding number, flag bit and struct offset here is a copy of
// src/gpu/layouts/bindings.ts or src/gpu/layouts/material-uniforms.ts; test/gpu/layouts/bindings.test.ts compares them.

// MaterialFlag.
const MATERIAL_HAS_NORMAL_TEXTURE: u32 = 1u;
const MATERIAL_DOUBLE_SIDED: u32 = 2u;
// MaterialTexture: which of a material's texture slots hold its own texture (MATERIAL_TEXTURES).
const TEXTURE_BASE_COLOR: u32 = 1u;
const TEXTURE_METALLIC_ROUGHNESS: u32 = 2u;
const TEXTURE_NORMAL: u32 = 4u;
const TEXTURE_OCCLUSION: u32 = 8u;
const TEXTURE_EMISSIVE: u32 = 16u;

// MaterialShadingCode: the MATERIAL_SHADING specialisations.
const SHADING_PBR: u32 = 0u;
const SHADING_PBR_GLOSSINESS: u32 = 1u;
const SHADING_UNLIT: u32 = 2u;

// fsMain samples only the texture slots whose TEXTURE_* bit is set (MeshPipelineDesc.materialTextures);
// the others read the value of the default texture bound there (white; the flat normal,
// which is never read: MATERIAL_HAS_NORMAL_TEXTURE is then off too). Each sample skipped is
// a filtered texture fetch per fragment saved on rasterisers like SwiftShader.
override MATERIAL_TEXTURES: u32 = 31u;
// How fsMain / fsMainLean shade (MeshPipelineDesc.shading, a MaterialShadingCode): SHADING_PBR,
// metallic-roughness; SHADING_PBR_GLOSSINESS, the same with roughness read as
// 1 − (1 − roughnessFactor) · alpha of the metallic-roughness slot (a converted
// KHR_materials_pbrSpecularGlossiness texture); SHADING_UNLIT, the base colour only
// (KHR_materials_unlit), no lighting code compiled in.
override MATERIAL_SHADING: u32 = SHADING_PBR;

struct MaterialUniforms {
  baseColorFactor: vec4f,
  emissiveFactor: vec3f,
  metallicFactor: f32,
  roughnessFactor: f32,
  normalScale: f32,
  occlusionStrength: f32,
  alphaCutoff: f32,
  alphaMode: u32,
  flags: u32,
  baseColorTexCoord: u32,
  metallicRoughnessTexCoord: u32,
  normalTexCoord: u32,
  occlusionTexCoord: u32,
  emissiveTexCoord: u32,
  // KHR_texture_transform per slot: uv' = M · (u, v, 1); the identity without one.
  baseColorUvTransform: mat3x2f,
  metallicRoughnessUvTransform: mat3x2f,
  normalUvTransform: mat3x2f,
  occlusionUvTransform: mat3x2f,
  emissiveUvTransform: mat3x2f,
}

@group(2) @binding(0) var<uniform> material: MaterialUniforms;
@group(2) @binding(1) var baseColorTexture: texture_2d<f32>;
@group(2) @binding(2) var baseColorSampler: sampler;
@group(2) @binding(3) var metallicRoughnessTexture: texture_2d<f32>;
@group(2) @binding(4) var metallicRoughnessSampler: sampler;
@group(2) @binding(5) var normalTexture: texture_2d<f32>;
@group(2) @binding(6) var normalSampler: sampler;
@group(2) @binding(7) var occlusionTexture: texture_2d<f32>;
@group(2) @binding(8) var occlusionSampler: sampler;
@group(2) @binding(9) var emissiveTexture: texture_2d<f32>;
@group(2) @binding(10) var emissiveSampler: sampler;

// The mesh vertex stage's material hook (mesh.wgsl toWorld): PBR surfaces stay where skinning put them.
fn materialVertexOffset(worldPosition: vec3f, worldNormal: vec3f, texcoord0: vec2f, texcoord1: vec2f) -> vec4f {
  return vec4f(0.0);
}

// The UV set a slot reads, moved by its texture transform.
fn pickUv(in: VertexOutput, uvSet: u32, transform: mat3x2f) -> vec2f {
  return transform * vec3f(select(in.texcoord0, in.texcoord1, uvSet == 1u), 1.0);
}

@fragment
fn fsMain(in: VertexOutput, @builtin(front_facing) frontFacing: bool) -> @location(0) vec4f {
  return shadeSurface(in, frontFacing);
}

// What a fragment reads of the material's own (core) textures, and the derivatives taken
// with them: every sample and derivative in uniform control flow. Shared by fsMain and the
// PBR extensions' fragment stage (shaders/pbr-extensions/).
struct CoreSamples {
  base: vec4f,
  metallicRoughness: vec4f,
  normal: vec3f,
  occlusion: f32,
  emissive: vec3f,
  // ∂position and ∂(normal UV) across the screen, for flat normals and derived tangents.
  dpx: vec3f,
  dpy: vec3f,
  duvx: vec2f,
  duvy: vec2f,
}

fn sampleCore(in: VertexOutput) -> CoreSamples {
  var s: CoreSamples;
  let baseUv = pickUv(in, material.baseColorTexCoord, material.baseColorUvTransform);
  let normalUv = pickUv(in, material.normalTexCoord, material.normalUvTransform);
  // An override condition is uniform, so these samples stay in uniform control flow.
  s.base = vec4f(1.0);
  if ((MATERIAL_TEXTURES & TEXTURE_BASE_COLOR) != 0u) {
    s.base = textureSample(baseColorTexture, baseColorSampler, baseUv);
  }
  s.metallicRoughness = vec4f(1.0);
  if ((MATERIAL_TEXTURES & TEXTURE_METALLIC_ROUGHNESS) != 0u) {
    s.metallicRoughness = textureSample(metallicRoughnessTexture, metallicRoughnessSampler, pickUv(in, material.metallicRoughnessTexCoord, material.metallicRoughnessUvTransform));
  }
  s.normal = vec3f(0.5, 0.5, 1.0);
  if ((MATERIAL_TEXTURES & TEXTURE_NORMAL) != 0u) {
    s.normal = textureSample(normalTexture, normalSampler, normalUv).xyz;
  }
  s.occlusion = 1.0;
  if ((MATERIAL_TEXTURES & TEXTURE_OCCLUSION) != 0u) {
    s.occlusion = textureSample(occlusionTexture, occlusionSampler, pickUv(in, material.occlusionTexCoord, material.occlusionUvTransform)).r;
  }
  s.emissive = vec3f(1.0);
  if ((MATERIAL_TEXTURES & TEXTURE_EMISSIVE) != 0u) {
    s.emissive = textureSample(emissiveTexture, emissiveSampler, pickUv(in, material.emissiveTexCoord, material.emissiveUvTransform)).rgb;
  }
  s.dpx = dpdx(in.worldPosition);
  s.dpy = dpdy(in.worldPosition);
  s.duvx = dpdx(normalUv);
  s.duvy = dpdy(normalUv);
  return s;
}

// The base colour with the alpha mode applied (materialAlpha: MASK discards below the cutoff).
fn baseColorOf(in: VertexOutput, s: CoreSamples) -> vec4f {
  var base = material.baseColorFactor * s.base * in.color0;
  base.a = materialAlpha(base.a, material.alphaMode, material.alphaCutoff);
  return base;
}

// Perceptual roughness as the material's shading reads the metallic-roughness slot.
fn roughnessOf(s: CoreSamples) -> f32 {
  if (MATERIAL_SHADING == SHADING_PBR_GLOSSINESS) {
    return clamp(1.0 - (1.0 - material.roughnessFactor) * s.metallicRoughness.a, MIN_ROUGHNESS, 1.0);
  }
  return clamp(material.roughnessFactor * s.metallicRoughness.g, MIN_ROUGHNESS, 1.0);
}

// fsMain's shading, shared with fsMainLean.
fn shadeSurface(in: VertexOutput, frontFacing: bool) -> vec4f {
  let s = sampleCore(in);
  let base = baseColorOf(in, s);
  if (MATERIAL_SHADING == SHADING_UNLIT) {
    return outputColor(base.rgb, base.a);
  }

  let toEye = normalize(frame.cameraPosition - in.worldPosition);
  var n = geometricNormal(in, frontFacing, toEye, s.dpx, s.dpy);
  if ((MATERIAL_TEXTURES & TEXTURE_NORMAL) != 0u && (material.flags & MATERIAL_HAS_NORMAL_TEXTURE) != 0u) {
    n = mappedNormal(in, n, frontFacing, s.normal, material.normalScale, s.dpx, s.dpy, s.duvx, s.duvy);
  }

  let metallic = clamp(material.metallicFactor * s.metallicRoughness.b, 0.0, 1.0);
  let roughness = roughnessOf(s);
  let diffuseColor = base.rgb * (1.0 - metallic);
  let f0 = mix(vec3f(DIELECTRIC_F0), base.rgb, metallic);
  let nDotV = clamp(abs(dot(n, toEye)), 1e-4, 1.0);

  let occlusion = 1.0 + material.occlusionStrength * (s.occlusion - 1.0);
  var color: vec3f;
  if (frame.environmentLevels > 0.0) {
    // An environment lights the scene alone.
    color = environmentLight(n, toEye, base.rgb, metallic, roughness, nDotV, occlusion);
  } else {
    color = keyAndHemisphereLight(in, n, toEye, diffuseColor, f0, roughness, nDotV, occlusion);
  }
  color += material.emissiveFactor * s.emissive;
  return outputColor(color, base.a);
}

// The legacy lighting (no environment): one directional key light with its shadow, and a
// hemispherical ambient, sky above and ground below, for diffuse and (by the reflected
// direction) specular, both darkened by occlusion.
fn keyAndHemisphereLight(in: VertexOutput, n: vec3f, toEye: vec3f, diffuseColor: vec3f, f0: vec3f, roughness: f32, nDotV: f32, occlusion: f32) -> vec3f {
  let alpha = roughness * roughness;
  let l = frame.lightDirection;
  let h = normalize(l + toEye);
  let nDotL = clamp(dot(n, l), 0.0, 1.0);
  let nDotH = clamp(dot(n, h), 0.0, 1.0);
  let vDotH = clamp(dot(toEye, h), 0.0, 1.0);
  let fresnel = fresnelSchlick(f0, vDotH);
  let specular = fresnel * distributionGgx(nDotH, alpha) * visibilitySmithGgx(nDotL, nDotV, alpha);
  let diffuse = (vec3f(1.0) - fresnel) * diffuseColor / PI;
  var color = frame.lightColor * nDotL * (diffuse + specular) * keyLightVisibility(in.worldPosition, in.normal);

  let skyDiffuse = mix(frame.groundColor, frame.skyColor, n.y * 0.5 + 0.5);
  let r = reflect(-toEye, n);
  let skySpecular = mix(frame.groundColor, frame.skyColor, r.y * 0.5 + 0.5);
  color += occlusion * (skyDiffuse * diffuseColor + skySpecular * environmentBrdf(f0, roughness, nDotV));
  return color;
}

@fragment
fn fsMainLean(in: LeanVertexOutput, @builtin(front_facing) frontFacing: bool) -> @location(0) vec4f {
  return shadeSurface(VertexOutput(in.clipPosition, in.worldPosition, in.normal, DEFAULT_TANGENT, in.texcoord0, DEFAULT_TEXCOORD, DEFAULT_COLOR, in.drawFlags), frontFacing);
}
