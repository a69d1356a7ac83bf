import { describe, expect, it } from 'vitest';
import { loadGltfFile } from '../../../src/cli/load-file.ts';
import { bakeModel, morphForBake, poseForBake, type BakeOptions } from '../../../src/bake/bake.ts';
import { ComponentType } from '../../../src/gltf/constants.ts';
import { KHR_MESH_QUANTIZATION } from '../../../src/gltf/extensions/khr-mesh-quantization.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import type { Model, Primitive } from '../../../src/gltf/model.ts';
import { sharedAssets, type AssetFile } from '../../support/assets.ts';
import { diagonal } from '../../support/compare-bakes.ts';
import { buildQuantizedQuad, QUANTIZED_QUAD } from '../../support/quantized-fixture.ts';
import { weldPrimitive } from '../../../src/gltf/topology.ts';
import { compressFile, type CompressedVariant } from '../../support/compressed.ts';
import { expectEach } from '../../support/expect-each.ts';

/**
 * KHR_mesh_quantization (with and without EXT_meshopt_compression) on every shared asset:
 * the glTF-Transform variants load, keep their integer accessors for the GPU, and pose to
 * the same world-space vertices as the float originals within the quantization step.
 *
 * Tolerances, from glTF-Transform's defaults (quantize(): POSITION 14 bits, NORMAL 10,
 * WEIGHTS 8; meshopt() 'high': NORMAL 8 bits, octahedral) over each mesh's own bounding
 * box ('mesh' quantization volume):
 * - A b-bit signed normalized component has a spacing of 1/(2^(b-1) − 1) over [−1, 1],
 *   which spans the box's extent on that axis, so rounding moves a coordinate by at most
 *   extent/(4·(2^(b-1) − 1)); over three axes at most diagonal·√3/(4·(2^(b-1) − 1)).
 *   Skinning and node transforms scale that with the mesh (we measure against the posed
 *   original's diagonal). glTF-Transform shifts 14-bit values into 16 bits, which biases the
 *   decoded scale by up to one 14-bit step, so we allow a whole step (twice the rounding bound).
 * - The quantization volume also holds every morph target's extreme (base + delta), so the
 *   step grows by (that volume's diagonal / the base positions' diagonal), in mesh space.
 * - Morph target deltas share the positions' quantization scale (the node transform applies
 *   to the morphed sum), so each target adds its weight times the same step: × (1 + Σ|wₜ|).
 * - Quantized weights (8 bits) move a skinned vertex by Σ|Δwᵢ|·|Mᵢv − M̄v|: each weight is off
 *   by at most 0.5/255 (then renormalised), and the joints' transforms of one vertex differ by
 *   at most the posed diagonal, so ≤ 4 influences · 0.5/255 · diagonal.
 * - meshopt() also compresses the animation: translations and scales with the EXPONENTIAL
 *   filter at 12 bits (relative error ≤ 2^-11 per component), rotations with QUATERNION at
 *   16 bits (negligible here). A node's world origin then drifts by ≤ 2^-11 × the length of
 *   its chain of parent-to-child offsets, and a vertex by ≤ 2^-11 × its distance from that
 *   origin more (scale): ≤ 2^-11 × (longest chain + diagonal).
 * - meshopt() also reorders vertices (cache and fetch order), so for that variant every
 *   vertex must find a partner of the original within the tolerance (and the reverse),
 *   instead of comparing vertex i with vertex i.
 */
const POSITION_BITS = 14;
const WEIGHT_BITS = 8;
const INFLUENCES = 4;
const positionStep = (diag: number) => 2 * (diag * Math.sqrt(3)) / (4 * (2 ** (POSITION_BITS - 1) - 1));
const weightStep = (diag: number) => INFLUENCES * (0.5 / (2 ** WEIGHT_BITS - 1)) * diag;

const ASSETS = sharedAssets();
const VARIANTS: readonly CompressedVariant[] = ['meshopt', 'quantized'];

/** Each original loads once per file; both variants compare against it (nothing here changes a Model). */
const originalCache = new Map<string, Promise<Model>>();
function original(asset: AssetFile): Promise<Model> {
  if (!originalCache.has(asset.path)) originalCache.set(asset.path, loadGltfFile(asset.path));
  return originalCache.get(asset.path)!;
}

/** World-space positions of every primitive of the scene (skinned by bakeModel, rigid by node matrix and morphs). */
const ANIMATION_RELATIVE_ERROR = 2 ** -11;

/** Longest sum of parent-to-child world offsets from a root to any node, at this pose. */
function longestChain(model: Model, options: BakeOptions): number {
  const m = poseForBake(model, options).nodeMatrices;
  const h = model.hierarchy;
  const chain = new Float64Array(h.count);
  let longest = 0;
  for (let s = 0; s < h.count; s++) {
    const p = h.parentSlot[s];
    if (p < 0) continue;
    chain[s] = chain[p] + Math.hypot(m[s * 16 + 12] - m[p * 16 + 12], m[s * 16 + 13] - m[p * 16 + 13], m[s * 16 + 14] - m[p * 16 + 14]);
    longest = Math.max(longest, chain[s]);
  }
  return longest;
}

interface Posed {
  readonly key: string;
  readonly skinned: boolean;
  readonly positions: Float64Array;
  /** Σ|wₜ| of the node's morph weights at this pose. */
  readonly morph: number;
  /** Diagonal of the quantization volume (base and base + each target) over the base's, in mesh space. */
  readonly volume: number;
}

function volumeRatio(prim: Primitive): number {
  const box = (withTargets: boolean): number => {
    const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    const add = (x: number, c: number) => { lo[c] = Math.min(lo[c], x); hi[c] = Math.max(hi[c], x); };
    for (let i = 0; i < prim.positions.length; i++) {
      add(prim.positions[i], i % 3);
      if (withTargets) for (const t of prim.targets) if (t.positions) add(prim.positions[i] + t.positions[i], i % 3);
    }
    return Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
  };
  return box(true) / (box(false) || 1);
}

function posedPositions(model: Model, options: BakeOptions): Posed[] {
  const out: Posed[] = [];
  const posed = poseForBake(model, options);
  const morphSum = (node: number): number => {
    const slot = model.hierarchy.slotOf[node];
    const { weights, weightOffsets } = posed.pose;
    let sum = 0;
    for (let i = weightOffsets[slot]; i < weightOffsets[slot + 1]; i++) sum += Math.abs(weights[i]);
    return sum;
  };
  // By mesh (quantize() may move a mesh onto a new child node holding the dequantization transform).
  const keyOf = (node: number, p: number) => {
    const mesh = model.nodes[node].mesh;
    return `${model.meshes[mesh].name ?? `#${mesh}`}/${p}`;
  };
  for (const p of bakeModel(model, options).primitives) {
    const prim = model.meshes[p.mesh].primitives[p.primitive];
    out.push({ key: keyOf(p.node, p.primitive), skinned: true, positions: p.positions, morph: morphSum(p.node), volume: volumeRatio(prim) });
  }
  for (const mn of model.meshNodes) {
    if (mn.skin >= 0) continue;
    const m = posed.nodeMatrices.subarray(model.hierarchy.slotOf[mn.node] * 16);
    model.meshes[mn.mesh].primitives.forEach((prim, pi) => {
      const src = morphForBake(model, posed, mn.node, prim).positions;
      const positions = new Float64Array(prim.vertexCount * 3);
      for (let v = 0; v < prim.vertexCount; v++) {
        const x = src[v * 3], y = src[v * 3 + 1], z = src[v * 3 + 2];
        for (let r = 0; r < 3; r++) positions[v * 3 + r] = m[r] * x + m[4 + r] * y + m[8 + r] * z + m[12 + r];
      }
      out.push({ key: keyOf(mn.node, pi), skinned: false, positions, morph: morphSum(mn.node), volume: volumeRatio(prim) });
    });
  }
  return out.sort((a, b) => a.key.localeCompare(b.key, 'en', { numeric: true }));
}

/**
 * Largest distance from a vertex of `a` to its nearest vertex of `b`, through a grid of `cell`-sized buckets.
 * A bucket's key numbers its cell within the cells both point sets span, one more on each side
 * (every neighbour looked up), so distinct cells never share a key.
 */
function farthestUnmatched(a: Float64Array, b: Float64Array, cell: number): number {
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (const points of [a, b]) for (let i = 0; i < points.length; i++) {
    const c = Math.floor(points[i] / cell);
    lo[i % 3] = Math.min(lo[i % 3], c - 1);
    hi[i % 3] = Math.max(hi[i % 3], c + 1);
  }
  const spanY = hi[1] - lo[1] + 1, spanZ = hi[2] - lo[2] + 1;
  if ((hi[0] - lo[0] + 1) * spanY * spanZ > Number.MAX_SAFE_INTEGER) throw new Error(`farthestUnmatched: too many cells of ${cell}`);
  const cellKey = (cx: number, cy: number, cz: number) => ((cx - lo[0]) * spanY + (cy - lo[1])) * spanZ + (cz - lo[2]);
  const grid = new Map<number, number[]>();
  const keyOf = (x: number, y: number, z: number) => cellKey(Math.floor(x / cell), Math.floor(y / cell), Math.floor(z / cell));
  for (let v = 0; v < b.length / 3; v++) {
    const k = keyOf(b[v * 3], b[v * 3 + 1], b[v * 3 + 2]);
    let list = grid.get(k);
    if (!list) grid.set(k, (list = []));
    list.push(v);
  }
  let worst = 0;
  for (let v = 0; v < a.length / 3; v++) {
    const x = a[v * 3], y = a[v * 3 + 1], z = a[v * 3 + 2];
    const cx = Math.floor(x / cell), cy = Math.floor(y / cell), cz = Math.floor(z / cell);
    let best = Infinity;
    for (let dx = -1; dx <= 1; dx++) for (let dy = -1; dy <= 1; dy++) for (let dz = -1; dz <= 1; dz++) {
      for (const u of grid.get(cellKey(cx + dx, cy + dy, cz + dz)) ?? []) {
        best = Math.min(best, Math.hypot(b[u * 3] - x, b[u * 3 + 1] - y, b[u * 3 + 2] - z));
      }
    }
    // Nothing in the neighbouring cells: the real distance, for the failure message.
    if (best === Infinity) for (let u = 0; u < b.length / 3; u++) best = Math.min(best, Math.hypot(b[u * 3] - x, b[u * 3 + 1] - y, b[u * 3 + 2] - z));
    worst = Math.max(worst, best);
  }
  return worst;
}

/** The clip poses compared: each clip's start and a time between keys (rest pose without clips). */
function posesOf(model: Model): BakeOptions[] {
  if (model.animations.length === 0) return [{}];
  return model.animations.slice(0, 3).flatMap((clip, c) => [0, clip.duration * 0.37].map((time) => ({ animation: c, time })));
}

/** The original's posed positions, computed once per asset and pose for both variants. */
const originalPosedCache = new Map<string, Posed[]>();
function originalPosed(asset: AssetFile, base: Model, options: BakeOptions): Posed[] {
  const key = `${asset.path}:${JSON.stringify(options)}`;
  if (!originalPosedCache.has(key)) originalPosedCache.set(key, posedPositions(base, options));
  return originalPosedCache.get(key)!;
}

const variantCache = new Map<string, Promise<Model>>();
function variantModel(asset: AssetFile, variant: CompressedVariant): Promise<Model> {
  const key = `${asset.name}:${variant}`;
  if (!variantCache.has(key)) variantCache.set(key, compressFile(asset.path, variant).then((glb) => loadGltf(glb, { name: asset.name })));
  return variantCache.get(key)!;
}

describe('KHR_mesh_quantization variants of the shared assets', () => {
  it('is a registered extension name', () => {
    expect(KHR_MESH_QUANTIZATION).toBe('KHR_mesh_quantization');
  });

  for (const asset of ASSETS) {
    for (const variant of VARIANTS) {
      it(`${asset.name}, ${variant}: loads, keeps integer attributes, and poses like the original within the quantization step`, async () => {
        const [base, quantized] = await Promise.all([original(asset), variantModel(asset, variant)]);
        // Every primitive with a quantized POSITION keeps its integer accessor for the GPU,
        // and its float positions are exactly that accessor's dequantized values.
        let kept = 0;
        for (const mesh of quantized.meshes) for (const p of mesh.primitives) {
          const q = p.quantized?.POSITION;
          if (!q) continue;
          kept++;
          expect(q.componentType).toBe(ComponentType.SHORT);
          expect(q.normalized).toBe(true);
          // Each value compared as toBe compares (Object.is), with one expect for them all.
          expectEach(q.count * 3, 'positions are the dequantized integers', (i) => {
            const want = Math.fround(Math.max(q.array[i] / 32767, -1));
            return Object.is(p.positions[i], want) ? undefined : `${p.positions[i]}, dequantized ${want}`;
          });
        }
        expect(kept).toBeGreaterThan(0);

        for (const options of posesOf(base)) {
          const want = originalPosed(asset, base, options);
          const got = posedPositions(quantized, options);
          const chain = variant === 'meshopt' && base.animations.length > 0 ? longestChain(base, options) : -1;
          expect(got.map((p) => [p.key, p.positions.length])).toEqual(want.map((p) => [p.key, p.positions.length]));
          want.forEach((w, i) => {
            const g = got[i];
            const diag = diagonal(w.positions) || 1;
            const tolerance = positionStep(diag * w.volume) * (1 + w.morph) + (w.skinned ? weightStep(diag) : 0)
              + (chain >= 0 ? ANIMATION_RELATIVE_ERROR * (chain + diag) : 0);
            const where = `${JSON.stringify(options)} primitive ${w.key}`;
            if (variant === 'quantized') {
              let worst = 0;
              for (let v = 0; v < w.positions.length / 3; v++) {
                const o = v * 3;
                worst = Math.max(worst, Math.hypot(g.positions[o] - w.positions[o], g.positions[o + 1] - w.positions[o + 1], g.positions[o + 2] - w.positions[o + 2]));
              }
              expect(worst, where).toBeLessThanOrEqual(tolerance);
            } else {
              expect(farthestUnmatched(g.positions, w.positions, tolerance), `${where}, variant → original`).toBeLessThanOrEqual(tolerance);
              expect(farthestUnmatched(w.positions, g.positions, tolerance), `${where}, original → variant`).toBeLessThanOrEqual(tolerance);
            }
          });
        }
      });
    }
  }
});

describe('KHR_mesh_quantization: the types glTF-Transform does not write', () => {
  it('reads unnormalized integers as plain values and normalized ones by the glTF formulas, and keeps them for the GPU', async () => {
    const q = QUANTIZED_QUAD;
    const model = await loadGltf(buildQuantizedQuad());
    expect(model.warnings).toEqual([]);
    const p = model.meshes[0].primitives[0];
    expect(Array.from(p.positions)).toEqual(Array.from(q.positions));
    expect(Array.from(p.normals!)).toEqual(Array.from(q.normals, (c) => Math.fround(c / 127)));
    expect(Array.from(p.tangents!)).toEqual(Array.from(q.tangents, (c) => Math.fround(Math.max(c / 32767, -1))));
    expect(Array.from(p.texcoords0!)).toEqual(Array.from(q.texcoords));
    expect(Array.from(p.targets[0].positions!)).toEqual(Array.from(q.deltas));
    expect(Object.keys(p.quantized!).sort()).toEqual(['NORMAL', 'POSITION', 'TANGENT', 'TEXCOORD_0']);
    expect(p.quantized!.POSITION!.normalized).toBe(false);

    // The rest pose in world space: the node's scale dequantizes, the morph weight 0.5 applies.
    const [posed] = posedPositions(model, {});
    const want = Array.from(q.positions, (c, i) => (c + 0.5 * q.deltas[i]) * q.nodeScale);
    posed.positions.forEach((x, i) => expect(x).toBeCloseTo(want[i], 6));
  });

  it('welding a non-indexed primitive compacts the kept integer accessors with the floats', async () => {
    const model = await loadGltf(buildQuantizedQuad());
    // Morph targets stop welding (their deltas are per file vertex), so weld a copy without them.
    const p = { ...model.meshes[0].primitives[0], targets: [] };
    const welded = weldPrimitive(p);
    expect(welded.vertexCount).toBe(4);
    for (const [name, floats] of [['POSITION', welded.positions], ['NORMAL', welded.normals], ['TEXCOORD_0', welded.texcoords0]] as const) {
      const kept = welded.quantized![name]!;
      expect(kept.count, name).toBe(4);
      expect(kept.array.length, name).toBe(floats!.length);
    }
    expect(Array.from(welded.quantized!.POSITION!.array)).toEqual(Array.from(welded.positions));
  });
});
