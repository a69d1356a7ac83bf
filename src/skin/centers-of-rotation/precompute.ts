/**
 * Optimized centres of rotation (Le & Hodgins, "Real-time Skeletal Skinning with Optimized
 * Centers of Rotation", SIGGRAPH 2016), one per vertex, from the bind pose and the weights:
 *
 *   p*ᵢ = Σ_t s(wᵢ, w_t)·a_t·c_t / Σ_t s(wᵢ, w_t)·a_t
 *
 * over the triangles t of the primitive after the paper's subdivision (subdivide.ts), with a_t
 * a piece's area, c_t its centroid, w_t the mean of its corners' weights and s the similarity
 * of similarity.ts (σ = 0.1).
 *
 * Where the sum Σ s·a is 0 — a vertex with one influence, or whose joint pairs no triangle
 * shares — the centre is the vertex's own rest position. Any centre works for a one-joint
 * vertex (its result is M·v whatever p* is), and p* = v makes the centre-of-rotation position
 * R·S·(v − v) + M̄·v exactly the linear-blend one, a defined and harmless result.
 *
 * The fast path (the O(V·T) sum written as the paper states it lives in the test as the
 * reference): s is a sum over joint pairs, and a pair (j, k) contributes only where both the
 * vertex and the piece have both joints. So every piece is filed once under each joint pair it
 * has, with just (w_tj, w_tk, a_t, a_t·c_t); a vertex visits only the lists of its own pairs;
 * vertices with the same (w_ij, w_ik) on a pair share that pair's sum (characters have few
 * distinct weight values), and pieces of a pair whose (w_tj, w_tk) agree to 1/`mergeSteps`
 * are summed into one entry first (their area-weighted mean weights stand for them). The
 * work is counted before it is done: a primitive over the budget gets no centres (the caller
 * warns and skins it linearly) instead of a long stall.
 */
import { CENTERS_OF_ROTATION_SIGMA } from './similarity.ts';
import { CENTERS_OF_ROTATION_EPSILON, TriangleSubdivider } from './subdivide.ts';
import { sparseWeights } from './weights.ts';

/** What the precomputation reads of a skinned primitive, in the bind pose. */
export interface CentersOfRotationInput {
  readonly vertexCount: number;
  /** xyz per vertex. */
  readonly positions: ArrayLike<number>;
  /** `influences` joints and weights per vertex (weights need not be normalised). */
  readonly joints: Uint16Array;
  readonly weights: Float32Array;
  readonly influences: number;
  /** Three vertex indices per triangle (gltf/topology.ts `triangleList`); undefined: no surface (points, lines). */
  readonly triangles: Uint32Array | undefined;
}

export interface CentersOfRotationOptions {
  /** The similarity's σ (default 0.1, the paper's). */
  readonly sigma?: number;
  /** Subdivide until no edge joins weights further apart than this (default 0.1, the paper's; Infinity: no subdivision). */
  readonly epsilon?: number;
  /**
   * Pieces of one joint pair whose two weights round to the same multiple of 1/mergeSteps
   * are summed into one entry (default MERGE_STEPS); 0 keeps every piece: the exact sum.
   */
  readonly mergeSteps?: number;
  /** The budget: at most this many subdivided pieces (default MAX_PIECES). */
  readonly maxPieces?: number;
  /** The budget: at most this many pair entries kept after merging (default MAX_PAIR_ENTRIES). */
  readonly maxPairEntries?: number;
  /** The budget: at most this many similarity terms evaluated (default MAX_TERMS). */
  readonly maxTerms?: number;
  /** The budget: at most this many (vertex, joint pair) keys looked up (default MAX_VERTEX_PAIRS). */
  readonly maxVertexPairs?: number;
}

/** Default merge grid: 1/4096 in weight, far below what the exp(−d²/σ²) kernel resolves at σ = 0.1. */
export const MERGE_STEPS = 4096;
/** Default budget: subdivided pieces (about 1 s of subdivision on a slow laptop core). */
export const MAX_PIECES = 4_000_000;
/** Default budget: pair entries kept, 56 bytes each (about 56 MB). */
export const MAX_PAIR_ENTRIES = 1_000_000;
/** Default budget: similarity terms (an exp each; a few seconds on a slow laptop core). */
export const MAX_TERMS = 300_000_000;
/** Default budget: (vertex, joint pair) keys, a string each while they are merged (a few hundred MB at most). */
export const MAX_VERTEX_PAIRS = 4_000_000;

/** What the precomputation did (all counts). */
export interface CentersOfRotationStats {
  /** Pieces the subdivision made (triangles of zero area included). */
  readonly pieces: number;
  /** Joint-pair entries the integral ran over, after merging. */
  readonly pairEntries: number;
  /** Similarity terms evaluated. */
  readonly terms: number;
  /** Vertices whose similarity sum was 0: their centre is their rest position. */
  readonly fallbackVertices: number;
}

export type CentersOfRotationResult =
  | { readonly ok: true; readonly centers: Float32Array; readonly stats: CentersOfRotationStats }
  /** Over the budget: `reason` says which limit, and nothing more was computed. */
  | { readonly ok: false; readonly reason: string; readonly stats: CentersOfRotationStats };

/** Joints a pair key can hold: JOINTS_n are 16-bit. */
const JOINT_RANGE = 65536;

/**
 * Growable arrays of pair entries — bucket, Σa·w_j, Σa·w_k, Σa, Σa·c (xyz) — and, when
 * merging, an open-addressing table from (bucket, w_j cell, w_k cell) to the entry summing
 * that cell (typed arrays: a Map keyed by such numbers cost microseconds an entry).
 */
class PairEntries {
  count = 0;
  bucket = new Int32Array(1024);
  /** The merge cell of each entry (w_j cell, w_k cell). */
  cellJ = new Int32Array(1024);
  cellK = new Int32Array(1024);
  values = new Float64Array(1024 * 6);
  /** Entry index + 1 per slot (0: empty); a power of two, at most half full. */
  private table = new Int32Array(2048);

  /** The entry of this bucket and cell, made (empty) when new. */
  find(bucket: number, cj: number, ck: number): number {
    const mask = this.table.length - 1;
    let slot = (Math.imul(bucket, 0x9e3779b1) ^ Math.imul(cj, 0x85ebca6b) ^ Math.imul(ck, 0xc2b2ae35)) & mask;
    for (;;) {
      const e = this.table[slot] - 1;
      if (e < 0) break;
      if (this.bucket[e] === bucket && this.cellJ[e] === cj && this.cellK[e] === ck) return e;
      slot = (slot + 1) & mask;
    }
    const e = this.append(bucket, cj, ck);
    this.table[slot] = e + 1;
    if (this.count * 2 > this.table.length) this.rehash();
    return e;
  }

  /** A new, empty entry (not in the table). */
  append(bucket: number, cj: number, ck: number): number {
    if (this.count === this.bucket.length) {
      const n = this.count * 2;
      this.bucket = grow(this.bucket, n) as Int32Array<ArrayBuffer>;
      this.cellJ = grow(this.cellJ, n) as Int32Array<ArrayBuffer>;
      this.cellK = grow(this.cellK, n) as Int32Array<ArrayBuffer>;
      const values = new Float64Array(n * 6);
      values.set(this.values);
      this.values = values;
    }
    const e = this.count++;
    this.bucket[e] = bucket;
    this.cellJ[e] = cj;
    this.cellK[e] = ck;
    return e;
  }

  accumulate(e: number, area: number, wj: number, wk: number, cx: number, cy: number, cz: number): void {
    const v = this.values, o = e * 6;
    v[o] += area * wj; v[o + 1] += area * wk; v[o + 2] += area;
    v[o + 3] += area * cx; v[o + 4] += area * cy; v[o + 5] += area * cz;
  }

  private rehash(): void {
    const table = new Int32Array(this.table.length * 2), mask = table.length - 1;
    for (let e = 0; e < this.count; e++) {
      let slot = (Math.imul(this.bucket[e], 0x9e3779b1) ^ Math.imul(this.cellJ[e], 0x85ebca6b) ^ Math.imul(this.cellK[e], 0xc2b2ae35)) & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = e + 1;
    }
    this.table = table;
  }
}

function grow(a: Int32Array, n: number): Int32Array {
  const out = new Int32Array(n);
  out.set(a);
  return out;
}

/**
 * The centres of rotation of one primitive (xyz per vertex, bind-pose model space of the
 * mesh), or why the budget stopped it. Pure and synchronous: the worker (offthread.ts) and
 * Node callers run this same function.
 */
export function computeCentersOfRotation(input: CentersOfRotationInput, options: CentersOfRotationOptions = {}): CentersOfRotationResult {
  const sigma = options.sigma ?? CENTERS_OF_ROTATION_SIGMA;
  const epsilon = options.epsilon ?? CENTERS_OF_ROTATION_EPSILON;
  const mergeSteps = options.mergeSteps ?? MERGE_STEPS;
  const maxPieces = options.maxPieces ?? MAX_PIECES;
  const maxPairEntries = options.maxPairEntries ?? MAX_PAIR_ENTRIES;
  const maxTerms = options.maxTerms ?? MAX_TERMS;
  const maxVertexPairs = options.maxVertexPairs ?? MAX_VERTEX_PAIRS;
  if (!(sigma > 0)) throw new RangeError(`computeCentersOfRotation: sigma ${sigma} must be positive`);
  if (!(epsilon > 0)) throw new RangeError(`computeCentersOfRotation: epsilon ${epsilon} must be positive`);
  if (!(Number.isInteger(mergeSteps) && mergeSteps >= 0)) throw new RangeError(`computeCentersOfRotation: mergeSteps ${mergeSteps} must be a whole number ≥ 0`);
  const { vertexCount, positions, influences } = input;
  if (positions.length < vertexCount * 3 || input.joints.length < vertexCount * influences || input.weights.length < vertexCount * influences) {
    throw new RangeError(`computeCentersOfRotation: arrays shorter than ${vertexCount} vertices × ${influences} influences`);
  }
  const sparse = sparseWeights(input.joints, input.weights, influences, vertexCount);
  const stats = { pieces: 0, pairEntries: 0, terms: 0, fallbackVertices: 0 };

  // 1. Subdivide every triangle and file each piece under each joint pair it has.
  const buckets = new Map<number, number>();
  const entries = new PairEntries();
  const triangles = input.triangles ?? new Uint32Array(0);
  const maxLocal = 3 * influences;
  const subdivider = new TriangleSubdivider(maxLocal);
  const localJoints = new Int32Array(maxLocal);
  const cornerWeights = new Float64Array(3 * maxLocal);
  let local = 0;
  let over: string | undefined;
  const steps = mergeSteps;
  const sink = (area: number, cx: number, cy: number, cz: number, mean: Float64Array): boolean => {
    stats.pieces++;
    if (stats.pieces > maxPieces) {
      over = `over the budget: the subdivision makes more than ${maxPieces} pieces`;
      return false;
    }
    if (!(area > 0)) return true;
    for (let x = 0; x < local; x++) {
      const wj = mean[x];
      if (!(wj > 0)) continue;
      for (let y = x + 1; y < local; y++) {
        const wk = mean[y];
        if (!(wk > 0)) continue;
        const pair = localJoints[x] * JOINT_RANGE + localJoints[y];
        let bucket = buckets.get(pair);
        if (bucket === undefined) buckets.set(pair, (bucket = buckets.size));
        const before = entries.count;
        const e = steps > 0 ? entries.find(bucket, Math.round(wj * steps), Math.round(wk * steps)) : entries.append(bucket, 0, 0);
        if (entries.count > before && entries.count > maxPairEntries) {
          over = `over the budget: the integral needs more than ${maxPairEntries} joint-pair entries`;
          return false;
        }
        entries.accumulate(e, area, wj, wk, cx, cy, cz);
      }
    }
    return true;
  };
  const { offsets, joints: sj, weights: sw } = sparse;
  for (let t = 0; t + 2 < triangles.length && over === undefined; t += 3) {
    const i0 = triangles[t], i1 = triangles[t + 1], i2 = triangles[t + 2];
    // The triangle's local joints: the union of its corners' (ascending, so pairs come ordered).
    local = 0;
    for (let k = 0; k < 3; k++) {
      const v = k === 0 ? i0 : k === 1 ? i1 : i2;
      for (let e = offsets[v]; e < offsets[v + 1]; e++) {
        const j = sj[e];
        let at = local;
        while (at > 0 && localJoints[at - 1] > j) at--;
        if (at > 0 && localJoints[at - 1] === j) continue;
        for (let m = local; m > at; m--) localJoints[m] = localJoints[m - 1];
        localJoints[at] = j;
        local++;
      }
    }
    // Fewer than two joints: no pair, the piece is similar to nothing (and needs no splitting).
    if (local < 2) {
      stats.pieces++;
      continue;
    }
    cornerWeights.fill(0, 0, 3 * local);
    for (let k = 0; k < 3; k++) {
      const v = k === 0 ? i0 : k === 1 ? i1 : i2;
      for (let e = offsets[v]; e < offsets[v + 1]; e++) {
        let x = 0;
        while (localJoints[x] !== sj[e]) x++;
        cornerWeights[k * local + x] = sw[e];
      }
    }
    subdivider.run(positions, i0, i1, i2, cornerWeights, local, epsilon, sink);
  }
  stats.pairEntries = entries.count;
  if (over !== undefined) return { ok: false, reason: over, stats };

  // 2. Entries grouped by bucket, with each entry's representative weights.
  const bucketCount = buckets.size;
  const bucketStart = new Int32Array(bucketCount + 1);
  for (let e = 0; e < entries.count; e++) bucketStart[entries.bucket[e] + 1]++;
  for (let b = 0; b < bucketCount; b++) bucketStart[b + 1] += bucketStart[b];
  const fill = bucketStart.slice(0, bucketCount);
  const n = entries.count;
  const ej = new Float64Array(n), ek = new Float64Array(n), ea = new Float64Array(n);
  const ex = new Float64Array(n), ey = new Float64Array(n), ez = new Float64Array(n);
  const values = entries.values;
  for (let e = 0; e < n; e++) {
    const at = fill[entries.bucket[e]]++, o = e * 6, area = values[o + 2];
    ej[at] = values[o] / area; ek[at] = values[o + 1] / area; ea[at] = area;
    ex[at] = values[o + 3]; ey[at] = values[o + 4]; ez[at] = values[o + 5];
  }

  // 3. The distinct (pair, w_ij, w_ik) of the vertices, and the work they need; counted first, as that takes memory.
  let vertexPairs = 0;
  for (let v = 0; v < vertexCount; v++) {
    const n = offsets[v + 1] - offsets[v];
    vertexPairs += (n * (n - 1)) / 2;
  }
  if (vertexPairs > maxVertexPairs) {
    return { ok: false, reason: `over the budget: the vertices have more than ${maxVertexPairs} joint pairs (${vertexPairs})`, stats };
  }
  const keyOf = new Map<string, number>();
  const keyBucket: number[] = [], keyWj: number[] = [], keyWk: number[] = [];
  const vertexKeyStart = new Uint32Array(vertexCount + 1);
  const vertexKeys: number[] = [];
  for (let v = 0; v < vertexCount; v++) {
    vertexKeyStart[v] = vertexKeys.length;
    for (let x = offsets[v]; x < offsets[v + 1]; x++) {
      for (let y = x + 1; y < offsets[v + 1]; y++) {
        const bucket = buckets.get(sj[x] * JOINT_RANGE + sj[y]);
        if (bucket === undefined) continue;
        const text = `${bucket} ${sw[x]} ${sw[y]}`;
        let key = keyOf.get(text);
        if (key === undefined) {
          key = keyBucket.length;
          keyOf.set(text, key);
          keyBucket.push(bucket); keyWj.push(sw[x]); keyWk.push(sw[y]);
          stats.terms += bucketStart[bucket + 1] - bucketStart[bucket];
        }
        vertexKeys.push(key);
      }
    }
  }
  vertexKeyStart[vertexCount] = vertexKeys.length;
  if (stats.terms > maxTerms) {
    return { ok: false, reason: `over the budget: the integral needs more than ${maxTerms} similarity terms (${stats.terms})`, stats };
  }

  // 4. Each key's sums Σ s·a and Σ s·a·c over its pair's entries.
  const inverseSigma2 = 1 / (sigma * sigma);
  const keyCount = keyBucket.length;
  const sums = new Float64Array(keyCount * 4);
  for (let key = 0; key < keyCount; key++) {
    const b = keyBucket[key], wj = keyWj[key], wk = keyWk[key], vw = wj * wk;
    let sa = 0, sx = 0, sy = 0, sz = 0;
    for (let e = bucketStart[b], end = bucketStart[b + 1]; e < end; e++) {
      const tj = ej[e], tk = ek[e], d = wj * tk - wk * tj;
      const s = vw * tj * tk * Math.exp(-d * d * inverseSigma2);
      sa += s * ea[e]; sx += s * ex[e]; sy += s * ey[e]; sz += s * ez[e];
    }
    sums[key * 4] = sa; sums[key * 4 + 1] = sx; sums[key * 4 + 2] = sy; sums[key * 4 + 3] = sz;
  }

  // 5. Per vertex: the sum over its pairs, divided; the rest position where it is 0.
  const centers = new Float32Array(vertexCount * 3);
  for (let v = 0; v < vertexCount; v++) {
    let sa = 0, sx = 0, sy = 0, sz = 0;
    for (let k = vertexKeyStart[v]; k < vertexKeyStart[v + 1]; k++) {
      const o = vertexKeys[k] * 4;
      sa += sums[o]; sx += sums[o + 1]; sy += sums[o + 2]; sz += sums[o + 3];
    }
    if (sa > 0 && Number.isFinite(sx / sa) && Number.isFinite(sy / sa) && Number.isFinite(sz / sa)) {
      centers[v * 3] = sx / sa; centers[v * 3 + 1] = sy / sa; centers[v * 3 + 2] = sz / sa;
    } else {
      stats.fallbackVertices++;
      centers[v * 3] = positions[v * 3]; centers[v * 3 + 1] = positions[v * 3 + 1]; centers[v * 3 + 2] = positions[v * 3 + 2];
    }
  }
  return { ok: true, centers, stats };
}
