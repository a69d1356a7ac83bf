/**
 * Diffuse irradiance of an environment as nine spherical-harmonic coefficients (Ramamoorthi &
 * Hanrahan, "An Efficient Representation for Irradiance Environment Maps", 2001), projected on
 * the CPU from the equirect image. The basis is shaders/sh9.wgsl's, which the mesh shader
 * evaluates (environment-lighting.wgsl); test/gpu/environment/sh9.test.ts holds the two to the
 * same constants. On the CPU rather than in a compute pass: a projection this small takes a
 * millisecond here, where compiling the pass took a CPU rasteriser (SwiftShader) over a second
 * before a page's first frame.
 */
import { downsampleEquirect, type EquirectImage } from './equirect.ts';
import { IRRADIANCE_COEFFICIENTS } from './prefilter-params.ts';

/** The basis functions' constants (sh9.wgsl): band 0; band 1; band 2's xy, yz, xz terms, its z² term and its x² − y² term. */
export const SH_C0 = 0.282095;
export const SH_C1 = 0.488603;
export const SH_C2_CROSS = 1.092548;
export const SH_C2_ZZ = 0.315392;
export const SH_C2_XX_YY = 0.546274;

/**
 * The clamped-cosine convolution of band 0, 1, 2 divided by π (A0 = π, A1 = 2π/3, A2 = π/4):
 * the stored coefficients times the basis give irradiance / π, the radiance a white
 * Lambertian surface reflects (sh9.wgsl `shCosineBand`).
 */
export const SH_COSINE_BANDS: readonly [number, number, number] = [1, 2 / 3, 0.25];

/** Width the image is box-filtered down to before projecting: bands 0–2 see nothing finer. */
export const SH9_SOURCE_WIDTH = 128;


/** The nine basis functions at unit direction (x, y, z) into `dst` (shBasis's order). */
export function shBasis(x: number, y: number, z: number, dst: Float64Array): Float64Array {
  dst[0] = SH_C0;
  dst[1] = SH_C1 * y;
  dst[2] = SH_C1 * z;
  dst[3] = SH_C1 * x;
  dst[4] = SH_C2_CROSS * x * y;
  dst[5] = SH_C2_CROSS * y * z;
  dst[6] = SH_C2_ZZ * (3 * z * z - 1);
  dst[7] = SH_C2_CROSS * x * z;
  dst[8] = SH_C2_XX_YY * (x * x - y * y);
  return dst;
}

/** The band of coefficient `j` (0: 0; 1–3: 1; 4–8: 2). */
function bandOf(j: number): 0 | 1 | 2 {
  return j === 0 ? 0 : j < 4 ? 1 : 2;
}

/**
 * `image`'s irradiance / π as nine coefficients, each rgb then 0 (36 floats, the layout of the
 * frame uniforms' `array<vec4f, 9>`): radiance projected on the basis, each sample weighted by
 * its solid angle (sin θ on the equirect, scaled so the weights add up to 4π), then convolved
 * with the clamped cosine. Load-time only (allocates; 8192 samples at most).
 */
export function irradianceSh9(image: EquirectImage): Float32Array {
  const { width, height, rgb } = downsampleEquirect(image, SH9_SOURCE_WIDTH);
  const sums = new Float64Array(IRRADIANCE_COEFFICIENTS * 3);
  const total = project(width, height, rgb, sums);
  const out = new Float32Array(IRRADIANCE_COEFFICIENTS * 4);
  const scale = (4 * Math.PI) / total;
  for (let j = 0; j < IRRADIANCE_COEFFICIENTS; j++) {
    const k = scale * SH_COSINE_BANDS[bandOf(j)];
    for (let c = 0; c < 3; c++) out[j * 4 + c] = sums[j * 3 + c] * k;
  }
  return out;
}

/**
 * The image's radiance projected on the basis into `sums` (rgb per coefficient), each sample weighted by sin θ;
 * returns the weights' total. One loop over the samples, each added by a call (addSample): a page runs this once,
 * mostly in not yet optimised code, and Chromium's first optimised code for a loop nested in another (the row's samples,
 * a sample's coefficients) deoptimised at each exit from it (~60 times); nor anything after the loop, as code after a
 * loop optimised on the stack has no type feedback yet.
 */
function project(width: number, height: number, rgb: Float32Array, sums: Float64Array): number {
  // A texel's radiance is constant over it: a narrower image's texels are sampled at n × n
  // points each, SH9_SOURCE_WIDTH across in all (at their centres only, a uniform 32 × 16 image
  // lights 0.1% unevenly, enough to move an 8-bit pixel).
  const n = Math.max(1, Math.ceil(SH9_SOURCE_WIDTH / width));
  const columns = width * n, rows = height * n;
  const sinPhi = new Float64Array(columns), cosPhi = new Float64Array(columns);
  for (let sx = 0; sx < columns; sx++) {
    const phi = 2 * Math.PI * ((sx + 0.5) / columns - 0.5);
    sinPhi[sx] = Math.sin(phi);
    cosPhi[sx] = Math.cos(phi);
  }
  const basis = new Float64Array(IRRADIANCE_COEFFICIENTS);
  let total = 0, sinTheta = 0, cosTheta = 0;
  for (let k = 0, sx = 0, sy = 0; k < columns * rows; k++) {
    if (sx === 0) {
      // equirect.ts: direction of (u, v) is (sin φ sin θ, cos θ, −cos φ sin θ), θ = π v, φ = 2π(u − 0.5).
      const theta = (Math.PI * (sy + 0.5)) / rows;
      sinTheta = Math.sin(theta); cosTheta = Math.cos(theta);
    }
    shBasis(sinPhi[sx] * sinTheta, cosTheta, -cosPhi[sx] * sinTheta, basis);
    addSample(rgb, (Math.floor(sy / n) * width + Math.floor(sx / n)) * 3, basis, sinTheta, sums);
    total += sinTheta;
    if (++sx === columns) { sx = 0; sy++; }
  }
  return total;
}

/** Adds the rgb at `i` × each basis function × `weight` to `sums`. */
function addSample(rgb: Float32Array, i: number, basis: Float64Array, weight: number, sums: Float64Array): void {
  for (let j = 0; j < IRRADIANCE_COEFFICIENTS; j++) {
    const w = basis[j] * weight;
    sums[j * 3] += rgb[i] * w;
    sums[j * 3 + 1] += rgb[i + 1] * w;
    sums[j * 3 + 2] += rgb[i + 2] * w;
  }
}

/**
 * The direction of the SH band-1 vector of luminance: towards the environment's centre of
 * brightness (straight up when it has none, e.g. a uniform environment).
 */
export function dominantDirection(coefficients: Float32Array): Float32Array {
  const lum = (j: number) => 0.2126 * coefficients[j * 4] + 0.7152 * coefficients[j * 4 + 1] + 0.0722 * coefficients[j * 4 + 2];
  // Band 1 is (y, z, x) in coefficients 1, 2, 3 (sh9.ts, shaders/sh9.wgsl).
  const x = lum(3), y = lum(1), z = lum(2);
  const length = Math.hypot(x, y, z);
  // Below 1% of the mean (band 0): no direction to speak of.
  if (!(length > 0.01 * Math.abs(lum(0)))) return Float32Array.of(0, 1, 0);
  return Float32Array.of(x / length, y / length, z / length);
}
