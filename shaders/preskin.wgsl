// The Renderer's compute skinning path (RenderSettings.skinningPath, src/gpu/draw/preskin.ts):
// once per frame, every skinned draw's vertices of every instance are morphed (morph.wgsl)
// and skinned (skinning.wgsl) — the very functions the vertex stage calls — and written
// in mesh-node space to `skinned`, which the lit and shadow passes then read (mesh.wgsl
// vsPreskinned) instead of skinning again. Built as skinning.wgsl + draw-record.wgsl +
// center-of-rotation.wgsl + morph.wgsl + this file.
//
// One dispatch per skinned draw: x covers its vertices, y its instances (y = instance k,
// `num_workgroups.y` = the frame's instance count, so the draw record of (draw, k) is
// draw × count + k, as the render passes index it), and z the vertices of a primitive with
// more workgroups than x allows (src/gpu/draw/preskin.ts preskinGrid; 1 almost always). The
// record gives the palette offset, the morph weights, the flags and where the output goes
// (skinnedBase).
//
// `bake --backend gpu` (src/bake/gpu-bake.ts) runs this pass too: one instance, world
// palettes and records of its own, sources morphed on the CPU; its output is in world space.
//
// The bindings and PreskinParams are mirrored in src/gpu/draw/preskin.ts, test/gpu/draw/preskin.test.ts
// compares them; DrawRecord and its DRAW_* bits come from draw-record.wgsl.

// Set by the pipeline from PRESKIN_WORKGROUP_SIZE.
override workgroupSize: u32 = 64u;
// As mesh.wgsl's: the palette holds DqJoint entries (dual quaternions and centres of rotation).
override DUAL_QUATERNION: bool = false;
// As mesh.wgsl's: with DUAL_QUATERNION, centre-of-rotation skinning about `centers`.
override CENTER_OF_ROTATION: bool = false;
// Set per draw by the pipeline (src/gpu/draw/preskin.ts preskinVariants): its influence sets (1:
// JOINTS_0/WEIGHTS_0; 2: also JOINTS_1/WEIGHTS_1) and whether it has morph targets. As
// constants, not uniforms: SwiftShader runs both sides of a branch it cannot prove uniform,
// and a loop's body at least once, so a runtime test paid for the 8-influence blend and the
// morph loop on every vertex.
override INFLUENCE_SETS: u32 = 1u;
override MORPH_TARGETS: bool = true;

struct PreskinParams {
  // Index of the draw (its records are draw × instanceCount + k).
  draw: u32,
  vertexCount: u32,
  // First vertex of the primitive in `sources` (SOURCE_VERTEX_FLOATS each).
  sourceBase: u32,
  // First vec4 of the primitive in `joints` and `weights` (INFLUENCE_SETS per vertex).
  influenceBase: u32,
}

// Floats per source vertex: position xyz, normal xyz, tangent xyzw (absent ones hold the
// vertex path's defaults, so both paths skin the same numbers).
const SOURCE_VERTEX_FLOATS: u32 = 10u;

@group(0) @binding(0) var<storage, read> jointPalette: array<mat4x4f>;
@group(0) @binding(1) var<storage, read> draws: array<DrawRecord>;
@group(0) @binding(2) var<storage, read> morphDeltas: array<f32>;
@group(0) @binding(3) var<storage, read> sources: array<f32>;
@group(0) @binding(4) var<storage, read> joints: array<vec4u>;
@group(0) @binding(5) var<storage, read> weights: array<vec4f>;
@group(0) @binding(6) var<storage, read_write> skinned: array<vec4f>;
@group(0) @binding(7) var<uniform> params: PreskinParams;
@group(0) @binding(8) var<storage, read> centers: array<f32>;

@compute @workgroup_size(workgroupSize)
fn preskin(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let v = id.x + id.z * groups.x * workgroupSize;
  if (v >= params.vertexCount) {
    return;
  }
  let record = draws[params.draw * groups.y + id.y];
  let at = (params.sourceBase + v) * SOURCE_VERTEX_FLOATS;
  let source = SkinnedFrame(
    vec3f(sources[at], sources[at + 1u], sources[at + 2u]),
    vec3f(sources[at + 3u], sources[at + 4u], sources[at + 5u]),
    vec4f(sources[at + 6u], sources[at + 7u], sources[at + 8u], sources[at + 9u]),
  );
  var local = source;
  if (MORPH_TARGETS) {
    local = morphFrame(record, v, source);
  }
  let s = params.influenceBase + v * INFLUENCE_SETS;
  var frame: SkinnedFrame;
  if (CENTER_OF_ROTATION) {
    let center = centerOfRotation(record, v);
    var blend: CorBlend;
    if (INFLUENCE_SETS == 2u) {
      blend = blendCentersOfRotation8(record.paletteOffset, joints[s], weights[s], joints[s + 1u], weights[s + 1u], center);
    } else {
      blend = blendCentersOfRotation(record.paletteOffset, joints[s], weights[s], center);
    }
    frame = skinFrameCor(blend, center, local.position, local.normal, local.tangent);
  } else if (DUAL_QUATERNION) {
    var blend: DqBlend;
    if (INFLUENCE_SETS == 2u) {
      blend = blendDualQuats8(record.paletteOffset, joints[s], weights[s], joints[s + 1u], weights[s + 1u]);
    } else {
      blend = blendDualQuats(record.paletteOffset, joints[s], weights[s]);
    }
    frame = skinFrameDq(blend, local.position, local.normal, local.tangent);
  } else {
    var m: mat4x4f;
    if (INFLUENCE_SETS == 2u) {
      m = blendJointMatrices8(record.paletteOffset, joints[s], weights[s], joints[s + 1u], weights[s + 1u]);
    } else {
      m = blendJointMatrices(record.paletteOffset, joints[s], weights[s]);
    }
    frame = skinFrame(m, local.position, local.normal, local.tangent, (record.flags & DRAW_EXACT_NORMALS) != 0u);
  }
  let out = (record.skinnedBase + v) * 3u;
  skinned[out] = vec4f(frame.position, 1.0);
  skinned[out + 1u] = vec4f(frame.normal, 0.0);
  skinned[out + 2u] = frame.tangent;
}
