/**
 * Load time of the GPU pose evaluator: a model's clips, hierarchy and skins as the words
 * and records shaders/crowd-eval.wgsl reads (layout.ts). Pure CPU, allocates freely.
 */
import { Interpolation, TargetPath } from '../../gltf/constants.ts';
import type { Model } from '../../gltf/model.ts';
import { createPose } from '../../anim/pose.ts';
import { localToModel } from '../../anim/local-to-model.ts';
import { animatedSlots, movingMeshNodes } from '../../anim/moving-mesh-nodes.ts';
import { invertMat4, isIdentityMat4 } from '../../math/trs.ts';
import { GpuLimitError } from '../device/limits.ts';
import {
  CHANNEL_WORDS, ChannelWord, CLIP_WORDS, ClipWord, MAX_GPU_CLIPS, MeshMode, NodeKind, NODE_RECORD_BYTES, NodeRecordOffset, NO_CHANNEL, PALETTE_JOINT_BYTES,
  PaletteJointOffset, TABLE_WORDS,
} from './layout.ts';

/**
 * A clip whose root is held in place (Crowd's `lockRootInPlace`): its ground position is
 * `ends[0..2]` plus the root's height along `up`, and its yaw about `up` is `ends[3]`.
 */
export interface RootLock {
  readonly rootSlot: number;
  /** Unit up vector in the root's parent space. */
  readonly up: ArrayLike<number>;
  /** x y z of the ground position, then the yaw (radians). */
  readonly ends: ArrayLike<number>;
}

export interface AnimationPack {
  /** The words of crowd-eval.wgsl's `animation` binding. */
  readonly words: Uint32Array;
  /** Word offset of the rest morph weights (Pose.weights order). */
  readonly restWeightsAt: number;
  /** Morph weights per instance (all nodes' weights, as `Pose.weights` lays them out). */
  readonly weightCount: number;
  /** One NodeRecord per slot. */
  readonly nodes: ArrayBuffer;
  /** Slots sorted by depth (roots first), and per depth its first index and count there. */
  readonly levelSlots: Uint32Array;
  readonly levels: readonly { readonly start: number; readonly count: number }[];
  /** One PaletteJoint per palette matrix (skinned mesh nodes in order, as InstanceBatch lays palettes out). */
  readonly paletteJoints: ArrayBuffer;
  readonly paletteCount: number;
  /** The slots of the mesh nodes clips move (movingMeshNodes order): their model matrices are written per instance. */
  readonly meshSlots: Uint32Array;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const bits = (x: number): number => { f32[0] = x; return u32[0]; };

/**
 * Packs every clip of `model` (LINEAR, STEP and CUBICSPLINE; translation, rotation, scale and
 * morph weights), its hierarchy and its skins. `locks[c]` holds clip c's root in place.
 * Throws GpuLimitError when the clips cannot be addressed.
 */
export function packModel(model: Model, locks: readonly (RootLock | undefined)[] = []): AnimationPack {
  const clips = model.animations;
  if (clips.length > MAX_GPU_CLIPS) {
    throw new GpuLimitError(`GPU pose evaluator: the model has ${clips.length} clips; at most ${MAX_GPU_CLIPS} fit the per-instance state's 16-bit clip fields`);
  }
  const h = model.hierarchy;
  const n = h.count;
  const template = createPose(model);
  const weightCount = template.weights.length;
  const words: number[] = [];
  const push = (w: number): number => { const at = words.length; words.push(w >>> 0); return at; };
  // Clip records first (clip c at c × CLIP_WORDS), filled in below.
  for (let i = 0; i < clips.length * CLIP_WORDS; i++) push(0);
  for (let c = 0; c < clips.length; c++) {
    const clip = clips[c];
    const at = c * CLIP_WORDS;
    const lock = locks[c];
    if (lock) {
      for (let i = 0; i < 3; i++) { words[at + ClipWord.UP + i] = bits(lock.up[i]); words[at + ClipWord.ORIGIN + i] = bits(lock.ends[i]); }
      words[at + ClipWord.LOCK_SLOT] = lock.rootSlot >>> 0;
      words[at + ClipWord.TURN_COS] = bits(Math.cos(lock.ends[3] / 2));
      words[at + ClipWord.TURN_SIN] = bits(Math.sin(lock.ends[3] / 2));
    } else {
      words[at + ClipWord.LOCK_SLOT] = NO_CHANNEL;
    }
    const table = words.length;
    words[at + ClipWord.TABLE] = table;
    for (let i = 0; i < n * TABLE_WORDS; i++) push(NO_CHANNEL);
    // Which channel sampling applies last per slot and path (sample.ts: LINEAR T/S, LINEAR R, then the rest in order).
    const order = [...clip.channels.keys()];
    const rank = (i: number): number => {
      const ch = clip.channels[i];
      const linear = ch.sampler.interpolation === Interpolation.LINEAR;
      return linear && ch.path !== TargetPath.WEIGHTS ? (ch.path === TargetPath.ROTATION ? 1 : 0) : 2;
    };
    order.sort((a, b) => rank(a) - rank(b) || a - b);
    const timelineAt = clip.timelines.map(() => -1);
    for (const i of order) {
      const ch = clip.channels[i];
      if (h.useMatrix[ch.slot]) continue; // a node with a matrix never takes its animated T/R/S
      const s = ch.sampler;
      if (ch.path === TargetPath.WEIGHTS && template.weightOffsets[ch.slot + 1] - template.weightOffsets[ch.slot] < s.components) continue;
      if (timelineAt[ch.timeline] < 0) {
        timelineAt[ch.timeline] = words.length;
        for (const t of s.times) push(bits(t));
      }
      const valueStart = words.length;
      for (const v of s.values) push(bits(v));
      let slerpStart = 0;
      if (ch.path === TargetPath.ROTATION && s.interpolation === Interpolation.LINEAR) {
        slerpStart = words.length;
        for (let k = 0; k < s.slerpAngle!.length; k++) { push(bits(s.slerpAngle![k])); push(bits(s.slerpInvSin![k])); }
      }
      const record = words.length;
      for (let w = 0; w < CHANNEL_WORDS; w++) push(0);
      words[record + ChannelWord.TIME_START] = timelineAt[ch.timeline];
      words[record + ChannelWord.KEY_COUNT] = s.times.length;
      words[record + ChannelWord.VALUE_START] = valueStart;
      words[record + ChannelWord.INTERPOLATION] = s.interpolation;
      words[record + ChannelWord.COMPONENTS] = s.components;
      words[record + ChannelWord.SLERP_START] = slerpStart;
      words[table + ch.slot * TABLE_WORDS + ch.path] = record;
    }
  }
  const restWeightsAt = words.length;
  for (const w of template.weights) push(bits(w));
  if (words.length === 0) push(0);

  // Which nodes some clip moves (or a root lock, or an animated ancestor); the others are static.
  const animated = animatedSlots(model, locks.flatMap((lock, c) => (lock && c < clips.length ? [lock.rootSlot] : [])));
  const rest = localToModel(h, template, new Float64Array(16 * n));
  const nodes = new ArrayBuffer(NODE_RECORD_BYTES * Math.max(1, n));
  const nf = new Float32Array(nodes), ni = new Int32Array(nodes);
  const depth = new Int32Array(n);
  for (let slot = 0; slot < n; slot++) {
    const o = (slot * NODE_RECORD_BYTES) / 4;
    for (let i = 0; i < 3; i++) {
      nf[o + NodeRecordOffset.REST_TRANSLATION / 4 + i] = h.restTranslation[slot * 3 + i];
      nf[o + NodeRecordOffset.REST_SCALE / 4 + i] = h.restScale[slot * 3 + i];
    }
    for (let i = 0; i < 4; i++) nf[o + NodeRecordOffset.REST_ROTATION / 4 + i] = h.restRotation[slot * 4 + i];
    const parent = h.parentSlot[slot];
    ni[o + NodeRecordOffset.PARENT / 4] = parent;
    const kind = !animated[slot] ? NodeKind.STATIC : h.useMatrix[slot] ? NodeKind.MATRIX : NodeKind.TRS;
    ni[o + NodeRecordOffset.KIND / 4] = kind;
    const m = kind === NodeKind.STATIC ? rest : h.restMatrix;
    ni[o + NodeRecordOffset.WEIGHT_START / 4] = template.weightOffsets[slot];
    ni[o + NodeRecordOffset.WEIGHT_COUNT / 4] = template.weightOffsets[slot + 1] - template.weightOffsets[slot];
    // The matrix as three rows (column-major source: element (row r, column c) at c·4 + r).
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < 4; c++) nf[o + NodeRecordOffset.MATRIX_ROW_0 / 4 + r * 4 + c] = m[slot * 16 + c * 4 + r];
      // A static translation's f64 remainder below its f32 (the double-float the hierarchy carries).
      if (kind === NodeKind.STATIC) nf[o + NodeRecordOffset.STATIC_LOW / 4 + r] = m[slot * 16 + 12 + r] - Math.fround(m[slot * 16 + 12 + r]);
    }
    depth[slot] = parent < 0 ? 0 : depth[parent] + 1;
  }
  const maxDepth = n > 0 ? Math.max(...depth) : -1;
  const levelSlots = new Uint32Array(Math.max(1, n));
  const levels: { start: number; count: number }[] = [];
  let filled = 0;
  for (let d = 0; d <= maxDepth; d++) {
    const start = filled;
    for (let slot = 0; slot < n; slot++) if (depth[slot] === d) levelSlots[filled++] = slot;
    levels.push({ start, count: filled - start });
  }

  // Palettes as InstanceBatch lays them out: skinned mesh nodes in order, each its skin's joints.
  // A mesh node that no clip moves (nor any ancestor) has its inverse computed here, in f64.
  const joints: { ibm: ArrayLike<number>; jointSlot: number; meshSlot: number; mode: number; inverse: Float64Array }[] = [];
  for (const mn of model.meshNodes) {
    if (mn.skin < 0) continue;
    const skin = model.skins[mn.skin];
    const meshSlot = h.slotOf[mn.node];
    const inverse = new Float64Array(16);
    let mode: number = MeshMode.ANIMATED;
    if (!animated[meshSlot]) {
      // skinPalette's rule: relative unless the inverse is singular or identity.
      mode = invertMat4(rest, inverse, meshSlot * 16) && !isIdentityMat4(inverse) ? MeshMode.STATIC : MeshMode.WORLD;
    }
    for (let j = 0; j < skin.joints.length; j++) {
      joints.push({ ibm: skin.inverseBindMatrices.subarray(j * 16, j * 16 + 16), jointSlot: skin.jointSlots[j], meshSlot, mode, inverse });
    }
  }
  const paletteJoints = new ArrayBuffer(PALETTE_JOINT_BYTES * Math.max(1, joints.length));
  const pf = new Float32Array(paletteJoints), pi = new Int32Array(paletteJoints);
  joints.forEach((j, i) => {
    const o = (i * PALETTE_JOINT_BYTES) / 4;
    pf.set(j.ibm, o + PaletteJointOffset.INVERSE_BIND / 4);
    pf.set(j.inverse, o + PaletteJointOffset.MESH_INVERSE / 4);
    pi[o + PaletteJointOffset.JOINT_SLOT / 4] = j.jointSlot;
    pi[o + PaletteJointOffset.MESH_SLOT / 4] = j.meshSlot;
    pi[o + PaletteJointOffset.MESH_MODE / 4] = j.mode;
  });
  return {
    words: Uint32Array.from(words), restWeightsAt, weightCount, nodes, levelSlots, levels, paletteJoints, paletteCount: joints.length,
    meshSlots: Uint32Array.from(movingMeshNodes(model), (i) => h.slotOf[model.meshNodes[i].node]),
  };
}
