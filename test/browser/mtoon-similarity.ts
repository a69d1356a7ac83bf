/**
 * The similarity measure of the MToon side-by-side test (mtoon-three-vrm.test.ts, whose header
 * justifies the thresholds): silhouette IoU, the share of shared opaque pixels within 8 levels
 * of the other image with one pixel of registration slack, and the mean same-pixel difference.
 */
import type { Rgba8Image } from './element-support.ts';

export interface Similarity {
  /** Silhouette intersection over union. */
  readonly iou: number;
  /**
   * Over pixels opaque in both: the share whose largest channel difference to the nearest match
   * among the other image's 3×3 neighbours (one pixel of registration slack) is ≤ 8, and the mean
   * of the plain (same-pixel) difference.
   */
  readonly within8: number;
  readonly mean: number;
}

/** The largest channel difference between pixel i of `a` and pixel j of `b`. */
function channelDifference(a: Rgba8Image, i: number, b: Rgba8Image, j: number): number {
  return Math.max(Math.abs(a.data[i] - b.data[j]), Math.abs(a.data[i + 1] - b.data[j + 1]), Math.abs(a.data[i + 2] - b.data[j + 2]));
}

/** The thresholds (mtoon-three-vrm.test.ts says why). */
export function sameImage(s: Similarity): boolean {
  return s.iou >= 0.97 && s.within8 >= 0.93 && s.mean < 3;
}

/** The similarity measure the thresholds above are set for. */
export function similarity(a: Rgba8Image, b: Rgba8Image): Similarity {
  let union = 0, both = 0, shared = 0, within = 0, sum = 0;
  for (let y = 0; y < a.height; y++) for (let x = 0; x < a.width; x++) {
    const i = (y * a.width + x) * 4;
    const inA = a.data[i + 3] > 127, inB = b.data[i + 3] > 127;
    if (inA || inB) union++;
    if (inA && inB) both++;
    if (a.data[i + 3] !== 255 || b.data[i + 3] !== 255) continue;
    shared++;
    sum += channelDifference(a, i, b, i);
    let nearest = Infinity;
    for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) {
      const nx = x + dx, ny = y + dy;
      if (nx < 0 || ny < 0 || nx >= a.width || ny >= a.height) continue;
      const j = (ny * a.width + nx) * 4;
      if (b.data[j + 3] === 255) nearest = Math.min(nearest, channelDifference(a, i, b, j));
    }
    if (nearest <= 8) within++;
  }
  return { iou: both / Math.max(1, union), within8: within / Math.max(1, shared), mean: sum / Math.max(1, shared) };
}
