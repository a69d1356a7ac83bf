/**
 * The similarity measure of the PBR extensions' side by side (pbr-three.test.ts, whose header
 * justifies the thresholds): the CIE 1976 colour difference ΔE*ab between the two images over an
 * object mask (the pixels whose centre sees a sphere, away from its anti-aliased rim), and the
 * sphere mask itself, computed from the camera.
 */
import type { Rgba8Image } from './element-support.ts';

export interface Difference {
  /** Mean ΔE*ab over the mask. */
  readonly meanDeltaE: number;
  /** The share of mask pixels with ΔE*ab ≤ 10. */
  readonly within10: number;
  /** Mask pixels. */
  readonly pixels: number;
}

/** D65 white. */
const WHITE = [0.95047, 1, 1.08883] as const;

function srgbToLinear(v: number): number {
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
}

function labF(t: number): number {
  return t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 * t + 16) / 116;
}

/** CIELAB of an 8-bit sRGB colour, into `dst`. */
export function srgb8ToLab(r: number, g: number, b: number, dst: Float64Array): Float64Array {
  const R = srgbToLinear(r / 255), G = srgbToLinear(g / 255), B = srgbToLinear(b / 255);
  const x = labF((0.4124 * R + 0.3576 * G + 0.1805 * B) / WHITE[0]);
  const y = labF((0.2126 * R + 0.7152 * G + 0.0722 * B) / WHITE[1]);
  const z = labF((0.0193 * R + 0.1192 * G + 0.9505 * B) / WHITE[2]);
  dst[0] = 116 * y - 16;
  dst[1] = 500 * (x - y);
  dst[2] = 200 * (y - z);
  return dst;
}

/** ΔE*ab of `a` against `b` over `mask` (one byte a pixel, non-zero: counted). */
export function maskedDifference(a: Rgba8Image, b: Rgba8Image, mask: Uint8Array): Difference {
  const la = new Float64Array(3), lb = new Float64Array(3);
  let pixels = 0, sum = 0, within = 0;
  for (let p = 0; p < mask.length; p++) {
    if (!mask[p]) continue;
    const i = p * 4;
    srgb8ToLab(a.data[i], a.data[i + 1], a.data[i + 2], la);
    srgb8ToLab(b.data[i], b.data[i + 1], b.data[i + 2], lb);
    const e = Math.hypot(la[0] - lb[0], la[1] - lb[1], la[2] - lb[2]);
    pixels++;
    sum += e;
    if (e <= 10) within++;
  }
  return { meanDeltaE: sum / Math.max(1, pixels), within10: within / Math.max(1, pixels), pixels };
}

export interface MaskCamera {
  readonly width: number;
  readonly height: number;
  readonly eye: readonly [number, number, number];
  readonly target: readonly [number, number, number];
  readonly fovY: number;
}

/**
 * The pixels whose centre's ray passes within `radius` of one of `centres` (spheres seen by a
 * camera looking from `eye` at `target`, +Y up): 1 inside, 0 outside.
 */
export function sphereMask(c: MaskCamera, centres: readonly (readonly [number, number, number])[], radius: number): Uint8Array {
  const sub = (p: readonly number[], q: readonly number[]) => [p[0] - q[0], p[1] - q[1], p[2] - q[2]];
  const dot = (p: readonly number[], q: readonly number[]) => p[0] * q[0] + p[1] * q[1] + p[2] * q[2];
  const cross = (p: readonly number[], q: readonly number[]) => [p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0]];
  const unit = (p: readonly number[]) => { const l = Math.hypot(p[0], p[1], p[2]); return [p[0] / l, p[1] / l, p[2] / l]; };
  const forward = unit(sub(c.target, c.eye));
  const right = unit(cross(forward, [0, 1, 0]));
  const up = cross(right, forward);
  const t = Math.tan(c.fovY / 2), aspect = c.width / c.height;
  const mask = new Uint8Array(c.width * c.height);
  for (let y = 0; y < c.height; y++) for (let x = 0; x < c.width; x++) {
    const sx = ((2 * (x + 0.5)) / c.width - 1) * t * aspect, sy = (1 - (2 * (y + 0.5)) / c.height) * t;
    const d = unit([0, 1, 2].map((k) => forward[k] + right[k] * sx + up[k] * sy));
    for (const centre of centres) {
      const o = sub(centre, c.eye);
      const along = dot(o, d);
      if (along > 0 && dot(o, o) - along * along < radius * radius) mask[y * c.width + x] = 1;
    }
  }
  return mask;
}
