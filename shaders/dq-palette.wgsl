// Skinning matrices → DqJoint entries (src/anim/dq-palette.ts) on the GPU, for palettes that
// are made on the GPU (a crowd's GpuPoseEvaluator): the same split as the CPU's
// rigidStretchFromMat4 (src/math/dual-quat.ts), M = [R|t]·S with R the rotation of the polar
// decomposition of M's 3×3 A (through the Jacobi eigen-decomposition of AᵀA, a mirror kept in
// S as a negative stretch on A's weakest axis, R completing collapsed axes) and S = Rᵀ·A
// symmetrised; R as a unit quaternion by Shepperd's method; the dual part ½·(t, 0)·q.
// One invocation per entry; src/gpu/draw/dq-palette-pass.ts dispatches it. The entry layout is
// skinning.wgsl's DqJoint (real, dual, stretch diagonal, stretch off-diagonal), written as the
// four columns of a palette slot.

override workgroupSize: u32 = 64u;

struct DqPaletteParams {
  // Entries to convert.
  count: u32,
  // First matrix read (entry i reads matrix sourceOffset + i).
  sourceOffset: u32,
}

@group(0) @binding(0) var<storage, read> matrices: array<mat4x4f>;
@group(0) @binding(1) var<storage, read_write> entries: array<mat4x4f>;
@group(0) @binding(2) var<uniform> params: DqPaletteParams;

// Sweeps of the cyclic Jacobi method: float32 converges in 4–5 on real matrices.
const JACOBI_SWEEPS: u32 = 8u;
// Below this fraction of the largest singular value, the second axis counts as collapsed.
const RANK_TOLERANCE: f32 = 1e-6;

// Shepperd's method: the largest of the four pivots, renormalised (quat.ts quatFromRotationMatrix3).
fn quatFromRotation(r: mat3x3f) -> vec4f {
  let trace = r[0].x + r[1].y + r[2].z;
  var q: vec4f;
  if (trace > 0.0) {
    let k = sqrt(trace + 1.0) * 2.0;
    q = vec4f((r[1].z - r[2].y) / k, (r[2].x - r[0].z) / k, (r[0].y - r[1].x) / k, 0.25 * k);
  } else if (r[0].x > r[1].y && r[0].x > r[2].z) {
    let k = sqrt(1.0 + r[0].x - r[1].y - r[2].z) * 2.0;
    q = vec4f(0.25 * k, (r[1].x + r[0].y) / k, (r[2].x + r[0].z) / k, (r[1].z - r[2].y) / k);
  } else if (r[1].y > r[2].z) {
    let k = sqrt(1.0 + r[1].y - r[0].x - r[2].z) * 2.0;
    q = vec4f((r[1].x + r[0].y) / k, 0.25 * k, (r[2].y + r[1].z) / k, (r[2].x - r[0].z) / k);
  } else {
    let k = sqrt(1.0 + r[2].z - r[0].x - r[1].y) * 2.0;
    q = vec4f((r[2].x + r[0].z) / k, (r[2].y + r[1].z) / k, 0.25 * k, (r[0].y - r[1].x) / k);
  }
  let len = length(q);
  return select(q, q / len, len > 0.0);
}

// Jacobi eigenvectors of the symmetric b (columns of the result), its eigenvalues into *values.
fn jacobiEigen3(b0: mat3x3f, values: ptr<function, vec3f>) -> mat3x3f {
  var b = b0;
  var v = mat3x3f(vec3f(1.0, 0.0, 0.0), vec3f(0.0, 1.0, 0.0), vec3f(0.0, 0.0, 1.0));
  for (var sweep = 0u; sweep < JACOBI_SWEEPS; sweep++) {
    for (var pair = 0u; pair < 3u; pair++) {
      let p = select(0u, 1u, pair == 2u);
      let q = select(2u, 1u, pair == 0u);
      let bpq = b[q][p];
      if (bpq == 0.0) {
        continue;
      }
      let theta = (b[q][q] - b[p][p]) / (2.0 * bpq);
      let t = select(-1.0, 1.0, theta >= 0.0) / (abs(theta) + sqrt(theta * theta + 1.0));
      let c = 1.0 / sqrt(t * t + 1.0);
      let s = t * c;
      // b ← Jᵀ b J and v ← v J for the rotation J in the (p, q) plane.
      var j = mat3x3f(vec3f(1.0, 0.0, 0.0), vec3f(0.0, 1.0, 0.0), vec3f(0.0, 0.0, 1.0));
      j[p][p] = c;
      j[q][q] = c;
      j[q][p] = s;
      j[p][q] = -s;
      b = transpose(j) * b * j;
      v = v * j;
    }
  }
  *values = vec3f(b[0].x, b[1].y, b[2].z);
  return v;
}

@compute @workgroup_size(workgroupSize)
fn main(@builtin(global_invocation_id) id: vec3u) {
  let i = id.x;
  if (i >= params.count) {
    return;
  }
  let m = matrices[params.sourceOffset + i];
  let a = mat3x3f(m[0].xyz, m[1].xyz, m[2].xyz);
  var values: vec3f;
  let eigen = jacobiEigen3(transpose(a) * a, &values);
  // Eigenvectors ordered by eigenvalue, largest first; v3 = v1 × v2 so that det V = +1.
  var i0 = 0u;
  var i1 = 1u;
  var i2 = 2u;
  if (values[i0] < values[i1]) { let t = i0; i0 = i1; i1 = t; }
  if (values[i1] < values[i2]) { let t = i1; i1 = i2; i2 = t; }
  if (values[i0] < values[i1]) { let t = i0; i0 = i1; i1 = t; }
  let v1 = eigen[i0];
  let v2 = eigen[i1];
  let v3 = cross(v1, v2);
  var r = mat3x3f(vec3f(1.0, 0.0, 0.0), vec3f(0.0, 1.0, 0.0), vec3f(0.0, 0.0, 1.0));
  let u1a = a * v1;
  let s1 = length(u1a);
  if (s1 > 0.0) {
    let u1 = u1a / s1;
    var u2 = a * v2;
    u2 = u2 - dot(u1, u2) * u1;
    if (length(u2) <= s1 * RANK_TOLERANCE) {
      // Rank 1: any unit vector orthogonal to u1 (crossed with the axis it is least aligned with).
      let ab = abs(u1);
      if (ab.x <= ab.y && ab.x <= ab.z) { u2 = vec3f(0.0, u1.z, -u1.y); }
      else if (ab.y <= ab.z) { u2 = vec3f(-u1.z, 0.0, u1.x); }
      else { u2 = vec3f(u1.y, -u1.x, 0.0); }
    }
    u2 = normalize(u2);
    let u3 = cross(u1, u2);
    // R = U·Vᵀ.
    r = mat3x3f(u1, u2, u3) * transpose(mat3x3f(v1, v2, v3));
  }
  // S = Rᵀ·A, symmetric up to rounding: the mean of its mirrored entries.
  let sf = transpose(r) * a;
  let q = quatFromRotation(r);
  let t = m[3].xyz;
  // d = ½ (t, 0)·q
  let dual = 0.5 * vec4f(t.x * q.w + t.y * q.z - t.z * q.y, -t.x * q.z + t.y * q.w + t.z * q.x, t.x * q.y - t.y * q.x + t.z * q.w, -dot(t, q.xyz));
  entries[i] = mat4x4f(
    q,
    dual,
    vec4f(sf[0].x, sf[1].y, sf[2].z, 0.0),
    vec4f(0.5 * (sf[1].x + sf[0].y), 0.5 * (sf[2].x + sf[0].z), 0.5 * (sf[2].y + sf[1].z), 0.0),
  );
}
