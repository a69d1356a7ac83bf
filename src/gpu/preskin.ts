/**
 * The Renderer's compute skinning path ("skin once, use in every pass"): shaders/preskin.wgsl
 * morphs and skins every skinned draw's vertices of every instance once per frame into a
 * storage buffer; the lit pass and the shadow pass read them (mesh.wgsl vsPreskinned)
 * instead of each skinning in its vertex stage. RenderSettings.skinningPath chooses; see
 * `chooseSkinningPath` for the 'auto' rule and README "Skinning paths" for the measurement.
 *
 * Output: per vertex three vec4f (position xyz 1, normal xyz 0, tangent xyzw) in mesh-node
 * space, instance-major: vertex v of skinned draw i and instance k is at
 *   k × verticesPerInstance + drawBase[i] + v
 * (the draw record's `skinnedBase` holds the first two terms). Two such buffers alternate
 * frame by frame, so the previous frame's skinned vertices stay available (motion vectors:
 * `previous`); each has its own render and compute bind group, made when the capacity grows.
 *
 * Inputs are written once per model: the source vertices (position, normal, tangent, with
 * the vertex path's defaults where an attribute is absent), joints widened to u32 and the
 * file's weights dequantised as the vertex fetch does (unorm8 c/255, unorm16 c/65535), not
 * renormalised: both paths divide by the weight sum in the same skinning function, so they
 * compute the same numbers.
 */
import drawRecordWgsl from '../../shaders/draw-record.wgsl?raw';
import morphWgsl from '../../shaders/morph.wgsl?raw';
import preskinWgsl from '../../shaders/preskin.wgsl?raw';
import skinningWgsl from '../../shaders/skinning.wgsl?raw';
import { ComponentType } from '../gltf/constants.ts';
import type { Model, Primitive } from '../gltf/model.ts';
import type { SkinningMethod } from '../anim/skinning-method.ts';
import type { GpuPrimitive } from './gpu-model.ts';
import { SkinBinding } from './layouts.ts';
import { compileShaderModule } from './shader-module.ts';

export const PRESKIN_WGSL = `${skinningWgsl}\n${drawRecordWgsl}\n${morphWgsl}\n${preskinWgsl}`;
export const PRESKIN_ENTRY_POINT = 'preskin';
export const PRESKIN_WORKGROUP_SIZE = 64;
/** vec4f per skinned vertex: position, normal, tangent. */
export const SKINNED_VERTEX_VEC4S = 3;
export const SKINNED_VERTEX_BYTES = SKINNED_VERTEX_VEC4S * 16;
/** Floats per source vertex (WGSL SOURCE_VERTEX_FLOATS). */
export const SOURCE_VERTEX_FLOATS = 10;

/** `@binding(N)` of preskin.wgsl's group 0. */
export const PreskinBinding = {
  PALETTE: 0,
  DRAWS: 1,
  MORPH_DELTAS: 2,
  SOURCES: 3,
  JOINTS: 4,
  WEIGHTS: 5,
  SKINNED: 6,
  PARAMS: 7,
} as const;

/** The fields of WGSL `struct PreskinParams`, in order; each a u32. */
export const PRESKIN_PARAMS_FIELDS = ['draw', 'vertexCount', 'sourceBase', 'influenceBase'] as const;
export const PRESKIN_PARAMS_BYTES = PRESKIN_PARAMS_FIELDS.length * 4;

/** How skinned vertices reach the passes: skinned in each pass's vertex stage, or once by compute. */
export type SkinningPath = 'vertex' | 'compute';

/**
 * The 'auto' rule, from bench/gpu/skin-paths.ts (README "Skinning paths"). Measured on Dawn
 * over SwiftShader with Fox crowds of 1–48 at two target sizes, with each skinned draw's
 * compute pipeline specialised (`preskinVariants`): with two passes (shadows on) the compute
 * path's frame cost 0.80–1.04× the vertex path's (median 0.88, 7 of 8 sizes faster, down to
 * one Fox); with one pass 0.78–1.16× (median 1.07: the compute pass and its storage round
 * trip cost about what skinning in a single vertex stage does). So 'auto' takes compute from
 * AUTO_COMPUTE_MIN_PASSES passes, when the frame skins at least AUTO_COMPUTE_MIN_VERTICES
 * vertices — one Fox (434 vertices as uploaded) is the smallest size measured.
 */
export const AUTO_COMPUTE_MIN_PASSES = 2;
export const AUTO_COMPUTE_MIN_VERTICES = 400;

export function chooseSkinningPath(setting: 'auto' | SkinningPath, passes: number, skinnedVertices: number): SkinningPath {
  if (setting === 'vertex' || setting === 'compute') return setting;
  return passes >= AUTO_COMPUTE_MIN_PASSES && skinnedVertices >= AUTO_COMPUTE_MIN_VERTICES ? 'compute' : 'vertex';
}

/** What the compute path needs of one of the Renderer's draws. */
export interface PreskinDraw {
  readonly primitive: GpuPrimitive;
  readonly skinned: boolean;
  readonly meshNode: number;
  readonly primitiveIndex: number;
}

/** Per draw: its first vertex in an instance's block (-1 for rigid draws), and the block's size. */
export interface PreskinLayout {
  readonly drawBase: Int32Array;
  readonly verticesPerInstance: number;
}

export function preskinLayout(draws: readonly PreskinDraw[]): PreskinLayout {
  const drawBase = new Int32Array(draws.length).fill(-1);
  let n = 0;
  draws.forEach((d, i) => {
    if (!d.skinned) return;
    drawBase[i] = n;
    n += d.primitive.vertexCount;
  });
  return { drawBase, verticesPerInstance: n };
}

/** What a skinned draw's compute pipeline is specialised for (preskin.wgsl's per-draw overrides). */
export interface PreskinVariant {
  /** 1: JOINTS_0/WEIGHTS_0; 2: also JOINTS_1/WEIGHTS_1. */
  readonly influenceSets: number;
  readonly morphed: boolean;
}

/** The variant of each skinned draw, in draw order (the order `PreskinBuffers.encode` dispatches them). */
export function preskinVariants(draws: readonly PreskinDraw[]): PreskinVariant[] {
  return draws.filter((d) => d.skinned).map((d) => ({ influenceSets: d.primitive.source.influences / 4, morphed: d.primitive.morphFlags !== 0 }));
}

/** Dequantises a WEIGHTS accessor's component as the vertex fetch does. */
function weightValue(componentType: number, value: number): number {
  if (componentType === ComponentType.UNSIGNED_BYTE) return value / 255;
  if (componentType === ComponentType.UNSIGNED_SHORT) return value / 65535;
  return value;
}

interface Bases { readonly sourceBase: number; readonly influenceBase: number }

const layouts = new WeakMap<GPUDevice, GPUBindGroupLayout>();

function preskinBindGroupLayout(device: GPUDevice): GPUBindGroupLayout {
  let layout = layouts.get(device);
  if (!layout) {
    const storage = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry =>
      ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } });
    const B = PreskinBinding;
    layout = device.createBindGroupLayout({
      label: 'preskin (group 0)',
      entries: [
        storage(B.PALETTE, 'read-only-storage'), storage(B.DRAWS, 'read-only-storage'), storage(B.MORPH_DELTAS, 'read-only-storage'),
        storage(B.SOURCES, 'read-only-storage'), storage(B.JOINTS, 'read-only-storage'), storage(B.WEIGHTS, 'read-only-storage'),
        storage(B.SKINNED, 'storage'),
        { binding: B.PARAMS, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform', hasDynamicOffset: true, minBindingSize: PRESKIN_PARAMS_BYTES } },
      ],
    });
    layouts.set(device, layout);
  }
  return layout;
}

const pipelines = new WeakMap<GPUDevice, Map<string, Promise<GPUComputePipeline>>>();
const modules = new WeakMap<GPUDevice, Promise<GPUShaderModule>>();

/** The compute pipeline of a skinning method and draw variant, once per device. */
export function preskinPipeline(device: GPUDevice, skinning: SkinningMethod, variant: PreskinVariant): Promise<GPUComputePipeline> {
  let byKey = pipelines.get(device);
  if (!byKey) {
    byKey = new Map();
    pipelines.set(device, byKey);
  }
  const key = `${skinning} ×${variant.influenceSets}${variant.morphed ? ' morphed' : ''}`;
  let p = byKey.get(key);
  if (!p) {
    const keys = byKey;
    p = (async () => {
      const module = await preskinModule(device);
      return device.createComputePipelineAsync({
        label: `preskin ${key}`,
        layout: device.createPipelineLayout({ label: `preskin ${key}`, bindGroupLayouts: [preskinBindGroupLayout(device)] }),
        compute: {
          module,
          entryPoint: PRESKIN_ENTRY_POINT,
          constants: {
            workgroupSize: PRESKIN_WORKGROUP_SIZE, DUAL_QUATERNION: skinning === 'dual-quaternion' ? 1 : 0,
            INFLUENCE_SETS: variant.influenceSets, MORPH_TARGETS: variant.morphed ? 1 : 0,
          },
        },
      });
    })();
    keys.set(key, p);
    p.catch(() => keys.delete(key));
  }
  return p;
}

function preskinModule(device: GPUDevice): Promise<GPUShaderModule> {
  let m = modules.get(device);
  if (!m) {
    m = compileShaderModule(device, 'preskin.wgsl + draw-record.wgsl + morph.wgsl + skinning.wgsl', PRESKIN_WGSL);
    modules.set(device, m);
    m.catch(() => modules.delete(device));
  }
  return m;
}

/** The buffers the Renderer's skin group holds, which the compute pass reads too. */
export interface PreskinSharedBuffers {
  readonly palette: GPUBuffer;
  readonly draws: GPUBuffer;
  readonly morphDeltas: GPUBuffer;
}

/**
 * One model's compute path: inputs (written once), the two alternating output buffers and
 * their bind groups, and the per-draw dispatch parameters. Created the first time a frame
 * takes the compute path.
 */
export class PreskinBuffers {
  readonly layout: PreskinLayout;
  private readonly sources: GPUBuffer;
  private readonly joints: GPUBuffer;
  private readonly weights: GPUBuffer;
  private readonly params: GPUBuffer;
  private readonly paramsStride: number;
  /** Skinned draw indices, and their vertex counts. */
  private readonly skinnedDraws: Int32Array;
  private readonly vertexCounts: Int32Array;
  private readonly computeLayout: GPUBindGroupLayout;
  private readonly outputs: GPUBuffer[] = [];
  private readonly renderGroups: GPUBindGroup[] = [];
  private readonly computeGroups: GPUBindGroup[] = [];
  private capacity = 0;
  /** Which output the last frame wrote (0 or 1); -1 before the first. */
  private parity = -1;
  /** Instances the last two frames skinned: [this, previous]. */
  private readonly instanceCounts = new Int32Array(2);
  private readonly passDescriptor: GPUComputePassDescriptor;
  private readonly maxWorkgroups: number;

  constructor(private readonly device: GPUDevice, model: Model, draws: readonly PreskinDraw[], private readonly label: string) {
    this.layout = preskinLayout(draws);
    this.computeLayout = preskinBindGroupLayout(device);
    this.maxWorkgroups = device.limits.maxComputeWorkgroupsPerDimension;
    const skinned: number[] = [];
    draws.forEach((d, i) => { if (d.skinned) skinned.push(i); });
    this.skinnedDraws = Int32Array.from(skinned);
    this.vertexCounts = Int32Array.from(skinned, (i) => draws[i].primitive.vertexCount);
    // Inputs once per distinct primitive (a mesh shared by several skinned nodes is written once).
    const bases = new Map<Primitive, Bases>();
    let vertices = 0, influences = 0;
    const prims: Primitive[] = [];
    for (const i of skinned) {
      const d = draws[i];
      const prim = d.primitive.source;
      if (bases.has(prim)) continue;
      bases.set(prim, { sourceBase: vertices, influenceBase: influences });
      prims.push(prim);
      vertices += prim.vertexCount;
      influences += prim.vertexCount * (prim.influences / 4);
    }
    const create = (name: string, bytes: number): GPUBuffer => device.createBuffer({
      label: `${label} ${model.name} preskin ${name}`, size: Math.max(16, bytes), usage: GPUBufferUsage.STORAGE, mappedAtCreation: true,
    });
    this.sources = create('source vertices', vertices * SOURCE_VERTEX_FLOATS * 4);
    this.joints = create('joints', influences * 16);
    this.weights = create('weights', influences * 16);
    const src = new Float32Array(this.sources.getMappedRange());
    const jnt = new Uint32Array(this.joints.getMappedRange());
    const wgt = new Float32Array(this.weights.getMappedRange());
    for (const prim of prims) {
      const { sourceBase, influenceBase } = bases.get(prim)!;
      const sets = prim.influences / 4;
      // gpu-model.ts: tangents only with normals; missing attributes read (0, 0, 1) and (1, 0, 0, 1).
      const tangents = prim.normals ? prim.tangents : undefined;
      for (let v = 0; v < prim.vertexCount; v++) {
        const o = (sourceBase + v) * SOURCE_VERTEX_FLOATS;
        src[o] = prim.positions[v * 3]; src[o + 1] = prim.positions[v * 3 + 1]; src[o + 2] = prim.positions[v * 3 + 2];
        if (prim.normals) {
          src[o + 3] = prim.normals[v * 3]; src[o + 4] = prim.normals[v * 3 + 1]; src[o + 5] = prim.normals[v * 3 + 2];
        } else {
          src[o + 5] = 1;
        }
        if (tangents) {
          for (let c = 0; c < 4; c++) src[o + 6 + c] = tangents[v * 4 + c];
        } else {
          src[o + 6] = 1; src[o + 9] = 1;
        }
        for (let s = 0; s < sets; s++) {
          const j = prim.jointSets[s].array, w = prim.weightSets[s];
          const at = (influenceBase + v * sets + s) * 4;
          for (let c = 0; c < 4; c++) {
            jnt[at + c] = j[v * 4 + c];
            wgt[at + c] = weightValue(w.componentType, w.array[v * 4 + c]);
          }
        }
      }
    }
    for (const b of [this.sources, this.joints, this.weights]) b.unmap();
    // One params slot per skinned draw, static for the model.
    const align = device.limits.minUniformBufferOffsetAlignment;
    this.paramsStride = Math.ceil(PRESKIN_PARAMS_BYTES / align) * align;
    this.params = device.createBuffer({
      label: `${label} ${model.name} preskin params`, size: Math.max(1, skinned.length) * this.paramsStride,
      usage: GPUBufferUsage.UNIFORM, mappedAtCreation: true,
    });
    const p = new Uint32Array(this.params.getMappedRange());
    skinned.forEach((i, n) => {
      const d = draws[i];
      const prim = d.primitive.source;
      const { sourceBase, influenceBase } = bases.get(prim)!;
      p.set([i, prim.vertexCount, sourceBase, influenceBase], (n * this.paramsStride) / 4);
    });
    this.params.unmap();
    this.passDescriptor = { label: `${label} ${model.name} preskin pass` };
  }

  /**
   * Sizes the outputs for `capacity` instances and (re)makes the bind groups over the
   * Renderer's current shared buffers. Call when the Renderer's per-instance buffers change.
   */
  resize(capacity: number, shared: PreskinSharedBuffers, skinLayout: GPUBindGroupLayout): void {
    for (const b of this.outputs) b.destroy();
    this.outputs.length = 0;
    this.renderGroups.length = 0;
    this.computeGroups.length = 0;
    const bytes = Math.max(SKINNED_VERTEX_BYTES, this.layout.verticesPerInstance * capacity * SKINNED_VERTEX_BYTES);
    for (let k = 0; k < 2; k++) {
      const output = this.device.createBuffer({
        label: `${this.label} skinned vertices ${k === 0 ? 'A' : 'B'} ×${capacity}`, size: bytes,
        usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC,
      });
      this.outputs.push(output);
      this.renderGroups.push(this.device.createBindGroup({
        label: `${this.label} palettes, draws, morph deltas and skinned vertices ${k === 0 ? 'A' : 'B'} ×${capacity}`,
        layout: skinLayout,
        entries: [
          { binding: SkinBinding.PALETTE, resource: { buffer: shared.palette } },
          { binding: SkinBinding.DRAWS, resource: { buffer: shared.draws } },
          { binding: SkinBinding.MORPH_DELTAS, resource: { buffer: shared.morphDeltas } },
          { binding: SkinBinding.SKINNED_VERTICES, resource: { buffer: output } },
        ],
      }));
      const B = PreskinBinding;
      this.computeGroups.push(this.device.createBindGroup({
        label: `${this.label} preskin → skinned vertices ${k === 0 ? 'A' : 'B'} ×${capacity}`,
        layout: this.computeLayout,
        entries: [
          { binding: B.PALETTE, resource: { buffer: shared.palette } },
          { binding: B.DRAWS, resource: { buffer: shared.draws } },
          { binding: B.MORPH_DELTAS, resource: { buffer: shared.morphDeltas } },
          { binding: B.SOURCES, resource: { buffer: this.sources } },
          { binding: B.JOINTS, resource: { buffer: this.joints } },
          { binding: B.WEIGHTS, resource: { buffer: this.weights } },
          { binding: B.SKINNED, resource: { buffer: output } },
          { binding: B.PARAMS, resource: { buffer: this.params, size: PRESKIN_PARAMS_BYTES } },
        ],
      }));
    }
    this.capacity = capacity;
    this.parity = -1;
    this.instanceCounts.fill(0);
  }

  /** Instances the outputs hold. */
  get instanceCapacity(): number {
    return this.capacity;
  }

  /**
   * Encodes this frame's compute pass into the other output than last frame's and returns
   * the render bind group over it; `pipelines`: one per skinned draw, of its
   * `preskinVariants` entry. Records and palettes must be written this frame.
   */
  encode(encoder: GPUCommandEncoder, pipelines: readonly GPUComputePipeline[], count: number): GPUBindGroup {
    this.parity = this.parity === 0 ? 1 : 0;
    this.instanceCounts[1] = this.instanceCounts[0];
    this.instanceCounts[0] = count;
    const pass = encoder.beginComputePass(this.passDescriptor);
    const group = this.computeGroups[this.parity];
    let bound: GPUComputePipeline | undefined;
    for (let n = 0; n < this.skinnedDraws.length; n++) {
      const groups = Math.ceil(this.vertexCounts[n] / PRESKIN_WORKGROUP_SIZE);
      if (groups === 0) continue;
      if (groups > this.maxWorkgroups) throw new RangeError(`preskin: ${this.vertexCounts[n]} vertices need more than ${this.maxWorkgroups} workgroups`);
      if (pipelines[n] !== bound) {
        bound = pipelines[n];
        pass.setPipeline(bound);
      }
      pass.setBindGroup(0, group, [n * this.paramsStride]);
      pass.dispatchWorkgroups(groups, count);
    }
    pass.end();
    return this.renderGroups[this.parity];
  }

  /**
   * The skinned vertices the last frame drew (`current`) and the frame before (`previous`;
   * undefined until two frames ran). Layout in the module comment; `instances` is how many
   * instances that frame skinned. For a motion-vector pass, or a readback.
   */
  output(which: 'current' | 'previous'): { readonly buffer: GPUBuffer; readonly instances: number } | undefined {
    if (this.parity < 0) return undefined;
    const k = which === 'current' ? this.parity : 1 - this.parity;
    const instances = this.instanceCounts[which === 'current' ? 0 : 1];
    if (instances === 0) return undefined;
    return { buffer: this.outputs[k], instances };
  }

  destroy(): void {
    for (const b of this.outputs) b.destroy();
    this.sources.destroy();
    this.joints.destroy();
    this.weights.destroy();
    this.params.destroy();
  }
}
