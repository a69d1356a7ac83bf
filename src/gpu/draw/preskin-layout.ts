/**
 * What frames need of the compute skinning path (preskin.ts) before its code is loaded: which
 * path a frame takes ('auto' rule) and where each draw's skinned vertices go. preskin.ts itself
 * (its buffers, inputs and pipelines) is imported by the compute path's pipeline build
 * (draw-pipelines.ts), so a page whose frames never skin by compute does not load it.
 */
import type { GpuPrimitive } from '../model/upload.ts';
import type { SkinningPath } from '../frame/render-settings.ts';

/**
 * The 'auto' rule, from bench/gpu/skin-paths.ts (docs/renderer.md "Skinning paths"). Measured on Dawn
 * over SwiftShader with Fox crowds of 1–48 at two target sizes, with each skinned draw's
 * compute pipeline specialised (`preskinVariants`): with two passes (shadows on) the compute
 * path's frame cost 0.80–1.04× the vertex path's (median 0.88, 7 of 8 sizes faster, down to
 * one Fox); with one pass 0.78–1.16× (median 1.07: the compute pass and its storage round
 * trip cost about what skinning in a single vertex stage does). So 'auto' takes compute from
 * AUTO_COMPUTE_MIN_PASSES passes, when the frame skins at least AUTO_COMPUTE_MIN_VERTICES
 * vertices — one Fox (434 vertices as uploaded) is the smallest size measured.
 */
export const AUTO_COMPUTE_MIN_PASSES = 2;
export const AUTO_COMPUTE_MIN_VERTICES = 400;

export function chooseSkinningPath(setting: 'auto' | SkinningPath, passes: number, skinnedVertices: number): SkinningPath {
  if (setting === 'vertex' || setting === 'compute') return setting;
  return passes >= AUTO_COMPUTE_MIN_PASSES && skinnedVertices >= AUTO_COMPUTE_MIN_VERTICES ? 'compute' : 'vertex';
}

/** What the compute path needs of one of the Renderer's draws. */
export interface PreskinDraw {
  readonly primitive: GpuPrimitive;
  readonly skinned: boolean;
  readonly meshNode: number;
  readonly primitiveIndex: number;
}

/** Per draw: its first vertex in an instance's block (-1 for rigid draws), and the block's size. */
export interface PreskinLayout {
  readonly drawBase: Int32Array;
  readonly verticesPerInstance: number;
}

export function preskinLayout(draws: readonly PreskinDraw[]): PreskinLayout {
  const drawBase = new Int32Array(draws.length).fill(-1);
  let n = 0;
  draws.forEach((d, i) => {
    if (!d.skinned) return;
    drawBase[i] = n;
    n += d.primitive.vertexCount;
  });
  return { drawBase, verticesPerInstance: n };
}
