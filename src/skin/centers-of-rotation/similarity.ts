/**
 * The skinning-weight similarity of Le & Hodgins, "Real-time Skeletal Skinning with Optimized
 * Centers of Rotation" (SIGGRAPH 2016), the kernel of the centre-of-rotation integral:
 *
 *   s(a, b) = Σ_{j<k} a_j·a_k·b_j·b_k · exp(−(a_j·b_k − a_k·b_j)² / σ²)
 *
 * Each joint pair contributes only where both weight vectors have both joints, and most where
 * the two vectors split that pair in the same ratio (a_j : a_k = b_j : b_k makes the exponent
 * 0). A vertex with a single influence is similar to nothing (every term has a zero factor).
 * σ = 0.1 as in the paper.
 */

export const CENTERS_OF_ROTATION_SIGMA = 0.1;

/**
 * One joint pair's term: a_j·a_k·b_j·b_k·exp(−(a_j·b_k − a_k·b_j)²·inverseSigma2), with
 * inverseSigma2 = 1/σ². The whole similarity is the sum of these over the joint pairs.
 */
export function pairSimilarity(aj: number, ak: number, bj: number, bk: number, inverseSigma2: number): number {
  const d = aj * bk - ak * bj;
  return aj * ak * bj * bk * Math.exp(-d * d * inverseSigma2);
}

/**
 * s(a, b) for two sparse weight vectors (joints ascending, as SparseWeights stores them):
 * a = entries [aStart, aEnd) of (aJoints, aWeights), b likewise.
 */
export function weightSimilarity(
  aJoints: ArrayLike<number>, aWeights: ArrayLike<number>, aStart: number, aEnd: number,
  bJoints: ArrayLike<number>, bWeights: ArrayLike<number>, bStart: number, bEnd: number,
  sigma = CENTERS_OF_ROTATION_SIGMA,
): number {
  const inverseSigma2 = 1 / (sigma * sigma);
  let sum = 0;
  for (let x = aStart; x < aEnd; x++) {
    const bx = findJoint(bJoints, bStart, bEnd, aJoints[x]);
    if (bx < 0) continue;
    for (let y = x + 1; y < aEnd; y++) {
      const by = findJoint(bJoints, bStart, bEnd, aJoints[y]);
      if (by < 0) continue;
      sum += pairSimilarity(aWeights[x], aWeights[y], bWeights[bx], bWeights[by], inverseSigma2);
    }
  }
  return sum;
}

function findJoint(joints: ArrayLike<number>, start: number, end: number, joint: number): number {
  for (let i = start; i < end; i++) if (joints[i] === joint) return i;
  return -1;
}
