/**
 * The subdivision that gives coarse meshes good centres of rotation (Le & Hodgins 2016): the
 * centre-of-rotation integral takes one weight vector per triangle (the mean of its corners'),
 * which is a poor sample of a triangle whose corners' weights differ a lot, as across a
 * low-poly elbow. So, as the paper does, triangles are split until no edge joins weight
 * vectors further apart than ε = 0.1 (Euclidean distance of the weight vectors); weights
 * along an edge are interpolated linearly, as skinning weights are across a triangle.
 *
 * Only the integral needs the pieces, not a mesh: each triangle is split on its own, by
 * halving its longest edge in weight space until every edge is within ε (the halves of a
 * shared edge are the same points from either side, so the pieces tile the surface as a
 * mesh-wide edge split would). Nothing is allocated per triangle.
 */

export const CENTERS_OF_ROTATION_EPSILON = 0.1;
/**
 * A hard stop on halvings along one branch. Weight vectors lie within √2 of each other, so
 * ε = 0.1 needs about 12 levels on the worst triangle; this only stops NaN-free oddities.
 */
export const MAX_SUBDIVISION_DEPTH = 32;

/**
 * Receives each piece: its area, centroid, and mean weight vector (dense over the triangle's
 * local joints, `localJoints` entries; the array is reused for the next piece). Returning
 * false stops the subdivision of this triangle.
 */
export type SubTriangleSink = (area: number, cx: number, cy: number, cz: number, meanWeights: Float64Array) => boolean;

/** Splits triangles with scratch for up to `maxLocalJoints` joints per triangle. */
export class TriangleSubdivider {
  private readonly stride: number;
  /** Points: x y z then the weights; slots 0–2 are the corners, 3 + d the midpoint made at depth d. */
  private readonly pool: Float64Array;
  private readonly mean: Float64Array;
  private local = 0;
  private epsilon2 = 0;
  private sink: SubTriangleSink | undefined;
  private stopped = false;
  private pieces = 0;
  /** The longest edge, in weight space, of any piece emitted since construction (a check on ε). */
  largestPieceEdge = 0;

  constructor(readonly maxLocalJoints: number) {
    this.stride = 3 + maxLocalJoints;
    this.pool = new Float64Array((3 + MAX_SUBDIVISION_DEPTH + 1) * this.stride);
    this.mean = new Float64Array(maxLocalJoints);
  }

  /**
   * Subdivides one triangle. Corner k is at `positions[3·ik …]` with weights
   * `cornerWeights[k·localJoints …]` (dense over the triangle's `localJoints` joints). Calls
   * `sink` per piece and returns how many pieces it made, or -1 when the sink stopped it.
   */
  run(
    positions: ArrayLike<number>, i0: number, i1: number, i2: number,
    cornerWeights: ArrayLike<number>, localJoints: number, epsilon: number, sink: SubTriangleSink,
  ): number {
    if (localJoints > this.maxLocalJoints) throw new RangeError(`TriangleSubdivider: ${localJoints} joints on a triangle, scratch for ${this.maxLocalJoints}`);
    this.local = localJoints;
    this.epsilon2 = epsilon * epsilon;
    this.sink = sink;
    this.stopped = false;
    this.pieces = 0;
    const pool = this.pool, stride = this.stride;
    for (let k = 0; k < 3; k++) {
      const o = k * stride, p = (k === 0 ? i0 : k === 1 ? i1 : i2) * 3;
      pool[o] = positions[p]; pool[o + 1] = positions[p + 1]; pool[o + 2] = positions[p + 2];
      for (let j = 0; j < localJoints; j++) pool[o + 3 + j] = cornerWeights[k * localJoints + j];
    }
    this.split(0, 1, 2, 0);
    this.sink = undefined;
    return this.stopped ? -1 : this.pieces;
  }

  private split(a: number, b: number, c: number, depth: number): void {
    if (this.stopped) return;
    const dab = this.distance2(a, b), dbc = this.distance2(b, c), dca = this.distance2(c, a);
    const longest = Math.max(dab, dbc, dca);
    if (!(longest > this.epsilon2) || depth >= MAX_SUBDIVISION_DEPTH) {
      if (longest > this.largestPieceEdge * this.largestPieceEdge) this.largestPieceEdge = Math.sqrt(longest);
      this.emit(a, b, c);
      return;
    }
    // Halve the longest edge (u, v); w is the opposite corner.
    let u = a, v = b, w = c;
    if (longest === dbc) { u = b; v = c; w = a; }
    else if (longest === dca) { u = c; v = a; w = b; }
    const m = 3 + depth;
    const pool = this.pool, stride = this.stride;
    const om = m * stride, ou = u * stride, ov = v * stride;
    for (let k = 0; k < stride; k++) pool[om + k] = 0.5 * (pool[ou + k] + pool[ov + k]);
    this.split(u, m, w, depth + 1);
    this.split(m, v, w, depth + 1);
  }

  private distance2(a: number, b: number): number {
    const pool = this.pool, oa = a * this.stride + 3, ob = b * this.stride + 3;
    let d2 = 0;
    for (let j = 0; j < this.local; j++) {
      const d = pool[oa + j] - pool[ob + j];
      d2 += d * d;
    }
    return d2;
  }

  private emit(a: number, b: number, c: number): void {
    const pool = this.pool, stride = this.stride;
    const oa = a * stride, ob = b * stride, oc = c * stride;
    const ux = pool[ob] - pool[oa], uy = pool[ob + 1] - pool[oa + 1], uz = pool[ob + 2] - pool[oa + 2];
    const vx = pool[oc] - pool[oa], vy = pool[oc + 1] - pool[oa + 1], vz = pool[oc + 2] - pool[oa + 2];
    const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    const area = 0.5 * Math.sqrt(nx * nx + ny * ny + nz * nz);
    const mean = this.mean;
    for (let j = 0; j < this.local; j++) mean[j] = (pool[oa + 3 + j] + pool[ob + 3 + j] + pool[oc + 3 + j]) / 3;
    this.pieces++;
    const third = 1 / 3;
    const keepGoing = this.sink!(
      area,
      (pool[oa] + pool[ob] + pool[oc]) * third, (pool[oa + 1] + pool[ob + 1] + pool[oc + 1]) * third, (pool[oa + 2] + pool[ob + 2] + pool[oc + 2]) * third,
      mean,
    );
    if (!keepGoing) this.stopped = true;
  }
}
