/**
 * A skinned primitive's weights as sparse per-vertex lists, the form the centre-of-rotation
 * precomputation works on: only the joints a vertex really depends on, each once.
 */

/** Vertex v's entries are `[offsets[v], offsets[v + 1])` of `joints` and `weights`. */
export interface SparseWeights {
  readonly offsets: Uint32Array;
  /** Ascending within each vertex, no joint twice. */
  readonly joints: Uint16Array;
  /** Positive, finite, summing to 1 per vertex (a vertex with none has no entries). */
  readonly weights: Float64Array;
}

/**
 * The `influences` joints/weights per vertex (JOINTS_n/WEIGHTS_n as the loader widened them)
 * as sparse lists: a joint listed in two slots gets the sum of both weights, zero, negative
 * and non-finite weights are dropped, and what is kept is divided by its sum (the GPU divides
 * by the weight sum the same way).
 */
export function sparseWeights(joints: Uint16Array, weights: Float32Array, influences: number, vertexCount: number): SparseWeights {
  const offsets = new Uint32Array(vertexCount + 1);
  const outJoints = new Uint16Array(vertexCount * influences);
  const outWeights = new Float64Array(vertexCount * influences);
  let n = 0;
  for (let v = 0; v < vertexCount; v++) {
    offsets[v] = n;
    const start = n;
    let sum = 0;
    for (let i = 0; i < influences; i++) {
      const w = weights[v * influences + i];
      if (!(w > 0) || w === Infinity) continue;
      const j = joints[v * influences + i];
      // Insertion into the vertex's sorted run (at most 8 entries), merging a repeated joint.
      let at = n;
      while (at > start && outJoints[at - 1] > j) at--;
      if (at > start && outJoints[at - 1] === j) {
        outWeights[at - 1] += w;
      } else {
        for (let k = n; k > at; k--) {
          outJoints[k] = outJoints[k - 1];
          outWeights[k] = outWeights[k - 1];
        }
        outJoints[at] = j;
        outWeights[at] = w;
        n++;
      }
      sum += w;
    }
    for (let k = start; k < n; k++) outWeights[k] /= sum;
  }
  offsets[vertexCount] = n;
  return { offsets, joints: outJoints.slice(0, n), weights: outWeights.slice(0, n) };
}
