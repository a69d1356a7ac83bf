/**
 * The built-in character's trousers where they meet the belt and where the legs meet the seat,
 * skinned on the CPU in poses through all its clips, not only at rest: skinning is what opens
 * seams. Issue 27's review saw the legs' round tops poke out of the hips and through the belt's
 * lower edge, and the torso end in a dome that showed between the thighs as a dark V.
 */
import { describe, expect, it } from 'vitest';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Model, Primitive } from '../../src/gltf/model.ts';
import { createPose, setRestPose } from '../../src/anim/pose.ts';
import { localToModel } from '../../src/anim/local-to-model.ts';
import { skinPalette } from '../../src/anim/palette.ts';
import { createClipCursor, sampleClip } from '../../src/anim/sample.ts';
import { createSkinnedVertices, skinPrimitive } from '../../src/skin/cpu-skin.ts';

type V3 = [number, number, number];

const model = await loadGltf(buildBuiltinGlb('character'), { name: 'character' });
const meshNode = model.meshNodes.find((m) => m.skin >= 0)!;
const primitiveOf = (material: string): Primitive => model.meshes[meshNode.mesh].primitives.find((p) => model.materials[p.material].name === material)!;
const denim = primitiveOf('Denim');
const leather = primitiveOf('Leather');

/** Poses to check: rest, and every clip at 12 times over its length. */
const POSES: { name: string; clip: number | undefined; time: number }[] = [
  { name: 'rest', clip: undefined, time: 0 },
  ...model.animations.flatMap((clip, c) => Array.from({ length: 12 }, (_, k) => ({ name: `${clip.name} ${((clip.duration * k) / 12).toFixed(2)} s`, clip: c, time: (clip.duration * k) / 12 }))),
];

/** The primitive's vertex positions in a pose (float64 skinning). */
function posed(m: Model, prim: Primitive, clip: number | undefined, time: number): Float64Array {
  const pose = createPose(m);
  setRestPose(m, pose);
  if (clip !== undefined) sampleClip(createClipCursor(m.animations[clip]), time, pose);
  const world = localToModel(m.hierarchy, pose, new Float64Array(m.hierarchy.count * 16));
  const skin = m.skins[meshNode.skin];
  const palette = new Float64Array(skin.joints.length * 16);
  skinPalette(skin, world, m.hierarchy.slotOf[meshNode.node], palette, 0);
  const out = createSkinnedVertices(prim, 'float64');
  skinPrimitive(prim, palette, out);
  return out.positions as Float64Array;
}

const at = (p: ArrayLike<number>, v: number): V3 => [p[3 * v], p[3 * v + 1], p[3 * v + 2]];

/** The primitive's separate pieces (vertex sets joined by triangles), each as its triangles and its used vertices. */
function pieces(prim: Primitive): { triangles: number[]; vertices: number[] }[] {
  const indices = prim.indices!;
  const root = Array.from({ length: prim.vertexCount }, (_, i) => i);
  const find = (v: number): number => (root[v] === v ? v : (root[v] = find(root[v])));
  for (let i = 0; i < indices.length; i++) root[find(indices[i])] = find(indices[i - (i % 3)]);
  const byRoot = new Map<number, { triangles: number[]; vertices: Set<number> }>();
  for (let i = 0; i < indices.length; i += 3) {
    const r = find(indices[i]);
    const piece = byRoot.get(r) ?? { triangles: [], vertices: new Set<number>() };
    byRoot.set(r, piece);
    for (let k = 0; k < 3; k++) { piece.triangles.push(indices[i + k]); piece.vertices.add(indices[i + k]); }
  }
  return [...byRoot.values()].map((p) => ({ triangles: p.triangles, vertices: [...p.vertices] }));
}

/** How many of `triangles` (over `positions`) the ray from `origin` along `dir` crosses (Möller–Trumbore). */
function crossings(positions: ArrayLike<number>, triangles: readonly number[], origin: V3, dir: V3): number {
  let n = 0;
  for (let i = 0; i < triangles.length; i += 3) {
    const [a, b, c] = [at(positions, triangles[i]), at(positions, triangles[i + 1]), at(positions, triangles[i + 2])];
    const e1 = sub(b, a), e2 = sub(c, a);
    const p = cross(dir, e2);
    const det = dot(e1, p);
    if (Math.abs(det) < 1e-14) continue;
    const s = sub(origin, a);
    const u = dot(s, p) / det;
    if (u < 0 || u > 1) continue;
    const q = cross(s, e1);
    const v = dot(dir, q) / det;
    if (v < 0 || u + v > 1) continue;
    if (dot(e2, q) / det > 1e-9) n++;
  }
  return n;
}

/**
 * How steeply the rays of `outside` climb: a ray level with a ring of the outer surface would run
 * along the edges its triangles share, and cross two or none.
 */
const RAY_CLIMB = 0.05;

/**
 * The vertices of `inner` (by index into `innerPositions`) that are outside the closed-enough surface
 * `outer`: a ray from each, away from the vertical line through `centre` and a little upwards, crosses it an even number of times.
 */
function outside(innerPositions: ArrayLike<number>, inner: readonly number[], outerPositions: ArrayLike<number>, outer: readonly number[], centre: V3): number[] {
  return inner.filter((v) => {
    const p = at(innerPositions, v);
    const d: V3 = [p[0] - centre[0], 0, p[2] - centre[2]];
    const l = Math.hypot(d[0], d[2]) * Math.hypot(1, RAY_CLIMB);
    return crossings(outerPositions, outer, p, [d[0] / l, RAY_CLIMB / Math.hypot(1, RAY_CLIMB), d[2] / l]) % 2 === 0;
  });
}

const mean = (p: ArrayLike<number>, vs: readonly number[]): V3 => {
  const s: V3 = [0, 0, 0];
  for (const v of vs) for (let c = 0; c < 3; c++) s[c] += p[3 * v + c] / vs.length;
  return s;
};

describe('builtin character: the trousers under the belt and the legs under the seat, in every pose', () => {
  const rest = denim.positions;
  const denimPieces = pieces(denim);
  // The seat is the torso's trousers (crotch to waistline), the one piece across the middle; the legs are the rest.
  const seat = denimPieces.find((p) => p.vertices.some((v) => rest[3 * v] > 0.05) && p.vertices.some((v) => rest[3 * v] < -0.05))!;
  const legs = denimPieces.filter((p) => p !== seat);
  const seatBottom = Math.min(...seat.vertices.map((v) => rest[3 * v + 1]));
  const seatTop = Math.max(...seat.vertices.map((v) => rest[3 * v + 1]));
  // The belt: the Leather piece round the waist (the others are the shoes' uppers).
  const belt = pieces(leather).find((p) => p.vertices.every((v) => leather.positions[3 * v + 1] > 0.8))!;
  const beltBottom = Math.min(...belt.vertices.map((v) => leather.positions[3 * v + 1]));
  const beltTop = Math.max(...belt.vertices.map((v) => leather.positions[3 * v + 1]));

  it('finds the seat, two legs and the belt', () => {
    expect(legs).toHaveLength(2);
    expect(belt).toBeDefined();
    expect(seatTop).toBeGreaterThan(beltBottom);
  });

  it('keeps every piece of denim at the belt’s height inside the belt', () => {
    // Denim at rest between the belt's lower and upper edges: the seat's top and anything of the legs.
    const under = denimPieces.flatMap((p) => p.vertices).filter((v) => rest[3 * v + 1] > beltBottom + 0.004 && rest[3 * v + 1] < beltTop - 0.004);
    expect(under.length).toBeGreaterThan(20);
    const failures: string[] = [];
    for (const { name, clip, time } of POSES) {
      const d = posed(model, denim, clip, time), l = posed(model, leather, clip, time);
      const out = outside(d, under, l, belt.triangles, mean(l, belt.vertices));
      if (out.length > 0) failures.push(`${name}: ${out.length} vertices, e.g. rest ${at(rest, out[0]).map((x) => x.toFixed(3)).join(' ')}`);
    }
    expect(failures).toEqual([]);
  });

  it('keeps the legs’ tops inside the seat, from the crotch to the waistline', () => {
    const failures: string[] = [];
    for (const leg of legs) {
      const covered = leg.vertices.filter((v) => rest[3 * v + 1] > seatBottom + 0.015 && rest[3 * v + 1] < seatTop - 0.005);
      expect(covered.length).toBeGreaterThan(20);
      for (const { name, clip, time } of POSES) {
        const d = posed(model, denim, clip, time);
        const out = outside(d, covered, d, seat.triangles, mean(d, seat.vertices));
        if (out.length > 0) failures.push(`${name}: ${out.length} vertices, e.g. rest ${at(rest, out[0]).map((x) => x.toFixed(3)).join(' ')}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('ends the seat round the thighs, where the legs come out, not in a dome between them', () => {
    // The seat's lowest ring (above the pole that closes it), as a closed outline seen from above.
    const ringY = Math.min(...seat.vertices.map((v) => rest[3 * v + 1]).filter((y) => y > seatBottom + 1e-4));
    const outline = (vs: readonly number[], y: number) => vs.filter((v) => Math.abs(rest[3 * v + 1] - y) < 1e-5).sort((a, b) => a - b).map((v): [number, number] => [rest[3 * v], rest[3 * v + 2]]);
    const seatRing = outline(seat.vertices, ringY);
    // Each leg's ring nearest that height (the legs' rings need not be level with the seat's).
    const nearest = (vs: readonly number[]) => vs.map((v) => rest[3 * v + 1]).reduce((best, y) => (Math.abs(y - ringY) < Math.abs(best - ringY) ? y : best));
    const legRings = legs.map((leg) => outline(leg.vertices, nearest(leg.vertices)));
    for (const leg of legs) expect(Math.abs(nearest(leg.vertices) - ringY)).toBeLessThan(0.01);
    for (const ring of legRings) expect(ring.length).toBeGreaterThan(8);
    // Each leg's outer half (away from the middle) has the seat's edge within a centimetre: the seat
    // hugs the thighs there, as trousers do.
    for (const ring of legRings) {
      const middle = ring.reduce((s, p) => s + p[0], 0) / ring.length;
      const outer = ring.filter((p) => Math.abs(p[0]) >= Math.abs(middle));
      expect(Math.max(...outer.map((p) => distanceToOutline(p, seatRing)))).toBeLessThan(0.01);
    }
    // And the seat's edge is nowhere more than a centimetre from a leg, but for the narrow bridge
    // between them in the middle: no dome between the thighs.
    const bulge = seatRing.filter((p) => Math.abs(p[0]) > 0.02).map((p) => Math.min(...legRings.map((ring) => distanceToOutline(p, ring))));
    expect(Math.max(...bulge)).toBeLessThan(0.01);
  });
});

/** The distance from `p` to the closed polygon `outline` (x, z), metres. */
function distanceToOutline(p: readonly [number, number], outline: readonly (readonly [number, number])[]): number {
  let best = Infinity;
  for (let i = 0; i < outline.length; i++) {
    const [a, b] = [outline[i], outline[(i + 1) % outline.length]];
    const [ex, ez] = [b[0] - a[0], b[1] - a[1]];
    const l2 = ex * ex + ez * ez;
    const t = l2 === 0 ? 0 : Math.min(Math.max(((p[0] - a[0]) * ex + (p[1] - a[1]) * ez) / l2, 0), 1);
    best = Math.min(best, Math.hypot(p[0] - a[0] - t * ex, p[1] - a[1] - t * ez));
  }
  return best;
}

function sub(a: V3, b: V3): V3 {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
}
function dot(a: V3, b: V3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
function cross(a: V3, b: V3): V3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}
