// The GPU pose evaluator (issue #16): per instance, a clip (and a crossfade partner) sampled
// at its time, local→model down the hierarchy, and the skinning palettes, for a whole crowd,
// from 32 bytes of per-instance state a frame. The CPU batch (src/anim/batch.ts) is the
// reference; every formula below mirrors its JS/WebAssembly one (sample.ts, blend.ts,
// local-to-model.ts, palette.ts, root-motion.ts lockRootInPlace), in f32.
// Layouts: src/gpu/crowd/layout.ts (locked by test/gpu/crowd/layout.test.ts).

const WORKGROUP_SIZE: u32 = 64u;
const NO_CLIP: u32 = 65535u;
const NO_CHANNEL: u32 = 4294967295u;
const CLIP_WORDS: u32 = 12u;
const TABLE_WORDS: u32 = 4u;
const CHANNEL_WORDS: u32 = 8u;
const LOCAL_VEC4S: u32 = 3u;
const GLOBAL_VEC4S: u32 = 4u;
const INTERPOLATION_LINEAR: u32 = 0u;
const INTERPOLATION_STEP: u32 = 1u;
const INTERPOLATION_CUBICSPLINE: u32 = 2u;
const PATH_TRANSLATION: u32 = 0u;
const PATH_ROTATION: u32 = 1u;
const PATH_SCALE: u32 = 2u;
const PATH_WEIGHTS: u32 = 3u;
// SLERP_LERP_COS (quat.ts slerpQuat: below this angle's cosine, slerp; above, lerp) is declared
// from the TS constant ahead of this file (evaluator.ts CROWD_EVAL_WGSL).
// What the model's clips use (crowd-gpu/evaluator.ts sets them per model): code a model
// never needs is compiled out. SwiftShader runs every branch some lane of a SIMD group might
// take, masked, so an unused CUBICSPLINE path would cost as if it ran.
override HAS_CUBICSPLINE: bool = true;
override HAS_STEP: bool = true;
override HAS_ROOT_LOCKS: bool = true;
override HAS_MORPH_WEIGHTS: bool = true;
// Set per frame instead (two sampling pipelines): some instance of the frame crossfades.
override HAS_CROSSFADE: bool = true;

// PaletteJoint.meshMode (layout.ts MeshMode).
const MESH_WORLD: u32 = 0u;
const MESH_STATIC: u32 = 1u;
const MESH_ANIMATED: u32 = 2u;
// NodeRecord.kind (layout.ts NodeKind): how its model matrix is made.
const NODE_TRS: u32 = 0u;
const NODE_MATRIX: u32 = 1u;
const NODE_STATIC: u32 = 2u;

struct Params {
  first: u32,
  count: u32,
  levelStart: u32,
  levelCount: u32,
  nodeCount: u32,
  paletteCount: u32,
  weightCount: u32,
  restWeightsAt: u32,
}

struct InstanceState {
  clips: u32,
  time: f32,
  partnerTime: f32,
  weight: f32,
  placement: vec4f,
}

struct NodeRecord {
  restTranslation: vec3f,
  parent: i32,
  restRotation: vec4f,
  restScale: vec3f,
  kind: u32,
  weightStart: u32,
  weightCount: u32,
  pad0: u32,
  pad1: u32,
  matrixRow0: vec4f,
  matrixRow1: vec4f,
  matrixRow2: vec4f,
  staticLow: vec4f,
}

struct PaletteJoint {
  inverseBind: mat4x4f,
  meshInverse: mat4x4f,
  jointSlot: u32,
  meshSlot: u32,
  meshMode: u32,
  pad0: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> states: array<InstanceState>;
@group(0) @binding(2) var<storage, read> animation: array<u32>;
@group(0) @binding(3) var<storage, read> nodes: array<NodeRecord>;
@group(0) @binding(4) var<storage, read_write> locals: array<vec4f>;
@group(0) @binding(5) var<storage, read_write> morphWeights: array<f32>;
@group(0) @binding(6) var<storage, read_write> placements: array<mat4x4f>;
@group(0) @binding(7) var<storage, read_write> globals: array<vec4f>;
@group(0) @binding(8) var<storage, read> levelSlots: array<u32>;
@group(0) @binding(9) var<storage, read> paletteJoints: array<PaletteJoint>;
@group(0) @binding(10) var<storage, read_write> palettes: array<mat4x4f>;
// The slots of the mesh nodes that clips move (moving-mesh-nodes.ts order), and per instance their model matrices.
@group(0) @binding(11) var<storage, read> meshSlots: array<u32>;
@group(0) @binding(12) var<storage, read_write> meshWorlds: array<mat4x4f>;

fn invocation(id: vec3u, groups: vec3u) -> u32 {
  return id.x + id.y * groups.x * WORKGROUP_SIZE;
}

fn word(i: u32) -> f32 {
  return bitcast<f32>(animation[i]);
}

// sin x for |x| ≤ π/2 by its Taylor series to x¹³ (sample.ts sinHalfPi).
fn sinHalfPi(x: f32) -> f32 {
  let x2 = x * x;
  return x * (1.0 + x2 * (-1.0 / 6.0 + x2 * (1.0 / 120.0 + x2 * (-1.0 / 5040.0 + x2 * (1.0 / 362880.0 + x2 * (-1.0 / 39916800.0 + x2 * (1.0 / 6227020800.0)))))));
}

// cos x for |x| ≤ π/2 by its Taylor series to x¹⁴. WGSL's cos may be as coarse as 2⁻¹¹
// (SwiftShader's is), which would cost hundreds of ulps in slerp.
fn cosHalfPi(x: f32) -> f32 {
  let x2 = x * x;
  return 1.0 + x2 * (-1.0 / 2.0 + x2 * (1.0 / 24.0 + x2 * (-1.0 / 720.0 + x2 * (1.0 / 40320.0 + x2 * (-1.0 / 3628800.0 + x2 * (1.0 / 479001600.0 + x2 * (-1.0 / 87178291200.0)))))));
}

// acos c for 0 ≤ c ≤ 1: WGSL's acos, then two Newton steps on cos θ = c with the polynomials above.
fn acosAccurate(c: f32) -> f32 {
  var angle = acos(c);
  for (var i = 0; i < 2; i++) {
    let s = sinHalfPi(angle);
    if (s > 0.0) { angle = clamp(angle + (cosHalfPi(angle) - c) / s, 0.0, 1.5707964); }
  }
  return angle;
}

// ka · a + kb · b with ka = sin((1−u)θ)/sin θ, kb = sin(uθ)/sin θ (θ ≤ π/2 between a and b, 1/sin θ
// given; 0: lerp), written as a + (kb · (b − a) + c · a) with c = ka + kb − 1 =
// 2 sin((1−u)θ/2) sin(uθ/2) / cos(θ/2): the small terms carry the rounding, so the result is
// within about half an f32 ulp of the exact slerp instead of the few ulps ka · a + kb · b gives
// (each ulp of a joint's rotation moves every child by an ulp of its distance).
fn slerpNear(a: vec4f, b: vec4f, u: f32, angle: f32, invSin: f32) -> vec4f {
  if (invSin == 0.0) { return a + (b - a) * u; }
  let kb = sinHalfPi(u * angle) * invSin;
  let c = 2.0 * sinHalfPi(0.5 * (1.0 - u) * angle) * sinHalfPi(0.5 * u * angle) / cosHalfPi(0.5 * angle);
  return a + ((b - a) * kb + a * c);
}

// The key at or before `time` of channel `c` (sample.ts findKey) and the fraction to the next;
// clamped when past the last key or at/before the key itself.
struct Key {
  k: u32,
  u: f32,
  dt: f32,
  clamped: bool,
}

fn findKey(c: u32, time: f32) -> Key {
  let start = animation[c + 0u];
  let last = animation[c + 1u] - 1u;
  var k = 0u;
  if (time >= word(start + last)) {
    k = last;
  } else if (time >= word(start)) {
    var lo = 0u;
    var hi = last;
    while (hi - lo > 1u) {
      let mid = (lo + hi) >> 1u;
      if (word(start + mid) <= time) { lo = mid; } else { hi = mid; }
    }
    k = lo;
  }
  let tk = word(start + k);
  var key = Key(k, 0.0, 0.0, k == last || time <= tk);
  if (!key.clamped) {
    key.dt = word(start + k + 1u) - tk;
    key.u = (time - tk) / key.dt;
  }
  return key;
}

// Component i of channel c at `key` (sample.ts sampleVector; LINEAR rotations go through sampleRotation).
fn sampleComponent(c: u32, key: Key, i: u32) -> f32 {
  let v = animation[c + 2u];
  let interpolation = animation[c + 3u];
  let n = animation[c + 4u];
  if (HAS_CUBICSPLINE && interpolation == INTERPOLATION_CUBICSPLINE) {
    let stride = 3u * n;
    if (key.clamped) { return word(v + key.k * stride + n + i); }
    let u = key.u;
    let u2 = u * u;
    let u3 = u2 * u;
    let h00 = 2.0 * u3 - 3.0 * u2 + 1.0;
    let h10 = (u3 - 2.0 * u2 + u) * key.dt;
    let h01 = -2.0 * u3 + 3.0 * u2;
    let h11 = (u3 - u2) * key.dt;
    let a = v + key.k * stride;
    let b = a + stride;
    return h00 * word(a + n + i) + h10 * word(a + 2u * n + i) + h01 * word(b + n + i) + h11 * word(b + i);
  }
  if (key.clamped || (HAS_STEP && interpolation == INTERPOLATION_STEP)) { return word(v + key.k * n + i); }
  let a = word(v + key.k * n + i);
  return a + (word(v + (key.k + 1u) * n + i) - a) * key.u;
}

fn sampleVec3(c: u32, time: f32) -> vec3f {
  let key = findKey(c, time);
  return vec3f(sampleComponent(c, key, 0u), sampleComponent(c, key, 1u), sampleComponent(c, key, 2u));
}

fn sampleRotation(c: u32, time: f32) -> vec4f {
  let key = findKey(c, time);
  let interpolation = animation[c + 3u];
  if (interpolation == INTERPOLATION_LINEAR && !key.clamped) {
    // Keys already in one hemisphere, their angle and 1/sin precomputed (quat.ts prepareSlerpKeys).
    let v = animation[c + 2u] + key.k * 4u;
    let pair = animation[c + 5u] + key.k * 2u;
    let angle = word(pair);
    let invSin = word(pair + 1u);
    let a = vec4f(word(v), word(v + 1u), word(v + 2u), word(v + 3u));
    let b = vec4f(word(v + 4u), word(v + 5u), word(v + 6u), word(v + 7u));
    return slerpNear(a, b, key.u, angle, invSin);
  }
  var q = vec4f(sampleComponent(c, key, 0u), sampleComponent(c, key, 1u), sampleComponent(c, key, 2u), sampleComponent(c, key, 3u));
  if (HAS_CUBICSPLINE && interpolation == INTERPOLATION_CUBICSPLINE) {
    // A spline of quaternions leaves the unit sphere between keys (glTF: normalise; quat.ts normalizeQuat).
    let len = sqrt(dot(q, q));
    if (len == 0.0) { q = vec4f(0.0, 0.0, 0.0, 1.0); } else { q = q * (1.0 / len); }
  }
  return q;
}

struct Local {
  t: vec3f,
  r: vec4f,
  s: vec3f,
}

// Node `slot` of clip `clip` at `time`, over the rest pose; the clip's root held in place.
fn sampleNode(clip: u32, time: f32, slot: u32, rest: Local) -> Local {
  var out = rest;
  let record = clip * CLIP_WORDS;
  let table = animation[record + 7u] + slot * TABLE_WORDS;
  let tc = animation[table + PATH_TRANSLATION];
  let rc = animation[table + PATH_ROTATION];
  let sc = animation[table + PATH_SCALE];
  if (tc != NO_CHANNEL) { out.t = sampleVec3(tc, time); }
  if (rc != NO_CHANNEL) { out.r = sampleRotation(rc, time); }
  if (sc != NO_CHANNEL) { out.s = sampleVec3(sc, time); }
  if (HAS_ROOT_LOCKS && animation[record + 3u] == slot) {
    // root-motion.ts lockRootInPlace: ground position to the clip's, yaw about up to the
    // clip's; the yaw's half-angle sine and cosine from the rotation itself (no atan2).
    let up = vec3f(word(record), word(record + 1u), word(record + 2u));
    let origin = vec3f(word(record + 4u), word(record + 5u), word(record + 6u));
    out.t = origin + dot(out.t, up) * up;
    let a = dot(out.r.xyz, up);
    let w = out.r.w;
    let len = sqrt(a * a + w * w);
    var cosPhi = 1.0;
    var sinPhi = 0.0;
    if (len > 0.0) { cosPhi = w / len; sinPhi = a / len; }
    let turnCos = word(record + 8u);
    let turnSin = word(record + 9u);
    let s = turnSin * cosPhi - turnCos * sinPhi;
    let dw = turnCos * cosPhi + turnSin * sinPhi;
    let d = up * s;
    let b = out.r;
    out.r = vec4f(
      dw * b.x + d.x * b.w + d.y * b.z - d.z * b.y,
      dw * b.y - d.x * b.z + d.y * b.w + d.z * b.x,
      dw * b.z + d.x * b.y - d.y * b.x + d.z * b.w,
      dw * b.w - d.x * b.x - d.y * b.y - d.z * b.z,
    );
  }
  return out;
}

// quat.ts slerpQuat: shortest arc, lerp when nearly equal, normalised.
fn slerp(a: vec4f, b: vec4f, t: f32) -> vec4f {
  let d = dot(a, b);
  var bb = b;
  if (d < 0.0) { bb = -b; }
  let c = abs(d);
  if (c < SLERP_LERP_COS) {
    // Exact slerp of unit quaternions stays unit: no normalisation (which would round again).
    let angle = acosAccurate(c);
    return slerpNear(a, bb, t, angle, 1.0 / sinHalfPi(angle));
  }
  // 1/|q| for |q|² = 1 − e, e small: 1 + e/2 + 3e²/8, applied as one correction term.
  let q = a + (bb - a) * t;
  let e = 1.0 - dot(q, q);
  return q + q * (0.5 * e + 0.375 * e * e);
}

fn weightOf(clip: u32, time: f32, slot: u32, i: u32, rest: f32) -> f32 {
  let c = animation[animation[clip * CLIP_WORDS + 7u] + slot * TABLE_WORDS + PATH_WEIGHTS];
  if (c == NO_CHANNEL || i >= animation[c + 4u]) { return rest; }
  return sampleComponent(c, findKey(c, time), i);
}

// Model → world of a placement x y z, yaw about +Y (Crowd.setPlacement), yaw in [−π, π]:
// cos and sin from the half angle's polynomials (WGSL's may be as coarse as 2⁻¹¹).
fn placementMatrix(p: vec4f) -> mat4x4f {
  let hs = sinHalfPi(0.5 * p.w);
  let hc = cosHalfPi(0.5 * p.w);
  let c = (hc - hs) * (hc + hs);
  let s = 2.0 * hs * hc;
  return mat4x4f(vec4f(c, 0.0, -s, 0.0), vec4f(0.0, 1.0, 0.0, 0.0), vec4f(s, 0.0, c, 0.0), vec4f(p.xyz, 1.0));
}

// Instance k's local T/R/S of `slot` (clip over the rest pose, crossfaded from the partner);
// its morph weights go straight to `morphWeights`.
fn localPose(k: u32, slot: u32, state: InstanceState, node: NodeRecord) -> Local {
  let rest = Local(node.restTranslation, node.restRotation, node.restScale);
  let clip = state.clips & 0xffffu;
  let partner = state.clips >> 16u;
  var local = rest;
  let fading = HAS_CROSSFADE && clip != NO_CLIP && partner != NO_CLIP;
  if (node.kind == NODE_TRS && clip != NO_CLIP) {
    local = sampleNode(clip, state.time, slot, rest);
    if (fading) {
      // blend.ts BlendingJob: from (the partner) + (to − from) · weight; rotations by slerp.
      let source = sampleNode(partner, state.partnerTime, slot, rest);
      local.t = source.t + (local.t - source.t) * state.weight;
      local.s = source.s + (local.s - source.s) * state.weight;
      local.r = slerp(source.r, local.r, state.weight);
    }
  }
  for (var w = 0u; HAS_MORPH_WEIGHTS && w < node.weightCount; w++) {
    let restWeight = word(params.restWeightsAt + node.weightStart + w);
    var value = restWeight;
    if (clip != NO_CLIP) {
      value = weightOf(clip, state.time, slot, w, restWeight);
      if (fading) {
        let source = weightOf(partner, state.partnerTime, slot, w, restWeight);
        value = source + (value - source) * state.weight;
      }
    }
    morphWeights[k * params.weightCount + node.weightStart + w] = value;
  }
  return local;
}

// A model matrix: rows 0..2 of an affine 4×4 (translation in .w) and the translation's low part.
struct Model {
  r0: vec4f,
  r1: vec4f,
  r2: vec4f,
  low: vec4f,
}

// The node's model matrix from its local pose and its parent's (local-to-model.ts, the same
// products in the same order); `parent` is unused for roots and static nodes.
fn composeModel(node: NodeRecord, local: Local, parent: Model) -> Model {
  if (node.kind == NODE_STATIC) {
    // Never animated, nor any ancestor: its model matrix, computed at load in f64.
    return Model(node.matrixRow0, node.matrixRow1, node.matrixRow2, node.staticLow);
  }
  var l0: vec3f;
  var l1: vec3f;
  var l2: vec3f;
  var l3: vec3f;
  if (node.kind == NODE_MATRIX) {
    l0 = vec3f(node.matrixRow0.x, node.matrixRow1.x, node.matrixRow2.x);
    l1 = vec3f(node.matrixRow0.y, node.matrixRow1.y, node.matrixRow2.y);
    l2 = vec3f(node.matrixRow0.z, node.matrixRow1.z, node.matrixRow2.z);
    l3 = vec3f(node.matrixRow0.w, node.matrixRow1.w, node.matrixRow2.w);
  } else {
    let t = local.t;
    let r = local.r;
    let s = local.s;
    let x2 = r.x + r.x;
    let y2 = r.y + r.y;
    let z2 = r.z + r.z;
    let xx = r.x * x2;
    let xy = r.x * y2;
    let xz = r.x * z2;
    let yy = r.y * y2;
    let yz = r.y * z2;
    let zz = r.z * z2;
    let wx = r.w * x2;
    let wy = r.w * y2;
    let wz = r.w * z2;
    l0 = vec3f(1.0 - (yy + zz), xy + wz, xz - wy) * s.x;
    l1 = vec3f(xy - wz, 1.0 - (xx + zz), yz + wx) * s.y;
    l2 = vec3f(xz + wy, yz - wx, 1.0 - (xx + yy)) * s.z;
    l3 = t;
  }
  if (node.parent < 0) {
    return Model(vec4f(l0.x, l1.x, l2.x, l3.x), vec4f(l0.y, l1.y, l2.y, l3.y), vec4f(l0.z, l1.z, l2.z, l3.z), vec4f(0.0));
  }
  let p0 = parent.r0;
  let p1 = parent.r1;
  let p2 = parent.r2;
  // Row r of parent · local: column c is p_r.xyz · l_c; the translation parent.t + R · l3 is
  // carried as a double-float (row .w high, `low`): down a deep chain its rounding would
  // otherwise pile up an ulp of the largest translation per level (TwoSum, no FMA needed).
  let step = vec3f(dot(p0.xyz, l3), dot(p1.xyz, l3), dot(p2.xyz, l3));
  let high = vec3f(p0.w, p1.w, p2.w);
  let sum = high + step;
  let back = sum - high;
  let err = (high - (sum - back)) + (step - back);
  let low = parent.low.xyz + err;
  let t = sum + low;
  let tLow = low - (t - sum);
  return Model(
    vec4f(dot(p0.xyz, l0), dot(p0.xyz, l1), dot(p0.xyz, l2), t.x),
    vec4f(dot(p1.xyz, l0), dot(p1.xyz, l1), dot(p1.xyz, l2), t.y),
    vec4f(dot(p2.xyz, l0), dot(p2.xyz, l1), dot(p2.xyz, l2), t.z),
    vec4f(tLow, 0.0),
  );
}

fn rowsToMat(m: Model) -> mat4x4f {
  return mat4x4f(vec4f(m.r0.x, m.r1.x, m.r2.x, 0.0), vec4f(m.r0.y, m.r1.y, m.r2.y, 0.0), vec4f(m.r0.z, m.r1.z, m.r2.z, 0.0), vec4f(m.r0.w, m.r1.w, m.r2.w, 1.0));
}

// (inverse(meshNode) ·) joint · inverseBind (palette.ts) from the joint's and mesh node's model matrices.
fn paletteMatrix(joint: PaletteJoint, g: Model, mesh: Model) -> mat4x4f {
  var a = rowsToMat(g) * joint.inverseBind;
  // The low part of the joint's translation: column c gains low · inverseBind[c].w.
  let low = g.low.xyz;
  let ib = joint.inverseBind;
  a = mat4x4f(a[0] + vec4f(low * ib[0].w, 0.0), a[1] + vec4f(low * ib[1].w, 0.0), a[2] + vec4f(low * ib[2].w, 0.0), a[3] + vec4f(low * ib[3].w, 0.0));
  if (joint.meshMode == MESH_STATIC) {
    a = joint.meshInverse * a;
  } else if (joint.meshMode == MESH_ANIMATED) {
    let r0 = mesh.r0;
    let r1 = mesh.r1;
    let r2 = mesh.r2;
    // Affine inverse by cofactors; a singular mesh node (zero scale) keeps the world palette.
    let a0 = cross(r1.xyz, r2.xyz);
    let det = dot(r0.xyz, a0);
    if (det != 0.0) {
      let inv = 1.0 / det;
      // The inverse 3×3's columns: (r1 × r2, r2 × r0, r0 × r1) / det.
      let c0 = a0 * inv;
      let c1 = cross(r2.xyz, r0.xyz) * inv;
      let c2 = cross(r0.xyz, r1.xyz) * inv;
      let t = vec3f(r0.w, r1.w, r2.w);
      let tInv = -(c0 * t.x + c1 * t.y + c2 * t.z);
      a = mat4x4f(vec4f(c0, 0.0), vec4f(c1, 0.0), vec4f(c2, 0.0), vec4f(tInv, 1.0)) * a;
    }
  }
  return a;
}

fn loadModel(k: u32, slot: u32) -> Model {
  let g = (k * params.nodeCount + slot) * GLOBAL_VEC4S;
  return Model(globals[g], globals[g + 1u], globals[g + 2u], globals[g + 3u]);
}

// ── Separate passes (any hierarchy size): sampling, local→model, palettes. ──

// One invocation per (instance, slot): its local T/R/S (and morph weights), crossfaded.
@compute @workgroup_size(WORKGROUP_SIZE)
fn sampleLocals(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = invocation(id, groups);
  if (i >= params.count * params.nodeCount) { return; }
  let k = i / params.nodeCount;
  let slot = i % params.nodeCount;
  let state = states[k];
  if (slot == 0u) { placements[k] = placementMatrix(state.placement); }
  let local = localPose(k, slot, state, nodes[slot]);
  let o = (k * params.nodeCount + slot) * LOCAL_VEC4S;
  locals[o] = vec4f(local.t, 0.0);
  locals[o + 1u] = local.r;
  locals[o + 2u] = vec4f(local.s, 0.0);
}

// Model matrix of `slot` of instance k into `globals`, its parent's already there.
fn modelMatrix(k: u32, slot: u32) {
  let node = nodes[slot];
  let o = (k * params.nodeCount + slot) * LOCAL_VEC4S;
  let local = Local(locals[o].xyz, locals[o + 1u], locals[o + 2u].xyz);
  var parent = Model(vec4f(0.0), vec4f(0.0), vec4f(0.0), vec4f(0.0));
  if (node.parent >= 0 && node.kind != NODE_STATIC) { parent = loadModel(k, u32(node.parent)); }
  let m = composeModel(node, local, parent);
  let g = (k * params.nodeCount + slot) * GLOBAL_VEC4S;
  globals[g] = m.r0;
  globals[g + 1u] = m.r1;
  globals[g + 2u] = m.r2;
  globals[g + 3u] = m.low;
}

// Hierarchy, one invocation per instance walking its slots parent-first.
@compute @workgroup_size(WORKGROUP_SIZE)
fn modelPerInstance(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let k = invocation(id, groups);
  if (k >= params.count) { return; }
  for (var slot = 0u; slot < params.nodeCount; slot++) { modelMatrix(k, slot); }
}

// Hierarchy, one dispatch per depth: one invocation per (instance, slot at this depth).
@compute @workgroup_size(WORKGROUP_SIZE)
fn modelAtLevel(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = invocation(id, groups);
  if (i >= params.count * params.levelCount) { return; }
  modelMatrix(i / params.levelCount, levelSlots[params.levelStart + i % params.levelCount]);
}

// One invocation per (instance, palette matrix).
@compute @workgroup_size(WORKGROUP_SIZE)
fn writePalettes(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = invocation(id, groups);
  if (i >= params.count * params.paletteCount) { return; }
  let k = i / params.paletteCount;
  let joint = paletteJoints[i % params.paletteCount];
  var mesh = Model(vec4f(0.0), vec4f(0.0), vec4f(0.0), vec4f(0.0));
  if (joint.meshMode == MESH_ANIMATED) { mesh = loadModel(k, joint.meshSlot); }
  palettes[i] = paletteMatrix(joint, loadModel(k, joint.jointSlot), mesh);
}

// One invocation per (instance, moving mesh node): its model matrix (the translation's low part
// added back) for the draw records of rigid meshes on bones and skinned meshes under moving nodes.
@compute @workgroup_size(WORKGROUP_SIZE)
fn writeMeshWorlds(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = invocation(id, groups);
  let meshCount = arrayLength(&meshSlots);
  if (i >= params.count * meshCount) { return; }
  let m = loadModel(i / meshCount, meshSlots[i % meshCount]);
  var world = rowsToMat(m);
  world[3] = vec4f(world[3].xyz + m.low.xyz, 1.0);
  meshWorlds[i] = world;
}
