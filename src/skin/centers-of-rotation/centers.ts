/**
 * Where a skinned primitive's centres of rotation come from, once per primitive: the file's
 * `_CENTER_OF_ROTATION` attribute (gltf/center-of-rotation-attribute.ts) when it has a sound
 * one, else the precomputation (precompute.ts), run here (Node: bake, tests) or in the page's
 * worker (offthread.ts), its result kept for the primitive's lifetime. A primitive over the
 * precomputation's budget gets its rest positions as centres, which skins its positions
 * exactly as linear blending does, and a warning naming it.
 */
import type { GltfWarning } from '../../gltf/errors.ts';
import type { Model, Primitive } from '../../gltf/model.ts';
import { triangleList } from '../../gltf/topology.ts';
import { computeCentersOfRotation, type CentersOfRotationInput, type CentersOfRotationOptions, type CentersOfRotationResult } from './precompute.ts';

/** 'file': the attribute; 'computed': the precomputation; 'linear': over budget, the rest positions. */
export type CentersSource = 'file' | 'computed' | 'linear';

export interface PrimitiveCenters {
  /** xyz per vertex, bind pose. */
  readonly centers: Float32Array;
  readonly source: CentersSource;
}

/** Counters for tests and the bench: precomputations run (on any thread) by this module. */
export const centersOfRotationCounters = { precomputed: 0 };

const settled = new WeakMap<Primitive, PrimitiveCenters>();

/** The primitive's centres if they are known without computing (the file's, or settled earlier). Allocates only the first time. */
export function readyCenters(prim: Primitive): PrimitiveCenters | undefined {
  let known = settled.get(prim);
  if (!known && prim.centersOfRotation) settled.set(prim, (known = { centers: prim.centersOfRotation, source: 'file' }));
  return known;
}

/** What the precomputation reads of `prim` (its own arrays, not copies). */
export function centersInput(prim: Primitive): CentersOfRotationInput {
  if (!prim.joints || !prim.weights) throw new Error('centres of rotation: the primitive has no JOINTS_0/WEIGHTS_0');
  return {
    vertexCount: prim.vertexCount, positions: prim.positions, joints: prim.joints, weights: prim.weights,
    influences: prim.influences, triangles: triangleList(prim),
  };
}

/** Keeps a precomputation's result as `prim`'s centres (its rest positions when over budget). */
export function settleCenters(prim: Primitive, result: CentersOfRotationResult): PrimitiveCenters {
  centersOfRotationCounters.precomputed++;
  const centers: PrimitiveCenters = result.ok
    ? { centers: result.centers, source: 'computed' }
    : { centers: prim.positions, source: 'linear' };
  settled.set(prim, centers);
  return centers;
}

/** The warning for a primitive whose precomputation did not finish (over the budget, or its worker failed). */
export function overBudgetWarning(path: string, reason: string): GltfWarning {
  return { path, message: `no centres of rotation (${reason}); its centres are its rest positions, so its positions skin as with linear blending` };
}

/** `prim`'s centres, computed here if needed (a primitive over the budget: its rest positions). */
export function centersOf(prim: Primitive): PrimitiveCenters {
  return readyCenters(prim) ?? settleCenters(prim, computeCentersOfRotation(centersInput(prim)));
}

/** Every distinct skinned primitive of the model with its JSON path. */
export function skinnedPrimitives(model: Model): { readonly prim: Primitive; readonly path: string }[] {
  const out: { prim: Primitive; path: string }[] = [];
  const seen = new Set<Primitive>();
  model.meshes.forEach((mesh, m) => mesh.primitives.forEach((prim, p) => {
    if (prim.influences === 0 || !prim.joints || !prim.weights || seen.has(prim)) return;
    seen.add(prim);
    out.push({ prim, path: `meshes[${m}].primitives[${p}]` });
  }));
  return out;
}

/**
 * Settles every skinned primitive's centres on this thread; over-budget primitives go to
 * `warn`. `options`: the precomputation's (its budget, say; default the paper's and ours).
 */
export function modelCentersHere(model: Model, warn: (w: GltfWarning) => void, options?: CentersOfRotationOptions): void {
  for (const { prim, path } of skinnedPrimitives(model)) {
    if (readyCenters(prim)) continue;
    const result = computeCentersOfRotation(centersInput(prim), options);
    settleCenters(prim, result);
    if (!result.ok) warn(overBudgetWarning(path, result.reason));
  }
}
