/**
 * The GPU pose evaluator (issue #16): a crowd's clips sampled, crossfaded, carried down the
 * hierarchy and turned into skinning palettes by compute passes (shaders/crowd-eval.wgsl),
 * so a frame uploads only each instance's 32-byte state (layout.ts `InstanceState`) instead
 * of its palettes. The CPU batch (src/anim/batch.ts) stays the reference.
 *
 * Outputs, in the layouts the renderer's instanced draw reads:
 *   palettes      instance k's palette matrices from matrix k · paletteCount, mat4x4f,
 *                 (inverse(meshNode) ·) jointModel · inverseBind, as InstanceBatch.palette
 *   morphWeights  instance k's morph weights from float k · weightCount (Pose.weights order)
 *   placements    instance k's model → world matrix (16 floats), from its x y z yaw
 *   meshWorlds    instance k's moving mesh nodes' model matrices from matrix k · meshWorldCount
 *                 (moving-mesh-nodes.ts order; only for models whose clips move mesh nodes)
 *
 * Instances are evaluated in chunks that fit one storage binding each (limits.ts); per chunk
 * the bind groups and uniform blocks are made once, so a frame creates nothing.
 */
import crowdEvalWgsl from '../../../shaders/crowd-eval.wgsl?raw';
import type { Model } from '../../gltf/model.ts';
import { SLERP_LERP_COS } from '../../math/quat.ts';
import { perDevice } from '../device/per-device.ts';
import { wgslF32Constants } from '../device/shader-module.ts';
import { pipelineShader } from '../layouts/pipeline-shaders.ts';
import { cullGrid } from '../draw/culling-pass.ts';
import { allocationLimits, checkBufferSize, GpuLimitError, maxStorageBytes, type AllocationLimits } from '../device/limits.ts';
import {
  CROWD_WORKGROUP_SIZE, GLOBAL_VEC4S, INSTANCE_STATE_BYTES, InstanceStateOffset, LOCAL_VEC4S, NO_CLIP, PARAMS_BYTES, PARAMS_STRIDE, ParamsOffset,
} from './layout.ts';
import { packModel, type RootLock } from './pack.ts';
import { Interpolation } from '../../gltf/constants.ts';

export const CROWD_EVAL_WGSL = pipelineShader('crowd-eval', { 'f32 constants': wgslF32Constants({ SLERP_LERP_COS }), 'crowd-eval.wgsl': crowdEvalWgsl });

/**
 * How local→model runs between the sampling pass (one invocation per node) and the palette
 * pass (one per palette matrix): 'instance', one invocation per instance walking its slots
 * parent-first, or 'depth', one dispatch per hierarchy depth with one invocation per node there.
 */
export type HierarchyMode = 'instance' | 'depth';

/** Options of `GpuPoseEvaluator`: its label, how local→model runs, root locks and lowered limits. */
export interface GpuPoseEvaluatorOptions {
  readonly label?: string;
  /** Default 'instance' (measured: bench/README.md "GPU pose evaluator"). */
  readonly hierarchy?: HierarchyMode;
  /** Per clip, its root held in place (Crowd's root-motion clips). */
  readonly locks?: readonly (RootLock | undefined)[];
  /** Lower limits than the device's (tests drive the chunking and the refusals with them). */
  readonly limits?: Partial<AllocationLimits>;
  /** Most bytes of local-pose plus model-matrix scratch (default 32 MiB); bounds the chunk size. */
  readonly scratchBytes?: number;
}

/** Storage offsets must be multiples of 256 bytes; chunks are a multiple of this many instances so every range is. */
const CHUNK_GRANULE = 64;
const DEFAULT_SCRATCH_BYTES = 32 * 1024 * 1024;
const MAT4_BYTES = 64;
const VEC4_BYTES = 16;

interface Chunk {
  readonly first: number;
  readonly sample: GPUBindGroup;
  /** Sampling compiled without the crossfade (frames where no instance fades). */
  readonly sampleSteady: GPUBindGroup;
  /** Local→model per instance, or per level. */
  readonly hierarchy: GPUBindGroup | undefined;
  readonly levels: readonly GPUBindGroup[];
  readonly palette: GPUBindGroup | undefined;
  readonly meshWorlds: GPUBindGroup | undefined;
}

/**
 * Evaluates many instances of one model on the GPU in compute passes: samples their clips (with crossfades),
 * runs local→model and writes the palettes the draws read, with no per-instance CPU work. `GpuCrowd` drives
 * one; the CPU batch stays the reference.
 */
export class GpuPoseEvaluator {
  /** Instances evaluated by `encode` and uploaded by `writeInstances`; at most `capacity`. */
  count: number;
  readonly hierarchy: HierarchyMode;
  /** Palette matrices per instance. */
  readonly paletteCount: number;
  /** Morph weights per instance. */
  readonly weightCount: number;
  readonly nodeCount: number;
  /** Instances per chunk (one binding's worth). */
  readonly chunkSize: number;
  readonly palettes: GPUBuffer;
  readonly morphWeights: GPUBuffer | undefined;
  readonly placements: GPUBuffer;
  /** Moving mesh nodes per instance (movingMeshNodes(model).length). */
  readonly meshWorldCount: number;
  readonly meshWorlds: GPUBuffer | undefined;
  /** The per-instance state as uploaded: 8 words per instance (layout.ts InstanceState). */
  readonly state: Float32Array;
  readonly stateWords: Uint32Array;
  /** Bytes the last `writeInstances` wrote (state, plus the uniform blocks when `count` changed). */
  bytesUploaded = 0;

  private readonly states: GPUBuffer;
  private readonly noWeights: GPUBuffer | undefined;
  private readonly animation: GPUBuffer;
  private readonly nodes: GPUBuffer;
  private readonly levelSlots: GPUBuffer;
  private readonly paletteJoints: GPUBuffer;
  private readonly meshSlots: GPUBuffer | undefined;
  private readonly locals: GPUBuffer;
  private readonly globals: GPUBuffer;
  private readonly params: GPUBuffer;
  private readonly paramsData: Uint32Array;
  private readonly levels: readonly { readonly start: number; readonly count: number }[];
  private readonly chunks: readonly Chunk[];
  /** Only the mode's pipelines are made. */
  private readonly pipelines: {
    sample: GPUComputePipeline; sampleSteady: GPUComputePipeline; perInstance?: GPUComputePipeline; atLevel?: GPUComputePipeline; palette?: GPUComputePipeline;
    meshWorlds?: GPUComputePipeline;
  };
  /** Whether some instance of the last upload crossfades (picks the sampling pipeline). */
  private crossfading = true;
  private readonly maxGroups: number;
  private readonly grid = new Uint32Array(2);
  private paramsCount = -1;
  /** The pass descriptors, made once (a frame allocates nothing of its own). */
  private readonly passDescriptor: GPUComputePassDescriptor;
  private readonly timedPassDescriptor: { label: string; timestampWrites?: GPUComputePassTimestampWrites };

  constructor(readonly device: GPUDevice, readonly model: Model, readonly capacity: number, options: GpuPoseEvaluatorOptions = {}) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`GpuPoseEvaluator: capacity ${capacity} must be an integer ≥ 1`);
    const label = options.label ?? 'crowd evaluator';
    this.passDescriptor = { label };
    this.timedPassDescriptor = { label: `${label} (timed)` };
    this.hierarchy = options.hierarchy ?? 'instance';
    if (this.hierarchy !== 'instance' && this.hierarchy !== 'depth') throw new RangeError(`GpuPoseEvaluator: hierarchy ${String(this.hierarchy)} is not 'instance' or 'depth'`);
    const limits = allocationLimits(device, options.limits);
    const binding = maxStorageBytes(limits);
    const pack = packModel(model, options.locks);
    this.paletteCount = pack.paletteCount;
    this.weightCount = pack.weightCount;
    this.nodeCount = Math.max(1, model.hierarchy.count);
    this.levels = pack.levels;
    this.maxGroups = device.limits.maxComputeWorkgroupsPerDimension;
    if (pack.words.byteLength > binding) {
      throw new GpuLimitError(`GPU pose evaluator: the clips of "${model.name ?? 'model'}" pack to ${pack.words.byteLength} bytes of keys and channels, more than one storage binding holds on this device (${binding}); evaluate this model on the CPU (evaluator: 'cpu')`);
    }

    // The chunk: the most instances (a multiple of CHUNK_GRANULE) whose every per-instance range fits one binding and the scratch budget.
    const scratchPerInstance = this.nodeCount * (LOCAL_VEC4S + GLOBAL_VEC4S) * VEC4_BYTES;
    this.meshWorldCount = pack.meshSlots.length;
    const perInstance = [
      INSTANCE_STATE_BYTES, MAT4_BYTES, this.paletteCount * MAT4_BYTES, this.weightCount * 4, this.nodeCount * GLOBAL_VEC4S * VEC4_BYTES, this.meshWorldCount * MAT4_BYTES,
    ];
    let fit = Math.floor((options.scratchBytes ?? DEFAULT_SCRATCH_BYTES) / scratchPerInstance);
    for (const b of perInstance) if (b > 0) fit = Math.min(fit, Math.floor(binding / b));
    fit = Math.floor(fit / CHUNK_GRANULE) * CHUNK_GRANULE;
    if (fit < 1) {
      throw new GpuLimitError(`GPU pose evaluator: ${CHUNK_GRANULE} instances of "${model.name ?? 'model'}" (${this.nodeCount} nodes, ${this.paletteCount} palette matrices) need more than one storage binding holds on this device (${binding}) or the scratch budget; evaluate it on the CPU`);
    }
    const rounded = Math.ceil(capacity / CHUNK_GRANULE) * CHUNK_GRANULE;
    this.chunkSize = Math.min(fit, rounded);
    const chunkCount = Math.ceil(capacity / this.chunkSize);
    const total = chunkCount * this.chunkSize;

    const storage = (what: string, size: number): GPUBuffer => {
      checkBufferSize(limits, size, `GPU pose evaluator ${what}`);
      return device.createBuffer({ label: `${label} ${what}`, size: Math.max(16, size), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
    };
    this.states = storage('instance states', total * INSTANCE_STATE_BYTES);
    this.palettes = storage('palettes', Math.max(1, total * this.paletteCount) * MAT4_BYTES);
    this.morphWeights = this.weightCount > 0 ? storage('morph weights', total * this.weightCount * 4) : undefined;
    // A model without morph weights still binds something there (16 bytes, never read).
    this.noWeights = this.morphWeights ? undefined : storage('morph weights (none)', 16);
    this.placements = storage('placements', total * MAT4_BYTES);
    this.meshWorlds = this.meshWorldCount > 0 ? storage('mesh node matrices', total * this.meshWorldCount * MAT4_BYTES) : undefined;
    this.meshSlots = this.meshWorldCount > 0 ? storage('moving mesh slots', pack.meshSlots.byteLength) : undefined;
    this.animation = storage('animation pack', pack.words.byteLength);
    this.nodes = storage('nodes', pack.nodes.byteLength);
    this.levelSlots = storage('level slots', pack.levelSlots.byteLength);
    this.paletteJoints = storage('palette joints', pack.paletteJoints.byteLength);
    this.locals = storage('local poses', this.chunkSize * this.nodeCount * LOCAL_VEC4S * VEC4_BYTES);
    this.globals = storage('model matrices', this.chunkSize * this.nodeCount * GLOBAL_VEC4S * VEC4_BYTES);
    const queue = device.queue;
    queue.writeBuffer(this.animation, 0, pack.words);
    queue.writeBuffer(this.nodes, 0, pack.nodes);
    queue.writeBuffer(this.levelSlots, 0, pack.levelSlots);
    queue.writeBuffer(this.paletteJoints, 0, pack.paletteJoints);
    if (this.meshSlots) queue.writeBuffer(this.meshSlots, 0, pack.meshSlots);

    // Uniform blocks: per chunk one per hierarchy level plus one for the other passes.
    const blocksPerChunk = this.levels.length + 1;
    this.params = device.createBuffer({ label: `${label} params`, size: chunkCount * blocksPerChunk * PARAMS_STRIDE, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.paramsData = new Uint32Array((chunkCount * blocksPerChunk * PARAMS_STRIDE) / 4);
    for (let c = 0; c < chunkCount; c++) {
      for (let b = 0; b < blocksPerChunk; b++) {
        const o = ((c * blocksPerChunk + b) * PARAMS_STRIDE) / 4;
        const d = this.paramsData;
        d[o + ParamsOffset.FIRST / 4] = c * this.chunkSize;
        d[o + ParamsOffset.NODE_COUNT / 4] = this.nodeCount;
        d[o + ParamsOffset.PALETTE_COUNT / 4] = this.paletteCount;
        d[o + ParamsOffset.WEIGHT_COUNT / 4] = this.weightCount;
        d[o + ParamsOffset.REST_WEIGHTS_AT / 4] = pack.restWeightsAt;
        if (b > 0) {
          d[o + ParamsOffset.LEVEL_START / 4] = this.levels[b - 1].start;
          d[o + ParamsOffset.LEVEL_COUNT / 4] = this.levels[b - 1].count;
        }
      }
    }

    const constants = specialisation(model, pack.weightCount, options.locks);
    const pipeline = (entryPoint: string, extra: Record<string, number> = {}, name = entryPoint): GPUComputePipeline =>
      evaluatorPipeline(device, entryPoint, { ...constants, ...extra }, name);
    this.pipelines = {
      sample: pipeline('sampleLocals'),
      sampleSteady: pipeline('sampleLocals', { HAS_CROSSFADE: 0 }, 'sampleLocals without crossfades'),
      ...(this.hierarchy === 'instance' ? { perInstance: pipeline('modelPerInstance') } : { atLevel: pipeline('modelAtLevel') }),
      ...(this.paletteCount > 0 ? { palette: pipeline('writePalettes') } : {}),
      ...(this.meshWorldCount > 0 ? { meshWorlds: pipeline('writeMeshWorlds') } : {}),
    };
    const pl = this.pipelines;

    const range = (buffer: GPUBuffer, first: number, bytesPer: number) => ({ buffer, offset: first * bytesPer, size: this.chunkSize * bytesPer });
    const block = (c: number, b: number) => ({ buffer: this.params, offset: (c * blocksPerChunk + b) * PARAMS_STRIDE, size: PARAMS_BYTES });
    const chunks: Chunk[] = [];
    for (let c = 0; c < chunkCount; c++) {
      const first = c * this.chunkSize;
      const group = (p: GPUComputePipeline, what: string, entries: [number, GPUBufferBinding][]): GPUBindGroup => device.createBindGroup({
        label: `${label} ${what} chunk ${c}`, layout: p.getBindGroupLayout(0), entries: entries.map(([binding, resource]) => ({ binding, resource })),
      });
      const sampleEntries: [number, GPUBufferBinding][] = [
        [0, block(c, 0)], [1, range(this.states, first, INSTANCE_STATE_BYTES)], [2, { buffer: this.animation }], [3, { buffer: this.nodes }],
        [4, { buffer: this.locals }],
        [5, this.morphWeights ? range(this.morphWeights, first, this.weightCount * 4) : { buffer: this.noWeights! }],
        [6, range(this.placements, first, MAT4_BYTES)],
      ];
      const sample = group(pl.sample, 'sampling', sampleEntries);
      const sampleSteady = group(pl.sampleSteady, 'sampling without crossfades', sampleEntries);
      const hierarchyEntries = (b: number): [number, GPUBufferBinding][] => [
        [0, block(c, b)], [3, { buffer: this.nodes }], [4, { buffer: this.locals }], [7, { buffer: this.globals }],
      ];
      const hierarchy = pl.perInstance && group(pl.perInstance, 'hierarchy', hierarchyEntries(0));
      const atLevel = pl.atLevel;
      const levels = atLevel ? this.levels.map((_, l) => group(atLevel, `hierarchy level ${l}`, [...hierarchyEntries(l + 1), [8, { buffer: this.levelSlots }]])) : [];
      const palette = pl.palette && group(pl.palette, 'palettes', [
        [0, block(c, 0)], [7, { buffer: this.globals }], [9, { buffer: this.paletteJoints }], [10, range(this.palettes, first, this.paletteCount * MAT4_BYTES)],
      ]);
      // The slots binding's exact size: the shader takes the count from its arrayLength.
      const meshWorlds = pl.meshWorlds && group(pl.meshWorlds, 'mesh node matrices', [
        [0, block(c, 0)], [7, { buffer: this.globals }], [11, { buffer: this.meshSlots!, size: pack.meshSlots.byteLength }],
        [12, range(this.meshWorlds!, first, this.meshWorldCount * MAT4_BYTES)],
      ]);
      chunks.push({ first, sample, sampleSteady, hierarchy, levels, palette, meshWorlds });
    }
    this.chunks = chunks;
    this.state = new Float32Array(total * (INSTANCE_STATE_BYTES / 4));
    this.stateWords = new Uint32Array(this.state.buffer);
    for (let k = 0; k < total; k++) this.stateWords[k * 8 + InstanceStateOffset.CLIPS / 4] = NO_CLIP | (NO_CLIP << 16);
    this.count = capacity;
  }

  /**
   * Instance k plays `clip` (-1: rest pose) at `time` seconds, crossfading from `partner`
   * (-1: none) at `partnerTime` with `weight` (0: all partner, 1: all clip). Times are
   * taken as f32. Allocates nothing; the doubles come in as arguments here because tests and
   * tools call it, while the per-frame Crowd path writes `state` directly.
   */
  setInstance(k: number, clip: number, time: number, partner = -1, partnerTime = 0, weight = 1): void {
    const o = k * 8;
    this.stateWords[o + InstanceStateOffset.CLIPS / 4] = (clip < 0 ? NO_CLIP : clip) | ((partner < 0 ? NO_CLIP : partner) << 16);
    this.state[o + InstanceStateOffset.TIME / 4] = time;
    this.state[o + InstanceStateOffset.PARTNER_TIME / 4] = partnerTime;
    this.state[o + InstanceStateOffset.WEIGHT / 4] = weight;
  }

  /** Instance k's placement: at (x, y, z), turned `yaw` radians about +Y. */
  setPlacement(k: number, x: number, y: number, z: number, yaw: number): void {
    const o = k * 8 + InstanceStateOffset.PLACEMENT / 4;
    this.state[o] = x; this.state[o + 1] = y; this.state[o + 2] = z; this.state[o + 3] = yaw;
  }

  /** Uploads the state of the first `count` instances: count × 32 bytes, one writeBuffer. Returns the bytes written. */
  writeInstances(queue: GPUQueue = this.device.queue): number {
    this.checkCount();
    let bytes = this.count * INSTANCE_STATE_BYTES;
    if (this.count > 0) queue.writeBuffer(this.states, 0, this.state.buffer, 0, bytes);
    // Crossfades are rare: without one, sampling runs a pipeline compiled without them.
    const words = this.stateWords;
    let crossfading = false;
    for (let o = InstanceStateOffset.CLIPS / 4, end = this.count * (INSTANCE_STATE_BYTES / 4); o < end && !crossfading; o += INSTANCE_STATE_BYTES / 4) {
      crossfading = words[o] >>> 16 !== NO_CLIP && (words[o] & NO_CLIP) !== NO_CLIP;
    }
    this.crossfading = crossfading;
    if (this.paramsCount !== this.count) {
      // Each chunk's count of live instances (only when `count` changed).
      const blocksPerChunk = this.levels.length + 1;
      for (let c = 0; c < this.chunks.length; c++) {
        const live = Math.max(0, Math.min(this.chunkSize, this.count - c * this.chunkSize));
        for (let b = 0; b < blocksPerChunk; b++) this.paramsData[((c * blocksPerChunk + b) * PARAMS_STRIDE + ParamsOffset.COUNT) / 4] = live;
      }
      queue.writeBuffer(this.params, 0, this.paramsData);
      bytes += this.paramsData.byteLength;
      this.paramsCount = this.count;
    }
    this.bytesUploaded = bytes;
    return bytes;
  }

  /**
   * Records the evaluation of the first `count` instances (as last uploaded by
   * `writeInstances`) in one compute pass: per chunk, sampling, local→model, palettes.
   * `timestampWrites` measures the pass (GpuTimer). Allocates nothing.
   */
  encode(encoder: GPUCommandEncoder, timestampWrites?: GPUComputePassTimestampWrites): void {
    this.checkCount();
    let descriptor = this.passDescriptor;
    if (timestampWrites) {
      descriptor = this.timedPassDescriptor;
      descriptor.timestampWrites = timestampWrites;
    }
    const pass = encoder.beginComputePass(descriptor);
    const p = this.pipelines;
    for (let c = 0; c < this.chunks.length; c++) {
      const chunk = this.chunks[c];
      const live = Math.min(this.chunkSize, this.count - chunk.first);
      if (live <= 0) break;
      pass.setPipeline(this.crossfading ? p.sample : p.sampleSteady);
      pass.setBindGroup(0, this.crossfading ? chunk.sample : chunk.sampleSteady);
      this.dispatch(pass, live * this.nodeCount);
      if (this.hierarchy === 'instance') {
        pass.setPipeline(p.perInstance!);
        pass.setBindGroup(0, chunk.hierarchy!);
        this.dispatch(pass, live);
      } else {
        pass.setPipeline(p.atLevel!);
        for (let l = 0; l < this.levels.length; l++) {
          pass.setBindGroup(0, chunk.levels[l]);
          this.dispatch(pass, live * this.levels[l].count);
        }
      }
      if (chunk.palette) {
        pass.setPipeline(p.palette!);
        pass.setBindGroup(0, chunk.palette);
        this.dispatch(pass, live * this.paletteCount);
      }
      if (chunk.meshWorlds) {
        pass.setPipeline(p.meshWorlds!);
        pass.setBindGroup(0, chunk.meshWorlds);
        this.dispatch(pass, live * this.meshWorldCount);
      }
    }
    pass.end();
  }

  /** Workgroups for `invocations`, along x up to the device's limit, continuing along y (cullGrid). */
  private dispatch(pass: GPUComputePassEncoder, invocations: number): void {
    const grid = cullGrid(invocations, this.maxGroups, this.grid, CROWD_WORKGROUP_SIZE);
    if (grid[0] > 0) pass.dispatchWorkgroups(grid[0], grid[1]);
  }

  private checkCount(): void {
    const n = this.count;
    if (!Number.isInteger(n) || n < 0 || n > this.capacity) throw new RangeError(`GpuPoseEvaluator: count ${n} is not in [0, ${this.capacity}]`);
  }

  /** Releases its GPU buffers; the evaluator is unusable afterwards. */
  destroy(): void {
    for (const b of [this.states, this.palettes, this.morphWeights, this.placements, this.animation, this.nodes, this.levelSlots, this.paletteJoints, this.locals, this.globals, this.params, this.noWeights, this.meshWorlds, this.meshSlots]) b?.destroy();
  }
}

/**
 * crowd-eval.wgsl's module and its pipelines on a device, one per entry point and specialisation:
 * every evaluator with the same features shares them (a crowd of another size or model, a second
 * viewer's crowd), as the renderer's pipelines are shared, instead of compiling its five again.
 */
const evaluatorPipelines = perDevice((device) => ({
  module: device.createShaderModule({ label: 'crowd-eval.wgsl', code: CROWD_EVAL_WGSL }),
  pipelines: new Map<string, GPUComputePipeline>(),
}));

function evaluatorPipeline(device: GPUDevice, entryPoint: string, constants: Record<string, number>, name: string): GPUComputePipeline {
  const { module, pipelines } = evaluatorPipelines(device);
  const features = Object.entries(constants).map(([k, v]) => `${k}=${v}`).join(' ');
  const key = `${entryPoint} ${features}`;
  let made = pipelines.get(key);
  if (!made) {
    made = device.createComputePipeline({ label: `crowd evaluator ${name} (${features})`, layout: 'auto', compute: { module, entryPoint, constants } });
    pipelines.set(key, made);
  }
  return made;
}

/** crowd-eval.wgsl's feature overrides for this model: false compiles that code out. */
export function specialisation(model: Model, weightCount: number, locks: readonly (RootLock | undefined)[] = []): Record<string, number> {
  let cubic = false, step = false;
  for (const clip of model.animations) {
    for (const ch of clip.channels) {
      cubic ||= ch.sampler.interpolation === Interpolation.CUBICSPLINE;
      step ||= ch.sampler.interpolation === Interpolation.STEP;
    }
  }
  return {
    HAS_CUBICSPLINE: cubic ? 1 : 0, HAS_STEP: step ? 1 : 0, HAS_ROOT_LOCKS: locks.some((l) => l !== undefined) ? 1 : 0, HAS_MORPH_WEIGHTS: weightCount > 0 ? 1 : 0,
  };
}
