/**
 * The compute skinning pass: shaders/skin-compute.wgsl with the shared
 * shaders/skinning.wgsl prepended, its bind group layout, the byte layout of its
 * per-dispatch uniform, and the dispatch arithmetic. Knows nothing about glTF or
 * about where the vertex data comes from (see gpu-bake.ts for one user).
 */
import skinningWgsl from '../../shaders/skinning.wgsl?raw';
import skinComputeWgsl from '../../shaders/skin-compute.wgsl?raw';
import type { SkinningMethod } from '../anim/skinning-method.ts';
import { compileShaderModule } from './shader-module.ts';

/** The module's source: the one skinning implementation, then the compute entry point. */
export const SKIN_COMPUTE_WGSL = `${skinningWgsl}\n${skinComputeWgsl}`;
export const SKIN_COMPUTE_ENTRY_POINT = 'skinVertices';
/** Passed to the WGSL `override workgroupSize`. */
export const SKIN_COMPUTE_WORKGROUP_SIZE = 64;

/** `@binding(N)` of each resource in `@group(0)` of skin-compute.wgsl. */
export const SkinComputeBinding = {
  /** array<mat4x4f>, the palettes of every skin in the batch, back to back (DqJoint entries, one per mat4x4f slot, in a dual-quaternion pipeline). */
  PALETTE: 0,
  /** array<f32>, 3 per vertex. */
  POSITIONS: 1,
  /** array<f32>, 3 per vertex. */
  NORMALS: 2,
  /** array<vec4f>, xyzw per vertex. */
  TANGENTS: 3,
  /** array<vec4u>, 1 or 2 per vertex (JOINTS_0, JOINTS_1) widened to u32. */
  JOINTS: 4,
  /** array<vec4f>, 1 or 2 per vertex, summing to 1. */
  WEIGHTS: 5,
  /** array<f32>, output: positions (3), normals (3), tangents (4) per vertex at offsets given per dispatch. */
  SKINNED: 6,
  /** SkinParams, uniform with a dynamic offset (one slot per dispatch). */
  PARAMS: 7,
} as const;

/** The fields of WGSL `struct SkinParams`, in order; each is a u32 (4 bytes, no padding). */
export const SKIN_PARAMS_FIELDS = [
  'paletteOffset', 'vertexCount', 'influenceSets',
  'positionBase', 'normalBase', 'tangentBase', 'influenceBase',
  'outPosition', 'outNormal', 'outTangent',
] as const;
export type SkinParams = Readonly<Record<(typeof SKIN_PARAMS_FIELDS)[number], number>>;
export const SKIN_PARAMS_BYTES = SKIN_PARAMS_FIELDS.length * 4;
/** WGSL `NONE`: marks an absent attribute base or an output that is not written. */
export const SKIN_PARAMS_NONE = 0xffffffff;

/**
 * Writes one SkinParams at `byteOffset` (a multiple of 4) of `dst`. Field meanings and
 * units (vertices, vec4s, f32s) are documented on the WGSL struct.
 */
export function writeSkinParams(params: SkinParams, dst: Uint32Array, byteOffset: number): Uint32Array {
  const base = byteOffset / 4;
  for (let i = 0; i < SKIN_PARAMS_FIELDS.length; i++) dst[base + i] = params[SKIN_PARAMS_FIELDS[i]];
  return dst;
}

/** Per-dispatch stride in the params uniform buffer: SkinParams rounded up to the dynamic-offset alignment. */
export function skinParamsStride(device: GPUDevice): number {
  const align = device.limits.minUniformBufferOffsetAlignment;
  return Math.ceil(SKIN_PARAMS_BYTES / align) * align;
}

export interface SkinComputePipeline {
  readonly pipeline: GPUComputePipeline;
  readonly bindGroupLayout: GPUBindGroupLayout;
}

const pipelines = new WeakMap<GPUDevice, Map<SkinningMethod, Promise<SkinComputePipeline>>>();

/**
 * The compute skinning pipeline of `device` for a skinning method ('dual-quaternion': the
 * palette buffer holds DqJoint entries, src/anim/dq-palette.ts), created once per device
 * and method. Rejects with the WGSL errors if the module does not compile.
 */
export function skinComputePipeline(device: GPUDevice, skinning: SkinningMethod = 'linear'): Promise<SkinComputePipeline> {
  let byMethod = pipelines.get(device);
  if (!byMethod) {
    byMethod = new Map();
    pipelines.set(device, byMethod);
  }
  let p = byMethod.get(skinning);
  if (!p) {
    const created = createSkinComputePipeline(device, skinning);
    byMethod.set(skinning, created);
    created.catch(() => byMethod.delete(skinning));
    p = created;
  }
  return p;
}

async function createSkinComputePipeline(device: GPUDevice, skinning: SkinningMethod): Promise<SkinComputePipeline> {
  const module = await compileShaderModule(device, 'skin-compute.wgsl + skinning.wgsl', SKIN_COMPUTE_WGSL);
  const storage = (binding: number, type: GPUBufferBindingType): GPUBindGroupLayoutEntry =>
    ({ binding, visibility: GPUShaderStage.COMPUTE, buffer: { type } });
  const B = SkinComputeBinding;
  const bindGroupLayout = device.createBindGroupLayout({
    label: 'skin compute: bind group layout',
    entries: [
      storage(B.PALETTE, 'read-only-storage'),
      storage(B.POSITIONS, 'read-only-storage'),
      storage(B.NORMALS, 'read-only-storage'),
      storage(B.TANGENTS, 'read-only-storage'),
      storage(B.JOINTS, 'read-only-storage'),
      storage(B.WEIGHTS, 'read-only-storage'),
      storage(B.SKINNED, 'storage'),
      {
        binding: B.PARAMS, visibility: GPUShaderStage.COMPUTE,
        buffer: { type: 'uniform', hasDynamicOffset: true, minBindingSize: SKIN_PARAMS_BYTES },
      },
    ],
  });
  const pipeline = await device.createComputePipelineAsync({
    label: `skin compute: ${skinning} pipeline`,
    layout: device.createPipelineLayout({ label: `skin compute: ${skinning} pipeline layout`, bindGroupLayouts: [bindGroupLayout] }),
    compute: {
      module,
      entryPoint: SKIN_COMPUTE_ENTRY_POINT,
      constants: { workgroupSize: SKIN_COMPUTE_WORKGROUP_SIZE, dualQuaternion: skinning === 'dual-quaternion' ? 1 : 0 },
    },
  });
  return { pipeline, bindGroupLayout };
}

/** The buffers a skinning bind group reads and writes. */
export interface SkinComputeBuffers {
  readonly palette: GPUBuffer;
  readonly positions: GPUBuffer;
  readonly normals: GPUBuffer;
  readonly tangents: GPUBuffer;
  readonly joints: GPUBuffer;
  readonly weights: GPUBuffer;
  readonly skinned: GPUBuffer;
  readonly params: GPUBuffer;
}

export function createSkinBindGroup(device: GPUDevice, pipeline: SkinComputePipeline, buffers: SkinComputeBuffers, label: string): GPUBindGroup {
  const B = SkinComputeBinding;
  return device.createBindGroup({
    label,
    layout: pipeline.bindGroupLayout,
    entries: [
      { binding: B.PALETTE, resource: { buffer: buffers.palette } },
      { binding: B.POSITIONS, resource: { buffer: buffers.positions } },
      { binding: B.NORMALS, resource: { buffer: buffers.normals } },
      { binding: B.TANGENTS, resource: { buffer: buffers.tangents } },
      { binding: B.JOINTS, resource: { buffer: buffers.joints } },
      { binding: B.WEIGHTS, resource: { buffer: buffers.weights } },
      { binding: B.SKINNED, resource: { buffer: buffers.skinned } },
      { binding: B.PARAMS, resource: { buffer: buffers.params, size: SKIN_PARAMS_BYTES } },
    ],
  });
}

/**
 * Records one dispatch per vertex of a primitive whose SkinParams sit at
 * `paramsByteOffset`. More workgroups than one dimension allows spill into y; the
 * shader skips the invocations past `vertexCount`.
 */
export function dispatchSkinVertices(
  pass: GPUComputePassEncoder, bindGroup: GPUBindGroup, paramsByteOffset: number, vertexCount: number, maxWorkgroupsPerDimension: number,
): void {
  if (vertexCount === 0) return;
  const groups = Math.ceil(vertexCount / SKIN_COMPUTE_WORKGROUP_SIZE);
  const x = Math.min(groups, maxWorkgroupsPerDimension);
  const y = Math.ceil(groups / x);
  if (y > maxWorkgroupsPerDimension) throw new RangeError(`dispatchSkinVertices: ${vertexCount} vertices need more than ${maxWorkgroupsPerDimension}² workgroups`);
  pass.setBindGroup(0, bindGroup, [paramsByteOffset]);
  pass.dispatchWorkgroups(x, y);
}
