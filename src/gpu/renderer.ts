import type { Crowd } from '../anim/crowd.ts';
import type { ModelInstance } from '../anim/instance.ts';
import { MaterialUniformAnimator } from './model/material-animation.ts';
import { resolveSkinningMethod, type SkinningMethod } from '../anim/skinning-method.ts';
import type { GltfWarning } from '../gltf/errors.ts';
import type { Model } from '../gltf/model.ts';
import { multiplyMat4 } from '../math/trs.ts';
import { FRUSTUM_FLOATS, frustumPlanes } from '../math/frustum.ts';
import type { Camera } from './frame/camera.ts';
import type { BoundsOverlay } from './debug/bounds-overlay.ts';
import { debugViewCode } from './debug/debug-code.ts';
import { DebugView } from './debug/views.ts';
import type { DrawPipelines } from './draw/draw-pipelines.ts';
import { DRAW_RECORD_SIZE } from './layouts/draw-record.ts';
import type { Environment } from './environment/environment.ts';
import { deviceSkybox, type Skybox } from './frame/skybox.ts';
import { writeDrawRecords } from './draw/draw-record-writer.ts';
import { FrameBindings } from './frame/frame-bindings.ts';
import { writeFrameUniforms } from './frame/frame-uniforms-writer.ts';
import { createDefaultResources, uploadModel, type DefaultResources } from './model/upload.ts';
import { forecastPipelines } from './draw/pipeline-forecast.ts';
import type { ModelShape } from '../gltf/model-shape.ts';
import { checkPaletteSource, type GpuPaletteSource } from './draw/palette-source.ts';
import { FramePlan } from './draw/frame-plan.ts';
import { backgroundBuildsSettled, type BuildFailure } from './device/background-build.ts';
import { GpuTimer } from './device/timer.ts';
import { groundDisc, placeGround, type GroundDisc } from './frame/ground.ts';
import { BindGroup, PALETTE_MATRIX_BYTES } from './layouts/bindings.ts';
import { allocationLimits, type AllocationLimits } from './device/limits.ts';
import { mipmapGenerator, type MipmapGenerator } from './textures/mipmaps.ts';
import { ModelDraws, type ModelDrawsContext } from './draw/model-draws.ts';
import { paletteFeed, uploadPalettes } from './draw/palette-upload.ts';
import { MeshPipelines } from './pipelines/mesh.ts';
import { chooseSkinningPath } from './draw/preskin-layout.ts';
import { createRenderStats, defaultRenderSettings, type RendererOptions, type RenderSettings, type RenderStats, type SkinningPath } from './frame/render-settings.ts';
import { RenderTargets } from './frame/render-targets.ts';
import { DEFAULT_SHADOW_MAP_SIZE, shadowCasterPipelines, ShadowMap } from './frame/shadow-map.ts';
import { browserImageDecoder, type ImageDecoder } from './textures/textures.ts';
import { TransmissionPass } from './draw/transmission-pass.ts';

/**
 * Draws model instances per frame: 4× MSAA, depth, resolved into any texture.
 *
 * GPU data by update rate: group 0 the frame uniforms (one writeBuffer per frame),
 * group 1 the palettes of every instance's skinned mesh nodes back to back (one
 * writeBuffer; matrices, or DqJoint entries for dual-quaternion skinning: palette-upload.ts),
 * one draw record per draw and instance (one writeBuffer; it carries the draw's morph
 * weights: draw-record-writer.ts) and the model's morph target deltas (written once at
 * upload), group 2 per material (written once at upload; materials a clip animates through
 * KHR_animation_pointer are rewritten when their values change: material-animation.ts). Every instance of a draw is one
 * instanced draw call: draw i's records are i × instances + k, so `firstInstance = i × instances`.
 * The current model's draws, their order, pipelines and per-instance buffers are its
 * ModelDraws (model-draws.ts); pipelines come from caches shared by every Renderer on the device.
 * `render` allocates nothing of its own: descriptors are preallocated and reused; the
 * command encoder, pass and (for a new target) its view are the only new objects.
 */
export class Renderer {
  readonly settings: RenderSettings = defaultRenderSettings();
  /** Updated in place by every frame. */
  readonly stats: RenderStats = createRenderStats();
  readonly format: GPUTextureFormat;
  private readonly label: string;
  private readonly pipelines: MeshPipelines;
  /** Made when the debug views' code is there (debug/debug-code.ts). */
  private boundsOverlay: BoundsOverlay | undefined;
  private readonly mipmaps: MipmapGenerator;
  private readonly defaults: DefaultResources;
  private readonly imageDecoder: ImageDecoder;
  private readonly timer: GpuTimer | undefined;
  private readonly limits: AllocationLimits;
  private readonly onWarning: (warning: GltfWarning) => void;
  /** What every model's draws are made with. */
  private readonly drawContext: ModelDrawsContext;
  private readonly targets: RenderTargets;
  private readonly shadow: ShadowMap;
  private readonly ground: GroundDisc;
  private readonly skybox: Skybox;
  /** The opaque scene transmissive surfaces sample (group 3 of their pipelines). */
  private readonly transmission: TransmissionPass;
  /** Bound as the skinned vertices on the vertex path (a storage binding cannot be empty). */
  private readonly skinnedPlaceholder: GPUBuffer;
  /** Group 0: the frame uniforms, the shadow map and the environment. */
  private readonly frame: FrameBindings;
  private readonly frameData: FrameBindings['data'];
  /** World → clip of the frame (the uniforms hold it camera-relative): what culling tests against. */
  private readonly worldViewProjection = new Float32Array(16);
  /** The frame's camera-relative frustum planes, for GPU culling. */
  private readonly cullPlanes = new Float32Array(FRUSTUM_FLOATS);
  private lastPath: SkinningPath = 'vertex';
  /** The current model's draws. */
  private current: ModelDraws | undefined;
  /** The current model's animated material uniforms (KHR_animation_pointer), when it has any. */
  private materialAnimator: MaterialUniformAnimator | undefined;
  /** Counts setVariant calls, so an older one that finishes later does not undo a newer one. */
  private variantRequest = 0;
  /** What the pass being drawn draws (renderInstances fills it in place). */
  private readonly plan = new FramePlan();
  private readonly encoderDescriptor: GPUCommandEncoderDescriptor;
  private readonly commandBuffers: GPUCommandBuffer[] = [];
  /** `render`'s one instance, as the list `renderInstances` takes. */
  private readonly single: ModelInstance[] = [];
  /** Logs a background build that failed (device/background-build.ts), naming what it built; made once, so frames pass it allocating nothing. */
  private readonly onBuildFailed: BuildFailure = (what, e) => console.error(`${this.label}: building ${what} failed:`, e);

  constructor(private readonly device: GPUDevice, options: RendererOptions) {
    this.format = options.format;
    this.label = options.label ?? 'renderer';
    this.imageDecoder = options.imageDecoder ?? browserImageDecoder;
    this.limits = allocationLimits(device, options.limits);
    this.onWarning = options.onWarning ?? ((w) => console.warn(`${this.label}: ${w.path}: ${w.message}`));
    this.pipelines = new MeshPipelines(device);
    this.mipmaps = mipmapGenerator(device);
    this.defaults = createDefaultResources(device);
    if (options.gpuTiming !== false && device.features.has('timestamp-query')) {
      this.timer = new GpuTimer(device, { label: `${this.label} frame timer` });
    }
    this.targets = new RenderTargets(device, this.format, this.label);
    this.shadow = new ShadowMap(device, this.label);
    this.ground = groundDisc(device, this.format);
    this.skybox = deviceSkybox(device, this.format);
    this.transmission = new TransmissionPass(device, this.label, this.onBuildFailed);
    this.skinnedPlaceholder = device.createBuffer({ label: `${this.label} skinned vertices placeholder`, size: 48, usage: GPUBufferUsage.STORAGE });
    this.drawContext = {
      device, label: this.label, format: this.format, limits: this.limits, meshPipelines: this.pipelines,
      casterPipelines: shadowCasterPipelines(device), skinnedPlaceholder: this.skinnedPlaceholder,
      onWarning: this.onWarning,
    };
    this.frame = new FrameBindings(device, this.label, this.pipelines.frameLayout, this.shadow);
    this.frameData = this.frame.data;
    this.encoderDescriptor = { label: `${this.label} frame` };
    this.commandBuffers.length = 1;
    this.single.length = 1;
  }

  /**
   * Uploads `model` (buffers, textures, materials), creates the pipelines its draws need
   * (and those of the debug views `settings.debug` asks for) and makes it the model
   * `render` draws; frees the previous one.
   */
  async setModel(model: Model): Promise<void> {
    const gpu = await uploadModel({
      device: this.device, pipelines: this.pipelines, mipmaps: this.mipmaps,
      imageDecoder: this.imageDecoder, defaults: this.defaults, limits: this.limits, mtoon: this.settings.mtoon,
    }, model);
    for (const w of gpu.warnings) this.onWarning(w);
    let draws: ModelDraws | undefined;
    const skinning = resolveSkinningMethod(this.settings.skinning);
    try {
      draws = await ModelDraws.create(this.drawContext, model, gpu, skinning, -1, this.settings.shadows || this.settings.ground);
      await draws.prepareDebug(this.settings.debug, skinning);
    } catch (e) {
      if (draws) draws.destroy();
      else gpu.destroy();
      throw e;
    }
    this.current?.destroy();
    this.current = draws;
    const animated = gpu.animatedMaterialUniforms;
    this.materialAnimator = animated ? new MaterialUniformAnimator(animated, model.materials) : undefined;
  }

  /** Starts compiling the pipelines a model of `shape` (its file's JSON) first draws with, while the file loads (draw/pipeline-forecast.ts); resolves with how many arrived. */
  forecast(shape: ModelShape): Promise<number> {
    const s = this.settings, limits = this.limits;
    return forecastPipelines({ device: this.device, meshPipelines: this.pipelines, format: this.format, maxVertexBuffers: limits.maxVertexBuffers, mtoon: s.mtoon, shadows: s.shadows, skinning: resolveSkinningMethod(s.skinning) }, shape);
  }

  /** The KHR_materials_variants variant the current model is drawn with (index into `model.variants`; -1: the file's own materials). */
  get variant(): number {
    return this.current?.variant ?? -1;
  }

  /**
   * Draws the current model with the materials of variant `variant` (index into
   * `model.variants`; -1: the file's own materials), once this resolves. The upload is
   * shared (nothing is uploaded again); the new draws' pipelines are built first for every
   * path, shadow and debug view the current ones have, so no frame shows a half switch.
   * The last call wins; a model set meanwhile drops the switch.
   */
  async setVariant(variant: number): Promise<void> {
    const request = ++this.variantRequest;
    const current = this.current;
    if (!current || current.variant === variant) return;
    const count = current.model.variants?.length ?? 0;
    if (variant !== -1 && !(Number.isInteger(variant) && variant >= 0 && variant < count)) {
      throw new RangeError(`variant ${variant} is not -1 or an index into the model's ${count} variant(s)`);
    }
    const next = await ModelDraws.switched(this.drawContext, current, variant);
    if (request !== this.variantRequest || this.current !== current) {
      next.destroy(true);
      // Only another switch of the same model came in between: this one is still the last.
      if (request === this.variantRequest && this.current?.model === current.model) await this.setVariant(variant);
      return;
    }
    current.destroy(true);
    this.current = next;
  }

  /** Vertex buffer bytes per vertex of the current model as uploaded (GpuModel.bytesPerVertex); 0 without one. */
  get bytesPerVertex(): number {
    return this.current?.gpu.bytesPerVertex ?? 0;
  }

  /** The model being drawn, if any. */
  get model(): Model | undefined {
    return this.current?.model;
  }

  /**
   * The skinning method the next frame of the current model uses: `settings.skinning` once
   * its pipelines are built, the one frames used so far until then (the setting when no
   * model is set).
   */
  get skinning(): SkinningMethod {
    const current = this.current;
    const wanted = resolveSkinningMethod(this.settings.skinning);
    return !current || current.pipelines.get(wanted, 'vertex', false) ? wanted : current.skinning;
  }

  /**
   * Builds the current model's pipelines for skinning `method` (default: the one
   * `settings.skinning` asks for); frames use it once this resolves (if it is still the setting).
   */
  async prepareSkinning(method: SkinningMethod = this.settings.skinning): Promise<void> {
    await this.current?.pipelines.ensure(resolveSkinningMethod(method), 'vertex', false);
  }

  /** Whether the current model's shadow pipelines (for the skinning method frames use) are built. */
  get shadowsReady(): boolean {
    const current = this.current;
    return current !== undefined && current.pipelines.get(current.skinning, 'vertex', true) !== undefined;
  }

  /**
   * Builds the current model's shadow pipelines for `method` (default: the setting's): the shadow
   * pass's and the shaded ones with the shadow lookup; frames with shadows on use them once this resolves.
   */
  async prepareShadows(method: SkinningMethod = this.settings.skinning): Promise<void> {
    await this.current?.pipelines.ensure(resolveSkinningMethod(method), 'vertex', true);
  }

  /**
   * Lights the scene with `environment` alone (src/gpu/environment/: prefilterEnvironment),
   * or with the key light and hemisphere of the settings when undefined (the default). The
   * caller owns the environment; it may be shared by several renderers on the device. With
   * one, shadows are cast from its dominant direction instead of `settings.lightDirection`.
   * `background` (default: the same) is what the skybox shows when `settings.skybox` is on.
   */
  setEnvironment(environment: Environment | undefined, background: Environment | undefined = environment): void {
    this.frame.setEnvironment(environment, background);
  }

  /** The environment frames are lit by (undefined: the key light and hemisphere). */
  get lighting(): Environment | undefined {
    return this.frame.environment;
  }

  /** Builds the skybox pipeline; frames with `settings.skybox` and an environment draw it once this resolves. */
  prepareSkybox(): Promise<void> {
    return this.skybox.prepare();
  }

  /**
   * Builds the current model's GPU culling (frames given a GpuPaletteSource cull on the GPU once
   * this resolves); resolves false when the device (no 'indirect-first-instance') or the model
   * (EXT_mesh_gpu_instancing nodes) cannot have it.
   */
  async prepareGpuCulling(): Promise<boolean> {
    return (await this.current?.prepareGpuPasses(this.onBuildFailed)) ?? false;
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
    await this.current?.pipelines.ensure(resolveSkinningMethod(method), 'compute', true);
  }

  /**
   * The compute path's skinned vertices of the last frame (`current`) or the one before
   * (`previous`): mesh-node-space position, normal, tangent (3 vec4f per vertex); vertex v
   * of draw i and instance k at k × `verticesPerInstance` + `drawBase[i]` + v (draws in the
   * Renderer's order: mesh nodes, then primitives). Undefined on the vertex path or before
   * two compute frames. See docs/renderer.md "Motion vectors".
   */
  skinnedVertices(which: 'current' | 'previous'): {
    readonly buffer: GPUBuffer; readonly instances: number; readonly verticesPerInstance: number; readonly drawBase: Int32Array;
  } | undefined {
    const current = this.current;
    const out = current?.preskin?.output(which);
    if (!current || !out) return undefined;
    return { ...out, verticesPerInstance: current.preskinVertices, drawBase: current.preskinBase };
  }

  /**
   * Builds the pipelines and buffers of the debug views in `mask` (default: the ones
   * `settings.debug` asks for) for the current model; frames draw them once this resolves.
   */
  async prepareDebugViews(mask = this.settings.debug): Promise<void> {
    const current = this.current;
    if (!current) return;
    // For the method the settings ask for, whose surface pipelines come first.
    const skinning = resolveSkinningMethod(this.settings.skinning);
    await Promise.all([
      current.pipelines.ensure(skinning, 'vertex', false), current.prepareDebug(mask, skinning),
      mask & DebugView.BOUNDS ? debugViewCode.prepare().then(() => this.requestBoundsOverlay()?.prepare()) : undefined,
    ]);
  }

  /** DebugView bits of the current model that are ready to draw (with the skinning method frames use now). */
  get debugViewsReady(): number {
    const current = this.current;
    return current ? current.debugReadyFor(current.skinning) | (this.boundsOverlay?.ready ? DebugView.BOUNDS : 0) : 0;
  }

  /**
   * Resolves once everything built in the background has arrived or failed (a failure is logged
   * as always; it does not reject this): what earlier frames and `prepare*` calls started, and
   * what is started while waiting, for every renderer on the page (they share pipelines and
   * lazily loaded code). A frame starts such a build the first time it needs something (a
   * skinning method, shadows, the ground, the skybox, GPU culling, a debug view, and the code
   * some of them load) and draws without it until it arrives; a frame drawn after this resolves
   * has them all, and may ask for more (shadows arriving make two passes, for which the compute
   * skinning path is built): draw a frame and await again until a frame starts nothing.
   */
  buildsSettled(): Promise<void> {
    return backgroundBuildsSettled();
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

  /**
   * Draws a crowd (of the current model, see `setModel`): its first `count` instances at their
   * placements, each primitive of the model as one instanced draw call, every palette in one
   * storage buffer. With `source` (the crowd's palettes evaluated on the GPU, as a GpuCrowd's
   * `gpu`: GpuPaletteSource) nothing of the palettes is uploaded and the crowd is bounded,
   * culled and drawn indirectly on the GPU (renderInstances). Allocates nothing (beyond the
   * one-time growth to a larger crowd).
   */
  renderCrowd(target: GPUTexture, camera: Camera, crowd: Crowd, source?: GpuPaletteSource): void {
    this.renderInstances(target, camera, crowd.instances, crowd.count, crowd.placements, source);
  }

  /**
   * Draws `instance` (of the current model) as seen by `camera` into `target`, which
   * must have RENDER_ATTACHMENT usage and `format` (or list it in its viewFormats).
   */
  render(target: GPUTexture, camera: Camera, instance: ModelInstance): void {
    this.single[0] = instance;
    try {
      this.renderInstances(target, camera, this.single, 1);
    } finally {
      this.single[0] = undefined as unknown as ModelInstance;
    }
  }

  /**
   * Draws `count` instances of the current model in one pass, each draw of the model as
   * one instanced draw call. `placements` (optional): 16 doubles per instance, a
   * column-major world matrix applied on top of the instance's own node matrices (its
   * position in a crowd, as Crowd.placements holds it). They stay in double precision until the
   * frame packs them for the GPU: combined with the node matrices and made camera-relative in
   * float64, then rounded once to float32 (draw records, the GPU record pass's placement rows),
   * so an instance far from the origin keeps its precision near the camera. Growing beyond the most instances
   * drawn so far reallocates the per-instance buffers once; otherwise nothing is allocated.
   * More instances than one storage binding holds (`maxInstances`, from the device limits)
   * are drawn in passes of that many, each submitted before the next overwrites the
   * per-instance buffers (blended surfaces are sorted within a pass; a chunked frame
   * allocates the views of `placements` its passes take).
   *
   * `source` (optional): the palettes are already on the GPU (a GPU pose evaluator's; see
   * GpuPaletteSource): nothing of them is uploaded, and bounds, frustum culling and compaction
   * run on the GPU (draw/culling-pass.ts), each draw one indirect call; `stats.instances` and
   * `stats.culled` are then read back a frame or two late (per chunk for crowds drawn in chunks).
   * Until the culling pipelines are built, without the 'indirect-first-instance' feature and for
   * EXT_mesh_gpu_instancing models, every instance is drawn unculled. The draw records are
   * written on the GPU too (draw/records-pass.ts), from the source's placements, morph weights and
   * mesh node matrices where it has them; models it cannot serve have theirs written from the
   * instances (node matrices, morph weights) as usual. Dual-quaternion and centre-of-rotation
   * skinning convert the source's matrices into DqJoint entries in a compute pass
   * (draw/dq-palette-pass.ts) and draw such frames unculled (their surfaces leave the linear bound
   * the GPU culler computes).
   *
   * Each pass is planned first (draw/frame-plan.ts: its range, palette feed, visible list,
   * skinning method and path), then run: uploads, compute, shadow pass, main pass.
   */
  renderInstances(
    target: GPUTexture, camera: Camera, instances: readonly ModelInstance[], count = instances.length, placements?: Float64Array,
    source?: GpuPaletteSource,
  ): void {
    const started = performance.now();
    const stats = this.stats;
    stats.drawCalls = stats.vertices = stats.triangles = stats.joints = stats.culled = stats.instances = stats.bytesUploaded = 0;
    const current = this.current;
    if (current) this.beginModelFrame(current, instances, count, placements);
    camera.update(target.width / target.height);
    const plan = this.plan;
    const chunk = current ? current.maxInstances : Math.max(1, count);
    try {
      for (let first = 0, index = 0; first === 0 || first < count; first += chunk, index++) {
        plan.setRange(instances, first, Math.min(chunk, count - first), count, index, placements);
        this.planPass(plan, current, camera, target, source);
        this.runPass(plan, current, camera, target);
      }
    } finally {
      plan.release();
    }
    stats.frames++;
    stats.gpuMs = this.timer?.lastMs;
    stats.encodeMs = performance.now() - started;
  }

  /**
   * Checks the frame's instances and placements, grows the per-instance buffers, decides the
   * frame's skinning method (the setting when its pipelines are built; otherwise the previous
   * one while they build) and starts building the debug views the settings ask for. Allocates
   * only when it grows or starts a build.
   */
  private beginModelFrame(current: ModelDraws, instances: readonly ModelInstance[], count: number, placements: Float64Array | undefined): void {
    for (let k = 0; k < count; k++) {
      if (instances[k].model !== current.model) {
        throw new Error(`Renderer.render: the instance is of model "${instances[k].model.name}" but the renderer holds "${current.model.name}"`);
      }
    }
    if (placements && placements.length < count * 16) throw new RangeError(`Renderer.renderInstances: ${count} instances need ${count * 16} placement floats, got ${placements.length}`);
    current.ensureCapacity(Math.min(count, current.maxInstances));
    const wanted = resolveSkinningMethod(this.settings.skinning);
    if (current.pipelines.request(wanted, 'vertex', false, this.onBuildFailed)) current.skinning = wanted;
    current.requestDebug(this.settings.debug, current.skinning, this.onBuildFailed);
  }

  /**
   * Resolves one pass: where its palettes come from, whether it can draw yet, the frame
   * uniforms (shadow fit and ground included), the visible list after culling and the
   * skinning path. Encodes and uploads nothing.
   */
  private planPass(plan: FramePlan, current: ModelDraws | undefined, camera: Camera, target: GPUTexture, source: GpuPaletteSource | undefined): void {
    const settings = this.settings;
    if (current) plan.skinning = current.skinning;
    plan.source = current ? source : undefined;
    plan.feed = paletteFeed(plan, current);
    if (plan.source) checkPaletteSource(plan.source, plan.first + plan.count, current!.paletteMatrices);
    current?.usePalettes(plan.feed === 'gpu' ? plan.source!.palettes : undefined);
    // Not drawn until the record pass is built when the source's per-instance data is needed (ModelDraws.awaitsGpuRecords).
    if (plan.source && plan.count > 0 && current!.awaitsGpuRecords(plan.source, this.onBuildFailed)) plan.count = 0;
    const drawing = current !== undefined && plan.count > 0;
    this.writeFrameUniforms(camera, target, current);
    const eye = camera.eye ?? camera.position;
    plan.shadowed = drawing && this.shadowFrame(current!, plan.instances, plan.count, plan.placements, eye);
    this.frameData.groundRadius[0] = 0;
    if (drawing && settings.ground) {
      if (this.ground.request(this.onBuildFailed)) placeGround(current!.groundFootprint, plan.count, plan.placements, eye, this.frameData);
    }
    // Culling compacts the instance list (nearest first): the draws see only survivors. GPU culling draws no CPU boxes.
    plan.showBounds = (settings.debug & DebugView.BOUNDS) !== 0 && !plan.source;
    if (plan.showBounds) this.requestBoundsOverlay();
    plan.gpuCuller = undefined;
    plan.paletteSlots = undefined;
    plan.visible = plan.instances;
    plan.visibleCount = plan.drawn = drawing ? plan.count : 0;
    plan.visiblePlacements = plan.placements;
    plan.culled = 0;
    if (drawing && plan.source) {
      plan.gpuCuller = current!.requestGpuCulling(this.onBuildFailed);
      if (plan.gpuCuller) {
        // The GPU's count of a frame or two ago (display only); this pass's until the first arrives.
        const visible = plan.gpuCuller.visibleCount(plan.chunk);
        plan.drawn = visible >= 0 ? Math.min(visible, plan.count) : plan.count;
        plan.culled = plan.count - plan.drawn;
      }
    } else if (drawing && (settings.culling || plan.showBounds)) {
      const culler = current!.culler;
      // The frame uniforms are camera-relative; the culler's boxes are in world space.
      multiplyMat4(camera.projection, camera.view, this.worldViewProjection);
      culler.run(this.worldViewProjection, camera.view, plan.instances, plan.count, plan.placements, plan.skinning, settings.culling, settings.culling, eye);
      plan.culled = plan.count - culler.visibleCount;
      // Palettes already back to back (a Crowd's) go up as they are: the survivors' records point at their slot there.
      plan.paletteSlots = culler.kept;
      plan.visible = culler.instances;
      plan.visibleCount = plan.drawn = culler.visibleCount;
      plan.visiblePlacements = plan.placements ? culler.placements : undefined;
    }
    // Skin once for every pass (compute path), or in each pass's vertex stage.
    plan.compute = plan.visibleCount > 0 && this.selectPath(current!, plan.shadowed ? 2 : 1, plan.visibleCount);
  }

  /** Runs a planned pass: uploads, compute (the source's passes, palettes, records, culling, pre-skinning), shadow pass, main pass; one submit. */
  private runPass(plan: FramePlan, current: ModelDraws | undefined, camera: Camera, target: GPUTexture): void {
    const stats = this.stats, queue = this.device.queue, settings = this.settings;
    const count = plan.visibleCount, source = plan.source, gpuCuller = plan.gpuCuller;
    const drawsModel = current !== undefined && current.draws.length > 0 && count > 0;
    queue.writeBuffer(this.frame.buffer, 0, this.frameData.buffer);
    let uploaded = this.frameData.buffer.byteLength + (plan.shadowed ? this.shadow.uniformBytes : 0);
    // Per model: the frame's first instance's values (a later pass of the frame keeps them).
    const materialValues = plan.count > 0 && !plan.continues ? plan.instances[0].materialAnimation : undefined;
    if (materialValues && this.materialAnimator) uploaded += this.materialAnimator.write(queue, materialValues);
    // A pass after the first draws over the previous ones: keep colour and depth between passes.
    const passDescriptor = this.targets.pass(target, settings.clearColor, plan.continues, plan.follows);
    passDescriptor.timestampWrites = this.timer?.beginPass();
    const encoder = this.device.createCommandEncoder(this.encoderDescriptor);
    const eye = camera.eye ?? camera.position;
    if (source && current) {
      // The source's upload and passes once per frame (the first pass's).
      if (!plan.continues) {
        uploaded += source.writeInstances?.(queue) ?? 0;
        source.encode?.(encoder);
      }
      if (count > 0) uploaded += this.feedGpuPalettes(encoder, plan, current, source);
    }
    if (drawsModel) {
      // Records (and palettes) go up before the passes that read them: the queue orders them before the submit.
      const exactNormals = settings.normals === 'exact';
      // With GPU palettes the records are written on the GPU where they can be (draw/records-pass.ts): from the
      // source's placements, morph weights and mesh node matrices, a chunk from its first instance on.
      const gpuRecords = source && current.requestGpuRecords(this.onBuildFailed);
      if (gpuRecords && gpuRecords.servesFrom(source)) {
        uploaded += gpuRecords.encode(encoder, queue, current.palettes, current.drawBuffer, count, plan.visiblePlacements, eye, exactNormals, source, plan.first);
      } else {
        writeDrawRecords(current, plan.visible, count, plan.visiblePlacements, eye, plan.feed === 'in-place' ? plan.paletteSlots : undefined, exactNormals);
        const recordBytes = current.draws.length * count * DRAW_RECORD_SIZE;
        queue.writeBuffer(current.drawBuffer, 0, current.records.buffer, 0, recordBytes);
        uploaded += recordBytes;
      }
      if (!source) {
        uploaded += uploadPalettes(queue, current, plan);
        stats.joints += current.paletteMatrices * count;
      }
      if (gpuCuller) {
        frustumPlanes(this.frameData.viewProjection, this.cullPlanes);
        // DqJoint surfaces leave the linear bound the culler computes: compacted, not culled.
        uploaded += gpuCuller.encode(encoder, queue, current.palettes, current.drawBuffer, count, this.cullPlanes, settings.culling && plan.feed !== 'gpu-converted', plan.chunk);
      }
    }
    const indirect = gpuCuller?.args;
    const pipelines = current && this.framePipelines(current, plan.compute);
    let skinGroup = gpuCuller ? current?.culledSkinBindGroup : current?.skinBindGroup;
    if (plan.compute) skinGroup = current!.preskin!.encode(encoder, pipelines!.compute, count, gpuCuller !== undefined);
    if (plan.shadowed) stats.drawCalls += this.shadow.encode(encoder, current!.draws, current!.solidOrder, pipelines!.casters, skinGroup!, count, undefined, current!.solidRuns, indirect);
    if (pipelines && pipelines.transmission.length > 0) {
      stats.drawCalls += this.transmission.encode(
        encoder, target.width, target.height, this.frame.group, this.frame.background !== undefined && settings.skybox, settings.clearColor, settings.exposure, current!, count, skinGroup!, pipelines.transmission, indirect,
      );
    }
    const pass = encoder.beginRenderPass(passDescriptor);
    if (this.frame.background && settings.skybox && !plan.continues) stats.drawCalls += this.encodeSkybox(pass);
    if (drawsModel) {
      if (!indirect) current.sortBlended(count, this.frameData.view);
      this.encodeModel(pass, current, count, plan.drawn, skinGroup!, pipelines!, indirect, plan.compute);
      if (plan.showBounds && this.boundsOverlay) {
        stats.drawCalls += this.boundsOverlay.encode(pass, current.culler.boxes, count);
        uploaded += this.boundsOverlay.uploadedBytes;
      }
    }
    pass.end();
    this.timer?.endPass(encoder);
    this.commandBuffers[0] = encoder.finish();
    queue.submit(this.commandBuffers);
    this.timer?.afterSubmit();
    gpuCuller?.afterSubmit();
    stats.instances += current ? plan.drawn : 0;
    stats.culled += plan.culled;
    stats.bytesUploaded += uploaded;
  }

  /** The pass's GPU palettes into the model's own buffer where the plan says so (a chunk's range, or converted to DqJoint entries); returns the bytes written. */
  private feedGpuPalettes(encoder: GPUCommandEncoder, plan: FramePlan, current: ModelDraws, source: GpuPaletteSource): number {
    const m = current.paletteMatrices, count = plan.visibleCount;
    if (m === 0) return 0;
    // Converted only for a method that reads DqJoint entries, whose pipelines were built after its pass (ModelDraws.create).
    if (plan.feed === 'gpu-converted') return current.dqPalettes!.encode(encoder, this.device.queue, source.palettes, current.paletteBuffer, count * m, plan.first * m);
    if (plan.feed === 'gpu-range') encoder.copyBufferToBuffer(source.palettes, plan.first * m * PALETTE_MATRIX_BYTES, current.paletteBuffer, 0, count * m * PALETTE_MATRIX_BYTES);
    return 0;
  }

  private writeFrameUniforms(camera: Camera, target: GPUTexture, current: ModelDraws | undefined): void {
    this.frame.dropDestroyedEnvironments();
    writeFrameUniforms(this.frameData, camera, target, this.settings, this.frame.environment, current ? current.autoLineLength : 0);
  }

  /**
   * Shadows of this frame: when the setting is on and the pipelines are built, fits the
   * light and fills the frame uniforms' shadow fields (else shadowStrength 0; the first
   * such frame starts the build). Rebinds the frame group when the map was (re)created.
   */
  private shadowFrame(current: ModelDraws, instances: readonly ModelInstance[], count: number, placements: ArrayLike<number> | undefined, eye: ArrayLike<number>): boolean {
    const s = this.settings;
    this.frameData.shadowStrength[0] = 0;
    if (!s.shadows) return false;
    if (!current.pipelines.request(current.skinning, 'vertex', true, this.onBuildFailed)) return false;
    const size = Math.max(1, Math.min(this.device.limits.maxTextureDimension2D, Math.round(s.shadowMapSize) || DEFAULT_SHADOW_MAP_SIZE));
    const shadowed = this.shadow.fit(current.shadowCasters, instances, count, placements, eye, size, this.frameData);
    if (shadowed) this.frameData.shadowStrength[0] = Math.min(1, Math.max(0, s.shadowIntensity || 0));
    this.frame.followShadowMap();
    return shadowed;
  }

  /**
   * Whether this frame skins by compute: the setting (or the 'auto' rule for `passes`
   * passes) once that path is built for the frame's method; the first frame that wants it
   * starts the build and takes the vertex path.
   */
  private selectPath(current: ModelDraws, passes: number, count: number): boolean {
    let compute = current.preskinVertices > 0 && chooseSkinningPath(this.settings.skinningPath, passes, current.preskinVertices * count) === 'compute';
    if (compute && !current.pipelines.request(current.skinning, 'compute', true, this.onBuildFailed)) compute = false;
    this.lastPath = compute ? 'compute' : 'vertex';
    return compute;
  }

  /**
   * What this frame draws with: its method's pipelines on its path, with the shadow lookup
   * once shadows are on and built (the compute path's always have it).
   */
  private framePipelines(current: ModelDraws, compute: boolean): DrawPipelines {
    const table = current.pipelines;
    if (compute) return table.get(current.skinning, 'compute', true)!;
    return (this.settings.shadows && table.get(current.skinning, 'vertex', true)) || table.get(current.skinning, 'vertex', false)!;
  }

  /** The bounds overlay, made once the debug views' code is there (the first call imports it), its pipeline requested. */
  private requestBoundsOverlay(): BoundsOverlay | undefined {
    const code = this.boundsOverlay ? undefined : debugViewCode.request(this.onBuildFailed);
    if (code) this.boundsOverlay = new code.BoundsOverlay(this.device, code.debugPipelines(this.device), this.format, this.label);
    this.boundsOverlay?.request(this.onBuildFailed);
    return this.boundsOverlay;
  }

  /** The environment behind everything (its pipeline is built by the first frame that asks). */
  private encodeSkybox(pass: GPURenderPassEncoder): number {
    if (!this.skybox.request(this.onBuildFailed)) return 0;
    pass.setBindGroup(BindGroup.FRAME, this.frame.group);
    return this.skybox.encode(pass);
  }

  /**
   * The model's draws (WEIGHTS replaces their pipelines), the ground disc between its solid and blended ones, then the overlays.
   * `indirect`: a GPU-culled frame's arguments (the overlays then draw every instance from the uncompacted records);
   * `drawn`: the instances the stats count (GPU culling: those of the last count read back).
   */
  private encodeModel(
    pass: GPURenderPassEncoder, current: ModelDraws, count: number, drawn: number, skinGroup: GPUBindGroup, built: DrawPipelines,
    indirect: GPUBuffer | undefined, compute: boolean,
  ): void {
    const stats = this.stats;
    const method = current.skinning;
    const debugMask = this.settings.debug & current.debugReadyFor(method);
    pass.setBindGroup(BindGroup.FRAME, this.frame.group);
    pass.setBindGroup(BindGroup.SKIN, skinGroup);
    if (current.transmissive) pass.setBindGroup(BindGroup.TRANSMISSION, this.transmission.bindGroup);
    const weights = (debugMask & DebugView.WEIGHTS) !== 0;
    const pipelines = weights ? current.debug!.weightsPipelines(method) : built.surface;
    // Outlines (MToon) unless the weights view replaces the surfaces or their width is 0.
    const outlines = weights || this.frameData.outlineWidthScale[0] === 0 ? undefined : built.outline;
    stats.drawCalls += current.encode(pass, count, pipelines, this.frameData.groundRadius[0] > 0 ? this.ground : undefined, indirect, outlines);
    stats.vertices += current.surfaceVertices * drawn;
    stats.triangles += current.surfaceTriangles * drawn;
    if (debugMask & ~DebugView.WEIGHTS) {
      if (indirect) pass.setBindGroup(BindGroup.SKIN, compute ? current.preskin!.sourceRenderGroup : current.skinBindGroup);
      stats.drawCalls += current.debug!.encodeOverlays(pass, debugMask, count, method);
    }
  }

  /** Frees every GPU object this renderer created. The device (and its shared pipelines) stays alive. */
  destroy(): void {
    this.current?.destroy();
    this.current = undefined;
    this.materialAnimator = undefined;
    this.targets.destroy();
    this.frame.destroy();
    this.transmission.destroy();
    this.shadow.destroy();
    this.skinnedPlaceholder.destroy();
    this.boundsOverlay?.destroy();
    this.defaults.destroy();
    this.timer?.destroy();
  }
}
