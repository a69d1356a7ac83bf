/**
 * Hand-made skinning cases shared by the CPU skinning tests (test/skin/dqs.test.ts,
 * test/skin/cor.test.ts): primitives of a few listed vertices, joint matrices from T/R/S, and
 * a rigid, a scaled/sheared and two more joints with unit normals and tangents to skin.
 */
import { expect } from 'vitest';
import { dqPaletteFromMatrices } from '../../src/anim/dq-palette.ts';
import type { Primitive } from '../../src/gltf/model.ts';
import { composeTRS } from '../../src/math/trs.ts';
import { createSkinnedVertices, skinPrimitive } from '../../src/skin/cpu-skin.ts';
import { skinPrimitiveDq } from '../../src/skin/dqs.ts';
import { axisAngle } from './cylinders.ts';

/** A primitive of the given vertices, each bound to its own joints/weights (4 or 8 per vertex). */
export function vertices(list: { p: number[]; n?: number[]; t?: number[]; j: number[]; w: number[] }[]): Primitive {
  const influences = list[0].j.length as 4 | 8;
  return {
    mode: 4, vertexCount: list.length,
    positions: Float32Array.from(list.flatMap((v) => v.p)),
    normals: Float32Array.from(list.flatMap((v) => v.n ?? [0, 0, 1])),
    tangents: Float32Array.from(list.flatMap((v) => v.t ?? [1, 0, 0, 1])),
    texcoords0: undefined, texcoords1: undefined, colors0: undefined, indices: undefined, material: -1,
    influences, joints: Uint16Array.from(list.flatMap((v) => v.j)), weights: Float32Array.from(list.flatMap((v) => v.w)),
    maxJoint: Math.max(...list.flatMap((v) => v.j)), jointSets: [], weightSets: [], targets: [],
  };
}

/** Matrices from T/R/S triples, back to back (float64). */
export const matrices = (...trs: [number[], number[], number[]][]): Float64Array => {
  const out = new Float64Array(trs.length * 16);
  trs.forEach(([t, r, s], i) => composeTRS(t, r, s, out, 0, 0, 0, i * 16));
  return out;
};

/** The DQ palette of matrices, in float64. */
export const toDq = (m: Float64Array): Float64Array => dqPaletteFromMatrices(m, m.length / 16, new Float64Array(m.length)) as Float64Array;

/** Every component within `eps`. */
export const close = (a: ArrayLike<number>, b: ArrayLike<number>, eps = 1e-9): void => {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < b.length; i++) expect(Math.abs(a[i] - b[i]), `component ${i}: ${a[i]} vs ${b[i]}`).toBeLessThan(eps);
};

/** Linear blending and dual quaternions in float64, for comparisons. */
export const lbs = (prim: Primitive, palette: Float64Array) => skinPrimitive(prim, palette, createSkinnedVertices(prim, 'float64'));
export const dqs = (prim: Primitive, palette: ArrayLike<number>) => skinPrimitiveDq(prim, palette as Float64Array, createSkinnedVertices(prim, 'float64'));

/** A rigid and a scaled/sheared joint, and two more. */
export const JOINTS = matrices(
  [[1, 2, 3], axisAngle([1, 2, 3], 75), [1, 1, 1]],
  [[-1, 0.5, 2], axisAngle([0, 1, -1], 140), [2, 0.5, 1.3]],
  [[0, 0, 0], axisAngle([1, 0, 0], -30), [1, 1, 1]],
  [[0.2, 0.4, -3], axisAngle([1, 1, 0], 200), [0.7, 0.7, 0.7]],
);

/** A few vertices with unit normals and tangents (one mirrored). */
export const SPOTS = [
  { p: [0.3, -1, 2], n: [0, 0.6, 0.8], t: [1, 0, 0, 1] },
  { p: [-2, 0.5, 0.1], n: [1, 0, 0], t: [0, 0.8, 0.6, -1] },
  { p: [0, 0, 0], n: [0.48, 0.6, 0.64], t: [0.6, -0.8, 0, 1] },
];
