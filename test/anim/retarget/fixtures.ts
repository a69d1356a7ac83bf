/**
 * Humanoid rigs built in code for the retargeting contract: one skeleton (Mixamo-like names,
 * Y up, facing +Z, left arm along +X, under a scaled and turned `Armature` node), skinned with
 * a few vertices per joint, with a walk-like clip; and its variants: renamed joints, every
 * joint frame turned by a rotation (compensated), proportions scaled by k, an A-pose rest.
 */
import { GltfBuilder, type AnimationTrack } from '../../../src/gltf/builder.ts';
import { GLB_CHUNK_BIN, GLB_CHUNK_JSON, GLB_MAGIC } from '../../../src/gltf/constants.ts';
import { parseGlb } from '../../../src/gltf/glb.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import type { Clip, Model } from '../../../src/gltf/model.ts';
import { createPose, setRestPose } from '../../../src/anim/pose.ts';
import { localToModel } from '../../../src/anim/local-to-model.ts';
import { skinPalette } from '../../../src/anim/palette.ts';
import { createClipCursor, sampleClip } from '../../../src/anim/sample.ts';
import { createSkinnedVertices, skinPrimitive } from '../../../src/skin/cpu-skin.ts';
import { composeTRS, invertMat4, multiplyMat4 } from '../../../src/math/trs.ts';
import { mulConjQuat, mulQuat, rotateVec } from '../../../src/math/quat.ts';
import { axisAngle } from '../fixtures.ts';
import { addClips } from '../../../src/anim/retarget/add-clips.ts';
import { retargetClips } from '../../../src/anim/retarget/retarget.ts';

export interface RigJoint {
  name: string;
  parent: number;
  t: number[];
  r: number[];
  s?: number[];
}

const I = [0, 0, 0, 1];

/** The base skeleton (joint 0 is the hips; its parent is the Armature node). */
export function baseJoints(): RigJoint[] {
  const j: RigJoint[] = [
    { name: 'Hips', parent: -1, t: [0, 1, 0], r: I },
    { name: 'Spine', parent: 0, t: [0, 0.15, 0], r: I },
    { name: 'Spine1', parent: 1, t: [0, 0.12, 0], r: I },
    { name: 'Spine2', parent: 2, t: [0, 0.12, 0], r: I },
    { name: 'Neck', parent: 3, t: [0, 0.18, 0], r: I },
    { name: 'Head', parent: 4, t: [0, 0.1, 0.02], r: I },
  ];
  for (const [side, x] of [['Left', 1], ['Right', -1]] as const) {
    const sh = j.push({ name: `${side}Shoulder`, parent: 3, t: [0.05 * x, 0.14, 0], r: I }) - 1;
    const arm = j.push({ name: `${side}Arm`, parent: sh, t: [0.1 * x, 0, 0], r: I }) - 1;
    const fore = j.push({ name: `${side}ForeArm`, parent: arm, t: [0.26 * x, 0, 0], r: I }) - 1;
    j.push({ name: `${side}Hand`, parent: fore, t: [0.24 * x, 0, 0], r: I });
  }
  for (const [side, x] of [['Left', 1], ['Right', -1]] as const) {
    const up = j.push({ name: `${side}UpLeg`, parent: 0, t: [0.1 * x, -0.05, 0], r: I }) - 1;
    const leg = j.push({ name: `${side}Leg`, parent: up, t: [0, -0.44, 0], r: I }) - 1;
    const foot = j.push({ name: `${side}Foot`, parent: leg, t: [0, -0.42, 0], r: I }) - 1;
    j.push({ name: `${side}ToeBase`, parent: foot, t: [0, -0.06, 0.12], r: I });
  }
  return j;
}

/** Deterministic pseudo-random numbers in [-1, 1). */
export function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  };
}

/** A unit quaternion of a random axis and an angle up to `maxAngle`. */
export function randomRotation(rnd: () => number, maxAngle: number): number[] {
  const axis = [rnd(), rnd(), rnd()];
  const l = Math.hypot(axis[0], axis[1], axis[2]) || 1;
  return axisAngle(axis.map((a) => a / l), rnd() * maxAngle);
}

export const KEY_TIMES = Float32Array.of(0, 0.25, 0.5, 0.75, 1);

/** The walk-like clip: every joint rotates (up to 35° from its rest), the hips travel and bob, Spine2 scales uniformly. */
export interface ClipKeys {
  rotations: number[][][];
  hipsTranslation: number[][];
  spine2Scale: number[][];
}

export function clipKeys(joints: RigJoint[], seed = 7): ClipKeys {
  const rnd = random(seed);
  const rotations = joints.map((jt) => Array.from(KEY_TIMES, () => mulQuat(jt.r, 0, randomRotation(rnd, 0.6), 0, [0, 0, 0, 0], 0)));
  const hipsTranslation = Array.from(KEY_TIMES, (t) => [0.02 * Math.sin(6 * t), 1 + 0.04 * Math.cos(12 * t), 0.6 * t]);
  const spine2Scale = Array.from(KEY_TIMES, (t) => { const s = 1 + 0.1 * Math.sin(5 * t); return [s, s, s]; });
  return { rotations, hipsTranslation, spine2Scale };
}

export interface RigOptions {
  /** World-space vertex positions per joint (4 each); default: offsets in each joint's frame. */
  vertices?: Float64Array;
  /** Key values of the clip; none: the file has no animation. */
  keys?: ClipKeys;
  /** Prefix added to every joint name (e.g. `mixamorig:`). */
  prefix?: string;
  /** Armature node transform (default: scale 2, turned 30° about Y). */
  armature?: { rotation: number[]; scale: number[] };
  /** Leave the mesh and skin out (an animation-only file, as Blender writes one). */
  animationOnly?: boolean;
  /** Interpolation of the clip's samplers (CUBICSPLINE gets zero tangents: ease in and out). */
  interpolation?: 'LINEAR' | 'STEP' | 'CUBICSPLINE';
  /** Root `extensions` of the file (e.g. a VRM humanoid), listed in extensionsUsed. */
  extensions?: Record<string, unknown>;
}

export const ARMATURE = { rotation: axisAngle([0, 1, 0], Math.PI / 6), scale: [2, 2, 2] };

/** World matrices of the joints in their rest pose (under the armature). */
export function restWorlds(joints: RigJoint[], armature = ARMATURE): Float64Array {
  const world = new Float64Array(joints.length * 16);
  const root = composeTRS([0, 0, 0], armature.rotation, armature.scale, new Float64Array(16));
  const local = new Float64Array(16);
  joints.forEach((j, i) => {
    composeTRS(j.t, j.r, j.s ?? [1, 1, 1], local);
    multiplyMat4(j.parent < 0 ? root : world, local, world, j.parent < 0 ? 0 : j.parent * 16, 0, i * 16);
  });
  return world;
}

/** Four vertices per joint: offsets in the joint's own frame, placed by `world`. */
export function jointVertices(joints: RigJoint[], world: Float64Array): Float64Array {
  const out = new Float64Array(joints.length * 12);
  const offsets = [[0.03, 0.04, 0.02], [-0.03, 0.05, 0.02], [0.02, 0.06, -0.03], [-0.02, 0.02, -0.02]];
  joints.forEach((_, i) => offsets.forEach((o, v) => {
    const m = i * 16;
    for (let c = 0; c < 3; c++) out[(i * 4 + v) * 3 + c] = world[m + c] * o[0] + world[m + 4 + c] * o[1] + world[m + 8 + c] * o[2] + world[m + 12 + c];
  }));
  return out;
}

export function buildRig(joints: RigJoint[], o: RigOptions = {}): Uint8Array {
  const b = new GltfBuilder('retarget fixture');
  const armature = o.armature ?? ARMATURE;
  const world = restWorlds(joints, armature);
  const firstJoint = 1;
  const armatureNode = b.addNode({ name: 'Armature', rotation: armature.rotation, scale: armature.scale, children: [firstJoint] });
  joints.forEach((j) => {
    const children = joints.map((c, ci) => (c.parent === joints.indexOf(j) ? firstJoint + ci : -1)).filter((c) => c >= 0);
    b.addNode({ name: `${o.prefix ?? ''}${j.name}`, translation: j.t, rotation: j.r, ...(j.s ? { scale: j.s } : {}), ...(children.length ? { children } : {}) });
  });
  const roots = [armatureNode];
  if (!o.animationOnly) {
    const vertices = o.vertices ?? jointVertices(joints, world);
    const js: number[] = [], ws: number[] = [];
    joints.forEach((j, i) => {
      for (let v = 0; v < 4; v++) {
        js.push(i, Math.max(j.parent, 0), 0, 0);
        ws.push(j.parent < 0 ? 1 : 0.75, j.parent < 0 ? 0 : 0.25, 0, 0);
      }
    });
    const mesh = b.addMesh({
      primitives: [{
        attributes: {
          POSITION: b.addAccessor(Float32Array.from(vertices), 'VEC3', { minMax: true }),
          JOINTS_0: b.addAccessor(Uint16Array.from(js), 'VEC4'),
          WEIGHTS_0: b.addAccessor(Float32Array.from(ws), 'VEC4'),
        },
      }],
    });
    const ibm = new Float32Array(joints.length * 16);
    const inv = new Float64Array(16);
    joints.forEach((_, i) => {
      if (!invertMat4(world, inv, i * 16)) throw new Error('singular joint');
      ibm.set(inv, i * 16);
    });
    const skin = b.addSkin({ joints: joints.map((_, i) => firstJoint + i), inverseBindMatrices: b.addAccessor(ibm, 'MAT4'), skeleton: firstJoint });
    roots.push(b.addNode({ name: 'Body', mesh, skin }));
  }
  b.addScene({ nodes: roots });
  if (o.extensions) {
    (b.json as Record<string, unknown>).extensions = o.extensions;
    b.json.extensionsUsed = Object.keys(o.extensions);
  }
  if (o.keys) {
    const interpolation = o.interpolation ?? 'LINEAR';
    const out = (keys: number[][]): Float32Array => Float32Array.from(interpolation === 'CUBICSPLINE'
      ? keys.flatMap((k) => [...k.map(() => 0), ...k, ...k.map(() => 0)])
      : keys.flat());
    const tracks: AnimationTrack[] = o.keys.rotations.map((keys, i) => ({ node: firstJoint + i, path: 'rotation', input: KEY_TIMES, output: out(keys), interpolation }));
    tracks.push({ node: firstJoint, path: 'translation', input: KEY_TIMES, output: out(o.keys.hipsTranslation), interpolation });
    tracks.push({ node: firstJoint + 3, path: 'scale', input: KEY_TIMES, output: out(o.keys.spine2Scale), interpolation });
    b.addAnimationTracks('Walk', tracks);
  }
  return b.toGlb();
}

export const loadRig = (glb: Uint8Array, name: string): Promise<Model> => loadGltf(glb, { name });

/**
 * Each joint's local frame turned by `turns[j]`, with the children's rest transforms (and,
 * through restWorlds, the inverse bind matrices) compensating: the same rest mesh.
 */
export function turnFrames(joints: RigJoint[], turns: number[][]): RigJoint[] {
  return joints.map((j, i) => {
    const cp = j.parent < 0 ? I : turns[j.parent];
    return {
      ...j,
      t: Array.from(rotateVec(mulConjQuat(cp, 0, I, 0, [0, 0, 0, 0], 0), 0, j.t, 0, [0, 0, 0], 0)),
      r: mulQuat(mulConjQuat(cp, 0, j.r, 0, [0, 0, 0, 0], 0), 0, turns[i], 0, [0, 0, 0, 0], 0),
    };
  });
}

/** Skinned vertex positions of `model` playing `clip` at `time` (f64 palette, f64 output). */
export function skinnedAt(model: Model, clip: Clip | undefined, time: number): Float64Array {
  const pose = createPose(model);
  setRestPose(model, pose);
  if (clip) sampleClip(createClipCursor(clip), time, pose);
  const world = localToModel(model.hierarchy, pose, new Float64Array(model.hierarchy.count * 16));
  const mn = model.meshNodes.find((m) => m.skin >= 0)!;
  const skin = model.skins[mn.skin];
  const palette = new Float64Array(skin.joints.length * 16);
  skinPalette(skin, world, model.hierarchy.slotOf[mn.node], palette, 0);
  const prim = model.meshes[mn.mesh].primitives[0];
  const out = createSkinnedVertices(prim, 'float64');
  skinPrimitive(prim, palette, out);
  return out.positions as Float64Array;
}

/** World matrices of every node of `model` playing `clip` at `time`. */
export function worldAt(model: Model, clip: Clip | undefined, time: number): Float64Array {
  const pose = createPose(model);
  if (clip) sampleClip(createClipCursor(clip), time, pose);
  return localToModel(model.hierarchy, pose, new Float64Array(model.hierarchy.count * 16));
}

/** Largest distance between corresponding points, divided by the diagonal of `reference`'s bounding box. */
export function relativeError(actual: ArrayLike<number>, reference: ArrayLike<number>): number {
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < reference.length; i++) { lo[i % 3] = Math.min(lo[i % 3], reference[i]); hi[i % 3] = Math.max(hi[i % 3], reference[i]); }
  const diagonal = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
  let worst = 0;
  for (let v = 0; v < reference.length; v += 3) {
    worst = Math.max(worst, Math.hypot(actual[v] - reference[v], actual[v + 1] - reference[v + 1], actual[v + 2] - reference[v + 2]));
  }
  return worst / diagonal;
}

/** A GLB with its JSON edited by `edit` (the BIN chunk kept as it is). */
export function editGlb(glb: Uint8Array, edit: (json: Record<string, any>) => void): Uint8Array {
  const { json, bin } = parseGlb(glb);
  const copy = structuredClone(json) as Record<string, any>;
  edit(copy);
  const text = new TextEncoder().encode(JSON.stringify(copy));
  const jsonPad = (4 - (text.length % 4)) % 4;
  const binPad = bin ? (4 - (bin.length % 4)) % 4 : 0;
  const total = 12 + 8 + text.length + jsonPad + (bin ? 8 + bin.length + binPad : 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, GLB_MAGIC, true); view.setUint32(4, 2, true); view.setUint32(8, total, true);
  view.setUint32(12, text.length + jsonPad, true); view.setUint32(16, GLB_CHUNK_JSON, true);
  out.set(text, 20);
  out.fill(0x20, 20 + text.length, 20 + text.length + jsonPad);
  if (bin) {
    const o = 20 + text.length + jsonPad;
    view.setUint32(o, bin.length + binPad, true); view.setUint32(o + 4, GLB_CHUNK_BIN, true);
    out.set(bin, o + 8);
  }
  return out;
}

/** The CesiumMan → RiggedFigure user map: the joints whose names differ (legs match by name). */
export const CESIUM_TO_FIGURE: Record<string, string> = {
  torso_joint_1: 'Skeleton_torso_joint_1', torso_joint_2: 'Skeleton_torso_joint_2',
  neck_joint_1: 'Skeleton_neck_joint_1', neck_joint_2: 'Skeleton_neck_joint_2',
  arm_joint_L_1: 'Skeleton_arm_joint_L__4_', arm_joint_L_2: 'Skeleton_arm_joint_L__3_', arm_joint_L_3: 'Skeleton_arm_joint_L__2_',
  arm_joint_R_1: 'Skeleton_arm_joint_R', arm_joint_R_2: 'Skeleton_arm_joint_R__2_', arm_joint_R_3: 'Skeleton_arm_joint_R__3_',
};

/**
 * A walk on the base rig retargeted to a copy whose joints are turned at random and added to it
 * (test/anim/retarget/usage.test.ts and the allocation check in test/anim/allocation.test.ts).
 */
export async function retargetedWalk() {
  const joints = baseJoints();
  const src = await loadRig(buildRig(joints, { keys: clipKeys(joints) }), 'walk.glb');
  const rnd = random(3);
  const tgtBase = await loadRig(buildRig(turnFrames(joints, joints.map(() => randomRotation(rnd, 1))), { keys: clipKeys(joints, 11) }), 'hero.glb');
  const { clips } = retargetClips(src.animations, src, tgtBase);
  return { src, tgt: addClips(tgtBase, clips, 'walk.glb'), clip: clips[0] };
}
