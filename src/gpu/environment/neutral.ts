/**
 * `neutral`: a soft studio generated in code (no file), in the spirit of model-viewer's
 * neutral environment: a grey room, brighter above than below, with four large soft
 * boxes — a key above and in front to the right, a fill to the left, a rim behind and
 * one overhead — so every side of a model is lit and metals have something to reflect.
 * Radiance is scaled so a white matte surface facing up comes out near 1.
 */
import type { EquirectImage } from './equirect.ts';

interface SoftBox {
  /** Unit vector towards the box's centre (world: +Y up, +Z towards the default camera). */
  readonly direction: readonly [number, number, number];
  /** Angular radius in radians of the full-strength core; it fades out over as much again. */
  readonly radius: number;
  /** Radiance added at the core. */
  readonly radiance: number;
}

function unit(x: number, y: number, z: number): [number, number, number] {
  const l = Math.hypot(x, y, z);
  return [x / l, y / l, z / l];
}

const BOXES: readonly SoftBox[] = [
  { direction: unit(0.55, 0.65, 0.55), radius: 0.3, radiance: 5 },
  { direction: unit(-0.85, 0.3, 0.45), radius: 0.4, radiance: 1.6 },
  { direction: unit(0.15, 0.45, -0.9), radius: 0.3, radiance: 2.4 },
  { direction: unit(0, 1, 0), radius: 0.45, radiance: 1.4 },
];
/**
 * Each box's direction, cos(radius), cos(2 radius) and radiance, flat, for the per-texel loop: a page's first (and
 * only) run of it is mostly not yet optimised code, where nested arrays and destructuring cost more than the arithmetic.
 */
const BOX_NUMBERS = Float64Array.from(BOXES.flatMap((b) => [...b.direction, Math.cos(b.radius), Math.cos(b.radius * 2), b.radiance]));
const BOX_STRIDE = 6;
const FLOOR = 0.12;
const HORIZON = 0.3;
const CEILING = 0.4;

/** The neutral studio as an equirect image, `width` × width/2 (default 256 × 128). */
export function neutralEnvironment(width = 256): EquirectImage {
  const height = width / 2;
  const rgb = new Float32Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const theta = ((y + 0.5) / height) * Math.PI;
    const dy = Math.cos(theta), s = Math.sin(theta);
    for (let x = 0; x < width; x++) {
      const phi = ((x + 0.5) / width - 0.5) * 2 * Math.PI;
      const dx = Math.sin(phi) * s, dz = -Math.cos(phi) * s;
      // Walls brighten towards the ceiling; the floor is darker, with a soft step at the horizon.
      let v = dy >= 0 ? HORIZON + (CEILING - HORIZON) * dy : FLOOR + (HORIZON - FLOOR) * Math.exp(dy * 12);
      for (let b = 0; b < BOX_NUMBERS.length; b += BOX_STRIDE) {
        const c = dx * BOX_NUMBERS[b] + dy * BOX_NUMBERS[b + 1] + dz * BOX_NUMBERS[b + 2];
        const inner = BOX_NUMBERS[b + 3], outer = BOX_NUMBERS[b + 4];
        const t = Math.min(1, Math.max(0, (c - outer) / (inner - outer)));
        v += BOX_NUMBERS[b + 5] * t * t * (3 - 2 * t);
      }
      const o = (y * width + x) * 3;
      // A hint of warmth, as studio lights have.
      rgb[o] = v * 1.0; rgb[o + 1] = v * 0.985; rgb[o + 2] = v * 0.96;
    }
  }
  return { width, height, rgb };
}
