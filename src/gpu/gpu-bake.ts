/**
 * `bake --backend gpu`: the CPU poses the model (the same pose and palette code as
 * bakeModel), the GPU skins every skinned primitive with the shared WGSL
 * (compute-skin.ts), and the result comes back as the same BakeResult as bakeModel's —
 * in float32 precision, widened to Float64Array.
 *
 * Everything goes to the GPU at once: the palettes of all skins in one storage buffer
 * (one writeBuffer), every distinct primitive's vertex data once (a mesh instanced by
 * several skinned nodes is uploaded once), one params slot per dispatch (one
 * writeBuffer), one compute pass, one submission, then mapAsync.
 */
import { skinPalette } from '../anim/palette.ts';
import { skinDqPalette } from '../anim/dq-palette.ts';
import { morphForBake, poseForBake, type BakedPrimitive, type BakeOptions, type BakeResult } from '../bake/bake.ts';
import type { Model, Primitive } from '../gltf/model.ts';
import { parseSkinningMethod } from '../anim/skinning-method.ts';
import {
  SKIN_PARAMS_NONE, createSkinBindGroup, dispatchSkinVertices, skinComputePipeline, skinParamsStride, writeSkinParams,
  type SkinComputeBuffers, type SkinParams,
} from './compute-skin.ts';
import { PALETTE_MATRIX_FLOATS } from './layouts.ts';

/** Where one primitive's inputs start in its batch's buffers (units as in WGSL SkinParams). */
interface PrimitiveInput {
  readonly positionBase: number;
  readonly normalBase: number;
  readonly tangentBase: number;
  readonly influenceBase: number;
}

/** One skinned primitive of one mesh node: one dispatch. */
interface SkinJob {
  readonly node: number;
  readonly mesh: number;
  readonly primitive: number;
  readonly prim: Primitive;
  readonly paletteOffset: number;
}

/** Where a job runs: its batch, and its dispatch's SkinParams. */
interface Placement {
  readonly batch: number;
  readonly params: SkinParams;
}

/** Primitives whose inputs and outputs share one set of buffers (one bind group). */
class Batch {
  readonly inputs = new Map<Primitive, PrimitiveInput>();
  /** Element counts: vertices for positions/normals/tangents, vec4s for joints/weights, f32s for skinned. */
  positions = 0; normals = 0; tangents = 0; influences = 0; skinned = 0;

  /** Bytes each buffer would need with `prim` added. */
  bytesWith(prim: Primitive): number[] {
    const isNew = !this.inputs.has(prim);
    const n = isNew ? prim.vertexCount : 0;
    const sets = prim.influences / 4;
    return [
      (this.positions + n) * 12,
      (this.normals + (prim.normals ? n : 0)) * 12,
      (this.tangents + (prim.tangents ? n : 0)) * 16,
      (this.influences + n * sets) * 16,
      (this.skinned + outputFloats(prim)) * 4,
    ];
  }

  /** Adds `prim` (its inputs once) and returns its dispatch's SkinParams. */
  add(prim: Primitive, paletteOffset: number): SkinParams {
    let input = this.inputs.get(prim);
    if (!input) {
      const n = prim.vertexCount;
      input = {
        positionBase: this.positions,
        normalBase: prim.normals ? this.normals : SKIN_PARAMS_NONE,
        tangentBase: prim.tangents ? this.tangents : SKIN_PARAMS_NONE,
        influenceBase: this.influences,
      };
      this.inputs.set(prim, input);
      this.positions += n;
      if (prim.normals) this.normals += n;
      if (prim.tangents) this.tangents += n;
      this.influences += n * (prim.influences / 4);
    }
    const n = prim.vertexCount;
    const outPosition = this.skinned;
    const outNormal = prim.normals ? outPosition + n * 3 : SKIN_PARAMS_NONE;
    const outTangent = prim.tangents ? outPosition + n * (prim.normals ? 6 : 3) : SKIN_PARAMS_NONE;
    this.skinned += outputFloats(prim);
    return {
      paletteOffset, vertexCount: n, influenceSets: prim.influences / 4,
      ...input, outPosition, outNormal, outTangent,
    };
  }
}

function outputFloats(prim: Primitive): number {
  return prim.vertexCount * (3 + (prim.normals ? 3 : 0) + (prim.tangents ? 4 : 0));
}

/**
 * Poses the model at a clip time (exactly as bakeModel) and skins every skinned
 * primitive of the scene on `device` into world space. Same result shape and primitive
 * order as bakeModel; values are float32 GPU results. Rejects on any WebGPU
 * validation or out-of-memory error raised by the bake.
 */
export async function bakeModelGpu(device: GPUDevice, model: Model, options: BakeOptions = {}): Promise<BakeResult> {
  const skinning = parseSkinningMethod(options.skinning);
  const header = poseForBake(model, options);
  const nodeMatrices = header.nodeMatrices;

  // World-space palettes depend on the skin alone: one per skin in use, back to back.
  const paletteOffsetOfSkin = new Map<number, number>();
  let paletteMatrices = 0;
  const jobs: SkinJob[] = [];
  for (const meshNode of model.meshNodes) {
    if (meshNode.skin < 0) continue;
    model.meshes[meshNode.mesh].primitives.forEach((prim, p) => {
      if (prim.influences === 0) return;
      let paletteOffset = paletteOffsetOfSkin.get(meshNode.skin);
      if (paletteOffset === undefined) {
        paletteOffset = paletteMatrices;
        paletteOffsetOfSkin.set(meshNode.skin, paletteOffset);
        paletteMatrices += model.skins[meshNode.skin].joints.length;
      }
      // Morph targets are applied on the CPU before upload (src/skin/morph.ts): a morphed
      // primitive is a distinct input, so a mesh shared by nodes with other weights is not reused.
      const source = morphForBake(model, header, meshNode.node, prim);
      const input = source === prim ? prim : { ...prim, positions: source.positions, normals: source.normals, tangents: source.tangents };
      jobs.push({ node: meshNode.node, mesh: meshNode.mesh, primitive: p, prim: input, paletteOffset });
    });
  }
  if (jobs.length === 0) return { ...header, primitives: [] };

  const palette = new Float32Array(paletteMatrices * PALETTE_MATRIX_FLOATS);
  for (const [skin, offset] of paletteOffsetOfSkin) {
    const s = model.skins[skin];
    // A DqJoint entry fills one matrix slot, so offsets and sizes are the same for both methods.
    // The decomposition runs on the double-precision matrices, as the CPU bake's does.
    if (skinning === 'dual-quaternion') skinDqPalette(s, nodeMatrices, -1, palette, offset, new Float64Array(s.joints.length * 16));
    else skinPalette(s, nodeMatrices, -1, palette, offset);
  }

  const limit = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
  if (palette.byteLength > limit) throw new RangeError(`bakeModelGpu: ${paletteMatrices} joint matrices exceed the device's ${limit}-byte storage buffer limit`);
  const { batches, placements } = planBatches(jobs, limit);

  const { pipeline, bindGroupLayout } = await skinComputePipeline(device, skinning);
  const paramsStride = skinParamsStride(device);
  const label = `bake ${model.name}`;

  // No await from here to the pops: the scopes must catch exactly this bake's calls.
  device.pushErrorScope('out-of-memory');
  device.pushErrorScope('validation');
  const owned: GPUBuffer[] = [];
  const createBuffer = (descriptor: GPUBufferDescriptor): GPUBuffer => {
    const buffer = device.createBuffer({ ...descriptor, size: Math.max(16, descriptor.size) });
    owned.push(buffer);
    return buffer;
  };
  let readbacks: GPUBuffer[] = [];
  let encodeError: unknown;
  try {
    const paletteBuffer = createBuffer({ label: `${label}: joint palettes`, size: palette.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(paletteBuffer, 0, palette);

    const paramsData = new Uint32Array((jobs.length * paramsStride) / 4);
    placements.forEach((at, i) => writeSkinParams(at.params, paramsData, i * paramsStride));
    const paramsBuffer = createBuffer({ label: `${label}: skin params`, size: paramsData.byteLength, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(paramsBuffer, 0, paramsData);

    const resources = batches.map((batch, b) => {
      const buffers = uploadBatch(batch, `${label}: batch ${b}`, createBuffer, paletteBuffer, paramsBuffer);
      return { buffers, bindGroup: createSkinBindGroup(device, { pipeline, bindGroupLayout }, buffers, `${label}: batch ${b} bind group`) };
    });
    readbacks = batches.map((batch, b) =>
      createBuffer({ label: `${label}: batch ${b} readback`, size: batch.skinned * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }));

    const encoder = device.createCommandEncoder({ label: `${label}: encoder` });
    const pass = encoder.beginComputePass({ label: `${label}: skin pass` });
    pass.setPipeline(pipeline);
    const maxGroups = device.limits.maxComputeWorkgroupsPerDimension;
    jobs.forEach((job, i) => dispatchSkinVertices(pass, resources[placements[i].batch].bindGroup, i * paramsStride, job.prim.vertexCount, maxGroups));
    pass.end();
    resources.forEach((r, b) => encoder.copyBufferToBuffer(r.buffers.skinned, 0, readbacks[b], 0, batches[b].skinned * 4));
    device.queue.submit([encoder.finish({ label: `${label}: commands` })]);
  } catch (e) {
    encodeError = e;
  }
  const scopes = Promise.all([device.popErrorScope(), device.popErrorScope()]);

  try {
    const [validation, memory] = await scopes;
    if (encodeError !== undefined) throw encodeError;
    const error = validation ?? memory;
    if (error) throw new Error(`bakeModelGpu: WebGPU ${validation ? 'validation' : 'out-of-memory'} error: ${error.message.split('\n')[0]}`);
    await Promise.all(readbacks.map((r) => r.mapAsync(GPUMapMode.READ)));
    const outputs = readbacks.map((r) => new Float32Array(r.getMappedRange()));
    const primitives = jobs.map((job, i): BakedPrimitive => {
      const out = outputs[placements[i].batch];
      const p = placements[i].params;
      const n = job.prim.vertexCount;
      return {
        node: job.node, mesh: job.mesh, primitive: job.primitive, vertexCount: n,
        positions: new Float64Array(out.subarray(p.outPosition, p.outPosition + n * 3)),
        normals: p.outNormal === SKIN_PARAMS_NONE ? undefined : new Float64Array(out.subarray(p.outNormal, p.outNormal + n * 3)),
        tangents: p.outTangent === SKIN_PARAMS_NONE ? undefined : new Float64Array(out.subarray(p.outTangent, p.outTangent + n * 4)),
      };
    });
    return { ...header, primitives };
  } finally {
    for (const buffer of owned) buffer.destroy();
  }
}

/**
 * Groups jobs so that no buffer of a batch exceeds `limit` bytes (almost always one
 * batch) and places each job in one.
 */
function planBatches(jobs: readonly SkinJob[], limit: number): { batches: Batch[]; placements: Placement[] } {
  const batches = [new Batch()];
  const placements: Placement[] = [];
  for (const job of jobs) {
    let batch = batches[batches.length - 1];
    if (batch.skinned > 0 && batch.bytesWith(job.prim).some((bytes) => bytes > limit)) {
      batch = new Batch();
      batches.push(batch);
    }
    if (batch.bytesWith(job.prim).some((bytes) => bytes > limit)) {
      throw new RangeError(`bakeModelGpu: mesh ${job.mesh} primitive ${job.primitive} (${job.prim.vertexCount} vertices) exceeds the device's ${limit}-byte storage buffer limit`);
    }
    placements.push({ batch: batches.length - 1, params: batch.add(job.prim, job.paletteOffset) });
  }
  return { batches, placements };
}

/** Creates a batch's input buffers filled at creation, and its output buffer. */
function uploadBatch(
  batch: Batch, label: string, createBuffer: (d: GPUBufferDescriptor) => GPUBuffer, palette: GPUBuffer, params: GPUBuffer,
): SkinComputeBuffers {
  const input = (name: string, bytes: number) =>
    createBuffer({ label: `${label}: ${name}`, size: bytes, usage: GPUBufferUsage.STORAGE, mappedAtCreation: true });
  const positions = input('positions', batch.positions * 12);
  const normals = input('normals', batch.normals * 12);
  const tangents = input('tangents', batch.tangents * 16);
  const joints = input('joints', batch.influences * 16);
  const weights = input('weights', batch.influences * 16);
  const pos = new Float32Array(positions.getMappedRange());
  const nrm = new Float32Array(normals.getMappedRange());
  const tan = new Float32Array(tangents.getMappedRange());
  const jnt = new Uint32Array(joints.getMappedRange());
  const wgt = new Float32Array(weights.getMappedRange());
  for (const [prim, at] of batch.inputs) {
    pos.set(prim.positions, at.positionBase * 3);
    if (prim.normals) nrm.set(prim.normals, at.normalBase * 3);
    if (prim.tangents) tan.set(prim.tangents, at.tangentBase * 4);
    // The model's Uint16 joints widen to u32 here (WGSL storage has no 16-bit integers).
    jnt.set(prim.joints!, at.influenceBase * 4);
    wgt.set(prim.weights!, at.influenceBase * 4);
  }
  for (const b of [positions, normals, tangents, joints, weights]) b.unmap();
  const skinned = createBuffer({ label: `${label}: skinned vertices`, size: batch.skinned * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  return { palette, positions, normals, tangents, joints, weights, skinned, params };
}
