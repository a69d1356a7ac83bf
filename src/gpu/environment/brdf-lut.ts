/**
 * The split-sum BRDF table computed on the CPU: for (n·v, roughness) the scale A and bias B of
 * f0 in the specular share of a uniform white environment, ∫ f_spec n·l dl = f0 · A + B
 * (f90 = 1), BRDF_LUT_SIZE² texels of rg16float (n·v across, roughness down, at texel centres).
 * It was a render pipeline; on a CPU rasteriser compiling that pipeline cost more than these
 * 2 M samples do in JavaScript, and a page's first frame waited on the compile. Same estimator
 * as before: BRDF_LUT_SAMPLES Hammersley points importance-sampling GGX (pdf D n·h / 4 v·h),
 * height-correlated Smith visibility, Schlick's Fresnel; f32 on the GPU, f64 here, so texels
 * may differ in the last half-float bit (test/gpu/environment/brdf-lut.test.ts compares them).
 */
import { nextTask } from '../device/next-task.ts';
import { toHalf } from './equirect.ts';
import { BRDF_LUT_SIZE } from './prefilter-params.ts';

/** Samples per texel. */
export const BRDF_LUT_SAMPLES = 512;
/** Roughness is clamped to this, as in shaders/pbr.wgsl (MIN_ROUGHNESS). */
const MIN_ROUGHNESS = 0.03;
/** n·v is clamped to this (head-on at the table's left edge would divide by zero). */
const MIN_N_DOT_V = 1e-3;

/** Van der Corput radical inverse of `i` (its 32 bits reversed, / 2³²). */
function radicalInverse(i: number): number {
  let bits = i >>> 0;
  bits = ((bits << 16) | (bits >>> 16)) >>> 0;
  bits = (((bits & 0x55555555) << 1) | ((bits & 0xaaaaaaaa) >>> 1)) >>> 0;
  bits = (((bits & 0x33333333) << 2) | ((bits & 0xcccccccc) >>> 2)) >>> 0;
  bits = (((bits & 0x0f0f0f0f) << 4) | ((bits & 0xf0f0f0f0) >>> 4)) >>> 0;
  bits = (((bits & 0x00ff00ff) << 8) | ((bits & 0xff00ff00) >>> 8)) >>> 0;
  return bits * 2.3283064365386963e-10;
}

/**
 * The GGX half vectors for perceptual `roughness` (xs in [0, n), zs in [n, 2n)): sample i's
 * Hammersley point importance-sampled about n = +z, in the frame of environment.wgsl's
 * importanceSampleGgx (tangent (0, −1, 0), bitangent (1, 0, 0)); its y never enters the table.
 */
function halfVectors(roughness: number, sinPhi: Float64Array, radical: Float64Array, dst: Float64Array): Float64Array {
  const alpha = Math.max(roughness, MIN_ROUGHNESS) ** 2, a2 = alpha * alpha, n = BRDF_LUT_SAMPLES;
  for (let i = 0; i < n; i++) {
    const u = radical[i];
    const cosTheta = Math.sqrt((1 - u) / (1 + (a2 - 1) * u));
    dst[i] = Math.sqrt(Math.max(0, 1 - cosTheta * cosTheta)) * sinPhi[i];
    dst[n + i] = cosTheta;
  }
  return dst;
}

/** A and B (see the module comment) for `nDotV` and the half vectors of a roughness (`halfVectors`), written to `dst` [0], [1]. */
function scaleBias(nDotV: number, roughness: number, h: Float64Array, dst: Float64Array): Float64Array {
  nDotV = Math.max(nDotV, MIN_N_DOT_V);
  const alpha = Math.max(roughness, MIN_ROUGHNESS) ** 2, a2 = alpha * alpha, n = BRDF_LUT_SAMPLES;
  const vx = Math.sqrt(1 - nDotV * nDotV), vz = nDotV;
  const ggxVPerNDotL = Math.sqrt(nDotV * nDotV * (1 - a2) + a2);
  let a = 0, b = 0;
  for (let i = 0; i < n; i++) {
    const hx = h[i], hz = h[n + i];
    const vDotH = vx * hx + vz * hz;
    const nDotL = 2 * vDotH * hz - vz;
    if (nDotL > 0 && vDotH > 0) {
      // Height-correlated Smith V = 0.5 / (ggxV + ggxL); f_spec n·l / pdf = V · 4 · n·l · v·h / n·h.
      const sum = nDotL * ggxVPerNDotL + nDotV * Math.sqrt(nDotL * nDotL * (1 - a2) + a2);
      if (!(sum > 0)) continue;
      const g = (2 * nDotL * vDotH) / (sum * hz);
      const t = 1 - vDotH, t2 = t * t, fc = t2 * t2 * t;
      a += (1 - fc) * g;
      b += fc * g;
    }
  }
  dst[0] = a / n;
  dst[1] = b / n;
  return dst;
}

let points: { readonly sinPhi: Float64Array; readonly radical: Float64Array } | undefined;

/**
 * The sample points' sin φ and radical inverses (Hammersley: φ = 2π i / n), made on the first call and then shared:
 * prepareBrdfLut's eight slices each made them again, mostly in not yet optimised code.
 */
function samplePoints(): { readonly sinPhi: Float64Array; readonly radical: Float64Array } {
  if (points) return points;
  const sinPhi = new Float64Array(BRDF_LUT_SAMPLES), radical = new Float64Array(BRDF_LUT_SAMPLES);
  for (let i = 0; i < BRDF_LUT_SAMPLES; i++) {
    sinPhi[i] = Math.sin((2 * Math.PI * i) / BRDF_LUT_SAMPLES);
    radical[i] = radicalInverse(i);
  }
  points = { sinPhi, radical };
  return points;
}

/** A and B (see the module comment) for one n·v and perceptual roughness, written to `dst` [0], [1]. */
export function brdfScaleBias(nDotV: number, roughness: number, dst: Float64Array): Float64Array {
  const { sinPhi, radical } = samplePoints();
  return scaleBias(nDotV, roughness, halfVectors(roughness, sinPhi, radical, new Float64Array(2 * BRDF_LUT_SAMPLES)), dst);
}

/** Rows computed per slice of `prepareBrdfLut` (~5 ms of a quiet CPU each). */
const ROWS_PER_SLICE = 8;

/**
 * Rows `from` to `to` (excluded) of the table into `halves` (BRDF_LUT_SIZE² rg16float texels,
 * row by row): the table is the same whether made in one call or in slices.
 */
export function brdfLutRows(halves: Uint16Array, from: number, to: number): Uint16Array {
  const ab = new Float64Array(2), h = new Float64Array(2 * BRDF_LUT_SAMPLES);
  const { sinPhi, radical } = samplePoints();
  // One loop over the rows' texels, a row's half vectors made at its first: a page runs this once, mostly in not yet
  // optimised code, where a loop over the rows around one over a row's texels deoptimised at the rows' next step.
  for (let k = from * BRDF_LUT_SIZE, x = 0, y = from; k < to * BRDF_LUT_SIZE; k++) {
    const roughness = (y + 0.5) / BRDF_LUT_SIZE;
    if (x === 0) halfVectors(roughness, sinPhi, radical, h);
    scaleBias((x + 0.5) / BRDF_LUT_SIZE, roughness, h, ab);
    halves[k * 2] = toHalf(ab[0]);
    halves[k * 2 + 1] = toHalf(ab[1]);
    if (++x === BRDF_LUT_SIZE) { x = 0; y++; }
  }
  return halves;
}

let table: Uint16Array | undefined;
/** The table while `prepareBrdfLut` fills it, and the rows it has. */
let partial: { readonly halves: Uint16Array; rows: number } | undefined;

/** Computes up to `count` more rows of the table; true once it is complete. */
function computeRows(count: number): boolean {
  if (table) return true;
  const p = partial ??= { halves: new Uint16Array(BRDF_LUT_SIZE * BRDF_LUT_SIZE * 2), rows: 0 };
  const end = Math.min(BRDF_LUT_SIZE, p.rows + count);
  brdfLutRows(p.halves, p.rows, end);
  p.rows = end;
  if (end < BRDF_LUT_SIZE) return false;
  table = p.halves;
  partial = undefined;
  return true;
}

/**
 * The table as rg16float texels, row by row (computed on the first call, ~2 M samples, then
 * shared: it depends on nothing). Finishes at once what `prepareBrdfLut` left.
 */
export function brdfLutHalves(): Uint16Array {
  computeRows(BRDF_LUT_SIZE);
  return table!;
}

/**
 * Computes the table in slices of a few rows, each in a task of its own (`nextTask`), so
 * that the tasks waiting meanwhile (a model's download, its pipelines asked from its JSON)
 * are not held up behind its ~2 M samples; resolves once `brdfLutHalves` has it.
 */
export async function prepareBrdfLut(): Promise<void> {
  while (!computeRows(ROWS_PER_SLICE)) await nextTask();
}
