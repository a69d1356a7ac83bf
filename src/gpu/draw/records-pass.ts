/**
 * Draw records of a GPU-culled crowd written on the GPU (issue #16): per frame the CPU packs
 * each instance's placement, made camera-relative in float64 — as a quaternion, translation and
 * uniform scale (32 bytes) when every placement is a similarity transform, as a Crowd's are,
 * else as three rows of float32 (48 bytes) — in one writeBuffer, and one compute dispatch
 * (shaders/records.wgsl) writes every draw's record — model and normal matrix, palette
 * offset, flags (exact normals where a palette matrix scales non-uniformly), skinned base,
 * active morph targets and weights — where draw-record-writer.ts would have written 192 bytes
 * per draw from the CPU. With a GPU pose evaluator's placements and morph weights
 * (GpuPaletteSource) nothing per instance is uploaded.
 *
 * For models without EXT_mesh_gpu_instancing nodes (`gpuRecordsApply`). A mesh node's world is
 * the rest pose's, or for mesh nodes that clips move (moving-mesh-nodes.ts) the source's
 * per-instance `meshWorlds`; morph weights are the source's per instance, or the rest weights
 * for all. Without those buffers a model whose clips move mesh nodes or animate morph weights
 * has its records written on the CPU (`needsSource`). Placements must be affine (their last
 * row 0 0 0 1). The float32 products give records within a few ulps of the CPU's float64 ones;
 * the morph targets and weights are the CPU's exactly.
 */
import { movingMeshNodes } from '../../anim/moving-mesh-nodes.ts';
import { createPose, setRestPose } from '../../anim/pose.ts';
import { TargetPath } from '../../gltf/constants.ts';
import type { Model } from '../../gltf/model.ts';
import { cullGrid } from './culling-pass.ts';
import { CULL_NO_INDEX, CULL_WORKGROUP_SIZE } from '../layouts/cull.ts';
import {
  PLACEMENT_COMPACT_FLOATS, PLACEMENT_ROW_FLOATS, PlacementForm, RECORD_DRAW_BYTES, RECORD_PARAMS_BYTES, RecordDrawWord, RecordParamsWord, RecordsBinding,
} from '../layouts/records.ts';
import { BackgroundBuild, type BuildFailure } from '../device/background-build.ts';
import { perDeviceBuild } from '../device/per-device.ts';
import { compileShaderModule } from '../device/shader-module.ts';

/** What the record pass needs of each of the Renderer's draws. */
export interface GpuRecordDraw {
  readonly meshNode: number;
  readonly nodeSlot: number;
  readonly skinned: boolean;
  readonly staticFlags: number;
  readonly instanceMatrices: Float64Array | undefined;
  readonly primitive: { readonly morphFlags: number; readonly morphBase: number; readonly morphTargets: number };
}

/** Where records read their per-instance inputs on the GPU instead of the upload (GpuPaletteSource's fields). */
export interface GpuRecordSource {
  /** Instance k's model → world mat4x4f at byte k × 64 (world space). */
  readonly placements?: GPUBuffer | undefined;
  /** Instance k's morph weights from float k × (the model's Pose.weights length), Pose.weights order. */
  readonly morphWeights?: GPUBuffer | undefined;
  /** Instance k's moving mesh nodes' model matrices from matrix k × movingMeshNodes(model).length. */
  readonly meshWorlds?: GPUBuffer | undefined;
}

/** Whether `model`'s draw records can be written on the GPU (module comment). */
export function gpuRecordsApply(draws: readonly GpuRecordDraw[]): boolean {
  return draws.every((d) => !d.instanceMatrices);
}

/** Whether a clip of `model` animates morph weights that one of `draws` applies (they then differ per instance). */
export function animatesMorphWeights(model: Model, draws: readonly GpuRecordDraw[]): boolean {
  const morphed = new Set<number>();
  for (const d of draws) if (d.primitive.morphFlags !== 0) morphed.add(d.nodeSlot);
  return model.animations.some((clip) => clip.channels.some((ch) => ch.path === TargetPath.WEIGHTS && morphed.has(ch.slot)));
}

/**
 * Per draw: RecordDraw (records.wgsl). `restWorld`: model-space rest world matrices by slot;
 * `weightOffsets`: Pose.weightOffsets; `moving`: movingMeshNodes(model). Load time.
 */
export function packRecordDraws(
  model: Model, draws: readonly GpuRecordDraw[], restWorld: Float64Array, preskinBase: Int32Array, centerBase: Int32Array, weightOffsets: Int32Array, moving: readonly number[],
): ArrayBuffer {
  const bytes = new ArrayBuffer(Math.max(1, draws.length) * RECORD_DRAW_BYTES);
  const f = new Float32Array(bytes), u = new Uint32Array(bytes);
  const words = RECORD_DRAW_BYTES / 4;
  // Palette offsets as createModelInstance lays them out: skinned mesh nodes in order.
  const paletteOffsets: number[] = [];
  let offset = 0;
  for (const mn of model.meshNodes) {
    paletteOffsets.push(mn.skin >= 0 ? offset : -1);
    if (mn.skin >= 0) offset += model.skins[mn.skin].joints.length;
  }
  draws.forEach((d, i) => {
    const o = i * words;
    for (let c = 0; c < 16; c++) f[o + RecordDrawWord.NODE_WORLD + c] = restWorld[d.nodeSlot * 16 + c];
    const mn = model.meshNodes[d.meshNode];
    u[o + RecordDrawWord.PALETTE_OFFSET] = paletteOffsets[d.meshNode] >= 0 ? paletteOffsets[d.meshNode] : CULL_NO_INDEX;
    u[o + RecordDrawWord.JOINT_COUNT] = mn.skin >= 0 ? model.skins[mn.skin].joints.length : 0;
    u[o + RecordDrawWord.STATIC_FLAGS] = d.staticFlags;
    u[o + RecordDrawWord.SKINNED] = d.skinned ? 1 : 0;
    u[o + RecordDrawWord.SKINNED_BASE] = preskinBase[i] >= 0 ? preskinBase[i] : CULL_NO_INDEX;
    u[o + RecordDrawWord.CENTER_BASE] = centerBase[i];
    // As draw-record-writer.ts: the mesh node's weights; targets beyond them weigh 0, weights beyond the targets are not read.
    const p = d.primitive;
    u[o + RecordDrawWord.MORPH_FLAGS] = p.morphFlags;
    u[o + RecordDrawWord.MORPH_BASE] = p.morphBase;
    u[o + RecordDrawWord.MORPH_TARGET_COUNT] = p.morphTargets;
    u[o + RecordDrawWord.WEIGHT_OFFSET] = weightOffsets[d.nodeSlot];
    u[o + RecordDrawWord.WEIGHT_COUNT] = p.morphFlags !== 0 ? Math.min(weightOffsets[d.nodeSlot + 1] - weightOffsets[d.nodeSlot], p.morphTargets) : 0;
    const worldIndex = moving.indexOf(d.meshNode);
    u[o + RecordDrawWord.WORLD_INDEX] = worldIndex >= 0 ? worldIndex : CULL_NO_INDEX;
  });
  return bytes;
}

/**
 * `dst[k × 12 …]` = the rows 0–2 of placement k (16 floats, column-major; identity when
 * `placements` is undefined) with its translation minus `eye`, in float64 then rounded.
 * Allocates nothing.
 */
export function packPlacementRows(placements: ArrayLike<number> | undefined, count: number, eye: ArrayLike<number>, dst: Float32Array): void {
  const ex = eye[0], ey = eye[1], ez = eye[2];
  for (let k = 0; k < count; k++) {
    const o = k * PLACEMENT_ROW_FLOATS, p = k * 16;
    if (placements) {
      dst[o] = placements[p]; dst[o + 1] = placements[p + 4]; dst[o + 2] = placements[p + 8]; dst[o + 3] = placements[p + 12] - ex;
      dst[o + 4] = placements[p + 1]; dst[o + 5] = placements[p + 5]; dst[o + 6] = placements[p + 9]; dst[o + 7] = placements[p + 13] - ey;
      dst[o + 8] = placements[p + 2]; dst[o + 9] = placements[p + 6]; dst[o + 10] = placements[p + 10]; dst[o + 11] = placements[p + 14] - ez;
    } else {
      dst[o] = 1; dst[o + 1] = 0; dst[o + 2] = 0; dst[o + 3] = -ex;
      dst[o + 4] = 0; dst[o + 5] = 1; dst[o + 6] = 0; dst[o + 7] = -ey;
      dst[o + 8] = 0; dst[o + 9] = 0; dst[o + 10] = 1; dst[o + 11] = -ez;
    }
  }
}

/**
 * Largest deviation of RᵀR from the identity (R = the placement's 3×3 over its uniform scale)
 * for a placement to travel as a quaternion: far below what a float32 matrix shows.
 */
export const SIMILARITY_TOLERANCE = 1e-6;

/**
 * The compact placement upload, when every placement is a similarity transform (rotation or
 * mirror times a uniform scale, plus a translation; affine): per instance the unit quaternion
 * of its rotation, its translation minus `eye` (float64, then rounded) and its scale (negative
 * for a mirror) into `dst[k × 8 …]`, 32 bytes. Returns false (dst partly written) as soon as one
 * placement is not; then pack the rows (packPlacementRows). Allocates nothing.
 */
export function packPlacementsCompact(placements: ArrayLike<number> | undefined, count: number, eye: ArrayLike<number>, dst: Float32Array): boolean {
  const ex = eye[0], ey = eye[1], ez = eye[2];
  for (let k = 0; k < count; k++) {
    const o = k * PLACEMENT_COMPACT_FLOATS;
    if (!placements) {
      dst[o] = 0; dst[o + 1] = 0; dst[o + 2] = 0; dst[o + 3] = 1;
      dst[o + 4] = -ex; dst[o + 5] = -ey; dst[o + 6] = -ez; dst[o + 7] = 1;
      continue;
    }
    const p = k * 16;
    if (placements[p + 3] !== 0 || placements[p + 7] !== 0 || placements[p + 11] !== 0 || placements[p + 15] !== 1) return false;
    const a0 = placements[p], a1 = placements[p + 1], a2 = placements[p + 2];
    const b0 = placements[p + 4], b1 = placements[p + 5], b2 = placements[p + 6];
    const c0 = placements[p + 8], c1 = placements[p + 9], c2 = placements[p + 10];
    const det = a0 * (b1 * c2 - b2 * c1) - b0 * (a1 * c2 - a2 * c1) + c0 * (a1 * b2 - a2 * b1);
    // The first column's length, signed like the determinant (a mirror): the checks below hold the other two to it.
    const length = Math.sqrt(a0 * a0 + a1 * a1 + a2 * a2);
    const scale = det < 0 ? -length : length;
    if (!(length > 0 && length < Infinity)) return false;
    const inv = 1 / scale;
    // R = M / scale, element m_rc at row r, column c.
    const m00 = a0 * inv, m10 = a1 * inv, m20 = a2 * inv;
    const m01 = b0 * inv, m11 = b1 * inv, m21 = b2 * inv;
    const m02 = c0 * inv, m12 = c1 * inv, m22 = c2 * inv;
    const t = SIMILARITY_TOLERANCE;
    if (Math.abs(m00 * m00 + m10 * m10 + m20 * m20 - 1) > t || Math.abs(m01 * m01 + m11 * m11 + m21 * m21 - 1) > t
      || Math.abs(m02 * m02 + m12 * m12 + m22 * m22 - 1) > t || Math.abs(m00 * m01 + m10 * m11 + m20 * m21) > t
      || Math.abs(m01 * m02 + m11 * m12 + m21 * m22) > t || Math.abs(m02 * m00 + m12 * m10 + m22 * m20) > t) return false;
    // Shepperd: the largest of w, x, y, z first, for a stable square root.
    const trace = m00 + m11 + m22;
    let x: number, y: number, z: number, w: number;
    if (trace > 0) {
      const s = Math.sqrt(trace + 1) * 2, r = 1 / s;
      w = 0.25 * s; x = (m21 - m12) * r; y = (m02 - m20) * r; z = (m10 - m01) * r;
    } else if (m00 > m11 && m00 > m22) {
      const s = Math.sqrt(1 + m00 - m11 - m22) * 2, r = 1 / s;
      w = (m21 - m12) * r; x = 0.25 * s; y = (m01 + m10) * r; z = (m02 + m20) * r;
    } else if (m11 > m22) {
      const s = Math.sqrt(1 + m11 - m00 - m22) * 2, r = 1 / s;
      w = (m02 - m20) * r; x = (m01 + m10) * r; y = 0.25 * s; z = (m12 + m21) * r;
    } else {
      const s = Math.sqrt(1 + m22 - m00 - m11) * 2, r = 1 / s;
      w = (m10 - m01) * r; x = (m02 + m20) * r; y = (m12 + m21) * r; z = 0.25 * s;
    }
    dst[o] = x; dst[o + 1] = y; dst[o + 2] = z; dst[o + 3] = w;
    dst[o + 4] = placements[p + 12] - ex; dst[o + 5] = placements[p + 13] - ey; dst[o + 6] = placements[p + 14] - ez; dst[o + 7] = scale;
  }
  return true;
}

interface RecordsPipeline {
  readonly layout: GPUBindGroupLayout;
  readonly pipeline: GPUComputePipeline;
}

/** records.wgsl's pipeline, once per device. */
const recordsPipeline = perDeviceBuild(async (device): Promise<RecordsPipeline> => {
  const B = RecordsBinding;
  const storage = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry => ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } });
  const layout = device.createBindGroupLayout({
    label: 'gpu records (group 0)',
    entries: [
      storage(B.PLACEMENTS, 'read-only-storage'), storage(B.PALETTES, 'read-only-storage'), storage(B.RECORDS, 'storage'),
      storage(B.RECORD_DRAWS, 'read-only-storage'), { binding: B.PARAMS, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform' } },
      storage(B.MORPH_WEIGHTS, 'read-only-storage'), storage(B.MESH_WORLDS, 'read-only-storage'),
    ],
  });
  // The WGSL is imported with the first crowd that writes its records here, not with the page.
  const { RECORDS_WGSL } = await import('./records-wgsl.ts');
  const module = await compileShaderModule(device, 'records.wgsl + draw-record.wgsl', RECORDS_WGSL);
  const pipeline = await device.createComputePipelineAsync({
    label: 'gpu records', layout: device.createPipelineLayout({ label: 'gpu records', bindGroupLayouts: [layout] }),
    compute: { module, entryPoint: 'writeRecords', constants: { workgroupSize: CULL_WORKGROUP_SIZE } },
  });
  return { layout, pipeline };
});

/** One model's GPU record writing on a Renderer: the static per-draw data, the placement upload, the pass. */
export class GpuRecords {
  private readonly pipeline = new BackgroundBuild('the GPU record pipeline', () => recordsPipeline(this.device));
  private readonly recordDraws: GPUBuffer;
  /** The model's rest morph weights (at least 16 bytes), every instance's when the source has none. */
  private readonly restWeights: GPUBuffer;
  private readonly weightsPerInstance: number;
  /** A clip animates weights some draw applies: without the source's morph weights the CPU must write the records. */
  private readonly animatesMorphWeights: boolean;
  /** Moving mesh nodes per instance (movingMeshNodes): without the source's meshWorlds the CPU must write the records. */
  private readonly meshStride: number;
  /** A 64-byte stand-in bound when the model has no moving mesh node (never read). */
  private readonly noMeshWorlds: GPUBuffer;
  private readonly params: GPUBuffer;
  private readonly paramData = new Uint32Array(RECORD_PARAMS_BYTES / 4);
  private readonly paramFloats = new Float32Array(this.paramData.buffer);
  private placements: GPUBuffer | undefined;
  private staging = new Float32Array(0);
  private capacity = 0;
  private bindGroup: GPUBindGroup | undefined;
  private boundPalettes: GPUBuffer | undefined;
  private boundRecords: GPUBuffer | undefined;
  private boundPlacements: GPUBuffer | undefined;
  private boundWeights: GPUBuffer | undefined;
  private boundMeshWorlds: GPUBuffer | undefined;
  private readonly grid = new Uint32Array(2);
  private readonly passDescriptor: GPUComputePassDescriptor;

  constructor(
    private readonly device: GPUDevice, model: Model, draws: readonly GpuRecordDraw[], restWorld: Float64Array, preskinBase: Int32Array,
    centerBase: Int32Array, paletteMatrices: number, preskinVertices: number, private readonly label: string,
  ) {
    this.recordDraws = device.createBuffer({ label: `${label} ${model.name} record draws`, size: Math.max(1, draws.length) * RECORD_DRAW_BYTES, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    const { weights: rest, weightOffsets } = setRestPose(model, createPose(model));
    const moving = movingMeshNodes(model);
    device.queue.writeBuffer(this.recordDraws, 0, packRecordDraws(model, draws, restWorld, preskinBase, centerBase, weightOffsets, moving));
    this.weightsPerInstance = rest.length;
    this.animatesMorphWeights = animatesMorphWeights(model, draws);
    this.restWeights = device.createBuffer({ label: `${label} ${model.name} rest morph weights`, size: Math.max(16, rest.byteLength), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    if (rest.length > 0) device.queue.writeBuffer(this.restWeights, 0, rest);
    this.meshStride = moving.length;
    this.noMeshWorlds = device.createBuffer({ label: `${label} ${model.name} mesh node matrices (none)`, size: 64, usage: GPUBufferUsage.STORAGE });
    this.params = device.createBuffer({ label: `${label} ${model.name} record params`, size: RECORD_PARAMS_BYTES, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.paramData[RecordParamsWord.PALETTE_MATRICES] = paletteMatrices;
    this.paramData[RecordParamsWord.DRAW_COUNT] = draws.length;
    this.paramData[RecordParamsWord.PRESKIN_VERTICES] = preskinVertices;
    this.passDescriptor = { label: `${label} ${model.name} gpu records` };
  }

  /**
   * Whether records from `source` are right for every instance: it has the morph weights and mesh
   * node matrices this model's clips make differ per instance (else the CPU writes the records).
   */
  servesFrom(source: GpuRecordSource): boolean {
    return (!this.animatesMorphWeights || source.morphWeights !== undefined) && (this.meshStride === 0 || source.meshWorlds !== undefined);
  }

  /**
   * Whether records for `source` need this pass: it carries per-instance morph weights or mesh
   * node matrices that this model's clips make differ per instance, so the instances' own poses
   * (the CPU writer's input) are not the drawn ones.
   */
  dependsOn(source: GpuRecordSource): boolean {
    return (this.animatesMorphWeights && source.morphWeights !== undefined) || (this.meshStride > 0 && source.meshWorlds !== undefined);
  }

  /** Whether the pipeline is built. */
  get ready(): boolean {
    return this.pipeline.ready;
  }

  /** Whether the pipeline is built; the first call starts the build (`onFailed` hears of a failure). */
  request(onFailed: BuildFailure): boolean {
    return this.pipeline.request(onFailed) !== undefined;
  }

  async prepare(): Promise<void> {
    await this.pipeline.prepare();
  }

  /**
   * Uploads the placements of `count` instances (camera-relative to `eye`) and encodes the pass
   * writing their records into `records` (d × count + k) from `palettes`. Returns the bytes
   * written to the GPU. `request` must have returned true. Allocates only when `count` grows
   * beyond every earlier frame's (or a buffer changed: a new bind group).
   * `source.placements` (a GPU pose evaluator's model → world matrices): read instead of
   * `placements`, so nothing per instance is uploaded (issue #16: the evaluator's 32-byte state
   * already carries each placement); `eye` is then subtracted on the GPU, in float32.
   * `source.morphWeights`: each instance's weights (else every instance has the rest weights);
   * `source.meshWorlds`: each instance's moving mesh nodes (servesFrom).
   * `first`: instance k reads the source's instance first + k (a chunk of a larger crowd).
   */
  encode(
    encoder: GPUCommandEncoder, queue: GPUQueue, palettes: GPUBuffer, records: GPUBuffer, count: number,
    placements: ArrayLike<number> | undefined, eye: ArrayLike<number>, exactNormals: boolean, source?: GpuRecordSource, first = 0,
  ): number {
    const { layout, pipeline } = this.pipeline.value!;
    const gpuPlacements = source?.placements, gpuWeights = source?.morphWeights;
    if (gpuPlacements && gpuPlacements.size < (first + count) * 64) {
      throw new RangeError(`GpuRecords.encode: instances ${first}–${first + count - 1} need ${(first + count) * 64} bytes of placements, "${gpuPlacements.label}" holds ${gpuPlacements.size}`);
    }
    const weightBytes = (first + count) * this.weightsPerInstance * 4;
    if (gpuWeights && gpuWeights.size < weightBytes) {
      throw new RangeError(`GpuRecords.encode: instances ${first}–${first + count - 1} need ${weightBytes} bytes of morph weights, "${gpuWeights.label}" holds ${gpuWeights.size}`);
    }
    const weightBuffer = gpuWeights ?? this.restWeights;
    const gpuWorlds = this.meshStride > 0 ? source?.meshWorlds : undefined;
    const worldBytes = (first + count) * this.meshStride * 64;
    if (gpuWorlds && gpuWorlds.size < worldBytes) {
      throw new RangeError(`GpuRecords.encode: instances ${first}–${first + count - 1} need ${worldBytes} bytes of mesh node matrices, "${gpuWorlds.label}" holds ${gpuWorlds.size}`);
    }
    const worldBuffer = gpuWorlds ?? this.noMeshWorlds;
    if (!gpuPlacements && count > this.capacity) {
      this.capacity = Math.max(count, this.capacity * 2);
      this.placements?.destroy();
      this.staging = new Float32Array(this.capacity * PLACEMENT_ROW_FLOATS);
      this.placements = this.device.createBuffer({ label: `${this.label} placements ×${this.capacity}`, size: this.staging.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      this.bindGroup = undefined;
    }
    const placementBuffer = gpuPlacements ?? this.placements!;
    if (!this.bindGroup || palettes !== this.boundPalettes || records !== this.boundRecords || placementBuffer !== this.boundPlacements || weightBuffer !== this.boundWeights
      || worldBuffer !== this.boundMeshWorlds) {
      this.boundMeshWorlds = worldBuffer;
      this.boundPalettes = palettes;
      this.boundRecords = records;
      this.boundPlacements = placementBuffer;
      this.boundWeights = weightBuffer;
      const B = RecordsBinding;
      this.bindGroup = this.device.createBindGroup({
        label: `${this.label} gpu records into ${records.label}`, layout,
        entries: [
          { binding: B.PLACEMENTS, resource: { buffer: placementBuffer } }, { binding: B.PALETTES, resource: { buffer: palettes } },
          { binding: B.RECORDS, resource: { buffer: records } }, { binding: B.RECORD_DRAWS, resource: { buffer: this.recordDraws } },
          { binding: B.PARAMS, resource: { buffer: this.params } }, { binding: B.MORPH_WEIGHTS, resource: { buffer: weightBuffer } },
          { binding: B.MESH_WORLDS, resource: { buffer: worldBuffer } },
        ],
      });
    }
    let placementBytes = 0;
    if (gpuPlacements) {
      this.paramData[RecordParamsWord.PLACEMENT_FORM] = PlacementForm.MATRICES;
      const e = RecordParamsWord.EYE;
      this.paramFloats[e] = eye[0]; this.paramFloats[e + 1] = eye[1]; this.paramFloats[e + 2] = eye[2];
    } else {
      // 32 bytes per instance when every placement is a similarity transform, else 48.
      const compact = packPlacementsCompact(placements, count, eye, this.staging);
      if (!compact) packPlacementRows(placements, count, eye, this.staging);
      placementBytes = count * (compact ? PLACEMENT_COMPACT_FLOATS : PLACEMENT_ROW_FLOATS) * 4;
      queue.writeBuffer(this.placements!, 0, this.staging.buffer, 0, placementBytes);
      this.paramData[RecordParamsWord.PLACEMENT_FORM] = compact ? PlacementForm.COMPACT : PlacementForm.ROWS;
    }
    this.paramData[RecordParamsWord.COUNT] = count;
    this.paramData[RecordParamsWord.FIRST] = first;
    this.paramData[RecordParamsWord.WEIGHT_STRIDE] = gpuWeights ? this.weightsPerInstance : 0;
    this.paramData[RecordParamsWord.MESH_STRIDE] = this.meshStride;
    this.paramData[RecordParamsWord.EXACT_NORMALS] = exactNormals ? 1 : 0;
    queue.writeBuffer(this.params, 0, this.paramData.buffer);
    cullGrid(count, this.device.limits.maxComputeWorkgroupsPerDimension, this.grid);
    if (this.grid[0] > 0) {
      const pass = encoder.beginComputePass(this.passDescriptor);
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, this.bindGroup);
      pass.dispatchWorkgroups(this.grid[0], this.grid[1]);
      pass.end();
    }
    return placementBytes + RECORD_PARAMS_BYTES;
  }

  destroy(): void {
    this.recordDraws.destroy();
    this.restWeights.destroy();
    this.noMeshWorlds.destroy();
    this.params.destroy();
    this.placements?.destroy();
  }
}
