// The PBR extensions material path (src/gpu/pipelines/pbr-extensions-path.ts): glTF
// metallic-roughness (pbr-material.wgsl, whose samples, normals and uniforms it reuses) with the
// KHR_materials_* extensions, shaded as the Khronos glTF Sample Viewer does (its pbr.frag and
// material_info.glsl): each extension adjusts the material (`extendedMaterial`), then image-based
// light (an environment, or the legacy hemisphere in its place) and the legacy key light are
// layered: diffuse (and diffuse / specular transmission) and specular mixed by Fresnel,
// iridescence over both, sheen over that, clearcoat on top.
//
// Pipelines compile in only the extensions a material uses (override PBR_EXTENSIONS); the group 2
// bindings of its extension textures, the sheen albedo table and the transmitted scene (group 3)
// come from a generated part (pbr-extensions-path.ts `variantPart`), which also defines
// `sample<Slot>`, `sheenAlbedo` and `transmittedScene` (constants where the material has none).
// Bits, bindings and offsets are copies of src/gpu/layouts/pbr-extension-uniforms.ts
// (test/gpu/layouts/bindings.test.ts compares them).

// PbrExtensionFeature.
const PBR_CLEARCOAT: u32 = 1u;
const PBR_SPECULAR: u32 = 2u;
const PBR_IOR: u32 = 4u;
const PBR_SHEEN: u32 = 8u;
const PBR_TRANSMISSION: u32 = 16u;
const PBR_VOLUME: u32 = 32u;
const PBR_IRIDESCENCE: u32 = 64u;
const PBR_ANISOTROPY: u32 = 128u;
const PBR_DISPERSION: u32 = 256u;
const PBR_DIFFUSE_TRANSMISSION: u32 = 512u;

// The extensions this pipeline shades (PbrExtensionFeature bits); the rest compile out.
override PBR_EXTENSIONS: u32 = 0u;

struct PbrExtensionUniforms {
  specularColor: vec3f,
  specularFactor: f32,
  sheenColor: vec3f,
  sheenRoughness: f32,
  attenuationColor: vec3f,
  // 0: infinity (no attenuation).
  attenuationDistance: f32,
  diffuseTransmissionColor: vec3f,
  diffuseTransmissionFactor: f32,
  clearcoatFactor: f32,
  clearcoatRoughness: f32,
  clearcoatNormalScale: f32,
  ior: f32,
  transmissionFactor: f32,
  thicknessFactor: f32,
  dispersion: f32,
  iridescenceFactor: f32,
  iridescenceIor: f32,
  iridescenceThicknessMinimum: f32,
  iridescenceThicknessMaximum: f32,
  anisotropyStrength: f32,
  // (cos, sin) of anisotropyRotation.
  anisotropyDirection: vec2f,
  // Extension texture slot k (ExtensionTexture) reads UV set texCoords[k / 4][k % 4].
  texCoords: array<vec4u, 4>,
  // Slot k's texture transform: (m00, m10, m01, m11) at 2k, (offsetU, offsetV, 0, 0) at 2k + 1.
  uvTransforms: array<vec4f, 28>,
}

@group(2) @binding(11) var<uniform> extension: PbrExtensionUniforms;

fn uses(feature: u32) -> bool {
  return (PBR_EXTENSIONS & feature) != 0u;
}

// Extension texture slot `slot`'s coordinates: its UV set, moved by its texture transform.
fn extensionUv(in: VertexOutput, slot: u32) -> vec2f {
  let uvSet = extension.texCoords[slot / 4u][slot % 4u];
  let uv = select(in.texcoord0, in.texcoord1, uvSet == 1u);
  let m = extension.uvTransforms[slot * 2u];
  let offset = extension.uvTransforms[slot * 2u + 1u].xy;
  return vec2f(m.x * uv.x + m.z * uv.y, m.y * uv.x + m.w * uv.y) + offset;
}

// The mean scale of the draw's model matrix, which the vertex stage packs into the upper half of
// drawFlags for these pipelines (mesh.wgsl PACK_MODEL_SCALE): thickness is in mesh units.
fn modelScaleOf(in: VertexOutput) -> f32 {
  return unpack2x16float(in.drawFlags >> 16u).x;
}

// The material as the extensions make it (the sample viewer's MaterialInfo).
struct ExtendedMaterial {
  base: vec4f,
  metallic: f32,
  // Perceptual, and α = perceptual².
  roughness: f32,
  alphaRoughness: f32,
  ior: f32,
  f0Dielectric: vec3f,
  f90Dielectric: vec3f,
  specularWeight: f32,
  clearcoatFactor: f32,
  clearcoatRoughness: f32,
  clearcoatNormal: vec3f,
  clearcoatF0: vec3f,
  sheenColor: vec3f,
  sheenRoughness: f32,
  transmissionFactor: f32,
  dispersion: f32,
  thickness: f32,
  attenuationColor: vec3f,
  attenuationDistance: f32,
  iridescenceFactor: f32,
  iridescenceIor: f32,
  iridescenceThickness: f32,
  diffuseTransmissionFactor: f32,
  diffuseTransmissionColor: vec3f,
  anisotropyStrength: f32,
  anisotropyT: vec3f,
  anisotropyB: vec3f,
}

// Every extension texture's sample, taken in uniform control flow before anything may discard.
struct ExtensionSamples {
  clearcoat: vec4f,
  clearcoatRoughness: vec4f,
  clearcoatNormal: vec4f,
  specular: vec4f,
  specularColor: vec4f,
  sheenColor: vec4f,
  sheenRoughness: vec4f,
  transmission: vec4f,
  thickness: vec4f,
  iridescence: vec4f,
  iridescenceThickness: vec4f,
  anisotropy: vec4f,
  diffuseTransmission: vec4f,
  diffuseTransmissionColor: vec4f,
}

fn sampleExtensions(in: VertexOutput) -> ExtensionSamples {
  return ExtensionSamples(
    sampleClearcoat(in), sampleClearcoatRoughness(in), sampleClearcoatNormal(in), sampleSpecular(in), sampleSpecularColor(in),
    sampleSheenColor(in), sampleSheenRoughness(in), sampleTransmission(in), sampleThickness(in), sampleIridescence(in),
    sampleIridescenceThickness(in), sampleAnisotropy(in), sampleDiffuseTransmission(in), sampleDiffuseTransmissionColor(in),
  );
}

// The material with every extension this pipeline shades applied (the sample viewer's get*Info).
// `geometric` is the tangent frame around the geometric normal, `n` the shading normal.
fn extendedMaterial(base: vec4f, s: CoreSamples, x: ExtensionSamples, geometric: mat3x3f, n: vec3f) -> ExtendedMaterial {
  var m: ExtendedMaterial;
  m.base = base;
  m.metallic = clamp(material.metallicFactor * s.metallicRoughness.b, 0.0, 1.0);
  m.roughness = roughnessOf(s);
  m.alphaRoughness = m.roughness * m.roughness;
  m.ior = 1.5;
  m.f0Dielectric = vec3f(DIELECTRIC_F0);
  m.f90Dielectric = vec3f(1.0);
  m.specularWeight = 1.0;
  m.attenuationColor = vec3f(1.0);
  if (uses(PBR_IOR)) {
    m.ior = extension.ior;
    // IOR 0 gives F0 = 1: a Fresnel of 1 everywhere, as the extension defines it.
    m.f0Dielectric = vec3f(iorToF0(m.ior));
  }
  if (uses(PBR_SPECULAR)) {
    m.f0Dielectric = min(m.f0Dielectric * extension.specularColor * x.specularColor.rgb, vec3f(1.0));
    m.specularWeight = extension.specularFactor * x.specular.a;
    m.f90Dielectric = vec3f(m.specularWeight);
  }
  if (uses(PBR_SHEEN)) {
    m.sheenColor = extension.sheenColor * x.sheenColor.rgb;
    m.sheenRoughness = clamp(extension.sheenRoughness * x.sheenRoughness.a, 0.0, 1.0);
  }
  if (uses(PBR_CLEARCOAT)) {
    m.clearcoatFactor = clamp(extension.clearcoatFactor * x.clearcoat.r, 0.0, 1.0);
    m.clearcoatRoughness = clamp(extension.clearcoatRoughness * x.clearcoatRoughness.g, MIN_ROUGHNESS, 1.0);
    m.clearcoatF0 = vec3f(iorToF0(m.ior));
    // Without its own normal texture the layer follows the geometric normal (the flat sample keeps it).
    m.clearcoatNormal = perturbedNormal(geometric, x.clearcoatNormal.xyz, extension.clearcoatNormalScale);
  }
  if (uses(PBR_TRANSMISSION)) {
    m.transmissionFactor = clamp(extension.transmissionFactor * x.transmission.r, 0.0, 1.0);
    if (uses(PBR_DISPERSION)) {
      m.dispersion = max(extension.dispersion, 0.0);
    }
  }
  if (uses(PBR_VOLUME)) {
    m.thickness = max(extension.thicknessFactor * x.thickness.g, 0.0);
    m.attenuationColor = extension.attenuationColor;
    m.attenuationDistance = extension.attenuationDistance;
  }
  if (uses(PBR_IRIDESCENCE)) {
    m.iridescenceFactor = clamp(extension.iridescenceFactor * x.iridescence.r, 0.0, 1.0);
    m.iridescenceIor = extension.iridescenceIor;
    // Without a thickness texture the sample is 1: the maximum, as the extension says.
    m.iridescenceThickness = mix(extension.iridescenceThicknessMinimum, extension.iridescenceThicknessMaximum, x.iridescenceThickness.g);
  }
  if (uses(PBR_DIFFUSE_TRANSMISSION)) {
    m.diffuseTransmissionFactor = clamp(extension.diffuseTransmissionFactor * x.diffuseTransmission.a, 0.0, 1.0);
    m.diffuseTransmissionColor = extension.diffuseTransmissionColor * x.diffuseTransmissionColor.rgb;
  }
  if (uses(PBR_ANISOTROPY)) {
    // Without a texture the sample's direction is +tangent, (1, 0), at full strength.
    let sampled = x.anisotropy.rg * 2.0 - 1.0;
    let c = extension.anisotropyDirection.x;
    let sn = extension.anisotropyDirection.y;
    let direction = vec2f(c * sampled.x - sn * sampled.y, sn * sampled.x + c * sampled.y);
    m.anisotropyT = normalizeOrZero(mat3x3f(geometric[0], geometric[1], n) * vec3f(direction, 0.0));
    m.anisotropyB = cross(geometric[2], m.anisotropyT);
    m.anisotropyStrength = clamp(extension.anisotropyStrength * x.anisotropy.b, 0.0, 1.0);
  }
  return m;
}

// ---------------------------------------------------------------- what lights the surface indirectly

// Irradiance / π around n: the environment's (SH9), or the legacy hemisphere's.
fn indirectDiffuse(n: vec3f) -> vec3f {
  if (frame.environmentLevels > 0.0) {
    return environmentDiffuse(n);
  }
  return mix(frame.groundColor, frame.skyColor, n.y * 0.5 + 0.5);
}

// Radiance arriving along `direction`, prefiltered for GGX `roughness`.
fn indirectSpecular(direction: vec3f, roughness: f32) -> vec3f {
  if (frame.environmentLevels > 0.0) {
    return textureSampleLevel(environmentSpecular, environmentSampler, direction, roughness * (frame.environmentLevels - 1.0)).rgb;
  }
  return mix(frame.groundColor, frame.skyColor, direction.y * 0.5 + 0.5);
}

// The split-sum table's (f0 scale, bias) at (n·v, roughness): the device's table with an
// environment, its analytic fit for the hemisphere.
fn indirectBrdf(nDotV: f32, roughness: f32) -> vec2f {
  if (frame.environmentLevels > 0.0) {
    return textureSampleLevel(brdfLut, environmentSampler, vec2f(nDotV, roughness), 0.0).rg;
  }
  return environmentBrdfScaleBias(roughness, nDotV);
}

// The image-based specular's Fresnel with multiple scattering (Fdez-Agüera 2019), as the sample
// viewer's getIBLGGXFresnel: a roughness-dependent Fresnel, then the energy single scattering loses.
fn indirectFresnel(ab: vec2f, nDotV: f32, roughness: f32, f0: vec3f, specularWeight: f32) -> vec3f {
  let fr = max(vec3f(1.0 - roughness), f0) - f0;
  let kS = f0 + fr * pow(1.0 - nDotV, 5.0);
  let single = specularWeight * (kS * ab.x + ab.y);
  let ems = 1.0 - (ab.x + ab.y);
  let average = specularWeight * (f0 + (1.0 - f0) / 21.0);
  return single + ems * single * average / (vec3f(1.0) - average * ems);
}

// The opaque scene behind the surface along the view ray refracted through a volume of the
// material's thickness (KHR_materials_volume; 0 without it: straight through), blurred by the
// roughness its IOR scales, attenuated on the way and tinted by the base colour. With
// dispersion each channel refracts with its own index. rgb: radiance; a: how much of the scene
// is there (its alpha: a transparent background lets the page through).
fn transmittedLight(in: VertexOutput, n: vec3f, v: vec3f, m: ExtendedMaterial) -> vec4f {
  let scale = select(1.0, modelScaleOf(in), uses(PBR_VOLUME));
  let lodPerRoughness = log2(transmissionSceneWidth());
  var light: vec4f;
  var rayLength: f32;
  if (m.dispersion > 0.0) {
    let halfSpread = (m.ior - 1.0) * 0.025 * m.dispersion;
    let iors = vec3f(m.ior - halfSpread, m.ior, m.ior + halfSpread);
    for (var c = 0; c < 3; c++) {
      let ray = volumeTransmissionRay(n, v, m.thickness, iors[c], scale);
      let sampled = transmittedScene(sceneUv(in.worldPosition + ray), lodPerRoughness * applyIorToRoughness(m.roughness, iors[c]));
      light[c] = sampled[c];
      light.a = sampled.a;
      rayLength = length(ray);
    }
  } else {
    let ray = volumeTransmissionRay(n, v, m.thickness, m.ior, scale);
    light = transmittedScene(sceneUv(in.worldPosition + ray), lodPerRoughness * applyIorToRoughness(m.roughness, m.ior));
    rayLength = length(ray);
  }
  let attenuated = applyVolumeAttenuation(light.rgb, rayLength, m.attenuationColor, m.attenuationDistance);
  return vec4f(attenuated * m.base.rgb, light.a);
}

// A camera-relative world position's place in the transmitted scene (uv, y down).
fn sceneUv(position: vec3f) -> vec2f {
  let clip = frame.viewProjection * vec4f(position, 1.0);
  let ndc = clip.xy / clip.w;
  return vec2f(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
}

// What leaves the surface towards the eye under image-based light (the environment, or the
// hemisphere in its place): the sample viewer's USE_IBL block. `scene`: transmittedLight.
fn indirectLight(in: VertexOutput, n: vec3f, v: vec3f, nDotV: f32, m: ExtendedMaterial, irid: IridescentFresnel, scene: vec4f, occlusion: f32) -> vec3f {
  var diffuse = indirectDiffuse(n) * m.base.rgb;
  if (uses(PBR_DIFFUSE_TRANSMISSION)) {
    // Light from the other side, through the thin surface.
    var through = indirectDiffuse(-n) * m.diffuseTransmissionColor;
    if (uses(PBR_VOLUME)) {
      through = applyVolumeAttenuation(through, m.thickness * modelScaleOf(in), m.attenuationColor, m.attenuationDistance);
    }
    diffuse = mix(diffuse, through, m.diffuseTransmissionFactor);
  }
  if (uses(PBR_TRANSMISSION)) {
    diffuse = mix(diffuse, scene.rgb, m.transmissionFactor);
  }
  var reflected = reflect(-v, n);
  if (uses(PBR_ANISOTROPY)) {
    reflected = reflect(-v, anisotropicBentNormal(n, v, m.roughness, m.anisotropyStrength, m.anisotropyB));
  }
  let specular = indirectSpecular(reflected, m.roughness);
  let ab = indirectBrdf(nDotV, m.roughness);
  var metal = indirectFresnel(ab, nDotV, m.roughness, m.base.rgb, 1.0) * specular;
  var dielectric = mix(diffuse, specular, indirectFresnel(ab, nDotV, m.roughness, m.f0Dielectric, m.specularWeight));
  if (uses(PBR_IRIDESCENCE)) {
    metal = mix(metal, specular * irid.metal, irid.factor);
    dielectric = mix(dielectric, rgbMix(diffuse, specular, irid.dielectric), irid.factor);
  }
  var color = mix(dielectric, metal, m.metallic);
  if (uses(PBR_SHEEN)) {
    // The sheen lobe lit by the irradiance (as three.js lights it), scaled by its directional
    // albedo; the layers below lose what the sheen reflects.
    let albedo = sheenAlbedo(nDotV, m.sheenRoughness);
    color = indirectDiffuse(n) * m.sheenColor * albedo + color * (1.0 - max3(m.sheenColor) * albedo);
  }
  if (uses(PBR_CLEARCOAT)) {
    let coat = indirectSpecular(reflect(-v, m.clearcoatNormal), m.clearcoatRoughness);
    color = mix(color, coat, m.clearcoatFactor * clearcoatFresnel(m, v));
  }
  return color * occlusion;
}

fn clearcoatFresnel(m: ExtendedMaterial, v: vec3f) -> vec3f {
  return fresnelSchlick90(m.clearcoatF0, vec3f(1.0), clamp(dot(m.clearcoatNormal, v), 0.0, 1.0));
}

// The thin film's Fresnel over dielectric and metal, and how much of it the material has.
struct IridescentFresnel {
  dielectric: vec3f,
  metal: vec3f,
  factor: f32,
}

fn iridescentFresnel(m: ExtendedMaterial, nDotV: f32) -> IridescentFresnel {
  var f: IridescentFresnel;
  if (uses(PBR_IRIDESCENCE)) {
    f.dielectric = evalIridescence(m.iridescenceIor, nDotV, m.iridescenceThickness, m.f0Dielectric);
    f.metal = evalIridescence(m.iridescenceIor, nDotV, m.iridescenceThickness, m.base.rgb);
    // A film of no thickness is no film.
    f.factor = select(m.iridescenceFactor, 0.0, m.iridescenceThickness == 0.0);
  }
  return f;
}

// The legacy key light (directional, with its shadow) on the extended material: the sample
// viewer's punctual light loop for one light.
fn keyLight(in: VertexOutput, n: vec3f, v: vec3f, nDotV: f32, m: ExtendedMaterial, irid: IridescentFresnel) -> vec3f {
  let light = frame.lightColor * keyLightVisibility(in.worldPosition, in.normal);
  let l = frame.lightDirection;
  let h = normalize(l + v);
  let nDotL = clamp(dot(n, l), 0.0, 1.0);
  let nDotH = clamp(dot(n, h), 0.0, 1.0);
  let vDotH = clamp(dot(v, h), 0.0, 1.0);
  let dielectricFresnel = fresnelSchlick90(m.f0Dielectric * m.specularWeight, m.f90Dielectric, vDotH);
  let metalFresnel = fresnelSchlick90(m.base.rgb, vec3f(1.0), vDotH);
  var diffuse = light * nDotL * m.base.rgb / PI;
  if (uses(PBR_DIFFUSE_TRANSMISSION)) {
    var through = light * clamp(dot(-n, l), 0.0, 1.0) * m.diffuseTransmissionColor / PI;
    if (uses(PBR_VOLUME)) {
      through = applyVolumeAttenuation(through, m.thickness * modelScaleOf(in), m.attenuationColor, m.attenuationDistance);
    }
    diffuse = mix(diffuse, through, m.diffuseTransmissionFactor);
  }
  if (uses(PBR_TRANSMISSION)) {
    // The light's direction as seen from where the refracted ray leaves the volume.
    let ray = volumeTransmissionRay(n, v, m.thickness, m.ior, select(1.0, modelScaleOf(in), uses(PBR_VOLUME)));
    let through = normalize(l - ray);
    let transmitted = applyVolumeAttenuation(light * punctualTransmission(n, v, through, m.alphaRoughness, m.base.rgb, m.ior), length(ray), m.attenuationColor, m.attenuationDistance);
    diffuse = mix(diffuse, transmitted, m.transmissionFactor);
  }
  var specular: vec3f;
  if (uses(PBR_ANISOTROPY)) {
    specular = light * nDotL * specularGgxAnisotropic(m.alphaRoughness, m.anisotropyStrength, n, v, l, h, m.anisotropyT, m.anisotropyB);
  } else {
    specular = light * nDotL * distributionGgx(nDotH, m.alphaRoughness) * visibilitySmithGgx(nDotL, nDotV, m.alphaRoughness);
  }
  var metal = metalFresnel * specular;
  var dielectric = mix(diffuse, specular, dielectricFresnel);
  if (uses(PBR_IRIDESCENCE)) {
    metal = mix(metal, specular * irid.metal, irid.factor);
    dielectric = mix(dielectric, rgbMix(diffuse, specular, irid.dielectric), irid.factor);
  }
  var color = mix(dielectric, metal, m.metallic);
  if (uses(PBR_SHEEN)) {
    let sheen = light * nDotL * m.sheenColor * distributionCharlie(m.sheenRoughness, nDotH) * visibilitySheen(nDotL, nDotV, m.sheenRoughness);
    let strongest = max3(m.sheenColor);
    let scaling = min(1.0 - strongest * sheenAlbedo(nDotV, m.sheenRoughness), 1.0 - strongest * sheenAlbedo(nDotL, m.sheenRoughness));
    color = sheen + color * scaling;
  }
  if (uses(PBR_CLEARCOAT)) {
    let cn = m.clearcoatNormal;
    let alpha = m.clearcoatRoughness * m.clearcoatRoughness;
    let cnDotL = clamp(dot(cn, l), 0.0, 1.0);
    let coat = light * cnDotL * distributionGgx(clamp(dot(cn, h), 0.0, 1.0), alpha) * visibilitySmithGgx(cnDotL, clamp(dot(cn, v), 1e-4, 1.0), alpha);
    color = mix(color, coat, m.clearcoatFactor * clearcoatFresnel(m, v));
  }
  return color;
}

// ---------------------------------------------------------------- the fragment stage

fn shadeExtended(in: VertexOutput, frontFacing: bool) -> vec4f {
  let s = sampleCore(in);
  let x = sampleExtensions(in);
  let base = baseColorOf(in, s);
  let v = normalize(frame.cameraPosition - in.worldPosition);
  let ng = geometricNormal(in, frontFacing, v, s.dpx, s.dpy);
  let geometric = tangentFrame(in, ng, frontFacing, s.dpx, s.dpy, s.duvx, s.duvy);
  var n = ng;
  if ((MATERIAL_TEXTURES & TEXTURE_NORMAL) != 0u && (material.flags & MATERIAL_HAS_NORMAL_TEXTURE) != 0u) {
    n = perturbedNormal(geometric, s.normal, material.normalScale);
  }
  let m = extendedMaterial(base, s, x, geometric, n);
  let nDotV = clamp(abs(dot(n, v)), 1e-4, 1.0);
  let irid = iridescentFresnel(m, nDotV);
  var scene = vec4f(0.0, 0.0, 0.0, 1.0);
  if (uses(PBR_TRANSMISSION)) {
    scene = transmittedLight(in, n, v, m);
  }
  let occlusion = 1.0 + material.occlusionStrength * (s.occlusion - 1.0);
  var color = indirectLight(in, n, v, nDotV, m, irid, scene, occlusion);
  if (frame.environmentLevels <= 0.0) {
    // Without an environment the key light adds to the hemisphere (with one, it lights alone).
    color += keyLight(in, n, v, nDotV, m, irid);
  }
  var emissive = material.emissiveFactor * s.emissive;
  if (uses(PBR_CLEARCOAT)) {
    emissive *= vec3f(1.0) - m.clearcoatFactor * clearcoatFresnel(m, v);
  }
  color += emissive;
  if (uses(PBR_TRANSMISSION)) {
    // What the scene behind lacks (a transparent background) lets the page through; the
    // transmitted radiance already carries its own coverage.
    let alpha = base.a * (1.0 - m.transmissionFactor * (1.0 - scene.a));
    return transmissiveOutput(color, alpha);
  }
  return outputColor(color, base.a);
}

// Like outputColor, for radiance that is already premultiplied by coverage `alpha`.
fn transmissiveOutput(color: vec3f, alpha: f32) -> vec4f {
  if (LINEAR_OUTPUT) {
    return vec4f(color, alpha);
  }
  var display = toneMap(color * frame.exposure, frame.toneMapping);
  if (ENCODE_SRGB) {
    display = linearToSrgb(display);
  }
  return vec4f(display, alpha);
}

@fragment
fn fsExtended(in: VertexOutput, @builtin(front_facing) frontFacing: bool) -> @location(0) vec4f {
  return shadeExtended(in, frontFacing);
}

@fragment
fn fsExtendedLean(in: LeanVertexOutput, @builtin(front_facing) frontFacing: bool) -> @location(0) vec4f {
  return shadeExtended(VertexOutput(in.clipPosition, in.worldPosition, in.normal, DEFAULT_TANGENT, in.texcoord0, DEFAULT_TEXCOORD, DEFAULT_COLOR, in.drawFlags), frontFacing);
}
