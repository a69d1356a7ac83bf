import { paletteLayout, skinPalettes, type ModelInstance } from '../../anim/instance.ts';
import { restWorldMatrices } from '../../anim/local-to-model.ts';
import type { Model } from '../../gltf/model.ts';
import { meshNodeWorld } from '../../anim/mesh-node-world.ts';
import { skinPrimitive } from '../../skin/cpu-skin.ts';
import { weldPrimitive } from '../../gltf/topology.ts';

/** An axis-aligned box in world units, with its bounding sphere. */
export interface Bounds {
  readonly min: Float32Array;
  readonly max: Float32Array;
  readonly center: Float32Array;
  /** Half the box diagonal: a sphere around `center` containing the box. */
  readonly radius: number;
}

/**
 * World-space bounds of every vertex of the instance as currently posed (call after
 * `createModelInstance` for the rest pose): skinned primitives are skinned on the CPU
 * with the instance's palettes, then every vertex goes through its mesh node's world
 * matrix (and each EXT_mesh_gpu_instancing instance's), exactly as the vertex stage places
 * it. Load-time only (allocates).
 * A model with no vertices gets a unit box at the origin.
 */
export function computeInstanceBounds(instance: ModelInstance): Bounds {
  return posedBounds(instance.model, instance.nodeMatrices, instance.palette, instance.paletteOffsets);
}

/**
 * World-space bounds of the model's rest pose: its rest world matrices (restWorldMatrices) and
 * the palettes made from them, as computeInstanceBounds reads an instance. A VRM avatar's pose
 * steps (constraints, spring bones) do not run: at rest they move its spring joints by rounding
 * only (~1e-15 on the built-in avatars). Load-time only (allocates).
 */
export function restPoseBounds(model: Model): Bounds {
  const nodeMatrices = restWorldMatrices(model.hierarchy);
  const { offsets, matrixCount } = paletteLayout(model);
  const palette = new Float32Array(matrixCount * 16);
  skinPalettes(model, nodeMatrices, palette, offsets);
  return posedBounds(model, nodeMatrices, palette, offsets);
}

function posedBounds(model: Model, nodeMatrices: Float64Array, palette: Float32Array, paletteOffsets: Int32Array): Bounds {
  const min = Float32Array.of(Infinity, Infinity, Infinity);
  const max = Float32Array.of(-Infinity, -Infinity, -Infinity);
  const m = new Float64Array(16);
  model.meshNodes.forEach((mn, i) => {
    // An EXT_mesh_gpu_instancing node: every instance's vertices, through node world · instance.
    const instances = mn.instances ? mn.instances.length / 16 : 1;
    for (let k = 0; k < instances; k++) {
      meshNodeWorld(model, nodeMatrices, i, k, m);
      for (const modelPrim of model.meshes[mn.mesh].primitives) {
        // Each distinct vertex once (the upload's weld): the same box, a quarter of the Fox's skinning.
        const prim = weldPrimitive(modelPrim);
        const offset = paletteOffsets[i];
        // Bounds read only positions: skinning normals and tangents too cost ~1/4 of framing a model.
        const positions = offset >= 0 && prim.influences > 0
          ? skinPrimitive(prim, palette, { positions: new Float64Array(prim.vertexCount * 3), normals: undefined, tangents: undefined }, offset).positions
          : prim.positions;
        growBox(positions, prim.vertexCount, m, min, max);
      }
    }
  });
  if (!(min[0] <= max[0])) {
    min.fill(-0.5);
    max.fill(0.5);
  }
  const center = Float32Array.of((min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2);
  const radius = Math.max(1e-6, Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) / 2);
  return { min, max, center, radius };
}

/**
 * Grows min…max (float32) by `count` xyz points through the affine part of column-major `m`.
 * Unrolled, with the matrix and the box in locals: this runs cold (once per framing sample),
 * where a loop over the components and float32 loads and stores per point were most of
 * posedBounds' cost. Rounding to float32 is monotonic, so rounding the extremes once at the
 * end stores what rounding every new extreme did.
 */
function growBox(points: ArrayLike<number>, count: number, m: Float64Array, min: Float32Array, max: Float32Array): void {
  const m0 = m[0], m1 = m[1], m2 = m[2], m4 = m[4], m5 = m[5], m6 = m[6];
  const m8 = m[8], m9 = m[9], m10 = m[10], m12 = m[12], m13 = m[13], m14 = m[14];
  let minX = min[0], minY = min[1], minZ = min[2], maxX = max[0], maxY = max[1], maxZ = max[2];
  for (let v = 0; v < count; v++) {
    const x = points[v * 3], y = points[v * 3 + 1], z = points[v * 3 + 2];
    const wx = m0 * x + m4 * y + m8 * z + m12;
    const wy = m1 * x + m5 * y + m9 * z + m13;
    const wz = m2 * x + m6 * y + m10 * z + m14;
    if (wx < minX) minX = wx;
    if (wx > maxX) maxX = wx;
    if (wy < minY) minY = wy;
    if (wy > maxY) maxY = wy;
    if (wz < minZ) minZ = wz;
    if (wz > maxZ) maxZ = wz;
  }
  min[0] = minX; min[1] = minY; min[2] = minZ;
  max[0] = maxX; max[1] = maxY; max[2] = maxZ;
}
