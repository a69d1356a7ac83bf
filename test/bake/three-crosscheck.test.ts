/**
 * Independent check of the CPU bake against three.js: three's GLTFLoader, AnimationMixer
 * and SkinnedMesh.getVertexPosition pose and skin the same real assets, and world-space
 * positions must agree to 1e-4 of the posed model's bounding-box diagonal. Normals are
 * checked against the inverse-transpose of the blend built from three's bone matrices
 * (three skins normals only in its shaders).
 *
 * Known differences handled here rather than hidden: three normalises skin weights on
 * load (RobotExpressive's sum to as little as 0.245; we renormalise too); it uses rotation
 * keys as stored while we normalise them (SimpleSkin stores (0, 0, 0.707, 0.707), which
 * shrinks the joint by |q|² ≈ 0.9997 and moves vertices by 1.3e-4 of the diagonal in
 * three), so three's keys are normalised before posing; and its mixer loops by default,
 * so actions play once and clamp (times past the end then hold the last pose, as glTF
 * sampling does).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { bakeModel, type BakedPrimitive } from '../../src/bake/bake.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import { assetPath } from '../support/assets.ts';
import {
  loadThreeGltf, normalizeRotationKeys, poseThree, threeSkinnedNormals, threeSkinnedPositions, threeSkinnedPrimitives,
} from '../support/three-node.ts';

/** Every skinned shared asset (SimpleSkin is a .gltf with data-URI buffers, the rest GLB). */
const CASES = [
  'SimpleSkin', 'RiggedSimple', 'RiggedFigure', 'CesiumMan', 'Fox', 'RecursiveSkeletons', 'RobotExpressive',
].map((name) => ({ name }));

/** Relative position tolerance (of the bbox diagonal) and absolute tolerance on unit normals. */
const POSITION_TOLERANCE = 1e-4;
const NORMAL_TOLERANCE = 1e-4;

/** Sample times as fractions of the clip, plus one past the end (seconds). */
const FRACTIONS = [0, 0.37, 0.5, 1];
const PAST_END = 0.5;

interface Summary {
  asset: string;
  samples: number;
  primitives: number;
  diagonal: number;
  maxPositionError: number;
  maxPositionRelative: number;
  maxNormalError: number | null;
  /** Largest |1 - |q|| of the file's rotation keys, as three.js read them. */
  keyNormError: number;
  worst: string;
}
const summaries: Summary[] = [];

function diagonal(prims: readonly BakedPrimitive[]): number {
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (const p of prims) {
    for (let i = 0; i < p.positions.length; i++) {
      const c = i % 3;
      if (p.positions[i] < min[c]) min[c] = p.positions[i];
      if (p.positions[i] > max[c]) max[c] = p.positions[i];
    }
  }
  return Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
}

/** Largest Euclidean distance between corresponding xyz triples, and where. */
function maxDistance(a: Float64Array, b: Float64Array): { error: number; vertex: number } {
  let error = 0, vertex = -1;
  for (let v = 0; v < a.length / 3; v++) {
    const d = Math.hypot(a[v * 3] - b[v * 3], a[v * 3 + 1] - b[v * 3 + 1], a[v * 3 + 2] - b[v * 3 + 2]);
    if (!(d <= error)) { error = d; vertex = v; } // NaN counts as worst
  }
  return { error, vertex };
}

const key = (node: number, mesh: number, primitive: number): string => `node ${node} mesh ${mesh} primitive ${primitive}`;

describe('bake agrees with three.js (GLTFLoader + AnimationMixer + SkinnedMesh)', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const path = assetPath(c.name);
      const model = await loadGltfFile(path);
      const gltf = await loadThreeGltf(path);
      const threePrims = threeSkinnedPrimitives(gltf);
      const keyNormError = normalizeRotationKeys(gltf.animations);

      // Same skinned primitives on both sides, found through three's glTF associations.
      const oursKeys = bakeModel(model).primitives.map((p) => key(p.node, p.mesh, p.primitive)).sort();
      const byKey = new Map(threePrims.map((p) => [key(p.node, p.mesh, p.primitive), p]));
      expect([...byKey.keys()].sort()).toEqual(oursKeys);
      expect(gltf.animations.length).toBe(model.animations.length);

      const summary: Summary = {
        asset: c.name, samples: 0, primitives: oursKeys.length, diagonal: 0,
        maxPositionError: 0, maxPositionRelative: 0, maxNormalError: null, keyNormError, worst: '',
      };
      let maxMotion = 0;
      model.animations.forEach((clip, index) => {
        const threeClip = gltf.animations[index];
        expect(threeClip.duration).toBeCloseTo(clip.duration, 6);
        const times = [...FRACTIONS.map((f) => f * clip.duration), clip.duration + PAST_END];
        let first: BakedPrimitive[] | undefined;
        for (const time of times) {
          const baked = bakeModel(model, { animation: index, time });
          const diag = diagonal(baked.primitives);
          summary.diagonal = Math.max(summary.diagonal, diag);
          const restore = poseThree(gltf.scene, threeClip, time);
          try {
            for (const ours of baked.primitives) {
              const where = `clip ${index} "${clip.name ?? ''}" t=${time.toFixed(4)} ${key(ours.node, ours.mesh, ours.primitive)}`;
              const three = byKey.get(key(ours.node, ours.mesh, ours.primitive))!;
              const pos = maxDistance(ours.positions, threeSkinnedPositions(three.object));
              if (!(pos.error / diag <= summary.maxPositionRelative)) {
                summary.maxPositionRelative = pos.error / diag;
                summary.maxPositionError = pos.error;
                summary.worst = `${where} vertex ${pos.vertex}`;
              }
              expect(pos.error / diag, `${where}: position error at vertex ${pos.vertex} (diag ${diag})`).toBeLessThanOrEqual(POSITION_TOLERANCE);

              const threeNormals = threeSkinnedNormals(three.object);
              expect(ours.normals === undefined, `${where}: NORMAL present on one side only`).toBe(threeNormals === undefined);
              if (ours.normals && threeNormals) {
                const nrm = maxDistance(ours.normals, threeNormals);
                summary.maxNormalError = Math.max(summary.maxNormalError ?? 0, nrm.error);
                expect(nrm.error, `${where}: normal error at vertex ${nrm.vertex}`).toBeLessThanOrEqual(NORMAL_TOLERANCE);
              }
            }
          } finally {
            restore();
          }
          summary.samples++;
          // The comparison is only meaningful if the clip actually moves the mesh.
          if (!first) first = baked.primitives.slice();
          else {
            baked.primitives.forEach((p, i) => {
              maxMotion = Math.max(maxMotion, maxDistance(p.positions, first![i].positions).error / diag);
            });
          }
        }
      });
      expect(maxMotion, 'no clip moves any vertex: the check would be vacuous').toBeGreaterThan(100 * POSITION_TOLERANCE);
      summaries.push(summary);
    });
  }

  afterAll(() => {
    if (summaries.length === 0) return;
    const rows = summaries.map((s) => ({
      asset: s.asset,
      samples: s.samples,
      primitives: s.primitives,
      'max |Δpos|': s.maxPositionError.toExponential(2),
      '/ bbox diag': s.maxPositionRelative.toExponential(2),
      'max |Δnormal|': s.maxNormalError === null ? '(no NORMAL)' : s.maxNormalError.toExponential(2),
      'key |1-|q||': s.keyNormError.toExponential(1),
      worst: s.worst,
    }));
    console.table(rows);
  });
});
