/**
 * A model's centres of rotation on the GPU, for centre-of-rotation skinning: one read-only
 * storage buffer (`SkinBinding.CENTERS`, WGSL `centers: array<f32>`) with every skinned
 * primitive's centres back to back, xyz float32 per vertex in the vertex order of its GPU
 * buffers, a draw's block starting at its record's `centerBase` (a vertex index). Packed once
 * the model's centres are settled (src/skin/centers-of-rotation/); until then the skin bind
 * group binds a placeholder and no centre-of-rotation pipeline draws.
 *
 * A welded primitive (gltf/topology.ts weldPrimitive: its GPU vertices merge bit-identical
 * model vertices) takes, per GPU vertex, the centre of a model vertex that became it: merged
 * vertices have the same weights, hence the same centre.
 */
import type { GltfWarning } from '../../gltf/errors.ts';
import type { Model, Primitive } from '../../gltf/model.ts';
import { readyCenters } from '../../skin/centers-of-rotation/centers.ts';
import { prepareCentersOfRotation } from '../../skin/centers-of-rotation/offthread.ts';
import { createBufferWithData, type GpuModel, type GpuPrimitive } from './upload.ts';

/**
 * One model's centres buffer, made on the first `prepare()` (centre-of-rotation skinning
 * asked for): the model's centres settled off the page's thread, then packed and uploaded.
 * `onReady` runs when the buffer exists (its owner binds it).
 */
export class GpuCenters {
  buffer: GPUBuffer | undefined;
  onReady: (() => void) | undefined;
  private prepared: Promise<void> | undefined;
  private destroyed = false;

  constructor(
    private readonly device: GPUDevice,
    private readonly model: Model,
    private readonly gpu: GpuModel,
    private readonly label: string,
    /** A primitive over the precomputation's budget (it then skins with its rest positions as centres). */
    private readonly onWarning: (warning: GltfWarning) => void,
  ) {}

  /** Resolves once `buffer` exists (at once when it does); concurrent callers share the work. */
  prepare(): Promise<void> {
    this.prepared ??= (async () => {
      await prepareCentersOfRotation(this.model, this.onWarning);
      if (this.destroyed) return;
      const data = packCenters(this.model, this.gpu, centerLayout(this.gpu));
      this.buffer = createBufferWithData(this.device, `${this.label} centres of rotation`, data, GPUBufferUsage.STORAGE);
      this.onReady?.();
    })();
    return this.prepared;
  }

  destroy(): void {
    this.destroyed = true;
    this.buffer?.destroy();
    this.buffer = undefined;
  }
}

/** Where each skinned GPU primitive's centres start (in vertices), and how many vertices they cover. */
export interface CenterLayout {
  readonly base: ReadonlyMap<GpuPrimitive, number>;
  readonly vertices: number;
}

/** The layout of `gpu`'s skinned primitives' centres (each primitive once, however many draws use it). */
export function centerLayout(gpu: GpuModel): CenterLayout {
  const base = new Map<GpuPrimitive, number>();
  let vertices = 0;
  for (const mesh of gpu.primitives) {
    for (const p of mesh) {
      if (p.influences === 0 || base.has(p)) continue;
      base.set(p, vertices);
      vertices += p.vertexCount;
    }
  }
  return { base, vertices };
}

/**
 * The centres in `layout`'s order, from the model primitives' settled centres. Throws when a
 * primitive has none settled yet (prepareCentersOfRotation first).
 */
export function packCenters(model: Model, gpu: GpuModel, layout: CenterLayout): Float32Array {
  const out = new Float32Array(Math.max(1, layout.vertices) * 3);
  model.meshes.forEach((mesh, m) => mesh.primitives.forEach((prim, p) => {
    const gp = gpu.primitives[m][p];
    const base = layout.base.get(gp);
    if (base === undefined) return;
    const centers = readyCenters(prim);
    if (!centers) throw new Error(`meshes[${m}].primitives[${p}]: its centres of rotation are not settled yet`);
    writeCenters(prim, gp.source, centers.centers, out, base * 3);
  }));
  return out;
}

/** `centers` (per vertex of `prim`) into `out` from float `at`, per vertex of `source` (prim, or its welded copy). */
function writeCenters(prim: Primitive, source: Primitive, centers: Float32Array, out: Float32Array, at: number): void {
  if (source === prim) {
    out.set(centers.subarray(0, prim.vertexCount * 3), at);
    return;
  }
  // Welded: source.indices[v] is the GPU vertex model vertex v became.
  const map = source.indices!;
  for (let v = 0; v < prim.vertexCount; v++) {
    const w = map[v];
    out[at + w * 3] = centers[v * 3];
    out[at + w * 3 + 1] = centers[v * 3 + 1];
    out[at + w * 3 + 2] = centers[v * 3 + 2];
  }
}
