/**
 * Bounds, frustum culling and compaction of a crowd on the GPU (issue #16), for palettes
 * that are already in a GPU buffer (a GPU pose evaluator's, or a Crowd's uploaded).
 *
 * Load time: the model's SkinnedBounds (src/anim/skinned-bounds.ts: per dominant-joint group,
 * bind-space boxes per joint with weight caps; per mesh node, the box of what is drawn
 * unskinned) go into two storage buffers, with per draw what its indirect arguments need.
 * Per frame, two compute dispatches (shaders/cull.wgsl), nothing read back:
 * - `cull`, one invocation per instance: its box by SkinnedBoundsJob's grouped linear math
 *   through its palettes and its draw records' model matrices (camera-relative), the frustum
 *   test of InstanceCuller (src/gpu/draw/cpu-culling.ts) against the camera-relative planes; a visible
 *   instance takes a slot from an atomic counter and its records are copied there;
 * - `writeArgs`, one invocation per draw: drawIndexedIndirect / drawIndirect arguments, the
 *   counter's instances from record d × count (so the render passes index the compacted records
 *   exactly as the CPU-culled ones: firstInstance needs the 'indirect-first-instance' feature).
 * The counter is copied to a readback ring (count-readback.ts): `visibleCount`, a frame or
 * two late, for display.
 *
 * The order of the compacted instances is the atomics' (not nearest first): opaque pixels are
 * the same (the depth test keeps the nearest fragment whatever the order, but for exact depth
 * ties); blended surfaces are not sorted between instances on this path.
 *
 * Linear skinning only (the dual-quaternion bound pads by angles between joints, not ported),
 * and no EXT_mesh_gpu_instancing mesh nodes (their box is per node instance): `gpuCullingSupported`.
 */
import { createSkinnedBounds, BOX_FLOATS } from '../../anim/skinned-bounds.ts';
import type { Model } from '../../gltf/model.ts';
import { FRUSTUM_FLOATS } from '../../math/frustum.ts';
import { CountReadback } from '../device/count-readback.ts';
import {
  CULL_DRAW_BYTES, CULL_MESH_NODE_BYTES, CULL_NO_INDEX, CULL_PAIR_BYTES, CULL_PARAMS_BYTES, CULL_WORKGROUP_SIZE, CullBinding,
  CullDrawWord, CullMeshNodeWord, CullPairWord, CullParamsWord, INDIRECT_ARGS_BYTES,
} from '../layouts/cull.ts';
import { BackgroundBuild, type BuildFailure } from '../device/background-build.ts';
import { perDeviceBuild } from '../device/per-device.ts';
import { compileShaderModule } from '../device/shader-module.ts';

/** The WebGPU feature the compacted indirect draws need (a firstInstance other than 0). */
export const INDIRECT_FIRST_INSTANCE: GPUFeatureName = 'indirect-first-instance';

/** What the culler needs of each of the Renderer's draws. */
export interface GpuCullDraw {
  readonly meshNode: number;
  readonly primitive: { readonly drawCount: number; readonly indexBuffer?: GPUBuffer | undefined };
}

/** Whether `model`'s instances can be culled on `device`: the feature, and no EXT_mesh_gpu_instancing node. */
export function gpuCullingSupported(device: GPUDevice, model: Model): boolean {
  return device.features.has(INDIRECT_FIRST_INSTANCE) && model.meshNodes.every((mn) => !mn.instances);
}

/** Static per-model data of cull.wgsl: mesh nodes, pair boxes, draws. Load time (allocates). */
export function packCullData(model: Model, draws: readonly GpuCullDraw[]): { meshNodes: ArrayBuffer; pairs: ArrayBuffer; draws: ArrayBuffer } {
  const bounds = createSkinnedBounds(model);
  const meshCount = model.meshNodes.length;
  // Pairs of every mesh node back to back (a node sharing its entry with another repeats it: few do).
  let pairCount = 0;
  for (let i = 0; i < meshCount; i++) pairCount += bounds.entries[bounds.entryOfMeshNode[i]].pairJoints.length;
  const nodes = new ArrayBuffer(Math.max(1, meshCount) * CULL_MESH_NODE_BYTES);
  const nf = new Float32Array(nodes), nu = new Uint32Array(nodes);
  const pairs = new ArrayBuffer(Math.max(1, pairCount) * CULL_PAIR_BYTES);
  const pf = new Float32Array(pairs), pu = new Uint32Array(pairs);
  const nodeWords = CULL_MESH_NODE_BYTES / 4, pairWords = CULL_PAIR_BYTES / 4;
  let pair = 0, paletteOffset = 0;
  for (let i = 0; i < meshCount; i++) {
    const mn = model.meshNodes[i];
    const entry = bounds.entries[bounds.entryOfMeshNode[i]];
    const o = i * nodeWords;
    const rigid = entry.rigidBox[3] >= 0;
    for (let c = 0; c < 3; c++) {
      nf[o + CullMeshNodeWord.RIGID_CENTER + c] = rigid ? entry.rigidBox[c] : 0;
      nf[o + CullMeshNodeWord.RIGID_HALF + c] = rigid ? entry.rigidBox[3 + c] : 0;
    }
    nu[o + CullMeshNodeWord.HAS_RIGID] = rigid ? 1 : 0;
    nu[o + CullMeshNodeWord.FIRST_PAIR] = pair;
    // Palette offsets as createModelInstance and the batch lay them out: skinned nodes in order.
    nu[o + CullMeshNodeWord.PALETTE_OFFSET] = mn.skin >= 0 ? paletteOffset : CULL_NO_INDEX;
    if (mn.skin >= 0) paletteOffset += model.skins[mn.skin].joints.length;
    const first = draws.findIndex((d) => d.meshNode === i);
    nu[o + CullMeshNodeWord.RECORD_DRAW] = first >= 0 ? first : CULL_NO_INDEX;
    const { groupStart, pairJoints, pairCaps, pairBoxes } = entry;
    const base = pair;
    for (let g = 0; g + 1 < groupStart.length; g++) {
      for (let p = groupStart[g]; p < groupStart[g + 1]; p++) {
        const q = pair * pairWords;
        for (let c = 0; c < 3; c++) {
          pf[q + CullPairWord.CENTER + c] = pairBoxes[p * BOX_FLOATS + c];
          pf[q + CullPairWord.HALF + c] = pairBoxes[p * BOX_FLOATS + 3 + c];
        }
        pf[q + CullPairWord.CAP] = pairCaps[p];
        pu[q + CullPairWord.JOINT] = pairJoints[p];
        pu[q + CullPairWord.GROUP_END] = p === groupStart[g] ? base + groupStart[g + 1] : 0;
        pair++;
      }
    }
    nu[o + CullMeshNodeWord.PAIR_END] = pair;
  }
  const info = new ArrayBuffer(Math.max(1, draws.length) * CULL_DRAW_BYTES);
  const iu = new Uint32Array(info);
  draws.forEach((d, i) => {
    iu[i * 2 + CullDrawWord.ELEMENT_COUNT] = d.primitive.drawCount;
    iu[i * 2 + CullDrawWord.INDEXED] = d.primitive.indexBuffer ? 1 : 0;
  });
  return { meshNodes: nodes, pairs, draws: info };
}

interface CullPipelines {
  readonly layout: GPUBindGroupLayout;
  readonly cull: GPUComputePipeline;
  readonly args: GPUComputePipeline;
}

/** cull.wgsl's two pipelines, once per device. */
export const cullPipelines = perDeviceBuild(async (device): Promise<CullPipelines> => {
  const storage = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } });
  const B = CullBinding;
  const layout = device.createBindGroupLayout({
    label: 'gpu culling (group 0)',
    entries: [
      storage(B.PALETTES, 'read-only-storage'), storage(B.SOURCE_DRAWS, 'read-only-storage'), storage(B.CULLED_DRAWS, 'storage'),
      storage(B.MESH_NODES, 'read-only-storage'), storage(B.PAIRS, 'read-only-storage'), storage(B.DRAW_INFO, 'read-only-storage'),
      storage(B.ARGS, 'storage'), storage(B.VISIBLE, 'storage'),
      { binding: B.PARAMS, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform' } },
    ],
  });
  // The WGSL is imported with the first crowd culled here, not with the page.
  const { CULL_WGSL } = await import('./cull-wgsl.ts');
  const module = await compileShaderModule(device, 'cull.wgsl + draw-record.wgsl', CULL_WGSL);
  const pipelineLayout = device.createPipelineLayout({ label: 'gpu culling', bindGroupLayouts: [layout] });
  const constants = { workgroupSize: CULL_WORKGROUP_SIZE };
  const [cull, args] = await Promise.all([
    device.createComputePipelineAsync({ label: 'gpu culling: bounds, frustum, compaction', layout: pipelineLayout, compute: { module, entryPoint: 'cull', constants } }),
    device.createComputePipelineAsync({ label: 'gpu culling: indirect arguments', layout: pipelineLayout, compute: { module, entryPoint: 'writeArgs', constants } }),
  ]);
  return { layout, cull, args };
});

/** Workgroups along x, then y, covering `n` invocations of `workgroupSize` (x at most `maxPerDimension`). */
export function cullGrid(n: number, maxPerDimension: number, out: Uint32Array, workgroupSize = CULL_WORKGROUP_SIZE): Uint32Array {
  const groups = Math.ceil(n / workgroupSize);
  out[0] = Math.min(groups, maxPerDimension);
  out[1] = out[0] > 0 ? Math.ceil(groups / out[0]) : 0;
  return out;
}

/**
 * One model's GPU culling on a Renderer: the static bounds buffers, the compacted records
 * (as many as the source records), the indirect arguments, the counter and its readback.
 * `resize` follows the renderer's per-instance buffers; `encode` runs a frame.
 */
export class GpuCuller {
  /** Per draw, INDIRECT_ARGS_BYTES: what `drawIndexedIndirect` / `drawIndirect` read at offset draw × INDIRECT_ARGS_BYTES. */
  readonly args: GPUBuffer;
  /** The compacted draw records (draw d, visible instance j at d × count + j). */
  culledDraws: GPUBuffer | undefined;
  private readonly pipelines = new BackgroundBuild('the GPU culling pipelines', () => cullPipelines(this.device));
  private readonly meshNodes: GPUBuffer;
  private readonly pairs: GPUBuffer;
  private readonly drawInfo: GPUBuffer;
  private readonly visible: GPUBuffer;
  private readonly params: GPUBuffer;
  private readonly paramData = new ArrayBuffer(CULL_PARAMS_BYTES);
  private readonly paramF32 = new Float32Array(this.paramData);
  private readonly paramU32 = new Uint32Array(this.paramData);
  /** A readback ring per chunk of a crowd drawn in chunks (chunk 0: the whole crowd); made as chunks first appear. */
  private readonly readbacks: CountReadback[] = [];
  /** The chunk of the frame being encoded (its readback starts at afterSubmit). */
  private encodedChunk = 0;
  private bindGroup: GPUBindGroup | undefined;
  private boundPalettes: GPUBuffer | undefined;
  private boundDraws: GPUBuffer | undefined;
  private readonly grid = new Uint32Array(2);
  private readonly passDescriptor: GPUComputePassDescriptor;

  constructor(private readonly device: GPUDevice, model: Model, private readonly draws: readonly GpuCullDraw[], paletteMatrices: number, private readonly label: string) {
    const data = packCullData(model, draws);
    const upload = (what: string, bytes: ArrayBuffer): GPUBuffer => {
      const b = device.createBuffer({ label: `${label} ${model.name} culling ${what}`, size: bytes.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      device.queue.writeBuffer(b, 0, bytes);
      return b;
    };
    this.meshNodes = upload('mesh nodes', data.meshNodes);
    this.pairs = upload('pair boxes', data.pairs);
    this.drawInfo = upload('draws', data.draws);
    this.args = device.createBuffer({
      label: `${label} ${model.name} indirect draw arguments`, size: Math.max(1, draws.length) * INDIRECT_ARGS_BYTES,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.INDIRECT,
    });
    this.visible = device.createBuffer({ label: `${label} ${model.name} visible instances`, size: 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    this.params = device.createBuffer({ label: `${label} ${model.name} culling params`, size: CULL_PARAMS_BYTES, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.readbacks.push(new CountReadback(device, `${label} ${model.name} visible instances`));
    this.passDescriptor = { label: `${label} ${model.name} gpu culling` };
    this.paramU32[CullParamsWord.PALETTE_MATRICES] = paletteMatrices;
    this.paramU32[CullParamsWord.DRAW_COUNT] = draws.length;
    this.paramU32[CullParamsWord.MESH_NODE_COUNT] = model.meshNodes.length;
  }

  /** Whether the pipelines are built; the first call starts the build (`onFailed` hears of a failure). */
  request(onFailed: BuildFailure): boolean {
    return this.pipelines.request(onFailed) !== undefined;
  }

  /** Builds the pipelines; frames cull on the GPU once this resolves. */
  async prepare(): Promise<void> {
    await this.pipelines.prepare();
  }

  /** Sizes the compacted records like `sourceDraws` (ModelDraws' capacity grew); returns the new buffer. */
  resize(sourceDraws: GPUBuffer): GPUBuffer {
    this.culledDraws?.destroy();
    this.culledDraws = this.device.createBuffer({
      label: `${this.label} culled ${sourceDraws.label}`, size: sourceDraws.size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC,
    });
    this.bindGroup = undefined;
    return this.culledDraws;
  }

  /** Visible instances of a frame (of its chunk `chunk`) read back, a frame or two late; -1 before the first. */
  visibleCount(chunk = 0): number {
    return this.readbacks[chunk]?.last ?? -1;
  }

  /** Frames (of chunk 0) read back so far. */
  get readCount(): number {
    return this.readbacks[0].readCount;
  }

  /**
   * Encodes the frame's culling of `count` instances: `palettes` and `sourceDraws` (records of
   * instance k at d × count + k, written this frame) in, compacted records and indirect arguments
   * out. `planes`: FRUSTUM_FLOATS, the camera-relative frustum the records' model matrices are in;
   * `cull` false keeps every instance; `chunk`: which chunk of a crowd drawn in chunks this is (its
   * count is read back apart). Returns the bytes written to the GPU (the parameters). `request`
   * must have returned true. Allocates nothing (a new bind group when a buffer changed, a
   * readback ring the first time a chunk index is seen).
   */
  encode(encoder: GPUCommandEncoder, queue: GPUQueue, palettes: GPUBuffer, sourceDraws: GPUBuffer, count: number, planes: Float32Array, cull: boolean, chunk = 0): number {
    const pipelines = this.pipelines.value!;
    if (!this.culledDraws || this.culledDraws.size !== sourceDraws.size) throw new Error('GpuCuller.encode: resize to the source records first');
    if (!this.bindGroup || palettes !== this.boundPalettes || sourceDraws !== this.boundDraws) {
      this.bindGroup = this.createBindGroup(pipelines.layout, palettes, sourceDraws);
    }
    for (let i = 0; i < FRUSTUM_FLOATS; i++) this.paramF32[CullParamsWord.PLANES + i] = planes[i];
    this.paramU32[CullParamsWord.COUNT] = count;
    this.paramU32[CullParamsWord.CULL] = cull ? 1 : 0;
    queue.writeBuffer(this.params, 0, this.paramData);
    encoder.clearBuffer(this.visible);
    const pass = encoder.beginComputePass(this.passDescriptor);
    pass.setBindGroup(0, this.bindGroup);
    cullGrid(count, this.device.limits.maxComputeWorkgroupsPerDimension, this.grid);
    if (this.grid[0] > 0) {
      pass.setPipeline(pipelines.cull);
      pass.dispatchWorkgroups(this.grid[0], this.grid[1]);
    }
    pass.setPipeline(pipelines.args);
    pass.dispatchWorkgroups(Math.ceil(Math.max(1, this.draws.length) / CULL_WORKGROUP_SIZE));
    pass.end();
    while (this.readbacks.length <= chunk) this.readbacks.push(new CountReadback(this.device, `${this.label} visible instances, chunk ${this.readbacks.length}`));
    this.encodedChunk = chunk;
    this.readbacks[chunk].copy(encoder, this.visible, 0);
    return CULL_PARAMS_BYTES;
  }

  /** After the frame was submitted: starts reading its counter back. */
  afterSubmit(): void {
    this.readbacks[this.encodedChunk].afterSubmit();
  }

  private createBindGroup(layout: GPUBindGroupLayout, palettes: GPUBuffer, sourceDraws: GPUBuffer): GPUBindGroup {
    this.boundPalettes = palettes;
    this.boundDraws = sourceDraws;
    const B = CullBinding;
    return this.device.createBindGroup({
      label: `${this.label} gpu culling of ${palettes.label}`,
      layout,
      entries: [
        { binding: B.PALETTES, resource: { buffer: palettes } },
        { binding: B.SOURCE_DRAWS, resource: { buffer: sourceDraws } },
        { binding: B.CULLED_DRAWS, resource: { buffer: this.culledDraws! } },
        { binding: B.MESH_NODES, resource: { buffer: this.meshNodes } },
        { binding: B.PAIRS, resource: { buffer: this.pairs } },
        { binding: B.DRAW_INFO, resource: { buffer: this.drawInfo } },
        { binding: B.ARGS, resource: { buffer: this.args } },
        { binding: B.VISIBLE, resource: { buffer: this.visible } },
        { binding: B.PARAMS, resource: { buffer: this.params } },
      ],
    });
  }

  destroy(): void {
    this.meshNodes.destroy();
    this.pairs.destroy();
    this.drawInfo.destroy();
    this.args.destroy();
    this.visible.destroy();
    this.params.destroy();
    this.culledDraws?.destroy();
    for (const r of this.readbacks) r.destroy();
  }
}
