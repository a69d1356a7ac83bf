/**
 * The Renderer's per-model draw state: one draw per primitive of each mesh node, the
 * order they are drawn in (solid draws grouped by pipeline then material; blended draws
 * sorted back to front every frame), their pipeline table, and the per-instance buffers
 * (palettes, draw records, the skin bind group) sized by the most instances drawn so far.
 */
import { SKINNING_METHODS, usesDqPalette, type SkinningMethod } from '../../anim/skinning-method.ts';
import type { GltfWarning } from '../../gltf/errors.ts';
import type { Model } from '../../gltf/model.ts';
import { restWorldMatrices } from '../../anim/local-to-model.ts';
import { InstanceCuller } from './cpu-culling.ts';
import { DEBUG_LINE_LENGTH_FRACTION } from '../layouts/debug.ts';
import type { DebugViewDraws } from '../debug/view-draws.ts';
import { debugViewCode } from '../debug/debug-code.ts';
import { ALL_DEBUG_VIEWS } from '../debug/views.ts';
import { createDraws, instanceRuns, type Draw } from './draw-list.ts';
import { transmitsLight } from '../pipelines/pbr-extensions-path.ts';
import { DrawPipelineTable } from './draw-pipelines.ts';
import { DRAW_RECORD_SIZE, DRAW_RECORD_WORDS, DrawRecordArray, DrawRecordWord } from '../layouts/draw-record.ts';
import type { GpuMaterial, GpuModel } from '../model/upload.ts';
import type { DqPalettePass } from './dq-palette-pass.ts';
import { centerLayout, GpuCenters } from '../model/center-buffer.ts';
import { INDIRECT_ARGS_BYTES } from '../layouts/cull.ts';
import type { GpuCuller } from './culling-pass.ts';
import type { GpuRecords, GpuRecordSource } from './records-pass.ts';
import { groundFootprint, type GroundDisc, type GroundFootprint } from '../frame/ground.ts';
import { BindGroup, PALETTE_MATRIX_BYTES, PALETTE_MATRIX_FLOATS, SkinBinding } from '../layouts/bindings.ts';
import { BackgroundBuild, type BuildFailure } from '../device/background-build.ts';
import { instancesPerBinding, type AllocationLimits } from '../device/limits.ts';
import { materialFeaturesOf, materialPathOf, type MeshPipelines } from '../pipelines/mesh.ts';
import type { PreskinBuffers, PreskinSharedBuffers } from './preskin.ts';
import { preskinLayout } from './preskin-layout.ts';
import { createShadowCasterBounds, type ShadowCasterBounds, type ShadowCasterPipelines } from '../frame/shadow-map.ts';

/**
 * The GPU culling and record passes (culling-pass.ts, records-pass.ts): only frames given a
 * GpuPaletteSource (crowds evaluated on the GPU) run them, so their code is imported by the first
 * such frame (or `prepareGpuPasses`), once per page, not with the renderer. Until it is there
 * frames draw as they do while the passes' pipelines build: unculled, their records written on
 * the CPU (or, for a source whose per-instance inputs only the GPU records take, not yet).
 */
/** The dual-quaternion palette pass's code, loaded when a model is first prepared for a method that reads DqJoint entries. */
const dqPaletteCode = new BackgroundBuild('the dual-quaternion palette pass\'s code', () => import('./dq-palette-pass.ts'));

const gpuPassCode = new BackgroundBuild('the GPU culling and record passes\' code', () => Promise.all([import('./culling-pass.ts'), import('./records-pass.ts')]));

/** What the Renderer lends its models. */
export interface ModelDrawsContext {
  readonly device: GPUDevice;
  readonly label: string;
  readonly format: GPUTextureFormat;
  readonly limits: AllocationLimits;
  readonly meshPipelines: MeshPipelines;
  readonly casterPipelines: ShadowCasterPipelines;
  /** Bound as the skinned vertices on the vertex path, and as the centres of rotation until they are ready (a storage binding cannot be empty). */
  readonly skinnedPlaceholder: GPUBuffer;
  /** What preparing centre-of-rotation skinning reports (a primitive over the precomputation's budget). */
  readonly onWarning: (warning: GltfWarning) => void;
}

/** A model's DqPalettePass, once a method that reads DqJoint entries was prepared. */
interface DqPaletteHolder { pass: DqPalettePass | undefined }

/**
 * What a model's bounds and casters reach, from its data alone. The culler's is made while its
 * pipelines compile (every frame reads it); the ground's and the shadow casters' only when frames
 * will draw shadows or the ground, else by the first frame that does: without either, none ever
 * needs them, and the load is CPU-bound (docs/performance.md).
 */
interface ModelReach {
  readonly culler: InstanceCuller;
  groundFootprint?: GroundFootprint;
  shadowCasters?: ShadowCasterBounds;
}

export class ModelDraws {
  readonly draws: readonly Draw[];
  /** Opaque and masked draws, grouped by pipeline then material (fixed order). */
  readonly solidOrder: Int32Array;
  /** Whether a draw transmits light (KHR_materials_transmission): frames then run the transmission pass. */
  readonly transmissive: boolean;
  /**
   * Per entry of `solidOrder` that starts a call: how many entries the call draws (1, or the
   * consecutive instance draws of one EXT_mesh_gpu_instancing primitive, whose records are
   * contiguous: one call for all of them).
   */
  readonly solidRuns: Int32Array;
  /** Blended draws (draw indices). */
  readonly blendDraws: Int32Array;
  /** Per draw: its blended draw order (GpuMaterial.blending.queue): blended draws go by it, then back to front. */
  readonly blendQueue: Int32Array;
  /** Entries of `solidOrder` (and their `solidRuns`) whose material draws an outline (MaterialPath.outlines), drawn after the solid surfaces. */
  readonly solidOutlines: Int32Array;
  /** Per draw: 1 when its material draws an outline. */
  readonly hasOutline: Uint8Array;
  /** Joint matrices of one instance (all its skinned mesh nodes). */
  readonly paletteMatrices: number;
  /** Vertices and triangles one instance's draws transform and rasterise (RenderStats). */
  readonly surfaceVertices: number;
  readonly surfaceTriangles: number;
  /** The skinning method frames use (its pipelines are built): the setting once it is ready. */
  skinning: SkinningMethod;
  /** Per mesh node: 1 when its palette needs exact normals this frame (reused per instance). */
  readonly exactNormals: Uint8Array;
  /** NORMALS/TANGENTS line length when the setting is 0: a fraction of the rest radius. */
  readonly autoLineLength: number;
  /** The debug views' draws, made when their code is there (`requestDebug`, `prepareDebug`). */
  debug: DebugViewDraws | undefined;
  /** Most instances whose palettes and draw records fit one storage binding: more are drawn in chunks. */
  readonly maxInstances: number;
  /** World bounds, frustum culling and the front-to-back order of the instances. */
  readonly culler: InstanceCuller;
  /** Where the ground disc goes (ground.ts); see ModelReach for when it is made. */
  get groundFootprint(): GroundFootprint {
    return this.reach.groundFootprint ??= groundFootprint(this.model);
  }
  /** Load-time reach of the shadow casters (shadow-map.ts); see ModelReach for when it is made. */
  get shadowCasters(): ShadowCasterBounds {
    return this.reach.shadowCasters ??= createShadowCasterBounds(this.model);
  }
  /** Per draw: its first vertex in an instance's block of skinned vertices (-1 rigid), and the block's size (preskin.ts). */
  readonly preskinBase: Int32Array;
  /** Per draw: its first vertex in the centres of rotation (model/center-buffer.ts; 0 for rigid draws). */
  readonly centerBase: Int32Array;
  /** The model's centres of rotation on the GPU, made when centre-of-rotation skinning is first prepared. */
  readonly centers: GpuCenters;
  /** DqJoint entries from GPU palettes (a GPU-evaluated crowd), for the methods that read them (made when one is first prepared). */
  get dqPalettes(): DqPalettePass | undefined {
    return this.dq.pass;
  }
  readonly preskinVertices: number;
  /** The compute path's buffers, made when its pipelines are. */
  preskin: PreskinBuffers | undefined;
  /** The KHR_materials_variants variant the draws' materials come from (-1: the file's own). */
  readonly variant: number;

  /** Instances the buffers below hold. */
  capacity = 0;
  records!: DrawRecordArray;
  drawBuffer!: GPUBuffer;
  paletteBuffer!: GPUBuffer;
  /**
   * Every instance's palettes back to back, for one writeBuffer: copied for several
   * instances, converted to DqJoint entries for dual-quaternion skinning (unused for one
   * linear instance, whose palette is written as it is).
   */
  paletteStaging!: Float32Array;
  skinBindGroup!: GPUBindGroup;
  /** GPU culling (requestGpuCulling): its compacted records, and the skin bind group over them. */
  gpuCuller: GpuCuller | undefined;
  /** Draw records written on the GPU (requestGpuRecords), for GPU-culled frames of models they apply to. */
  private gpuRecords: GpuRecords | undefined;
  private gpuRecordsChecked = false;
  culledDrawBuffer: GPUBuffer | undefined;
  culledSkinBindGroup: GPUBindGroup | undefined;
  /** The palettes bound (paletteBuffer or `external`), and a GpuPaletteSource's buffer bound instead of paletteBuffer. */
  private boundPalettes!: GPUBuffer;
  private external: GPUBuffer | undefined;
  /** Blended draw records (draw × instances + instance); re-sorted back to front every frame. */
  blendOrder!: Int32Array;
  /** Entries of blendOrder in use, and the instance count they were made for. */
  blendCount = 0;
  private blendInstances = 0;
  /** View-space depth by draw record. */
  private blendDepth!: Float32Array;
  /** What `encode` has bound in the pass so far. */
  private boundPipeline: GPURenderPipeline | undefined;
  private boundMaterial: GpuMaterial | undefined;
  private boundDraw = -1;
  /** Set by `destroy`: debug views whose code arrives later are not made. */
  private destroyed = false;

  /**
   * The draws of `model` as uploaded in `gpu`, with the lit pipelines of `skinning` built and buffers for one instance.
   * `shadowsOrGround`: frames will draw shadows or the ground (their reach is made now, see ModelReach).
   */
  static async create(ctx: ModelDrawsContext, model: Model, gpu: GpuModel, skinning: SkinningMethod, variant = -1, shadowsOrGround = false): Promise<ModelDraws> {
    const { draws, restRadius } = createDraws(model, gpu, ctx.format, variant);
    let created: ModelDraws | undefined;
    const centers = new GpuCenters(ctx.device, model, gpu, `${ctx.label} ${model.name}`, ctx.onWarning);
    const dq: DqPaletteHolder = { pass: undefined };
    // Nothing can ask for the compute path before `create` returns the table's owner. The
    // methods that read DqJoint entries wait for the conversion pass, and centres of rotation
    // for the centres too, as for a shader compile.
    const prepareMethod = async (method: SkinningMethod) => {
      if (usesDqPalette(method)) {
        const { DqPalettePass } = await dqPaletteCode.prepare();
        dq.pass ??= new DqPalettePass(ctx.device, `${ctx.label} ${model.name}`);
        await dq.pass.prepare();
      }
      if (method === 'center-of-rotation') await centers.prepare();
    };
    const pipelines = new DrawPipelineTable(ctx, draws, (code) => created!.createPreskin(code), prepareMethod);
    const compiled = pipelines.ensure(skinning, 'vertex', false);
    // The model's CPU-side reach while the pipelines compile (a first frame waits for them).
    const reach: ModelReach = {
      culler: new InstanceCuller(model),
      ...(shadowsOrGround && { groundFootprint: groundFootprint(model), shadowCasters: createShadowCasterBounds(model) }),
    };
    const { surface } = await compiled;
    created = new ModelDraws(ctx, model, gpu, draws, restRadius, pipelines, surface, skinning, variant, centers, dq, reach);
    return created;
  }

  /**
   * The draws of `from`'s model with the materials of `variant` (KHR_materials_variants;
   * -1: the file's own), sharing `from`'s upload (buffers, textures, material bind groups).
   * Resolves once every pipeline `from` has built (paths, shadows, debug views) is built for
   * the new materials too, so frames can switch without a frame that lacks one.
   */
  static async switched(ctx: ModelDrawsContext, from: ModelDraws, variant: number): Promise<ModelDraws> {
    const next = await ModelDraws.create(ctx, from.model, from.gpu, from.skinning, variant, from.reach.shadowCasters !== undefined);
    try {
      await Promise.all([
        next.pipelines.ensureBuiltIn(from.pipelines),
        ...SKINNING_METHODS.map((m) => next.prepareDebug(from.debugReadyFor(m), m)),
      ]);
    } catch (e) {
      next.destroy(true);
      throw e;
    }
    return next;
  }

  private constructor(
    private readonly ctx: ModelDrawsContext,
    readonly model: Model,
    readonly gpu: GpuModel,
    draws: readonly Draw[],
    restRadius: number,
    readonly pipelines: DrawPipelineTable,
    surface: readonly GPURenderPipeline[],
    skinning: SkinningMethod,
    variant: number,
    centers: GpuCenters,
    private readonly dq: DqPaletteHolder,
    private readonly reach: ModelReach,
  ) {
    this.draws = draws;
    this.centers = centers;
    this.skinning = skinning;
    this.variant = variant;
    // Draws that share a pipeline for one method share it for the other (the keys differ in the method alone).
    const pipelineIds = new Map<GPURenderPipeline, number>();
    const materialIds = new Map<GpuMaterial, number>();
    draws.forEach((d, i) => {
      if (!pipelineIds.has(surface[i])) pipelineIds.set(surface[i], pipelineIds.size);
      if (!materialIds.has(d.material)) materialIds.set(d.material, materialIds.size);
    });
    const solid: number[] = [];
    const blend: number[] = [];
    draws.forEach((d, i) => (d.material.alphaMode === 'BLEND' ? blend : solid).push(i));
    // Opaque before masked (MToon's render queues), then fewest state changes: group by pipeline, then by material.
    const masked = (i: number): number => (draws[i].material.alphaMode === 'MASK' ? 1 : 0);
    solid.sort((a, b) => (masked(a) - masked(b)) || (pipelineIds.get(surface[a])! - pipelineIds.get(surface[b])!)
      || (materialIds.get(draws[a].material)! - materialIds.get(draws[b].material)!) || a - b);
    this.transmissive = draws.some((d) => transmitsLight(d.desc));
    this.solidOrder = Int32Array.from(solid);
    this.solidRuns = instanceRuns(draws, this.solidOrder);
    this.blendDraws = Int32Array.from(blend);
    this.blendQueue = Int32Array.from(draws, (d) => d.material.blending.queue);
    this.hasOutline = Uint8Array.from(draws, (d) => (materialPathOf(d.desc).outlines(materialFeaturesOf(d.desc)) ? 1 : 0));
    const outlined: number[] = [];
    for (let s = 0; s < this.solidOrder.length; s += this.solidRuns[s]) if (this.hasOutline[this.solidOrder[s]]) outlined.push(s);
    this.solidOutlines = Int32Array.from(outlined);
    this.surfaceVertices = draws.reduce((n, d) => n + d.primitive.vertexCount, 0);
    this.surfaceTriangles = draws.reduce((n, d) => n + d.triangles, 0);

    let paletteMatrices = 0;
    for (const mn of model.meshNodes) if (mn.skin >= 0) paletteMatrices += model.skins[mn.skin].joints.length;
    this.paletteMatrices = paletteMatrices;
    this.maxInstances = instancesPerBinding(ctx.limits, [paletteMatrices * PALETTE_MATRIX_BYTES, draws.length * DRAW_RECORD_SIZE], `${ctx.label} ${model.name}`);
    const centerBases = centerLayout(gpu).base;
    this.centerBase = Int32Array.from(draws, (d) => (d.skinned ? centerBases.get(d.primitive)! : 0));
    const layout = preskinLayout(draws);
    this.preskinBase = layout.drawBase;
    this.preskinVertices = layout.verticesPerInstance;
    this.preskin = undefined;
    this.exactNormals = new Uint8Array(model.meshNodes.length);
    this.autoLineLength = Math.max(restRadius, 1e-6) * DEBUG_LINE_LENGTH_FRACTION;
    this.culler = reach.culler;
    this.ensureCapacity(1);
    // Centres made later (a method switch) are bound as they arrive.
    centers.onReady = () => this.bind();
  }

  /**
   * From the frame path: starts building the debug views of `mask` for `method` (their code
   * first, once per page); frames draw them once ready. Allocates only when it starts something.
   */
  requestDebug(mask: number, method: SkinningMethod, onFailed: BuildFailure): void {
    if ((mask & ALL_DEBUG_VIEWS) === 0) return;
    const code = debugViewCode.request(onFailed);
    if (code) this.debugDraws(code)?.request(mask, method, onFailed);
  }

  /** Builds the debug views of `mask` for `method` (their code first); frames draw them once this resolves. */
  async prepareDebug(mask: number, method: SkinningMethod): Promise<void> {
    if ((mask & ALL_DEBUG_VIEWS) === 0) return;
    await this.debugDraws(await debugViewCode.prepare())?.prepare(mask, method);
  }

  /** The debug views' draws, made from their code the first time (none once destroyed). */
  private debugDraws(code: NonNullable<typeof debugViewCode.value>): DebugViewDraws | undefined {
    if (!this.destroyed) this.debug ??= new code.DebugViewDraws({ ...this.ctx, debugPipelines: code.debugPipelines(this.ctx.device) }, this.model, this.draws);
    return this.destroyed ? undefined : this.debug;
  }

  /** DebugView bits ready to draw with `method`. */
  debugReadyFor(method: SkinningMethod): number {
    return this.debug?.readyFor(method) ?? 0;
  }

  /** Grows the per-instance buffers to hold `instances` (doubling); allocates only when it grows. */
  ensureCapacity(instances: number): void {
    if (instances <= this.capacity) return;
    const capacity = Math.min(this.maxInstances, Math.max(instances, this.capacity * 2));
    const { device, label } = this.ctx;
    const { model, draws } = this;
    this.drawBuffer?.destroy();
    this.paletteBuffer?.destroy();
    this.records = new DrawRecordArray(draws.length * capacity);
    this.drawBuffer = device.createBuffer({
      label: `${label} ${model.name} draw records ×${capacity}`,
      size: this.records.buffer.byteLength,
      // COPY_SRC: records written on the GPU (draw/records-pass.ts) can be read back.
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC,
    });
    // A storage binding cannot be empty: a model without skins still gets one matrix.
    this.paletteBuffer = device.createBuffer({
      label: `${label} ${model.name} joint palettes ×${capacity}`,
      size: Math.max(PALETTE_MATRIX_BYTES, this.paletteMatrices * PALETTE_MATRIX_BYTES * capacity),
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
    });
    this.paletteStaging = new Float32Array(this.paletteMatrices * PALETTE_MATRIX_FLOATS * capacity);
    this.capacity = capacity;
    this.bind();
    this.blendOrder = new Int32Array(this.blendDraws.length * capacity);
    this.blendDepth = new Float32Array(draws.length * capacity);
    this.blendCount = 0;
    this.blendInstances = 0;
  }

  /**
   * Binds `palettes` (a GpuPaletteSource's buffer, in the linear layout) as the palettes every
   * pass reads instead of `paletteBuffer` (undefined: back to it). Remakes the bind groups only
   * when the buffer changes.
   */
  usePalettes(palettes: GPUBuffer | undefined): void {
    const wanted = palettes ?? this.paletteBuffer;
    if (wanted === this.boundPalettes) return;
    this.external = palettes;
    this.bind();
  }

  /** The palettes the passes read now: `paletteBuffer`, or the buffer `usePalettes` bound. */
  get palettes(): GPUBuffer {
    return this.boundPalettes;
  }

  /**
   * The model's GPU culling (draw/culling-pass.ts), when the device and model allow it and its
   * pipelines are built; the first call starts building them (frames draw unculled meanwhile).
   */
  requestGpuCulling(onFailed: BuildFailure): GpuCuller | undefined {
    if (!this.gpuCuller) {
      const code = gpuPassCode.request(onFailed);
      if (!code || !code[0].gpuCullingSupported(this.ctx.device, this.model)) return undefined;
      this.gpuCuller = new code[0].GpuCuller(this.ctx.device, this.model, this.draws, this.paletteMatrices, `${this.ctx.label}`);
      this.bind();
    }
    return this.gpuCuller.request(onFailed) ? this.gpuCuller : undefined;
  }

  /**
   * The model's GPU record writing (draw/records-pass.ts), when it applies to the model and its
   * pipeline is built; the first call starts building it (frames write records on the CPU meanwhile).
   */
  requestGpuRecords(onFailed: BuildFailure): GpuRecords | undefined {
    if (!this.gpuRecordsChecked) {
      const code = gpuPassCode.request(onFailed);
      if (!code) return undefined;
      this.gpuRecordsChecked = true;
      if (code[1].gpuRecordsApply(this.draws)) {
        this.gpuRecords = new code[1].GpuRecords(
          this.ctx.device, this.model, this.draws, restWorldMatrices(this.model.hierarchy), this.preskinBase, this.centerBase, this.paletteMatrices, this.preskinVertices,
          `${this.ctx.label} ${this.model.name}`,
        );
      }
    }
    return this.gpuRecords?.request(onFailed) ? this.gpuRecords : undefined;
  }

  /**
   * Whether frames from `source` must wait for GPU record writing (requested here) to be built: the
   * source carries per-instance mesh matrices or morph weights (GpuRecords.dependsOn), so the
   * instances' own poses, the CPU writer's input, are not the crowd's.
   */
  awaitsGpuRecords(source: GpuRecordSource, onFailed: BuildFailure): boolean {
    this.requestGpuRecords(onFailed);
    // Before the passes' code is there: whether the source has per-instance inputs it might need.
    if (!this.gpuRecordsChecked) return source.morphWeights !== undefined || source.meshWorlds !== undefined;
    return this.gpuRecords !== undefined && !this.gpuRecords.ready && this.gpuRecords.dependsOn(source);
  }

  /**
   * Imports the GPU culling and record passes' code and builds both passes for this model (frames
   * given a GpuPaletteSource use them from then on); resolves false when the device (no
   * 'indirect-first-instance') or the model (EXT_mesh_gpu_instancing nodes) cannot be culled on the GPU.
   */
  async prepareGpuPasses(onFailed: BuildFailure): Promise<boolean> {
    await gpuPassCode.prepare();
    const culler = this.requestGpuCulling(onFailed) ?? this.gpuCuller;
    if (!culler) return false;
    this.requestGpuRecords(onFailed);
    await Promise.all([culler.prepare(), this.gpuRecords?.prepare()]);
    return true;
  }

  /** The skin bind groups (and the compute path's and the culler's buffers) over the current buffers. */
  private bind(): void {
    const { device, label } = this.ctx;
    const name = `${label} ${this.model.name}`;
    this.boundPalettes = this.external ?? this.paletteBuffer;
    const group = (draws: GPUBuffer, what: string): GPUBindGroup => device.createBindGroup({
      label: `${name} palettes, ${what} and morph deltas ×${this.capacity}`,
      layout: this.ctx.meshPipelines.skinLayout,
      entries: [
        { binding: SkinBinding.PALETTE, resource: { buffer: this.boundPalettes } },
        { binding: SkinBinding.DRAWS, resource: { buffer: draws } },
        { binding: SkinBinding.MORPH_DELTAS, resource: { buffer: this.gpu.morphDeltas } },
        { binding: SkinBinding.SKINNED_VERTICES, resource: { buffer: this.ctx.skinnedPlaceholder } },
        { binding: SkinBinding.CENTERS, resource: { buffer: this.centers.buffer ?? this.ctx.skinnedPlaceholder } },
      ],
    });
    this.skinBindGroup = group(this.drawBuffer, 'draws');
    if (this.gpuCuller) {
      if (this.culledDrawBuffer?.size !== this.drawBuffer.size || this.gpuCuller.culledDraws !== this.culledDrawBuffer) {
        this.culledDrawBuffer = this.gpuCuller.resize(this.drawBuffer);
      }
      this.culledSkinBindGroup = group(this.culledDrawBuffer, 'culled draws');
    }
    this.preskin?.resize(this.capacity, this.preskinInputs(), this.ctx.meshPipelines.skinLayout);
  }

  /** The compute path's buffers, when its first pipelines are built (then grown with the rest). */
  private createPreskin(code: typeof import('./preskin.ts')): void {
    if (this.preskin) return;
    this.preskin = new code.PreskinBuffers(this.ctx.device, this.model, this.draws, this.ctx.label);
    this.preskin.resize(this.capacity, this.preskinInputs(), this.ctx.meshPipelines.skinLayout);
  }

  private preskinInputs(): PreskinSharedBuffers {
    return {
      palette: this.boundPalettes, draws: this.drawBuffer, morphDeltas: this.gpu.morphDeltas, culledDraws: this.culledDrawBuffer,
      centers: this.centers.buffer ?? this.ctx.skinnedPlaceholder,
    };
  }

  /**
   * By blended draw order (`blendQueue`: MToon's render queues), then back to front by
   * view-space depth of each (draw, instance)'s bounds centre, from this frame's draw records
   * (camera-relative) and the rotation of the view matrix `v`; insertion sort, nearly sorted
   * from the last frame.
   */
  sortBlended(count: number, v: Float32Array): void {
    const blendDraws = this.blendDraws;
    if (blendDraws.length === 0) return;
    const order = this.blendOrder;
    if (this.blendInstances !== count) {
      let e = 0;
      for (let b = 0; b < blendDraws.length; b++) for (let k = 0; k < count; k++) order[e++] = blendDraws[b] * count + k;
      this.blendCount = e;
      this.blendInstances = count;
    }
    const n = this.blendCount;
    const depth = this.blendDepth;
    const f32 = this.records.f32;
    for (let e = 0; e < n; e++) {
      const record = order[e];
      const d = this.draws[(record / count) | 0];
      const c = d.primitive.center;
      // The record's model matrix (placement included) was written this frame.
      const mo = record * DRAW_RECORD_WORDS + DrawRecordWord.MODEL;
      const x = f32[mo] * c[0] + f32[mo + 4] * c[1] + f32[mo + 8] * c[2] + f32[mo + 12];
      const y = f32[mo + 1] * c[0] + f32[mo + 5] * c[1] + f32[mo + 9] * c[2] + f32[mo + 13];
      const z = f32[mo + 2] * c[0] + f32[mo + 6] * c[1] + f32[mo + 10] * c[2] + f32[mo + 14];
      // View-space z: more negative is farther away.
      depth[record] = v[2] * x + v[6] * y + v[10] * z + v[14];
    }
    if (n < 2) return;
    const queue = this.blendQueue;
    for (let k = 1; k < n; k++) {
      const record = order[k];
      const z = depth[record];
      const q = queue[(record / count) | 0];
      let j = k - 1;
      // By queue (MToon's render queues), then back to front.
      while (j >= 0) {
        const qj = queue[(order[j] / count) | 0];
        if (qj < q || (qj === q && depth[order[j]] <= z)) break;
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = record;
    }
  }

  /**
   * Encodes the draws of `count` instances into the frame pass (frame and skin groups set):
   * solid draws one instanced call each, then `ground` (it blends at its rim), then blended
   * draws one call per (draw, instance) in `blendOrder`. `pipelines[i]` is draw i's.
   * `outlines` (MeshVariant 'outline' pipelines, null where a draw has none; undefined draws no
   * outline): a solid draw's outline follows the solid surfaces, a blended one's its own surface.
   * `indirect` (a GPU-culled frame: draw/culling-pass.ts): every draw, blended ones too (then not
   * sorted between instances), is one indirect call with its arguments there.
   * Returns the draw calls made. Allocates nothing.
   */
  encode(
    pass: GPURenderPassEncoder, count: number, pipelines: readonly GPURenderPipeline[], ground: GroundDisc | undefined, indirect?: GPUBuffer,
    outlines?: readonly (GPURenderPipeline | null)[],
  ): number {
    this.boundPipeline = undefined;
    this.boundMaterial = undefined;
    this.boundDraw = -1;
    let calls = 0;
    const hasOutline = this.hasOutline;
    if (indirect) {
      const solid = this.solidOrder, blend = this.blendDraws;
      for (let s = 0; s < solid.length; s++) this.drawIndirect(pass, pipelines, solid[s], indirect);
      if (outlines) {
        for (let s = 0; s < solid.length; s++) {
          if (hasOutline[solid[s]]) { this.drawIndirect(pass, outlines as readonly GPURenderPipeline[], solid[s], indirect); calls++; }
        }
      }
      if (ground) {
        calls += ground.encode(pass);
        this.boundPipeline = undefined;
      }
      for (let b = 0; b < blend.length; b++) {
        this.drawIndirect(pass, pipelines, blend[b], indirect);
        if (outlines && hasOutline[blend[b]]) { this.drawIndirect(pass, outlines as readonly GPURenderPipeline[], blend[b], indirect); calls++; }
      }
      return calls + solid.length + blend.length;
    }
    const solid = this.solidOrder;
    const runs = this.solidRuns;
    let solidCalls = 0;
    for (let s = 0; s < solid.length; s += runs[s]) {
      // Draws i … i + n − 1 of `count` instances each: records i × count … (i + n) × count − 1.
      this.draw(pass, pipelines, solid[s], count * runs[s], solid[s] * count);
      solidCalls++;
    }
    if (outlines) {
      const outlined = this.solidOutlines;
      for (let o = 0; o < outlined.length; o++) {
        const s = outlined[o];
        this.draw(pass, outlines as readonly GPURenderPipeline[], solid[s], count * runs[s], solid[s] * count);
        solidCalls++;
      }
    }
    if (ground) {
      calls += ground.encode(pass);
      this.boundPipeline = undefined;
    }
    const order = this.blendOrder;
    for (let e = 0; e < this.blendCount; e++) {
      const index = (order[e] / count) | 0;
      this.draw(pass, pipelines, index, 1, order[e]);
      if (outlines && hasOutline[index]) { this.draw(pass, outlines as readonly GPURenderPipeline[], index, 1, order[e]); calls++; }
    }
    return calls + solidCalls + this.blendCount;
  }

  /**
   * The opaque scene of the transmission pass (transmission-pass.ts): the solid draws that have
   * a pipeline in `pipelines` (DrawPipelines.transmission: none for transmissive ones), as
   * `encode` draws them (frame and skin groups set). Returns the draw calls. Allocates nothing.
   */
  encodeTransmissionSources(pass: GPURenderPassEncoder, count: number, pipelines: readonly (GPURenderPipeline | null)[], indirect: GPUBuffer | undefined): number {
    this.boundPipeline = undefined;
    this.boundMaterial = undefined;
    this.boundDraw = -1;
    const solid = this.solidOrder, runs = this.solidRuns;
    // Non-null where drawn: only those entries are read.
    const drawn = pipelines as readonly GPURenderPipeline[];
    let calls = 0;
    for (let s = 0; s < solid.length; s += runs[s]) {
      if (pipelines[solid[s]] === null) continue;
      if (indirect) {
        for (let r = 0; r < runs[s]; r++) this.drawIndirect(pass, drawn, solid[s + r], indirect);
        calls += runs[s];
      } else {
        this.draw(pass, drawn, solid[s], count * runs[s], solid[s] * count);
        calls++;
      }
    }
    return calls;
  }

  /** Draws draw `index` with its indirect arguments in `args` (GPU culling), setting only the state that changed. */
  private drawIndirect(pass: GPURenderPassEncoder, pipelines: readonly GPURenderPipeline[], index: number, args: GPUBuffer): void {
    this.bindDraw(pass, pipelines, index);
    if (this.draws[index].primitive.indexBuffer) pass.drawIndexedIndirect(args, index * INDIRECT_ARGS_BYTES);
    else pass.drawIndirect(args, index * INDIRECT_ARGS_BYTES);
  }

  /** Draws `instances` instances of draw `index` from record `firstRecord`, setting only the state that changed. */
  private draw(pass: GPURenderPassEncoder, pipelines: readonly GPURenderPipeline[], index: number, instances: number, firstRecord: number): void {
    this.bindDraw(pass, pipelines, index);
    const p = this.draws[index].primitive;
    if (p.indexBuffer) pass.drawIndexed(p.drawCount, instances, 0, 0, firstRecord);
    else pass.draw(p.drawCount, instances, 0, firstRecord);
  }

  /** Sets draw `index`'s pipeline, material and buffers where they changed. */
  private bindDraw(pass: GPURenderPassEncoder, pipelines: readonly GPURenderPipeline[], index: number): void {
    const d = this.draws[index];
    const pipeline = pipelines[index];
    if (pipeline !== this.boundPipeline) {
      this.boundPipeline = pipeline;
      pass.setPipeline(pipeline);
    }
    if (d.material !== this.boundMaterial) {
      this.boundMaterial = d.material;
      pass.setBindGroup(BindGroup.MATERIAL, d.material.bindGroup);
    }
    const p = d.primitive;
    if (this.boundDraw !== index) {
      this.boundDraw = index;
      for (let s = 0; s < d.vertexSlots; s++) pass.setVertexBuffer(s, p.vertexBuffers[s], p.vertexOffsets[s], p.vertexSizes[s]);
      if (p.indexBuffer) pass.setIndexBuffer(p.indexBuffer, p.indexFormat!);
    }
  }

  /** Frees what this made; the upload too unless `keepUpload` (another ModelDraws shares it: `switched`). */
  destroy(keepUpload = false): void {
    this.centers.destroy();
    this.dq.pass?.destroy();
    this.destroyed = true;
    this.debug?.destroy();
    if (!keepUpload) this.gpu.destroy();
    this.drawBuffer.destroy();
    this.paletteBuffer.destroy();
    this.preskin?.destroy();
    this.gpuCuller?.destroy();
    this.gpuRecords?.destroy();
  }
}
