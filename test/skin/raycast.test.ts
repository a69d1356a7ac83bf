import { describe, expect, it } from 'vitest';
import { createModelInstance, updateModelInstance, type ModelInstance } from '../../src/anim/instance.ts';
import { findSlot } from '../../src/anim/mask.ts';
import { SKINNING_METHODS, type SkinningMethod } from '../../src/anim/skinning-method.ts';
import { bakeModel } from '../../src/bake/bake.ts';
import { posedPrimitives, type PosedPrimitive } from '../../src/bake/posed.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import type { Model } from '../../src/gltf/model.ts';
import { triangleList } from '../../src/gltf/topology.ts';
import { composeTRS } from '../../src/math/trs.ts';
import { createRayHit, SkinnedRaycaster } from '../../src/skin/raycast.ts';
import { loadCharacter } from '../anim/fixtures.ts';
import { measureAllocation } from '../support/allocation.ts';
import { assetPath } from '../support/assets.ts';

/** The bake's world-space triangles (its own CPU skinning, in float64), tested one by one. */
interface Reference {
  readonly prims: readonly { posed: PosedPrimitive; triangles: Uint32Array }[];
  readonly min: number[];
  readonly max: number[];
}

function reference(model: Model, clip: number, time: number, skinning: SkinningMethod): Reference {
  const prims = posedPrimitives(model, bakeModel(model, { animation: clip < 0 ? undefined : clip, time, skinning }))
    .map((posed) => ({ posed, triangles: triangleList(posed.source) ?? new Uint32Array(0) }));
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (const { posed } of prims) {
    for (let v = 0; v < posed.positions.length; v += 3) {
      for (let c = 0; c < 3; c++) {
        min[c] = Math.min(min[c], posed.positions[v + c]);
        max[c] = Math.max(max[c], posed.positions[v + c]);
      }
    }
  }
  return { prims, min, max };
}

interface BruteHit { t: number; node: number; primitive: number; triangle: number; normal: number[]; incidence: number }

/**
 * Nearest double-sided hit over every triangle, in float64 (a second, independent ray test).
 * Written out per component (what `cross` and `dot` compute, in their order, so the same
 * numbers): the reference runs over every triangle for every ray, and arrays per triangle made
 * it most of this file's time.
 */
function bruteForce(ref: Reference, o: number[], d: number[]): BruteHit | undefined {
  let best: BruteHit | undefined;
  const [dx, dy, dz] = d;
  for (const { posed, triangles } of ref.prims) {
    const p = posed.positions;
    for (let t = 0; t < triangles.length; t += 3) {
      const a = triangles[t] * 3, b = triangles[t + 1] * 3, c = triangles[t + 2] * 3;
      const e1x = p[b] - p[a], e1y = p[b + 1] - p[a + 1], e1z = p[b + 2] - p[a + 2];
      const e2x = p[c] - p[a], e2y = p[c + 1] - p[a + 1], e2z = p[c + 2] - p[a + 2];
      // n = e1 × e2
      const nx = e1y * e2z - e1z * e2y, ny = e1z * e2x - e1x * e2z, nz = e1x * e2y - e1y * e2x;
      const denom = nx * dx + ny * dy + nz * dz;
      if (Math.abs(denom) < 1e-14) continue;
      const sx = o[0] - p[a], sy = o[1] - p[a + 1], sz = o[2] - p[a + 2];
      const dist = -(nx * sx + ny * sy + nz * sz) / denom;
      if (!(dist > 0) || (best && dist >= best.t)) continue;
      // Barycentric coordinates of the plane hit: u = ((q × e2)·n)/(n·n), v = ((e1 × q)·n)/(n·n).
      const qx = sx + dist * dx, qy = sy + dist * dy, qz = sz + dist * dz;
      const nn = nx * nx + ny * ny + nz * nz;
      const u = ((qy * e2z - qz * e2y) * nx + (qz * e2x - qx * e2z) * ny + (qx * e2y - qy * e2x) * nz) / nn;
      const v = ((e1y * qz - e1z * qy) * nx + (e1z * qx - e1x * qz) * ny + (e1x * qy - e1y * qx) * nz) / nn;
      if (u < 0 || v < 0 || u + v > 1) continue;
      const n = [nx, ny, nz];
      const normal = posed.normals
        ? [0, 1, 2].map((k) => (1 - u - v) * posed.normals![a + k] + u * posed.normals![b + k] + v * posed.normals![c + k])
        : n;
      best = { t: dist, node: posed.node, primitive: posed.primitive, triangle: t / 3, normal: unit(normal), incidence: Math.abs(dot(unit(n), d)) };
    }
  }
  return best;
}

const dot = (a: number[], b: number[]) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: number[], b: number[]) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const unit = (a: number[]) => { const l = Math.hypot(a[0], a[1], a[2]); return a.map((x) => x / l); };

/** mulberry32: the same rays on every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Rays at random points of random triangles from random directions outside the model
 * (each must hit something), compared with the brute force.
 */
function compareRays(model: Model, instance: ModelInstance, caster: SkinnedRaycaster, ref: Reference, count: number, seed: number) {
  const next = random(seed);
  const size = Math.hypot(ref.max[0] - ref.min[0], ref.max[1] - ref.min[1], ref.max[2] - ref.min[2]);
  const hit = createRayHit();
  const withTriangles = ref.prims.filter((p) => p.triangles.length > 0);
  let sameTriangle = 0;
  for (let r = 0; r < count; r++) {
    const { posed, triangles } = withTriangles[Math.floor(next() * withTriangles.length)];
    const t = Math.floor(next() * (triangles.length / 3)) * 3;
    let u = next(), v = next();
    if (u + v > 1) { u = 1 - u; v = 1 - v; }
    const p = posed.positions;
    const target = [0, 1, 2].map((k) => (1 - u - v) * p[triangles[t] * 3 + k] + u * p[triangles[t + 1] * 3 + k] + v * p[triangles[t + 2] * 3 + k]);
    const d = unit([next() - 0.5, next() - 0.5, next() - 0.5]);
    const o = target.map((x, k) => x - d[k] * size * 2);
    const expected = bruteForce(ref, o, d);
    expect(expected, `ray ${r}`).toBeDefined();
    expect(caster.cast(instance, o, d, hit), `ray ${r} toward ${target}`).toBe(true);
    // Along the ray, a vertex error grows by 1/|cos| of the incidence: a grazing ray slides along the surface.
    expect(Math.abs(hit.distance - expected!.t), `ray ${r} distance (incidence cosine ${expected!.incidence})`).toBeLessThan(size * 1e-5 / Math.max(expected!.incidence, 0.02));
    for (let k = 0; k < 3; k++) expect(Math.abs(hit.position[k] - (o[k] + expected!.t * d[k]))).toBeLessThan(size * 1e-5 / Math.max(expected!.incidence, 0.02));
    expect(Math.hypot(hit.normal[0], hit.normal[1], hit.normal[2])).toBeCloseTo(1, 6);
    if (model.meshNodes[hit.meshNode].node === expected!.node && hit.primitive === expected!.primitive && hit.triangle === expected!.triangle) {
      sameTriangle++;
      expect(dot([hit.normal[0], hit.normal[1], hit.normal[2]], expected!.normal), `ray ${r} normal`).toBeGreaterThan(Math.cos(0.002));
    }
  }
  // Ties at shared edges may pick the neighbour (same point); almost every ray names the same triangle.
  expect(sameTriangle).toBeGreaterThan(count * 0.9);
}

/** Rays from outside the bake's box pointing away from it: nothing to hit. */
function compareMisses(instance: ModelInstance, caster: SkinnedRaycaster, ref: Reference, seed: number) {
  const next = random(seed);
  const center = ref.min.map((x, k) => (x + ref.max[k]) / 2);
  const size = Math.hypot(ref.max[0] - ref.min[0], ref.max[1] - ref.min[1], ref.max[2] - ref.min[2]);
  const hit = createRayHit();
  for (let r = 0; r < 20; r++) {
    const d = unit([next() - 0.5, next() - 0.5, next() - 0.5]);
    const o = center.map((x, k) => x + d[k] * size * 2);
    expect(bruteForce(ref, o, d)).toBeUndefined();
    expect(caster.cast(instance, o, d, hit)).toBe(false);
  }
}

async function loadAsset(name: string): Promise<Model> {
  return loadGltfFile(assetPath(name));
}

describe('SkinnedRaycaster against the bake (CPU skinning in float64)', () => {
  const cases: [string, () => Promise<Model>][] = [
    ['builtin character', loadCharacter],
    ['CesiumMan', () => loadAsset('CesiumMan')],
    ['Fox (no NORMAL, non-indexed)', () => loadAsset('Fox')],
    ['RobotExpressive (rigid parts on bones, morphed head)', () => loadAsset('RobotExpressive')],
    ['RiggedFigure', () => loadAsset('RiggedFigure')],
    ['SimpleMorph (morph targets, no skin)', () => loadAsset('SimpleMorph')],
  ];
  for (const [name, load] of cases) {
    it(`${name}: hits, misses, distances, positions and normals, every skinning method, over the clip`, async () => {
      const model = await load();
      const instance = createModelInstance(model);
      const caster = new SkinnedRaycaster(model);
      const clip = model.animations.length > 0 ? 0 : -1;
      const duration = clip >= 0 ? model.animations[0].duration : 0;
      let seed = 1;
      for (const skinning of SKINNING_METHODS) {
        caster.skinning = skinning;
        for (const fraction of [0, 0.37, 0.71]) {
          const time = duration * fraction;
          updateModelInstance(instance, clip, time);
          caster.invalidate();
          const ref = reference(model, clip, time, skinning);
          compareRays(model, instance, caster, ref, 40, seed++);
          compareMisses(instance, caster, ref, seed++);
        }
      }
    }, 60_000);
  }
});

describe('SkinnedRaycaster follows the pose', () => {
  it('a ray through the hand finds the newly posed surface, not the last pose, once invalidated', async () => {
    const model = await loadCharacter();
    const instance = createModelInstance(model);
    updateModelInstance(instance, 0, 0);
    const caster = new SkinnedRaycaster(model);
    const hand = findSlot(model, 'Hand.L');
    const wave = model.animations.findIndex((c) => c.name === 'Wave');
    const m = instance.nodeMatrices;
    // From in front (+Z) straight at the left hand, at the start of Walk.
    const o = [m[hand * 16 + 12], m[hand * 16 + 13], 5], d = [0, 0, -1];
    const hit = createRayHit();
    expect(caster.cast(instance, o, d, hit)).toBe(true);
    const rest = reference(model, 0, 0, 'linear');
    expect(hit.distance).toBeCloseTo(bruteForce(rest, o, d)!.t, 4);
    const restDistance = hit.distance;

    const time = model.animations[wave].duration * 0.25;
    updateModelInstance(instance, wave, time);
    // Not yet invalidated: the skinned vertices of the last pose are reused.
    expect(caster.cast(instance, o, d, hit)).toBe(true);
    expect(hit.distance).toBe(restDistance);
    caster.invalidate();
    const posed = reference(model, wave, time, 'linear');
    const expected = bruteForce(posed, o, d);
    const found = caster.cast(instance, o, d, hit);
    // The waving arm is raised: the ray now misses it (or meets something else further away).
    expect(found).toBe(expected !== undefined);
    if (expected) {
      expect(hit.distance).toBeCloseTo(expected.t, 4);
      expect(Math.abs(hit.distance - restDistance)).toBeGreaterThan(0.05);
    }
  });

  it('a placement moves and turns the hits with the instance, as renderInstances draws it', async () => {
    const model = await loadCharacter();
    const instance = createModelInstance(model);
    updateModelInstance(instance, 0, 0.4);
    const caster = new SkinnedRaycaster(model);
    const placement = composeTRS([3, 0.5, -2], [0, Math.sin(0.6), 0, Math.cos(0.6)], [1, 1, 1], new Float64Array(16));
    const o = [0.05, 1.2, 4], d = unit([0, -0.05, -1]);
    const plain = createRayHit(), placed = createRayHit();
    expect(caster.cast(instance, o, d, plain)).toBe(true);
    // The same ray carried by the placement.
    const tr = (p: number[], w: number) => [0, 1, 2].map((r) => placement[r] * p[0] + placement[4 + r] * p[1] + placement[8 + r] * p[2] + w * placement[12 + r]);
    expect(caster.cast(instance, tr(o, 1), tr(d, 0), placed, placement)).toBe(true);
    expect(placed.distance).toBeCloseTo(plain.distance, 6);
    const moved = tr([...plain.position], 1), turned = tr([...plain.normal], 0);
    for (let k = 0; k < 3; k++) {
      expect(placed.position[k]).toBeCloseTo(moved[k], 5);
      expect(placed.normal[k]).toBeCloseTo(turned[k], 5);
    }
    expect(placed.triangle).toBe(plain.triangle);
    // The untransformed ray now misses the moved character.
    expect(caster.cast(instance, o, d, createRayHit(), placement)).toBe(false);
  });

  it('maxDistance stops short of the surface; uv comes from TEXCOORD_0', async () => {
    const model = await loadAsset('CesiumMan');
    const instance = createModelInstance(model);
    updateModelInstance(instance, 0, 0.5);
    const caster = new SkinnedRaycaster(model);
    const ref = reference(model, 0, 0.5, 'linear');
    const center = ref.min.map((x, k) => (x + ref.max[k]) / 2);
    const o = [center[0] + 5, center[1], center[2]], d = [-1, 0, 0];
    const hit = createRayHit();
    expect(caster.cast(instance, o, d, hit)).toBe(true);
    expect(hit.hasUv).toBe(true);
    expect(hit.uv[0]).toBeGreaterThanOrEqual(0);
    expect(hit.uv[0]).toBeLessThanOrEqual(1);
    expect(caster.cast(instance, o, d, createRayHit(), null, hit.distance * 0.99)).toBe(false);
    expect(caster.cast(instance, o, d, createRayHit(), null, hit.distance * 1.01)).toBe(true);
  });

  it('surfacePoint follows a triangle point through the clip, as the bake skins it; hits name their vertices and weights', async () => {
    const model = await loadAsset('CesiumMan');
    const instance = createModelInstance(model);
    const caster = new SkinnedRaycaster(model);
    const pos = new Float64Array(3), normal = new Float64Array(3), hit = createRayHit();
    const next = random(7);
    for (const skinning of SKINNING_METHODS) {
      caster.skinning = skinning;
      for (const time of [0.1, 0.5, 0.9]) {
        updateModelInstance(instance, 0, time);
        caster.invalidate();
        const ref = reference(model, 0, time, skinning);
        const size = Math.hypot(ref.max[0] - ref.min[0], ref.max[1] - ref.min[1], ref.max[2] - ref.min[2]);
        for (let k = 0; k < 20; k++) {
          const { posed, triangles } = ref.prims[0];
          const t = Math.floor(next() * (triangles.length / 3)) * 3;
          const [a, b, c] = [triangles[t], triangles[t + 1], triangles[t + 2]];
          const w = [next(), next(), next()];
          const sum = w[0] + w[1] + w[2];
          const meshNode = model.meshNodes.findIndex((mn) => mn.node === posed.node);
          expect(caster.surfacePoint(instance, meshNode, posed.primitive, a, b, c, w[0] / sum, w[1] / sum, w[2] / sum, null, pos, normal)).toBe(true);
          const p = posed.positions;
          for (let r = 0; r < 3; r++) {
            const expected = (w[0] * p[a * 3 + r] + w[1] * p[b * 3 + r] + w[2] * p[c * 3 + r]) / sum;
            expect(Math.abs(pos[r] - expected)).toBeLessThan(size * 1e-5);
          }
          const face = unit(cross([0, 1, 2].map((r) => p[b * 3 + r] - p[a * 3 + r]), [0, 1, 2].map((r) => p[c * 3 + r] - p[a * 3 + r])));
          expect(dot([...normal], face)).toBeGreaterThan(0.9999);
        }
        // A hit reports its triangle's vertices and weights: they give the hit point back.
        const center = ref.min.map((x, i) => (x + ref.max[i]) / 2);
        expect(caster.cast(instance, [center[0], center[1], center[2] + 5], [0, 0, -1], hit)).toBe(true);
        const [a, b, c] = hit.vertices, [wa, wb, wc] = hit.barycentric;
        expect(wa + wb + wc).toBeCloseTo(1, 12);
        expect(caster.surfacePoint(instance, hit.meshNode, hit.primitive, a, b, c, wa, wb, wc, null, pos, normal)).toBe(true);
        for (let r = 0; r < 3; r++) expect(pos[r]).toBeCloseTo(hit.position[r], 5);
      }
    }
    const n = model.meshes[0].primitives[0].vertexCount;
    expect(caster.surfacePoint(instance, 0, 0, 0, 1, n, 1, 0, 0, null, pos, normal)).toBe(false);
    expect(caster.surfacePoint(instance, 0, 5, 0, 1, 2, 1, 0, 0, null, pos, normal)).toBe(false);
  });

  it('refuses an instance of another model', async () => {
    const caster = new SkinnedRaycaster(await loadCharacter());
    const other = createModelInstance(await loadAsset('SimpleSkin'));
    expect(() => caster.cast(other, [0, 0, 5], [0, 0, -1], createRayHit())).toThrow(/another model/);
  });

  it('casts without allocating', async () => {
    const model = await loadCharacter();
    const instance = createModelInstance(model);
    const caster = new SkinnedRaycaster(model);
    const hit = createRayHit();
    const o = Float64Array.of(0.1, 1.2, 4), d = Float64Array.of(0, 0, -1);
    updateModelInstance(instance, 0, 0.3);
    // A frame's part: the pose changed, every primitive the ray reaches is skinned again, two rays cast.
    const frame = (): void => {
      caster.invalidate();
      caster.cast(instance, o, d, hit);
      caster.cast(instance, o, d, hit);
    };
    const { rounds, clean } = await measureAllocation(frame, 300, 64 * 1024);
    expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
  });
});
