/**
 * Ray casts against the model as drawn: the surface skinned on the CPU from the instance's
 * current palettes (the ones the renderer uploads this frame), with the same skinning
 * method, morph targets applied first — no GPU readback.
 *
 * Pruning: `SkinnedBoundsJob` pushes its per-joint bind-space boxes through the palettes
 * (no vertex visited) to a box per mesh node; a mesh node whose box the ray misses is never
 * skinned. A primitive is skinned lazily, on the first ray that reaches its mesh node after
 * `invalidate()`, and reused by every further ray until the next `invalidate()` (hotspot
 * occlusion casts several rays a frame against one pose). The skinning itself is the
 * reference implementation of `cpu-skin.ts` / `dqs.ts` / `cor.ts`, the one the GPU is tested against.
 *
 * Triangles are hit from either side (Möller–Trumbore without culling): a ray that starts
 * inside a single-sided surface still finds it, as three.js's DoubleSide raycast does.
 * The renderer draws at most 8 morph targets per draw (the largest weights); the CPU side
 * applies them all, which differs only where more than 8 are non-zero at once.
 */
import { dqPaletteFromMatrices } from '../anim/dq-palette.ts';
import type { ModelInstance } from '../anim/instance.ts';
import { createSkinnedBounds, SkinnedBoundsJob, type SkinnedBounds } from '../anim/skinned-bounds.ts';
import { usesDqPalette, type SkinningMethod } from '../anim/skinning-method.ts';
import type { Model, Primitive } from '../gltf/model.ts';
import { triangleList } from '../gltf/topology.ts';
import { meshNodeWorld } from '../anim/mesh-node-world.ts';
import { invertMat4, multiplyMat4, setIdentity } from '../math/trs.ts';
import type { NumArray } from '../math/types.ts';
import { centerOfRotationBounds } from './centers-of-rotation/bounds.ts';
import type { SkinnedVertices } from './cpu-skin.ts';
import { skinPrimitiveWith } from './skin-with.ts';
import { applyMorphTargets, createMorphedVertices, type MorphedVertices } from './morph.ts';

/** Where a ray met the surface; filled in place by `SkinnedRaycaster.cast`. */
export interface RayHit {
  /** World (scene) position, metres. */
  readonly position: Float64Array;
  /** Unit surface normal in world space: the skinned vertex normals interpolated, or the triangle's own without NORMAL. */
  readonly normal: Float64Array;
  /** TEXCOORD_0 interpolated (u, v); valid when `hasUv`. */
  readonly uv: Float64Array;
  hasUv: boolean;
  /** Ray parameter: the hit is at origin + distance · direction (metres when direction is a unit vector). */
  distance: number;
  /** Index into `model.meshNodes`, the primitive of its mesh, the triangle of that primitive. */
  meshNode: number;
  primitive: number;
  triangle: number;
  /** The triangle's three vertex indices (into the primitive's attributes) and their barycentric weights. */
  readonly vertices: Uint32Array;
  readonly barycentric: Float64Array;
}

/** An empty hit for `SkinnedRaycaster.cast` to fill, allocated once and reused. */
export function createRayHit(): RayHit {
  return {
    position: new Float64Array(3), normal: new Float64Array(3), uv: new Float64Array(2), hasUv: false,
    distance: Infinity, meshNode: -1, primitive: -1, triangle: -1,
    vertices: new Uint32Array(3), barycentric: new Float64Array(3),
  };
}

/** Per primitive of a mesh node: its triangles and the vertices the last pose gave it. */
interface PrimitiveCache {
  readonly prim: Primitive;
  /** Three vertex indices per triangle; empty for points and lines. */
  readonly triangles: Uint32Array;
  readonly skinned: SkinnedVertices | undefined;
  readonly morphed: MorphedVertices | undefined;
  /** The vertices in mesh-node space now (skinned, morphed or the file's own). */
  positions: Float32Array;
  normals: Float32Array | undefined;
  /** `SkinnedRaycaster.generation` these were made for (-1: never). */
  generation: number;
}

interface MeshNodeCache {
  readonly primitives: readonly PrimitiveCache[];
  /** The mesh node's dual-quaternion palette (skinned nodes only, filled on demand; also read by centres of rotation). */
  readonly dqPalette: Float32Array | undefined;
  dqGeneration: number;
}

/** Margin on the pruning boxes, a fraction of each mesh node's extent: pruning must never drop a hit. */
const BOX_PADDING = 0.05;
/** Below this a triangle is taken as parallel to the ray. */
const PARALLEL_EPSILON = 1e-12;

// Scratch, module level: `cast` allocates nothing.
const placementInverse = new Float64Array(16);
const world = new Float64Array(16);
const toLocal = new Float64Array(16);
const ray = new Float64Array(6);
const localRay = new Float64Array(6);
/** The nearest hit so far: t, mesh node, barycentric u v, EXT_mesh_gpu_instancing copy. */
const best = new Float64Array(5);

/**
 * Casts rays at one model's instances. Build once per model (it sizes every buffer then);
 * `cast` allocates nothing. Call `invalidate()` whenever the instance's pose, palettes or
 * morph weights changed (after each frame's update), or when casting at another instance.
 */
export class SkinnedRaycaster {
  /** How the renderer skins (`renderer.settings.skinning`); a change takes effect at the next cast. */
  skinning: SkinningMethod = 'linear';
  private readonly bounds: SkinnedBounds;
  private readonly job: SkinnedBoundsJob;
  /** The job over bounds built from centres of rotation, made on the first cast with that method. */
  private centerJob: SkinnedBoundsJob | undefined;
  private readonly meshBoxes: Float32Array;
  private readonly boundsMin = new Float32Array(3);
  private readonly boundsMax = new Float32Array(3);
  private readonly meshNodes: readonly MeshNodeCache[];
  private generation = 0;
  /** The generation the boxes were computed for, with what instance and method. */
  private boxesGeneration = -1;
  private lastInstance: ModelInstance | undefined;
  private lastSkinning: SkinningMethod = 'linear';

  constructor(readonly model: Model) {
    this.bounds = createSkinnedBounds(model);
    this.meshBoxes = new Float32Array(model.meshNodes.length * 6);
    // The instance is set per cast; the job only reads it in run().
    this.job = new SkinnedBoundsJob(this.bounds, undefined as unknown as ModelInstance, this.boundsMin, this.boundsMax, this.meshBoxes);
    // Morph weights outside [0, 1] and DQS with 3+ influences can leave the bound a little (skinned-bounds.ts).
    this.job.padding = BOX_PADDING;
    this.meshNodes = model.meshNodes.map((mn) => {
      const skinned = mn.skin >= 0;
      return {
        primitives: model.meshes[mn.mesh].primitives.map((prim): PrimitiveCache => {
          const skinnedPrim = skinned && prim.joints !== undefined && prim.weights !== undefined;
          const morphed = prim.targets.length > 0 ? createMorphedVertices(prim) : undefined;
          const out: SkinnedVertices | undefined = skinnedPrim
            ? { positions: new Float32Array(prim.vertexCount * 3), normals: prim.normals ? new Float32Array(prim.vertexCount * 3) : undefined, tangents: undefined }
            : undefined;
          return {
            prim, triangles: triangleList(prim) ?? new Uint32Array(0), skinned: out, morphed,
            positions: prim.positions, normals: prim.normals, generation: -1,
          };
        }),
        dqPalette: skinned ? new Float32Array(model.skins[mn.skin].joints.length * 16) : undefined,
        dqGeneration: -1,
      };
    });
  }

  private centerBoundsJob(): SkinnedBoundsJob {
    if (!this.centerJob) {
      this.centerJob = new SkinnedBoundsJob(centerOfRotationBounds(this.model), undefined as unknown as ModelInstance, this.boundsMin, this.boundsMax, this.meshBoxes);
      this.centerJob.padding = BOX_PADDING;
    }
    return this.centerJob;
  }

  /** The pose changed: vertices are skinned again before the next ray uses them. */
  invalidate(): void {
    this.generation++;
  }

  /**
   * The nearest hit of the ray origin + t · direction (t in (0, maxDistance]) on the
   * instance's surface, written into `out`; false (out untouched) on a miss. `placement`
   * (16 numbers, column-major) places the instance in the scene as
   * `Renderer.renderInstances` does; null: at the origin. EXT_mesh_gpu_instancing copies are
   * hit too. Allocates nothing.
   */
  cast(
    instance: ModelInstance, origin: ArrayLike<number>, direction: ArrayLike<number>, out: RayHit,
    placement: NumArray | null = null, maxDistance = Infinity,
  ): boolean {
    if (instance.model !== this.model) throw new Error('SkinnedRaycaster.cast: the instance is of another model');
    if (instance !== this.lastInstance || this.skinning !== this.lastSkinning) {
      this.lastInstance = instance;
      this.lastSkinning = this.skinning;
      this.generation++;
    }
    // The ray in the instance's own space (where node matrices and boxes live); t is unchanged by an affine map.
    if (placement === null) {
      setIdentity(placementInverse);
    } else if (!invertMat4(placement, placementInverse)) {
      return false; // a collapsed placement draws nothing
    }
    transformRay(placementInverse, origin, direction, ray);
    if (this.boxesGeneration !== this.generation) {
      const job = this.skinning === 'center-of-rotation' ? this.centerBoundsJob() : this.job;
      job.instance = instance;
      job.skinning = this.skinning;
      job.run();
      this.boxesGeneration = this.generation;
    }
    best[0] = maxDistance; // t
    best[1] = -1; // mesh node
    let found = false;
    const model = this.model;
    for (let i = 0; i < model.meshNodes.length; i++) {
      if (!rayHitsBox(ray, this.meshBoxes, i * 6, best[0])) continue;
      const mn = model.meshNodes[i];
      const copies = mn.instances ? mn.instances.length / 16 : 1;
      for (let k = 0; k < copies; k++) {
        meshNodeWorld(model, instance.nodeMatrices, i, k, world);
        if (!invertMat4(world, toLocal)) continue;
        transformRay(toLocal, ray, ray, localRay, 3);
        if (this.castMeshNode(instance, i, out, k)) found = true;
      }
    }
    if (!found) return false;
    this.finishHit(instance, out, placement);
    return true;
  }

  /**
   * A point fixed on the surface (model-viewer's `data-surface`): vertices a b c of primitive
   * `primitive` of mesh node `meshNode` (an index into `model.meshNodes`) weighted by wa wb
   * wc, as the instance is drawn now (skinned like the rays see it, and reused by them until
   * `invalidate()`). `dst` = its world position, `normalDst` = the skinned triangle's unit
   * normal, through `placement` when given. False when the indices do not name a vertex of
   * that primitive. Allocates nothing.
   */
  surfacePoint(
    instance: ModelInstance, meshNode: number, primitive: number, a: number, b: number, c: number,
    wa: number, wb: number, wc: number, placement: NumArray | null, dst: NumArray, normalDst: NumArray,
  ): boolean {
    if (instance.model !== this.model) throw new Error('SkinnedRaycaster.surfacePoint: the instance is of another model');
    const cache = this.meshNodes[meshNode];
    const pc = cache?.primitives[primitive];
    if (!pc) return false;
    const n = pc.prim.vertexCount;
    if (!(a >= 0 && a < n && b >= 0 && b < n && c >= 0 && c < n)) return false;
    if (instance !== this.lastInstance || this.skinning !== this.lastSkinning) {
      this.lastInstance = instance;
      this.lastSkinning = this.skinning;
      this.generation++;
    }
    if (pc.generation !== this.generation) this.pose(instance, meshNode, pc);
    const pos = pc.positions;
    // An EXT_mesh_gpu_instancing node: on its first copy.
    meshNodeWorld(this.model, instance.nodeMatrices, meshNode, 0, world);
    if (placement !== null) multiplyMat4(placement, world, world);
    const lx = wa * pos[a * 3] + wb * pos[b * 3] + wc * pos[c * 3];
    const ly = wa * pos[a * 3 + 1] + wb * pos[b * 3 + 1] + wc * pos[c * 3 + 1];
    const lz = wa * pos[a * 3 + 2] + wb * pos[b * 3 + 2] + wc * pos[c * 3 + 2];
    dst[0] = world[0] * lx + world[4] * ly + world[8] * lz + world[12];
    dst[1] = world[1] * lx + world[5] * ly + world[9] * lz + world[13];
    dst[2] = world[2] * lx + world[6] * ly + world[10] * lz + world[14];
    // The triangle's normal in world space: its edges through the world matrix's linear part, crossed.
    const l1x = pos[b * 3] - pos[a * 3], l1y = pos[b * 3 + 1] - pos[a * 3 + 1], l1z = pos[b * 3 + 2] - pos[a * 3 + 2];
    const l2x = pos[c * 3] - pos[a * 3], l2y = pos[c * 3 + 1] - pos[a * 3 + 1], l2z = pos[c * 3 + 2] - pos[a * 3 + 2];
    const e1x = world[0] * l1x + world[4] * l1y + world[8] * l1z, e1y = world[1] * l1x + world[5] * l1y + world[9] * l1z;
    const e1z = world[2] * l1x + world[6] * l1y + world[10] * l1z;
    const e2x = world[0] * l2x + world[4] * l2y + world[8] * l2z, e2y = world[1] * l2x + world[5] * l2y + world[9] * l2z;
    const e2z = world[2] * l2x + world[6] * l2y + world[10] * l2z;
    const nx = e1y * e2z - e1z * e2y, ny = e1z * e2x - e1x * e2z, nz = e1x * e2y - e1y * e2x;
    const len = Math.sqrt(nx * nx + ny * ny + nz * nz) || 1;
    normalDst[0] = nx / len; normalDst[1] = ny / len; normalDst[2] = nz / len;
    return true;
  }

  /** Tests the mesh node's primitives against `localRay`; records a nearer hit in `best` and `out`'s indices. */
  private castMeshNode(instance: ModelInstance, index: number, out: RayHit, copy: number): boolean {
    const cache = this.meshNodes[index];
    const ox = localRay[0], oy = localRay[1], oz = localRay[2];
    const dx = localRay[3], dy = localRay[4], dz = localRay[5];
    let hit = false;
    for (let p = 0; p < cache.primitives.length; p++) {
      const pc = cache.primitives[p];
      if (pc.triangles.length === 0) continue;
      if (pc.generation !== this.generation) this.pose(instance, index, pc);
      const pos = pc.positions, tri = pc.triangles;
      for (let t = 0; t < tri.length; t += 3) {
        const a = tri[t] * 3, b = tri[t + 1] * 3, c = tri[t + 2] * 3;
        const ax = pos[a], ay = pos[a + 1], az = pos[a + 2];
        const e1x = pos[b] - ax, e1y = pos[b + 1] - ay, e1z = pos[b + 2] - az;
        const e2x = pos[c] - ax, e2y = pos[c + 1] - ay, e2z = pos[c + 2] - az;
        const px = dy * e2z - dz * e2y, py = dz * e2x - dx * e2z, pz = dx * e2y - dy * e2x;
        const det = e1x * px + e1y * py + e1z * pz;
        if (det > -PARALLEL_EPSILON && det < PARALLEL_EPSILON) continue;
        const inv = 1 / det;
        const sx = ox - ax, sy = oy - ay, sz = oz - az;
        const u = (sx * px + sy * py + sz * pz) * inv;
        if (u < 0 || u > 1) continue;
        const qx = sy * e1z - sz * e1y, qy = sz * e1x - sx * e1z, qz = sx * e1y - sy * e1x;
        const v = (dx * qx + dy * qy + dz * qz) * inv;
        if (v < 0 || u + v > 1) continue;
        const dist = (e2x * qx + e2y * qy + e2z * qz) * inv;
        if (!(dist > 0) || dist >= best[0]) continue;
        best[0] = dist; best[1] = index; best[2] = u; best[3] = v;
        best[4] = copy;
        out.meshNode = index; out.primitive = p; out.triangle = (t / 3) | 0;
        hit = true;
      }
    }
    return hit;
  }

  /** Skins (or morphs) the primitive's vertices for the current pose. */
  private pose(instance: ModelInstance, index: number, pc: PrimitiveCache): void {
    pc.generation = this.generation;
    const model = this.model, prim = pc.prim, mn = model.meshNodes[index];
    let source: MorphedVertices | Primitive = prim;
    if (pc.morphed) {
      const slot = model.hierarchy.slotOf[mn.node];
      const { weights, weightOffsets } = instance.pose;
      source = applyMorphTargets(prim, weights, weightOffsets[slot], weightOffsets[slot + 1] - weightOffsets[slot], pc.morphed);
    }
    const out = pc.skinned;
    if (!out) {
      pc.positions = source.positions;
      pc.normals = source.normals;
      return;
    }
    const offset = instance.paletteOffsets[index];
    if (usesDqPalette(this.skinning)) {
      const cache = this.meshNodes[index], dq = cache.dqPalette!;
      if (cache.dqGeneration !== this.generation) {
        dqPaletteFromMatrices(instance.palette, dq.length / 16, dq, offset, 0);
        cache.dqGeneration = this.generation;
      }
      skinPrimitiveWith(this.skinning, prim, dq, out, 0, source);
    } else {
      skinPrimitiveWith(this.skinning, prim, instance.palette, out, offset, source);
    }
    pc.positions = out.positions as Float32Array;
    pc.normals = out.normals as Float32Array | undefined;
  }

  /** Position, normal and uv of the hit `best` and `out`'s indices name, in world space. */
  private finishHit(instance: ModelInstance, out: RayHit, placement: NumArray | null): void {
    const pc = this.meshNodes[out.meshNode].primitives[out.primitive];
    meshNodeWorld(this.model, instance.nodeMatrices, out.meshNode, best[4], world);
    if (placement !== null) multiplyMat4(placement, world, world);
    const u = best[2], v = best[3], w = 1 - u - v;
    const a = pc.triangles[out.triangle * 3], b = pc.triangles[out.triangle * 3 + 1], c = pc.triangles[out.triangle * 3 + 2];
    out.vertices[0] = a; out.vertices[1] = b; out.vertices[2] = c;
    out.barycentric[0] = w; out.barycentric[1] = u; out.barycentric[2] = v;
    const pos = pc.positions;
    const lx = w * pos[a * 3] + u * pos[b * 3] + v * pos[c * 3];
    const ly = w * pos[a * 3 + 1] + u * pos[b * 3 + 1] + v * pos[c * 3 + 1];
    const lz = w * pos[a * 3 + 2] + u * pos[b * 3 + 2] + v * pos[c * 3 + 2];
    const p = out.position;
    p[0] = world[0] * lx + world[4] * ly + world[8] * lz + world[12];
    p[1] = world[1] * lx + world[5] * ly + world[9] * lz + world[13];
    p[2] = world[2] * lx + world[6] * ly + world[10] * lz + world[14];
    let nx: number, ny: number, nz: number;
    const nrm = pc.normals;
    if (nrm) {
      nx = w * nrm[a * 3] + u * nrm[b * 3] + v * nrm[c * 3];
      ny = w * nrm[a * 3 + 1] + u * nrm[b * 3 + 1] + v * nrm[c * 3 + 1];
      nz = w * nrm[a * 3 + 2] + u * nrm[b * 3 + 2] + v * nrm[c * 3 + 2];
    } else {
      // The triangle's own normal, (b − a) × (c − a): the renderer's flat normals.
      const e1x = pos[b * 3] - pos[a * 3], e1y = pos[b * 3 + 1] - pos[a * 3 + 1], e1z = pos[b * 3 + 2] - pos[a * 3 + 2];
      const e2x = pos[c * 3] - pos[a * 3], e2y = pos[c * 3 + 1] - pos[a * 3 + 1], e2z = pos[c * 3 + 2] - pos[a * 3 + 2];
      nx = e1y * e2z - e1z * e2y; ny = e1z * e2x - e1x * e2z; nz = e1x * e2y - e1y * e2x;
    }
    // Normals go through the inverse-transpose of the world matrix: row i of its inverse.
    const n = out.normal;
    if (invertMat4(world, toLocal)) {
      n[0] = toLocal[0] * nx + toLocal[1] * ny + toLocal[2] * nz;
      n[1] = toLocal[4] * nx + toLocal[5] * ny + toLocal[6] * nz;
      n[2] = toLocal[8] * nx + toLocal[9] * ny + toLocal[10] * nz;
    } else {
      n[0] = nx; n[1] = ny; n[2] = nz;
    }
    const len = Math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (len > 0) { n[0] /= len; n[1] /= len; n[2] /= len; }
    const uv = pc.prim.texcoords0;
    out.hasUv = uv !== undefined;
    if (uv) {
      out.uv[0] = w * uv[a * 2] + u * uv[b * 2] + v * uv[c * 2];
      out.uv[1] = w * uv[a * 2 + 1] + u * uv[b * 2 + 1] + v * uv[c * 2 + 1];
    }
    out.distance = best[0];
  }
}

/**
 * dst (origin xyz, direction xyz) = the ray through the affine matrix m: the origin from
 * `origin[0…2]`, the direction from `direction[directionOffset…]` (pass one 6-number ray as
 * both with offset 3). dst may alias the input.
 */
function transformRay(m: ArrayLike<number>, origin: ArrayLike<number>, direction: ArrayLike<number>, dst: Float64Array, directionOffset = 0): void {
  const ox = origin[0], oy = origin[1], oz = origin[2];
  const dx = direction[directionOffset], dy = direction[directionOffset + 1], dz = direction[directionOffset + 2];
  dst[0] = m[0] * ox + m[4] * oy + m[8] * oz + m[12];
  dst[1] = m[1] * ox + m[5] * oy + m[9] * oz + m[13];
  dst[2] = m[2] * ox + m[6] * oy + m[10] * oz + m[14];
  dst[3] = m[0] * dx + m[4] * dy + m[8] * dz;
  dst[4] = m[1] * dx + m[5] * dy + m[9] * dz;
  dst[5] = m[2] * dx + m[6] * dy + m[10] * dz;
}

/** Slab test: does the ray (origin, direction) enter box min xyz max xyz (at `o`) before `maxT`? Empty boxes: no. */
function rayHitsBox(r: Float64Array, box: Float32Array, o: number, maxT: number): boolean {
  let near = 0, far = maxT;
  for (let c = 0; c < 3; c++) {
    const lo = box[o + c], hi = box[o + 3 + c];
    if (!(lo <= hi)) return false;
    const oc = r[c], dc = r[3 + c];
    if (dc === 0) {
      if (oc < lo || oc > hi) return false;
      continue;
    }
    let t0 = (lo - oc) / dc, t1 = (hi - oc) / dc;
    if (t0 > t1) { const s = t0; t0 = t1; t1 = s; }
    if (t0 > near) near = t0;
    if (t1 < far) far = t1;
    if (near > far) return false;
  }
  return true;
}
