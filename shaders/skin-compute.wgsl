// Compute skinning: one invocation per vertex of one primitive, writing world-space
// (or palette-space) positions, normals and tangents to a storage buffer. Used by
// `bake --backend gpu`; src/gpu/compute-skin.ts prepends shaders/skinning.wgsl, so the
// blend and the normal/tangent maths are the very code the render path runs.
//
// Inputs of many primitives sit back to back in each buffer; a dispatch's SkinParams
// (one 256-byte slot of a uniform buffer, bound with a dynamic offset) says where its
// primitive starts. Binding numbers and the SkinParams field order are mirrored in
// src/gpu/compute-skin.ts (SkinComputeBinding, SKIN_PARAMS_FIELDS); a test checks both.

// Marks an absent attribute in SkinParams (no NORMAL / no TANGENT).
const NONE: u32 = 0xffffffffu;

// Set by the pipeline from SKIN_COMPUTE_WORKGROUP_SIZE.
override workgroupSize: u32 = 64u;
// Set by the pipeline: jointPalette holds DqJoint entries (blendDualQuats, skinFrameDq)
// instead of matrices. A pipeline constant, so each pipeline compiles one path only.
override dualQuaternion: bool = false;

struct SkinParams {
  // Index of the primitive's skin's first matrix in jointPalette.
  paletteOffset: u32,
  vertexCount: u32,
  // 1 (JOINTS_0/WEIGHTS_0) or 2 (also JOINTS_1/WEIGHTS_1).
  influenceSets: u32,
  // First vertex of the primitive in `positions`, `normals` (or NONE) and `tangents` (or NONE).
  positionBase: u32,
  normalBase: u32,
  tangentBase: u32,
  // First vec4 of the primitive in `joints` and `weights` (influenceSets vec4s per vertex).
  influenceBase: u32,
  // First f32 of each output array in `skinned` (NONE: not written).
  outPosition: u32,
  outNormal: u32,
  outTangent: u32,
}

@group(0) @binding(0) var<storage, read> jointPalette: array<mat4x4f>;
@group(0) @binding(1) var<storage, read> positions: array<f32>;
@group(0) @binding(2) var<storage, read> normals: array<f32>;
@group(0) @binding(3) var<storage, read> tangents: array<vec4f>;
@group(0) @binding(4) var<storage, read> joints: array<vec4u>;
@group(0) @binding(5) var<storage, read> weights: array<vec4f>;
@group(0) @binding(6) var<storage, read_write> skinned: array<f32>;
@group(0) @binding(7) var<uniform> params: SkinParams;

fn readPosition(vertex: u32) -> vec3f {
  let i = vertex * 3u;
  return vec3f(positions[i], positions[i + 1u], positions[i + 2u]);
}

fn readNormal(vertex: u32) -> vec3f {
  let i = vertex * 3u;
  return vec3f(normals[i], normals[i + 1u], normals[i + 2u]);
}

fn writeVec3(first: u32, vertex: u32, value: vec3f) {
  let i = first + vertex * 3u;
  skinned[i] = value.x;
  skinned[i + 1u] = value.y;
  skinned[i + 2u] = value.z;
}

@compute @workgroup_size(workgroupSize)
fn skinVertices(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  // Primitives with more than 65535 workgroups of vertices are dispatched in 2D.
  let v = id.x + id.y * groups.x * workgroupSize;
  if (v >= params.vertexCount) {
    return;
  }
  let s = params.influenceBase + v * params.influenceSets;

  let hasNormal = params.normalBase != NONE;
  let hasTangent = params.tangentBase != NONE;
  var normal = vec3f(0.0);
  if (hasNormal) {
    normal = readNormal(params.normalBase + v);
  }
  var tangent = vec4f(0.0);
  if (hasTangent) {
    tangent = tangents[params.tangentBase + v];
  }
  let position = readPosition(params.positionBase + v);
  var frame: SkinnedFrame;
  if (dualQuaternion) {
    var blend: DqBlend;
    if (params.influenceSets == 2u) {
      blend = blendDualQuats8(params.paletteOffset, joints[s], weights[s], joints[s + 1u], weights[s + 1u]);
    } else {
      blend = blendDualQuats(params.paletteOffset, joints[s], weights[s]);
    }
    frame = skinFrameDq(blend, position, normal, tangent);
  } else {
    var m: mat4x4f;
    if (params.influenceSets == 2u) {
      m = blendJointMatrices8(params.paletteOffset, joints[s], weights[s], joints[s + 1u], weights[s + 1u]);
    } else {
      m = blendJointMatrices(params.paletteOffset, joints[s], weights[s]);
    }
    // The bake matches the CPU reference, so normals take the exact (cofactor) path.
    frame = skinFrame(m, position, normal, tangent, true);
  }

  writeVec3(params.outPosition, v, frame.position);
  if (hasNormal && params.outNormal != NONE) {
    writeVec3(params.outNormal, v, frame.normal);
  }
  if (hasTangent && params.outTangent != NONE) {
    let i = params.outTangent + v * 4u;
    skinned[i] = frame.tangent.x;
    skinned[i + 1u] = frame.tangent.y;
    skinned[i + 2u] = frame.tangent.z;
    skinned[i + 3u] = frame.tangent.w;
  }
}
