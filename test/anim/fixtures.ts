import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Model } from '../../src/gltf/model.ts';
import { localToModel } from '../../src/anim/local-to-model.ts';
import type { Pose } from '../../src/anim/pose.ts';

/** The built-in humanoid (Y up, facing +Z, left arm along +X). */
export const loadCharacter = (): Promise<Model> => loadGltf(buildBuiltinGlb('character'), { name: 'builtin:character' });

export const modelMatrices = (model: Model, pose: Pose): Float64Array =>
  localToModel(model.hierarchy, pose, new Float64Array(model.hierarchy.count * 16));

/** Model-space position of a slot in localToModel output. */
export const positionOf = (models: Float64Array, slot: number): number[] => [models[slot * 16 + 12], models[slot * 16 + 13], models[slot * 16 + 14]];

/** Model-space direction of a local axis of a slot (normalised). */
export function axisOf(models: Float64Array, slot: number, local: ArrayLike<number>): number[] {
  const o = slot * 16;
  const v = [0, 1, 2].map((r) => models[o + r] * local[0] + models[o + 4 + r] * local[1] + models[o + 8 + r] * local[2]);
  const l = Math.hypot(v[0], v[1], v[2]);
  return v.map((x) => x / l);
}

export const sub = (a: number[], b: number[]): number[] => a.map((x, i) => x - b[i]);
export const dot = (a: number[], b: number[]): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
export const norm = (a: number[]): number => Math.hypot(a[0], a[1], a[2]);
export const cross = (a: number[], b: number[]): number[] => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];

/** Quaternion about a unit axis, x y z w. */
export const axisAngle = (axis: number[], radians: number): number[] => {
  const s = Math.sin(radians / 2);
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(radians / 2)];
};

/** Angle between two rotations (radians), sign-agnostic; atan2 of conj(a)·b stays accurate near 0, unlike acos. */
export const quatAngle = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  const ax = -a[0], ay = -a[1], az = -a[2], aw = a[3];
  const x = aw * b[0] + ax * b[3] + ay * b[2] - az * b[1];
  const y = aw * b[1] - ax * b[2] + ay * b[3] + az * b[0];
  const z = aw * b[2] + ax * b[1] - ay * b[0] + az * b[3];
  const w = aw * b[3] - ax * b[0] - ay * b[1] - az * b[2];
  return 2 * Math.atan2(Math.hypot(x, y, z), Math.abs(w));
};

/** A pose's slot as plain arrays, for comparing. */
export const slotValues = (pose: Pose, slot: number) => ({
  t: Array.from(pose.translation.subarray(slot * 3, slot * 3 + 3)),
  r: Array.from(pose.rotation.subarray(slot * 4, slot * 4 + 4)),
  s: Array.from(pose.scale.subarray(slot * 3, slot * 3 + 3)),
});

/** Hamilton product a · b (apply b, then a) of plain quaternions. */
export const mulQ = (a: ArrayLike<number>, b: ArrayLike<number>): number[] => [
  a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
  a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
  a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
  a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
];
export const conjQ = (q: ArrayLike<number>): number[] => [-q[0], -q[1], -q[2], q[3]];

/**
 * How far a batch-kernel palette is from the f64 jobs' one, in units of what f32 arithmetic
 * allows (≤ 1 passes). The kernel forms (meshInverse ·) jointWorld · inverseBind in f32
 * (src/anim/pose-kernel.ts `palette`), so an entry may sit a few f32 ulps of the largest
 * term off the f64 product rounded once; translations cancel (a joint's world translation
 * against its rotated inverse-bind translation), so the ulps are those of the largest
 * translation among the node matrices and inverse binds, not of the result.
 */
export function paletteUlpError(actual: ArrayLike<number>, expected: ArrayLike<number>, model: Model, nodeMatrices: Float64Array): number {
  if (actual.length !== expected.length) throw new Error(`palettes of ${actual.length} and ${expected.length} floats`);
  let largest = 1;
  for (let o = 0; o < nodeMatrices.length; o += 16) largest = Math.max(largest, Math.abs(nodeMatrices[o + 12]), Math.abs(nodeMatrices[o + 13]), Math.abs(nodeMatrices[o + 14]));
  for (const skin of model.skins) {
    const b = skin.inverseBindMatrices;
    for (let o = 0; o < b.length; o += 16) largest = Math.max(largest, Math.abs(b[o + 12]), Math.abs(b[o + 13]), Math.abs(b[o + 14]));
  }
  const tolerance = 8 * 2 ** -24 * largest;
  let worst = 0;
  for (let i = 0; i < actual.length; i++) {
    const d = actual[i] === expected[i] ? 0 : Math.abs(actual[i] - expected[i]);
    if (!(d / tolerance <= worst)) worst = d / tolerance;
  }
  return worst;
}
