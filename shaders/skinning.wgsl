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

// ---------------------------------------------------------------------------------------
// Dual-quaternion skinning (Kavan et al. 2008, DLB), mirroring src/skin/dqs.ts.
//
// A DQ palette (src/anim/dq-palette.ts) splits each skinning matrix as M = [R|t] · S: the
// rigid part as a unit dual quaternion, the symmetric scale/shear S packed in 6 floats.
// One entry is 64 bytes, exactly a mat4x4f, so it lives in the same `jointPalette` buffer
// at the same offsets; these functions read it through that declaration (a module-scope
// name every includer already declares: WGSL resolves names even in unused functions, so
// a separate DQ palette variable would have to be declared by every pipeline).

struct DqJoint {
  // Rotation quaternion x y z w.
  real: vec4f,
  // ½·(t, 0)·real: the translation.
  dual: vec4f,
  // S.xx S.yy S.zz, 0.
  stretchDiagonal: vec4f,
  // S.xy S.xz S.yz, 0.
  stretchOffDiagonal: vec4f,
}

// The blend of a vertex's influences: dual quaternion not yet normalised, S already divided
// by the weight sum.
struct DqBlend {
  real: vec4f,
  dual: vec4f,
  stretch: mat3x3f,
}

fn dqJoint(index: u32) -> DqJoint {
  let slot = jointPalette[index];
  return DqJoint(slot[0], slot[1], slot[2], slot[3]);
}

fn dqStretch(joint: DqJoint) -> mat3x3f {
  let d = joint.stretchDiagonal;
  let o = joint.stretchOffDiagonal;
  return mat3x3f(vec3f(d.x, o.x, o.y), vec3f(o.x, d.y, o.z), vec3f(o.y, o.z, d.z));
}

// The hemisphere reference: the real part of the first influence with a non-zero weight.
// Zero-weight slots are padding (often joint 0) and must not decide the signs.
fn dqPivot(paletteOffset: u32, joints: vec4u, weights: vec4f) -> vec4f {
  var j = joints.w;
  if (weights.z != 0.0) { j = joints.z; }
  if (weights.y != 0.0) { j = joints.y; }
  if (weights.x != 0.0) { j = joints.x; }
  return jointPalette[paletteOffset + j][0];
}

// Adds one influence. q and −q are the same rotation: an influence whose real part points
// away from the pivot is negated, so the blend stays on one hemisphere.
fn addDqInfluence(blend: ptr<function, DqBlend>, pivot: vec4f, joint: DqJoint, weight: f32) {
  let signed = select(weight, -weight, dot(pivot, joint.real) < 0.0);
  (*blend).real += signed * joint.real;
  (*blend).dual += signed * joint.dual;
  (*blend).stretch += weight * dqStretch(joint);
}

fn addDqInfluences(blend: ptr<function, DqBlend>, pivot: vec4f, paletteOffset: u32, joints: vec4u, weights: vec4f) {
  addDqInfluence(blend, pivot, dqJoint(paletteOffset + joints.x), weights.x);
  addDqInfluence(blend, pivot, dqJoint(paletteOffset + joints.y), weights.y);
  addDqInfluence(blend, pivot, dqJoint(paletteOffset + joints.z), weights.z);
  addDqInfluence(blend, pivot, dqJoint(paletteOffset + joints.w), weights.w);
}

// Four influences (JOINTS_0/WEIGHTS_0). Like blendJointMatrices, S is divided by the weight
// sum, so unorm weights work as stored; the dual quaternion needs no such division.
fn blendDualQuats(paletteOffset: u32, joints: vec4u, weights: vec4f) -> DqBlend {
  var blend = DqBlend(vec4f(0.0), vec4f(0.0), mat3x3f());
  addDqInfluences(&blend, dqPivot(paletteOffset, joints, weights), paletteOffset, joints, weights);
  blend.stretch = blend.stretch * (1.0 / dot(weights, vec4f(1.0)));
  return blend;
}

// Eight influences (JOINTS_0/WEIGHTS_0 + JOINTS_1/WEIGHTS_1); the pivot is searched in
// set 0 first.
fn blendDualQuats8(paletteOffset: u32, joints0: vec4u, weights0: vec4f, joints1: vec4u, weights1: vec4f) -> DqBlend {
  var blend = DqBlend(vec4f(0.0), vec4f(0.0), mat3x3f());
  var pivot = dqPivot(paletteOffset, joints1, weights1);
  if (any(weights0 != vec4f(0.0))) {
    pivot = dqPivot(paletteOffset, joints0, weights0);
  }
  addDqInfluences(&blend, pivot, paletteOffset, joints0, weights0);
  addDqInfluences(&blend, pivot, paletteOffset, joints1, weights1);
  blend.stretch = blend.stretch * (1.0 / (dot(weights0, vec4f(1.0)) + dot(weights1, vec4f(1.0))));
  return blend;
}

// v rotated by the unit quaternion r: v + 2 r × (r × v + w v).
fn rotateByQuat(r: vec4f, v: vec3f) -> vec3f {
  return v + 2.0 * cross(r.xyz, cross(r.xyz, v) + r.w * v);
}

// 1 / |q| for a blended quaternion of squared length len2 > 0. inverseSqrt may be off by a
// few ulp, and that error scales both the rotation and the (often large) translation; one
// Newton step cut the GPU-vs-CPU error on far-from-origin meshes by a third
// (RecursiveSkeletons), for three multiplies.
fn inverseLength(len2: f32) -> f32 {
  let il0 = inverseSqrt(len2);
  return il0 * (1.5 - 0.5 * len2 * il0 * il0);
}

// The last step dual quaternions and centres of rotation share (src/skin/stretch-rotate.ts):
// `offset` (the position less the point it turns about) stretched by S, then rotated by the
// unit quaternion r; normals take the cofactor of S (det · S⁻ᵀ, sign-corrected for mirrors),
// as skinFrame's exact path does for M; tangents take S itself; both are then rotated. The
// caller adds where the point went.
fn stretchRotateFrame(r: vec4f, s: mat3x3f, offset: vec3f, normal: vec3f, tangent: vec4f) -> SkinnedFrame {
  var out: SkinnedFrame;
  out.position = rotateByQuat(r, s * offset);
  let a = s[0];
  let b = s[1];
  let c = s[2];
  let bc = cross(b, c);
  var n = mat3x3f(bc, cross(c, a), cross(a, b)) * normal;
  if (dot(a, bc) < 0.0) {
    n = -n;
  }
  out.normal = normalizeOrZero(rotateByQuat(r, n));
  out.tangent = vec4f(normalizeOrZero(rotateByQuat(r, s * tangent.xyz)), tangent.w);
  return out;
}

// Applies a blend to a vertex frame: the stretch first, then the normalised dual quaternion.
fn skinFrameDq(blend: DqBlend, position: vec3f, normal: vec3f, tangent: vec4f) -> SkinnedFrame {
  let len2 = dot(blend.real, blend.real);
  var r = vec4f(0.0, 0.0, 0.0, 1.0);
  var d = vec4f(0.0);
  if (len2 > 0.0) {
    let il = inverseLength(len2);
    r = blend.real * il;
    d = blend.dual * il;
  }
  // The vector part of 2·d·r*; it ignores d's component along r, so no re-orthogonalising.
  let t = 2.0 * (r.w * d.xyz - d.w * r.xyz + cross(r.xyz, d.xyz));
  var out = stretchRotateFrame(r, blend.stretch, position, normal, tangent);
  out.position += t;
  return out;
}

// ---------------------------------------------------------------------------------------
// Centre-of-rotation skinning (Le & Hodgins 2016), mirroring src/skin/cor.ts. It reads the
// same DqJoint palette as dual quaternions, and the vertex's precomputed centre of rotation
// p* (src/skin/centers-of-rotation/), which the including module fetches and passes in:
//   q = normalize(Σ ±wᵢ·qᵢ), S̄ = Σ wᵢ·Sᵢ / Σ wᵢ, c = Σ wᵢ·Mᵢ·p* / Σ wᵢ,
//   position = R·S̄·(v − p*) + c.

// The blend of a vertex's influences: rotation not yet normalised; stretch and moved centre
// already divided by the weight sum.
struct CorBlend {
  rotation: vec4f,
  stretch: mat3x3f,
  center: vec3f,
}

// Adds one influence: its rotation on the pivot's hemisphere, its stretch, and Mᵢ·p* =
// Rᵢ·(Sᵢ·p*) + tᵢ with tᵢ = 2·d·q* (vector part) from the dual part.
fn addCorInfluence(blend: ptr<function, CorBlend>, pivot: vec4f, joint: DqJoint, weight: f32, center: vec3f) {
  let signed = select(weight, -weight, dot(pivot, joint.real) < 0.0);
  (*blend).rotation += signed * joint.real;
  let s = dqStretch(joint);
  (*blend).stretch += weight * s;
  let r = joint.real;
  let d = joint.dual;
  let t = 2.0 * (r.w * d.xyz - d.w * r.xyz + cross(r.xyz, d.xyz));
  (*blend).center += weight * (rotateByQuat(r, s * center) + t);
}

fn addCorInfluences(blend: ptr<function, CorBlend>, pivot: vec4f, paletteOffset: u32, joints: vec4u, weights: vec4f, center: vec3f) {
  addCorInfluence(blend, pivot, dqJoint(paletteOffset + joints.x), weights.x, center);
  addCorInfluence(blend, pivot, dqJoint(paletteOffset + joints.y), weights.y, center);
  addCorInfluence(blend, pivot, dqJoint(paletteOffset + joints.z), weights.z, center);
  addCorInfluence(blend, pivot, dqJoint(paletteOffset + joints.w), weights.w, center);
}

// Four influences (JOINTS_0/WEIGHTS_0); unorm weights work as stored (divided by their sum).
fn blendCentersOfRotation(paletteOffset: u32, joints: vec4u, weights: vec4f, center: vec3f) -> CorBlend {
  var blend = CorBlend(vec4f(0.0), mat3x3f(), vec3f(0.0));
  addCorInfluences(&blend, dqPivot(paletteOffset, joints, weights), paletteOffset, joints, weights, center);
  let inverseSum = 1.0 / dot(weights, vec4f(1.0));
  blend.stretch = blend.stretch * inverseSum;
  blend.center = blend.center * inverseSum;
  return blend;
}

// Eight influences (JOINTS_0/WEIGHTS_0 + JOINTS_1/WEIGHTS_1); the pivot is searched in set 0 first.
fn blendCentersOfRotation8(paletteOffset: u32, joints0: vec4u, weights0: vec4f, joints1: vec4u, weights1: vec4f, center: vec3f) -> CorBlend {
  var blend = CorBlend(vec4f(0.0), mat3x3f(), vec3f(0.0));
  var pivot = dqPivot(paletteOffset, joints1, weights1);
  if (any(weights0 != vec4f(0.0))) {
    pivot = dqPivot(paletteOffset, joints0, weights0);
  }
  addCorInfluences(&blend, pivot, paletteOffset, joints0, weights0, center);
  addCorInfluences(&blend, pivot, paletteOffset, joints1, weights1, center);
  let inverseSum = 1.0 / (dot(weights0, vec4f(1.0)) + dot(weights1, vec4f(1.0)));
  blend.stretch = blend.stretch * inverseSum;
  blend.center = blend.center * inverseSum;
  return blend;
}

// Applies a blend to a vertex frame about its centre `center` (p*): the stretch, then the
// normalised rotation, then the moved centre (stretchRotateFrame, as skinFrameDq).
fn skinFrameCor(blend: CorBlend, center: vec3f, position: vec3f, normal: vec3f, tangent: vec4f) -> SkinnedFrame {
  let len2 = dot(blend.rotation, blend.rotation);
  var r = vec4f(0.0, 0.0, 0.0, 1.0);
  if (len2 > 0.0) {
    r = blend.rotation * inverseLength(len2);
  }
  var out = stretchRotateFrame(r, blend.stretch, position - center, normal, tangent);
  out.position += blend.center;
  return out;
}
