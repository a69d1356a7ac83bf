/**
 * `bake --backend gpu`: the CPU poses the model (the same pose and palette code as
 * bakeModel), the GPU skins every skinned primitive through the Renderer's compute skinning
 * pass (src/gpu/draw/preskin.ts: its shaders, pipelines, input layout and dispatches), and the
 * result comes back as the same BakeResult as bakeModel's — in float32 precision, widened to
 * Float64Array.
 *
 * What the bake feeds the pass is what keeps its numbers the CPU bake's:
 * - World palettes (no mesh node), so the output is in world space as it stands, and a
 *   dual-quaternion palette splits the world matrices, as bakeModel's does. (The Renderer's
 *   palettes are mesh-relative, its output is then carried by the mesh node's matrix; under
 *   a non-uniformly scaled mesh node the two dual-quaternion blends differ.)
 * - Morph targets applied on the CPU (morphForBake) before upload; the pass runs its
 *   unmorphed variant.
 * - The loader's renormalised weights and its joints (Primitive.weights / joints), tangents
 *   kept where a primitive has no normals, and records asking for exact (cofactor) normals.
 * - For centre-of-rotation skinning, the same centres as the CPU bake's (the file's, or
 *   computed here: src/skin/centers-of-rotation/centers.ts), in one storage buffer.
 *
 * Everything goes to the GPU at once: the palettes of all skins in one storage buffer and
 * one draw record per skinned primitive (a writeBuffer each), every distinct primitive's
 * vertex data once (a mesh instanced by several skinned nodes is uploaded once), one compute
 * pass, one submission, then mapAsync. Primitives whose buffers would pass the device's
 * storage binding limit go in several batches, each with its own inputs and output.
 */
import { skinPalette } from '../anim/palette.ts';
import { skinDqPalette } from '../anim/dq-palette.ts';
import { parseSkinningMethod, usesDqPalette } from '../anim/skinning-method.ts';
import type { Model, Primitive } from '../gltf/model.ts';
import { DRAW_RECORD_WORDS, DrawRecordArray, DrawRecordWord } from '../gpu/layouts/draw-record.ts';
import { DrawFlag, PALETTE_MATRIX_FLOATS } from '../gpu/layouts/bindings.ts';
import { maxStorageBytes } from '../gpu/device/limits.ts';
import {
  PreskinInputs, preskinPipeline, SKINNED_VERTEX_BYTES, SKINNED_VERTEX_VEC4S, SOURCE_VERTEX_FLOATS,
  type PreskinDispatch, type PreskinVertices,
} from '../gpu/draw/preskin.ts';
import { centersOf } from '../skin/centers-of-rotation/centers.ts';
import { morphForBake, poseForBake, type BakedPrimitive, type BakeOptions, type BakeResult } from './bake.ts';

/** One skinned primitive of one mesh node: one dispatch, one draw record. */
interface SkinJob {
  readonly node: number;
  readonly mesh: number;
  readonly primitive: number;
  readonly vertices: PreskinVertices;
  readonly paletteOffset: number;
  /** The model's primitive (its centres of rotation). */
  readonly prim: Primitive;
}

/** Where a job's skinned vertices land: its batch, and its first vertex in that batch's output. */
interface Placement {
  readonly batch: number;
  readonly skinnedBase: number;
}

/** Jobs whose inputs and output share one set of buffers (one bind group). */
class Batch {
  readonly dispatches: PreskinDispatch[] = [];
  private readonly uploaded = new Set<PreskinVertices>();
  /** Source vertices and influence vec4s uploaded, and vertices written. */
  private vertices = 0;
  private influences = 0;
  outputVertices = 0;

  /** Bytes each buffer would need with `v` added: sources, joints (= weights), output. */
  bytesWith(v: PreskinVertices): number[] {
    const n = this.uploaded.has(v) ? 0 : v.vertexCount;
    return [
      (this.vertices + n) * SOURCE_VERTEX_FLOATS * 4,
      (this.influences + n * v.influenceSets) * 16,
      (this.outputVertices + v.vertexCount) * SKINNED_VERTEX_BYTES,
    ];
  }

  /** Adds job `draw` (its inputs once) and returns its first vertex in the output. */
  add(draw: number, v: PreskinVertices): number {
    if (!this.uploaded.has(v)) {
      this.uploaded.add(v);
      this.vertices += v.vertexCount;
      this.influences += v.vertexCount * v.influenceSets;
    }
    this.dispatches.push({ draw, vertices: v });
    const base = this.outputVertices;
    this.outputVertices += v.vertexCount;
    return base;
  }
}

/** A primitive's vertices as the CPU bake skins them, morphed or not. */
function bakeVertices(prim: Primitive, source: Pick<Primitive, 'positions' | 'normals' | 'tangents'>): PreskinVertices {
  return {
    vertexCount: prim.vertexCount, influenceSets: prim.influences / 4,
    positions: source.positions, normals: source.normals, tangents: source.tangents,
    joints: prim.joints!, weights: prim.weights!,
  };
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
  const unmorphed = new Map<Primitive, PreskinVertices>();
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
      // A morphed primitive is a distinct input, so a mesh shared by nodes with other weights is not reused.
      const source = morphForBake(model, header, meshNode.node, prim);
      let vertices = source === prim ? unmorphed.get(prim) : undefined;
      if (!vertices) {
        vertices = bakeVertices(prim, source);
        if (source === prim) unmorphed.set(prim, vertices);
      }
      jobs.push({ node: meshNode.node, mesh: meshNode.mesh, primitive: p, vertices, paletteOffset, prim });
    });
  }
  if (jobs.length === 0) return { ...header, primitives: [] };

  const palette = new Float32Array(paletteMatrices * PALETTE_MATRIX_FLOATS);
  for (const [skin, offset] of paletteOffsetOfSkin) {
    const s = model.skins[skin];
    // A DqJoint entry fills one matrix slot, so offsets and sizes are the same for both methods.
    // The decomposition runs on the double-precision matrices, as the CPU bake's does.
    if (usesDqPalette(skinning)) skinDqPalette(s, nodeMatrices, -1, palette, offset, new Float64Array(s.joints.length * 16));
    else skinPalette(s, nodeMatrices, -1, palette, offset);
  }

  const limit = maxStorageBytes(device.limits);
  if (palette.byteLength > limit) throw new RangeError(`bakeModelGpu: ${paletteMatrices} joint matrices exceed the device's ${limit}-byte storage buffer limit`);
  const records = new DrawRecordArray(jobs.length);
  if (records.buffer.byteLength > limit) throw new RangeError(`bakeModelGpu: the draw records of ${jobs.length} skinned primitives exceed the device's ${limit}-byte storage buffer limit`);
  const { batches, placements } = planBatches(jobs, limit);
  const centers = skinning === 'center-of-rotation' ? packJobCenters(jobs) : undefined;
  if (centers && centers.data.byteLength > limit) throw new RangeError(`bakeModelGpu: the centres of rotation exceed the device's ${limit}-byte storage buffer limit`);
  jobs.forEach((job, i) => {
    const at = i * DRAW_RECORD_WORDS;
    records.u32[at + DrawRecordWord.PALETTE_OFFSET] = job.paletteOffset;
    records.u32[at + DrawRecordWord.FLAGS] = DrawFlag.EXACT_NORMALS;
    records.u32[at + DrawRecordWord.SKINNED_BASE] = placements[i].skinnedBase;
    records.u32[at + DrawRecordWord.CENTER_BASE] = centers ? centers.base[i] : 0;
  });

  const pipelineOf = (job: SkinJob) => preskinPipeline(device, skinning, { influenceSets: job.vertices.influenceSets, morphed: false });
  const pipelines = await Promise.all(jobs.map(pipelineOf));
  const batchPipelines = batches.map((batch) => batch.dispatches.map((d) => pipelines[d.draw]));
  const label = `bake ${model.name}`;

  // No await from here to the pops: the scopes must catch exactly this bake's calls.
  device.pushErrorScope('out-of-memory');
  device.pushErrorScope('validation');
  const owned: { destroy(): void }[] = [];
  const createBuffer = (descriptor: GPUBufferDescriptor): GPUBuffer => {
    const buffer = device.createBuffer({ ...descriptor, size: Math.max(16, descriptor.size) });
    owned.push(buffer);
    return buffer;
  };
  let readbacks: GPUBuffer[] = [];
  let encodeError: unknown;
  try {
    const shared = {
      palette: createBuffer({ label: `${label}: joint palettes`, size: palette.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST }),
      draws: createBuffer({ label: `${label}: draw records`, size: records.buffer.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST }),
      // Never read: no record sets a morph flag, and the unmorphed pipelines skip the deltas.
      morphDeltas: createBuffer({ label: `${label}: no morph deltas (morphed on the CPU)`, size: 16, usage: GPUBufferUsage.STORAGE }),
      centers: createBuffer({
        label: `${label}: ${centers ? 'centres of rotation' : 'no centres of rotation'}`, size: centers?.data.byteLength ?? 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
      }),
    };
    if (centers) device.queue.writeBuffer(shared.centers, 0, centers.data);
    device.queue.writeBuffer(shared.palette, 0, palette);
    device.queue.writeBuffer(shared.draws, 0, records.buffer);

    const encoder = device.createCommandEncoder({ label: `${label}: encoder` });
    const pass = encoder.beginComputePass({ label: `${label}: skin pass` });
    const outputs = batches.map((batch, b) => {
      const inputs = new PreskinInputs(device, batch.dispatches, `${label}: batch ${b} preskin`);
      owned.push(inputs);
      const output = createBuffer({
        label: `${label}: batch ${b} skinned vertices`, size: batch.outputVertices * SKINNED_VERTEX_BYTES, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC,
      });
      inputs.dispatch(pass, inputs.bindGroup(shared, output, `${label}: batch ${b} bind group`), batchPipelines[b], 1);
      return output;
    });
    pass.end();
    readbacks = outputs.map((output, b) => {
      const readback = createBuffer({ label: `${label}: batch ${b} readback`, size: output.size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      encoder.copyBufferToBuffer(output, 0, readback, 0, output.size);
      return readback;
    });
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
    const skinned = readbacks.map((r) => new Float32Array(r.getMappedRange()));
    const primitives = jobs.map((job, i): BakedPrimitive => {
      const { vertexCount, normals, tangents } = job.vertices;
      const out = skinned[placements[i].batch];
      const base = placements[i].skinnedBase;
      return {
        node: job.node, mesh: job.mesh, primitive: job.primitive, vertexCount,
        positions: skinnedAttribute(out, base, vertexCount, 0, 3),
        normals: normals ? skinnedAttribute(out, base, vertexCount, 1, 3) : undefined,
        tangents: tangents ? skinnedAttribute(out, base, vertexCount, 2, 4) : undefined,
      };
    });
    return { ...header, primitives };
  } finally {
    for (const o of owned) o.destroy();
  }
}

/** One attribute of `count` skinned vertices from `base`: `components` floats of vec4 `slot` (preskin's output layout). */
function skinnedAttribute(out: Float32Array, base: number, count: number, slot: number, components: number): Float64Array {
  const dst = new Float64Array(count * components);
  const stride = SKINNED_VERTEX_VEC4S * 4;
  for (let v = 0; v < count; v++) {
    const at = (base + v) * stride + slot * 4;
    for (let c = 0; c < components; c++) dst[v * components + c] = out[at + c];
  }
  return dst;
}

/** Every distinct primitive's centres of rotation back to back (xyz per vertex), and each job's first vertex there. */
function packJobCenters(jobs: readonly SkinJob[]): { data: Float32Array; base: Int32Array } {
  const baseOf = new Map<Primitive, number>();
  let vertices = 0;
  for (const job of jobs) {
    if (baseOf.has(job.prim)) continue;
    baseOf.set(job.prim, vertices);
    vertices += job.prim.vertexCount;
  }
  const data = new Float32Array(vertices * 3);
  for (const [prim, base] of baseOf) data.set(centersOf(prim).centers.subarray(0, prim.vertexCount * 3), base * 3);
  return { data, base: Int32Array.from(jobs, (job) => baseOf.get(job.prim)!) };
}

/**
 * Groups jobs so that no buffer of a batch exceeds `limit` bytes (almost always one
 * batch) and places each job in one.
 */
function planBatches(jobs: readonly SkinJob[], limit: number): { batches: Batch[]; placements: Placement[] } {
  const batches = [new Batch()];
  const placements: Placement[] = [];
  jobs.forEach((job, draw) => {
    let batch = batches[batches.length - 1];
    if (batch.outputVertices > 0 && batch.bytesWith(job.vertices).some((bytes) => bytes > limit)) {
      batch = new Batch();
      batches.push(batch);
    }
    if (batch.bytesWith(job.vertices).some((bytes) => bytes > limit)) {
      throw new RangeError(`bakeModelGpu: mesh ${job.mesh} primitive ${job.primitive} (${job.vertices.vertexCount} vertices) exceeds the device's ${limit}-byte storage buffer limit`);
    }
    placements.push({ batch: batches.length - 1, skinnedBase: batch.add(draw, job.vertices) });
  });
  return { batches, placements };
}
