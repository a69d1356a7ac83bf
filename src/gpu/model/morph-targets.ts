/**
 * Morph targets on the GPU (shaders/morph.wgsl): the layout of the delta array and the
 * per-frame choice of which targets a draw applies.
 *
 * Deltas: one `array<f32>` per model (group 1, `SkinBinding.MORPH_DELTAS`), every morphed
 * primitive's block back to back. A block is vertex-major — all targets of vertex 0, then
 * of vertex 1, … — because one vertex invocation reads several targets of one vertex: they
 * sit side by side (a few cache lines) instead of one per target-sized stride across the
 * whole buffer. Per (vertex, target) the block holds 3 floats for each attribute that some
 * target of the primitive has and the primitive uses, in the order POSITION, NORMAL,
 * TANGENT (xyz; glTF morphs no handedness): the `DrawFlag.MORPH_*` bits say which. A target
 * without an attribute its siblings have stores zeros there.
 *
 *   float index of (v, t) = base + (v × targets + t) × floatsPerTarget
 *
 * Weights: at most `MAX_ACTIVE_MORPH_TARGETS` targets per draw, in its draw record. When
 * more weights are non-zero, the largest |weight|s win (the rest are dropped for that
 * frame); with at most that many — the usual case, e.g. a face blending a few
 * expressions — the GPU applies exactly what src/skin/morph.ts does on the CPU.
 */
import type { Primitive } from '../../gltf/model.ts';
import { DrawFlag } from '../layouts/bindings.ts';

/** Targets one draw applies per frame (two vec4f of weights in the draw record). */
export const MAX_ACTIVE_MORPH_TARGETS = 8;
/** Target indices are packed two per u32 in the draw record. */
export const MAX_MORPH_TARGETS = 0x10000;
/** Floats per attribute delta (VEC3, tangents included). */
export const MORPH_DELTA_COMPONENTS = 3;

/** One primitive's block of deltas. */
export interface MorphDeltaBlock {
  /** vertexCount × targets × floatsPerTarget floats, vertex-major. */
  readonly floats: Float32Array;
  readonly targets: number;
  /** DrawFlag.MORPH_* bits of the attributes the block holds. */
  readonly flags: number;
  readonly floatsPerTarget: number;
}

/**
 * DrawFlag.MORPH_* bits of what a primitive's morph targets move (`moved`: some target has
 * deltas of it) that the primitive draws: NORMAL deltas need NORMAL, TANGENT deltas both (as
 * model/upload.ts ignores tangents without normals). 0: nothing to morph on the GPU.
 */
export function morphFlagsOf(moved: { readonly positions: boolean; readonly normals: boolean; readonly tangents: boolean }, hasNormals: boolean, hasTangents: boolean): number {
  return (moved.positions ? DrawFlag.MORPH_POSITIONS : 0) | (moved.normals && hasNormals ? DrawFlag.MORPH_NORMALS : 0)
    | (moved.tangents && hasNormals && hasTangents ? DrawFlag.MORPH_TANGENTS : 0);
}

/**
 * The delta block of `prim`, or undefined when it has nothing to morph on the GPU: no
 * targets, or targets of attributes the primitive does not draw (NORMAL deltas without
 * NORMAL; TANGENT deltas without both, as model/upload.ts ignores such tangents).
 */
export function packMorphDeltas(prim: Primitive, path = 'primitive'): MorphDeltaBlock | undefined {
  const targets = prim.targets;
  if (targets.length === 0) return undefined;
  if (targets.length > MAX_MORPH_TARGETS) {
    throw new Error(`${path}.targets: ${targets.length} morph targets; the GPU path indexes at most ${MAX_MORPH_TARGETS}`);
  }
  const moved = {
    positions: targets.some((t) => t.positions !== undefined), normals: targets.some((t) => t.normals !== undefined), tangents: targets.some((t) => t.tangents !== undefined),
  };
  const flags = morphFlagsOf(moved, prim.normals !== undefined, prim.tangents !== undefined);
  if (flags === 0) return undefined;
  const positions = (flags & DrawFlag.MORPH_POSITIONS) !== 0, normals = (flags & DrawFlag.MORPH_NORMALS) !== 0, tangents = (flags & DrawFlag.MORPH_TANGENTS) !== 0;
  const attributes = (positions ? 1 : 0) + (normals ? 1 : 0) + (tangents ? 1 : 0);
  const floatsPerTarget = attributes * MORPH_DELTA_COMPONENTS;
  const n = prim.vertexCount;
  const floats = new Float32Array(n * targets.length * floatsPerTarget);
  for (let t = 0; t < targets.length; t++) {
    const target = targets[t];
    let at = 0;
    for (const [wanted, delta] of [[positions, target.positions], [normals, target.normals], [tangents, target.tangents]] as const) {
      if (!wanted) continue;
      if (delta) {
        for (let v = 0; v < n; v++) {
          const o = (v * targets.length + t) * floatsPerTarget + at;
          floats[o] = delta[v * 3];
          floats[o + 1] = delta[v * 3 + 1];
          floats[o + 2] = delta[v * 3 + 2];
        }
      }
      at += MORPH_DELTA_COMPONENTS;
    }
  }
  return { floats, targets: targets.length, flags, floatsPerTarget };
}

/**
 * The targets a draw applies this frame: the non-zero weights among `weights[offset …
 * offset + count)`, the `MAX_ACTIVE_MORPH_TARGETS` largest by magnitude when there are
 * more, returned in ascending target order (the order src/skin/morph.ts sums them in).
 * Writes target indices into `outTargets` and weights into `outWeights` (each at least
 * MAX_ACTIVE_MORPH_TARGETS long) and returns how many. Allocates nothing.
 */
export function selectMorphTargets(
  weights: ArrayLike<number>, offset: number, count: number, outTargets: Uint32Array | Int32Array, outWeights: Float32Array,
): number {
  const max = MAX_ACTIVE_MORPH_TARGETS;
  let n = 0;
  for (let t = 0; t < count; t++) {
    const w = weights[offset + t];
    if (w === 0 || w !== w) continue; // NaN weights contribute nothing
    const magnitude = Math.abs(w);
    // Kept sorted by magnitude, largest first; ties keep the lower index.
    let at = n;
    while (at > 0 && Math.abs(outWeights[at - 1]) < magnitude) at--;
    if (at >= max) continue;
    for (let k = Math.min(n, max - 1); k > at; k--) {
      outTargets[k] = outTargets[k - 1];
      outWeights[k] = outWeights[k - 1];
    }
    outTargets[at] = t;
    outWeights[at] = w;
    if (n < max) n++;
  }
  // Back to ascending target order.
  for (let k = 1; k < n; k++) {
    const t = outTargets[k], w = outWeights[k];
    let j = k - 1;
    while (j >= 0 && outTargets[j] > t) {
      outTargets[j + 1] = outTargets[j];
      outWeights[j + 1] = outWeights[j];
      j--;
    }
    outTargets[j + 1] = t;
    outWeights[j + 1] = w;
  }
  return n;
}
