/**
 * Conservative bounds of skinned meshes for culling, without touching a vertex per frame
 * and without reading anything back from the GPU.
 *
 * Load time (`createSkinnedBounds`), per (mesh, skin) pair the scene uses:
 * - per skin joint, the axis-aligned box of the bind-space vertices (raw POSITION, before
 *   any palette) that the joint influences with a weight > 0 (`jointBoxes`);
 * - the same vertices split by their dominant joint d (highest weight): per group d and per
 *   joint i weighting any of its vertices, the box of those vertices and the highest weight
 *   i has on them (`pairBoxes`, `pairCaps`), i ≠ d getting at most ½.
 * Morph targets first widen every vertex to base + Σ min(0, δ) … base + Σ max(0, δ) per axis,
 * which holds every morph with weights in [0, 1] (a weight outside that can leave the box).
 *
 * Per frame (`SkinnedBoundsJob`), in the mesh node's space (palettes are relative to it):
 * every box goes through its joint's palette matrix by Arvo's centre/extent method (centre
 * by M, half extent by |M₃ₓ₃|); then the mesh node's world matrix takes the union of the
 * results to world space the same way. No vertex is visited.
 *
 * Why every linearly skinned vertex is inside. A vertex p goes to v = Σ wᵢ·Mᵢ·p with wᵢ ≥ 0,
 * Σ wᵢ = 1 (the loader renormalises, the GPU divides by the sum), a convex combination of
 * the points yᵢ = Mᵢ·p. Joint i influences p, so p is in i's box and yᵢ in the AABB Yᵢ of the
 * transformed box (an affine image of a box lies in the AABB of its 8 transformed corners,
 * which is what Arvo's method computes).
 * - Coarse (one box per joint): v is in the convex hull of ∪ Yᵢ, so in the AABB of ∪ Yᵢ.
 * - Grouped (the default): the same per group, a hull bound over the group's smaller boxes;
 *   and, per axis, with d the group's dominant joint, ŵᵢ the caps and Hᵢ = max Yᵢ,
 *     v = w_d·y_d + Σ_{i≠d} wᵢ·yᵢ ≤ H_d + Σ_{i≠d} wᵢ·(Hᵢ − H_d) ≤ H_d + Σ_{i≠d} ŵᵢ·max(0, Hᵢ − H_d)
 *   (using wᵢ ≥ 0 and w_d = 1 − Σ_{i≠d} wᵢ), likewise for the minimum: a joint weighting the
 *   group by at most 0.1 moves the bound by a tenth of how far its box reaches out. Both
 *   bounds hold, so their intersection does.
 * The world matrix is affine, so the same corner argument carries the union to world space.
 * Projective rows of palette matrices are ignored, as skinning ignores them (cpu-skin.ts).
 * Weight sums the loader leaves within 1e-6 of 1 scale v by up to 1e-6 about the origin;
 * a relative margin (WEIGHT_SUM_MARGIN) covers it, and float32 storage rounds outwards.
 *
 * Dual-quaternion skinning (src/skin/dqs.ts) is not a convex combination of the yᵢ, so the
 * argument above fails: DLB carries p along the screw between the joints' motions, an arc
 * bulging off the chord the linear blend takes (SimpleSkin's strip, bent 90°, puts DQS
 * vertices 10% of the mesh's size outside the linear bound). `skinning = 'dual-quaternion'`
 * instead takes, per group and joint pair (d, i), the box of Y_d ∪ Yᵢ padded by how far such
 * an arc can stray from its chord, from the pair's relative rotation (`unionDqPair`). That is
 * a proof for vertices with at most two influences on joints that are rigid or share one
 * uniform scale; with more influences (DLB is then no screw interpolation) or differently
 * scaled joints it is a heuristic, which held on every clip of every shared asset and
 * built-in model in the test. It is looser than the linear bound (a 180° twist pads by
 * about half the part's size).
 *
 * Centre-of-rotation skinning (src/skin/cor.ts) moves a vertex v with centre p* to
 * c + R·S̄·(v − p*), where c = Σ wᵢ·Mᵢ·p* is the linear blend of the *centre*. So its bounds
 * (`createSkinnedBounds(model, centers)`) build the same dominant-joint boxes from the centres
 * instead of the vertices — c lies in their linear bound by the argument above — and pad each
 * group by ρ = r·max ‖Aᵢ‖₂ over its joints, r the group's largest |v − p*| (over the morph-
 * widened vertex box) and ‖Aᵢ‖₂ the largest singular value of joint i's 3×3 (bounded by
 * Gershgorin on AᵢᵀAᵢ, exact for rotation times uniform scale): ‖R·S̄‖₂ = ‖S̄‖₂ ≤ max ‖Sᵢ‖₂
 * = max ‖Aᵢ‖₂ (S̄ is a convex combination of the Sᵢ). A proof, for any weights and scales.
 */
import type { Model, Primitive } from '../gltf/model.ts';
import { weldPrimitive } from '../gltf/topology.ts';
import type { SkinningMethod } from './skinning-method.ts';
import type { ModelInstance } from './instance.ts';

/** Floats per stored box: bind-space centre x y z, then half extent x y z (negative: empty). */
export const BOX_FLOATS = 6;

/** Bounds data of one (mesh, skin) pair; immutable once built. */
export interface MeshSkinBounds {
  readonly mesh: number;
  /** -1 for a rigid mesh node. */
  readonly skin: number;
  /** BOX_FLOATS per skin joint: the bind-space vertices it influences. Empty for unused joints. */
  readonly jointBoxes: Float32Array;
  /** Joints with a non-empty box, ascending: the ones the coarse per-frame loop visits. */
  readonly activeJoints: Int32Array;
  /**
   * Dominant-joint groups: group g's pairs are `groupStart[g]` … `groupStart[g + 1] − 1`,
   * the first being the dominant joint itself. One more entry than there are groups.
   */
  readonly groupStart: Int32Array;
  /** Per pair: the joint (index into the skin's joints). */
  readonly pairJoints: Int32Array;
  /** Per pair: the joint's highest normalised weight on the group's vertices (1 for the dominant joint). */
  readonly pairCaps: Float32Array;
  /** BOX_FLOATS per pair: the group's bind-space vertices that the joint influences. */
  readonly pairBoxes: Float32Array;
  /**
   * The vertices drawn unskinned, in the mesh node's space: every primitive of a rigid mesh,
   * primitives without JOINTS_0 of a skinned one. Empty when there are none.
   */
  readonly rigidBox: Float32Array;
  /**
   * Bounds built from centres of rotation only: per group, the largest distance from a
   * vertex (its morph-widened box) to its centre, rounded up.
   */
  readonly groupRadius?: Float32Array;
}

/** Each skinned primitive's centres of rotation (xyz per vertex), for `createSkinnedBounds`. */
export type CentersOfPrimitive = (prim: Primitive) => ArrayLike<number>;

/** The model-level, load-time part: what `SkinnedBoundsJob` reads every frame. */
export interface SkinnedBounds {
  readonly model: Model;
  /** One per distinct (mesh, skin) pair among `model.meshNodes`. */
  readonly entries: readonly MeshSkinBounds[];
  /** Per `model.meshNodes` entry: its index in `entries`. */
  readonly entryOfMeshNode: Int32Array;
  /** Built from centres of rotation (for 'center-of-rotation' skinning only). */
  readonly centersOfRotation: boolean;
}

/**
 * Builds the bind-space boxes of every mesh node of the model. Allocates; load time only.
 * With `centers`, the boxes of centre-of-rotation skinning (module comment), which only a
 * job with `skinning = 'center-of-rotation'` reads.
 */
export function createSkinnedBounds(model: Model, centers?: CentersOfPrimitive): SkinnedBounds {
  const entries: MeshSkinBounds[] = [];
  const byKey = new Map<string, number>();
  const entryOfMeshNode = new Int32Array(model.meshNodes.length);
  model.meshNodes.forEach((mn, i) => {
    // An EXT_mesh_gpu_instancing node (always rigid) has its own entry: the union of its instances.
    const key = mn.instances ? `instanced ${i}` : `${mn.mesh}/${mn.skin}`;
    let entry = byKey.get(key);
    if (entry === undefined) {
      entry = entries.length;
      const bounds = meshSkinBounds(model, mn.mesh, mn.skin, centers);
      entries.push(mn.instances ? { ...bounds, rigidBox: instancesBox(bounds.rigidBox, mn.instances) } : bounds);
      byKey.set(key, entry);
    }
    entryOfMeshNode[i] = entry;
  });
  return { model, entries, entryOfMeshNode, centersOfRotation: centers !== undefined };
}

/** Min/max boxes in doubles while building: 6 per box, grown vertex by vertex. */
class BoxList {
  minMax: number[] = [];
  caps: number[] = [];

  add(): number {
    this.minMax.push(Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity);
    this.caps.push(0);
    return this.caps.length - 1;
  }

  grow(box: number, vlo: Float64Array, vhi: Float64Array, cap = 0): void {
    const b = this.minMax, o = box * 6;
    for (let c = 0; c < 3; c++) {
      if (vlo[c] < b[o + c]) b[o + c] = vlo[c];
      if (vhi[c] > b[o + 3 + c]) b[o + 3 + c] = vhi[c];
    }
    if (cap > this.caps[box]) this.caps[box] = cap;
  }

  /** Stores box `box` as a float32 centre and half extent that contain it; false (and −1 extents) when empty. */
  store(box: number, out: Float32Array, o: number): boolean {
    const b = this.minMax, i = box * 6;
    if (!(b[i] <= b[i + 3])) {
      out.fill(0, o, o + 3);
      out.fill(-1, o + 3, o + 6);
      return false;
    }
    for (let c = 0; c < 3; c++) {
      const lo = b[i + c], hi = b[i + 3 + c];
      const centre = Math.fround((lo + hi) / 2);
      const half = Math.max(hi - centre, centre - lo);
      out[o + c] = centre;
      out[o + 3 + c] = half + (Math.abs(centre) + half) * ROUND_OUT;
    }
    return true;
  }
}

/**
 * A stored box (centre, half extent) through every instance matrix (Arvo), united: an
 * instanced mesh node's box in the node's own space, stored rounded outwards. Load time.
 */
function instancesBox(box: Float32Array, instances: Float64Array): Float32Array {
  const out = new Float32Array(BOX_FLOATS);
  if (!(box[3] >= 0)) {
    out.set(box);
    return out;
  }
  const list = new BoxList();
  list.add();
  const lo = new Float64Array(3), hi = new Float64Array(3);
  for (let k = 0; k < instances.length; k += 16) {
    for (let r = 0; r < 3; r++) {
      let c = instances[k + 12 + r], e = 0;
      for (let a = 0; a < 3; a++) {
        c += instances[k + a * 4 + r] * box[a];
        e += Math.abs(instances[k + a * 4 + r]) * box[3 + a];
      }
      lo[r] = c - e;
      hi[r] = c + e;
    }
    list.grow(0, lo, hi);
  }
  list.store(0, out, 0);
  return out;
}

function meshSkinBounds(model: Model, meshIndex: number, skin: number, centersOf?: CentersOfPrimitive): MeshSkinBounds {
  const jointCount = skin >= 0 ? model.skins[skin].joints.length : 0;
  const joints = new BoxList();
  for (let j = 0; j < jointCount; j++) joints.add();
  const rigid = new BoxList();
  rigid.add();
  const pairs = new BoxList();
  const pairOf = new Map<number, number>(); // dominant · jointCount + joint → pair
  const pairKeys: number[] = [];
  const vlo = new Float64Array(3), vhi = new Float64Array(3);
  const clo = new Float64Array(3), chi = new Float64Array(3);
  const vJoints = new Int32Array(8), vWeights = new Float64Array(8);
  /** Per dominant joint: the largest |v − p*| of its vertices (centres of rotation only). */
  const radiusOf = new Float64Array(jointCount);
  model.meshes[meshIndex].primitives.forEach((modelPrim, p) => {
    // Each distinct vertex once (the upload's weld), in the order of their first corners: the
    // same boxes, caps and pairs. Centres of rotation are the model primitive's, per corner.
    const prim = centersOf ? modelPrim : weldPrimitive(modelPrim);
    const { joints: js, weights: ws, influences, positions, targets } = prim;
    const skinned = skin >= 0 && influences > 0 && js !== undefined && ws !== undefined;
    const centers = skinned && centersOf ? centersOf(prim) : undefined;
    for (let v = 0; v < prim.vertexCount; v++) {
      for (let c = 0; c < 3; c++) {
        vlo[c] = vhi[c] = positions[v * 3 + c];
        for (const target of targets) {
          const d = target.positions ? target.positions[v * 3 + c] : 0;
          if (d < 0) vlo[c] += d; else vhi[c] += d;
        }
      }
      if (!skinned) {
        rigid.grow(0, vlo, vhi);
        continue;
      }
      // Distinct joints with weight > 0 (a joint may fill several slots; zero-weight slots
      // are padding, often joint 0), their weight sum, and the dominant one.
      let count = 0, sum = 0, dominant = 0;
      for (let i = 0; i < influences; i++) {
        const w = ws[v * influences + i];
        if (!(w > 0)) continue;
        const j = js[v * influences + i];
        if (j >= jointCount) {
          // Named by the file's vertex: a welded vertex's first corner.
          const corner = prim === modelPrim ? v : prim.indices!.indexOf(v);
          throw new RangeError(`meshes[${meshIndex}].primitives[${p}].attributes.JOINTS: vertex ${corner} uses joint ${j}, skin ${skin} has ${jointCount}`);
        }
        let k = 0;
        while (k < count && vJoints[k] !== j) k++;
        if (k === count) { vJoints[count] = j; vWeights[count] = 0; count++; }
        vWeights[k] += w;
        sum += w;
        if (vWeights[k] > vWeights[dominant]) dominant = k;
      }
      const d = vJoints[dominant];
      // Centre-of-rotation bounds: the boxes hold the centre, the group's radius the rest.
      let lo = vlo, hi = vhi;
      if (centers) {
        let r2 = 0;
        for (let c = 0; c < 3; c++) {
          clo[c] = chi[c] = centers[v * 3 + c];
          const far = Math.max(Math.abs(vlo[c] - clo[c]), Math.abs(vhi[c] - clo[c]));
          r2 += far * far;
        }
        if (Math.sqrt(r2) > radiusOf[d]) radiusOf[d] = Math.sqrt(r2);
        lo = clo;
        hi = chi;
      }
      for (let k = 0; k < count; k++) {
        joints.grow(vJoints[k], lo, hi);
        const key = d * jointCount + vJoints[k];
        let pair = pairOf.get(key);
        if (pair === undefined) {
          pair = pairs.add();
          pairOf.set(key, pair);
          pairKeys.push(key);
        }
        pairs.grow(pair, lo, hi, k === dominant ? 1 : vWeights[k] / sum);
      }
    }
  });

  const jointBoxes = new Float32Array(jointCount * BOX_FLOATS);
  const active: number[] = [];
  for (let j = 0; j < jointCount; j++) if (joints.store(j, jointBoxes, j * BOX_FLOATS)) active.push(j);
  const rigidBox = new Float32Array(BOX_FLOATS);
  rigid.store(0, rigidBox, 0);

  // Groups by dominant joint; within one, the dominant joint's own pair first.
  const order = pairKeys.map((key, pair) => ({ pair, d: Math.floor(key / jointCount), j: key % jointCount }));
  order.sort((a, b) => a.d - b.d || Number(b.j === b.d) - Number(a.j === a.d) || a.j - b.j);
  const pairBoxes = new Float32Array(order.length * BOX_FLOATS);
  const pairJoints = new Int32Array(order.length);
  const pairCaps = new Float32Array(order.length);
  const groupStart: number[] = [];
  order.forEach(({ pair, d, j }, k) => {
    if (j === d) groupStart.push(k);
    pairs.store(pair, pairBoxes, k * BOX_FLOATS);
    pairJoints[k] = j;
    // Rounded up, so the stored cap never falls below the true one.
    const cap = pairs.caps[pair];
    pairCaps[k] = Math.min(1, cap + cap * ROUND_OUT);
  });
  groupStart.push(order.length);
  const radius = centersOf ? { groupRadius: Float32Array.from(groupStart.slice(0, -1), (k) => roundUp(radiusOf[pairJoints[k]])) } : {};
  return {
    mesh: meshIndex, skin, jointBoxes, activeJoints: Int32Array.from(active),
    groupStart: Int32Array.from(groupStart), pairJoints, pairCaps, pairBoxes, rigidBox, ...radius,
  };
}

/** `x` stored in float32 no smaller than it is. */
function roundUp(x: number): number {
  return Math.fround(x + x * ROUND_OUT);
}

/**
 * Relative outward margin, 2⁻²²: twice a float32 half-ulp, so storing in float32 (round to
 * nearest) never moves a bound inwards, and far above the double rounding of the arithmetic.
 * Scaled by |centre| + extent so that cancellation near 0 is covered too.
 */
const ROUND_OUT = 2 ** -22;

/**
 * The loader leaves weight sums within 1e-6 of 1 (src/gltf/skin-attributes.ts); a sum s ≠ 1 scales the
 * skinned vertex by s about the mesh node's origin. 2⁻¹⁸ ≈ 3.8e-6 of |centre| + extent covers it.
 */
export const WEIGHT_SUM_MARGIN = 2 ** -18;

// Per-frame scratch (min x y z, max x y z): module level, so `run` allocates nothing.
/** Bound of the mesh node being processed, in its own space. */
const local = new Float64Array(6);
/** The dominant joint's transformed box, another joint's, the hull bound and the capped bound of a group. */
const dominantBox = new Float64Array(6);
const jointBox = new Float64Array(6);
const hull = new Float64Array(6);
const capped = new Float64Array(6);
/** Passed through memory, not as an argument or result: V8 boxes doubles crossing calls it does not inline. */
const pairCos = new Float64Array(1);

/**
 * Per instance and frame: the world-space axis-aligned bound of every mesh node of the
 * instance (skinned ones from their palettes, rigid ones from their static box) and their
 * union. Run after the instance's palettes and node matrices are updated (e.g. after
 * `AnimationPlayer.update`). Allocates nothing.
 *
 * An empty result (no vertices) is min = +∞, max = −∞ on every axis.
 */
export class SkinnedBoundsJob {
  /**
   * How the renderer skins: 'linear' (provably contained), 'dual-quaternion', which pads
   * each dominant-joint group by how far its joints' rotations differ, or
   * 'center-of-rotation', which needs bounds built from the centres (module comment).
   */
  skinning: SkinningMethod = 'linear';
  /**
   * true: one box per joint (a transform per influencing joint; looser). false (default):
   * boxes per dominant-joint group with weight caps (a transform per group/joint pair,
   * typically 3–5 per joint; much tighter on characters with broad low weights). Linear
   * skinning only.
   */
  coarse = false;
  /** Extra margin on each side of every mesh node's local bound, as a fraction of its largest extent. */
  padding = 0;

  constructor(
    readonly bounds: SkinnedBounds,
    /** The instance `run` reads; may be re-pointed between runs (one job serving a crowd). */
    public instance: ModelInstance,
    /** World-space minimum of the whole instance (3 floats). */
    readonly outMin: Float32Array,
    /** World-space maximum of the whole instance (3 floats). */
    readonly outMax: Float32Array,
    /** Optional: per `model.meshNodes` entry, world min x y z then max x y z (6 floats each). */
    readonly outMeshNodes: Float32Array | null = null,
  ) {}

  /**
   * Checks that bounds and instance are of one model, the outputs large enough, the padding finite, and the
   * skinning method one the bounds hold for; throws naming the rule broken. `run` calls it first.
   */
  validate(): void {
    const { bounds, instance, outMin, outMax, outMeshNodes } = this;
    if (bounds.model !== instance.model) throw new Error('SkinnedBoundsJob: bounds and instance are of different models');
    const meshNodes = bounds.model.meshNodes.length;
    if (bounds.entryOfMeshNode.length !== meshNodes) throw new RangeError(`SkinnedBoundsJob: bounds cover ${bounds.entryOfMeshNode.length} mesh nodes, the model has ${meshNodes}`);
    if (outMin.length < 3 || outMax.length < 3) throw new RangeError(`SkinnedBoundsJob: outMin and outMax need 3 floats, got ${outMin.length} and ${outMax.length}`);
    if (outMeshNodes !== null && outMeshNodes.length < meshNodes * 6) {
      throw new RangeError(`SkinnedBoundsJob: outMeshNodes holds ${outMeshNodes.length} floats, ${meshNodes} mesh nodes need ${meshNodes * 6}`);
    }
    if (!(this.padding >= 0 && this.padding < Infinity)) throw new RangeError(`SkinnedBoundsJob: padding ${this.padding} is not a finite non-negative number`);
    if (this.skinning !== 'linear' && this.skinning !== 'dual-quaternion' && this.skinning !== 'center-of-rotation') {
      throw new RangeError(`SkinnedBoundsJob: skinning "${this.skinning}" must be linear, dual-quaternion or center-of-rotation`);
    }
    if ((this.skinning === 'center-of-rotation') !== bounds.centersOfRotation) {
      throw new RangeError(bounds.centersOfRotation
        ? `SkinnedBoundsJob: bounds built from centres of rotation hold for center-of-rotation skinning only, not ${this.skinning}`
        : 'SkinnedBoundsJob: center-of-rotation skinning needs bounds built from the centres (createSkinnedBounds(model, centers))');
    }
    if (this.coarse && this.skinning !== 'linear') throw new RangeError('SkinnedBoundsJob: coarse bounds hold for linear skinning only');
  }

  /**
   * Writes the union of the mesh nodes' world-space boxes into `outMin`/`outMax`, and each mesh node's box
   * into `outMeshNodes` when given.
   */
  run(): void {
    this.validate();
    const { bounds, instance, outMin, outMax, outMeshNodes } = this;
    const model = bounds.model;
    const palette = instance.palette, m = instance.nodeMatrices;
    const slotOf = model.hierarchy.slotOf;
    const padding = this.padding, coarse = this.coarse, dq = this.skinning === 'dual-quaternion';
    let minX = Infinity, minY = Infinity, minZ = Infinity, maxX = -Infinity, maxY = -Infinity, maxZ = -Infinity;
    for (let i = 0; i < bounds.entryOfMeshNode.length; i++) {
      const entry = bounds.entries[bounds.entryOfMeshNode[i]];
      const offset = instance.paletteOffsets[i];
      local[0] = local[1] = local[2] = Infinity;
      local[3] = local[4] = local[5] = -Infinity;
      if (offset >= 0) {
        if (coarse) unionJointBoxes(entry, palette, offset);
        else unionGroups(entry, palette, offset, dq, entry.groupRadius);
      }
      if (entry.rigidBox[3] >= 0) unionStored(entry.rigidBox);
      const o = i * 6;
      if (!(local[0] <= local[3])) {
        if (outMeshNodes !== null) {
          outMeshNodes[o] = outMeshNodes[o + 1] = outMeshNodes[o + 2] = Infinity;
          outMeshNodes[o + 3] = outMeshNodes[o + 4] = outMeshNodes[o + 5] = -Infinity;
        }
        continue;
      }
      // Local centre and half extent with the margins, then Arvo through the world matrix.
      const cx = (local[0] + local[3]) / 2, cy = (local[1] + local[4]) / 2, cz = (local[2] + local[5]) / 2;
      const ex = (local[3] - local[0]) / 2, ey = (local[4] - local[1]) / 2, ez = (local[5] - local[2]) / 2;
      const pad = padding * 2 * (ex > ey ? (ex > ez ? ex : ez) : (ey > ez ? ey : ez));
      const hx = ex + pad + (Math.abs(cx) + ex) * WEIGHT_SUM_MARGIN;
      const hy = ey + pad + (Math.abs(cy) + ey) * WEIGHT_SUM_MARGIN;
      const hz = ez + pad + (Math.abs(cz) + ez) * WEIGHT_SUM_MARGIN;
      const w = slotOf[model.meshNodes[i].node] * 16;
      const wx = m[w] * cx + m[w + 4] * cy + m[w + 8] * cz + m[w + 12];
      const wy = m[w + 1] * cx + m[w + 5] * cy + m[w + 9] * cz + m[w + 13];
      const wz = m[w + 2] * cx + m[w + 6] * cy + m[w + 10] * cz + m[w + 14];
      let gx = Math.abs(m[w]) * hx + Math.abs(m[w + 4]) * hy + Math.abs(m[w + 8]) * hz;
      let gy = Math.abs(m[w + 1]) * hx + Math.abs(m[w + 5]) * hy + Math.abs(m[w + 9]) * hz;
      let gz = Math.abs(m[w + 2]) * hx + Math.abs(m[w + 6]) * hy + Math.abs(m[w + 10]) * hz;
      gx += (Math.abs(wx) + gx) * ROUND_OUT;
      gy += (Math.abs(wy) + gy) * ROUND_OUT;
      gz += (Math.abs(wz) + gz) * ROUND_OUT;
      const x0 = wx - gx, y0 = wy - gy, z0 = wz - gz, x1 = wx + gx, y1 = wy + gy, z1 = wz + gz;
      if (outMeshNodes !== null) {
        outMeshNodes[o] = x0; outMeshNodes[o + 1] = y0; outMeshNodes[o + 2] = z0;
        outMeshNodes[o + 3] = x1; outMeshNodes[o + 4] = y1; outMeshNodes[o + 5] = z1;
      }
      if (x0 < minX) minX = x0;
      if (y0 < minY) minY = y0;
      if (z0 < minZ) minZ = z0;
      if (x1 > maxX) maxX = x1;
      if (y1 > maxY) maxY = y1;
      if (z1 > maxZ) maxZ = z1;
    }
    outMin[0] = minX; outMin[1] = minY; outMin[2] = minZ;
    outMax[0] = maxX; outMax[1] = maxY; outMax[2] = maxZ;
  }
}

/** `local` ∪= every joint box through its palette matrix. */
function unionJointBoxes(entry: MeshSkinBounds, palette: Float32Array, offset: number): void {
  const boxes = entry.jointBoxes, active = entry.activeJoints;
  for (let k = 0; k < active.length; k++) {
    const j = active[k];
    transformBox(palette, (offset + j) * 16, boxes, j * BOX_FLOATS, jointBox);
    for (let c = 0; c < 3; c++) {
      if (jointBox[c] < local[c]) local[c] = jointBox[c];
      if (jointBox[c + 3] > local[c + 3]) local[c + 3] = jointBox[c + 3];
    }
  }
}

/**
 * `local` ∪= per dominant-joint group: linear, the intersection of its hull bound and its
 * capped bound; dual-quaternion, per joint pair (d, i) the box of Y_d ∪ Yᵢ padded by
 * ½·tan(θ/4)·its diagonal, θ the rotation between the two joints; centre of rotation (with
 * `radius`), the linear bound of the centres padded by radius · the largest joint norm.
 */
function unionGroups(entry: MeshSkinBounds, palette: Float32Array, offset: number, dq: boolean, radius: Float32Array | undefined): void {
  const { groupStart, pairJoints, pairCaps, pairBoxes } = entry;
  for (let g = 0; g + 1 < groupStart.length; g++) {
    const first = groupStart[g], end = groupStart[g + 1];
    const d = (offset + pairJoints[first]) * 16;
    transformBox(palette, d, pairBoxes, first * BOX_FLOATS, dominantBox);
    for (let c = 0; c < 6; c++) hull[c] = capped[c] = dominantBox[c];
    for (let p = first + 1; p < end; p++) {
      const mo = (offset + pairJoints[p]) * 16;
      transformBox(palette, mo, pairBoxes, p * BOX_FLOATS, jointBox);
      if (dq) {
        relativeCos(palette, d, mo);
        unionDqPair();
        continue;
      }
      const cap = pairCaps[p];
      for (let c = 0; c < 3; c++) {
        const lo = jointBox[c], hi = jointBox[c + 3];
        if (lo < hull[c]) hull[c] = lo;
        if (hi > hull[c + 3]) hull[c + 3] = hi;
        if (lo < dominantBox[c]) capped[c] += cap * (lo - dominantBox[c]);
        if (hi > dominantBox[c + 3]) capped[c + 3] += cap * (hi - dominantBox[c + 3]);
      }
    }
    let pad = 0;
    if (radius !== undefined) {
      let norm = 0;
      for (let p = first; p < end; p++) {
        const n = spectralNormBound(palette, (offset + pairJoints[p]) * 16);
        if (n > norm) norm = n;
      }
      pad = radius[g] * norm;
    }
    for (let c = 0; c < 3; c++) {
      const lo = (capped[c] > hull[c] ? capped[c] : hull[c]) - pad;
      const hi = (capped[c + 3] < hull[c + 3] ? capped[c + 3] : hull[c + 3]) + pad;
      if (lo < local[c]) local[c] = lo;
      if (hi > local[c + 3]) local[c + 3] = hi;
    }
  }
}

/**
 * An upper bound of the largest singular value of the 3×3 part A of the palette matrix at
 * `m[mo…]`: √ of the largest absolute row sum of AᵀA (Gershgorin), exact when A is a rotation
 * times a uniform scale.
 */
function spectralNormBound(m: Float32Array, mo: number): number {
  const a0 = m[mo], a1 = m[mo + 1], a2 = m[mo + 2], b0 = m[mo + 4], b1 = m[mo + 5], b2 = m[mo + 6];
  const c0 = m[mo + 8], c1 = m[mo + 9], c2 = m[mo + 10];
  const aa = a0 * a0 + a1 * a1 + a2 * a2, bb = b0 * b0 + b1 * b1 + b2 * b2, cc = c0 * c0 + c1 * c1 + c2 * c2;
  const ab = Math.abs(a0 * b0 + a1 * b1 + a2 * b2), ac = Math.abs(a0 * c0 + a1 * c1 + a2 * c2), bc = Math.abs(b0 * c0 + b1 * c1 + b2 * c2);
  const r0 = aa + ab + ac, r1 = ab + bb + bc, r2 = ac + bc + cc;
  const max = r0 > r1 ? (r0 > r2 ? r0 : r2) : (r1 > r2 ? r1 : r2);
  // Float32 palette entries: a relative margin keeps the bound above the exact value.
  return Math.sqrt(max) * (1 + ROUND_OUT);
}

/**
 * `local` ∪= the box of `dominantBox` ∪ `jointBox`, padded for dual-quaternion skinning.
 *
 * DLB of two unit dual quaternions θ ≤ 180° apart (one hemisphere) is their screw
 * interpolation with another parameter (Kavan et al. 2008): the vertex moves from y_d to yᵢ
 * on a helix of some radius r about the relative motion's axis. The helix point at angle
 * φ and the chord point at fraction φ/θ share their along-axis part, so they differ only by
 * a circular arc against its chord at proportional parameter: with ψ = φ − θ/2, at most
 *   r·(1 − cos θ/2)  across  +  r·max(sin ψ − k·ψ), k = sin(θ/2)/(θ/2), at cos ψ = k,  along.
 * The chord is in the box, and its part across the axis, 2r·sin(θ/2), is at most the box's
 * diagonal, which bounds r.
 */
function unionDqPair(): void {
  const cos = pairCos[0];
  let sq = 0;
  for (let c = 0; c < 3; c++) {
    const lo = dominantBox[c] < jointBox[c] ? dominantBox[c] : jointBox[c];
    const hi = dominantBox[c + 3] > jointBox[c + 3] ? dominantBox[c + 3] : jointBox[c + 3];
    hull[c] = lo;
    hull[c + 3] = hi;
    sq += (hi - lo) * (hi - lo);
  }
  let pad = 0;
  const halfTheta = Math.acos(cos) / 2;
  const halfSin = Math.sin(halfTheta);
  if (halfSin > 1e-12) {
    // No rotation between the two: DLB blends the translations linearly, like LBS.
    const k = halfSin / halfTheta;
    const psi = Math.acos(k < 1 ? k : 1);
    const across = 1 - Math.cos(halfTheta), along = Math.sin(psi) - k * psi;
    pad = Math.sqrt(sq) / (2 * halfSin) * (across + along);
  }
  for (let c = 0; c < 3; c++) {
    if (hull[c] - pad < local[c]) local[c] = hull[c] - pad;
    if (hull[c + 3] + pad > local[c + 3]) local[c + 3] = hull[c + 3] + pad;
  }
}

/**
 * `pairCos[0]` = cos θ of the rotation between the 3×3 parts A, B of two palette matrices:
 * (tr(RₐᵀR_b) − 1) / 2 with tr(RₐᵀR_b) = 3·tr(AᵀB) / (‖A‖·‖B‖) (Frobenius), exact for
 * rotations with uniform scale. Clamped to [−1, 1]; 1 for a zero matrix.
 */
function relativeCos(m: Float32Array, a: number, b: number): void {
  let dot = 0, aa = 0, bb = 0;
  for (let col = 0; col < 12; col += 4) {
    for (let r = 0; r < 3; r++) {
      const x = m[a + col + r], y = m[b + col + r];
      dot += x * y; aa += x * x; bb += y * y;
    }
  }
  const norms = Math.sqrt(aa * bb);
  const cos = norms > 0 ? (3 * dot / norms - 1) / 2 : 1;
  pairCos[0] = cos < -1 ? -1 : cos > 1 ? 1 : cos;
}

/**
 * Arvo's method: the AABB (min x y z, max x y z into `out`) of the box with centre/half
 * extent at `boxes[bo…]` under the affine part of the column-major matrix at `m[mo…]`.
 */
function transformBox(m: Float32Array, mo: number, boxes: Float32Array, bo: number, out: Float64Array): void {
  const cx = boxes[bo], cy = boxes[bo + 1], cz = boxes[bo + 2];
  const hx = boxes[bo + 3], hy = boxes[bo + 4], hz = boxes[bo + 5];
  const m0 = m[mo], m1 = m[mo + 1], m2 = m[mo + 2];
  const m4 = m[mo + 4], m5 = m[mo + 5], m6 = m[mo + 6];
  const m8 = m[mo + 8], m9 = m[mo + 9], m10 = m[mo + 10];
  const x = m0 * cx + m4 * cy + m8 * cz + m[mo + 12];
  const y = m1 * cx + m5 * cy + m9 * cz + m[mo + 13];
  const z = m2 * cx + m6 * cy + m10 * cz + m[mo + 14];
  const ex = Math.abs(m0) * hx + Math.abs(m4) * hy + Math.abs(m8) * hz;
  const ey = Math.abs(m1) * hx + Math.abs(m5) * hy + Math.abs(m9) * hz;
  const ez = Math.abs(m2) * hx + Math.abs(m6) * hy + Math.abs(m10) * hz;
  out[0] = x - ex; out[1] = y - ey; out[2] = z - ez;
  out[3] = x + ex; out[4] = y + ey; out[5] = z + ez;
}

/** `local` ∪= a stored centre/half-extent box, untransformed. */
function unionStored(box: Float32Array): void {
  for (let c = 0; c < 3; c++) {
    if (box[c] - box[3 + c] < local[c]) local[c] = box[c] - box[3 + c];
    if (box[c] + box[3 + c] > local[3 + c]) local[3 + c] = box[c] + box[3 + c];
  }
}
