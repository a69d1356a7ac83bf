// The shared part of every mesh pipeline. Built as skinning.wgsl + pbr.wgsl + draw-record.wgsl +
// centre-of-rotation.wgsl + morph.wgsl + this file + sh9.wgsl + environment-lighting.wgsl, then
// the material path's own WGSL (src/gpu/pipelines/mesh.ts, src/gpu/pipelines/*-path.ts): its group 2
// bindings, its shaded fragment entry points and `materialVertexOffset`, the vertex hook below.
// Vertex stage: applies the draw's morph targets (morph.wgsl), skins position, normal and
// tangent with the shared skinning functions — linear blend or, with DUAL_QUATERNION, dual
// quaternions, or with CENTER_OF_ROTATION too, centres of rotation (vsSkin4 / vsSkin8; vsRigid
// for unskinned meshes) — then applies the mesh node's world matrix from the draw's record and
// the material's vertex offset. Here too: the key light's shadow lookup, the output transform
// (exposure, tone mapping, sRGB), the ground disc and the debug fragment variants.
//
// Every binding number, location, flag bit and struct offset here is a copy of
// src/gpu/layouts/bindings.ts or a layout module there; test/gpu/layouts/bindings.test.ts compares them.

// AlphaModeCode.
const ALPHA_OPAQUE: u32 = 0u;
const ALPHA_MASK: u32 = 1u;
const ALPHA_BLEND: u32 = 2u;

// True when the colour target stores raw values (a …unorm format): the shader then
// applies the sRGB transfer function itself. …-srgb targets encode in hardware.
override ENCODE_SRGB: bool = false;
// The WEIGHTS debug variant (MeshVariant 'weights' in src/gpu/pipelines/mesh.ts): the vertex
// stage replaces COLOR_0 by the skin-weight colour, which fsWeights shows.
override WEIGHT_COLORS: bool = false;
// The WIREFRAME debug variant (and the debug.wgsl lines): moves every vertex this
// fraction of the way towards the eye, so lines win the depth test against the triangles
// they lie on (WebGPU has no depth bias for line topologies). 0 for shaded surfaces.
override DEPTH_PULL: f32 = 0.0;
// Skinned pipelines of RenderSettings.skinning 'dual-quaternion' and 'center-of-rotation': the
// palette holds DqJoint entries (src/anim/dq-palette.ts) in the same slots, blended by
// blendDualQuats and applied by skinFrameDq instead of blendJointMatrices and skinFrame.
// Part of the pipeline key.
override DUAL_QUATERNION: bool = false;
// With DUAL_QUATERNION, pipelines of 'center-of-rotation': the same palette blended by
// blendCentersOfRotation about each vertex's centre (`centers`, the draw's centerBase) and
// applied by skinFrameCor. Part of the pipeline key.
override CENTER_OF_ROTATION: bool = false;
// False for pipelines of primitives without morph targets (MeshPipelineDesc.morphed): the
// morph code is then compiled out. A runtime branch on the record's flags is not enough on
// SwiftShader, which runs both sides of a branch under a lane mask (it halved the vertex
// stage of the Fox crowd).
override MORPH_TARGETS: bool = true;
// True only for alphaMode MASK pipelines: the others compile without `discard`, which lets
// rasterisers test depth before shading (SwiftShader shades first in any shader that may discard).
override ALPHA_TEST: bool = true;
// False compiles the key light's shadow lookup out of fsMain / fsMainLean (keyLightVisibility
// returns 1, as it does at runtime when frame.shadowStrength is 0): shaded pipelines of frames
// without shadows (MeshPipelineDesc.shadows). SwiftShader runs that lookup's code, a first
// comparison tap included, under a lane mask even when shadows are off; 3–4% of a 100-Fox frame.
override SHADOWS: bool = true;
// The transmission pass (src/gpu/draw/transmission-pass.ts): outputColor writes linear, premultiplied
// radiance, without exposure, tone mapping or sRGB encoding, for transmissive surfaces to sample.
override LINEAR_OUTPUT: bool = false;
// Pipelines whose fragment stage needs the model matrix's scale (KHR_materials_volume's thickness
// is in mesh units): toWorld packs it into the upper half of drawFlags (DrawFlag uses the lower).
override PACK_MODEL_SCALE: bool = false;

struct FrameUniforms {
  viewProjection: mat4x4f,
  view: mat4x4f,
  projection: mat4x4f,
  cameraPosition: vec3f,
  exposure: f32,
  lightDirection: vec3f,
  toneMapping: u32,
  lightColor: vec3f,
  skyColor: vec3f,
  groundColor: vec3f,
  viewportSize: vec2f,
  debugLineLength: f32,
  debugLineWidth: f32,
  // Camera-relative world → the shadow map's clip space (shaders/shadow.wgsl, src/gpu/frame/shadow-map.ts).
  lightViewProjection: mat4x4f,
  // 0: no shadow (shadows off, or the map is not ready); 1: the key light is fully blocked in shadow.
  shadowStrength: f32,
  // World units the receiver moves along its normal before the lookup (against acne).
  shadowNormalOffset: f32,
  // Shadow-map depth units subtracted from the receiver's depth.
  shadowDepthBias: f32,
  // 1 / the shadow map's size: one texel in uv.
  shadowTexelSize: f32,
  // The ground disc (RenderSettings.ground): centre (camera-relative) and radius; radius 0: none.
  groundCenter: vec3f,
  groundRadius: f32,
  // Mip levels of the environment's specular chain; 0: no environment (key light and hemisphere).
  environmentLevels: f32,
  // The shadow lookup's tap spacing in shadow-map texels (RenderSettings.shadowSoftness).
  shadowSpread: f32,
  // Multiplies every outline width (RenderSettings.outlineWidth; shaders/mtoon.wgsl): 1 as authored, 0 none.
  outlineWidthScale: f32,
  // The environment's SH9 irradiance / π (rgb of each coefficient; shaders/sh9.wgsl).
  environmentIrradiance: array<vec4f, 9>,
}

@group(0) @binding(0) var<uniform> frame: FrameUniforms;
@group(0) @binding(1) var shadowMap: texture_depth_2d;
@group(0) @binding(2) var shadowSampler: sampler_comparison;

@group(1) @binding(0) var<storage, read> jointPalette: array<mat4x4f>;
@group(1) @binding(1) var<storage, read> draws: array<DrawRecord>;
@group(1) @binding(2) var<storage, read> morphDeltas: array<f32>;
// The compute path's output (shaders/preskin.wgsl): per vertex the morphed, skinned
// position (xyz, 1), normal (xyz, 0) and tangent (xyzw) in mesh-node space. A placeholder
// on the vertex path.
@group(1) @binding(3) var<storage, read> skinnedVertices: array<vec4f>;
// Every skinned primitive's centres of rotation (xyz per vertex, src/gpu/model/center-buffer.ts),
// read by CENTER_OF_ROTATION pipelines; a placeholder until the model's centres are ready.
@group(1) @binding(4) var<storage, read> centers: array<f32>;

// Attributes every primitive supplies (missing ones come from a constant default buffer).
struct SurfaceInput {
  @location(0) position: vec3f,
  @location(1) normal: vec3f,
  @location(2) tangent: vec4f,
  @location(3) texcoord0: vec2f,
  @location(4) texcoord1: vec2f,
  @location(5) color0: vec4f,
}

struct Influences4 {
  @location(6) joints0: vec4u,
  @location(7) weights0: vec4f,
}

struct Influences8 {
  @location(6) joints0: vec4u,
  @location(7) weights0: vec4f,
  @location(8) joints1: vec4u,
  @location(9) weights1: vec4f,
}

struct VertexOutput {
  @builtin(position) clipPosition: vec4f,
  @location(0) worldPosition: vec3f,
  @location(1) normal: vec3f,
  @location(2) tangent: vec4f,
  @location(3) texcoord0: vec2f,
  @location(4) texcoord1: vec2f,
  @location(5) color0: vec4f,
  @location(6) @interpolate(flat) drawFlags: u32,
}

// Mesh-node space → world → clip. Normals go through the record's normal matrix (the
// model matrix's cofactor), tangents through the model matrix, as surface directions.
fn toWorld(local: SkinnedFrame, surface: SurfaceInput, record: DrawRecord) -> VertexOutput {
  let placed = record.model * vec4f(local.position, 1.0);
  let normal = record.normalMatrix * local.normal;
  // The material path's hook: xyz moves the vertex (world units), w pushes it back in depth (clip w units).
  let moved = materialVertexOffset(placed.xyz, normal, surface.texcoord0, surface.texcoord1);
  let world = vec4f(placed.xyz + moved.xyz, 1.0);
  let linear = mat3x3f(record.model[0].xyz, record.model[1].xyz, record.model[2].xyz);
  var out: VertexOutput;
  out.clipPosition = frame.viewProjection * world;
  out.clipPosition.z += moved.w * out.clipPosition.w;
  if (DEPTH_PULL > 0.0) {
    out.clipPosition = frame.viewProjection * vec4f(mix(world.xyz, frame.cameraPosition, DEPTH_PULL), 1.0);
  }
  out.worldPosition = world.xyz;
  out.normal = normal;
  out.tangent = vec4f(linear * local.tangent.xyz, local.tangent.w);
  out.texcoord0 = surface.texcoord0;
  out.texcoord1 = surface.texcoord1;
  out.color0 = surface.color0;
  out.drawFlags = record.flags;
  if (PACK_MODEL_SCALE) {
    // The upper half of the flags is free: the model matrix's mean scale as a half float.
    let scale = (length(linear[0]) + length(linear[1]) + length(linear[2])) / 3.0;
    out.drawFlags = (record.flags & 0xffffu) | (pack2x16float(vec2f(scale, 0.0)) << 16u);
  }
  return out;
}

// The vertex's own frame with its draw's morph targets applied: the input to skinning.
fn localFrame(surface: SurfaceInput, record: DrawRecord, vertex: u32) -> SkinnedFrame {
  let base = SkinnedFrame(surface.position, surface.normal, surface.tangent);
  if (!MORPH_TARGETS) {
    return base;
  }
  return morphFrame(record, vertex, base);
}

// Four influences by the pipeline's skinning method (`vertex`: the primitive's vertex index).
fn skinVertex4(record: DrawRecord, local: SkinnedFrame, skin: Influences4, vertex: u32) -> SkinnedFrame {
  if (CENTER_OF_ROTATION) {
    let center = centerOfRotation(record, vertex);
    return skinFrameCor(blendCentersOfRotation(record.paletteOffset, skin.joints0, skin.weights0, center), center, local.position, local.normal, local.tangent);
  }
  if (DUAL_QUATERNION) {
    return skinFrameDq(blendDualQuats(record.paletteOffset, skin.joints0, skin.weights0), local.position, local.normal, local.tangent);
  }
  let m = blendJointMatrices(record.paletteOffset, skin.joints0, skin.weights0);
  return skinFrame(m, local.position, local.normal, local.tangent, (record.flags & DRAW_EXACT_NORMALS) != 0u);
}

// Eight influences by the pipeline's skinning method.
fn skinVertex8(record: DrawRecord, local: SkinnedFrame, skin: Influences8, vertex: u32) -> SkinnedFrame {
  if (CENTER_OF_ROTATION) {
    let center = centerOfRotation(record, vertex);
    let blend = blendCentersOfRotation8(record.paletteOffset, skin.joints0, skin.weights0, skin.joints1, skin.weights1, center);
    return skinFrameCor(blend, center, local.position, local.normal, local.tangent);
  }
  if (DUAL_QUATERNION) {
    let blend = blendDualQuats8(record.paletteOffset, skin.joints0, skin.weights0, skin.joints1, skin.weights1);
    return skinFrameDq(blend, local.position, local.normal, local.tangent);
  }
  let m = blendJointMatrices8(record.paletteOffset, skin.joints0, skin.weights0, skin.joints1, skin.weights1);
  return skinFrame(m, local.position, local.normal, local.tangent, (record.flags & DRAW_EXACT_NORMALS) != 0u);
}

@vertex
fn vsRigid(surface: SurfaceInput, @builtin(vertex_index) vertex: u32, @builtin(instance_index) drawIndex: u32) -> VertexOutput {
  let record = draws[drawIndex];
  var out = toWorld(localFrame(surface, record, vertex), surface, record);
  if (WEIGHT_COLORS) {
    out.color0 = vec4f(RIGID_WEIGHT_COLOR, 1.0);
  }
  return out;
}

@vertex
fn vsSkin4(surface: SurfaceInput, skin: Influences4, @builtin(vertex_index) vertex: u32, @builtin(instance_index) drawIndex: u32) -> VertexOutput {
  let record = draws[drawIndex];
  var out = toWorld(skinVertex4(record, localFrame(surface, record, vertex), skin, vertex), surface, record);
  if (WEIGHT_COLORS) {
    out.color0 = vec4f(weightColor(skin.joints0, skin.weights0), 1.0);
  }
  return out;
}

@vertex
fn vsSkin8(surface: SurfaceInput, skin: Influences8, @builtin(vertex_index) vertex: u32, @builtin(instance_index) drawIndex: u32) -> VertexOutput {
  let record = draws[drawIndex];
  var out = toWorld(skinVertex8(record, localFrame(surface, record, vertex), skin, vertex), surface, record);
  if (WEIGHT_COLORS) {
    out.color0 = vec4f(weightColor(skin.joints0, skin.weights0) + weightColor(skin.joints1, skin.weights1), 1.0);
  }
  return out;
}

// ---------------------------------------------------------------- lean surfaces

// Primitives with none of TANGENT, TEXCOORD_1 and COLOR_0 (most skinned characters), in shaded
// pipelines (MeshPipelineDesc.leanVertexLayouts): the vertex stage neither fetches those three
// defaults nor passes them on, and fsMainLean puts the same defaults back, so the shading is
// fsMain's. Locations as in SurfaceInput / VertexOutput.
struct LeanSurfaceInput {
  @location(0) position: vec3f,
  @location(1) normal: vec3f,
  @location(3) texcoord0: vec2f,
}

struct LeanVertexOutput {
  @builtin(position) clipPosition: vec4f,
  @location(0) worldPosition: vec3f,
  @location(1) normal: vec3f,
  @location(3) texcoord0: vec2f,
  @location(6) @interpolate(flat) drawFlags: u32,
}

// The constants of src/gpu/model/upload.ts DefaultAttributeOffset / DEFAULT_ATTRIBUTES.
const DEFAULT_TANGENT: vec4f = vec4f(1.0, 0.0, 0.0, 1.0);
const DEFAULT_TEXCOORD: vec2f = vec2f(0.0, 0.0);
const DEFAULT_COLOR: vec4f = vec4f(1.0, 1.0, 1.0, 1.0);

fn leanSurface(lean: LeanSurfaceInput) -> SurfaceInput {
  return SurfaceInput(lean.position, lean.normal, DEFAULT_TANGENT, lean.texcoord0, DEFAULT_TEXCOORD, DEFAULT_COLOR);
}

fn leanOutput(out: VertexOutput) -> LeanVertexOutput {
  return LeanVertexOutput(out.clipPosition, out.worldPosition, out.normal, out.texcoord0, out.drawFlags);
}

@vertex
fn vsRigidLean(lean: LeanSurfaceInput, @builtin(vertex_index) vertex: u32, @builtin(instance_index) drawIndex: u32) -> LeanVertexOutput {
  let surface = leanSurface(lean);
  let record = draws[drawIndex];
  return leanOutput(toWorld(localFrame(surface, record, vertex), surface, record));
}

@vertex
fn vsSkin4Lean(lean: LeanSurfaceInput, skin: Influences4, @builtin(vertex_index) vertex: u32, @builtin(instance_index) drawIndex: u32) -> LeanVertexOutput {
  let surface = leanSurface(lean);
  let record = draws[drawIndex];
  return leanOutput(toWorld(skinVertex4(record, localFrame(surface, record, vertex), skin, vertex), surface, record));
}

@vertex
fn vsSkin8Lean(lean: LeanSurfaceInput, skin: Influences8, @builtin(vertex_index) vertex: u32, @builtin(instance_index) drawIndex: u32) -> LeanVertexOutput {
  let surface = leanSurface(lean);
  let record = draws[drawIndex];
  return leanOutput(toWorld(skinVertex8(record, localFrame(surface, record, vertex), skin, vertex), surface, record));
}

// How much of the key light reaches a point (1 lit … 1 − shadowStrength in shadow): 3×3
// percentage-closer taps of the shadow map, each a 2×2 bilinear comparison (a linear
// comparison sampler), so the edge is soft over about four texels. Level-0 sampling has no
// uniformity requirement, so it may run after the fragment's discards.
fn keyLightVisibility(worldPosition: vec3f, vertexNormal: vec3f) -> f32 {
  if (!SHADOWS) {
    return 1.0;
  }
  if (frame.shadowStrength <= 0.0) {
    return 1.0;
  }
  let n = normalizeOrZero(vertexNormal);
  // Offset towards the light side of the surface, whichever way the normal faces.
  let towardsLight = select(-n, n, dot(n, frame.lightDirection) >= 0.0);
  let clip = frame.lightViewProjection * vec4f(worldPosition + towardsLight * frame.shadowNormalOffset, 1.0);
  let ndc = clip.xyz / clip.w;
  let uv = vec2f(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
  if (any(uv < vec2f(0.0)) || any(uv > vec2f(1.0)) || ndc.z > 1.0) {
    return 1.0;
  }
  let depth = ndc.z - frame.shadowDepthBias;
  var lit = 0.0;
  for (var y = -1; y <= 1; y++) {
    for (var x = -1; x <= 1; x++) {
      lit += textureSampleCompareLevel(shadowMap, shadowSampler, uv + vec2f(f32(x), f32(y)) * (frame.shadowTexelSize * frame.shadowSpread), depth);
    }
  }
  return 1.0 - frame.shadowStrength * (1.0 - lit / 9.0);
}

// The compute path (RenderSettings.skinningPath): the vertex was morphed and skinned by
// shaders/preskin.wgsl this frame with the same functions; only the model matrix is left.
@vertex
fn vsPreskinned(surface: SurfaceInput, @builtin(vertex_index) vertex: u32, @builtin(instance_index) drawIndex: u32) -> VertexOutput {
  let record = draws[drawIndex];
  let at = (record.skinnedBase + vertex) * 3u;
  let local = SkinnedFrame(skinnedVertices[at].xyz, skinnedVertices[at + 1u].xyz, skinnedVertices[at + 2u]);
  return toWorld(local, surface, record);
}

// ---------------------------------------------------------------- surface pieces every material path uses

// Alpha by glTF's alphaMode: MASK keeps the fragment at or above the cutoff (discarded below,
// in ALPHA_TEST pipelines only) as opaque, OPAQUE ignores alpha, BLEND keeps it.
fn materialAlpha(alpha: f32, alphaMode: u32, cutoff: f32) -> f32 {
  if (alphaMode == ALPHA_MASK) {
    if (ALPHA_TEST && alpha < cutoff) {
      discard;
    }
    return 1.0;
  }
  return select(alpha, 1.0, alphaMode == ALPHA_OPAQUE);
}

// The shading normal before normal mapping: interpolated, or flat from the skinned surface
// itself (dpx, dpy: the world position's screen derivatives).
fn geometricNormal(in: VertexOutput, frontFacing: bool, toEye: vec3f, dpx: vec3f, dpy: vec3f) -> vec3f {
  if ((in.drawFlags & DRAW_FLAT_NORMALS) != 0u) {
    let n = normalize(cross(dpx, dpy));
    // Derivative normals have no winding; the visible side is the front.
    return select(n, -n, dot(n, toEye) < 0.0);
  }
  // Back faces (only drawn for double-sided materials) light their own side.
  return select(-1.0, 1.0, frontFacing) * normalize(in.normal);
}

// The tangent frame (t, b, n) around `n`: the skinned TANGENT's, or without TANGENT ∂position/∂u
// from screen-space derivatives (as the Khronos sample viewer does; duvx, duvy: the UV
// derivatives), made orthogonal to n.
fn tangentFrame(in: VertexOutput, n: vec3f, frontFacing: bool, dpx: vec3f, dpy: vec3f, duvx: vec2f, duvy: vec2f) -> mat3x3f {
  var t: vec3f;
  var b: vec3f;
  if ((in.drawFlags & DRAW_HAS_TANGENTS) != 0u) {
    let tangentSign = select(-in.tangent.w, in.tangent.w, frontFacing);
    let tRaw = select(-in.tangent.xyz, in.tangent.xyz, frontFacing);
    t = normalize(tRaw - n * dot(n, tRaw));
    b = cross(n, t) * tangentSign;
  } else {
    let det = duvx.x * duvy.y - duvy.x * duvx.y;
    var tDeriv = (duvy.y * dpx - duvx.y * dpy) * select(0.0, 1.0 / det, abs(det) > 1e-12);
    tDeriv = tDeriv - n * dot(n, tDeriv);
    let tLen2 = dot(tDeriv, tDeriv);
    // Degenerate UVs: any vector perpendicular to n.
    let fallback = select(vec3f(1.0, 0.0, 0.0), vec3f(0.0, 1.0, 0.0), abs(n.x) > 0.9);
    t = select(normalize(fallback - n * dot(n, fallback)), tDeriv * inverseSqrt(tLen2), tLen2 > 1e-20);
    b = cross(n, t);
  }
  return mat3x3f(t, b, n);
}

// A tangent-space normal map sample (0…1 encoded) in the frame `tbn`, its xy scaled by `scale`.
fn perturbedNormal(tbn: mat3x3f, normalSample: vec3f, scale: f32) -> vec3f {
  return normalize(tbn * ((normalSample * 2.0 - 1.0) * vec3f(scale, scale, 1.0)));
}

// `n` bent by a normal map sample in its tangent frame (tangentFrame, perturbedNormal).
fn mappedNormal(in: VertexOutput, n: vec3f, frontFacing: bool, normalSample: vec3f, scale: f32, dpx: vec3f, dpy: vec3f, duvx: vec2f, duvy: vec2f) -> vec3f {
  return perturbedNormal(tangentFrame(in, n, frontFacing, dpx, dpy, duvx, duvy), normalSample, scale);
}

// Linear radiance to the target: exposure, tone mapping, sRGB encoding when the target
// needs it, and premultiplied alpha, which the blend state ("one", "one-minus-src-alpha")
// and a premultiplied canvas expect.
fn outputColor(color: vec3f, alpha: f32) -> vec4f {
  if (LINEAR_OUTPUT) {
    return vec4f(color * alpha, alpha);
  }
  var display = toneMap(color * frame.exposure, frame.toneMapping);
  if (ENCODE_SRGB) {
    display = linearToSrgb(display);
  }
  return vec4f(display * alpha, alpha);
}
