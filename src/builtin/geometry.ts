import { BufferTarget } from '../gltf/constants.ts';
import type { GltfBuilder, GltfPrimitiveJson } from '../gltf/builder.ts';

/**
 * Geometry for the procedural models. Every body part is a surface of
 * revolution ("lathe") around a bone-aligned axis with an elliptical cross
 * section: capsules, tubes, ellipsoids and discs all fit, normals come out
 * analytic and seam-free, and skin weights can be a function of the distance
 * along the axis, which is what makes smooth blends at elbows and knees easy.
 */

export type Vec3Tuple = readonly [number, number, number];
type V3 = [number, number, number];

/** An orthonormal, right-handed frame in model space; the lathe axis is `y`. */
export interface Frame {
  origin: Vec3Tuple;
  x: Vec3Tuple;
  y: Vec3Tuple;
  z: Vec3Tuple;
}

/** One ring of a lathe: `h` along the axis, half-extents `rx`/`rz` along frame x/z (0 and 0 is a pole). */
export interface Ring {
  h: number;
  rx: number;
  rz: number;
  /** The ring's centre moved this far along frame z (a chest forward of the spine, a seat behind it); absent: on the axis. */
  dz?: number;
  /**
   * A cross-section other than an ellipse (the trousers' seat turning into two thighs): its point
   * (along frame x, along frame z) at each angle from frame x towards frame z, in radians. `rx` and
   * `rz` then only give its size (for the texture's arc length) and must not both be 0; `dz` is not added.
   */
  section?: (angle: number) => readonly [x: number, z: number];
}

/** A ring at `h` with half-extents `rx` and `rz` (round when `rz` is left out). */
export const ring = (h: number, rx: number, rz = rx): Ring => ({ h, rx, rz });

export type Influence = readonly [joint: number, weight: number];

export interface LatheSpec {
  frame: Frame;
  rings: readonly Ring[];
  segments: number;
  /**
   * Skin influences as a function of the distance along the axis and of the fraction of the turn
   * around it (as `color`'s): the second for a part over two joints side by side (the seat, over both thighs).
   */
  influences: (h: number, around: number) => readonly Influence[];
  /** UV rectangle [u0, v0, u1, v1]; u0 > u1 mirrors the texture (tangent w becomes -1). */
  uv?: readonly [number, number, number, number];
  /**
   * Vertex colour (COLOR_0, linear RGB) as a function of the fraction of the turn around the axis
   * (0 ≤ around < 1, from frame x towards frame z) and the distance along it. Every lathe of a mesh
   * has one, or none does.
   */
  color?: (around: number, h: number) => Vec3Tuple;
}

export const MAX_INFLUENCES = 4;

/** Vertex streams in plain arrays while building; written as typed arrays at the end. */
export class MeshData {
  readonly positions: number[] = [];
  readonly normals: number[] = [];
  readonly uvs: number[] = [];
  readonly joints: number[] = [];
  readonly weights: number[] = [];
  /** RGBA per vertex, filled only by lathes given a `color`. */
  readonly colors: number[] = [];
  readonly indices: number[] = [];

  get vertexCount(): number {
    return this.positions.length / 3;
  }
}

/** Appends a lathe to `mesh`. Triangles wind counter-clockwise seen from outside (glTF front faces). */
export function addLathe(mesh: MeshData, spec: LatheSpec): void {
  const { frame, rings, segments } = spec;
  const [u0, v0, u1, v1] = spec.uv ?? [0, 0, 1, 1];
  const K = rings.length;
  const N = segments;
  if (K < 2 || N < 3) throw new Error('a lathe needs at least 2 rings and 3 segments');
  const isPole = (k: number): boolean => rings[k].rx === 0 && rings[k].rz === 0;
  const base = mesh.vertexCount;

  // v follows arc length along the profile so texels are roughly square.
  const arc = [0];
  for (let k = 1; k < K; k++) {
    const a = rings[k - 1];
    const b = rings[k];
    arc.push(arc[k - 1] + Math.hypot(b.h - a.h, (b.rx + b.rz) / 2 - (a.rx + a.rz) / 2));
  }
  const arcTotal = arc[K - 1];

  // Analytic normals: n = ∂P/∂h × ∂P/∂a, with ∂/∂h by finite differences over the profile.
  // A lathe with a shaped ring differentiates its points instead (both ways, sectionNormals); one
  // without keeps the ellipses' exact ∂/∂a, so its normals are what they always were.
  const shaped = rings.some((r) => r.section);
  const ringNormals: number[][] = [];
  for (let k = 0; k < K; k++) {
    const r = rings[k];
    const k0 = Math.max(k - 1, 0);
    const k1 = Math.min(k + 1, K - 1);
    if (shaped && !isPole(k)) {
      // Next to a pole, one-sided: the ring's normals follow its side, not the cap that closes it.
      ringNormals.push(sectionNormals(frame, isPole(k0) ? r : rings[k0], r, isPole(k1) ? r : rings[k1], N));
      continue;
    }
    if (shaped) {
      // A shaped ring's normals need not be symmetric about the axis: the cap faces along it.
      const n = combine(frame, 0, k === 0 ? -1 : 1, 0);
      ringNormals.push(Array.from({ length: 3 * N }, (_, i) => n[i % 3]));
      continue;
    }
    const dh = rings[k1].h - rings[k0].h;
    const drx = rings[k1].rx - rings[k0].rx;
    const drz = rings[k1].rz - rings[k0].rz;
    // Only a profile with offsets adds their slope, so one without keeps its exact normals.
    const ddz = rings[k1].dz === undefined && rings[k0].dz === undefined ? undefined : (rings[k1].dz ?? 0) - (rings[k0].dz ?? 0);
    const ns: number[] = [];
    if (isPole(k)) {
      ringNormals.push(ns); // filled in below, once the neighbouring ring is known
      continue;
    }
    for (let j = 0; j < N; j++) {
      const a = (2 * Math.PI * j) / N;
      const c = Math.cos(a);
      const s = Math.sin(a);
      const dPdh = combine(frame, drx * c, dh, ddz === undefined ? drz * s : drz * s + ddz);
      const dPda = combine(frame, -r.rx * s, 0, r.rz * c);
      ns.push(...normalize(cross(dPdh, dPda)));
    }
    ringNormals.push(ns);
  }
  // A pole has no cross-section to differentiate; the mean of the neighbouring
  // ring's normals points along the axis by symmetry, outward on either end.
  for (let k = 0; k < K; k++) {
    if (shaped || !isPole(k)) continue;
    const nb = ringNormals[k === 0 ? 1 : k - 1];
    const sum = [0, 0, 0];
    for (let j = 0; j < N; j++) for (let c = 0; c < 3; c++) sum[c] += nb[3 * j + c];
    const n = normalize(sum);
    ringNormals[k] = Array.from({ length: 3 * N }, (_, i) => n[i % 3]);
  }

  for (let k = 0; k < K; k++) {
    const r = rings[k];
    const v = v0 + ((v1 - v0) * arc[k]) / arcTotal;
    // N + 1 columns: the seam column repeats column 0's position with u = u1.
    for (let j = 0; j <= N; j++) {
      const jj = j % N;
      const a = (2 * Math.PI * jj) / N;
      const [x, z] = sectionPoint(r, a);
      const p = combine(frame, x, r.h, z);
      mesh.positions.push(frame.origin[0] + p[0], frame.origin[1] + p[1], frame.origin[2] + p[2]);
      mesh.normals.push(ringNormals[k][3 * jj], ringNormals[k][3 * jj + 1], ringNormals[k][3 * jj + 2]);
      mesh.uvs.push(u0 + ((u1 - u0) * j) / N, v);
      if (spec.color) mesh.colors.push(...spec.color(jj / N, r.h), 1);
      for (const [joint, weight] of normalizeInfluences(spec.influences(r.h, jj / N))) {
        mesh.joints.push(joint);
        mesh.weights.push(weight);
      }
    }
  }

  const row = N + 1;
  for (let k = 0; k < K - 1; k++) {
    for (let j = 0; j < N; j++) {
      const v00 = base + k * row + j;
      const v01 = v00 + 1;
      const v10 = v00 + row;
      const v11 = v10 + 1;
      // Next to a pole one triangle of each quad has zero area; leave it out.
      if (!isPole(k)) mesh.indices.push(v00, v10, v01);
      if (!isPole(k + 1)) mesh.indices.push(v01, v10, v11);
    }
  }
}

/** A ring's point at angle `a` (from frame x towards frame z): on its section, or on its ellipse. */
function sectionPoint(r: Ring, a: number): readonly [number, number] {
  if (r.section) return r.section(a);
  return [r.rx * Math.cos(a), r.dz === undefined ? r.rz * Math.sin(a) : r.rz * Math.sin(a) + r.dz];
}

/** The angle, in radians, either side of a vertex at which sectionNormals reads its ring's section for ∂P/∂a. */
const SECTION_DA = 1e-4;

/**
 * One ring's normals in a lathe with shaped rings: ∂P/∂h from the points of the rings before and
 * after it (`prev`, `next`: itself at an end) at the same angle, ∂P/∂a by a central difference on its own section.
 */
function sectionNormals(frame: Frame, prev: Ring, r: Ring, next: Ring, N: number): number[] {
  const ns: number[] = [];
  for (let j = 0; j < N; j++) {
    const a = (2 * Math.PI * j) / N;
    const [x0, z0] = sectionPoint(prev, a);
    const [x1, z1] = sectionPoint(next, a);
    const [xm, zm] = sectionPoint(r, a - SECTION_DA);
    const [xp, zp] = sectionPoint(r, a + SECTION_DA);
    ns.push(...normalize(cross(combine(frame, x1 - x0, next.h - prev.h, z1 - z0), combine(frame, xp - xm, 0, zp - zm))));
  }
  return ns;
}

/** Rings of an ellipsoid with semi-axes (rx, ry along the axis, rz), centred at h = 0, pole to pole. */
export function ellipsoidRings(rx: number, ry: number, rz: number, count: number): Ring[] {
  const rings: Ring[] = [];
  for (let k = 0; k < count; k++) {
    const t = (Math.PI * k) / (count - 1);
    const s = k === 0 || k === count - 1 ? 0 : Math.sin(t);
    rings.push({ h: -ry * Math.cos(t), rx: rx * s, rz: rz * s });
  }
  return rings;
}

/**
 * Rings of a capsule-like profile: hemi-ellipsoidal caps of length `capStart`
 * and `capEnd` around a body that follows `body` (h, rx, rz) stations.
 * A cap length of 0 leaves that end open.
 */
export function capsuleRings(body: readonly Ring[], capStart: number, capEnd: number, capRings = 4): Ring[] {
  const rings: Ring[] = [];
  const first = body[0];
  const last = body[body.length - 1];
  if (capStart > 0) {
    for (let i = 0; i < capRings; i++) {
      const t = (Math.PI / 2) * (i / capRings);
      const s = i === 0 ? 0 : Math.sin(t);
      rings.push({ h: first.h - capStart * Math.cos(t), rx: first.rx * s, rz: first.rz * s, ...offset(first) });
    }
  }
  rings.push(...body);
  if (capEnd > 0) {
    for (let i = capRings - 1; i >= 0; i--) {
      const t = (Math.PI / 2) * (i / capRings);
      const s = i === 0 ? 0 : Math.sin(t);
      rings.push({ h: last.h + capEnd * Math.cos(t), rx: last.rx * s, rz: last.rz * s, ...offset(last) });
    }
  }
  return rings;
}

/** A cap ring keeps its end ring's offset (none where that has none, so the ring objects stay as they were). */
const offset = (r: Ring): { dz?: number } => (r.dz === undefined ? {} : { dz: r.dz });

/** Cubic smoothstep: C1 blends so skinned surfaces bend without creases. */
export function smoothstep(e0: number, e1: number, x: number): number {
  const t = Math.min(Math.max((x - e0) / (e1 - e0), 0), 1);
  return t * t * (3 - 2 * t);
}

/**
 * Influences along a chain of joints: `joints[i]` owns the stretch between
 * `knots[i - 1]` and `knots[i]`, and ownership passes to the next joint over
 * ±`blends[i]` around `knots[i]`. The terms telescope, so the weights sum to 1
 * and stay non-negative as long as blend zones do not overlap.
 */
export function chainInfluences(joints: readonly number[], knots: readonly number[], blends: readonly number[]) {
  if (knots.length !== joints.length - 1 || blends.length !== knots.length) {
    throw new Error('a chain of n joints needs n - 1 knots and blend widths');
  }
  return (h: number): Influence[] => {
    const c = knots.map((k, i) => smoothstep(k - blends[i], k + blends[i], h));
    return joints.map((joint, i) => [joint, (i === 0 ? 1 : c[i - 1]) - (i < c.length ? c[i] : 0)] as const);
  };
}

/** Rigid binding to one joint. */
export function rigid(joint: number) {
  return (): Influence[] => [[joint, 1]];
}

/**
 * Keeps the `MAX_INFLUENCES` strongest influences, merges duplicates and
 * renormalises to sum 1; unused slots get joint 0 with weight 0, as the spec
 * recommends.
 */
export function normalizeInfluences(list: readonly Influence[]): Influence[] {
  const merged = new Map<number, number>();
  for (const [j, w] of list) {
    if (!(w >= 0)) throw new Error(`negative or NaN weight ${w} for joint ${j}`);
    if (w > 0) merged.set(j, (merged.get(j) ?? 0) + w);
  }
  const kept = [...merged.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, MAX_INFLUENCES);
  const sum = kept.reduce((s, [, w]) => s + w, 0);
  if (sum <= 0) throw new Error('a vertex has no influence');
  const out: Influence[] = kept.map(([j, w]) => [j, w / sum] as const);
  while (out.length < MAX_INFLUENCES) out.push([0, 0]);
  return out;
}

/**
 * Per-vertex tangents from UV gradients (Lengyel's method), orthogonalised
 * against the normal. glTF defines bitangent = cross(normal, tangent.xyz) * w
 * and, with its top-left UV origin, the bitangent points towards decreasing v
 * (the "up" of a normal map), so w = +1 where cross(n, t) opposes ∂P/∂v.
 */
export function computeTangents(mesh: MeshData): number[] {
  const n = mesh.vertexCount;
  const sdir = new Float64Array(3 * n);
  const tdir = new Float64Array(3 * n);
  const P = mesh.positions;
  const UV = mesh.uvs;
  for (let i = 0; i < mesh.indices.length; i += 3) {
    const a = mesh.indices[i];
    const b = mesh.indices[i + 1];
    const c = mesh.indices[i + 2];
    const e1 = [P[3 * b] - P[3 * a], P[3 * b + 1] - P[3 * a + 1], P[3 * b + 2] - P[3 * a + 2]];
    const e2 = [P[3 * c] - P[3 * a], P[3 * c + 1] - P[3 * a + 1], P[3 * c + 2] - P[3 * a + 2]];
    const du1 = UV[2 * b] - UV[2 * a];
    const dv1 = UV[2 * b + 1] - UV[2 * a + 1];
    const du2 = UV[2 * c] - UV[2 * a];
    const dv2 = UV[2 * c + 1] - UV[2 * a + 1];
    const det = du1 * dv2 - du2 * dv1;
    if (Math.abs(det) < 1e-12) continue;
    const r = 1 / det;
    for (const v of [a, b, c]) {
      for (let k = 0; k < 3; k++) {
        sdir[3 * v + k] += (e1[k] * dv2 - e2[k] * dv1) * r;
        tdir[3 * v + k] += (e2[k] * du1 - e1[k] * du2) * r;
      }
    }
  }
  const out: number[] = [];
  for (let v = 0; v < n; v++) {
    const nrm = [mesh.normals[3 * v], mesh.normals[3 * v + 1], mesh.normals[3 * v + 2]];
    const s = [sdir[3 * v], sdir[3 * v + 1], sdir[3 * v + 2]];
    const d = dot(nrm, s);
    let t = [s[0] - nrm[0] * d, s[1] - nrm[1] * d, s[2] - nrm[2] * d];
    if (Math.hypot(t[0], t[1], t[2]) < 1e-12) t = anyPerpendicular(nrm);
    t = normalize(t);
    const w = dot(cross(nrm, t), [tdir[3 * v], tdir[3 * v + 1], tdir[3 * v + 2]]) > 0 ? -1 : 1;
    out.push(t[0], t[1], t[2], w);
  }
  return out;
}

export interface PrimitiveOptions {
  material: number;
  /** JOINTS_0 component type: u8 is enough below 256 joints and exercises the narrow format. */
  jointComponent: 'u8' | 'u16';
}

/** Writes `mesh` as one indexed, skinned triangle primitive. */
export function writePrimitive(builder: GltfBuilder, mesh: MeshData, opts: PrimitiveOptions): GltfPrimitiveJson {
  const n = mesh.vertexCount;
  if (n === 0) throw new Error('empty mesh');
  if (mesh.colors.length !== 0 && mesh.colors.length !== 4 * n) {
    throw new Error(`${mesh.colors.length / 4} of ${n} vertices have a colour: give every lathe of a mesh a color, or none`);
  }
  const maxJoint = Math.max(...mesh.joints);
  if (opts.jointComponent === 'u8' && maxJoint > 0xff) throw new Error(`joint ${maxJoint} does not fit in u8`);
  const vertex = { target: BufferTarget.ARRAY_BUFFER };
  const attributes: Record<string, number> = {
    POSITION: builder.addAccessor(new Float32Array(mesh.positions), 'VEC3', { ...vertex, minMax: true }),
    NORMAL: builder.addAccessor(new Float32Array(mesh.normals), 'VEC3', vertex),
    TANGENT: builder.addAccessor(new Float32Array(computeTangents(mesh)), 'VEC4', vertex),
    TEXCOORD_0: builder.addAccessor(new Float32Array(mesh.uvs), 'VEC2', vertex),
    JOINTS_0: builder.addAccessor(
      opts.jointComponent === 'u8' ? new Uint8Array(mesh.joints) : new Uint16Array(mesh.joints),
      'VEC4',
      vertex,
    ),
    WEIGHTS_0: builder.addAccessor(new Float32Array(mesh.weights), 'VEC4', vertex),
  };
  if (mesh.colors.length > 0) attributes.COLOR_0 = builder.addAccessor(new Float32Array(mesh.colors), 'VEC4', vertex);
  const indices = n <= 0xffff ? new Uint16Array(mesh.indices) : new Uint32Array(mesh.indices);
  return {
    attributes,
    indices: builder.addAccessor(indices, 'SCALAR', { target: BufferTarget.ELEMENT_ARRAY_BUFFER }),
    material: opts.material,
  };
}

/** A frame whose y axis is `axis`, x is axis × forward (right-handed, like rig.ts's bone frames). */
export function frameAlong(origin: Vec3Tuple, axis: Vec3Tuple, forward: Vec3Tuple = [0, 0, 1]): Frame {
  const y = normalize(axis);
  const x = normalize(cross(y, forward));
  const z = cross(x, y);
  return { origin, x, y, z };
}

function combine(f: Frame, a: number, b: number, c: number): V3 {
  return [
    f.x[0] * a + f.y[0] * b + f.z[0] * c,
    f.x[1] * a + f.y[1] * b + f.z[1] * c,
    f.x[2] * a + f.y[2] * b + f.z[2] * c,
  ];
}

function cross(a: ArrayLike<number>, b: ArrayLike<number>): V3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

function normalize(a: ArrayLike<number>): V3 {
  const l = Math.hypot(a[0], a[1], a[2]);
  if (l === 0) throw new Error('cannot normalize a zero vector');
  return [a[0] / l, a[1] / l, a[2] / l];
}

function anyPerpendicular(n: number[]): V3 {
  return Math.abs(n[0]) < 0.9 ? cross(n, [1, 0, 0]) : cross(n, [0, 1, 0]);
}
