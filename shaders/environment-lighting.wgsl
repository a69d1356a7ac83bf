// Image-based lighting in the mesh pipeline (appended to it by src/gpu/pipelines/mesh.ts, after
// sh9.wgsl): a prefiltered Environment (src/gpu/environment/) in the frame group, the
// split-sum specular term (Karis 2013) and SH9 diffuse irradiance, and the skybox.
// Bindings: FrameBinding in src/gpu/layouts/bindings.ts (test/gpu/layouts/bindings.test.ts).

// The GGX specular chain: level i for perceptual roughness i / (frame.environmentLevels − 1).
@group(0) @binding(3) var environmentSpecular: texture_cube<f32>;
@group(0) @binding(4) var environmentSampler: sampler;
// f0 scale (r) and bias (g) by (n·v, roughness).
@group(0) @binding(5) var brdfLut: texture_2d<f32>;
// The radiance cube with its mip chain: the skybox.
@group(0) @binding(6) var environmentBackground: texture_cube<f32>;

// Radiance a white Lambertian surface with normal n reflects: irradiance / π, from the nine
// SH coefficients in the frame uniforms (shaders/sh9.wgsl). SH9 rings
// a little around very bright spots; never below zero.
// shBasis written out term by term: an array indexed in a loop is private memory on
// rasterisers like SwiftShader, and this runs for every fragment (it was 18% of the frame).
fn environmentDiffuse(n: vec3f) -> vec3f {
  let c = &frame.environmentIrradiance;
  let sum = (*c)[0].rgb * SH_C0
    + ((*c)[1].rgb * n.y + (*c)[2].rgb * n.z + (*c)[3].rgb * n.x) * SH_C1
    + ((*c)[4].rgb * (n.x * n.y) + (*c)[5].rgb * (n.y * n.z) + (*c)[7].rgb * (n.x * n.z)) * SH_C2_CROSS
    + (*c)[6].rgb * (SH_C2_ZZ * (3.0 * n.z * n.z - 1.0))
    + (*c)[8].rgb * (SH_C2_XX_YY * (n.x * n.x - n.y * n.y));
  return max(sum, vec3f(0.0));
}

// The environment's light leaving a surface towards the eye, as glTF defines the material
// (Appendix B): mix(dielectric, metal, metallic). The dielectric's specular share
// f0·A + B (the split-sum table, f0 = 0.04) is taken out of its diffuse, so a white
// surface under a uniform environment gives back exactly what comes in and never more
// (the white furnace); the metal reflects base · A + B of it. Linear in `metallic`, so more
// metal never adds energy. `occlusion` darkens both (glTF occlusion applies to indirect light).
fn environmentLight(n: vec3f, toEye: vec3f, baseColor: vec3f, metallic: f32, roughness: f32, nDotV: f32, occlusion: f32) -> vec3f {
  let brdf = textureSampleLevel(brdfLut, environmentSampler, vec2f(nDotV, roughness), 0.0).rg;
  let r = reflect(-toEye, n);
  let prefiltered = textureSampleLevel(environmentSpecular, environmentSampler, r, roughness * (frame.environmentLevels - 1.0)).rgb;
  let dielectricShare = DIELECTRIC_F0 * brdf.x + brdf.y;
  let dielectric = environmentDiffuse(n) * baseColor * (1.0 - dielectricShare) + prefiltered * dielectricShare;
  let metal = prefiltered * (baseColor * brdf.x + brdf.y);
  return occlusion * mix(dielectric, metal, metallic);
}

struct SkyboxOutput {
  @builtin(position) clipPosition: vec4f,
  // −1…1 across the viewport, y up.
  @location(0) ndc: vec2f,
}

// One triangle over the viewport (no vertex buffer).
@vertex
fn vsSkybox(@builtin(vertex_index) vertex: u32) -> SkyboxOutput {
  let xy = vec2f(f32((vertex << 1u) & 2u), f32(vertex & 2u)) * 2.0 - 1.0;
  var out: SkyboxOutput;
  out.clipPosition = vec4f(xy, 1.0, 1.0);
  out.ndc = xy;
  return out;
}

// The environment seen through the pixel: the view ray (from the projection's focal
// lengths) turned into the world by the transposed view rotation; exposure and tone
// mapping as the surfaces.
@fragment
fn fsSkybox(in: SkyboxOutput) -> @location(0) vec4f {
  let viewRay = vec3f(in.ndc.x / frame.projection[0][0], in.ndc.y / frame.projection[1][1], -1.0);
  let rotation = mat3x3f(frame.view[0].xyz, frame.view[1].xyz, frame.view[2].xyz);
  let d = normalize(transpose(rotation) * viewRay);
  return outputColor(textureSampleLevel(environmentBackground, environmentSampler, d, 0.0).rgb, 1.0);
}
