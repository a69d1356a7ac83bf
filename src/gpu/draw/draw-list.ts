/**
 * The Renderer's draws of a model: one per primitive of each mesh node (and per instance of an
 * EXT_mesh_gpu_instancing node), with the pipeline description of each, the materials of a
 * KHR_materials_variants variant, and the runs of them one call can draw (model-draws.ts keeps them).
 */
import type { MeshNode, Model } from '../../gltf/model.ts';
import { restWorldMatrices } from '../../anim/local-to-model.ts';
import { maxAxisScale, multiplyMat4 } from '../../math/trs.ts';
import type { GpuMaterial, GpuModel, GpuPrimitive } from '../model/upload.ts';
import { DrawFlag } from '../layouts/bindings.ts';
import type { MeshPipelineDesc } from '../pipelines/mesh.ts';
import type { VertexLayouts } from '../model/vertex-layout.ts';

/** One draw: a primitive of a mesh node. Its index i gives its draw records, i × instances + k. */
export interface Draw {
  readonly meshNode: number;
  /** Index of the primitive in its mesh. */
  readonly primitiveIndex: number;
  /** Hierarchy slot of the mesh node (its world matrix in instance.nodeMatrices). */
  readonly nodeSlot: number;
  readonly primitive: GpuPrimitive;
  readonly material: GpuMaterial;
  /** Its lit pipeline on the vertex path without shadows; DrawPipelineTable keys set the method and shadows. */
  readonly desc: MeshPipelineDesc;
  readonly vertexSlots: number;
  readonly skinned: boolean;
  readonly staticFlags: number;
  /** Triangles per instance (0 for points and lines). */
  readonly triangles: number;
  /**
   * EXT_mesh_gpu_instancing: the mesh node's instance matrices (MeshNode.instances), of which
   * this draw places the one at `instanceOffset` (world = node world · that matrix). A mesh
   * node with N instances has N draws per primitive. Undefined for a node drawn once.
   */
  readonly instanceMatrices: Float64Array | undefined;
  readonly instanceOffset: number;
}

/** Index into `gpu.materials` of what primitive `p` of mesh `mesh` draws with in `variant` (-1: its own). */
function variantMaterial(model: Model, gpu: GpuModel, mesh: number, p: number, variant: number): number {
  const own = gpu.primitives[mesh][p].material;
  const table = variant >= 0 ? model.meshes[mesh].primitives[p].variantMaterials : undefined;
  if (!table) return own;
  // -1: the glTF default material, the last entry.
  return table[variant] >= 0 ? table[variant] : gpu.materials.length - 1;
}

/**
 * One draw per primitive of each mesh node, in mesh node order; an EXT_mesh_gpu_instancing
 * node has one per primitive and instance, the instances of a primitive consecutive (so
 * that `encode` draws them in one call), with the materials of `variant`. Also the rest pose's radius.
 */
export function createDraws(model: Model, gpu: GpuModel, format: GPUTextureFormat, variant: number): { draws: Draw[]; restRadius: number } {
  const draws: Draw[] = [];
  const restWorld = restWorldMatrices(model.hierarchy);
  const instanceWorld = new Float64Array(16);
  let restRadius = 0;
  for (let i = 0; i < model.meshNodes.length; i++) {
    const mn = model.meshNodes[i];
    const nodeSlot = model.hierarchy.slotOf[mn.node];
    const instances = mn.instances;
    const primitives = gpu.primitives[mn.mesh];
    for (let p = 0; p < primitives.length; p++) {
      const primitive = primitives[p];
      for (let k = 0; k < (instances ? instances.length / 16 : 1); k++) {
        const world = instances ? multiplyMat4(restWorld, instances, instanceWorld, nodeSlot * 16, k * 16, 0) : restWorld;
        const wo = instances ? 0 : nodeSlot * 16;
        // glTF §3.7.4: a mirroring world transform flips the winding. Decided at rest.
        const mirrored = determinant3(world, wo) < 0;
        draws.push(createDraw(gpu, format, i, mn, p, primitive, variantMaterial(model, gpu, mn.mesh, p, variant), nodeSlot, mirrored, instances, k * 16));
        restRadius = Math.max(restRadius, primitive.radius * maxAxisScale(world, wo));
      }
    }
  }
  return { draws, restRadius };
}

function createDraw(
  gpu: GpuModel, format: GPUTextureFormat, i: number, mn: MeshNode, p: number, primitive: GpuPrimitive, materialIndex: number, nodeSlot: number,
  mirrored: boolean, instanceMatrices: Float64Array | undefined, instanceOffset: number,
): Draw {
  const skinned = mn.skin >= 0 && primitive.influences > 0;
  const material = gpu.materials[materialIndex];
  const desc = surfaceDesc(primitive, material, format, skinned, mirrored);
  return {
    meshNode: i,
    primitiveIndex: p,
    nodeSlot,
    primitive,
    material,
    desc,
    vertexSlots: skinned ? primitive.vertexBuffers.length : primitive.surfaceSlotCount,
    skinned,
    staticFlags: (primitive.hasNormals ? 0 : DrawFlag.FLAT_NORMALS) | (primitive.hasTangents ? DrawFlag.HAS_TANGENTS : 0),
    triangles: primitive.topology === 'triangle-list' ? Math.floor(primitive.drawCount / 3)
      : primitive.topology === 'triangle-strip' ? Math.max(0, primitive.drawCount - 2) : 0,
    instanceMatrices,
    instanceOffset,
  };
}

/**
 * Runs in `order` of draws that one call can draw: the instance draws of one primitive of
 * an EXT_mesh_gpu_instancing node, consecutive in `order` and by index, with one winding.
 */
export function instanceRuns(draws: readonly Draw[], order: Int32Array): Int32Array {
  const runs = new Int32Array(order.length).fill(1);
  for (let s = 0; s < order.length; s += runs[s]) {
    const d = draws[order[s]];
    if (!d.instanceMatrices) continue;
    let n = 1;
    while (s + n < order.length && order[s + n] === order[s] + n) {
      const e = draws[order[s + n]];
      if (e.instanceMatrices !== d.instanceMatrices || e.primitive !== d.primitive || e.desc.frontFace !== d.desc.frontFace) break;
      n++;
    }
    runs[s] = n;
  }
  return runs;
}

function determinant3(m: Float64Array, o: number): number {
  return m[o] * (m[o + 5] * m[o + 10] - m[o + 6] * m[o + 9])
    - m[o + 4] * (m[o + 1] * m[o + 10] - m[o + 2] * m[o + 9])
    + m[o + 8] * (m[o + 1] * m[o + 6] - m[o + 2] * m[o + 5]);
}

/** What of a primitive its lit pipeline depends on. */
export type SurfacePrimitive = VertexLayouts & Pick<GpuPrimitive, 'influences' | 'topology' | 'indexFormat' | 'morphFlags'>;

/** What of a material its lit pipeline depends on. */
export type SurfaceMaterial = Pick<GpuMaterial, 'alphaMode' | 'doubleSided' | 'path' | 'features' | 'blending'>;

/**
 * The lit pipeline (vertex path, no shadows) of `primitive` drawn with `material` into `format`,
 * `skinned` by its node and `mirrored` by its world transform: of an uploaded draw (createDraw), or
 * forecast from the file's JSON before the upload (pipeline-forecast.ts), so that both key alike.
 */
export function surfaceDesc(primitive: SurfacePrimitive, material: SurfaceMaterial, format: GPUTextureFormat, skinned: boolean, mirrored: boolean): MeshPipelineDesc {
  return {
    vertexLayoutKey: skinned ? primitive.skinnedLayoutKey : primitive.rigidLayoutKey,
    vertexLayouts: skinned ? primitive.skinnedLayouts : primitive.rigidLayouts,
    influences: skinned ? primitive.influences : 0,
    topology: primitive.topology,
    stripIndexFormat: primitive.topology.endsWith('strip') ? primitive.indexFormat : undefined,
    alphaMode: material.alphaMode,
    doubleSided: material.doubleSided,
    frontFace: mirrored ? 'cw' : 'ccw',
    colorFormat: format,
    morphed: primitive.morphFlags !== 0,
    leanVertexLayouts: skinned ? primitive.leanSkinnedLayouts : primitive.leanRigidLayouts,
    materialPath: material.path,
    materialFeatures: material.features,
    shadows: false,
    blendedDepthWrite: material.blending.depthWrite,
  };
}
