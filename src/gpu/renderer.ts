import { dqPaletteFromMatrices } from '../anim/dq-palette.ts';
import type { ModelInstance } from '../anim/instance.ts';
import type { Model } from '../gltf/model.ts';
import type { SkinningMethod } from '../skin/dqs.ts';
import type { Camera } from './camera.ts';
import { InstanceCuller } from './culling.ts';
import { BoundsOverlay } from './debug-bounds.ts';
import { DEBUG_LINE_LENGTH_FRACTION, DEBUG_LINE_WIDTH_FRACTION, DEBUG_LINE_WIDTH_MIN } from './debug-layouts.ts';
import { DebugPipelines } from './debug-pipelines.ts';
import { ALL_DEBUG_VIEWS, DebugScene } from './debug-scene.ts';
import { DebugView } from './debug-views.ts';
import { DRAW_RECORD_SIZE, DRAW_RECORD_WORDS, DrawRecordArray, DrawRecordWord, MAT3_COLUMN_WORDS } from './draw-record.ts';
import { FrameUniformsData } from './frame-uniforms.ts';
import { createDefaultResources, uploadModel, type DefaultResources, type GpuMaterial, type GpuModel, type GpuPrimitive } from './gpu-model.ts';
import { GpuTimer } from './gpu-timer.ts';
import { BindGroup, DEPTH_FORMAT, DrawFlag, FrameBinding, MSAA_SAMPLE_COUNT, PALETTE_MATRIX_BYTES, PALETTE_MATRIX_FLOATS, SkinBinding, ToneMapping } from './layouts.ts';
import { MipmapGenerator } from './mipmaps.ts';
import { MAX_ACTIVE_MORPH_TARGETS, selectMorphTargets } from './morph-targets.ts';
import {
  isSrgbFormat, MeshPipelines, SKINNING_OF_SLOT, SKINNING_SLOTS, skinningSlot, type MeshPipelineDesc, type SkinningSlot,
} from './pipelines.ts';
import { paletteHasNonUniformScale, type SkinnedNormalMode } from './skin-normals.ts';
import { browserImageDecoder, type ImageDecoder } from './textures.ts';
import { mat4 } from 'wgpu-matrix';
import { multiplyMat4 } from '../math/trs.ts';

export interface RendererOptions {
  /**
   * Format of the views rendered into. An `-srgb` format lets the hardware encode (and
   * blend and resolve in linear light); for a plain `…unorm` format the shader encodes.
   * For a canvas use `configureCanvas(...).viewFormat`.
   */
  readonly format: GPUTextureFormat;
  /** Decodes glTF images; default `createImageBitmap` (browser). */
  readonly imageDecoder?: ImageDecoder;
  readonly label?: string;
  /**
   * Measure the frame pass on the GPU (`stats.gpuMs`) when the device has
   * 'timestamp-query'; default true. Costs one query pair, a resolve and a small
   * readback per measured frame.
   */
  readonly gpuTiming?: boolean;
}

/** Lighting and output settings; change them between frames. Colours are linear RGB. */
export interface RenderSettings {
  /** Multiplies the scene's linear radiance before tone mapping. */
  exposure: number;
  toneMapping: ToneMapping;
  /** Unit vector towards the key light, in view space (x right, y up, z towards the viewer) or world space. */
  readonly lightDirection: Float32Array;
  lightSpace: 'view' | 'world';
  readonly lightColor: Float32Array;
  lightIntensity: number;
  /** Hemispherical ambient: radiance from above (+Y) and below. */
  readonly skyColor: Float32Array;
  readonly groundColor: Float32Array;
  /** Background, display-referred (sRGB-encoded) RGBA with straight alpha. */
  readonly clearColor: Float32Array;
  /** See SkinnedNormalMode; 'exact' matches the CPU reference. */
  normals: SkinnedNormalMode;
  /**
   * DebugView bits (debug-views.ts; `parseDebugViews` reads the element's attribute): 0
   * draws the model alone. A view's pipelines and buffers are built the first time it is
   * asked for, asynchronously: it appears a few frames later, or right away after
   * `await renderer.prepareDebugViews()`.
   */
  debug: number;
  /** Length of the NORMALS/TANGENTS lines in world units; 0 (default): 5% of the model's rest radius. */
  debugLineLength: number;
  /**
   * How skinned vertices blend their joints: 'linear' (default, LBS) or 'dual-quaternion'
   * (DQS: no candy-wrapper collapse under twist). The instance palettes stay matrices; for
   * DQS the renderer converts them into DqJoint entries as it uploads them. Pipelines of a
   * method are built the first time a frame asks for it, asynchronously: until they are
   * ready frames keep the previous method (`renderer.skinning` says which ran), or await
   * `renderer.prepareSkinning()`. Anything but 'dual-quaternion' counts as linear.
   */
  skinning: SkinningMethod;
  /**
   * Frustum-cull instances by their skinned bounds (src/gpu/culling.ts) and draw the rest
   * nearest first; default true. `stats.culled` counts what was dropped.
   */
  culling: boolean;
}

export function defaultRenderSettings(): RenderSettings {
  return {
    exposure: 1,
    toneMapping: ToneMapping.PBR_NEUTRAL,
    lightDirection: Float32Array.of(0.45, 0.75, 0.5),
    lightSpace: 'view',
    lightColor: Float32Array.of(1, 0.98, 0.95),
    lightIntensity: 3,
    skyColor: Float32Array.of(0.42, 0.45, 0.5),
    groundColor: Float32Array.of(0.16, 0.14, 0.12),
    clearColor: Float32Array.of(0.16, 0.17, 0.19, 1),
    normals: 'exact',
    debug: 0,
    debugLineLength: 0,
    skinning: 'linear',
    culling: true,
  };
}

/**
 * What the last frame cost, for a stats panel. The Renderer updates the fields of one
 * object in place every frame (read them, do not keep the object as a snapshot).
 */
export interface RenderStats {
  /** Frames rendered by this renderer. */
  frames: number;
  /** Draw calls of the last frame, debug overlays included. */
  drawCalls: number;
  /** Model instances drawn (after culling). */
  instances: number;
  /** Model instances frustum culling dropped in the last frame. */
  culled: number;
  /** Mesh vertices the surface draws transformed (each instance counted). */
  vertices: number;
  /** Triangles of the surface draws (each instance counted). */
  triangles: number;
  /** Joint matrices uploaded (every instance's palettes). */
  joints: number;
  /** CPU milliseconds of the last render call: uniforms, draw records, palette upload, encoding and submit. */
  encodeMs: number;
  /**
   * GPU milliseconds of the frame pass of a recent frame (timestamp queries, read back a
   * frame or two late); undefined without 'timestamp-query' or before the first result.
   */
  gpuMs: number | undefined;
}

/** One draw: a primitive of a mesh node. Its index i gives its draw records, i × instances + k. */
interface Draw {
  readonly meshNode: number;
  /** Index of the primitive in its mesh. */
  readonly primitiveIndex: number;
  /** Hierarchy slot of the mesh node (its world matrix in instance.nodeMatrices). */
  readonly nodeSlot: number;
  readonly primitive: GpuPrimitive;
  readonly material: GpuMaterial;
  /** The shaded pipeline's description (its `skinning` is the method it was first built for). */
  readonly desc: MeshPipelineDesc;
  /** By SkinningSlot; set once that method's pipelines are built (see Scene.skinningReady). */
  readonly pipelines: (GPURenderPipeline | undefined)[];
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
  skinning: SkinningSlot;
  /** SkinningSlot bits whose surface pipelines are built, and the builds under way. */
  skinningReady: number;
  readonly skinningBuilds: (Promise<void> | undefined)[];
  /** Per SkinningSlot: debug views being built because a frame asked for them (see `requestDebugViews`). */
  readonly debugRequested: number[];
  /** Per mesh node: 1 when its palette needs exact normals this frame (reused per instance). */
  readonly exactNormals: Uint8Array;
  /** NORMALS/TANGENTS line length when the setting is 0: a fraction of the rest radius. */
  readonly autoLineLength: number;
  readonly debug: DebugScene;
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
  /** Blended draw records (draw × instances + instance); re-sorted back to front every frame. */
  blendOrder: Int32Array;
  /** Entries of blendOrder in use, and the instance count they were made for. */
  blendCount: number;
  blendInstances: number;
  /** View-space depth by draw record. */
  blendDepth: Float32Array;
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
  readonly stats: RenderStats = {
    frames: 0, drawCalls: 0, instances: 0, culled: 0, vertices: 0, triangles: 0, joints: 0, encodeMs: 0, gpuMs: undefined,
  };
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
  private readonly frameBuffer: GPUBuffer;
  private readonly frameBindGroup: GPUBindGroup;
  private scene: Scene | undefined;

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
  private readonly onSkinningPrepareFailed = (e: unknown): void => {
    console.error(`${this.label}: building skinning pipelines failed:`, e);
  };

  constructor(private readonly device: GPUDevice, options: RendererOptions) {
    this.format = options.format;
    this.srgbTarget = isSrgbFormat(options.format);
    this.label = options.label ?? 'renderer';
    this.imageDecoder = options.imageDecoder ?? browserImageDecoder;
    this.pipelines = new MeshPipelines(device);
    this.debugPipelines = new DebugPipelines(device, this.pipelines);
    this.boundsOverlay = new BoundsOverlay(device, this.debugPipelines, options.format, this.label);
    this.mipmaps = new MipmapGenerator(device);
    this.defaults = createDefaultResources(device);
    if (options.gpuTiming !== false && device.features.has('timestamp-query')) {
      this.timer = new GpuTimer(device, { label: `${this.label} frame timer` });
    }
    this.frameBuffer = device.createBuffer({
      label: `${this.label} frame uniforms`,
      size: this.frameData.buffer.byteLength,
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
    this.frameBindGroup = device.createBindGroup({
      label: `${this.label} frame`,
      layout: this.pipelines.frameLayout,
      entries: [{ binding: FrameBinding.UNIFORMS, resource: { buffer: this.frameBuffer } }],
    });
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

  /** The model being drawn, if any. */
  get model(): Model | undefined {
    return this.scene?.model;
  }

  /** Pipelines created so far on this renderer (they are kept across models). */
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
    return scene ? scene.debug.readyFor(SKINNING_OF_SLOT[scene.skinning]) | (this.boundsOverlay.ready ? DebugView.BOUNDS : 0) : 0;
  }

  /**
   * The skinning method the next frame of the current model uses: `settings.skinning` once
   * its pipelines are built, the one frames used so far until then (the setting when no
   * model is set).
   */
  get skinning(): SkinningMethod {
    const scene = this.scene;
    const wanted = skinningSlot(this.settings.skinning);
    return SKINNING_OF_SLOT[!scene || (scene.skinningReady & (1 << wanted)) ? wanted : scene.skinning];
  }

  /**
   * Uploads `model` (buffers, textures, materials), creates the pipelines its draws need
   * (and those of the debug views `settings.debug` asks for) and makes it the model
   * `render` draws; frees the previous one.
   */
  async setModel(model: Model): Promise<void> {
    const gpu = await uploadModel({
      device: this.device, pipelines: this.pipelines, mipmaps: this.mipmaps,
      imageDecoder: this.imageDecoder, defaults: this.defaults,
    }, model);
    let scene: Scene | undefined;
    const skinning = SKINNING_OF_SLOT[skinningSlot(this.settings.skinning)];
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
    scene.debugRequested[scene.skinning] = scene.debug.readyFor(skinning);
  }

  /**
   * Builds the current model's pipelines for skinning `method` (default: the one
   * `settings.skinning` asks for); frames use it once this resolves (if it is still the setting).
   */
  async prepareSkinning(method: SkinningMethod = this.settings.skinning): Promise<void> {
    const scene = this.scene;
    if (!scene) return;
    await this.buildSkinning(scene, skinningSlot(method));
  }

  /** The surface pipelines of skinning slot `slot` for every draw (once; concurrent calls share the build). */
  private buildSkinning(scene: Scene, slot: SkinningSlot): Promise<void> {
    if (scene.skinningReady & (1 << slot)) return Promise.resolve();
    let build = scene.skinningBuilds[slot];
    if (!build) {
      const skinning = SKINNING_OF_SLOT[slot];
      build = (async () => {
        const pipelines: GPURenderPipeline[] = [];
        for (const d of scene.draws) pipelines.push(await this.pipelines.pipeline({ ...d.desc, skinning }));
        scene.draws.forEach((d, i) => { d.pipelines[slot] = pipelines[i]; });
        scene.skinningReady |= 1 << slot;
      })();
      // Kept even if it fails: frames do not retry (and report) every frame; awaiting it reports again.
      scene.skinningBuilds[slot] = build;
    }
    return build;
  }

  /**
   * Builds the pipelines and buffers of the debug views in `mask` (default: the ones
   * `settings.debug` asks for) for the current model; frames draw them once this resolves.
   */
  async prepareDebugViews(mask = this.settings.debug): Promise<void> {
    const scene = this.scene;
    if (!scene) return;
    // For the method the settings ask for, whose surface pipelines come first.
    const slot = skinningSlot(this.settings.skinning);
    scene.debugRequested[slot] |= mask & ALL_DEBUG_VIEWS;
    await Promise.all([
      this.buildSkinning(scene, slot), scene.debug.prepare(mask, SKINNING_OF_SLOT[slot]),
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
          skinning,
          morphed: primitive.morphFlags !== 0,
        };
        const pipeline = await this.pipelines.pipeline(desc);
        const pipelines: (GPURenderPipeline | undefined)[] = new Array(SKINNING_SLOTS).fill(undefined);
        pipelines[skinningSlot(skinning)] = pipeline;
        draws.push({
          meshNode: i,
          primitiveIndex: p,
          nodeSlot,
          primitive,
          material,
          desc,
          pipelines,
          vertexSlots: skinned ? primitive.vertexBuffers.length : primitive.surfaceSlotCount,
          skinned,
          staticFlags: (primitive.hasNormals ? 0 : DrawFlag.FLAT_NORMALS) | (primitive.hasTangents ? DrawFlag.HAS_TANGENTS : 0),
          triangles: primitive.topology === 'triangle-list' ? Math.floor(primitive.drawCount / 3)
            : primitive.topology === 'triangle-strip' ? Math.max(0, primitive.drawCount - 2) : 0,
        });
        restRadius = Math.max(restRadius, primitive.radius * maxAxisScale(restWorld, nodeSlot * 16));
      }
    }
    // Draws that share a pipeline for one method share it for the other (the keys differ in the method alone).
    const slot = skinningSlot(skinning);
    const pipelineIds = new Map<GPURenderPipeline, number>();
    const materialIds = new Map<GpuMaterial, number>();
    for (const d of draws) {
      if (!pipelineIds.has(d.pipelines[slot]!)) pipelineIds.set(d.pipelines[slot]!, pipelineIds.size);
      if (!materialIds.has(d.material)) materialIds.set(d.material, materialIds.size);
    }
    const solid: number[] = [];
    const blend: number[] = [];
    draws.forEach((d, i) => (d.material.alphaMode === 'BLEND' ? blend : solid).push(i));
    // Fewest state changes: group by pipeline, then by material.
    solid.sort((a, b) => (pipelineIds.get(draws[a].pipelines[slot]!)! - pipelineIds.get(draws[b].pipelines[slot]!)!)
      || (materialIds.get(draws[a].material)! - materialIds.get(draws[b].material)!) || a - b);

    let paletteMatrices = 0;
    for (const mn of model.meshNodes) if (mn.skin >= 0) paletteMatrices += model.skins[mn.skin].joints.length;
    const debug = new DebugScene({
      device: this.device, label: this.label, format: this.format,
      meshPipelines: this.pipelines, debugPipelines: this.debugPipelines,
    }, model, draws);
    const scene: Scene = {
      model, gpu, draws,
      solidOrder: Int32Array.from(solid),
      blendDraws: Int32Array.from(blend),
      paletteMatrices,
      skinning: slot,
      skinningReady: 1 << slot,
      skinningBuilds: new Array(SKINNING_SLOTS).fill(undefined),
      debugRequested: new Array(SKINNING_SLOTS).fill(0),
      exactNormals: new Uint8Array(model.meshNodes.length),
      autoLineLength: Math.max(restRadius, 1e-6) * DEBUG_LINE_LENGTH_FRACTION,
      debug,
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
    const capacity = Math.max(instances, scene.capacity * 2);
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
      ],
    });
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
   * position in a crowd). Growing beyond the most instances drawn so far reallocates the
   * per-instance buffers once; otherwise nothing is allocated.
   */
  renderInstances(target: GPUTexture, camera: Camera, instances: readonly ModelInstance[], count = instances.length, placements?: Float32Array): void {
    const started = performance.now();
    const scene = this.scene;
    if (scene) {
      for (let k = 0; k < count; k++) {
        if (instances[k].model !== scene.model) {
          throw new Error(`Renderer.render: the instance is of model "${instances[k].model.name}" but the renderer holds "${scene.model.name}"`);
        }
      }
      if (placements && placements.length < count * 16) throw new RangeError(`Renderer.renderInstances: ${count} instances need ${count * 16} placement floats, got ${placements.length}`);
      this.ensureCapacity(scene, count);
      this.selectSkinning(scene);
      this.requestDebugViews(scene);
    }
    this.ensureAttachments(target);
    camera.update(target.width / target.height);
    this.writeFrameUniforms(camera, target, scene);
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
    if (scene && count > 0 && (this.settings.culling || showBounds)) {
      const culler = scene.culler;
      culler.run(this.frameData.viewProjection, camera.view, instances, count, placements, SKINNING_OF_SLOT[scene.skinning], this.settings.culling, this.settings.culling);
      stats.culled = count - culler.visibleCount;
      instances = culler.instances;
      count = culler.visibleCount;
      placements = placements ? culler.placements : undefined;
    }
    stats.instances = scene ? count : 0;
    const encoder = this.device.createCommandEncoder(this.encoderDescriptor);
    const pass = encoder.beginRenderPass(this.passDescriptor);
    if (scene && scene.draws.length > 0 && count > 0) {
      this.writeDrawRecords(scene, instances, count, placements);
      queue.writeBuffer(scene.drawBuffer, 0, scene.records.buffer, 0, scene.draws.length * count * DRAW_RECORD_SIZE);
      const paletteBytes = scene.paletteMatrices * PALETTE_MATRIX_BYTES;
      if (paletteBytes > 0) {
        const staging = scene.paletteStaging;
        if (SKINNING_OF_SLOT[scene.skinning] === 'dual-quaternion') {
          // DqJoint entries fill the matrices' slots one for one: same offsets, same bytes.
          for (let k = 0; k < count; k++) {
            dqPaletteFromMatrices(instances[k].palette, scene.paletteMatrices, staging, 0, k * scene.paletteMatrices);
          }
          queue.writeBuffer(scene.paletteBuffer, 0, staging.buffer, staging.byteOffset, paletteBytes * count);
        } else if (count === 1) {
          const palette = instances[0].palette;
          queue.writeBuffer(scene.paletteBuffer, 0, palette.buffer, palette.byteOffset, paletteBytes);
        } else {
          const floats = scene.paletteMatrices * PALETTE_MATRIX_FLOATS;
          for (let k = 0; k < count; k++) staging.set(instances[k].palette, k * floats);
          queue.writeBuffer(scene.paletteBuffer, 0, staging.buffer, staging.byteOffset, paletteBytes * count);
        }
        stats.joints = scene.paletteMatrices * count;
      }
      this.sortBlended(scene, count, camera);
      this.encodeDraws(pass, scene, count);
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
   * The frame's skinning method: the setting when its pipelines are built; otherwise the
   * previous method, and the build starts (once; the frame path allocates only then).
   */
  private selectSkinning(scene: Scene): void {
    const wanted = skinningSlot(this.settings.skinning);
    if (scene.skinningReady & (1 << wanted)) {
      scene.skinning = wanted;
    } else if (!scene.skinningBuilds[wanted]) {
      this.buildSkinning(scene, wanted).catch(this.onSkinningPrepareFailed);
    }
  }

  /** Starts building debug views a frame asks for that are not built or being built (only when the mask or method changes). */
  private requestDebugViews(scene: Scene): void {
    const slot = scene.skinning;
    const wanted = this.settings.debug & ALL_DEBUG_VIEWS & ~scene.debugRequested[slot];
    if (wanted === 0) return;
    scene.debugRequested[slot] |= wanted;
    scene.debug.prepare(wanted, SKINNING_OF_SLOT[slot]).catch(this.onDebugPrepareFailed);
  }

  private encodeDraws(pass: GPURenderPassEncoder, scene: Scene, count: number): void {
    const stats = this.stats;
    const slot = scene.skinning;
    const debugMask = this.settings.debug & scene.debug.readyFor(SKINNING_OF_SLOT[slot]);
    const weights = (debugMask & DebugView.WEIGHTS) !== 0;
    const weightsPipelines = scene.debug.weightsPipelines(slot);
    pass.setBindGroup(BindGroup.FRAME, this.frameBindGroup);
    pass.setBindGroup(BindGroup.SKIN, scene.skinBindGroup);
    let pipeline: GPURenderPipeline | undefined;
    let material: GpuMaterial | undefined;
    let bound = -1;
    // Solid draws: every instance in one call.
    const solid = scene.solidOrder;
    for (let s = 0; s < solid.length; s++) {
      const index = solid[s];
      const d = scene.draws[index];
      const p = weights ? weightsPipelines[index] : d.pipelines[slot]!;
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
    // Blended draws: one call per (draw, instance), back to front.
    const order = scene.blendOrder;
    for (let e = 0; e < scene.blendCount; e++) {
      const record = order[e];
      const index = (record / count) | 0;
      const d = scene.draws[index];
      const p = weights ? weightsPipelines[index] : d.pipelines[slot]!;
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
    stats.drawCalls = solid.length + scene.blendCount;
    if (debugMask & ~DebugView.WEIGHTS) stats.drawCalls += scene.debug.encodeOverlays(pass, debugMask, count, slot);
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
    f.view.set(camera.view);
    f.projection.set(camera.projection);
    mat4.multiply(camera.projection, camera.view, f.viewProjection);
    f.cameraPosition.set(camera.position);
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
    const len = Math.hypot(w[0], w[1], w[2]) || 1;
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

  private writeDrawRecords(scene: Scene, instances: readonly ModelInstance[], count: number, placements: Float32Array | undefined): void {
    const { model, records, exactNormals, draws } = scene;
    const exactAlways = this.settings.normals === 'exact';
    // DQS normals always take the exact cofactor of the blended stretch (skinFrameDq): no palette scan.
    const dualQuaternion = SKINNING_OF_SLOT[scene.skinning] === 'dual-quaternion';
    const f32 = records.f32;
    const u32 = records.u32;
    const morphTargets = this.morphTargets;
    const morphWeights = this.morphWeights;
    for (let k = 0; k < count; k++) {
      const instance = instances[k];
      const m = instance.nodeMatrices;
      const { weights, weightOffsets } = instance.pose;
      const paletteBase = k * scene.paletteMatrices;
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
        if (placements) {
          // model = placement · node world.
          for (let c = 0; c < 4; c++) {
            const b0 = m[o + c * 4], b1 = m[o + c * 4 + 1], b2 = m[o + c * 4 + 2], b3 = m[o + c * 4 + 3];
            for (let r = 0; r < 4; r++) {
              f32[mo + c * 4 + r] = placements[po + r] * b0 + placements[po + 4 + r] * b1 + placements[po + 8 + r] * b2 + placements[po + 12 + r] * b3;
            }
          }
        } else {
          for (let c = 0; c < 16; c++) f32[mo + c] = m[o + c];
        }
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
      }
    }
  }

  /**
   * Back to front by view-space depth of each (draw, instance)'s bounds centre; insertion
   * sort, nearly sorted from the last frame.
   */
  private sortBlended(scene: Scene, count: number, camera: Camera): void {
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
    const v = camera.view;
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
    this.boundsOverlay.destroy();
    this.defaults.destroy();
    this.timer?.destroy();
  }
}

function destroyScene(scene: Scene): void {
  scene.debug.destroy();
  scene.gpu.destroy();
  scene.drawBuffer.destroy();
  scene.paletteBuffer.destroy();
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

/** Largest column length of the 3×3 part: how much the matrix can stretch a length. */
function maxAxisScale(m: Float64Array, o: number): number {
  return Math.max(Math.hypot(m[o], m[o + 1], m[o + 2]), Math.hypot(m[o + 4], m[o + 5], m[o + 6]), Math.hypot(m[o + 8], m[o + 9], m[o + 10]));
}
