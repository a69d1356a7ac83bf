import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bakeModel } from '../../../src/bake/bake.ts';
import { toFloat32 } from '../../../src/gltf/accessors.ts';
import { encodeGlb } from '../../../src/gltf/builder.ts';
import { ComponentType, PrimitiveMode } from '../../../src/gltf/constants.ts';
import { GltfError } from '../../../src/gltf/errors.ts';
import { parseGlb } from '../../../src/gltf/glb.ts';
import type { Model, Primitive } from '../../../src/gltf/model.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { sharedAssets } from '../../support/assets.ts';
import { poses } from '../../support/compare-bakes.ts';
import { compressFile } from '../../support/compressed.ts';
import { sharedAccessorFixture } from '../../support/draco-shared-accessor.ts';

/**
 * Every shared asset's Draco variant (glTF-Transform's `draco()`: welded, then Edgebreaker or,
 * with morph targets, sequential encoding) loads and bakes like the original within Draco's
 * quantization. Draco reorders, merges and splits vertices, so vertices are matched, not
 * compared by index: each decoded vertex must have an original one with the same joints within
 * the quantization tolerances, each original vertex must have a decoded one, and every decoded
 * triangle must be an original triangle (same corners, same winding).
 */

const ASSETS = sharedAssets();

/**
 * glTF-Transform's default quantization bits (DRACO_DEFAULTS, the ones `compressed.ts` uses):
 * POSITION 14, NORMAL 10, TEX_COORD 12, GENERIC (weights) 12. Integer attributes (JOINTS_n,
 * normalized-integer weights) are never quantized by Draco: those must come out exact.
 */
const BITS = { position: 14, normal: 10, texcoord: 12, generic: 12 } as const;

/**
 * Draco quantizes an attribute on a grid over its bounding box: `range` is the largest
 * per-component extent, the step is range / (2^bits - 1), and a decoded value is within half
 * a step of the original. A relative 1e-6 is added for the float32 rounding of the
 * dequantization itself.
 */
function halfStep(values: ArrayLike<number>, components: number, bits: number): number {
  let range = 0;
  for (let c = 0; c < components; c++) {
    let lo = Infinity, hi = -Infinity;
    for (let i = c; i < values.length; i += components) { lo = Math.min(lo, values[i]); hi = Math.max(hi, values[i]); }
    range = Math.max(range, hi - lo);
  }
  return range / (2 ** bits - 1) / 2 + range * 1e-6 + 1e-7;
}

/**
 * Largest angle between a unit normal and its Draco decoding. Draco stores normals as
 * octahedral coordinates on a grid over [-1, 1] of step 2 / (2^bits - 2) (Draco's
 * OctahedronToolBox: max value 2^bits - 2), so a decoded point is at most √2/2 steps from
 * the encoded one in the octahedron's plane. Lifting the plane onto the octahedron's face
 * stretches lengths by at most √3, and projecting the face (at least 1/√3 from the centre)
 * onto the sphere by at most √3 more: at most 3 · √2/2 steps in all (sampling reaches 2.1
 * steps), plus float rounding.
 */
const NORMAL_TOLERANCE_RAD = (3 * Math.SQRT1_2 * 2) / (2 ** BITS.normal - 2) + 1e-5;

function angle(a: ArrayLike<number>, ai: number, b: ArrayLike<number>, bi: number): number {
  const dot = a[ai] * b[bi] + a[ai + 1] * b[bi + 1] + a[ai + 2] * b[bi + 2];
  const la = Math.hypot(a[ai], a[ai + 1], a[ai + 2]), lb = Math.hypot(b[bi], b[bi + 1], b[bi + 2]);
  return Math.acos(Math.min(1, Math.max(-1, dot / (la * lb))));
}

interface Tolerances {
  readonly position: number;
  readonly texcoord: number;
  readonly weight: number;
}

function tolerances(o: Primitive): Tolerances {
  const weights = o.weightSets[0];
  return {
    position: halfStep(o.positions, 3, BITS.position),
    texcoord: o.texcoords0 ? halfStep(o.texcoords0, 2, BITS.texcoord) : 0,
    // Integer weights are not quantized by Draco.
    weight: weights && weights.componentType === ComponentType.FLOAT ? halfStep(weights.array, 4, BITS.generic) : 0,
  };
}

/** How far decoded vertex d is from original vertex o, in units of the tolerances (≤ 1 matches); Infinity when joints differ. */
function distance(d: Primitive, dv: number, o: Primitive, ov: number, tol: Tolerances): number {
  if (d.influences !== o.influences) return Infinity;
  for (let set = 0; set < d.jointSets.length; set++) {
    const dj = d.jointSets[set].array, oj = o.jointSets[set].array;
    for (let c = 0; c < 4; c++) if (dj[dv * 4 + c] !== oj[ov * 4 + c]) return Infinity;
  }
  let worst = 0;
  for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(d.positions[dv * 3 + c] - o.positions[ov * 3 + c]) / tol.position);
  if (worst > 1) return worst;
  if (o.texcoords0) {
    for (let c = 0; c < 2; c++) worst = Math.max(worst, Math.abs(d.texcoords0![dv * 2 + c] - o.texcoords0[ov * 2 + c]) / tol.texcoord);
  }
  for (let set = 0; set < d.weightSets.length; set++) {
    const dw = toFloat32(d.weightSets[set]), ow = toFloat32(o.weightSets[set]);
    for (let c = 0; c < 4; c++) {
      const e = Math.abs(dw[dv * 4 + c] - ow[ov * 4 + c]);
      worst = Math.max(worst, tol.weight === 0 ? (e === 0 ? 0 : Infinity) : e / tol.weight);
    }
  }
  if (o.normals) worst = Math.max(worst, angle(d.normals!, dv * 3, o.normals, ov * 3) / NORMAL_TOLERANCE_RAD);
  return worst;
}

/**
 * The closest original of decoded vertex dv (into match[dv]; the first of equals) among `candidates`
 * (ascending indices), covering each one within 1; its distance.
 */
function matchVertex(d: Primitive, dv: number, o: Primitive, tol: Tolerances, covered: Uint8Array, match: Int32Array, candidates: ArrayLike<number>): number {
  let best = Infinity;
  for (let k = 0; k < candidates.length; k++) {
    const ov = candidates[k];
    const e = distance(d, dv, o, ov, tol);
    if (e <= 1) covered[ov] = 1;
    if (e < best) { best = e; match[dv] = ov; }
  }
  return best;
}

/**
 * The originals whose x is within tolerance of x (|x − ox| / tol ≤ 1, as distance() computes it),
 * ascending; `byX` holds the original indices sorted by x. That measure falls, then rises, along
 * the sorted x, so they are one run of byX around where x would sit.
 */
function nearInX(x: number, ox: (ov: number) => number, byX: Uint32Array, tol: number): Uint32Array {
  let lo = 0, hi = byX.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ox(byX[mid]) < x) lo = mid + 1; else hi = mid;
  }
  let first = lo, end = lo;
  while (first > 0 && Math.abs(x - ox(byX[first - 1])) / tol <= 1) first--;
  while (end < byX.length && Math.abs(x - ox(byX[end])) / tol <= 1) end++;
  return byX.slice(first, end).sort();
}

/**
 * For each decoded vertex, its original; checks that every original vertex the triangles use
 * is matched by some decoded one (Draco drops degenerate triangles, and vertices no remaining
 * triangle uses).
 */
function matchVertices(d: Primitive, o: Primitive, where: string): Int32Array {
  const tol = tolerances(o);
  const match = new Int32Array(d.vertexCount).fill(-1);
  const covered = new Uint8Array(o.vertexCount);
  if (o.indices) {
    // Only vertices that a triangle with three distinct corners uses need a match.
    covered.fill(1);
    const idx = o.indices;
    for (let t = 0; t + 2 < idx.length; t += 3) {
      if (idx[t] !== idx[t + 1] && idx[t + 1] !== idx[t + 2] && idx[t] !== idx[t + 2]) covered[idx[t]] = covered[idx[t + 1]] = covered[idx[t + 2]] = 0;
    }
  }
  // First only the originals whose x is within tolerance: distance() is at least that
  // component's error, so every other one is more than 1 away and can neither cover nor beat a
  // match within 1; the scan gives what the full one gives. Without a match (or with a NaN x
  // anywhere, which does not sort), the full scan.
  const ox = (ov: number) => o.positions[ov * 3];
  const all = Uint32Array.from({ length: o.vertexCount }, (_, ov) => ov);
  let sortable = !Number.isNaN(tol.position) && tol.position > 0;
  for (let ov = 0; ov < o.vertexCount && sortable; ov++) sortable = !Number.isNaN(ox(ov));
  const byX = all.slice().sort((a, b) => ox(a) - ox(b));
  for (let dv = 0; dv < d.vertexCount; dv++) {
    const x = d.positions[dv * 3];
    let best = sortable && !Number.isNaN(x) ? matchVertex(d, dv, o, tol, covered, match, nearInX(x, ox, byX, tol.position)) : Infinity;
    if (!(best <= 1)) best = matchVertex(d, dv, o, tol, covered, match, all);
    if (!(best <= 1)) expect.fail(`${where}: decoded vertex ${dv} matches no original vertex (closest is ${best.toFixed(2)} tolerances away)`);
  }
  for (let ov = 0; ov < o.vertexCount; ov++) {
    if (covered[ov]) continue;
    let found = false;
    for (let dv = 0; dv < d.vertexCount && !found; dv++) found = distance(d, dv, o, ov, tol) <= 1;
    if (!found) expect.fail(`${where}: original vertex ${ov} is missing from the decoded data`);
  }
  return match;
}

/** The triangles as winding-preserving keys of their corners' original positions; degenerate ones (which draw nothing, and Draco drops) left out. */
function triangleKeys(p: Primitive, corner: (v: number) => number, positions: Float32Array): string[] {
  const at = (v: number) => `${positions[v * 3]},${positions[v * 3 + 1]},${positions[v * 3 + 2]}`;
  const keys: string[] = [];
  const count = p.indices ? p.indices.length : p.vertexCount;
  for (let t = 0; t + 2 < count; t += 3) {
    const c = [0, 1, 2].map((k) => at(corner(p.indices ? p.indices[t + k] : t + k)));
    if (c[0] === c[1] || c[1] === c[2] || c[0] === c[2]) continue;
    const first = c.indexOf([...c].sort()[0]);
    keys.push([c[first], c[(first + 1) % 3], c[(first + 2) % 3]].join('|'));
  }
  return keys.sort();
}

async function loadOriginal(path: string): Promise<Model> {
  return loadGltf(new Uint8Array(readFileSync(path)), { resolveUri: async (uri) => new Uint8Array(readFileSync(join(dirname(path), uri))) });
}

describe('KHR_draco_mesh_compression: the shared assets’ Draco variants load and bake like the originals', () => {
  for (const asset of ASSETS) {
    it(asset.name, async () => {
      const original = await loadOriginal(asset.path);
      const draco = await loadGltf(await compressFile(asset.path, 'draco'));
      expect(draco.meshes.map((m) => m.primitives.length)).toEqual(original.meshes.map((m) => m.primitives.length));
      expect(draco.nodes.length).toBe(original.nodes.length);
      expect(draco.skins.map((s) => Array.from(s.joints))).toEqual(original.skins.map((s) => Array.from(s.joints)));
      expect(draco.animations.map((a) => a.name)).toEqual(original.animations.map((a) => a.name));
      // The same warnings, by path (counts of renormalised weights differ with the quantization):
      // in particular, no accessor the Draco data fills is reported unused.
      expect(draco.warnings.map((w) => w.path)).toEqual(original.warnings.map((w) => w.path));

      const matches = draco.meshes.map((mesh, m) => mesh.primitives.map((d, p) => {
        const o = original.meshes[m].primitives[p];
        const where = `${asset.name} meshes[${m}].primitives[${p}]`;
        expect(d.mode, where).toBe(o.mode);
        expect(d.influences, where).toBe(o.influences);
        expect(!!d.normals, where).toBe(!!o.normals);
        expect(!!d.texcoords0, where).toBe(!!o.texcoords0);
        expect(d.targets.length, where).toBe(o.targets.length);
        for (const set of d.jointSets) expect(set.array, `${where}: joints stay integers`).toSatisfy((a) => a instanceof Uint8Array || a instanceof Uint16Array);
        const match = matchVertices(d, o, where);
        expect(triangleKeys(d, (v) => match[v], o.positions), `${where}: triangles`).toEqual(triangleKeys(o, (v) => v, o.positions));
        return match;
      }));

      // Baked vertices: a matched pair differs by the quantization of its inputs carried
      // through the pose. Positions move by at most half a position step per component
      // (√3 of it in length) times the pose's scale, and each of the (up to 8) weights by
      // half a weight step, which moves the vertex by at most that times the distance
      // between the joint transforms' images of it, bounded by the posed primitive's
      // bounding-box diagonal. The shared assets' joints do not scale, so the pose's scale
      // is taken as that of the posed box relative to the rest box (2 for margin).
      for (const options of poses(original)) {
        const a = bakeModel(original, options), b = bakeModel(draco, options);
        expect(b.primitives.map((p) => [p.node, p.mesh, p.primitive])).toEqual(a.primitives.map((p) => [p.node, p.mesh, p.primitive]));
        a.primitives.forEach((ap, i) => {
          const bp = b.primitives[i];
          const o = original.meshes[ap.mesh].primitives[ap.primitive];
          const tol = tolerances(o);
          const posed = boxDiagonal(ap.positions), rest = boxDiagonal(o.positions) || 1;
          const limit = 2 * (Math.sqrt(3) * tol.position * (posed / rest) + o.influences * tol.weight * posed) + posed * 1e-6;
          const match = matches[ap.mesh][ap.primitive];
          let worst = 0, worstNormal = 0;
          for (let v = 0; v < bp.vertexCount; v++) {
            const ov = match[v];
            worst = Math.max(worst, Math.hypot(bp.positions[v * 3] - ap.positions[ov * 3], bp.positions[v * 3 + 1] - ap.positions[ov * 3 + 1], bp.positions[v * 3 + 2] - ap.positions[ov * 3 + 2]));
            if (ap.normals) worstNormal = Math.max(worstNormal, angle(bp.normals!, v * 3, ap.normals, ov * 3));
          }
          const where = `${asset.name} node ${ap.node} mesh ${ap.mesh} primitive ${ap.primitive}, clip ${options.animation ?? '-'} t=${options.time}`;
          expect(worst, `${where}: position error`).toBeLessThanOrEqual(limit);
          // Normals: the normal's own quantization plus what the weights' turns the blend by (2 for margin).
          expect(worstNormal, `${where}: normal error (rad)`).toBeLessThanOrEqual(2 * (NORMAL_TOLERANCE_RAD + o.influences * tol.weight * Math.PI));
        });
      }
    }, 120_000);
  }
});

function boxDiagonal(positions: ArrayLike<number>): number {
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i++) { lo[i % 3] = Math.min(lo[i % 3], positions[i]); hi[i % 3] = Math.max(hi[i % 3], positions[i]); }
  return Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

describe('KHR_draco_mesh_compression: damaged, lying and shared data', () => {
  const PATH = 'meshes[0].primitives[0]';
  const EXT = `${PATH}.extensions.KHR_draco_mesh_compression`;
  // The Fox: one skinned primitive, all of it Draco data.
  const fox = () => compressFile(ASSETS.find((a) => a.name === 'Fox')!.path, 'draco');

  /** The GLB with its JSON (and BIN) edited. */
  async function edited(edit: (json: any, bin: Uint8Array) => void): Promise<Uint8Array> {
    const { json, bin } = parseGlb(await fox());
    const copy = new Uint8Array(bin!);
    const j = structuredClone(json) as any;
    edit(j, copy);
    return encodeGlb(j, copy);
  }

  const view = (json: any, bin: Uint8Array): Uint8Array => {
    const v = json.bufferViews[json.meshes[0].primitives[0].extensions.KHR_draco_mesh_compression.bufferView];
    return bin.subarray(v.byteOffset ?? 0, (v.byteOffset ?? 0) + v.byteLength);
  };

  async function expectError(bytes: Uint8Array, path: string, message: RegExp): Promise<void> {
    const error = await loadGltf(bytes).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(GltfError);
    expect((error as GltfError).path).toBe(path);
    expect((error as GltfError).problem).toMatch(message);
  }

  it('a zeroed stream is a GltfError naming the extension', async () => {
    await expectError(await edited((j, bin) => view(j, bin).fill(0)), EXT, /cannot be decoded/);
  });

  it('a truncated stream is a GltfError naming the extension', async () => {
    await expectError(await edited((j) => { j.bufferViews[j.meshes[0].primitives[0].extensions.KHR_draco_mesh_compression.bufferView].byteLength = 40; }), EXT, /Draco/);
  });

  it('an accessor whose count disagrees with the decoded data is a GltfError naming it', async () => {
    const { json } = parseGlb(await fox()) as { json: any };
    const position = json.meshes[0].primitives[0].attributes.POSITION;
    await expectError(await edited((j) => { j.accessors[position].count += 1; }), `accessors[${position}].count`, /decodes to 434 vertices/);
    const indices = json.meshes[0].primitives[0].indices;
    await expectError(await edited((j) => { j.accessors[indices].count -= 3; }), `accessors[${indices}].count`, /triangles/);
  });

  it('bytes flipped anywhere in the stream load sanely or give a GltfError, never anything else', async () => {
    // Draco streams carry no checksum: a flip may decode to other valid data (which must
    // still have the declared counts), but most are caught.
    const original = await fox();
    const { json, bin } = parseGlb(original) as { json: any; bin: Uint8Array };
    const length = view(json, bin).byteLength;
    let refused = 0;
    for (let k = 0; k < 48; k++) {
      const at = Math.floor((k * length) / 48);
      const bytes = await edited((j, b) => { view(j, b)[at] ^= 1 << (k % 8); });
      try {
        const model = await loadGltf(bytes);
        const p = model.meshes[0].primitives[0];
        expect(p.positions.length).toBe(434 * 3);
        expect(p.indices!.every((i) => i < p.vertexCount)).toBe(true);
      } catch (e) {
        expect(e, `flip at byte ${at}`).toBeInstanceOf(GltfError);
        expect((e as GltfError).path).toMatch(/^(meshes\[0\]\.primitives\[0\]|accessors\[\d+\])/);
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(0);
  });

  it('two meshes sharing one compressed primitive decode it once and share the result', async () => {
    const model = await loadGltf(await edited((j) => {
      j.meshes.push(structuredClone(j.meshes[0]));
      j.nodes.push({ mesh: j.meshes.length - 1 });
      j.scenes[0].nodes.push(j.nodes.length - 1);
    }));
    const [a, b] = [model.meshes[0].primitives[0], model.meshes[1].primitives[0]];
    expect(b.positions).toBe(a.positions);
    expect(b.joints).toBe(a.joints);
    expect(b.indices).toBe(a.indices);
  });

  it('a TRIANGLE_STRIP primitive comes out as the triangle list Draco decodes to', async () => {
    const list = (await loadGltf(await fox())).meshes[0].primitives[0];
    const strip = (await loadGltf(await edited((j) => { j.meshes[0].primitives[0].mode = PrimitiveMode.TRIANGLE_STRIP; }))).meshes[0].primitives[0];
    expect(strip.mode).toBe(PrimitiveMode.TRIANGLES);
    expect(Array.from(strip.indices!)).toEqual(Array.from(list.indices!));
  });
});

describe('KHR_draco_mesh_compression: one accessor named for TEXCOORD_0…3 (gltfpack / glTF-Transform 3.0 output)', () => {
  // test/support/draco-shared-accessor.ts: the limb, Draco-compressed with four UV sets, its
  // four TEXCOORD_n rewritten to name one accessor; the twin is the same Draco stream decoded
  // by glTF-Transform and stored uncompressed.
  const fixture = sharedAccessorFixture();

  it('has the shape: one accessor for four attributes that the Draco map decodes separately', async () => {
    const { json } = parseGlb((await fixture).draco) as { json: any };
    const prim = json.meshes[0].primitives[0];
    const named = [0, 1, 2, 3].map((k) => prim.attributes[`TEXCOORD_${k}`]);
    expect(new Set(named).size).toBe(1);
    const ids = [0, 1, 2, 3].map((k) => prim.extensions.KHR_draco_mesh_compression.attributes[`TEXCOORD_${k}`]);
    expect(new Set(ids).size).toBe(4);
  });

  it('loads each attribute as its own Draco data, exactly like the decoded twin, with the same warnings', async () => {
    const { draco, twin } = await fixture;
    const [got, want] = await Promise.all([loadGltf(draco), loadGltf(twin)]);
    // By path: accessor numbers differ (the shared file has three fewer).
    expect(got.warnings.map((w) => w.path)).toEqual(want.warnings.map((w) => w.path));
    const a = got.meshes[0].primitives[0], b = want.meshes[0].primitives[0];
    // The sets differ, so reading TEXCOORD_0's data for all four would fail here.
    expect(Array.from(b.texcoords1!)).not.toEqual(Array.from(b.texcoords0!));
    for (const key of ['positions', 'normals', 'texcoords0', 'texcoords1', 'joints', 'weights', 'indices'] as const) {
      expect(Array.from(a[key]!), key).toEqual(Array.from(b[key]!));
    }
  });

  it('bakes like the decoded twin at every clip’s start, middle and end', async () => {
    const { draco, twin } = await fixture;
    const [got, want] = await Promise.all([loadGltf(draco), loadGltf(twin)]);
    for (const options of poses(want)) {
      const a = bakeModel(got, options), b = bakeModel(want, options);
      expect(a.primitives.length).toBe(b.primitives.length);
      a.primitives.forEach((p, i) => {
        expect(Array.from(p.positions), `clip ${options.animation} t=${options.time}`).toEqual(Array.from(b.primitives[i].positions));
        expect(Array.from(p.normals!)).toEqual(Array.from(b.primitives[i].normals!));
      });
    }
  });
});
