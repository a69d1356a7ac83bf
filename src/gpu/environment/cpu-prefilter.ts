/**
 * The environment prefilter of prefilter.ts (shaders/environment.wgsl) done on the CPU, for
 * the `neutral` environment: the same radiance cube, mip chain and GGX specular chain, texel for
 * texel the same arithmetic as the shader's passes (f16 storage between them, bilinear and
 * trilinear cube taps across face edges as the GPU's seamless cube sampling takes them; a
 * sample's level of detail once per level, from cos θ, where the shader has n·h), uploaded
 * with writeTexture. No pipeline: on a CPU rasteriser (SwiftShader) the GPU prefilter's three
 * pipelines cost ~0.75 s of CPU to compile at their first draws plus ~0.2 s to draw a 128-texel
 * cube, in the GPU process that also compiles the model's pipeline; the page's first frame waits
 * for both. Here a 256 × 128 image takes tens of milliseconds of script.
 * test/gpu/environment/cpu-prefilter.test.ts holds it to the GPU prefilter.
 */
import { nextTask } from '../device/next-task.ts';
import { mipLevelCount } from '../textures/mipmaps.ts';
import { Environment } from './environment.ts';
import { downsampleEquirect, fromHalf, toHalf, type EquirectImage } from './equirect.ts';
import { ENVIRONMENT_FORMAT, MAX_EQUIRECT_WIDTH, radianceCubeSize, SPECULAR_LEVELS, SPECULAR_SAMPLES, SPECULAR_SIZE_RATIO } from './prefilter-params.ts';
import { dominantDirection, irradianceSh9 } from './sh9.ts';
import { prepareBrdfLut } from './brdf-lut.ts';

/** Channels of a texel (rgba16float; alpha 1). */
const RGBA = 4;
const FACES = 6;
/** 2⁻³², the Hammersley radical inverse's scale (environment.wgsl `hammersley`). */
const RADICAL_SCALE = 2.3283064365386963e-10;

/**
 * One mip level of a cube: `size`² texels per face, faces in order +X, −X, +Y, −Y, +Z, −Z, rgba as stored: their
 * values (f16 values, for the next pass) and their rgba16float bits (for writeTexture).
 */
export interface CubeLevel {
  readonly size: number;
  readonly texels: Float32Array;
  readonly halves: Uint16Array;
}

/** What the CPU prefilter makes: the radiance cube's levels and the specular chain's, as prefilter.ts's textures hold them. */
export interface PrefilteredCube {
  readonly radiance: readonly CubeLevel[];
  readonly specular: readonly CubeLevel[];
}

/** Biased exponents of f32 values that are normal f16 values (2⁻¹⁴ ≤ |v| < 2¹⁶). */
const F16_NORMAL_EXPONENTS = [113, 143] as const;
/** f32 mantissa bits below f16's 10. */
const DROPPED_BITS = 13;
/** f32's exponent bias less f16's (127 − 15), in f16's exponent field. */
const EXPONENT_REBIAS = (127 - 15) << 10;

/**
 * Rounds `texels[from…to)` (f32 as written) in place to what rgba16float stores (round to nearest even) and writes
 * their bits to `halves`: each texel converted once, for the next pass and for the upload. Normal f16 values by
 * rounding the f32 bits in place (most of the prefilter's time went to the general path); the rest (subnormal,
 * overflow) through toHalf and back. A pass over a face or a level rather than a call per value: a page runs this
 * once, mostly in not yet optimised code, where each call cost more than its arithmetic.
 */
function storeHalves(texels: Float32Array, halves: Uint16Array, from: number, to: number): void {
  const bits = new Uint32Array(texels.buffer, texels.byteOffset, texels.length);
  for (let k = from; k < to; k++) {
    const b = bits[k], exponent = (b >>> 23) & 0xff;
    if (exponent >= F16_NORMAL_EXPONENTS[0] && exponent < F16_NORMAL_EXPONENTS[1]) {
      const lsb = (b >>> DROPPED_BITS) & 1;
      const rounded = ((b + (1 << (DROPPED_BITS - 1)) - 1 + lsb) >>> DROPPED_BITS) << DROPPED_BITS;
      if (((rounded >>> 23) & 0xff) < F16_NORMAL_EXPONENTS[1]) {
        bits[k] = rounded;
        halves[k] = ((rounded >>> 16) & 0x8000) | (((rounded & 0x7fffffff) >>> DROPPED_BITS) - EXPONENT_REBIAS);
        continue;
      }
    }
    halves[k] = toHalf(texels[k]);
    texels[k] = fromHalf(halves[k]);
  }
}

/** A level of `size`² texels per face, zero. */
function emptyLevel(size: number): CubeLevel {
  const texels = new Float32Array(FACES * size * size * RGBA);
  return { size, texels, halves: new Uint16Array(texels.length) };
}

/**
 * Each face's direction as (constant, × s, × t) per component x, y, z: +X (1, −t, −s), −X (−1, −t, s),
 * +Y (s, 1, t), −Y (s, −1, −t), +Z (s, −t, 1), −Z (−s, −t, −1). Exact (a term × 0 adds nothing) and
 * without a branch per face: a page runs this once, mostly in not yet optimised code, where each
 * newly taken branch cost a deoptimisation.
 */
const FACE_AXES = Float64Array.of(
  1, 0, 0, 0, 0, -1, 0, -1, 0,
  -1, 0, 0, 0, 0, -1, 0, 1, 0,
  0, 1, 0, 1, 0, 0, 0, 0, 1,
  0, 1, 0, -1, 0, 0, 0, 0, -1,
  0, 1, 0, 0, 0, -1, 1, 0, 0,
  0, -1, 0, 0, 0, -1, -1, 0, 0,
);
const FACE_AXIS_STRIDE = 9;

/**
 * The direction through `s`, `t` (−1…1 across the face, y down; beyond ±1 on the face's
 * plane extended) of cube face `face` (environment.wgsl `faceDirection`, not normalised), into `dst`.
 */
function faceDirection(face: number, s: number, t: number, dst: Float64Array): Float64Array {
  const a = face * FACE_AXIS_STRIDE;
  dst[0] = FACE_AXES[a] + s * FACE_AXES[a + 1] + t * FACE_AXES[a + 2];
  dst[1] = FACE_AXES[a + 3] + s * FACE_AXES[a + 4] + t * FACE_AXES[a + 5];
  dst[2] = FACE_AXES[a + 6] + s * FACE_AXES[a + 7] + t * FACE_AXES[a + 8];
  const l = Math.sqrt(dst[0] * dst[0] + dst[1] * dst[1] + dst[2] * dst[2]);
  dst[0] /= l; dst[1] /= l; dst[2] /= l;
  return dst;
}

/** The face a direction lands on and its s, t there (faceDirection's inverse): `dst` = [face, s, t]. */
function cubeCoordinates(x: number, y: number, z: number, dst: Float64Array): Float64Array {
  const ax = Math.abs(x), ay = Math.abs(y), az = Math.abs(z);
  if (ax >= ay && ax >= az) {
    dst[0] = x > 0 ? 0 : 1; dst[1] = (x > 0 ? -z : z) / ax; dst[2] = -y / ax;
  } else if (ay >= az) {
    dst[0] = y > 0 ? 2 : 3; dst[1] = x / ay; dst[2] = (y > 0 ? z : -z) / ay;
  } else {
    dst[0] = z > 0 ? 4 : 5; dst[1] = (z > 0 ? x : -x) / az; dst[2] = -y / az;
  }
  return dst;
}

/** A radiance level as specular taps read it: its texels and, per face, where each bilinear tap's texels lie (tappedLevel). */
interface TappedLevel {
  readonly size: number;
  readonly texels: Float32Array;
  readonly offsets: Int32Array;
}

const tapDirection = new Float64Array(3);
const tapCoordinates = new Float64Array(3);

/**
 * `level` with, for each face, the offset in its texels of each texel (i, j) a bilinear tap can read, i and j from
 * −1 to size (row by row, (size + 2)² per face). A texel off the face (a tap over its edge) is the one the extended
 * face's point lands on: the neighbouring face's, as seamless cube filtering reads it. Made once per level read: the
 * specular chain's ~1 M texel reads then take no branch and no seam arithmetic (one in eight was over an edge).
 */
function tappedLevel(level: CubeLevel): TappedLevel {
  return { size: level.size, texels: level.texels, offsets: tapOffsets(level.size) };
}

/**
 * tappedLevel's offsets for a level `n` texels wide. Each pass a function of one loop with nothing after it: code after
 * a loop that a first call optimises on the stack has no type feedback yet, and deoptimised at each level.
 */
function tapOffsets(n: number): Int32Array {
  const offsets = new Int32Array(FACES * (n + 2) * (n + 2));
  texelOffsets(n, offsets);
  edgeOffsets(n, offsets);
  return offsets;
}

/** tapOffsets on the faces: texel after texel, in the order the texels are stored. */
function texelOffsets(n: number, offsets: Int32Array): void {
  const m = n + 2;
  for (let k = 0; k < FACES * n * n; k++) {
    const face = Math.floor(k / (n * n)), j = Math.floor(k / n) % n, i = k % n;
    offsets[(face * m + j + 1) * m + i + 1] = k * RGBA;
  }
}

/**
 * tapOffsets over the faces' edges: around each face, (n + 1) cells along each side, each side from a corner to the
 * next. Along a side the texel read moves one texel a step on the neighbouring face (the extended face's cell centres
 * land n/(n + 1) as far apart, at least 1/(n + 1) of a texel from a texel's edge): seamOffset for the corner and the
 * first two cells, the rest a step on.
 */
function edgeOffsets(n: number, offsets: Int32Array): void {
  const m = n + 2;
  for (let k = 0; k < FACES * (n + 1); k++) {
    const face = Math.floor(k / (n + 1)), p = k % (n + 1);
    const top = face * m * m + p, right = (face * m + p) * m + n + 1, bottom = (face * m + n + 1) * m + n + 1 - p, left = (face * m + n + 1 - p) * m;
    if (p <= 2) {
      offsets[top] = seamOffset(n, face, p - 1, -1);
      offsets[right] = seamOffset(n, face, n, p - 1);
      offsets[bottom] = seamOffset(n, face, n - p, n);
      offsets[left] = seamOffset(n, face, -1, n - p);
    } else {
      offsets[top] = 2 * offsets[top - 1] - offsets[top - 2];
      offsets[right] = 2 * offsets[right - m] - offsets[right - 2 * m];
      offsets[bottom] = 2 * offsets[bottom + 1] - offsets[bottom + 2];
      offsets[left] = 2 * offsets[left + m] - offsets[left + 2 * m];
    }
  }
}

/** The offset in a level `n` texels wide of the texel (`i`, `j`) off face `face` reads: the neighbouring face's (tappedLevel). */
function seamOffset(n: number, face: number, i: number, j: number): number {
  faceDirection(face, ((i + 0.5) / n) * 2 - 1, ((j + 0.5) / n) * 2 - 1, tapDirection);
  cubeCoordinates(tapDirection[0], tapDirection[1], tapDirection[2], tapCoordinates);
  const fi = Math.min(n - 1, Math.max(0, Math.floor(((tapCoordinates[1] + 1) / 2) * n)));
  const fj = Math.min(n - 1, Math.max(0, Math.floor(((tapCoordinates[2] + 1) / 2) * n)));
  return ((tapCoordinates[0] * n + fj) * n + fi) * RGBA;
}

/** `image`'s rgb as the rgba16float equirect texture holds it. */
function storedEquirect(image: EquirectImage): EquirectImage {
  const rgb = new Float32Array(image.rgb);
  storeHalves(rgb, new Uint16Array(rgb.length), 0, rgb.length);
  return { width: image.width, height: image.height, rgb };
}

/**
 * Face `face` of radiance level 0 into `texels` (environment.wgsl `fsEquirectToCube`): a bilinear tap of the stored
 * equirect per texel, as f32 (storeHalves rounds them).
 */
function equirectToCubeFace(stored: EquirectImage, size: number, face: number, texels: Float32Array): void {
  const { width, height, rgb: halves } = stored;
  // faceDirection inlined, its constants read once per face: the first face runs mostly unoptimised, where each
  // call, array read and double costs far more than its arithmetic.
  const a = face * FACE_AXIS_STRIDE;
  const xc = FACE_AXES[a], xs = FACE_AXES[a + 1], xt = FACE_AXES[a + 2];
  const yc = FACE_AXES[a + 3], ys = FACE_AXES[a + 4], yt = FACE_AXES[a + 5];
  const zc = FACE_AXES[a + 6], zs = FACE_AXES[a + 7], zt = FACE_AXES[a + 8];
  const rowLength = width * 3;
  for (let j = 0, o = face * size * size * RGBA; j < size; j++) {
    const t = ((j + 0.5) / size) * 2 - 1;
    for (let i = 0; i < size; i++, o += RGBA) {
      const s = ((i + 0.5) / size) * 2 - 1;
      const dx = xc + s * xs + t * xt, dy = yc + s * ys + t * yt, dz = zc + s * zs + t * zt;
      const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
      const u = (Math.atan2(dx / l, -(dz / l)) / (2 * Math.PI) + 0.5) * width - 0.5;
      const v = (Math.acos(Math.min(1, Math.max(-1, dy / l))) / Math.PI) * height - 0.5;
      const x = Math.floor(u), y = Math.floor(v), fx = u - x, fy = v - y, gx = 1 - fx, gy = 1 - fy;
      // Repeated across the seam (x is −1 to width − 1: u is −0.5 to width − 0.5), clamped at the poles (the prefilter's sampler).
      const x0 = ((x + width) % width) * 3, x1 = ((x + 1) % width) * 3;
      const y0 = Math.min(height - 1, Math.max(0, y)) * rowLength, y1 = Math.min(height - 1, Math.max(0, y + 1)) * rowLength;
      const p00 = y0 + x0, p10 = y0 + x1, p01 = y1 + x0, p11 = y1 + x1;
      texels[o] = (halves[p00] * gx + halves[p10] * fx) * gy + (halves[p01] * gx + halves[p11] * fx) * fy;
      texels[o + 1] = (halves[p00 + 1] * gx + halves[p10 + 1] * fx) * gy + (halves[p01 + 1] * gx + halves[p11 + 1] * fx) * fy;
      texels[o + 2] = (halves[p00 + 2] * gx + halves[p10 + 2] * fx) * gy + (halves[p01 + 2] * gx + halves[p11 + 2] * fx) * fy;
      texels[o + 3] = 1;
    }
  }
}

/** The next level of a cube's mip chain (environment.wgsl `fsDownsample`: a bilinear tap at each texel's centre, the mean of its 2×2 parents). */
function downsample(above: CubeLevel): CubeLevel {
  const level = emptyLevel(above.size / 2);
  meansOf2x2(above.texels, above.size, level.texels);
  storeHalves(level.texels, level.halves, 0, level.texels.length);
  return level;
}

/**
 * The mean of each 2×2 texels of `from` (`size`² per face) into `texels`, as f32. Its loops in a function with nothing
 * after them: code after a loop that a first call optimises on the stack has no type feedback yet, and deoptimised at
 * each of the chain's calls.
 */
function meansOf2x2(from: Float32Array, size: number, texels: Float32Array): void {
  // Row r of the level (face r / half, row r % half) is the mean of rows 2r and 2r + 1 of `from`: one loop over all
  // faces' rows, none over channels (a loop's first pass left in optimised code had no feedback and deoptimised).
  const half = size / 2, row = size * RGBA;
  for (let r = 0, o = 0; r < FACES * half; r++) {
    for (let i = 0, p = 2 * r * row; i < half; i++, o += RGBA, p += 2 * RGBA) {
      texels[o] = (from[p] + from[p + RGBA] + from[p + row] + from[p + row + RGBA]) / 4;
      texels[o + 1] = (from[p + 1] + from[p + RGBA + 1] + from[p + row + 1] + from[p + row + RGBA + 1]) / 4;
      texels[o + 2] = (from[p + 2] + from[p + RGBA + 2] + from[p + row + 2] + from[p + row + RGBA + 2]) / 4;
      texels[o + 3] = 1;
    }
  }
}

/** Reverses the 32 bits of `i` (WGSL `reverseBits`). */
function reverseBits(i: number): number {
  let r = 0;
  for (let b = 0; b < 32; b++) {
    r = (r << 1) | (i & 1);
    i >>>= 1;
  }
  return r >>> 0;
}

const coordinates = new Float64Array(3);

/**
 * Sums one specular texel's samples into `sum` (rgb) and returns their weight (specularLevel's inner loop): n the
 * texel's direction, t and b its tangent frame, `frameT`, `frameB`, `frameN` each sample's half vector in that frame.
 * A function of its own, so that a page's one run of the chain has it optimised after a few texels (inlined in
 * specularLevel it ran unoptimised, with its garbage, about twice as long; with cubeCoordinates written in it too, each
 * of its branches first taken deoptimised it in Chromium and the chain took longer).
 */
function specularSamples(
  radiance: readonly CubeLevel[], taps: (TappedLevel | undefined)[], nx: number, ny: number, nz: number, tx: number, ty: number, tz: number,
  bx: number, by: number, bz: number, frameT: Float64Array, frameB: Float64Array, frameN: Float64Array, lods: Float64Array, sum: Float64Array,
): number {
  const samples = SPECULAR_SAMPLES;
  let weight = 0, red = 0, green = 0, blue = 0;
  for (let k = 0; k < samples; k++) {
    const a = frameT[k], b = frameB[k], c = frameN[k];
    let hx = tx * a + bx * b + nx * c;
    let hy = ty * a + by * b + ny * c;
    let hz = tz * a + bz * b + nz * c;
    const hl = Math.sqrt(hx * hx + hy * hy + hz * hz);
    hx /= hl; hy /= hl; hz /= hl;
    const nDotH = nx * hx + ny * hy + nz * hz;
    const lx = 2 * nDotH * hx - nx, ly = 2 * nDotH * hy - ny, lz = 2 * nDotH * hz - nz;
    const nDotL = nx * lx + ny * ly + nz * lz;
    if (nDotL <= 0) continue;
    const lod = lods[k], below = Math.floor(lod), fraction = lod - below;
    cubeCoordinates(lx, ly, lz, coordinates);
    const face = coordinates[0], s = coordinates[1], t = coordinates[2];
    // A bilinear tap of the level below lod and, unless lod is whole, of the one above. Written here: as a function
    // it was too long for Chromium to inline ("exceeds bytecode limit") and each call passed its numbers boxed.
    // Texel after texel in this order (not the four summed first): the sums round as they always have.
    for (let step = 0, steps = fraction > 0 ? 2 : 1; step < steps; step++) {
      const w = step === 0 ? nDotL * (1 - fraction) : nDotL * fraction;
      const level = taps[below + step] ??= tappedLevel(radiance[below + step]);
      const n = level.size, m = n + 2, texels = level.texels, offsets = level.offsets;
      const u = ((s + 1) / 2) * n - 0.5, v = ((t + 1) / 2) * n - 0.5;
      const i = Math.floor(u), j = Math.floor(v), fu = u - i, fv = v - j;
      const e = (face * m + j + 1) * m + i + 1;
      const o00 = offsets[e], o10 = offsets[e + 1], o01 = offsets[e + m], o11 = offsets[e + m + 1];
      const w00 = w * (1 - fu) * (1 - fv), w10 = w * fu * (1 - fv), w01 = w * (1 - fu) * fv, w11 = w * fu * fv;
      red = red + w00 * texels[o00] + w10 * texels[o10] + w01 * texels[o01] + w11 * texels[o11];
      green = green + w00 * texels[o00 + 1] + w10 * texels[o10 + 1] + w01 * texels[o01 + 1] + w11 * texels[o11 + 1];
      blue = blue + w00 * texels[o00 + 2] + w10 * texels[o10 + 2] + w01 * texels[o01 + 2] + w11 * texels[o11 + 2];
    }
    weight += nDotL;
  }
  sum[0] = red; sum[1] = green; sum[2] = blue;
  return weight;
}

/**
 * One level of the specular chain for perceptual roughness `roughness` > 0 (environment.wgsl
 * `fsSpecular`): SPECULAR_SAMPLES GGX samples around each texel's direction, each read at the
 * level of detail whose texel covers its solid angle (filtered importance sampling). As f32: the
 * caller rounds the level (storeHalves) in one pass, not a call per texel.
 */
async function specularLevel(radiance: readonly CubeLevel[], taps: (TappedLevel | undefined)[], size: number, roughness: number, between: () => Promise<void>): Promise<CubeLevel> {
  const level = emptyLevel(size), texels = level.texels;
  const alpha = roughness * roughness, a2 = alpha * alpha, samples = SPECULAR_SAMPLES;
  const texelSolidAngle = (4 * Math.PI) / (6 * radiance[0].size * radiance[0].size);
  const n = new Float64Array(3), sum = new Float64Array(3);
  // Each sample's half vector in the texel's frame (t, b, n) depends on the level only (hammersley, importanceSampleGgx),
  // and so does its level of detail: n·h is cos θ (the shader's n·h per texel differs from it by rounding, which left
  // every level of the cubes bit-identical; ~30 % of the warm chain's time was this per sample).
  const frameT = new Float64Array(samples), frameB = new Float64Array(samples), frameN = new Float64Array(samples), lods = new Float64Array(samples);
  for (let k = 0; k < samples; k++) {
    const phi = 2 * Math.PI * (k / samples), xi = reverseBits(k) * RADICAL_SCALE;
    const cosTheta = Math.sqrt((1 - xi) / (1 + (a2 - 1) * xi)), sinTheta = Math.sqrt(Math.max(0, 1 - cosTheta * cosTheta));
    frameT[k] = sinTheta * Math.cos(phi); frameB[k] = sinTheta * Math.sin(phi); frameN[k] = cosTheta;
    // distributionGgx (pbr.wgsl); pdf of l: D(h) n·h / (4 v·h), v·h = n·h.
    const f = cosTheta * cosTheta * (a2 - 1) + 1;
    const pdf = (a2 / (Math.PI * f * f)) * 0.25;
    const sampleSolidAngle = 1 / (samples * pdf + 1e-6);
    // The trilinear tap at the level of detail whose texel covers the sample's solid angle (clamped to the chain).
    lods[k] = Math.min(radiance.length - 1, Math.max(0, 0.5 * Math.log2(sampleSolidAngle / texelSolidAngle) + 1));
  }
  for (let face = 0; face < FACES; face++) {
    // A face at a time: a level's faces took 40–50 ms together in Chromium on the 2-core VM, long
    // enough to hold up the model's download and JSON, whose pipelines are the first frame's longest wait.
    if (face > 0) await between();
    for (let j = 0; j < size; j++) {
      for (let i = 0; i < size; i++) {
        faceDirection(face, ((i + 0.5) / size) * 2 - 1, ((j + 0.5) / size) * 2 - 1, n);
        // importanceSampleGgx's frame around n: tangent = normalize(cross(up, n)), up = +Z unless n is near it (then +X).
        const zUp = Math.abs(n[2]) < 0.999;
        let tx = zUp ? -n[1] : 0, ty = zUp ? n[0] : -n[2], tz = zUp ? 0 : n[1];
        const tl = Math.sqrt(tx * tx + ty * ty + tz * tz);
        tx /= tl; ty /= tl; tz /= tl;
        const bx = n[1] * tz - n[2] * ty, by = n[2] * tx - n[0] * tz, bz = n[0] * ty - n[1] * tx;
        const weight = specularSamples(radiance, taps, n[0], n[1], n[2], tx, ty, tz, bx, by, bz, frameT, frameB, frameN, lods, sum);
        const o = ((face * size + j) * size + i) * RGBA;
        const w = Math.max(weight, 1e-6);
        texels[o] = sum[0] / w; texels[o + 1] = sum[1] / w; texels[o + 2] = sum[2] / w; texels[o + 3] = 1;
      }
    }
  }
  return level;
}

/**
 * The radiance cube (full mip chain) and the specular chain of `image`, as the GPU prefilter
 * makes them. Yields (`between`, default a task) after each face of the radiance cube and each
 * specular level, so that a response arriving meanwhile (a model's JSON, whose pipelines are the
 * first frame's longest wait) is handled within ~20 ms. Load time (allocates).
 */
export async function prefilterCubeOnCpu(image: EquirectImage, between: () => Promise<void> = nextTask): Promise<PrefilteredCube> {
  const source = storedEquirect(downsampleEquirect(image, MAX_EQUIRECT_WIDTH));
  const size = radianceCubeSize(source.width);
  const level0 = emptyLevel(size), faceLength = size * size * RGBA;
  for (let face = 0; face < FACES; face++) {
    equirectToCubeFace(source, size, face, level0.texels);
    storeHalves(level0.texels, level0.halves, face * faceLength, (face + 1) * faceLength);
    await between();
  }
  const radiance: CubeLevel[] = [level0];
  for (let level = 1; level < mipLevelCount(size, size); level++) radiance.push(downsample(radiance[level - 1]));
  const specularSize = size / SPECULAR_SIZE_RATIO;
  // The mirror level: the radiance level of its size (fsSpecular's MIRROR_SOURCE_LEVEL, a texel-centre tap).
  const specular: CubeLevel[] = [radiance[Math.log2(SPECULAR_SIZE_RATIO)]];
  // The radiance levels the chain reads, each with its taps' offsets, made at its first read (level 0 is not read at these roughnesses).
  // Filled with undefined up front: an array filled out of order changes its kind, and each change deoptimised specularSamples.
  const taps: (TappedLevel | undefined)[] = radiance.map(() => undefined);
  for (let level = 1; level < SPECULAR_LEVELS; level++) {
    await between();
    const made = await specularLevel(radiance, taps, specularSize >> level, level / (SPECULAR_LEVELS - 1), between);
    storeHalves(made.texels, made.halves, 0, made.texels.length);
    specular.push(made);
  }
  return { radiance, specular };
}

/** One cube level as rgba16float bits, ready for writeTexture. */
type HalfLevel = Pick<CubeLevel, 'size' | 'halves'>;

/** `level` without its f32 values: what a page keeps for a viewer re-added or a new device. */
function halfLevel({ size, halves }: CubeLevel): HalfLevel {
  return { size, halves };
}

/** A cube texture holding `levels` (rgba16float), for sampling. */
function uploadCube(device: GPUDevice, levels: readonly HalfLevel[], label: string): GPUTexture {
  const texture = device.createTexture({
    label, size: [levels[0].size, levels[0].size, FACES], mipLevelCount: levels.length, format: ENVIRONMENT_FORMAT,
    usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST | GPUTextureUsage.COPY_SRC, textureBindingViewDimension: 'cube',
  });
  levels.forEach((level, mipLevel) => {
    device.queue.writeTexture({ texture, mipLevel }, level.halves, { bytesPerRow: level.size * RGBA * 2, rowsPerImage: level.size }, [level.size, level.size, FACES]);
  });
  return texture;
}

/** What an Environment is made of, short of the device: the two cubes' levels as stored, and the SH9 coefficients. */
interface PrefilteredUpload {
  readonly radiance: readonly HalfLevel[];
  readonly specular: readonly HalfLevel[];
  readonly coefficients: Float32Array;
}

/** What the CPU prefilter made of each image still referenced: a viewer re-added, or a new device, only uploads it. */
const prefiltered = new WeakMap<EquirectImage, Promise<PrefilteredUpload>>();

/** `image`'s prefiltered cubes and SH9, after the BRDF table the first frame binds: made on the first call, then shared. */
function prefilteredOf(image: EquirectImage, between: () => Promise<void>): Promise<PrefilteredUpload> {
  let made = prefiltered.get(image);
  if (!made) {
    // The BRDF table in slices too, first (prefilterEnvironment does the same while its pipelines compile).
    made = prepareBrdfLut().then(() => prefilterCubeOnCpu(image, between)).then(async (cube) => {
      await between();
      return { radiance: cube.radiance.map(halfLevel), specular: cube.specular.map(halfLevel), coefficients: irradianceSh9(image) };
    });
    prefiltered.set(image, made);
  }
  return made;
}

/**
 * Starts `image`'s CPU prefilter if it is not made or under way, and resolves once it is made.
 * None of it needs a device: a page starts it while its device is still being asked for
 * (element/lighting.ts), and prefilterEnvironmentOnCpu then only uploads it.
 */
export function prefilterAheadOnCpu(image: EquirectImage, between: () => Promise<void> = nextTask): Promise<void> {
  return prefilteredOf(image, between).then(() => undefined);
}

/**
 * Prefilters `image` on the CPU into an Environment (see the module comment): what prefilterEnvironment makes,
 * without a pipeline. The cube is made once per image object (kept while the caller keeps the image). The caller owns the result.
 */
export async function prefilterEnvironmentOnCpu(device: GPUDevice, image: EquirectImage, label = 'environment', between: () => Promise<void> = nextTask): Promise<Environment> {
  const { radiance, specular, coefficients } = await prefilteredOf(image, between);
  return new Environment(uploadCube(device, radiance, `${label} radiance`), uploadCube(device, specular, `${label} specular`), dominantDirection(coefficients), coefficients);
}
