// Morph targets (glTF §3.7.2.2) in the vertex stage, before skinning, as src/skin/morph.ts
// does on the CPU: attribute = base + Σ wᵢ · Δᵢ for POSITION, NORMAL and TANGENT.xyz (the
// handedness w is not morphed; normals and tangents are left unnormalised, skinning and
// shading renormalise them). Rigid and skinned draws alike.
//
// Part of the mesh shader (src/gpu/pipelines/mesh.ts): it reads `morphDeltas` and the morph
// fields and DRAW_MORPH_* flags of the draw record, all declared in mesh.wgsl. The delta
// layout is src/gpu/model/morph-targets.ts's: per primitive a vertex-major block, 3 floats per
// attribute the flags name, in the order position, normal, tangent:
//   index of (vertex v, target t) = morphBase + (v × morphTargetCount + t) × floatsPerTarget
// A record lists at most MAX_ACTIVE_MORPH_TARGETS targets (weights 0 after the last one).

const MAX_ACTIVE_MORPH_TARGETS: u32 = 8u;
const MORPH_DELTA_COMPONENTS: u32 = 3u;

fn morphDelta(at: u32) -> vec3f {
  return vec3f(morphDeltas[at], morphDeltas[at + 1u], morphDeltas[at + 2u]);
}

// `base` with the record's active morph targets applied to mesh vertex `vertex`.
fn morphFrame(record: DrawRecord, vertex: u32, base: SkinnedFrame) -> SkinnedFrame {
  let attributes = record.flags & (DRAW_MORPH_POSITIONS | DRAW_MORPH_NORMALS | DRAW_MORPH_TANGENTS);
  if (attributes == 0u) {
    return base;
  }
  let hasPositions = (attributes & DRAW_MORPH_POSITIONS) != 0u;
  let hasNormals = (attributes & DRAW_MORPH_NORMALS) != 0u;
  let hasTangents = (attributes & DRAW_MORPH_TANGENTS) != 0u;
  let floatsPerTarget = MORPH_DELTA_COMPONENTS * countOneBits(attributes);
  let normalAt = select(0u, MORPH_DELTA_COMPONENTS, hasPositions);
  let tangentAt = normalAt + select(0u, MORPH_DELTA_COMPONENTS, hasNormals);
  let vertexBlock = record.morphBase + vertex * record.morphTargetCount * floatsPerTarget;
  var position = base.position;
  var normal = base.normal;
  var tangent = base.tangent.xyz;
  for (var i = 0u; i < MAX_ACTIVE_MORPH_TARGETS; i++) {
    var w: f32;
    if (i < 4u) {
      w = record.morphWeights0[i];
    } else {
      w = record.morphWeights1[i - 4u];
    }
    if (w == 0.0) {
      break;
    }
    let targetIndex = extractBits(record.morphTargets[i / 2u], 16u * (i % 2u), 16u);
    let at = vertexBlock + targetIndex * floatsPerTarget;
    if (hasPositions) {
      position += w * morphDelta(at);
    }
    if (hasNormals) {
      normal += w * morphDelta(at + normalAt);
    }
    if (hasTangents) {
      tangent += w * morphDelta(at + tangentAt);
    }
  }
  return SkinnedFrame(position, normal, vec4f(tangent, base.tangent.w));
}
