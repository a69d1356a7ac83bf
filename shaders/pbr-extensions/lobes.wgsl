// The BRDF and BTDF terms the PBR material extensions add to glTF metallic-roughness (pbr.wgsl),
// as the Khronos glTF Sample Viewer formulates them (its brdf.glsl, punctual.glsl, ibl.glsl;
// the extensions' specifications): the Charlie sheen lobe with its visibility, anisotropic GGX,
// thin-surface and volume transmission, Beer-Lambert attenuation. Part of the PBR extensions
// path (src/gpu/pipelines/pbr-extensions-path.ts).

// Schlick's Fresnel with an arbitrary grazing reflectance f90.
fn fresnelSchlick90(f0: vec3f, f90: vec3f, vDotH: f32) -> vec3f {
  return f0 + (f90 - f0) * pow(clamp(1.0 - vDotH, 0.0, 1.0), 5.0);
}

fn max3(v: vec3f) -> f32 {
  return max(v.x, max(v.y, v.z));
}

// Blends `layer` over `base` by a per-channel weight, taking out of the base the strongest
// channel's share (the sample viewer's rgb_mix, for the iridescent Fresnel).
fn rgbMix(base: vec3f, layer: vec3f, weight: vec3f) -> vec3f {
  return (1.0 - max3(weight)) * base + weight * layer;
}

// Reflectance at normal incidence of an interface into a medium of index `ior` from air.
fn iorToF0(ior: f32) -> f32 {
  let r = (ior - 1.0) / (ior + 1.0);
  return r * r;
}

// ---------------------------------------------------------------- sheen (KHR_materials_sheen)

// The Charlie distribution (Estevez and Kulla, "Production Friendly Microfacet Sheen BRDF", 2017).
fn distributionCharlie(sheenRoughness: f32, nDotH: f32) -> f32 {
  let alpha = max(sheenRoughness, 1e-6) * max(sheenRoughness, 1e-6);
  let invAlpha = 1.0 / alpha;
  let sin2h = max(1.0 - nDotH * nDotH, 0.0);
  return (2.0 + invAlpha) * pow(sin2h, invAlpha * 0.5) / (2.0 * PI);
}

// The fitted exponent of the Charlie shadowing term Λ(cos θ) (Estevez and Kulla's table, lerped by (1 − α)²).
fn lambdaSheenFit(x: f32, alpha: f32) -> f32 {
  let t = (1.0 - alpha) * (1.0 - alpha);
  let a = mix(21.5473, 25.3245, t);
  let b = mix(3.82987, 3.32435, t);
  let c = mix(0.19823, 0.16801, t);
  let d = mix(-1.97760, -1.27393, t);
  let e = mix(-4.32054, -4.85967, t);
  return a / (1.0 + b * pow(x, c)) + d * x + e;
}

fn lambdaSheen(cosTheta: f32, alpha: f32) -> f32 {
  if (abs(cosTheta) < 0.5) {
    return exp(lambdaSheenFit(cosTheta, alpha));
  }
  return exp(2.0 * lambdaSheenFit(0.5, alpha) - lambdaSheenFit(1.0 - cosTheta, alpha));
}

// The Charlie visibility, V = G / (4 n·l n·v), clamped to [0, 1].
fn visibilitySheen(nDotL: f32, nDotV: f32, sheenRoughness: f32) -> f32 {
  let r = max(sheenRoughness, 1e-6);
  let alpha = r * r;
  return clamp(1.0 / ((1.0 + lambdaSheen(nDotV, alpha) + lambdaSheen(nDotL, alpha)) * (4.0 * nDotV * nDotL)), 0.0, 1.0);
}

// ---------------------------------------------------------------- anisotropy (KHR_materials_anisotropy)

// Anisotropic GGX (Burley 2012), roughness `at` along the anisotropy direction t and `ab` across it.
fn distributionGgxAnisotropic(nDotH: f32, tDotH: f32, bDotH: f32, at: f32, ab: f32) -> f32 {
  let a2 = at * ab;
  let f = vec3f(ab * tDotH, at * bDotH, a2 * nDotH);
  let w2 = a2 / dot(f, f);
  return a2 * w2 * w2 / PI;
}

// Height-correlated anisotropic Smith visibility (Heitz 2014).
fn visibilityGgxAnisotropic(nDotL: f32, nDotV: f32, bDotV: f32, tDotV: f32, tDotL: f32, bDotL: f32, at: f32, ab: f32) -> f32 {
  let ggxV = nDotL * length(vec3f(at * tDotV, ab * bDotV, nDotV));
  let ggxL = nDotV * length(vec3f(at * tDotL, ab * bDotL, nDotL));
  return clamp(0.5 / (ggxV + ggxL), 0.0, 1.0);
}

// The specular lobe D · V of an anisotropic surface for light l: the roughness along t grows
// with the strength, the roughness across it is the material's.
fn specularGgxAnisotropic(alphaRoughness: f32, strength: f32, n: vec3f, v: vec3f, l: vec3f, h: vec3f, t: vec3f, b: vec3f) -> f32 {
  let at = mix(alphaRoughness, 1.0, strength * strength);
  let ab = clamp(alphaRoughness, 0.001, 1.0);
  let nDotL = clamp(dot(n, l), 0.0, 1.0);
  let nDotH = clamp(dot(n, h), 0.001, 1.0);
  let nDotV = dot(n, v);
  let vis = visibilityGgxAnisotropic(nDotL, nDotV, dot(b, v), dot(t, v), dot(t, l), dot(b, l), at, ab);
  return vis * distributionGgxAnisotropic(nDotH, dot(t, h), dot(b, h), at, ab);
}

// The normal image-based light is fetched around for an anisotropic surface: bent from n towards
// the plane across the anisotropy direction as the strength grows (the sample viewer's).
fn anisotropicBentNormal(n: vec3f, v: vec3f, roughness: f32, strength: f32, anisotropyB: vec3f) -> vec3f {
  let tangent = cross(anisotropyB, v);
  let normal = cross(tangent, anisotropyB);
  let bend = 1.0 - strength * (1.0 - roughness);
  let bend4 = bend * bend * bend * bend;
  return normalize(mix(normal, n, bend4));
}

// ---------------------------------------------------------------- transmission and volume

// Transmission blurs by a roughness scaled by how strongly the interface refracts (0 at IOR 1).
fn applyIorToRoughness(roughness: f32, ior: f32) -> f32 {
  return roughness * clamp(ior * 2.0 - 2.0, 0.0, 1.0);
}

// Beer-Lambert: light that travelled `distance` through the volume; distance 0 of the material is infinity.
fn applyVolumeAttenuation(radiance: vec3f, distance: f32, attenuationColor: vec3f, attenuationDistance: f32) -> vec3f {
  if (attenuationDistance <= 0.0) {
    return radiance;
  }
  return pow(attenuationColor, vec3f(distance / attenuationDistance)) * radiance;
}

// From the surface to where the refracted view ray leaves a volume of `thickness` (mesh units,
// scaled to world by `modelScale`).
fn volumeTransmissionRay(n: vec3f, v: vec3f, thickness: f32, ior: f32, modelScale: f32) -> vec3f {
  let refracted = refract(-v, n, 1.0 / ior);
  let length2 = dot(refracted, refracted);
  // Total internal reflection refracts nothing: no ray.
  return select(vec3f(0.0), refracted * inverseSqrt(length2), length2 > 0.0) * thickness * modelScale;
}

// The thin-surface BTDF for a punctual light: GGX around the light mirrored through the surface.
fn punctualTransmission(n: vec3f, v: vec3f, l: vec3f, alphaRoughness: f32, baseColor: vec3f, ior: f32) -> vec3f {
  let roughness = applyIorToRoughness(alphaRoughness, ior);
  let mirrored = normalize(l - 2.0 * n * dot(l, n));
  let h = normalize(mirrored + v);
  let d = distributionGgx(clamp(dot(n, h), 0.0, 1.0), max(roughness, 1e-4));
  let vis = visibilitySmithGgx(clamp(dot(n, mirrored), 0.0, 1.0), clamp(dot(n, v), 0.0, 1.0), max(roughness, 1e-4));
  return baseColor * d * vis;
}
