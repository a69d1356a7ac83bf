import { dqPaletteFromMatrices } from '../anim/dq-palette.ts';
import type { ModelInstance } from '../anim/instance.ts';
import type { GltfWarning } from '../gltf/errors.ts';
import type { Model } from '../gltf/model.ts';
import { asSkinningMethod, DEFAULT_SKINNING, type SkinningMethod } from '../anim/skinning-method.ts';
import type { Camera } from './camera.ts';
import { InstanceCuller } from './culling.ts';
import { BoundsOverlay } from './debug-bounds.ts';
import { DEBUG_LINE_LENGTH_FRACTION, DEBUG_LINE_WIDTH_FRACTION, DEBUG_LINE_WIDTH_MIN } from './debug-layouts.ts';
import { debugPipelines, type DebugPipelines } from './debug-pipelines.ts';
import { ALL_DEBUG_VIEWS, DebugViewDraws } from './debug-view-draws.ts';
import { DebugView } from './debug-views.ts';
import { DRAW_RECORD_SIZE, DRAW_RECORD_WORDS, DrawRecordArray, DrawRecordWord, MAT3_COLUMN_WORDS } from './draw-record.ts';
import { FrameUniformsData } from './frame-uniforms.ts';
import { createRenderStats, defaultRenderSettings, type RendererOptions, type RenderSettings, type RenderStats } from './render-settings.ts';
import { createDefaultResources, uploadModel, type DefaultResources, type GpuMaterial, type GpuModel, type GpuPrimitive } from './gpu-model.ts';
import { GpuTimer } from './gpu-timer.ts';
import { cameraRelativeModel, viewRotation } from './camera-relative.ts';
import { BindGroup, DEPTH_FORMAT, DrawFlag, FrameBinding, MSAA_SAMPLE_COUNT, PALETTE_MATRIX_BYTES, PALETTE_MATRIX_FLOATS, SkinBinding } from './layouts.ts';
import { allocationLimits, instancesPerBinding, type AllocationLimits } from './limits.ts';
import { mipmapGenerator, type MipmapGenerator } from './mipmaps.ts';
import { MAX_ACTIVE_MORPH_TARGETS, selectMorphTargets } from './morph-targets.ts';
import { DrawPipelineTable, type DrawPipelines } from './draw-pipelines.ts';
import { isSrgbFormat, MeshPipelines, type MeshPipelineDesc } from './pipelines.ts';
import { paletteHasNonUniformScale } from './skin-normals.ts';
import { browserImageDecoder, type ImageDecoder } from './textures.ts';
import { groundDisc, groundFootprint, placeGround, type GroundDisc, type GroundFootprint } from './ground.ts';
import { chooseSkinningPath, preskinLayout, PreskinScene, type SkinningPath } from './preskin.ts';
import { createShadowCasterBounds, DEFAULT_SHADOW_MAP_SIZE, shadowCasterPipelines, ShadowMap, type ShadowCasterBounds, type ShadowCasterPipelines } from './shadow-map.ts';
import { mat4 } from 'wgpu-matrix';
import { length3, maxAxisScale, multiplyMat4 } from '../math/trs.ts';

/** One draw: a primitive of a mesh node. Its index i gives its draw records, i × instances + k. */
interface Draw {
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
}

/** Everything sized by the current model, and by the most instances drawn so far (`capacity`). */
interface Scene {
  readonly model: Model;
  readonly gpu: GpuModel;
  readonly draws: readonly Draw[];
  /** Opaque and masked draws, grouped by pipeline then material (fixed order). */
  readonly solidOrder: Int32Array;
  /** Blended draws (draw indices). */
  readonly blendDraws: Int32Array;
  /** Joint matrices of one instance (all its skinned mesh nodes). */
  readonly paletteMatrices: number;
  /** The skinning method frames use (its pipelines are built): the setting once it is ready. */
  skinning: SkinningMethod;
  readonly pipelines: DrawPipelineTable;
  /** Per mesh node: 1 when its palette needs exact normals this frame (reused per instance). */
  readonly exactNormals: Uint8Array;
  /** NORMALS/TANGENTS line length when the setting is 0: a fraction of the rest radius. */
  readonly autoLineLength: number;
  readonly debug: DebugViewDraws;
  /** Most instances whose palettes and draw records fit one storage binding: more are drawn in chunks. */
  readonly maxInstances: number;
  /** World bounds, frustum culling and the front-to-back order of the instances. */
  readonly culler: InstanceCuller;
  /** Instances the buffers below hold. */
  capacity: number;
  records: DrawRecordArray;
  drawBuffer: GPUBuffer;
  paletteBuffer: GPUBuffer;
  /**
   * Every instance's palettes back to back, for one writeBuffer: copied for several
   * instances, converted to DqJoint entries for dual-quaternion skinning (unused for one
   * linear instance, whose palette is written as it is).
   */
  paletteStaging: Float32Array;
  skinBindGroup: GPUBindGroup;
  /** Where the ground disc goes (ground.ts). */
  readonly groundFootprint: GroundFootprint;
  /** Load-time reach of the shadow casters (shadow-map.ts). */
  readonly shadowCasters: ShadowCasterBounds;
  /** Per draw: its first vertex in an instance's block of skinned vertices (-1 rigid), and the block's size (preskin.ts). */
  readonly preskinBase: Int32Array;
  readonly preskinVertices: number;
  /** The compute path's buffers, made when its pipelines are. */
  preskin: PreskinScene | undefined;
  /** Blended draw records (draw × instances + instance); re-sorted back to front every frame. */
  blendOrder: Int32Array;
  /** Entries of blendOrder in use, and the instance count they were made for. */
  blendCount: number;
  blendInstances: number;
  /** View-space depth by draw record. */
  blendDepth: Float32Array;
}

/** The method a setting asks for: anything but a known method is linear (settings are read per frame, never thrown on). */
function skinningOf(setting: SkinningMethod): SkinningMethod {
  return asSkinningMethod(setting) ?? DEFAULT_SKINNING;
}

function srgbToLinear(c: number): number {
  return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
}

const NORMAL_DETERMINANT_EPSILON = 1e-30;

/**
 * Draws model instances per frame: 4× MSAA, depth, resolved into any texture.
 *
 * GPU data by update rate: group 0 the frame uniforms (one writeBuffer per frame),
 * group 1 the palettes of every instance's skinned mesh nodes back to back (one
 * writeBuffer; matrices, or DqJoint entries converted here for dual-quaternion skinning),
 * one draw record per draw and instance (one writeBuffer; it carries the draw's morph
 * weights) and the model's morph target deltas (written once at upload), group 2 per
 * material (written once at upload). Every instance of a draw is one instanced draw call:
 * draw i's records are i × instances + k, so `firstInstance = i × instances`.
 * `render` allocates nothing of its own: descriptors are preallocated and reused; the
 * command encoder, pass and (for a new target) its view are the only new objects.
 */
export class Renderer {
  readonly settings: RenderSettings = defaultRenderSettings();
  /** Updated in place by every frame. */
  readonly stats: RenderStats = createRenderStats();
  readonly format: GPUTextureFormat;
  /** Whether `format` encodes sRGB in hardware (else the shader does). */
  private readonly srgbTarget: boolean;
  private readonly label: string;
  private readonly pipelines: MeshPipelines;
  private readonly debugPipelines: DebugPipelines;
  private readonly boundsOverlay: BoundsOverlay;
  private readonly mipmaps: MipmapGenerator;
  private readonly defaults: DefaultResources;
  private readonly imageDecoder: ImageDecoder;
  private readonly timer: GpuTimer | undefined;
  private readonly frameData = new FrameUniformsData();
  /** World → clip of the frame (the uniforms hold it camera-relative): what culling tests against. */
  private readonly worldViewProjection = new Float32Array(16);
  private readonly frameBuffer: GPUBuffer;
  private frameBindGroup: GPUBindGroup;
  private readonly limits: AllocationLimits;
  private readonly onWarning: (warning: GltfWarning) => void;
  private readonly shadow: ShadowMap;
  private readonly casterPipelines: ShadowCasterPipelines;
  private readonly ground: GroundDisc;
  /** Bound as the skinned vertices on the vertex path (a storage binding cannot be empty). */
  private readonly skinnedPlaceholder: GPUBuffer;
  private lastPath: SkinningPath = 'vertex';
  /** The shadow map view `frameBindGroup` binds. */
  private boundShadowView: GPUTextureView;
  private scene: Scene | undefined;
  /** Set by renderInChunks: this pass continues the previous chunk's / another chunk follows. */
  private chunkContinues = false;
  private chunkFollows = false;
  private readonly chunkInstances: ModelInstance[] = [];

  // Render targets, recreated only when the output size changes.
  private msaaTexture: GPUTexture | undefined;
  private msaaView: GPUTextureView | undefined;
  private depthTexture: GPUTexture | undefined;
  private depthView: GPUTextureView | undefined;
  private lastTarget: GPUTexture | undefined;
  private lastTargetView: GPUTextureView | undefined;

  // Preallocated per-frame descriptors.
  private readonly colorAttachment: GPURenderPassColorAttachment;
  private readonly depthAttachment: GPURenderPassDepthStencilAttachment;
  private readonly passDescriptor: GPURenderPassDescriptor;
  private readonly encoderDescriptor: GPUCommandEncoderDescriptor;
  private readonly targetViewDescriptor: GPUTextureViewDescriptor;
  private readonly commandBuffers: GPUCommandBuffer[] = [];
  private readonly clearValue = { r: 0, g: 0, b: 0, a: 1 };
  private readonly worldLight = new Float32Array(3);
  /** `render`'s one instance, as the list `renderInstances` takes. */
  private readonly single: ModelInstance[] = [];
  /** A draw's active morph targets this frame (selectMorphTargets' output). */
  private readonly morphTargets = new Uint32Array(MAX_ACTIVE_MORPH_TARGETS);
  private readonly morphWeights = new Float32Array(MAX_ACTIVE_MORPH_TARGETS);
  private readonly onDebugPrepareFailed = (e: unknown): void => {
    console.error(`${this.label}: building debug views failed:`, e);
  };
  private readonly onGroundPrepareFailed = (e: unknown): void => {
    console.error(`${this.label}: building the ground disc failed:`, e);
  };
  private readonly onPreskinPrepareFailed = (e: unknown): void => {
    console.error(`${this.label}: building the compute skinning path failed:`, e);
  };
  private readonly onShadowPrepareFailed = (e: unknown): void => {
    console.error(`${this.label}: building shadow pipelines failed:`, e);
  };
  private readonly onSkinningPrepareFailed = (e: unknown): void => {
    console.error(`${this.label}: building skinning pipelines failed:`, e);
  };

  constructor(private readonly device: GPUDevice, options: RendererOptions) {
    this.format = options.format;
    this.srgbTarget = isSrgbFormat(options.format);
    this.label = options.label ?? 'renderer';
    this.imageDecoder = options.imageDecoder ?? browserImageDecoder;
    this.limits = allocationLimits(device, options.limits);
    this.onWarning = options.onWarning ?? ((w) => console.warn(`${this.label}: ${w.path}: ${w.message}`));
    this.pipelines = new MeshPipelines(device);
    this.debugPipelines = debugPipelines(device);
    this.boundsOverlay = new BoundsOverlay(device, this.debugPipelines, options.format, this.label);
    this.mipmaps = mipmapGenerator(device);
    this.defaults = createDefaultResources(device);
    if (options.gpuTiming !== false && device.features.has('timestamp-query')) {
      this.timer = new GpuTimer(device, { label: `${this.label} frame timer` });
    }
    this.frameBuffer = device.createBuffer({
      label: `${this.label} frame uniforms`,
      size: this.frameData.buffer.byteLength,
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
    this.shadow = new ShadowMap(device, this.label);
    this.casterPipelines = shadowCasterPipelines(device);
    this.ground = groundDisc(device, this.format);
    this.skinnedPlaceholder = device.createBuffer({ label: `${this.label} skinned vertices placeholder`, size: 48, usage: GPUBufferUsage.STORAGE });
    this.boundShadowView = this.shadow.view;
    this.frameBindGroup = this.createFrameBindGroup();
    this.colorAttachment = {
      view: undefined as unknown as GPUTextureView, // set every frame
      resolveTarget: undefined,
      clearValue: this.clearValue,
      loadOp: 'clear',
      storeOp: 'discard',
    };
    this.depthAttachment = {
      view: undefined as unknown as GPUTextureView,
      depthClearValue: 1,
      depthLoadOp: 'clear',
      depthStoreOp: 'discard',
    };
    this.passDescriptor = {
      label: `${this.label} pass`,
      colorAttachments: [this.colorAttachment],
      depthStencilAttachment: this.depthAttachment,
    };
    this.encoderDescriptor = { label: `${this.label} frame` };
    this.targetViewDescriptor = { label: `${this.label} target view`, format: this.format };
    this.commandBuffers.length = 1;
    this.single.length = 1;
  }

  /** The frame bind group: uniforms and the shadow map (made again when the map is). */
  private createFrameBindGroup(): GPUBindGroup {
    this.boundShadowView = this.shadow.view;
    return this.device.createBindGroup({
      label: `${this.label} frame`,
      layout: this.pipelines.frameLayout,
      entries: [
        { binding: FrameBinding.UNIFORMS, resource: { buffer: this.frameBuffer } },
        { binding: FrameBinding.SHADOW_MAP, resource: this.boundShadowView },
        { binding: FrameBinding.SHADOW_SAMPLER, resource: this.shadow.sampler },
      ],
    });
  }

  /** Whether the current model's shadow pipelines (for the skinning method frames use) are built. */
  get shadowsReady(): boolean {
    const scene = this.scene;
    return scene !== undefined && scene.pipelines.get(scene.skinning, 'vertex', true) !== undefined;
  }

  /**
   * Builds the current model's shadow pipelines for `method` (default: the setting's): the shadow
   * pass's and the shaded ones with the shadow lookup; frames with shadows on use them once this resolves.
   */
  async prepareShadows(method: SkinningMethod = this.settings.skinning): Promise<void> {
    await this.scene?.pipelines.ensure(skinningOf(method), 'vertex', true);
  }

  /** Builds the ground disc's pipeline; frames with `settings.ground` draw it once this resolves. */
  prepareGround(): Promise<void> {
    return this.ground.prepare();
  }

  /** The skinning path the last frame took ('vertex' before any). */
  get skinningPath(): SkinningPath {
    return this.lastPath;
  }

  /** Builds the current model's compute skinning path for `method` (default: the setting's). */
  async prepareComputeSkinning(method: SkinningMethod = this.settings.skinning): Promise<void> {
    await this.scene?.pipelines.ensure(skinningOf(method), 'compute', true);
  }

  /**
   * The compute path's skinned vertices of the last frame (`current`) or the one before
   * (`previous`): mesh-node-space position, normal, tangent (3 vec4f per vertex); vertex v
   * of draw i and instance k at k × `verticesPerInstance` + `drawBase[i]` + v (draws in the
   * Renderer's order: mesh nodes, then primitives). Undefined on the vertex path or before
   * two compute frames. See README "Motion vectors".
   */
  skinnedVertices(which: 'current' | 'previous'): {
    readonly buffer: GPUBuffer; readonly instances: number; readonly verticesPerInstance: number; readonly drawBase: Int32Array;
  } | undefined {
    const scene = this.scene;
    const out = scene?.preskin?.output(which);
    if (!scene || !out) return undefined;
    return { ...out, verticesPerInstance: scene.preskinVertices, drawBase: scene.preskinBase };
  }

  /** The model being drawn, if any. */
  get model(): Model | undefined {
    return this.scene?.model;
  }

  /**
   * Mesh pipelines this renderer has drawn with or built so far (they are kept across models,
   * in a cache every renderer on the device shares).
   */
  get pipelineCount(): number {
    return this.pipelines.size;
  }

  /** Whether frames are timed on the GPU (`stats.gpuMs`). */
  get gpuTiming(): boolean {
    return this.timer !== undefined;
  }

  /** DebugView bits of the current model that are ready to draw (with the skinning method frames use now). */
  get debugViewsReady(): number {
    const scene = this.scene;
    return scene ? scene.debug.readyFor(scene.skinning) | (this.boundsOverlay.ready ? DebugView.BOUNDS : 0) : 0;
  }

  /**
   * The skinning method the next frame of the current model uses: `settings.skinning` once
   * its pipelines are built, the one frames used so far until then (the setting when no
   * model is set).
   */
  get skinning(): SkinningMethod {
    const scene = this.scene;
    const wanted = skinningOf(this.settings.skinning);
    return !scene || scene.pipelines.get(wanted, 'vertex', false) ? wanted : scene.skinning;
  }

  /**
   * Uploads `model` (buffers, textures, materials), creates the pipelines its draws need
   * (and those of the debug views `settings.debug` asks for) and makes it the model
   * `render` draws; frees the previous one.
   */
  async setModel(model: Model): Promise<void> {
    const gpu = await uploadModel({
      device: this.device, pipelines: this.pipelines, mipmaps: this.mipmaps,
      imageDecoder: this.imageDecoder, defaults: this.defaults, limits: this.limits,
    }, model);
    for (const w of gpu.warnings) this.onWarning(w);
    let scene: Scene | undefined;
    const skinning = skinningOf(this.settings.skinning);
    try {
      scene = await this.buildScene(model, gpu, skinning);
      if (this.settings.debug & ALL_DEBUG_VIEWS) await scene.debug.prepare(this.settings.debug, skinning);
    } catch (e) {
      if (scene) destroyScene(scene);
      else gpu.destroy();
      throw e;
    }
    if (this.scene) destroyScene(this.scene);
    this.scene = scene;
  }

  /**
   * Builds the current model's pipelines for skinning `method` (default: the one
   * `settings.skinning` asks for); frames use it once this resolves (if it is still the setting).
   */
  async prepareSkinning(method: SkinningMethod = this.settings.skinning): Promise<void> {
    await this.scene?.pipelines.ensure(skinningOf(method), 'vertex', false);
  }

  /**
   * Builds the pipelines and buffers of the debug views in `mask` (default: the ones
   * `settings.debug` asks for) for the current model; frames draw them once this resolves.
   */
  async prepareDebugViews(mask = this.settings.debug): Promise<void> {
    const scene = this.scene;
    if (!scene) return;
    // For the method the settings ask for, whose surface pipelines come first.
    const skinning = skinningOf(this.settings.skinning);
    await Promise.all([
      scene.pipelines.ensure(skinning, 'vertex', false), scene.debug.prepare(mask, skinning),
      mask & DebugView.BOUNDS ? this.boundsOverlay.prepare() : undefined,
    ]);
  }

  private async buildScene(model: Model, gpu: GpuModel, skinning: SkinningMethod): Promise<Scene> {
    const draws: Draw[] = [];
    const restWorld = restWorldMatrices(model);
    let restRadius = 0;
    for (let i = 0; i < model.meshNodes.length; i++) {
      const mn = model.meshNodes[i];
      const nodeSlot = model.hierarchy.slotOf[mn.node];
      // glTF §3.7.4: a mirroring world transform flips the winding. Decided at rest.
      const mirrored = determinant3(restWorld, nodeSlot * 16) < 0;
      const primitives = gpu.primitives[mn.mesh];
      for (let p = 0; p < primitives.length; p++) {
        const primitive = primitives[p];
        const skinned = mn.skin >= 0 && primitive.influences > 0;
        const material = gpu.materials[primitive.material];
        const desc: MeshPipelineDesc = {
          vertexLayoutKey: skinned ? primitive.skinnedLayoutKey : primitive.rigidLayoutKey,
          vertexLayouts: skinned ? primitive.skinnedLayouts : primitive.rigidLayouts,
          influences: skinned ? primitive.influences : 0,
          topology: primitive.topology,
          stripIndexFormat: primitive.topology.endsWith('strip') ? primitive.indexFormat : undefined,
          alphaMode: material.alphaMode,
          doubleSided: material.doubleSided,
          frontFace: mirrored ? 'cw' : 'ccw',
          colorFormat: this.format,
          morphed: primitive.morphFlags !== 0,
          leanVertexLayouts: skinned ? primitive.leanSkinnedLayouts : primitive.leanRigidLayouts,
          materialTextures: material.textures,
          shadows: false,
        };
        draws.push({
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
        });
        restRadius = Math.max(restRadius, primitive.radius * maxAxisScale(restWorld, nodeSlot * 16));
      }
    }
    // Assigned below; the table's compute hook runs only after that (a compute build awaits pipelines).
    let scene: Scene;
    const pipelines = new DrawPipelineTable({ device: this.device, meshPipelines: this.pipelines, casterPipelines: this.casterPipelines }, draws, () => {
      if (scene.preskin) return;
      scene.preskin = new PreskinScene(this.device, scene.model, scene.draws, this.label);
      scene.preskin.resize(scene.capacity, { palette: scene.paletteBuffer, draws: scene.drawBuffer, morphDeltas: scene.gpu.morphDeltas }, this.pipelines.skinLayout);
    });
    const { surface } = await pipelines.ensure(skinning, 'vertex', false);
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
    // Fewest state changes: group by pipeline, then by material.
    solid.sort((a, b) => (pipelineIds.get(surface[a])! - pipelineIds.get(surface[b])!)
      || (materialIds.get(draws[a].material)! - materialIds.get(draws[b].material)!) || a - b);

    let paletteMatrices = 0;
    for (const mn of model.meshNodes) if (mn.skin >= 0) paletteMatrices += model.skins[mn.skin].joints.length;
    const maxInstances = instancesPerBinding(this.limits, [paletteMatrices * PALETTE_MATRIX_BYTES, draws.length * DRAW_RECORD_SIZE], `${this.label} ${model.name}`);
    const debug = new DebugViewDraws({
      device: this.device, label: this.label, format: this.format,
      meshPipelines: this.pipelines, debugPipelines: this.debugPipelines,
    }, model, draws);
    const layout = preskinLayout(draws);
    scene = {
      model, gpu, draws,
      solidOrder: Int32Array.from(solid),
      blendDraws: Int32Array.from(blend),
      paletteMatrices,
      shadowCasters: createShadowCasterBounds(model),
      groundFootprint: groundFootprint(model),
      preskinBase: layout.drawBase,
      preskinVertices: layout.verticesPerInstance,
      preskin: undefined,
      skinning,
      pipelines,
      exactNormals: new Uint8Array(model.meshNodes.length),
      autoLineLength: Math.max(restRadius, 1e-6) * DEBUG_LINE_LENGTH_FRACTION,
      debug,
      maxInstances,
      culler: new InstanceCuller(model),
      capacity: 0,
      records: undefined as unknown as DrawRecordArray,
      drawBuffer: undefined as unknown as GPUBuffer,
      paletteBuffer: undefined as unknown as GPUBuffer,
      paletteStaging: undefined as unknown as Float32Array,
      skinBindGroup: undefined as unknown as GPUBindGroup,
      blendOrder: undefined as unknown as Int32Array,
      blendCount: 0,
      blendInstances: 0,
      blendDepth: undefined as unknown as Float32Array,
    };
    this.ensureCapacity(scene, 1);
    return scene;
  }

  /** Grows the per-instance buffers to hold `instances` (doubling); allocates only when it grows. */
  private ensureCapacity(scene: Scene, instances: number): void {
    if (instances <= scene.capacity) return;
    const capacity = Math.min(scene.maxInstances, Math.max(instances, scene.capacity * 2));
    const { model, draws } = scene;
    scene.drawBuffer?.destroy();
    scene.paletteBuffer?.destroy();
    scene.records = new DrawRecordArray(draws.length * capacity);
    scene.drawBuffer = this.device.createBuffer({
      label: `${this.label} ${model.name} draw records ×${capacity}`,
      size: scene.records.buffer.byteLength,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
    });
    // A storage binding cannot be empty: a model without skins still gets one matrix.
    scene.paletteBuffer = this.device.createBuffer({
      label: `${this.label} ${model.name} joint palettes ×${capacity}`,
      size: Math.max(PALETTE_MATRIX_BYTES, scene.paletteMatrices * PALETTE_MATRIX_BYTES * capacity),
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
    });
    scene.paletteStaging = new Float32Array(scene.paletteMatrices * PALETTE_MATRIX_FLOATS * capacity);
    scene.skinBindGroup = this.device.createBindGroup({
      label: `${this.label} ${model.name} palettes, draws and morph deltas ×${capacity}`,
      layout: this.pipelines.skinLayout,
      entries: [
        { binding: SkinBinding.PALETTE, resource: { buffer: scene.paletteBuffer } },
        { binding: SkinBinding.DRAWS, resource: { buffer: scene.drawBuffer } },
        { binding: SkinBinding.MORPH_DELTAS, resource: { buffer: scene.gpu.morphDeltas } },
        { binding: SkinBinding.SKINNED_VERTICES, resource: { buffer: this.skinnedPlaceholder } },
      ],
    });
    scene.preskin?.resize(capacity, { palette: scene.paletteBuffer, draws: scene.drawBuffer, morphDeltas: scene.gpu.morphDeltas }, this.pipelines.skinLayout);
    scene.blendOrder = new Int32Array(scene.blendDraws.length * capacity);
    scene.blendDepth = new Float32Array(draws.length * capacity);
    scene.blendCount = 0;
    scene.blendInstances = 0;
    scene.capacity = capacity;
  }

  /**
   * Draws `instance` (of the current model) as seen by `camera` into `target`, which
   * must have RENDER_ATTACHMENT usage and `format` (or list it in its viewFormats).
   */
  render(target: GPUTexture, camera: Camera, instance: ModelInstance): void {
    this.single[0] = instance;
    this.renderInstances(target, camera, this.single, 1);
  }

  /**
   * Draws `count` instances of the current model in one pass, each draw of the model as
   * one instanced draw call. `placements` (optional): 16 floats per instance, a
   * column-major world matrix applied on top of the instance's own node matrices (its
   * position in a crowd; pass a Float64Array far from the origin: it is combined with the
   * node matrices and made camera-relative in float64). Growing beyond the most instances
   * drawn so far reallocates the per-instance buffers once; otherwise nothing is allocated.
   * More instances than one storage binding holds (`maxInstances`, from the device limits)
   * are drawn in chunks.
   */
  renderInstances(
    target: GPUTexture, camera: Camera, instances: readonly ModelInstance[], count = instances.length, placements?: Float32Array | Float64Array,
  ): void {
    const started = performance.now();
    const scene = this.scene;
    if (scene && count > scene.maxInstances) {
      this.renderInChunks(target, camera, instances, count, placements, scene.maxInstances);
      return;
    }
    if (scene) {
      for (let k = 0; k < count; k++) {
        if (instances[k].model !== scene.model) {
          throw new Error(`Renderer.render: the instance is of model "${instances[k].model.name}" but the renderer holds "${scene.model.name}"`);
        }
      }
      if (placements && placements.length < count * 16) throw new RangeError(`Renderer.renderInstances: ${count} instances need ${count * 16} placement floats, got ${placements.length}`);
      this.ensureCapacity(scene, count);
      this.selectSkinning(scene);
      scene.debug.request(this.settings.debug, scene.skinning, this.onDebugPrepareFailed);
    }
    this.ensureAttachments(target);
    camera.update(target.width / target.height);
    this.writeFrameUniforms(camera, target, scene);
    const eye = camera.eye ?? camera.position;
    const shadowed = scene !== undefined && count > 0 && this.shadowFrame(scene, instances, count, placements, eye);
    this.frameData.groundRadius[0] = 0;
    if (scene !== undefined && count > 0 && this.settings.ground) {
      if (this.ground.ready) placeGround(scene.groundFootprint, count, placements, eye, this.frameData);
      else this.ground.prepare().catch(this.onGroundPrepareFailed);
    }
    const queue = this.device.queue;
    queue.writeBuffer(this.frameBuffer, 0, this.frameData.buffer);

    if (target !== this.lastTarget) {
      this.lastTarget = target;
      this.lastTargetView = target.createView(this.targetViewDescriptor);
    }
    const clear = this.settings.clearColor;
    const srgb = this.srgbTarget;
    // The clear value is stored as is; an sRGB view stores it encoded, so give it linear values.
    this.clearValue.r = (srgb ? srgbToLinear(clear[0]) : clear[0]) * clear[3];
    this.clearValue.g = (srgb ? srgbToLinear(clear[1]) : clear[1]) * clear[3];
    this.clearValue.b = (srgb ? srgbToLinear(clear[2]) : clear[2]) * clear[3];
    this.clearValue.a = clear[3];
    this.colorAttachment.view = this.msaaView!;
    this.colorAttachment.resolveTarget = this.lastTargetView;
    this.depthAttachment.view = this.depthView!;
    // A chunk after the first draws over the previous ones: keep colour and depth between passes.
    this.colorAttachment.loadOp = this.depthAttachment.depthLoadOp = this.chunkContinues ? 'load' : 'clear';
    this.colorAttachment.storeOp = this.depthAttachment.depthStoreOp = this.chunkFollows ? 'store' : 'discard';
    this.passDescriptor.timestampWrites = this.timer?.beginPass();

    const stats = this.stats;
    stats.drawCalls = 0;
    stats.vertices = 0;
    stats.triangles = 0;
    stats.joints = 0;
    stats.culled = 0;
    // Culling compacts the instance list (nearest first): the draws below see only survivors.
    const showBounds = (this.settings.debug & DebugView.BOUNDS) !== 0;
    if (showBounds) this.boundsOverlay.request();
    // Before culling: palettes already back to back (a Crowd's) go up as they are, and the
    // records of the instances kept point at their slot there (`paletteSlots`).
    const sourceInstances = instances, sourceCount = count;
    let paletteSlots: Int32Array | undefined;
    if (scene && count > 0 && (this.settings.culling || showBounds)) {
      const culler = scene.culler;
      // The frame uniforms are camera-relative; the culler's boxes are in world space.
      mat4.multiply(camera.projection, camera.view, this.worldViewProjection);
      culler.run(this.worldViewProjection, camera.view, instances, count, placements, scene.skinning, this.settings.culling, this.settings.culling, eye);
      stats.culled = count - culler.visibleCount;
      paletteSlots = culler.kept;
      instances = culler.instances;
      count = culler.visibleCount;
      placements = placements ? culler.placements : undefined;
    }
    stats.instances = scene ? count : 0;
    const encoder = this.device.createCommandEncoder(this.encoderDescriptor);
    // Skin once for every pass (compute path), or in each pass's vertex stage.
    const compute = scene !== undefined && count > 0 && this.selectPath(scene, shadowed ? 2 : 1, count);
    let skinGroup = scene?.skinBindGroup;
    const pipelines = scene !== undefined && count > 0 ? this.framePipelines(scene, compute) : undefined;
    if (compute) skinGroup = scene.preskin!.encode(encoder, pipelines!.compute, count);
    if (shadowed) stats.drawCalls += this.shadow.encode(encoder, scene.draws, scene.solidOrder, pipelines!.casters, skinGroup!, count);
    const pass = encoder.beginRenderPass(this.passDescriptor);
    if (scene && scene.draws.length > 0 && count > 0) {
      const paletteBytes = scene.paletteMatrices * PALETTE_MATRIX_BYTES;
      const uploadInPlace = paletteBytes > 0 && scene.skinning !== 'dual-quaternion'
        && palettesContiguous(sourceInstances, sourceCount, paletteBytes);
      this.writeDrawRecords(scene, instances, count, placements, eye, uploadInPlace ? paletteSlots : undefined);
      queue.writeBuffer(scene.drawBuffer, 0, scene.records.buffer, 0, scene.draws.length * count * DRAW_RECORD_SIZE);
      if (paletteBytes > 0) {
        const staging = scene.paletteStaging;
        if (scene.skinning === 'dual-quaternion') {
          // DqJoint entries fill the matrices' slots one for one: same offsets, same bytes.
          for (let k = 0; k < count; k++) {
            dqPaletteFromMatrices(instances[k].palette, scene.paletteMatrices, staging, 0, k * scene.paletteMatrices);
          }
          queue.writeBuffer(scene.paletteBuffer, 0, staging.buffer, staging.byteOffset, paletteBytes * count);
        } else if (uploadInPlace) {
          // One instance, or a Crowd's palettes already back to back: upload them where they
          // are, culled ones too (one write, no copy).
          const palette = sourceInstances[0].palette;
          queue.writeBuffer(scene.paletteBuffer, 0, palette.buffer, palette.byteOffset, paletteBytes * sourceCount);
        } else {
          const floats = scene.paletteMatrices * PALETTE_MATRIX_FLOATS;
          for (let k = 0; k < count; k++) staging.set(instances[k].palette, k * floats);
          queue.writeBuffer(scene.paletteBuffer, 0, staging.buffer, staging.byteOffset, paletteBytes * count);
        }
        stats.joints = scene.paletteMatrices * count;
      }
      this.sortBlended(scene, count);
      this.encodeDraws(pass, scene, count, skinGroup!, pipelines!.surface);
      if (showBounds) stats.drawCalls += this.boundsOverlay.encode(pass, scene.culler.boxes, count);
    }
    pass.end();
    this.timer?.endPass(encoder);
    this.commandBuffers[0] = encoder.finish();
    queue.submit(this.commandBuffers);
    this.timer?.afterSubmit();
    this.single[0] = undefined as unknown as ModelInstance;
    stats.frames++;
    stats.gpuMs = this.timer?.lastMs;
    stats.encodeMs = performance.now() - started;
  }

  /**
   * Draws `count` instances as passes of at most `chunk` instances, each submitted before
   * the next chunk's palettes and draw records overwrite the buffers (queue order keeps
   * them apart). Blended surfaces are sorted back to front within a chunk only. Allocates
   * only the chunks' views of `placements`.
   */
  private renderInChunks(
    target: GPUTexture, camera: Camera, instances: readonly ModelInstance[], count: number, placements: Float32Array | Float64Array | undefined, chunk: number,
  ): void {
    const started = performance.now();
    const stats = this.stats;
    const part = this.chunkInstances;
    let drawCalls = 0, vertices = 0, triangles = 0, joints = 0;
    try {
      for (let first = 0; first < count; first += chunk) {
        const n = Math.min(chunk, count - first);
        if (part.length < n) part.length = n;
        for (let k = 0; k < n; k++) part[k] = instances[first + k];
        this.chunkContinues = first > 0;
        this.chunkFollows = first + n < count;
        this.renderInstances(target, camera, part, n, placements?.subarray(first * 16, (first + n) * 16));
        drawCalls += stats.drawCalls; vertices += stats.vertices; triangles += stats.triangles; joints += stats.joints;
        if (this.chunkContinues) stats.frames--;
      }
    } finally {
      this.chunkContinues = this.chunkFollows = false;
      // Keep the array (no reallocation next frame), not the instances.
      part.fill(undefined as unknown as ModelInstance);
    }
    stats.drawCalls = drawCalls; stats.vertices = vertices; stats.triangles = triangles; stats.joints = joints;
    stats.instances = count;
    stats.encodeMs = performance.now() - started;
  }

  /**
   * Whether this frame skins by compute: the setting (or the 'auto' rule for `passes`
   * passes) once that path is built for the frame's method; the first frame that wants it
   * starts the build and takes the vertex path.
   */
  private selectPath(scene: Scene, passes: number, count: number): boolean {
    let compute = scene.preskinVertices > 0 && chooseSkinningPath(this.settings.skinningPath, passes, scene.preskinVertices * count) === 'compute';
    if (compute && !scene.pipelines.request(scene.skinning, 'compute', true, this.onPreskinPrepareFailed)) compute = false;
    this.lastPath = compute ? 'compute' : 'vertex';
    return compute;
  }

  /**
   * Shadows of this frame: when the setting is on and the pipelines are built, fits the
   * light and fills the frame uniforms' shadow fields (else shadowStrength 0; the first
   * such frame starts the build). Rebinds the frame group when the map was (re)created.
   */
  private shadowFrame(scene: Scene, instances: readonly ModelInstance[], count: number, placements: ArrayLike<number> | undefined, eye: ArrayLike<number>): boolean {
    const s = this.settings;
    this.frameData.shadowStrength[0] = 0;
    if (!s.shadows) return false;
    if (!scene.pipelines.request(scene.skinning, 'vertex', true, this.onShadowPrepareFailed)) return false;
    const size = Math.max(1, Math.min(this.device.limits.maxTextureDimension2D, Math.round(s.shadowMapSize) || DEFAULT_SHADOW_MAP_SIZE));
    const shadowed = this.shadow.fit(scene.shadowCasters, instances, count, placements, eye, size, this.frameData);
    if (this.shadow.view !== this.boundShadowView) this.frameBindGroup = this.createFrameBindGroup();
    return shadowed;
  }

  /**
   * The frame's skinning method: the setting when its pipelines are built; otherwise the
   * previous method, and the build starts (once; the frame path allocates only then).
   */
  private selectSkinning(scene: Scene): void {
    const wanted = skinningOf(this.settings.skinning);
    if (scene.pipelines.request(wanted, 'vertex', false, this.onSkinningPrepareFailed)) scene.skinning = wanted;
  }

  /**
   * What this frame draws with: its method's pipelines on its path, with the shadow lookup
   * once shadows are on and built (the compute path's always have it).
   */
  private framePipelines(scene: Scene, compute: boolean): DrawPipelines {
    const table = scene.pipelines;
    if (compute) return table.get(scene.skinning, 'compute', true)!;
    return (this.settings.shadows && table.get(scene.skinning, 'vertex', true)) || table.get(scene.skinning, 'vertex', false)!;
  }

  private encodeDraws(pass: GPURenderPassEncoder, scene: Scene, count: number, skinGroup: GPUBindGroup, surface: readonly GPURenderPipeline[]): void {
    const stats = this.stats;
    const method = scene.skinning;
    const debugMask = this.settings.debug & scene.debug.readyFor(method);
    const pipelines = (debugMask & DebugView.WEIGHTS) !== 0 ? scene.debug.weightsPipelines(method) : surface;
    pass.setBindGroup(BindGroup.FRAME, this.frameBindGroup);
    pass.setBindGroup(BindGroup.SKIN, skinGroup);
    let pipeline: GPURenderPipeline | undefined;
    let material: GpuMaterial | undefined;
    let bound = -1;
    // Solid draws: every instance in one call.
    const solid = scene.solidOrder;
    for (let s = 0; s < solid.length; s++) {
      const index = solid[s];
      const d = scene.draws[index];
      const p = pipelines[index];
      if (p !== pipeline) {
        pipeline = p;
        pass.setPipeline(p);
      }
      if (d.material !== material) {
        material = d.material;
        pass.setBindGroup(BindGroup.MATERIAL, material.bindGroup);
      }
      bound = this.drawPrimitive(pass, d, index, count, index * count, bound);
    }
    // The ground disc: after the opaque draws (it blends at its rim), before the blended ones.
    if (this.frameData.groundRadius[0] > 0) {
      stats.drawCalls += this.ground.encode(pass);
      pipeline = undefined;
    }
    // Blended draws: one call per (draw, instance), back to front.
    const order = scene.blendOrder;
    for (let e = 0; e < scene.blendCount; e++) {
      const record = order[e];
      const index = (record / count) | 0;
      const d = scene.draws[index];
      const p = pipelines[index];
      if (p !== pipeline) {
        pipeline = p;
        pass.setPipeline(p);
      }
      if (d.material !== material) {
        material = d.material;
        pass.setBindGroup(BindGroup.MATERIAL, material.bindGroup);
      }
      bound = this.drawPrimitive(pass, d, index, 1, record, bound);
    }
    for (let i = 0; i < scene.draws.length; i++) {
      stats.vertices += scene.draws[i].primitive.vertexCount * count;
      stats.triangles += scene.draws[i].triangles * count;
    }
    stats.drawCalls += solid.length + scene.blendCount;
    if (debugMask & ~DebugView.WEIGHTS) stats.drawCalls += scene.debug.encodeOverlays(pass, debugMask, count, method);
  }

  /** Binds the draw's buffers (unless `bound` is this draw already) and draws; returns the draw now bound. */
  private drawPrimitive(pass: GPURenderPassEncoder, d: Draw, index: number, instances: number, firstRecord: number, bound: number): number {
    const p = d.primitive;
    if (bound !== index) {
      for (let s = 0; s < d.vertexSlots; s++) pass.setVertexBuffer(s, p.vertexBuffers[s], p.vertexOffsets[s], p.vertexSizes[s]);
      if (p.indexBuffer) pass.setIndexBuffer(p.indexBuffer, p.indexFormat!);
    }
    if (p.indexBuffer) pass.drawIndexed(p.drawCount, instances, 0, 0, firstRecord);
    else pass.draw(p.drawCount, instances, 0, firstRecord);
    return index;
  }

  private ensureAttachments(target: GPUTexture): void {
    const { width, height } = target;
    if (this.msaaTexture && this.msaaTexture.width === width && this.msaaTexture.height === height) return;
    this.msaaTexture?.destroy();
    this.depthTexture?.destroy();
    this.msaaTexture = this.device.createTexture({
      label: `${this.label} MSAA colour ${width}×${height}`,
      size: [width, height],
      format: this.format,
      sampleCount: MSAA_SAMPLE_COUNT,
      usage: GPUTextureUsage.RENDER_ATTACHMENT,
    });
    this.depthTexture = this.device.createTexture({
      label: `${this.label} depth ${width}×${height}`,
      size: [width, height],
      format: DEPTH_FORMAT,
      sampleCount: MSAA_SAMPLE_COUNT,
      usage: GPUTextureUsage.RENDER_ATTACHMENT,
    });
    this.msaaView = this.msaaTexture.createView({ label: `${this.label} MSAA colour view` });
    this.depthView = this.depthTexture.createView({ label: `${this.label} depth view` });
  }

  private writeFrameUniforms(camera: Camera, target: GPUTexture, scene: Scene | undefined): void {
    const f = this.frameData;
    const s = this.settings;
    // Camera-relative (camera-relative.ts): the eye is the origin of what the shaders see.
    viewRotation(camera.view, f.view);
    f.projection.set(camera.projection);
    mat4.multiply(camera.projection, f.view, f.viewProjection);
    f.cameraPosition.fill(0);
    f.exposure[0] = s.exposure;
    f.toneMapping[0] = s.toneMapping;
    const l = s.lightDirection;
    const w = this.worldLight;
    if (s.lightSpace === 'view') {
      // View → world for a direction: the transpose of the view matrix's rotation.
      const v = camera.view;
      w[0] = v[0] * l[0] + v[1] * l[1] + v[2] * l[2];
      w[1] = v[4] * l[0] + v[5] * l[1] + v[6] * l[2];
      w[2] = v[8] * l[0] + v[9] * l[1] + v[10] * l[2];
    } else {
      w[0] = l[0]; w[1] = l[1]; w[2] = l[2];
    }
    const len = length3(w[0], w[1], w[2]) || 1;
    f.lightDirection[0] = w[0] / len;
    f.lightDirection[1] = w[1] / len;
    f.lightDirection[2] = w[2] / len;
    for (let c = 0; c < 3; c++) f.lightColor[c] = s.lightColor[c] * s.lightIntensity;
    f.skyColor.set(s.skyColor);
    f.groundColor.set(s.groundColor);
    f.viewportSize[0] = target.width;
    f.viewportSize[1] = target.height;
    f.debugLineLength[0] = s.debugLineLength > 0 ? s.debugLineLength : scene ? scene.autoLineLength : 0;
    f.debugLineWidth[0] = Math.max(DEBUG_LINE_WIDTH_MIN, Math.min(target.width, target.height) * DEBUG_LINE_WIDTH_FRACTION);
  }

  private writeDrawRecords(
    scene: Scene, instances: readonly ModelInstance[], count: number, placements: Float32Array | Float64Array | undefined, eye: ArrayLike<number>,
    paletteSlots: Int32Array | undefined,
  ): void {
    const { model, records, exactNormals, draws } = scene;
    const exactAlways = this.settings.normals === 'exact';
    // DQS normals always take the exact cofactor of the blended stretch (skinFrameDq): no palette scan.
    const dualQuaternion = scene.skinning === 'dual-quaternion';
    const f32 = records.f32;
    const u32 = records.u32;
    const morphTargets = this.morphTargets;
    const morphWeights = this.morphWeights;
    for (let k = 0; k < count; k++) {
      const instance = instances[k];
      const m = instance.nodeMatrices;
      const { weights, weightOffsets } = instance.pose;
      // Instance k's palettes: slot k of the upload, or where the uploaded (uncompacted) list had it.
      const paletteBase = (paletteSlots ? paletteSlots[k] : k) * scene.paletteMatrices;
      for (let i = 0; i < model.meshNodes.length; i++) {
        const offset = instance.paletteOffsets[i];
        exactNormals[i] = exactAlways || (!dualQuaternion && offset >= 0
          && paletteHasNonUniformScale(instance.palette, offset, model.skins[model.meshNodes[i].skin].joints.length)) ? 1 : 0;
      }
      const po = k * 16;
      for (let i = 0; i < draws.length; i++) {
        const d = draws[i];
        const base = (i * count + k) * DRAW_RECORD_WORDS;
        const o = d.nodeSlot * 16;
        const mo = base + DrawRecordWord.MODEL;
        // model = placement · node world − eye, in float64, then rounded (camera-relative.ts).
        cameraRelativeModel(m, o, placements, po, eye, f32, mo);
        // Normal matrix = M⁻ᵀ = cofactor(M) / det; columns b×c, c×a, a×b of the 3×3 (a, b, c its columns).
        const a0 = f32[mo], a1 = f32[mo + 1], a2 = f32[mo + 2];
        const b0 = f32[mo + 4], b1 = f32[mo + 5], b2 = f32[mo + 6];
        const c0 = f32[mo + 8], c1 = f32[mo + 9], c2 = f32[mo + 10];
        const x0 = b1 * c2 - b2 * c1, x1 = b2 * c0 - b0 * c2, x2 = b0 * c1 - b1 * c0;
        const det = a0 * x0 + a1 * x1 + a2 * x2;
        const inv = Math.abs(det) > NORMAL_DETERMINANT_EPSILON ? 1 / det : 1;
        const no = base + DrawRecordWord.NORMAL_MATRIX;
        f32[no] = x0 * inv; f32[no + 1] = x1 * inv; f32[no + 2] = x2 * inv;
        f32[no + MAT3_COLUMN_WORDS] = (c1 * a2 - c2 * a1) * inv;
        f32[no + MAT3_COLUMN_WORDS + 1] = (c2 * a0 - c0 * a2) * inv;
        f32[no + MAT3_COLUMN_WORDS + 2] = (c0 * a1 - c1 * a0) * inv;
        f32[no + 2 * MAT3_COLUMN_WORDS] = (a1 * b2 - a2 * b1) * inv;
        f32[no + 2 * MAT3_COLUMN_WORDS + 1] = (a2 * b0 - a0 * b2) * inv;
        f32[no + 2 * MAT3_COLUMN_WORDS + 2] = (a0 * b1 - a1 * b0) * inv;
        // Every draw of a skinned mesh node carries its palette offset: the skeleton overlay poses joints through any of them.
        const paletteOffset = instance.paletteOffsets[d.meshNode];
        u32[base + DrawRecordWord.PALETTE_OFFSET] = paletteOffset >= 0 ? paletteBase + paletteOffset : 0;
        let flags = d.staticFlags | (d.skinned && exactNormals[d.meshNode] ? DrawFlag.EXACT_NORMALS : 0);
        const p = d.primitive;
        if (p.morphFlags !== 0) {
          // The mesh node's weights (animated by `weights` channels); targets beyond them weigh 0.
          const wo = weightOffsets[d.nodeSlot];
          const active = selectMorphTargets(weights, wo, Math.min(weightOffsets[d.nodeSlot + 1] - wo, p.morphTargets), morphTargets, morphWeights);
          if (active > 0) {
            flags |= p.morphFlags;
            u32[base + DrawRecordWord.MORPH_BASE] = p.morphBase;
            u32[base + DrawRecordWord.MORPH_TARGET_COUNT] = p.morphTargets;
            const wo0 = base + DrawRecordWord.MORPH_WEIGHTS_0, wo1 = base + DrawRecordWord.MORPH_WEIGHTS_1;
            const to = base + DrawRecordWord.MORPH_TARGETS;
            for (let t = 0; t < MAX_ACTIVE_MORPH_TARGETS; t++) {
              const on = t < active;
              f32[t < 4 ? wo0 + t : wo1 + t - 4] = on ? morphWeights[t] : 0;
              if ((t & 1) === 0) u32[to + (t >> 1)] = on ? morphTargets[t] : 0;
              else if (on) u32[to + (t >> 1)] |= morphTargets[t] << 16;
            }
          }
        }
        u32[base + DrawRecordWord.FLAGS] = flags;
        const skinnedBase = scene.preskinBase[i];
        u32[base + DrawRecordWord.SKINNED_BASE] = skinnedBase >= 0 ? k * scene.preskinVertices + skinnedBase : 0;
      }
    }
  }

  /**
   * Back to front by view-space depth of each (draw, instance)'s bounds centre; insertion
   * sort, nearly sorted from the last frame.
   */
  private sortBlended(scene: Scene, count: number): void {
    const blendDraws = scene.blendDraws;
    if (blendDraws.length === 0) return;
    const order = scene.blendOrder;
    if (scene.blendInstances !== count) {
      let e = 0;
      for (let b = 0; b < blendDraws.length; b++) for (let k = 0; k < count; k++) order[e++] = blendDraws[b] * count + k;
      scene.blendCount = e;
      scene.blendInstances = count;
    }
    const n = scene.blendCount;
    const depth = scene.blendDepth;
    // Records are camera-relative: depth by the view rotation alone.
    const v = this.frameData.view;
    const f32 = scene.records.f32;
    for (let e = 0; e < n; e++) {
      const record = order[e];
      const d = scene.draws[(record / count) | 0];
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
    for (let k = 1; k < n; k++) {
      const record = order[k];
      const z = depth[record];
      let j = k - 1;
      while (j >= 0 && depth[order[j]] > z) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = record;
    }
  }

  /** Frees every GPU object this renderer created. The device stays alive. */
  destroy(): void {
    if (this.scene) destroyScene(this.scene);
    this.scene = undefined;
    this.msaaTexture?.destroy();
    this.depthTexture?.destroy();
    this.msaaTexture = undefined;
    this.depthTexture = undefined;
    this.lastTarget = undefined;
    this.lastTargetView = undefined;
    this.frameBuffer.destroy();
    this.shadow.destroy();
    this.skinnedPlaceholder.destroy();
    this.boundsOverlay.destroy();
    this.defaults.destroy();
    this.timer?.destroy();
  }
}

/** Whether the instances' palettes follow each other in one ArrayBuffer (as a Crowd lays them out). */
function palettesContiguous(instances: readonly ModelInstance[], count: number, paletteBytes: number): boolean {
  if (count === 1) return true;
  const first = instances[0].palette;
  for (let k = 1; k < count; k++) {
    const p = instances[k].palette;
    if (p.buffer !== first.buffer || p.byteOffset !== first.byteOffset + k * paletteBytes) return false;
  }
  return true;
}

function destroyScene(scene: Scene): void {
  scene.debug.destroy();
  scene.gpu.destroy();
  scene.drawBuffer.destroy();
  scene.paletteBuffer.destroy();
  scene.preskin?.destroy();
}

/** World matrices of the rest pose, by slot (load time). */
function restWorldMatrices(model: Model): Float64Array {
  const h = model.hierarchy;
  const out = new Float64Array(h.count * 16);
  for (let slot = 0; slot < h.count; slot++) {
    const parent = h.parentSlot[slot];
    if (parent < 0) {
      out.set(h.restMatrix.subarray(slot * 16, slot * 16 + 16), slot * 16);
    } else {
      multiplyMat4(out, h.restMatrix, out, parent * 16, slot * 16, slot * 16);
    }
  }
  return out;
}

function determinant3(m: Float64Array, o: number): number {
  return m[o] * (m[o + 5] * m[o + 10] - m[o + 6] * m[o + 9])
    - m[o + 4] * (m[o + 1] * m[o + 10] - m[o + 2] * m[o + 9])
    + m[o + 8] * (m[o + 1] * m[o + 6] - m[o + 2] * m[o + 5]);
}
