import { TriangleSubdivider } from '../../../src/skin/centers-of-rotation/subdivide.ts';

/**
 * The slow, plain statement of Le & Hodgins' centres of rotation the fast precomputation is
 * checked against: double precision, dense weight vectors over every joint, the similarity
 * summed over every joint pair j < k, every vertex against every triangle (O(V·T·J²)), no
 * bucketing, caching or merging. Pieces come unsplit (trianglePieces), from the production
 * subdivision (subdividedPieces: the fast path's summation checked to float rounding on the
 * same pieces), or from this file's own uniform grid (uniformPieces: the fast path's
 * subdivision checked against another one to the same ε).
 */

/** A triangle soup with one dense weight vector (over `joints` joints) per triangle. */
export interface Pieces {
  readonly count: number;
  readonly joints: number;
  readonly area: Float64Array;
  /** xyz per piece. */
  readonly centroid: Float64Array;
  /** `joints` per piece. */
  readonly weights: Float64Array;
}

/** Dense per-vertex weights (`joints` per vertex), normalised to sum 1, from JOINTS/WEIGHTS sets. */
export function denseWeights(jointIndices: ArrayLike<number>, weights: ArrayLike<number>, influences: number, vertexCount: number, joints: number): Float64Array {
  const out = new Float64Array(vertexCount * joints);
  for (let v = 0; v < vertexCount; v++) {
    let sum = 0;
    for (let i = 0; i < influences; i++) {
      const w = weights[v * influences + i];
      if (w > 0) { out[v * joints + jointIndices[v * influences + i]] += w; sum += w; }
    }
    for (let j = 0; j < joints && sum > 0; j++) out[v * joints + j] /= sum;
  }
  return out;
}

/** The mesh's triangles as pieces, unsplit: area, centroid, mean of the corners' weights. */
export function trianglePieces(positions: ArrayLike<number>, triangles: ArrayLike<number>, dense: Float64Array, joints: number): Pieces {
  const count = triangles.length / 3;
  const area = new Float64Array(count), centroid = new Float64Array(count * 3), weights = new Float64Array(count * joints);
  for (let t = 0; t < count; t++) {
    const a = triangles[t * 3], b = triangles[t * 3 + 1], c = triangles[t * 3 + 2];
    const u = [0, 1, 2].map((k) => positions[b * 3 + k] - positions[a * 3 + k]);
    const v = [0, 1, 2].map((k) => positions[c * 3 + k] - positions[a * 3 + k]);
    area[t] = 0.5 * Math.hypot(u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]);
    for (let k = 0; k < 3; k++) centroid[t * 3 + k] = (positions[a * 3 + k] + positions[b * 3 + k] + positions[c * 3 + k]) / 3;
    for (let j = 0; j < joints; j++) weights[t * joints + j] = (dense[a * joints + j] + dense[b * joints + j] + dense[c * joints + j]) / 3;
  }
  return { count, joints, area, centroid, weights };
}

/**
 * The pieces the subdivision makes of every triangle (with dense weights over all joints). The
 * subdivider runs over each triangle's own joints (those with a weight at one of its corners, in
 * ascending order, as the production precomputation gives them): every other joint's weight is 0
 * at every point of the triangle, adds exactly 0 to each squared edge length and averages to 0,
 * so the pieces are the ones a run over all the joints makes, bit for bit, without interpolating
 * tens of zeros per split.
 */
export function subdividedPieces(positions: ArrayLike<number>, triangles: ArrayLike<number>, dense: Float64Array, joints: number, epsilon: number): Pieces {
  const area: number[] = [], centroid: number[] = [];
  /** Per piece, its triangle's joints (`pieceJoints`) and their mean weights, flattened. */
  const pieceStart: number[] = [0], pieceJoints: number[] = [], pieceWeights: number[] = [];
  const subdivider = new TriangleSubdivider(joints);
  const corners = new Float64Array(3 * joints);
  const local: number[] = [];
  for (let t = 0; t + 2 < triangles.length; t += 3) {
    local.length = 0;
    for (let j = 0; j < joints; j++) {
      if (dense[triangles[t] * joints + j] !== 0 || dense[triangles[t + 1] * joints + j] !== 0 || dense[triangles[t + 2] * joints + j] !== 0) local.push(j);
    }
    for (let k = 0; k < 3; k++) for (let x = 0; x < local.length; x++) corners[k * local.length + x] = dense[triangles[t + k] * joints + local[x]];
    subdivider.run(positions, triangles[t], triangles[t + 1], triangles[t + 2], corners, local.length, epsilon, (a, cx, cy, cz, mean) => {
      area.push(a); centroid.push(cx, cy, cz);
      for (let x = 0; x < local.length; x++) { pieceJoints.push(local[x]); pieceWeights.push(mean[x]); }
      pieceStart.push(pieceJoints.length);
      return true;
    });
  }
  const weights = new Float64Array(area.length * joints);
  for (let piece = 0; piece < area.length; piece++) {
    for (let e = pieceStart[piece]; e < pieceStart[piece + 1]; e++) weights[piece * joints + pieceJoints[e]] = pieceWeights[e];
  }
  return { count: area.length, joints, area: Float64Array.from(area), centroid: Float64Array.from(centroid), weights };
}

/**
 * The reference's own subdivision, independent of the production one's longest-edge
 * bisection: each triangle cut uniformly into n² congruent pieces by the lines of its
 * barycentric grid, n = ⌈longest edge in weight space / ε⌉. Weights vary linearly over the
 * triangle, so every piece's edges are its triangle's over n: all within ε.
 */
export function uniformPieces(positions: ArrayLike<number>, triangles: ArrayLike<number>, dense: Float64Array, joints: number, epsilon: number): Pieces {
  const area: number[] = [], centroid: number[] = [], weights: number[] = [];
  const whole = trianglePieces(positions, triangles, dense, joints);
  for (let t = 0; t < whole.count; t++) {
    const corner = [0, 1, 2].map((k) => triangles[t * 3 + k]);
    const point = (i: number) => [positions[i * 3], positions[i * 3 + 1], positions[i * 3 + 2], ...dense.subarray(i * joints, i * joints + joints)];
    const [a, b, c] = corner.map(point);
    const weightDistance = (p: number[], q: number[]) => Math.hypot(...p.slice(3).map((w, j) => w - q[3 + j]));
    const n = Math.max(1, Math.ceil(Math.max(weightDistance(a, b), weightDistance(b, c), weightDistance(c, a)) / epsilon));
    // Grid point (i, j): a + (i/n)(b − a) + (j/n)(c − a), position and weights alike.
    const at = (i: number, j: number) => a.map((x, k) => x + (i / n) * (b[k] - x) + (j / n) * (c[k] - x));
    const piece = (p: number[], q: number[], r: number[]) => {
      area.push(whole.area[t] / (n * n));
      centroid.push((p[0] + q[0] + r[0]) / 3, (p[1] + q[1] + r[1]) / 3, (p[2] + q[2] + r[2]) / 3);
      for (let j = 0; j < joints; j++) weights.push((p[3 + j] + q[3 + j] + r[3 + j]) / 3);
    };
    for (let i = 0; i < n; i++) {
      for (let j = 0; i + j < n; j++) {
        piece(at(i, j), at(i + 1, j), at(i, j + 1));
        if (i + j + 1 < n) piece(at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
      }
    }
  }
  return { count: area.length, joints, area: Float64Array.from(area), centroid: Float64Array.from(centroid), weights: Float64Array.from(weights) };
}

/** s(a, b) = Σ_{j<k} a_j a_k b_j b_k exp(−(a_j b_k − a_k b_j)²/σ²) over dense vectors, every pair. */
export function denseSimilarity(a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number, joints: number, sigma: number): number {
  let s = 0;
  for (let j = 0; j < joints; j++) {
    for (let k = j + 1; k < joints; k++) {
      const d = a[ao + j] * b[bo + k] - a[ao + k] * b[bo + j];
      s += a[ao + j] * a[ao + k] * b[bo + j] * b[bo + k] * Math.exp(-(d * d) / (sigma * sigma));
    }
  }
  return s;
}

/**
 * denseSimilarity's sum with the pairs j < k where a_j·a_k = 0 left out: each of those terms is
 * exactly 0 (the weights are finite and the exponential at most 1), and adding 0 changes no
 * float, so this is the same number bit for bit (precompute.test.ts checks it against
 * denseSimilarity). `nonzero` lists the joints with a_j ≠ 0, ascending, so the terms left are
 * added in the dense loop's order. A vertex has a few joints of a skeleton's tens: the reference
 * over every piece of a shared asset would otherwise spend nearly all its time adding zeros.
 */
export function vertexSimilarity(a: ArrayLike<number>, ao: number, nonzero: readonly number[], b: ArrayLike<number>, bo: number, sigma: number): number {
  let s = 0;
  for (let p = 0; p < nonzero.length; p++) {
    const j = nonzero[p];
    for (let q = p + 1; q < nonzero.length; q++) {
      const k = nonzero[q];
      const d = a[ao + j] * b[bo + k] - a[ao + k] * b[bo + j];
      s += a[ao + j] * a[ao + k] * b[bo + j] * b[bo + k] * Math.exp(-(d * d) / (sigma * sigma));
    }
  }
  return s;
}

/** The joints whose entry in the dense vector at `offset` is not 0, ascending. */
export function nonzeroJoints(dense: ArrayLike<number>, offset: number, joints: number): number[] {
  const out: number[] = [];
  for (let j = 0; j < joints; j++) if (dense[offset + j] !== 0) out.push(j);
  return out;
}

/**
 * p*ᵢ = Σ_t s(wᵢ, w_t)·a_t·c_t / Σ_t s(wᵢ, w_t)·a_t for the listed vertices (all when
 * omitted); a vertex whose sum is 0 gets its own position. Returns xyz per listed vertex.
 */
export function referenceCenters(
  positions: ArrayLike<number>, dense: Float64Array, pieces: Pieces, sigma = 0.1, vertices?: readonly number[],
): Float64Array {
  const list = vertices ?? Array.from({ length: positions.length / 3 }, (_, v) => v);
  const J = pieces.joints;
  const out = new Float64Array(list.length * 3);
  list.forEach((v, i) => {
    let den = 0, x = 0, y = 0, z = 0;
    const nonzero = nonzeroJoints(dense, v * J, J);
    for (let t = 0; t < pieces.count; t++) {
      const s = vertexSimilarity(dense, v * J, nonzero, pieces.weights, t * J, sigma) * pieces.area[t];
      den += s; x += s * pieces.centroid[t * 3]; y += s * pieces.centroid[t * 3 + 1]; z += s * pieces.centroid[t * 3 + 2];
    }
    const own = den > 0 ? [x / den, y / den, z / den] : [positions[v * 3], positions[v * 3 + 1], positions[v * 3 + 2]];
    out.set(own, i * 3);
  });
  return out;
}

/** The diagonal of the bounding box of `positions`. */
export function boxDiagonal(positions: ArrayLike<number>): number {
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i++) {
    min[i % 3] = Math.min(min[i % 3], positions[i]);
    max[i % 3] = Math.max(max[i % 3], positions[i]);
  }
  return Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
}
