/**
 * The Renderer's compute skinning path ("skin once, use in every pass"): shaders/preskin.wgsl
 * morphs and skins every skinned draw's vertices of every instance once per frame into a
 * storage buffer; the lit pass and the shadow pass read them (mesh.wgsl vsPreskinned)
 * instead of each skinning in its vertex stage. RenderSettings.skinningPath chooses; see
 * `chooseSkinningPath` (preskin-layout.ts) for the 'auto' rule and docs/renderer.md "Skinning paths" for the measurement.
 *
 * Output: per vertex three vec4f (position xyz 1, normal xyz 0, tangent xyzw) in mesh-node
 * space, instance-major: vertex v of skinned draw i and instance k is at
 *   k × verticesPerInstance + drawBase[i] + v
 * (the draw record's `skinnedBase` holds the first two terms). Two such buffers alternate
 * frame by frame, so the previous frame's skinned vertices stay available (motion vectors:
 * `previous`); each has its own render and compute bind group, made when the capacity grows.
 *
 * Inputs are written once per model (PreskinInputs): the source vertices (position, normal,
 * tangent, with the vertex path's defaults where an attribute is absent), joints widened to
 * u32 and the file's weights dequantised as the vertex fetch does (unorm8 c/255, unorm16
 * c/65535), not renormalised: both paths divide by the weight sum in the same skinning
 * function, so they compute the same numbers. PreskinInputs takes any vertices, records and
 * output buffer, so the pass is not tied to the Renderer's double-buffered outputs.
 */
import { ComponentType } from '../../gltf/constants.ts';
import type { Model, Primitive } from '../../gltf/model.ts';
import { usesDqPalette, type SkinningMethod } from '../../anim/skinning-method.ts';
import { SkinBinding } from '../layouts/bindings.ts';
import { perDevice, perDeviceBuild } from '../device/per-device.ts';
import { compileShaderModule } from '../device/shader-module.ts';
import { preskinLayout, type PreskinDraw, type PreskinLayout } from './preskin-layout.ts';

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
  /** The model's centres of rotation (model/center-buffer.ts; a placeholder until they are ready). */
  CENTERS: 8,
} as const;

/** The fields of WGSL `struct PreskinParams`, in order; each a u32. */
export const PRESKIN_PARAMS_FIELDS = ['draw', 'vertexCount', 'sourceBase', 'influenceBase'] as const;
export const PRESKIN_PARAMS_BYTES = PRESKIN_PARAMS_FIELDS.length * 4;

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

/** The compute pass's group 0 layout, once per device. */
const preskinBindGroupLayout = perDevice((device): GPUBindGroupLayout => {
  const storage = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry =>
    ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } });
  const B = PreskinBinding;
  return device.createBindGroupLayout({
    label: 'preskin (group 0)',
    entries: [
      storage(B.PALETTE, 'read-only-storage'), storage(B.DRAWS, 'read-only-storage'), storage(B.MORPH_DELTAS, 'read-only-storage'),
      storage(B.SOURCES, 'read-only-storage'), storage(B.JOINTS, 'read-only-storage'), storage(B.WEIGHTS, 'read-only-storage'),
      storage(B.SKINNED, 'storage'), storage(B.CENTERS, 'read-only-storage'),
      { binding: B.PARAMS, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform', hasDynamicOffset: true, minBindingSize: PRESKIN_PARAMS_BYTES } },
    ],
  });
});

/** The device's compute pipelines by method and variant (a failed build is forgotten, so a later frame tries again). */
const pipelinesByKey = perDevice(() => new Map<string, Promise<GPUComputePipeline>>());

// The WGSL is imported with the first model skinned by compute, not with the page.
const preskinModule = perDeviceBuild(async (device) =>
  compileShaderModule(device, 'preskin.wgsl + draw-record.wgsl + center-of-rotation.wgsl + morph.wgsl + skinning.wgsl', (await import('./preskin-wgsl.ts')).PRESKIN_WGSL));

/** The compute pipeline of a skinning method and draw variant, once per device. */
export function preskinPipeline(device: GPUDevice, skinning: SkinningMethod, variant: PreskinVariant): Promise<GPUComputePipeline> {
  const byKey = pipelinesByKey(device);
  const key = `${skinning} ×${variant.influenceSets}${variant.morphed ? ' morphed' : ''}`;
  let p = byKey.get(key);
  if (!p) {
    p = (async () => {
      const module = await preskinModule(device);
      return device.createComputePipelineAsync({
        label: `preskin ${key}`,
        layout: device.createPipelineLayout({ label: `preskin ${key}`, bindGroupLayouts: [preskinBindGroupLayout(device)] }),
        compute: {
          module,
          entryPoint: PRESKIN_ENTRY_POINT,
          constants: {
            workgroupSize: PRESKIN_WORKGROUP_SIZE, DUAL_QUATERNION: usesDqPalette(skinning) ? 1 : 0, CENTER_OF_ROTATION: skinning === 'center-of-rotation' ? 1 : 0,
            INFLUENCE_SETS: variant.influenceSets, MORPH_TARGETS: variant.morphed ? 1 : 0,
          },
        },
      });
    })();
    byKey.set(key, p);
    p.catch(() => byKey.delete(key));
  }
  return p;
}

/** The buffers the Renderer's skin group holds, which the compute pass reads too (the bake makes its own). */
export interface PreskinSharedBuffers {
  readonly palette: GPUBuffer;
  readonly draws: GPUBuffer;
  readonly morphDeltas: GPUBuffer;
  /**
   * GPU culling's compacted records (draw/culling-pass.ts), when the model has them: the render passes
   * of a GPU-culled frame read those, with the skinned vertices the pass wrote from `draws`.
   */
  readonly culledDraws?: GPUBuffer;
  /** The model's centres of rotation (model/center-buffer.ts), or a placeholder before centre-of-rotation skinning is prepared. */
  readonly centers: GPUBuffer;
}

/**
 * The vertices one skinned draw skins, as the compute pass reads them. Absent normals read
 * (0, 0, 1) and absent tangents (1, 0, 0, 1), the vertex path's defaults.
 */
export interface PreskinVertices {
  readonly vertexCount: number;
  /** 1: JOINTS_0/WEIGHTS_0; 2: also JOINTS_1/WEIGHTS_1. */
  readonly influenceSets: number;
  /** xyz per vertex. */
  readonly positions: ArrayLike<number>;
  readonly normals: ArrayLike<number> | undefined;
  /** xyzw per vertex. */
  readonly tangents: ArrayLike<number> | undefined;
  /** 4 × influenceSets per vertex, set 0 first: indices into the skin's joints. */
  readonly joints: ArrayLike<number>;
  /** Laid out as `joints`. The shader divides by their sum, so they need not sum to 1. */
  readonly weights: ArrayLike<number>;
}

/** One dispatch: the index of a skinned draw's record and its vertices. Dispatches given the same object share one upload. */
export interface PreskinDispatch {
  readonly draw: number;
  readonly vertices: PreskinVertices;
}

/**
 * Workgroups for one dispatch of `vertexCount` vertices, as [x, z]: x covers the vertices up
 * to the device's per-dimension limit and z continues past it (preskin.wgsl reads vertex
 * id.x + id.z × x × workgroupSize); y is the instances'. Throws past x × z = limit².
 */
export function preskinGrid(vertexCount: number, maxWorkgroupsPerDimension: number): [number, number] {
  const groups = Math.ceil(vertexCount / PRESKIN_WORKGROUP_SIZE);
  if (groups === 0) return [0, 0];
  const x = Math.min(groups, maxWorkgroupsPerDimension);
  const z = Math.ceil(groups / x);
  if (z > maxWorkgroupsPerDimension) throw new RangeError(`preskin: ${vertexCount} vertices need more than ${maxWorkgroupsPerDimension}² workgroups`);
  return [x, z];
}

interface Bases { readonly sourceBase: number; readonly influenceBase: number }

/**
 * The compute pass's inputs for a list of dispatches, written once: the source vertices,
 * joints and weights of each distinct PreskinVertices, and a PreskinParams slot per dispatch.
 * The palette, the draw records (which say where each draw's output goes) and the output
 * buffer are the caller's, joined in `bindGroup`. Used by the Renderer (PreskinBuffers) and
 * by `bake --backend gpu` (src/bake/gpu-bake.ts).
 */
export class PreskinInputs {
  private readonly sources: GPUBuffer;
  private readonly joints: GPUBuffer;
  private readonly weights: GPUBuffer;
  private readonly params: GPUBuffer;
  private readonly paramsStride: number;
  /** Workgroups of each dispatch along x and z (preskinGrid). */
  private readonly groupsX: Int32Array;
  private readonly groupsZ: Int32Array;

  constructor(private readonly device: GPUDevice, dispatches: readonly PreskinDispatch[], label: string) {
    const max = device.limits.maxComputeWorkgroupsPerDimension;
    this.groupsX = new Int32Array(dispatches.length);
    this.groupsZ = new Int32Array(dispatches.length);
    dispatches.forEach((d, n) => [this.groupsX[n], this.groupsZ[n]] = preskinGrid(d.vertices.vertexCount, max));
    const bases = new Map<PreskinVertices, Bases>();
    let vertexTotal = 0, influenceTotal = 0;
    for (const { vertices } of dispatches) {
      if (bases.has(vertices)) continue;
      bases.set(vertices, { sourceBase: vertexTotal, influenceBase: influenceTotal });
      vertexTotal += vertices.vertexCount;
      influenceTotal += vertices.vertexCount * vertices.influenceSets;
    }
    const create = (name: string, bytes: number): GPUBuffer => device.createBuffer({
      label: `${label} ${name}`, size: Math.max(16, bytes), usage: GPUBufferUsage.STORAGE, mappedAtCreation: true,
    });
    this.sources = create('source vertices', vertexTotal * SOURCE_VERTEX_FLOATS * 4);
    this.joints = create('joints', influenceTotal * 16);
    this.weights = create('weights', influenceTotal * 16);
    const src = new Float32Array(this.sources.getMappedRange());
    const jnt = new Uint32Array(this.joints.getMappedRange());
    const wgt = new Float32Array(this.weights.getMappedRange());
    for (const [vertices, { sourceBase, influenceBase }] of bases) writeSources(vertices, src, sourceBase, jnt, wgt, influenceBase);
    for (const b of [this.sources, this.joints, this.weights]) b.unmap();
    const align = device.limits.minUniformBufferOffsetAlignment;
    this.paramsStride = Math.ceil(PRESKIN_PARAMS_BYTES / align) * align;
    this.params = device.createBuffer({
      label: `${label} params`, size: Math.max(1, dispatches.length) * this.paramsStride, usage: GPUBufferUsage.UNIFORM, mappedAtCreation: true,
    });
    const p = new Uint32Array(this.params.getMappedRange());
    dispatches.forEach(({ draw, vertices }, n) => {
      const { sourceBase, influenceBase } = bases.get(vertices)!;
      p.set([draw, vertices.vertexCount, sourceBase, influenceBase], (n * this.paramsStride) / 4);
    });
    this.params.unmap();
  }

  /** A compute bind group over these inputs that writes `output` (SKINNED_VERTEX_BYTES per vertex, where the records' skinnedBase say). */
  bindGroup(shared: PreskinSharedBuffers, output: GPUBuffer, label: string): GPUBindGroup {
    const B = PreskinBinding;
    return this.device.createBindGroup({
      label,
      layout: preskinBindGroupLayout(this.device),
      entries: [
        { binding: B.PALETTE, resource: { buffer: shared.palette } },
        { binding: B.DRAWS, resource: { buffer: shared.draws } },
        { binding: B.MORPH_DELTAS, resource: { buffer: shared.morphDeltas } },
        { binding: B.SOURCES, resource: { buffer: this.sources } },
        { binding: B.JOINTS, resource: { buffer: this.joints } },
        { binding: B.WEIGHTS, resource: { buffer: this.weights } },
        { binding: B.SKINNED, resource: { buffer: output } },
        { binding: B.CENTERS, resource: { buffer: shared.centers } },
        { binding: B.PARAMS, resource: { buffer: this.params, size: PRESKIN_PARAMS_BYTES } },
      ],
    });
  }

  /**
   * Records every dispatch, each over `instances` instances, into `pass`. `pipelines`: one per
   * dispatch, of its variant (preskinPipeline). Per frame on the Renderer: allocates nothing.
   */
  dispatch(pass: GPUComputePassEncoder, group: GPUBindGroup, pipelines: readonly GPUComputePipeline[], instances: number): void {
    let bound: GPUComputePipeline | undefined;
    for (let n = 0; n < this.groupsX.length; n++) {
      if (this.groupsX[n] === 0) continue;
      if (pipelines[n] !== bound) {
        bound = pipelines[n];
        pass.setPipeline(bound);
      }
      pass.setBindGroup(0, group, [n * this.paramsStride]);
      pass.dispatchWorkgroups(this.groupsX[n], instances, this.groupsZ[n]);
    }
  }

  destroy(): void {
    this.sources.destroy();
    this.joints.destroy();
    this.weights.destroy();
    this.params.destroy();
  }
}

/** Writes one PreskinVertices at vertex `sourceBase` of `src` and vec4 `influenceBase` of `jnt`/`wgt`. */
function writeSources(
  vertices: PreskinVertices, src: Float32Array, sourceBase: number, jnt: Uint32Array, wgt: Float32Array, influenceBase: number,
): void {
  const { positions, normals, tangents, joints, weights } = vertices;
  for (let v = 0; v < vertices.vertexCount; v++) {
    const o = (sourceBase + v) * SOURCE_VERTEX_FLOATS;
    src[o] = positions[v * 3]; src[o + 1] = positions[v * 3 + 1]; src[o + 2] = positions[v * 3 + 2];
    if (normals) {
      src[o + 3] = normals[v * 3]; src[o + 4] = normals[v * 3 + 1]; src[o + 5] = normals[v * 3 + 2];
    } else {
      src[o + 5] = 1;
    }
    if (tangents) {
      for (let c = 0; c < 4; c++) src[o + 6 + c] = tangents[v * 4 + c];
    } else {
      src[o + 6] = 1; src[o + 9] = 1;
    }
  }
  const influences = vertices.vertexCount * vertices.influenceSets * 4;
  for (let i = 0; i < influences; i++) {
    jnt[influenceBase * 4 + i] = joints[i];
    wgt[influenceBase * 4 + i] = weights[i];
  }
}

/** Dequantises a WEIGHTS accessor's component as the vertex fetch does. */
function weightValue(componentType: number, value: number): number {
  if (componentType === ComponentType.UNSIGNED_BYTE) return value / 255;
  if (componentType === ComponentType.UNSIGNED_SHORT) return value / 65535;
  return value;
}

/**
 * A primitive's vertices as the vertex path reads them, so both paths skin the same numbers:
 * tangents only with normals (model/upload.ts), the file's joints, and its weights dequantised
 * (unorm8 c/255, unorm16 c/65535) but not renormalised.
 */
function vertexPathVertices(prim: Primitive): PreskinVertices {
  const sets = prim.influences / 4;
  const joints = new Uint32Array(prim.vertexCount * sets * 4);
  const weights = new Float32Array(joints.length);
  for (let s = 0; s < sets; s++) {
    const j = prim.jointSets[s].array, w = prim.weightSets[s];
    for (let v = 0; v < prim.vertexCount; v++) {
      for (let c = 0; c < 4; c++) {
        joints[(v * sets + s) * 4 + c] = j[v * 4 + c];
        weights[(v * sets + s) * 4 + c] = weightValue(w.componentType, w.array[v * 4 + c]);
      }
    }
  }
  return {
    vertexCount: prim.vertexCount, influenceSets: sets, positions: prim.positions, normals: prim.normals,
    tangents: prim.normals ? prim.tangents : undefined, joints, weights,
  };
}

/**
 * One model's compute path on the Renderer: its inputs (written once), the two alternating
 * output buffers and their bind groups. Created the first time a frame takes the compute path.
 */
export class PreskinBuffers {
  readonly layout: PreskinLayout;
  private readonly inputs: PreskinInputs;
  private readonly outputs: GPUBuffer[] = [];
  private readonly renderGroups: GPUBindGroup[] = [];
  /** As renderGroups, over the compacted records (PreskinSharedBuffers.culledDraws). */
  private readonly culledRenderGroups: GPUBindGroup[] = [];
  private readonly computeGroups: GPUBindGroup[] = [];
  private capacity = 0;
  /** Which output the last frame wrote (0 or 1); -1 before the first. */
  private parity = -1;
  /** Instances the last two frames skinned: [this, previous]. */
  private readonly instanceCounts = new Int32Array(2);
  private readonly passDescriptor: GPUComputePassDescriptor;

  constructor(private readonly device: GPUDevice, model: Model, draws: readonly PreskinDraw[], private readonly label: string) {
    this.layout = preskinLayout(draws);
    // A mesh shared by several skinned nodes is one PreskinVertices, so it is written once.
    const verticesOf = new Map<Primitive, PreskinVertices>();
    const dispatches: PreskinDispatch[] = [];
    draws.forEach((d, draw) => {
      if (!d.skinned) return;
      const prim = d.primitive.source;
      let vertices = verticesOf.get(prim);
      if (!vertices) {
        vertices = vertexPathVertices(prim);
        verticesOf.set(prim, vertices);
      }
      dispatches.push({ draw, vertices });
    });
    this.inputs = new PreskinInputs(device, dispatches, `${label} ${model.name} preskin`);
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
    this.culledRenderGroups.length = 0;
    this.computeGroups.length = 0;
    const bytes = Math.max(SKINNED_VERTEX_BYTES, this.layout.verticesPerInstance * capacity * SKINNED_VERTEX_BYTES);
    for (let k = 0; k < 2; k++) {
      const output = this.device.createBuffer({
        label: `${this.label} skinned vertices ${k === 0 ? 'A' : 'B'} ×${capacity}`, size: bytes,
        usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC,
      });
      this.outputs.push(output);
      const renderGroup = (draws: GPUBuffer, what: string): GPUBindGroup => this.device.createBindGroup({
        label: `${this.label} palettes, ${what}, morph deltas and skinned vertices ${k === 0 ? 'A' : 'B'} ×${capacity}`,
        layout: skinLayout,
        entries: [
          { binding: SkinBinding.PALETTE, resource: { buffer: shared.palette } },
          { binding: SkinBinding.DRAWS, resource: { buffer: draws } },
          { binding: SkinBinding.MORPH_DELTAS, resource: { buffer: shared.morphDeltas } },
          { binding: SkinBinding.SKINNED_VERTICES, resource: { buffer: output } },
          { binding: SkinBinding.CENTERS, resource: { buffer: shared.centers } },
        ],
      });
      this.renderGroups.push(renderGroup(shared.draws, 'draws'));
      if (shared.culledDraws) this.culledRenderGroups.push(renderGroup(shared.culledDraws, 'culled draws'));
      this.computeGroups.push(this.inputs.bindGroup(shared, output, `${this.label} preskin → skinned vertices ${k === 0 ? 'A' : 'B'} ×${capacity}`));
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
   * the render bind group over it (over the compacted records when `culled`: a GPU-culled
   * frame); `pipelines`: one per skinned draw, of its `preskinVariants` entry. Records and
   * palettes must be written this frame.
   */
  encode(encoder: GPUCommandEncoder, pipelines: readonly GPUComputePipeline[], count: number, culled = false): GPUBindGroup {
    this.parity = this.parity === 0 ? 1 : 0;
    this.instanceCounts[1] = this.instanceCounts[0];
    this.instanceCounts[0] = count;
    const pass = encoder.beginComputePass(this.passDescriptor);
    this.inputs.dispatch(pass, this.computeGroups[this.parity], pipelines, count);
    pass.end();
    return (culled ? this.culledRenderGroups : this.renderGroups)[this.parity];
  }

  /** The render bind group of the last `encode` over the uncompacted records (a GPU-culled frame's debug overlays). */
  get sourceRenderGroup(): GPUBindGroup {
    return this.renderGroups[Math.max(0, this.parity)];
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
    this.inputs.destroy();
  }
}
