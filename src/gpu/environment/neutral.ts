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
 * Each box's direction, cos(radius), cos(2 radius) and radiance, flat, for the loops over the texels: a page's first (and
 * only) run of it is mostly not yet optimised code, where nested arrays and destructuring cost more than the arithmetic.
 */
const BOX_NUMBERS = Float64Array.from(BOXES.flatMap((b) => [...b.direction, Math.cos(b.radius), Math.cos(b.radius * 2), b.radiance]));
const BOX_STRIDE = 6;
const FLOOR = 0.12;
const HORIZON = 0.3;
const CEILING = 0.4;

/**
 * The neutral studio as an equirect image, `width` × width/2 (default 256 × 128). In passes of one loop each over
 * every texel (the room, then each box, then the colour), not a loop over the boxes inside a loop over the texels: a
 * page runs this once, mostly in not yet optimised code, and Chromium's first optimised code for a short loop nested
 * in a long one deoptimised at each exit from it (~60 times here). Each loop is the end of its function, as code after
 * a loop that was optimised on the stack has no type feedback yet and deoptimised too.
 */
export function neutralEnvironment(width = 256): EquirectImage {
  const height = width / 2, texels = width * height;
  const direction = new Float64Array(texels * 3), radiance = new Float64Array(texels);
  room(width, height, direction, radiance);
  for (let b = 0; b < BOX_NUMBERS.length; b += BOX_STRIDE) addSoftBox(b, direction, radiance);
  return { width, height, rgb: warmed(radiance) };
}

/** `radiance` as rgb with a hint of warmth, as studio lights have. */
function warmed(radiance: Float64Array): Float32Array {
  const rgb = new Float32Array(radiance.length * 3);
  for (let k = 0, o = 0; k < radiance.length; k++, o += 3) {
    const v = radiance[k];
    rgb[o] = v * 1.0; rgb[o + 1] = v * 0.985; rgb[o + 2] = v * 0.96;
  }
  return rgb;
}

/** Each texel's unit direction into `direction` (xyz) and the room's radiance there into `radiance`. */
function room(width: number, height: number, direction: Float64Array, radiance: Float64Array): void {
  const sinPhi = new Float64Array(width), cosPhi = new Float64Array(width);
  for (let x = 0; x < width; x++) {
    const phi = ((x + 0.5) / width - 0.5) * 2 * Math.PI;
    sinPhi[x] = Math.sin(phi); cosPhi[x] = Math.cos(phi);
  }
  const sinTheta = new Float64Array(height), cosTheta = new Float64Array(height), walls = new Float64Array(height);
  for (let y = 0; y < height; y++) {
    const theta = ((y + 0.5) / height) * Math.PI, dy = Math.cos(theta);
    sinTheta[y] = Math.sin(theta); cosTheta[y] = dy;
    // Walls brighten towards the ceiling; the floor is darker, with a soft step at the horizon.
    walls[y] = dy >= 0 ? HORIZON + (CEILING - HORIZON) * dy : FLOOR + (HORIZON - FLOOR) * Math.exp(dy * 12);
  }
  for (let k = 0, x = 0, y = 0; k < width * height; k++) {
    const s = sinTheta[y];
    direction[k * 3] = sinPhi[x] * s; direction[k * 3 + 1] = cosTheta[y]; direction[k * 3 + 2] = -cosPhi[x] * s;
    radiance[k] = walls[y];
    if (++x === width) { x = 0; y++; }
  }
}

/** Adds the soft box at `b` in BOX_NUMBERS to `radiance` at each texel's `direction`. */
function addSoftBox(b: number, direction: Float64Array, radiance: Float64Array): void {
  const bx = BOX_NUMBERS[b], by = BOX_NUMBERS[b + 1], bz = BOX_NUMBERS[b + 2];
  const inner = BOX_NUMBERS[b + 3], outer = BOX_NUMBERS[b + 4], core = BOX_NUMBERS[b + 5];
  for (let k = 0; k < radiance.length; k++) {
    const c = direction[k * 3] * bx + direction[k * 3 + 1] * by + direction[k * 3 + 2] * bz;
    const t = Math.min(1, Math.max(0, (c - outer) / (inner - outer)));
    radiance[k] += core * t * t * (3 - 2 * t);
  }
}
