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
        for (let v = 0; v < prim.vertexCount; v++) {
          const x = positions[v * 3], y = positions[v * 3 + 1], z = positions[v * 3 + 2];
          for (let c = 0; c < 3; c++) {
            const w = m[c] * x + m[4 + c] * y + m[8 + c] * z + m[12 + c];
            if (w < min[c]) min[c] = w;
            if (w > max[c]) max[c] = w;
          }
        }
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
