// GPU bounds, frustum culling and compaction of a crowd (src/gpu/draw/culling-pass.ts). Built as
// draw-record.wgsl + this file. The bindings and the structs below are mirrored in
// src/gpu/layouts/cull.ts; test/gpu/draw/culling-pass.test.ts compares them.
//
// `cull`: one invocation per instance k. Its box is SkinnedBoundsJob's (src/anim/skinned-bounds.ts,
// grouped linear bounds): per mesh node, per dominant-joint group, the group's bind-space pair boxes
// through their joints' palette matrices (Arvo), the intersection of the hull bound and the capped
// bound; the union with the node's rigid box; then the same margins and Arvo through the mesh
// node's model matrix, taken from the instance's draw record (camera-relative, placement included).
// An instance whose box is wholly behind one frustum plane is dropped; a kept one takes the next
// slot j of `visible` (an atomic) and every draw's record (d, k) is copied to (d, j) of `culled`,
// which the render passes read as they read the CPU-compacted records.
// `writeArgs`: one invocation per draw, after `cull`: its indirect draw arguments, `visible`
// instances from record d × count (firstInstance: needs 'indirect-first-instance').

struct CullParams {
  // Inward frustum planes of the camera-relative view-projection (src/math/frustum.ts order).
  planes: array<vec4f, 6>,
  count: u32,
  paletteMatrices: u32,
  drawCount: u32,
  meshNodeCount: u32,
  // 0: keep every instance (culling off), compacted all the same.
  cull: u32,
}

struct CullMeshNode {
  // Bind-space box of the vertices drawn unskinned (centre, half extent); hasRigid 0 when none.
  rigidCenter: vec3f,
  hasRigid: u32,
  rigidHalf: vec3f,
  // Its pair boxes: pairs[firstPair] … pairs[pairEnd − 1], group by group.
  firstPair: u32,
  pairEnd: u32,
  // First palette matrix of the node within an instance's palettes (-1 as 0xffffffff: rigid).
  paletteOffset: u32,
  // A draw of this node: its record holds the node's model matrix. 0xffffffff: the node has no draw.
  recordDraw: u32,
  _pad: u32,
}

struct CullPair {
  center: vec3f,
  // Highest normalised weight of the joint on the group's vertices (1 for the dominant joint).
  cap: f32,
  half: vec3f,
  // Joint index in the skin (palette matrix paletteOffset + joint).
  joint: u32,
  // On the first pair of a group (its dominant joint): one past the group's last pair.
  groupEnd: u32,
  _pad0: u32,
  _pad1: u32,
  _pad2: u32,
}

struct CullDraw {
  // Indices (indexed) or vertices drawn per instance.
  elementCount: u32,
  indexed: u32,
}

// Words per draw in `args`: drawIndexedIndirect's five (drawIndirect uses the first four).
const ARGS_WORDS: u32 = 5u;
const NO_INDEX: u32 = 0xffffffffu;
// WEIGHT_SUM_MARGIN is skinned-bounds.ts's, declared from it ahead of this file (culling-pass.ts
// CULL_WGSL). For float32 evaluation here (products of four terms, each rounded), a wider
// outward rounding than its ROUND_OUT: 2⁻¹⁹, eight float32 ulps.
const GPU_ROUND_OUT: f32 = 1.9073486328125e-6;

@group(0) @binding(0) var<storage, read> palettes: array<mat4x4f>;
@group(0) @binding(1) var<storage, read> sourceDraws: array<DrawRecord>;
@group(0) @binding(2) var<storage, read_write> culledDraws: array<DrawRecord>;
@group(0) @binding(3) var<storage, read> meshNodes: array<CullMeshNode>;
@group(0) @binding(4) var<storage, read> pairs: array<CullPair>;
@group(0) @binding(5) var<storage, read> drawInfo: array<CullDraw>;
@group(0) @binding(6) var<storage, read_write> args: array<u32>;
@group(0) @binding(7) var<storage, read_write> visible: atomic<u32>;
@group(0) @binding(8) var<uniform> params: CullParams;

override workgroupSize: u32 = 64u;

struct Box {
  lo: vec3f,
  hi: vec3f,
}

// Arvo: the AABB of the box (centre c, half extent h) under the affine part of m.
fn transformBox(m: mat4x4f, c: vec3f, h: vec3f) -> Box {
  let centre = (m * vec4f(c, 1.0)).xyz;
  let extent = abs(m[0].xyz) * h.x + abs(m[1].xyz) * h.y + abs(m[2].xyz) * h.z;
  return Box(centre - extent, centre + extent);
}

@compute @workgroup_size(workgroupSize)
fn cull(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let k = id.x + id.y * groups.x * workgroupSize;
  let count = params.count;
  if (k >= count) {
    return;
  }
  let inf = 3.402823e38;
  var lo = vec3f(inf);
  var hi = vec3f(-inf);
  let paletteBase = k * params.paletteMatrices;
  for (var i = 0u; i < params.meshNodeCount; i++) {
    let node = meshNodes[i];
    if (node.recordDraw == NO_INDEX) {
      continue;
    }
    var localLo = vec3f(inf);
    var localHi = vec3f(-inf);
    if (node.paletteOffset != NO_INDEX) {
      let base = paletteBase + node.paletteOffset;
      var g = node.firstPair;
      loop {
        if (g >= node.pairEnd) {
          break;
        }
        let dominant = pairs[g];
        let d = transformBox(palettes[base + dominant.joint], dominant.center, dominant.half);
        var hullLo = d.lo;
        var hullHi = d.hi;
        var cappedLo = d.lo;
        var cappedHi = d.hi;
        for (var p = g + 1u; p < dominant.groupEnd; p++) {
          let pair = pairs[p];
          let j = transformBox(palettes[base + pair.joint], pair.center, pair.half);
          hullLo = min(hullLo, j.lo);
          hullHi = max(hullHi, j.hi);
          cappedLo += pair.cap * min(j.lo - d.lo, vec3f(0.0));
          cappedHi += pair.cap * max(j.hi - d.hi, vec3f(0.0));
        }
        localLo = min(localLo, max(cappedLo, hullLo));
        localHi = max(localHi, min(cappedHi, hullHi));
        g = dominant.groupEnd;
      }
    }
    if (node.hasRigid != 0u) {
      localLo = min(localLo, node.rigidCenter - node.rigidHalf);
      localHi = max(localHi, node.rigidCenter + node.rigidHalf);
    }
    if (!all(localLo <= localHi)) {
      continue;
    }
    let c = (localLo + localHi) * 0.5;
    let e = (localHi - localLo) * 0.5;
    let h = e + (abs(c) + e) * WEIGHT_SUM_MARGIN + (abs(c) + e) * GPU_ROUND_OUT;
    let m = sourceDraws[node.recordDraw * count + k].model;
    let w = (m * vec4f(c, 1.0)).xyz;
    var ext = abs(m[0].xyz) * h.x + abs(m[1].xyz) * h.y + abs(m[2].xyz) * h.z;
    ext += (abs(w) + ext) * GPU_ROUND_OUT;
    lo = min(lo, w - ext);
    hi = max(hi, w + ext);
  }
  // An empty box (no vertices) is never seen; NaN coordinates always are (frustum.ts).
  if (any(lo > hi)) {
    return;
  }
  if (params.cull != 0u) {
    for (var p = 0u; p < 6u; p++) {
      let plane = params.planes[p];
      let far = dot(plane.xyz, select(lo, hi, plane.xyz >= vec3f(0.0))) + plane.w;
      if (far < 0.0) {
        return;
      }
    }
  }
  let slot = atomicAdd(&visible, 1u);
  for (var d = 0u; d < params.drawCount; d++) {
    culledDraws[d * count + slot] = sourceDraws[d * count + k];
  }
}

@compute @workgroup_size(workgroupSize)
fn writeArgs(@builtin(global_invocation_id) id: vec3u) {
  let d = id.x;
  if (d >= params.drawCount) {
    return;
  }
  let o = d * ARGS_WORDS;
  let n = atomicLoad(&visible);
  let info = drawInfo[d];
  args[o] = info.elementCount;
  args[o + 1u] = n;
  if (info.indexed != 0u) {
    args[o + 2u] = 0u;
    args[o + 3u] = 0u;
    args[o + 4u] = d * params.count;
  } else {
    args[o + 2u] = 0u;
    args[o + 3u] = d * params.count;
    args[o + 4u] = 0u;
  }
}
