// Linear blend skinning: the one implementation every GPU path uses (the render
// vertex stage, the compute pre-skin pass and `bake --backend gpu`). It mirrors
// src/skin/cpu-skin.ts, the reference it is tested against.
//
// The including module declares the palette, e.g.
//   @group(1) @binding(0) var<storage, read> jointPalette: array<mat4x4f>;
// Every skinned draw's joint matrices sit back to back in that one buffer; a draw
// passes the index of its first matrix as `paletteOffset`.

struct SkinnedFrame {
  position: vec3f,
  normal: vec3f,
  tangent: vec4f,
}

// Σ wᵢ · palette[offset + jointᵢ] over four influences, not yet divided by Σ wᵢ.
fn weightedJointSum(paletteOffset: u32, joints: vec4u, weights: vec4f) -> mat4x4f {
  return weights.x * jointPalette[paletteOffset + joints.x]
       + weights.y * jointPalette[paletteOffset + joints.y]
       + weights.z * jointPalette[paletteOffset + joints.z]
       + weights.w * jointPalette[paletteOffset + joints.w];
}

// M = Σ wᵢ · palette[jointᵢ] / Σ wᵢ. Dividing by the sum here lets vertex buffers keep
// the file's own unorm8/unorm16 weights, whose quantised sums are rarely exactly 1,
// and blend exactly what the CPU reference does after renormalising at load.
fn blendJointMatrices(paletteOffset: u32, joints: vec4u, weights: vec4f) -> mat4x4f {
  return weightedJointSum(paletteOffset, joints, weights) * (1.0 / dot(weights, vec4f(1.0)));
}

// Eight influences (JOINTS_0/WEIGHTS_0 + JOINTS_1/WEIGHTS_1).
fn blendJointMatrices8(paletteOffset: u32, joints0: vec4u, weights0: vec4f, joints1: vec4u, weights1: vec4f) -> mat4x4f {
  let sum = weightedJointSum(paletteOffset, joints0, weights0) + weightedJointSum(paletteOffset, joints1, weights1);
  return sum * (1.0 / (dot(weights0, vec4f(1.0)) + dot(weights1, vec4f(1.0))));
}

fn normalizeOrZero(v: vec3f) -> vec3f {
  let len2 = dot(v, v);
  if (len2 > 0.0) {
    return v * inverseSqrt(len2);
  }
  return vec3f(0.0);
}

// Applies a blended joint matrix to a vertex frame.
// exactNormals: normals by the cofactor of the 3×3 (the inverse-transpose up to
// scale), right under non-uniform scale; otherwise by the 3×3 itself, which is
// cheaper and equal when the blend is a rotation times a uniform scale.
fn skinFrame(m: mat4x4f, position: vec3f, normal: vec3f, tangent: vec4f, exactNormals: bool) -> SkinnedFrame {
  let a = m[0].xyz;
  let b = m[1].xyz;
  let c = m[2].xyz;
  let linear = mat3x3f(a, b, c);
  var out: SkinnedFrame;
  out.position = (m * vec4f(position, 1.0)).xyz;
  var n: vec3f;
  if (exactNormals) {
    let bc = cross(b, c);
    // Columns b×c, c×a, a×b: det · M⁻ᵀ. Flip for mirrors so normals keep pointing out.
    n = mat3x3f(bc, cross(c, a), cross(a, b)) * normal;
    if (dot(a, bc) < 0.0) {
      n = -n;
    }
  } else {
    n = linear * normal;
  }
  out.normal = normalizeOrZero(n);
  out.tangent = vec4f(normalizeOrZero(linear * tangent.xyz), tangent.w);
  return out;
}
