import { describe, expect, it } from 'vitest';
import { buildBuiltinGlb, builtinModelNames } from '../../../src/builtin/index.ts';
import { loadGltfFile } from '../../../src/cli/load-file.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import type { Model, Primitive } from '../../../src/gltf/model.ts';
import { triangleList } from '../../../src/gltf/topology.ts';
import { computeCentersOfRotation, type CentersOfRotationOptions } from '../../../src/skin/centers-of-rotation/precompute.ts';
import { pairSimilarity, weightSimilarity } from '../../../src/skin/centers-of-rotation/similarity.ts';
import { CENTERS_OF_ROTATION_EPSILON, TriangleSubdivider } from '../../../src/skin/centers-of-rotation/subdivide.ts';
import { sparseWeights } from '../../../src/skin/centers-of-rotation/weights.ts';
import { everySharedModelFile, skinnedPrimitivesInJson } from '../../support/assets.ts';
import { cylinder } from '../../support/cylinders.ts';
import { boxDiagonal, denseSimilarity, denseWeights, nonzeroJoints, referenceCenters, subdividedPieces, trianglePieces, uniformPieces, vertexSimilarity } from './reference.ts';

/** A deterministic pseudo-random stream in [0, 1). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * A bumpy n×n grid surface with random weights over `joints` joints, `influences` slots per
 * vertex (some slots zero, some repeating a joint), as the loader gives them (summing to 1).
 */
function randomSheet(n: number, joints: number, influences: 4 | 8, seed: number) {
  const next = random(seed);
  const positions: number[] = [], jointList: number[] = [], weightList: number[] = [], triangles: number[] = [];
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      positions.push(x / (n - 1), y / (n - 1), 0.2 * Math.sin(3 * x / n + y / n) + 0.05 * next());
      const w: number[] = [];
      for (let i = 0; i < influences; i++) {
        jointList.push(Math.floor(next() * joints));
        w.push(i > 1 && next() < 0.3 ? 0 : next());
      }
      const sum = w.reduce((a, b) => a + b, 0);
      weightList.push(...w.map((v) => v / sum));
    }
  }
  for (let y = 0; y + 1 < n; y++) {
    for (let x = 0; x + 1 < n; x++) {
      const a = y * n + x;
      triangles.push(a, a + 1, a + n, a + 1, a + n + 1, a + n);
    }
  }
  return {
    vertexCount: n * n, influences, jointCount: joints,
    positions: Float32Array.from(positions), joints: Uint16Array.from(jointList), weights: Float32Array.from(weightList),
    triangles: Uint32Array.from(triangles),
  };
}

type Sheet = ReturnType<typeof randomSheet>;

function fast(sheet: Sheet, options: CentersOfRotationOptions = {}): Float32Array {
  const r = computeCentersOfRotation(sheet, options);
  if (!r.ok) throw new Error(r.reason);
  return r.centers;
}

/** Largest distance between matching xyz triples, over the box diagonal. */
function relativeError(a: ArrayLike<number>, b: ArrayLike<number>, diagonal: number, indices?: readonly number[]): number {
  let worst = 0;
  const n = b.length / 3;
  for (let i = 0; i < n; i++) {
    const ai = indices ? indices[i] : i;
    worst = Math.max(worst, Math.hypot(a[ai * 3] - b[i * 3], a[ai * 3 + 1] - b[i * 3 + 1], a[ai * 3 + 2] - b[i * 3 + 2]));
  }
  return worst / diagonal;
}

describe('computeCentersOfRotation: invalid inputs', () => {
  const sheet = randomSheet(3, 3, 4, 1);
  it('rejects a non-positive sigma or epsilon, a bad merge grid and arrays too short for the vertex count', () => {
    expect(() => computeCentersOfRotation(sheet, { sigma: 0 })).toThrow(/sigma 0 must be positive/);
    expect(() => computeCentersOfRotation(sheet, { sigma: NaN })).toThrow(/sigma NaN/);
    expect(() => computeCentersOfRotation(sheet, { epsilon: -1 })).toThrow(/epsilon -1 must be positive/);
    expect(() => computeCentersOfRotation(sheet, { mergeSteps: 2.5 })).toThrow(/mergeSteps 2.5/);
    expect(() => computeCentersOfRotation(sheet, { mergeSteps: -1 })).toThrow(/mergeSteps -1/);
    expect(() => computeCentersOfRotation({ ...sheet, vertexCount: 10 })).toThrow(/shorter than 10 vertices/);
  });
});

describe('the similarity s(a, b) of Le & Hodgins', () => {
  it('equals the dense sum over every joint pair, is symmetric, and is 0 against a one-joint vector', () => {
    const next = random(7);
    for (let trial = 0; trial < 50; trial++) {
      const a = new Float64Array(6), b = new Float64Array(6);
      for (let j = 0; j < 6; j++) { a[j] = next() < 0.4 ? 0 : next(); b[j] = next() < 0.4 ? 0 : next(); }
      const ja = [0, 1, 2, 3, 4, 5].filter((j) => a[j] > 0), jb = [0, 1, 2, 3, 4, 5].filter((j) => b[j] > 0);
      const s = weightSimilarity(ja, ja.map((j) => a[j]), 0, ja.length, jb, jb.map((j) => b[j]), 0, jb.length);
      expect(s).toBeCloseTo(denseSimilarity(a, 0, b, 0, 6, 0.1), 14);
      expect(weightSimilarity(jb, jb.map((j) => b[j]), 0, jb.length, ja, ja.map((j) => a[j]), 0, ja.length)).toBeCloseTo(s, 14);
    }
    expect(weightSimilarity([3], [1], 0, 1, [2, 3], [0.5, 0.5], 0, 2)).toBe(0);
  });

  it("the reference's sum over the vertex's own joints (vertexSimilarity) is the dense sum, bit for bit", () => {
    const next = random(17);
    for (let trial = 0; trial < 200; trial++) {
      const joints = 1 + Math.floor(next() * 40);
      const a = new Float64Array(joints), b = new Float64Array(joints);
      // A vertex's few joints against a piece's many (a mean of three corners, subdivided).
      for (let i = 0; i < 8; i++) a[Math.floor(next() * joints)] = next() < 0.2 ? 0 : next();
      for (let j = 0; j < joints; j++) b[j] = next() < 0.5 ? 0 : next();
      const sigma = next() < 0.5 ? 0.1 : 0.3;
      expect(vertexSimilarity(a, 0, nonzeroJoints(a, 0, joints), b, 0, sigma)).toBe(denseSimilarity(a, 0, b, 0, joints, sigma));
    }
  });

  it('one pair: a_j a_k b_j b_k where the ratios agree, falling off as exp(−d²/σ²) where they do not', () => {
    expect(pairSimilarity(0.5, 0.5, 0.5, 0.5, 100)).toBeCloseTo(0.0625, 15);
    const d = 0.6 * 0.7 - 0.4 * 0.3;
    expect(pairSimilarity(0.6, 0.4, 0.3, 0.7, 100)).toBeCloseTo(0.6 * 0.4 * 0.3 * 0.7 * Math.exp(-d * d * 100), 15);
  });
});

describe('sparseWeights', () => {
  it('merges a repeated joint, drops zero, negative and NaN weights, sorts joints and renormalises', () => {
    const s = sparseWeights(Uint16Array.from([5, 2, 5, 9, 1, 1, 1, 1]), Float32Array.from([0.2, 0.3, 0.1, 0, 1, -1, NaN, 1]), 4, 2);
    expect([...s.offsets]).toEqual([0, 2, 3]);
    expect([...s.joints]).toEqual([2, 5, 1]);
    expect(s.weights[0]).toBeCloseTo(0.3 / 0.6, 6);
    expect(s.weights[1]).toBeCloseTo(0.3 / 0.6, 6);
    expect(s.weights[2]).toBe(1);
  });
});

describe('the subdivision (the paper\'s ε = 0.1 in weight space)', () => {
  const positions = [0, 0, 0, 2, 0, 0, 0, 1, 0.5];
  const corners = [1, 0, 0, 0, 1, 0, 0.2, 0.3, 0.5];
  const run = (epsilon: number) => {
    const pieces: { area: number; c: number[]; w: number[] }[] = [];
    const subdivider = new TriangleSubdivider(3);
    const count = subdivider.run(positions, 0, 1, 2, corners, 3, epsilon, (area, cx, cy, cz, mean) => {
      pieces.push({ area, c: [cx, cy, cz], w: [...mean.subarray(0, 3)] });
      return true;
    });
    return { pieces, count, largest: subdivider.largestPieceEdge };
  };

  it('leaves a triangle whole when no edge is longer than ε', () => {
    expect(run(2).count).toBe(1);
  });

  it('splits until every edge is within ε; the pieces tile the triangle (area, centroid and weight integrals are kept)', () => {
    const { pieces, count, largest } = run(CENTERS_OF_ROTATION_EPSILON);
    expect(count).toBe(pieces.length);
    expect(count).toBeGreaterThan(100);
    expect(largest).toBeLessThanOrEqual(CENTERS_OF_ROTATION_EPSILON);
    const area = Math.hypot(0, -1, 2) / 2; // |(2,0,0) × (0,1,0.5)| / 2
    const sum = (f: (p: (typeof pieces)[number]) => number) => pieces.reduce((s, p) => s + f(p), 0);
    expect(sum((p) => p.area)).toBeCloseTo(area, 12);
    for (let k = 0; k < 3; k++) {
      expect(sum((p) => p.area * p.c[k]) / area).toBeCloseTo((positions[k] + positions[3 + k] + positions[6 + k]) / 3, 12);
      // Weights vary linearly over the triangle, so their integral is the area times the corners' mean.
      expect(sum((p) => p.area * p.w[k]) / area).toBeCloseTo((corners[k] + corners[3 + k] + corners[6 + k]) / 3, 12);
    }
  });

  it('the reference\'s own uniform grid (reference.ts uniformPieces) tiles the triangle too: n² pieces, the same integrals', () => {
    const dense = Float64Array.from(corners);
    const pieces = uniformPieces(positions, [0, 1, 2], dense, 3, CENTERS_OF_ROTATION_EPSILON);
    // The longest edge in weight space is corner 0 → 1: √2, so n = ⌈√2 / 0.1⌉ = 15.
    expect(pieces.count).toBe(15 * 15);
    const area = Math.hypot(0, -1, 2) / 2;
    const sum = (f: (p: number) => number) => Array.from({ length: pieces.count }, (_, p) => f(p)).reduce((a, b) => a + b, 0);
    expect(sum((p) => pieces.area[p])).toBeCloseTo(area, 12);
    for (let k = 0; k < 3; k++) {
      expect(sum((p) => pieces.area[p] * pieces.centroid[p * 3 + k]) / area).toBeCloseTo((positions[k] + positions[3 + k] + positions[6 + k]) / 3, 12);
      expect(sum((p) => pieces.area[p] * pieces.weights[p * 3 + k]) / area).toBeCloseTo((corners[k] + corners[3 + k] + corners[6 + k]) / 3, 12);
    }
  });

  it('stops when the sink says so', () => {
    let seen = 0;
    const count = new TriangleSubdivider(3).run(positions, 0, 1, 2, corners, 3, 0.1, () => ++seen < 5);
    expect(count).toBe(-1);
    expect(seen).toBe(5);
  });

  it('refuses more joints than its scratch holds', () => {
    expect(() => new TriangleSubdivider(2).run(positions, 0, 1, 2, corners, 3, 0.1, () => true)).toThrow(/3 joints on a triangle, scratch for 2/);
  });
});

/**
 * Two subdivisions to the same ε sample the same integral differently: on the random sheets
 * the fast path's bisection and the reference's uniform grid differ by up to 8e-4 of the
 * diagonal (4e-4 to 7e-4 against the grid at ε/8), the unsplit mesh by 3e-2 to 8e-2.
 */
const SUBDIVISION_AGREEMENT = 2e-3;

describe('the fast precomputation against the O(V·T) reference', () => {
  for (const influences of [4, 8] as const) {
    it(`${influences} influences, no subdivision, nothing merged: equal to float32 rounding (1e-7 of the box diagonal)`, () => {
      const sheet = randomSheet(9, 6, influences, 11 + influences);
      const dense = denseWeights(sheet.joints, sheet.weights, influences, sheet.vertexCount, sheet.jointCount);
      const reference = referenceCenters(sheet.positions, dense, trianglePieces(sheet.positions, sheet.triangles, dense, sheet.jointCount));
      const centers = fast(sheet, { epsilon: Infinity, mergeSteps: 0 });
      expect(relativeError(centers, reference, boxDiagonal(sheet.positions))).toBeLessThan(1e-7);
    });

    it(`${influences} influences, subdivided (ε = 0.1), nothing merged: equal to float32 rounding`, () => {
      const sheet = randomSheet(6, 5, influences, 3 + influences);
      const dense = denseWeights(sheet.joints, sheet.weights, influences, sheet.vertexCount, sheet.jointCount);
      const pieces = subdividedPieces(sheet.positions, sheet.triangles, dense, sheet.jointCount, CENTERS_OF_ROTATION_EPSILON);
      const reference = referenceCenters(sheet.positions, dense, pieces);
      const result = computeCentersOfRotation(sheet, { mergeSteps: 0 });
      if (!result.ok) throw new Error(result.reason);
      expect(result.stats.pieces).toBe(pieces.count);
      expect(relativeError(result.centers, reference, boxDiagonal(sheet.positions))).toBeLessThan(1e-7);
      // The subdivision matters: the unsplit mesh gives centres a good way off.
      const coarse = fast(sheet, { epsilon: Infinity, mergeSteps: 0 });
      expect(relativeError(coarse, reference, boxDiagonal(sheet.positions))).toBeGreaterThan(1e-3);
    });

    it(`${influences} influences, subdivided (ε = 0.1): within ${SUBDIVISION_AGREEMENT} of the box diagonal of the reference on its own uniform subdivision (at ε and ε/4); unsplit is 10× further`, () => {
      const sheet = randomSheet(6, 5, influences, 3 + influences);
      const dense = denseWeights(sheet.joints, sheet.weights, influences, sheet.vertexCount, sheet.jointCount);
      const diagonal = boxDiagonal(sheet.positions);
      const centers = fast(sheet, { mergeSteps: 0 });
      const coarse = fast(sheet, { epsilon: Infinity, mergeSteps: 0 });
      for (const epsilon of [CENTERS_OF_ROTATION_EPSILON, CENTERS_OF_ROTATION_EPSILON / 4]) {
        const reference = referenceCenters(sheet.positions, dense, uniformPieces(sheet.positions, sheet.triangles, dense, sheet.jointCount, epsilon));
        expect(relativeError(centers, reference, diagonal), `ε ${epsilon}`).toBeLessThan(SUBDIVISION_AGREEMENT);
        expect(relativeError(coarse, reference, diagonal), `ε ${epsilon}, unsplit`).toBeGreaterThan(10 * SUBDIVISION_AGREEMENT);
      }
    });
  }

  it('a σ other than the paper\'s is the reference\'s with that σ', () => {
    const sheet = randomSheet(7, 4, 4, 99);
    const dense = denseWeights(sheet.joints, sheet.weights, 4, sheet.vertexCount, sheet.jointCount);
    const reference = referenceCenters(sheet.positions, dense, trianglePieces(sheet.positions, sheet.triangles, dense, sheet.jointCount), 0.3);
    expect(relativeError(fast(sheet, { sigma: 0.3, epsilon: Infinity, mergeSteps: 0 }), reference, boxDiagonal(sheet.positions))).toBeLessThan(1e-7);
  });
});

describe('where the similarity sum is 0, the centre is the vertex\'s own rest position', () => {
  it('one-influence vertices, vertices whose joint pair no triangle has, and primitives without triangles', () => {
    const sheet = randomSheet(5, 4, 4, 5);
    // Vertex 0 on one joint; vertex 1 on joints 30 and 31, which no triangle has (none uses vertex 1).
    sheet.joints.set([0, 0, 0, 0, 30, 31, 0, 0], 0);
    sheet.weights.set([1, 0, 0, 0, 0.5, 0.5, 0, 0], 0);
    const triangles = Uint32Array.from(Array.from({ length: sheet.triangles.length / 3 }, (_, t) => [...sheet.triangles.subarray(t * 3, t * 3 + 3)]).filter((t) => !t.includes(1)).flat());
    const result = computeCentersOfRotation({ ...sheet, triangles });
    if (!result.ok) throw new Error(result.reason);
    expect([...result.centers.subarray(0, 6)]).toEqual([...sheet.positions.subarray(0, 6)]);
    expect(result.stats.fallbackVertices).toBeGreaterThanOrEqual(2);
    const points = computeCentersOfRotation({ ...sheet, triangles: undefined });
    if (!points.ok) throw new Error(points.reason);
    expect(points.centers).toEqual(sheet.positions);
    expect(points.stats.fallbackVertices).toBe(sheet.vertexCount);
  });

  it('a symmetric tube: the blended band\'s centres lie on the bone axis, inside the band', () => {
    const { prim } = cylinder({ knots: [0, 1], height: 2, blend: 0.5, rings: 41 });
    const result = computeCentersOfRotation({ ...prim, joints: prim.joints!, weights: prim.weights!, triangles: triangleList(prim) });
    if (!result.ok) throw new Error(result.reason);
    let blended = 0;
    for (let v = 0; v < prim.vertexCount; v++) {
      if (prim.weights![v * 4 + 1] === 0) continue;
      blended++;
      const c = result.centers.subarray(v * 3, v * 3 + 3);
      expect(Math.hypot(c[0], c[2])).toBeLessThan(1e-5);
      expect(Math.abs(c[1] - 1)).toBeLessThan(0.5);
    }
    expect(blended).toBeGreaterThan(500);
  });
});

describe('the budget: a primitive too large stops early with the reason, never a long stall', () => {
  const sheet = randomSheet(8, 5, 4, 21);
  it.each([
    [{ maxPieces: 50 }, /more than 50 pieces/],
    [{ maxPairEntries: 20 }, /more than 20 joint-pair entries/],
    [{ maxTerms: 100 }, /more than 100 similarity terms/],
    [{ maxVertexPairs: 30 }, /the vertices have more than 30 joint pairs/],
  ] as const)('%o', (options, reason) => {
    const result = computeCentersOfRotation(sheet, options);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });
});

describe('every shared asset (the .vrm files too) and built-in model: the fast version (default merge grid) within 1e-4 of the box diagonal of the reference', () => {
  /** Every model, loaded once, with the count of skinned primitives its file's JSON declares (built-ins: undefined). */
  async function models(): Promise<{ model: Model; declared?: number }[]> {
    const out: { model: Model; declared?: number }[] = [];
    for (const name of builtinModelNames()) out.push({ model: await loadGltf(buildBuiltinGlb(name), { name }) });
    for (const asset of everySharedModelFile()) out.push({ model: await loadGltfFile(asset.path), declared: skinnedPrimitivesInJson(asset.path) });
    return out;
  }
  /** About `n` vertices spread over the primitive, blended ones first (one-joint vertices are trivial). */
  function sample(prim: Primitive, n: number): number[] {
    const blended: number[] = [];
    for (let v = 0; v < prim.vertexCount; v++) {
      let count = 0;
      for (let i = 0; i < prim.influences; i++) if (prim.weights![v * prim.influences + i] > 0) count++;
      if (count > 1) blended.push(v);
    }
    const step = Math.max(1, Math.floor(blended.length / n));
    return [...blended.filter((_, i) => i % step === 0).slice(0, n), 0];
  }

  it('samples of every skinned primitive', async () => {
    let checked = 0;
    for (const { model, declared } of await models()) {
      const seen = new Set<Primitive>();
      for (const mesh of model.meshes) {
        for (const prim of mesh.primitives) {
          if (prim.influences === 0 || seen.has(prim)) continue;
          seen.add(prim);
          const triangles = triangleList(prim)!;
          const result = computeCentersOfRotation({ ...prim, joints: prim.joints!, weights: prim.weights!, triangles });
          if (!result.ok) throw new Error(`${model.name}: ${result.reason}`);
          const joints = prim.maxJoint + 1;
          const dense = denseWeights(prim.joints!, prim.weights!, prim.influences, prim.vertexCount, joints);
          const pieces = subdividedPieces(prim.positions, triangles, dense, joints, CENTERS_OF_ROTATION_EPSILON);
          const vertices = sample(prim, 16);
          const reference = referenceCenters(prim.positions, dense, pieces, 0.1, vertices);
          const error = relativeError(result.centers, reference, boxDiagonal(prim.positions), vertices);
          expect(error, `${model.name}: ${error}`).toBeLessThan(1e-4);
          checked++;
        }
      }
      // Every skinned primitive the file declares was checked (the .vrm samples declare none: they carry no skin).
      if (declared !== undefined) expect(seen.size, `${model.name}: skinned primitives checked`).toBe(declared);
    }
    expect(checked).toBeGreaterThanOrEqual(12);
  }, 120_000);
});
