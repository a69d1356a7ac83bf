// Draw records of a crowd written on the GPU (src/gpu/draw/records-pass.ts), what
// src/gpu/draw/draw-record-writer.ts writes on the CPU. A draw's mesh node world is its rest pose's,
// or, for mesh nodes that clips move, the instance's from a GPU pose evaluator's meshWorlds.
// Morph weights come from the evaluator's per-instance block, or are the rest weights for all.
// Built as draw-record.wgsl + this file. The bindings and structs are mirrored in
// src/gpu/layouts/records.ts; test/gpu/draw/records-pass.test.ts compares them.
//
// One invocation per instance k; per draw d, record d × count + k:
//   model = placement_k (camera-relative, uploaded as three rows) · the draw's node world,
//   its normal matrix (cofactor / determinant, as the CPU writes it), the palette offset, the
//   draw's flags with DRAW_EXACT_NORMALS where the setting or a non-uniformly scaled palette
//   matrix of its mesh node asks for it (skin-normals.ts), the compute path's skinned base, and
//   the active morph targets with their weights (morph-targets.ts selectMorphTargets).

struct RecordParams {
  count: u32,
  paletteMatrices: u32,
  drawCount: u32,
  preskinVertices: u32,
  // RenderSettings.normals 'exact'.
  exactNormals: u32,
  // PLACEMENT_COMPACT: placements are similarity transforms, uploaded as a unit quaternion, then the
  // translation (camera-relative) and the uniform scale: two vec4f per instance. PLACEMENT_ROWS:
  // three rows of the affine matrix (camera-relative). PLACEMENT_MATRICES: the model → world
  // mat4x4f a GPU pose evaluator built (world space: `eye` is subtracted here, in float32).
  placementForm: u32,
  // Instance k's placement (PLACEMENT_MATRICES) and morph weights are those of source instance first + k (a chunk).
  first: u32,
  // Floats per instance in morphWeights; 0: one block (the rest weights) shared by every instance.
  weightStride: u32,
  // The camera's position (world), for PLACEMENT_MATRICES.
  eye: vec3f,
  // Moving mesh nodes per instance in meshWorlds (RecordDraw.worldIndex).
  meshStride: u32,
}

struct RecordDraw {
  // Model-space world matrix of the draw's mesh node (the rest pose's).
  nodeWorld: mat4x4f,
  // First palette matrix of the mesh node within an instance (NO_INDEX: rigid).
  paletteOffset: u32,
  // Joints of its skin (the matrices the scale check reads).
  jointCount: u32,
  // DrawFlag bits that do not change per frame (flat normals, tangents).
  staticFlags: u32,
  // 1 for a skinned draw (one that EXACT_NORMALS applies to).
  skinned: u32,
  // First vertex of the draw in an instance's block of skinned vertices (NO_INDEX: rigid).
  skinnedBase: u32,
  // DRAW_MORPH_* bits of the primitive's delta block (0: nothing to morph).
  morphFlags: u32,
  // The primitive's first delta float and its target count (draw record morphBase, morphTargetCount).
  morphBase: u32,
  morphTargetCount: u32,
  // The mesh node's first weight within an instance's block and how many of them the primitive reads.
  weightOffset: u32,
  weightCount: u32,
  // The mesh node's place among an instance's moving mesh nodes in meshWorlds (NO_INDEX: nodeWorld, the rest pose's).
  worldIndex: u32,
  // First vertex of the primitive in the model's centres of rotation (draw record centerBase).
  centerBase: u32,
}

const NO_INDEX: u32 = 0xffffffffu;
// RecordParams.placementForm (layouts/records.ts PlacementForm).
const PLACEMENT_ROWS: u32 = 0u;
const PLACEMENT_COMPACT: u32 = 1u;
const PLACEMENT_MATRICES: u32 = 2u;
// NORMAL_DETERMINANT_EPSILON and UNIFORM_SCALE_TOLERANCE (skin-normals.ts) are declared from the TS constants ahead of this file (records-pass.ts RECORDS_WGSL).

@group(0) @binding(0) var<storage, read> placements: array<vec4f>;
@group(0) @binding(1) var<storage, read> palettes: array<mat4x4f>;
@group(0) @binding(2) var<storage, read_write> records: array<DrawRecord>;
@group(0) @binding(3) var<storage, read> recordDraws: array<RecordDraw>;
@group(0) @binding(4) var<uniform> params: RecordParams;
@group(0) @binding(5) var<storage, read> morphWeights: array<f32>;
@group(0) @binding(6) var<storage, read> meshWorlds: array<mat4x4f>;

override workgroupSize: u32 = 64u;

// morph-targets.ts MAX_ACTIVE_MORPH_TARGETS.
const MAX_ACTIVE_MORPH_TARGETS: u32 = 8u;

struct ActiveTargets {
  count: u32,
  targets: array<u32, MAX_ACTIVE_MORPH_TARGETS>,
  weights: array<f32, MAX_ACTIVE_MORPH_TARGETS>,
}

fn isNan(w: f32) -> bool {
  // By bits: a compiler may assume floats are never NaN and fold w != w away.
  return (bitcast<u32>(w) & 0x7fffffffu) > 0x7f800000u;
}

// morph-targets.ts selectMorphTargets, step for step (the same targets and weights, bit for bit):
// the non-zero weights among morphWeights[first … first + count), the MAX_ACTIVE_MORPH_TARGETS
// largest by magnitude (ties keep the lower index) when there are more, in ascending target order.
fn selectMorphTargets(first: u32, count: u32) -> ActiveTargets {
  var out: ActiveTargets;
  var n = 0u;
  for (var t = 0u; t < count; t++) {
    let w = morphWeights[first + t];
    if (w == 0.0 || isNan(w)) {
      continue;
    }
    let magnitude = abs(w);
    var at = n;
    while (at > 0u && abs(out.weights[at - 1u]) < magnitude) {
      at--;
    }
    if (at >= MAX_ACTIVE_MORPH_TARGETS) {
      continue;
    }
    for (var k = min(n, MAX_ACTIVE_MORPH_TARGETS - 1u); k > at; k--) {
      out.targets[k] = out.targets[k - 1u];
      out.weights[k] = out.weights[k - 1u];
    }
    out.targets[at] = t;
    out.weights[at] = w;
    if (n < MAX_ACTIVE_MORPH_TARGETS) {
      n++;
    }
  }
  for (var k = 1u; k < n; k++) {
    let t = out.targets[k];
    let w = out.weights[k];
    var j = k;
    while (j > 0u && out.targets[j - 1u] > t) {
      out.targets[j] = out.targets[j - 1u];
      out.weights[j] = out.weights[j - 1u];
      j--;
    }
    out.targets[j] = t;
    out.weights[j] = w;
  }
  out.count = n;
  return out;
}

// skin-normals.ts paletteHasNonUniformScale: a 3×3 part that is not a rotation times a uniform scale.
fn nonUniformScale(first: u32, count: u32) -> bool {
  for (var j = 0u; j < count; j++) {
    let m = palettes[first + j];
    let a = m[0].xyz;
    let b = m[1].xyz;
    let c = m[2].xyz;
    let aa = dot(a, a);
    let bb = dot(b, b);
    let cc = dot(c, c);
    let scale = max(aa, max(bb, cc));
    if (scale == 0.0) {
      continue;
    }
    let limit = UNIFORM_SCALE_TOLERANCE * scale;
    if (abs(aa - bb) > limit || abs(bb - cc) > limit || abs(aa - cc) > limit) {
      return true;
    }
    if (abs(dot(a, b)) > limit || abs(dot(b, c)) > limit || abs(dot(c, a)) > limit) {
      return true;
    }
  }
  return false;
}

@compute @workgroup_size(workgroupSize)
fn writeRecords(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let k = id.x + id.y * groups.x * workgroupSize;
  let count = params.count;
  if (k >= count) {
    return;
  }
  var placement: mat4x4f;
  if (params.placementForm == PLACEMENT_MATRICES) {
    let s = 4u * (params.first + k);
    placement = mat4x4f(placements[s], placements[s + 1u], placements[s + 2u], placements[s + 3u]);
    placement[3] = vec4f(placement[3].xyz - params.eye, placement[3].w);
  } else if (params.placementForm == PLACEMENT_COMPACT) {
    let q = placements[2u * k];
    let ts = placements[2u * k + 1u];
    // s · R(q), R from a unit quaternion (draw/records-pass.ts packs it from the placement's rotation).
    let x = q.x; let y = q.y; let z = q.z; let w = q.w;
    let s = ts.w;
    placement = mat4x4f(
      vec4f(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + z * w), 2.0 * (x * z - y * w), 0.0) * s,
      vec4f(2.0 * (x * y - z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + x * w), 0.0) * s,
      vec4f(2.0 * (x * z + y * w), 2.0 * (y * z - x * w), 1.0 - 2.0 * (x * x + y * y), 0.0) * s,
      vec4f(ts.xyz, 1.0),
    );
  } else {
    let r0 = placements[3u * k];
    let r1 = placements[3u * k + 1u];
    let r2 = placements[3u * k + 2u];
    placement = mat4x4f(
      vec4f(r0.x, r1.x, r2.x, 0.0), vec4f(r0.y, r1.y, r2.y, 0.0), vec4f(r0.z, r1.z, r2.z, 0.0), vec4f(r0.w, r1.w, r2.w, 1.0),
    );
  }
  for (var d = 0u; d < params.drawCount; d++) {
    let info = recordDraws[d];
    var nodeWorld = info.nodeWorld;
    if (info.worldIndex != NO_INDEX) { nodeWorld = meshWorlds[(params.first + k) * params.meshStride + info.worldIndex]; }
    let model = placement * nodeWorld;
    let a = model[0].xyz;
    let b = model[1].xyz;
    let c = model[2].xyz;
    let x = cross(b, c);
    let det = dot(a, x);
    let inv = select(1.0, 1.0 / det, abs(det) > NORMAL_DETERMINANT_EPSILON);
    var record: DrawRecord;
    record.model = model;
    record.normalMatrix = mat3x3f(x * inv, cross(c, a) * inv, cross(a, b) * inv);
    let skinnedNode = info.paletteOffset != NO_INDEX;
    let first = k * params.paletteMatrices + info.paletteOffset;
    record.paletteOffset = select(0u, first, skinnedNode);
    var flags = info.staticFlags;
    if (info.skinned != 0u && (params.exactNormals != 0u || (skinnedNode && nonUniformScale(first, info.jointCount)))) {
      flags |= DRAW_EXACT_NORMALS;
    }
    // (A function-scope var starts zeroed: no morph targets unless set below.)
    if (info.morphFlags != 0u) {
      let chosen = selectMorphTargets((params.first + k) * params.weightStride + info.weightOffset, info.weightCount);
      if (chosen.count > 0u) {
        flags |= info.morphFlags;
        record.morphBase = info.morphBase;
        record.morphTargetCount = info.morphTargetCount;
        var packed = vec4u(0u);
        for (var t = 0u; t < chosen.count; t++) {
          if (t < 4u) {
            record.morphWeights0[t] = chosen.weights[t];
          } else {
            record.morphWeights1[t - 4u] = chosen.weights[t];
          }
          packed[t >> 1u] |= chosen.targets[t] << (16u * (t & 1u));
        }
        record.morphTargets = packed;
      }
    }
    record.flags = flags;
    record.skinnedBase = select(0u, k * params.preskinVertices + info.skinnedBase, info.skinnedBase != NO_INDEX);
    record.centerBase = info.centerBase;
    records[d * count + k] = record;
  }
}
