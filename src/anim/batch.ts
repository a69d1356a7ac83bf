import { TargetPath } from '../gltf/constants.ts';
import type { Model } from '../gltf/model.ts';
import { invertMat4, isIdentityMat4 } from '../math/trs.ts';
import { updateMatricesAndPalettes, type ModelInstance } from './instance.ts';
import { localToModel } from './local-to-model.ts';
import { animatedMaterials, MaterialAnimation } from './material-tracks.ts';
import { skinPalette } from './palette.ts';
import { createPose, type Pose } from './pose.ts';
import {
  CHANNEL_RECORD_BYTES, CLIP_DESCRIPTOR_BYTES, instantiatePoseKernel, MATRIX_BYTES, MESH_INVERSE_BYTES, POSE_BYTES_PER_NODE, type PoseKernel,
} from './pose-kernel.ts';
import { clipTracks, createClipCursor, findCursorKeys, sampleCursor, sampleOtherChannels, type ClipCursor } from './sample.ts';
import { VrmRuntime } from './vrm/vrm-runtime.ts';

/**
 * Many posed copies of one model, updated together: the fast path for crowds. Each
 * character is an ordinary `ModelInstance` (`instances[i]`, usable with every job that
 * takes one) whose pose, node matrices and palettes are views into one memory, so the
 * rest-pose copy, LINEAR channel sampling, local→model and the palettes of many characters
 * run as one WebAssembly SIMD loop each (`pose-kernel.ts`): poses and node matrices equal
 * the JS jobs' as numbers, palettes are within a few f32 ulps of them. JS finds the keys
 * (one search per timeline, not per channel) and samples the rare STEP, CUBICSPLINE and
 * morph weight channels.
 *
 * Per frame: write `clips[i]` and `times[i]`, call `updateInstanceBatch`; allocates nothing.
 * To edit poses between sampling and matrices (root lock, crossfade, as `Crowd` does), call
 * `sampleInstanceBatch`, edit, then `updateBatchMatricesAndPalettes`.
 */
export interface InstanceBatch {
  readonly model: Model;
  readonly count: number;
  /** Character i as a ModelInstance; its arrays are views into the batch's memory. */
  readonly instances: readonly ModelInstance[];
  /** Per character: the clip `updateInstanceBatch` samples (-1: rest pose). */
  readonly clips: Int32Array;
  /** Per character: seconds into its clip. */
  readonly times: Float64Array;
  /** Every character's palettes back to back (character i's from matrix i · paletteMatrixCount), one upload. */
  readonly palette: Float32Array;
  /** Palette matrices per character (the length of `instances[i].palette` / 16). */
  readonly paletteMatrixCount: number;
  /** Palettes in world space (jointWorld · inverseBind) instead of relative to each mesh node. */
  readonly worldPalettes: boolean;
  /** True when the WebAssembly kernel runs; false: the JS jobs do (same results). */
  readonly accelerated: boolean;
  /**
   * Where everything lives; for the kernel.
   * @internal
   */
  readonly layout: BatchLayout;
}

/** Byte addresses in the batch memory (see pose-kernel.ts for a character block's layout). */
export interface BatchLayout {
  readonly kernel: PoseKernel | null;
  readonly nodeCount: number;
  /** i32 per slot: its parent's matrix offset from a block's identity. */
  readonly parentsPtr: number;
  readonly useMatrixPtr: number;
  readonly restMatrixPtr: number;
  /** The rest T/R/S in a block's own layout, copied over each pose before sampling. */
  readonly restPosePtr: number;
  readonly charPtr: number;
  readonly charStride: number;
  /** Offset in a block of its three i32: clip descriptor, cursor keys, cursor fractions. */
  readonly clipFieldOffset: number;
  /** Per model clip: its descriptor's address (see pose-kernel.ts `sample`). */
  readonly clipDescriptors: Int32Array;
  /** Per character, per clip: addresses of its cursor's keys and fractions. */
  readonly cursorPointers: Int32Array;
  /** Some clip has STEP/CUBICSPLINE/morph weight channels, or the model has morph weights: JS samples those. */
  readonly jsChannels: boolean;
  readonly palettePtr: number;
  /** One per skinned mesh node. */
  readonly meshes: readonly BatchMesh[];
  /** Characters per kernel call: about 128 KiB of blocks and palettes, so a chunk stays in L2 from step to step. */
  readonly chunk: number;
  /** The whole memory as f64 (for the rest-pose copy) and i32 (flags). */
  readonly f64: Float64Array;
  readonly i32: Int32Array;
  /** Default morph weights of all nodes, as `Pose.weights` lays them out (empty: no morphs). */
  readonly restWeights: Float32Array;
}

export interface BatchMesh {
  readonly meshNodeIndex: number;
  readonly meshSlot: number;
  readonly skin: number;
  readonly jointCount: number;
  /** First palette matrix of this mesh within a character's palettes. */
  readonly paletteOffset: number;
  /** Offset of its inverse world matrix within a character block. */
  readonly meshOffset: number;
  readonly jointSlotsPtr: number;
  readonly inverseBindPtr: number;
  /** Inverse bind matrices all affine: the kernel computes the palette; otherwise `skinPalette`. */
  readonly affine: boolean;
}

/** Options of `createInstanceBatch`: world-space palettes, and whether to use the WebAssembly kernel. */
export interface InstanceBatchOptions {
  /** Palettes in world space (jointWorld · inverseBind), as three.js's boneMatrices. Default false. */
  readonly worldPalettes?: boolean;
  /** Use the WebAssembly kernel when available (default true); false forces the JS jobs. */
  readonly wasm?: boolean;
}

const PAGE = 65536;
const CHUNK_BYTES = 128 * 1024;
const align16 = (n: number): number => (n + 15) & ~15;

/**
 * Lays out `count` characters of `model` in one WebAssembly memory: each an ordinary ModelInstance whose
 * pose, node matrices and palette are views into it, with every palette back to back for one upload.
 * `updateInstanceBatch` then poses them all in one call.
 */
export function createInstanceBatch(model: Model, count: number, options: InstanceBatchOptions = {}): InstanceBatch {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`createInstanceBatch: count must be a positive integer, got ${count}`);
  const h = model.hierarchy;
  const n = h.count;

  // Palettes at byte 0 (so a palette's byteOffset is just its place among them, as in an
  // array of their own), then static data (hierarchy, skins, clips), character blocks and cursors.
  let at = 0;
  const take = (bytes: number): number => { const p = at; at = align16(at + bytes); return p; };
  const skinned = model.meshNodes.flatMap((mn, i) => (mn.skin >= 0 ? [i] : []));
  const paletteMatrixCount = skinned.reduce((sum, i) => sum + model.skins[model.meshNodes[i].skin].joints.length, 0);
  const palettePtr = take(64 * paletteMatrixCount * count);
  const parentsPtr = take(4 * n), useMatrixPtr = take(4 * n), restMatrixPtr = take(MATRIX_BYTES * n);
  const restPosePtr = take(POSE_BYTES_PER_NODE * n);
  let paletteOffset = 0;
  const meshSpecs = skinned.map((meshNodeIndex, m) => {
    const mn = model.meshNodes[meshNodeIndex];
    const skin = model.skins[mn.skin];
    const jointCount = skin.joints.length;
    const spec = {
      meshNodeIndex, meshSlot: h.slotOf[mn.node], skin: mn.skin, jointCount, paletteOffset,
      meshOffset: POSE_BYTES_PER_NODE * n + MATRIX_BYTES * (n + 1) + MESH_INVERSE_BYTES * m,
      jointSlotsPtr: take(4 * jointCount), inverseBindPtr: take(64 * jointCount), affine: skin.inverseBindAffine,
    };
    paletteOffset += jointCount;
    return spec;
  });
  // Per clip: descriptor, channel records, key values, slerp pairs (see pose-kernel.ts `sample`).
  const clipSpecs = model.animations.map((clip) => {
    const tracks = clipTracks(clip);
    return {
      tracks,
      descriptor: take(CLIP_DESCRIPTOR_BYTES),
      vectorRecords: take(CHANNEL_RECORD_BYTES * tracks.vectorSlot.length),
      rotationRecords: take(CHANNEL_RECORD_BYTES * tracks.rotationSlot.length),
      vectorValues: take(4 * tracks.vectorValues.length),
      rotationValues: take(4 * tracks.rotationValues.length),
      slerpPairs: take(16 * tracks.rotationAngle.length),
    };
  });
  const clipFieldOffset = POSE_BYTES_PER_NODE * n + MATRIX_BYTES * (n + 1) + MESH_INVERSE_BYTES * skinned.length;
  const charStride = clipFieldOffset + 16;
  const charPtr = take(charStride * count);
  // Per character, per clip: the cursor's keys (i32) and fractions (f64), one per timeline.
  const cursorPtr = take(0);
  const cursorStride = model.animations.reduce((sum, clip) => sum + align16(4 * clip.timelines.length) + 8 * clip.timelines.length, 0);
  take(cursorStride * count);

  const pages = Math.max(1, Math.ceil(at / PAGE));
  // A fixed-size memory: it never grows, so the views below stay attached.
  const memory = options.wasm !== false && typeof WebAssembly === 'object' ? new WebAssembly.Memory({ initial: pages, maximum: pages }) : null;
  const kernel = memory ? instantiatePoseKernel(memory) : null;
  const buffer = kernel ? memory!.buffer : new ArrayBuffer(pages * PAGE);
  const f64 = new Float64Array(buffer), i32 = new Int32Array(buffer);

  for (let slot = 0; slot < n; slot++) {
    i32[parentsPtr / 4 + slot] = (h.parentSlot[slot] + 1) * MATRIX_BYTES;
    i32[useMatrixPtr / 4 + slot] = h.useMatrix[slot];
  }
  f64.set(h.restMatrix, restMatrixPtr / 8);
  f64.set(h.restTranslation, restPosePtr / 8);
  f64.set(h.restRotation, restPosePtr / 8 + 3 * n);
  f64.set(h.restScale, restPosePtr / 8 + 7 * n);
  const clipDescriptors = Int32Array.from(clipSpecs, (c) => c.descriptor);
  for (const c of clipSpecs) {
    const t = c.tracks;
    i32.set([t.vectorSlot.length, c.vectorRecords, t.rotationSlot.length, c.rotationRecords], c.descriptor / 4);
    for (let k = 0; k < t.vectorSlot.length; k++) {
      const target = (t.vectorPath[k] === TargetPath.TRANSLATION ? 0 : 56 * n) + 24 * t.vectorSlot[k];
      i32.set([target, t.vectorTimeline[k], c.vectorValues + 4 * t.vectorStart[k], 0], (c.vectorRecords + CHANNEL_RECORD_BYTES * k) / 4);
    }
    for (let k = 0; k < t.rotationSlot.length; k++) {
      const first = t.rotationStart[k];
      i32.set([24 * n + 32 * t.rotationSlot[k], t.rotationTimeline[k], c.rotationValues + 16 * first, c.slerpPairs + 16 * first],
        (c.rotationRecords + CHANNEL_RECORD_BYTES * k) / 4);
    }
    new Float32Array(buffer, c.vectorValues, t.vectorValues.length).set(t.vectorValues);
    new Float32Array(buffer, c.rotationValues, t.rotationValues.length).set(t.rotationValues);
    for (let k = 0; k < t.rotationAngle.length; k++) {
      f64[c.slerpPairs / 8 + 2 * k] = t.rotationAngle[k];
      f64[c.slerpPairs / 8 + 2 * k + 1] = t.rotationInvSin[k];
    }
  }
  for (const m of meshSpecs) {
    const skin = model.skins[m.skin];
    for (let j = 0; j < m.jointCount; j++) i32[m.jointSlotsPtr / 4 + j] = (skin.jointSlots[j] + 1) * MATRIX_BYTES;
    new Float32Array(buffer, m.inverseBindPtr, 16 * m.jointCount).set(skin.inverseBindMatrices);
  }

  const template = createPose(model);
  const instances: ModelInstance[] = [];
  const paletteOffsets = new Int32Array(model.meshNodes.length).fill(-1);
  for (const m of meshSpecs) paletteOffsets[m.meshNodeIndex] = m.paletteOffset;
  for (let i = 0; i < count; i++) {
    const base = charPtr + i * charStride;
    f64[(base + POSE_BYTES_PER_NODE * n) / 8] = 1; // the block's identity matrix
    f64[(base + POSE_BYTES_PER_NODE * n) / 8 + 5] = 1;
    f64[(base + POSE_BYTES_PER_NODE * n) / 8 + 10] = 1;
    f64[(base + POSE_BYTES_PER_NODE * n) / 8 + 15] = 1;
    const pose: Pose = {
      translation: new Float64Array(buffer, base, 3 * n),
      rotation: new Float64Array(buffer, base + 24 * n, 4 * n),
      scale: new Float64Array(buffer, base + 56 * n, 3 * n),
      weights: template.weights.slice(),
      weightOffsets: template.weightOffsets,
    };
    instances.push({
      model,
      pose,
      cursors: kernel ? cursorsIn(model, buffer, cursorPtr + i * cursorStride) : model.animations.map(createClipCursor),
      nodeMatrices: new Float64Array(buffer, base + POSE_BYTES_PER_NODE * n + MATRIX_BYTES, 16 * n),
      palette: new Float32Array(buffer, palettePtr + i * paletteMatrixCount * 64, paletteMatrixCount * 16),
      paletteOffsets,
      paletteMatrixCount,
      // Material uniforms are per model: the renderer draws the first instance's (crowd.ts evaluates them).
      ...(i === 0 && animatedMaterials(model).length > 0 ? { materialAnimation: new MaterialAnimation(model) } : {}),
    });
    // A VRM avatar's steps (springs, constraints, expressions) run per character, each with its own springs.
    if (model.vrm) {
      const instance = instances[i];
      (instance as { vrm?: VrmRuntime }).vrm = new VrmRuntime(model, instance.pose, instance.nodeMatrices, instance.materialAnimation);
    }
  }

  const batch: InstanceBatch = {
    model, count, instances,
    clips: new Int32Array(count).fill(-1),
    times: new Float64Array(count),
    palette: new Float32Array(buffer, palettePtr, paletteMatrixCount * 16 * count),
    paletteMatrixCount,
    worldPalettes: options.worldPalettes === true,
    accelerated: kernel !== null,
    layout: {
      kernel, nodeCount: n, parentsPtr, useMatrixPtr, restMatrixPtr, restPosePtr, charPtr, charStride, clipFieldOffset, clipDescriptors,
      cursorPointers: Int32Array.from(instances.flatMap((instance) => instance.cursors.flatMap((c) => [c.keys.byteOffset, c.fractions.byteOffset]))),
      jsChannels: template.weights.length > 0 || clipSpecs.some((c) => c.tracks.other.length > 0),
      palettePtr,
      chunk: Math.max(1, Math.floor(CHUNK_BYTES / (charStride + 64 * paletteMatrixCount))),
      meshes: meshSpecs, f64, i32, restWeights: template.weights,
    },
  };
  updateInstanceBatch(batch);
  return batch;
}

/**
 * Poses character i at `times[i]` seconds of clip `clips[i]` (-1: rest pose), then
 * computes every node matrix and palette: per character the same as
 * `updateModelInstance(instances[i], clips[i], times[i])` (or its world-space palette; on the
 * kernel, palettes to f32 rounding).
 * Only characters 0..count-1 are touched (default: all). Allocates nothing.
 *
 * Same result as `sampleInstanceBatch` then `updateBatchMatricesAndPalettes`, but chunk by
 * chunk, so a chunk's poses and matrices stay in cache from one step to the next.
 */
export function updateInstanceBatch(batch: InstanceBatch, count = batch.count): void {
  checkCount(batch, count);
  const layout = batch.layout;
  const kernel = layout.kernel;
  if (!kernel) {
    sampleJs(batch, count);
    updateBatchMatricesAndPalettes(batch, count);
    return;
  }
  findKeys(batch, count);
  for (let first = 0; first < count; first += layout.chunk) {
    const end = Math.min(first + layout.chunk, count);
    sampleChunk(batch, kernel, first, end);
    matricesAndPalettes(batch, kernel, first, end);
  }
}

/**
 * Only the sampling half of `updateInstanceBatch`: the pose of character i becomes clip
 * `clips[i]` at `times[i]` (-1: rest pose), for characters 0..count-1 (default: all).
 * The caller may then edit the poses (lock a root, blend a crossfade) before
 * `updateBatchMatricesAndPalettes`. Allocates nothing.
 */
export function sampleInstanceBatch(batch: InstanceBatch, count = batch.count): void {
  checkCount(batch, count);
  const layout = batch.layout;
  const kernel = layout.kernel;
  if (!kernel) {
    sampleJs(batch, count);
    return;
  }
  findKeys(batch, count);
  for (let first = 0; first < count; first += layout.chunk) sampleChunk(batch, kernel, first, Math.min(first + layout.chunk, count));
}

function checkCount(batch: InstanceBatch, count: number): void {
  if (!Number.isInteger(count) || count < 0 || count > batch.count) {
    throw new RangeError(`InstanceBatch: count ${count} is not in [0, ${batch.count}]`);
  }
}

/** Rest pose and sampling of characters 0..count-1 by the JS jobs (no kernel). */
function sampleJs(batch: InstanceBatch, count: number): void {
  const { instances, clips, times, layout } = batch;
  const { f64, charPtr, charStride, restWeights } = layout;
  const restStart = layout.restPosePtr / 8, restEnd = restStart + (POSE_BYTES_PER_NODE / 8) * layout.nodeCount;
  for (let i = 0; i < count; i++) {
    const instance = instances[i];
    // setRestPose in one copy: T, R and S are adjacent in a block, as in the rest copy.
    f64.copyWithin((charPtr + i * charStride) / 8, restStart, restEnd);
    if (restWeights.length > 0) instance.pose.weights.set(restWeights);
    const clip = clips[i];
    if (clip < 0) continue;
    const cursor = instance.cursors[clip];
    cursor.time = times[i];
    sampleCursor(cursor, instance.pose);
  }
}

/** JS finds the keys of characters 0..count-1 and tells the kernel which clip and cursor each samples. */
function findKeys(batch: InstanceBatch, count: number): void {
  const { instances, clips, times, layout } = batch;
  const { i32, charStride, clipFieldOffset, clipDescriptors, cursorPointers } = layout;
  const clipCount = clipDescriptors.length;
  let field = (layout.charPtr + clipFieldOffset) >> 2;
  for (let i = 0; i < count; i++, field += charStride >> 2) {
    const clip = clips[i];
    if (clip < 0) {
      i32[field] = 0;
      continue;
    }
    const cursor = instances[i].cursors[clip];
    cursor.time = times[i];
    findCursorKeys(cursor);
    i32[field] = clipDescriptors[clip];
    i32[field + 1] = cursorPointers[2 * (i * clipCount + clip)];
    i32[field + 2] = cursorPointers[2 * (i * clipCount + clip) + 1];
  }
}

/**
 * Characters first..end-1, keys found: the kernel copies the rest pose and samples the
 * LINEAR channels; JS then samples the other channels (if any clip has some) over that.
 */
function sampleChunk(batch: InstanceBatch, kernel: PoseKernel, first: number, end: number): void {
  const { instances, clips, layout } = batch;
  const { charStride, restWeights } = layout;
  kernel.sample(end - first, layout.charPtr + first * charStride, charStride, layout.clipFieldOffset, layout.restPosePtr, POSE_BYTES_PER_NODE * layout.nodeCount);
  if (!layout.jsChannels) return;
  for (let i = first; i < end; i++) {
    const instance = instances[i];
    if (restWeights.length > 0) instance.pose.weights.set(restWeights);
    const clip = clips[i];
    if (clip >= 0) sampleOtherChannels(instance.cursors[clip], instance.pose);
  }
}

/** Cursors of every clip whose keys and fractions live in the batch memory from `at`, where the kernel reads them. */
function cursorsIn(model: Model, buffer: ArrayBuffer, at: number): ClipCursor[] {
  return model.animations.map((clip) => {
    const timelines = clip.timelines.length;
    const keys = new Int32Array(buffer, at, timelines);
    at += align16(4 * timelines);
    const fractions = new Float64Array(buffer, at, timelines);
    at += 8 * timelines;
    return { clip, tracks: clipTracks(clip), keys, fractions, time: 0 };
  });
}

/**
 * Node matrices and palettes of characters 0..count-1 (default: all) from whatever is in
 * their poses (e.g. after blending). Allocates nothing.
 */
export function updateBatchMatricesAndPalettes(batch: InstanceBatch, count = batch.count): void {
  checkCount(batch, count);
  const { instances, layout } = batch;
  const kernel = layout.kernel;
  if (batch.model.vrm) {
    // The VRM steps run between each character's node matrices and its palettes: in JS, character by character.
    for (let i = 0; i < count; i++) vrmMatricesAndPalettes(batch, instances[i]);
    return;
  }
  if (!kernel) {
    if (batch.worldPalettes) {
      for (let i = 0; i < count; i++) worldPalettesJs(batch, instances[i]);
    } else {
      for (let i = 0; i < count; i++) updateMatricesAndPalettes(instances[i]);
    }
    return;
  }
  for (let first = 0; first < count; first += layout.chunk) {
    matricesAndPalettes(batch, kernel, first, Math.min(first + layout.chunk, count));
  }
}

/** Kernel local→model and palettes of characters first..end-1. */
function matricesAndPalettes(batch: InstanceBatch, kernel: PoseKernel, first: number, end: number): void {
  const { instances, layout } = batch;
  const { charStride, nodeCount, f64, i32 } = layout;
  const count = end - first;
  const charPtr = layout.charPtr + first * charStride;
  const paletteBytes = batch.paletteMatrixCount * 64;
  kernel.localToModel(count, charPtr, charStride, nodeCount, layout.parentsPtr, layout.useMatrixPtr, layout.restMatrixPtr);
  const matricesOffset = POSE_BYTES_PER_NODE * nodeCount;
  const meshes = layout.meshes;
  for (let m = 0; m < meshes.length; m++) {
    const mesh = meshes[m];
    // skinPalette's rule: relative to the mesh node unless its inverse is singular or
    // identity. World palettes keep the flag at 0, as the batch was created.
    if (!batch.worldPalettes) {
      for (let i = 0; i < count; i++) {
        const inverse = charPtr + i * charStride + mesh.meshOffset;
        const world = (charPtr + i * charStride + matricesOffset + (mesh.meshSlot + 1) * MATRIX_BYTES) >> 3;
        i32[(inverse + MATRIX_BYTES) >> 2] = invertMat4(f64, f64, world, inverse >> 3) && !isIdentityMat4(f64, inverse >> 3) ? 1 : 0;
      }
    }
    if (mesh.affine) {
      kernel.palette(
        count, charPtr, charStride, matricesOffset, mesh.meshOffset, mesh.jointCount,
        mesh.jointSlotsPtr, mesh.inverseBindPtr, layout.palettePtr + first * paletteBytes + mesh.paletteOffset * 64, paletteBytes,
      );
    } else {
      const skin = batch.model.skins[mesh.skin];
      const meshSlot = batch.worldPalettes ? -1 : mesh.meshSlot;
      for (let i = first; i < end; i++) {
        skinPalette(skin, instances[i].nodeMatrices, meshSlot, instances[i].palette, mesh.paletteOffset);
      }
    }
  }
}

/** A VRM character: node matrices, its VRM steps, then its palettes (world or mesh-relative, as the batch makes them). */
function vrmMatricesAndPalettes(batch: InstanceBatch, instance: ModelInstance): void {
  if (!batch.worldPalettes) {
    updateMatricesAndPalettes(instance);
    return;
  }
  const { model } = instance;
  localToModel(model.hierarchy, instance.pose, instance.nodeMatrices);
  instance.vrm!.run();
  const meshes = batch.layout.meshes;
  for (let m = 0; m < meshes.length; m++) {
    skinPalette(model.skins[meshes[m].skin], instance.nodeMatrices, -1, instance.palette, meshes[m].paletteOffset);
  }
}

function worldPalettesJs(batch: InstanceBatch, instance: ModelInstance): void {
  const { model } = instance;
  localToModel(model.hierarchy, instance.pose, instance.nodeMatrices);
  const meshes = batch.layout.meshes;
  for (let m = 0; m < meshes.length; m++) {
    skinPalette(model.skins[meshes[m].skin], instance.nodeMatrices, -1, instance.palette, meshes[m].paletteOffset);
  }
}
