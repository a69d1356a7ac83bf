import { describe, expect, it } from 'vitest';
import { mat4, quat, vec3 } from 'wgpu-matrix';
import { WALK_STRIDE } from '../../src/builtin/character.ts';
import { addClip } from '../../src/builtin/clips.ts';
import { normalizeInfluences } from '../../src/builtin/geometry.ts';
import { DEFAULT_BUILTIN_MODEL, buildBuiltinGlb, buildBuiltinGlbAfresh, builtinModelNames } from '../../src/builtin/index.ts';
import { GltfBuilder, type GltfJson, type GltfPrimitiveJson } from '../../src/gltf/builder.ts';
import { expectEach } from '../support/expect-each.ts';

// Reads the GLBs with a small reader written from the spec, not with
// src/gltf/load.ts: these tests pin down what the models contain, the
// loader's own tests check that it reads them.

const COMPONENTS: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT4: 16 };
type Typed = Float32Array | Uint32Array | Uint16Array | Uint8Array;
const ARRAYS: Record<number, { BYTES_PER_ELEMENT: number; new (b: ArrayBuffer): Typed }> = {
  5121: Uint8Array,
  5123: Uint16Array,
  5125: Uint32Array,
  5126: Float32Array,
};

interface Model {
  glb: Uint8Array;
  json: GltfJson;
  bin: Uint8Array;
  read(accessor: number): Typed;
}

function open(name: string): Model {
  return openGlb(buildBuiltinGlb(name));
}

function openGlb(glb: Uint8Array): Model {
  const dv = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const jsonLength = dv.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + jsonLength))) as GltfJson;
  const bin = glb.subarray(20 + jsonLength + 8, 20 + jsonLength + 8 + dv.getUint32(20 + jsonLength, true));
  const read = (index: number): Typed => {
    const a = json.accessors[index];
    const bv = json.bufferViews[a.bufferView!];
    const Ctor = ARRAYS[a.componentType];
    const n = COMPONENTS[a.type];
    expect(bv.byteStride ?? n * Ctor.BYTES_PER_ELEMENT).toBe(n * Ctor.BYTES_PER_ELEMENT); // the reader assumes packed data
    const start = (bv.byteOffset ?? 0) + (a.byteOffset ?? 0);
    return new Ctor(bin.slice(start, start + a.count * n * Ctor.BYTES_PER_ELEMENT).buffer);
  };
  return { glb, json, bin, read };
}

type V3 = [number, number, number];
const at3 = (a: ArrayLike<number>, i: number): V3 => [a[3 * i], a[3 * i + 1], a[3 * i + 2]];
const sub = (a: V3, b: V3): V3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const cross = (a: V3, b: V3): V3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const dot = (a: V3, b: V3) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const len = (a: V3) => Math.hypot(a[0], a[1], a[2]);

function parentsOf(json: GltfJson): number[] {
  const parent = new Array<number>(json.nodes.length).fill(-1);
  json.nodes.forEach((n, i) => (n.children ?? []).forEach((c) => (parent[c] = i)));
  return parent;
}

/** Rest-pose global matrix of every node, composed with wgpu-matrix from the stored TRS. */
function restGlobals(json: GltfJson): Float32Array[] {
  const parent = parentsOf(json);
  const globals: Float32Array[] = [];
  const global = (i: number): Float32Array => {
    if (globals[i]) return globals[i];
    const n = json.nodes[i];
    const local = mat4.translation(n.translation ?? [0, 0, 0]);
    mat4.multiply(local, mat4.fromQuat(n.rotation ?? [0, 0, 0, 1]), local);
    mat4.scale(local, n.scale ?? [1, 1, 1], local);
    return (globals[i] = parent[i] >= 0 ? mat4.multiply(global(parent[i]), local) : local);
  };
  json.nodes.forEach((_, i) => global(i));
  return globals;
}

function skinnedPrimitives(json: GltfJson): GltfPrimitiveJson[] {
  return json.meshes.flatMap((m) => m.primitives);
}

const EXPECTED = {
  character: {
    joints: 20,
    clips: { Walk: 1, Idle: 2, Wave: 2.5 },
    loops: ['Walk', 'Idle'],
    /**
     * Dressed (face, hair, fingered hands, belt, soled shoes) and shaped (one more torso ring): 5,801 vertices; 5,914 since the
     * seat turns into the thighs (seat.ts: its rings at twice the torso's segments, and the legs' open tops, instead of the torso's
     * dome and the legs' caps).
     * Was 3,484 as a mannequin under 5,000.
     */
    maxVertices: 6000,
    /** Largest distance from a vertex to the bone of its most influential joint, in metres. */
    maxDistanceToBone: 0.2,
    leafBone: 0.3,
  },
  'twist-cylinder': { joints: 2, clips: { Twist: 2 }, loops: [], maxVertices: 5000, maxDistanceToBone: 0.26, leafBone: 1, vertexColours: ['Cylinder'] },
  limb: { joints: 3, clips: { Bend: 2, Swing: 2 }, loops: ['Bend', 'Swing'], maxVertices: 5000, maxDistanceToBone: 0.21, leafBone: 0.6 },
  'vrm-avatar': { joints: 51, clips: { Walk: 1, Idle: 2, Wave: 2.5 }, loops: ['Walk', 'Idle'], maxVertices: 8000, maxDistanceToBone: 0.2, leafBone: 0.3 },
  'vrm0-avatar': { joints: 51, clips: { Walk: 1, Idle: 2, Wave: 2.5 }, loops: ['Walk', 'Idle'], maxVertices: 8000, maxDistanceToBone: 0.2, leafBone: 0.3 },
} as const;

describe('builtin model registry', () => {
  it('lists the models, default first', () => {
    expect(builtinModelNames()).toEqual(['character', 'twist-cylinder', 'limb', 'vrm-avatar', 'vrm0-avatar']);
    expect(DEFAULT_BUILTIN_MODEL).toBe(builtinModelNames()[0]);
  });

  it('throws for an unknown name, listing the valid ones', () => {
    expect(() => buildBuiltinGlb('robot')).toThrow(/"robot".*character, twist-cylinder, limb, vrm-avatar, vrm0-avatar/);
    expect(() => buildBuiltinGlb('')).toThrow(/valid names/);
  });

  it('returns a fresh array each call', () => {
    const a = buildBuiltinGlb('limb');
    a[0] = 0;
    expect(buildBuiltinGlb('limb')[0]).toBe(0x67); // 'g' of "glTF"
  });

  it.each(builtinModelNames())('hands out copies of its built %s: a fresh build’s bytes, whatever callers did to earlier ones', (name) => {
    const fresh = buildBuiltinGlbAfresh(name);
    const first = buildBuiltinGlb(name);
    const second = buildBuiltinGlb(name);
    expectSameBytes(first, fresh, 'the first copy');
    expect(second.buffer).not.toBe(first.buffer);
    // A caller may write into its copy, or transfer its buffer to a worker (detaching it).
    first.fill(0);
    structuredClone(second.buffer, { transfer: [second.buffer] });
    expect(second.byteLength).toBe(0);
    expectSameBytes(buildBuiltinGlb(name), fresh, 'a copy after the others were changed');
  });
});

function expectSameBytes(actual: Uint8Array, expected: Uint8Array, what: string): void {
  expect(actual.length, what).toBe(expected.length);
  expectEach(actual.length, `bytes of ${what}`, (i) => (actual[i] === expected[i] ? undefined : `${actual[i]} ≠ ${expected[i]}`));
}

describe.each(builtinModelNames())('builtin model %s', (name) => {
  const expected = EXPECTED[name as keyof typeof EXPECTED];
  const model = open(name);
  const { json, read } = model;
  const skin = json.skins[0];

  it('is deterministic, byte for byte', () => {
    // Built again from code (buildBuiltinGlb would hand out a copy of the first build).
    expectSameBytes(buildBuiltinGlbAfresh(name), model.glb, 'a second build');
  });

  it('is a well-formed GLB', () => {
    const glb = model.glb;
    const dv = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
    expect(dv.getUint32(0, true)).toBe(0x46546c67);
    expect(dv.getUint32(4, true)).toBe(2);
    expect(dv.getUint32(8, true)).toBe(glb.byteLength);
    const jsonLength = dv.getUint32(12, true);
    expect(dv.getUint32(16, true)).toBe(0x4e4f534a);
    expect(jsonLength % 4).toBe(0);
    expect(dv.getUint32(20 + jsonLength + 4, true)).toBe(0x004e4942);
    const binLength = dv.getUint32(20 + jsonLength, true);
    expect(binLength % 4).toBe(0);
    expect(20 + jsonLength + 8 + binLength).toBe(glb.byteLength);
    expect(json.buffers).toHaveLength(1);
    expect(json.buffers![0].byteLength).toBeLessThanOrEqual(binLength);
    expect(json.buffers![0].byteLength).toBeGreaterThan(binLength - 4);
    expect(json.asset.version).toBe('2.0');
    expect(json.scenes[json.scene!].nodes).toHaveLength(1);
  });

  it('keeps accessors inside their bufferViews and views inside the buffer', () => {
    for (const bv of json.bufferViews) {
      expect((bv.byteOffset ?? 0) % 4).toBe(0);
      expect((bv.byteOffset ?? 0) + bv.byteLength).toBeLessThanOrEqual(json.buffers![0].byteLength);
    }
    for (const a of json.accessors) {
      if (a.bufferView === undefined) continue; // all zeros (the avatars' morph targets of primitives the face does not move)
      const bv = json.bufferViews[a.bufferView];
      const size = ARRAYS[a.componentType].BYTES_PER_ELEMENT;
      const element = size * COMPONENTS[a.type];
      if (bv.target === 34962) expect(element % 4).toBe(0); // vertex elements must be 4-byte aligned
      expect((a.byteOffset ?? 0) + (bv.byteStride ?? element) * (a.count - 1) + element).toBeLessThanOrEqual(bv.byteLength);
    }
  });

  it(`has one skin of ${expected.joints} joints, beside its mesh node under one scene root`, () => {
    expect(json.skins).toHaveLength(1);
    expect(skin.joints).toHaveLength(expected.joints);
    expect(new Set(skin.joints).size).toBe(skin.joints.length);
    const parent = parentsOf(json);
    const root = json.scenes[0].nodes![0];
    const skeleton = skin.skeleton!;
    expect(skin.joints).toContain(skeleton);
    expect(parent[skeleton]).toBe(root);
    for (const j of skin.joints) {
      let n = j;
      while (n !== skeleton && n >= 0) n = parent[n];
      expect(n).toBe(skeleton); // every joint descends from the skeleton root
    }
    const meshNodes = json.nodes.map((n, i) => (n.mesh !== undefined ? i : -1)).filter((i) => i >= 0);
    expect(meshNodes).toHaveLength(1);
    expect(json.nodes[meshNodes[0]].skin).toBe(0);
    expect(parent[meshNodes[0]]).toBe(root);
    expect(skin.joints).not.toContain(meshNodes[0]);
  });

  it('has inverse bind matrices that invert each joint’s rest global', () => {
    const globals = restGlobals(json);
    const ibm = read(skin.inverseBindMatrices!);
    expect(ibm.length).toBe(16 * skin.joints.length);
    const identity = mat4.identity();
    skin.joints.forEach((node, j) => {
      const product = mat4.multiply(globals[node], Float32Array.from({ length: 16 }, (_, k) => ibm[16 * j + k]));
      for (let k = 0; k < 16; k++) expect(product[k]).toBeCloseTo(identity[k], 5);
    });
  });

  it('has complete, consistent vertex streams', () => {
    let vertices = 0;
    for (const p of skinnedPrimitives(json)) {
      const coloured: readonly string[] = 'vertexColours' in expected ? expected.vertexColours : [];
      const colours = coloured.includes(json.materials[p.material!].name!) ? ['COLOR_0'] : [];
      expect(Object.keys(p.attributes).sort()).toEqual([...colours, 'JOINTS_0', 'NORMAL', 'POSITION', 'TANGENT', 'TEXCOORD_0', 'WEIGHTS_0']);
      const count = json.accessors[p.attributes.POSITION].count;
      for (const a of Object.values(p.attributes)) expect(json.accessors[a].count).toBe(count);
      expect(json.accessors[p.attributes.WEIGHTS_0].componentType).toBe(5126);
      const indices = read(p.indices!);
      expect(indices.length % 3).toBe(0);
      expectEach(indices.length, 'indices below the vertex count', (i) => (indices[i] < count ? undefined : `${indices[i]} ≥ ${count}`));
      expect(json.materials[p.material!].pbrMetallicRoughness!.baseColorFactor).toHaveLength(4);
      vertices += count;
    }
    expect(vertices).toBeLessThanOrEqual(expected.maxVertices);
  });

  it('has exact POSITION min/max', () => {
    for (const p of skinnedPrimitives(json)) {
      const a = json.accessors[p.attributes.POSITION];
      const pos = read(p.attributes.POSITION);
      const min = [Infinity, Infinity, Infinity];
      const max = [-Infinity, -Infinity, -Infinity];
      for (let i = 0; i < pos.length; i++) {
        min[i % 3] = Math.min(min[i % 3], pos[i]);
        max[i % 3] = Math.max(max[i % 3], pos[i]);
      }
      expect(a.min).toEqual(min);
      expect(a.max).toEqual(max);
    }
  });

  it('has unit normals, and triangles wound counter-clockwise around them', () => {
    for (const p of skinnedPrimitives(json)) {
      const pos = read(p.attributes.POSITION);
      const nrm = read(p.attributes.NORMAL);
      expectEach(nrm.length / 3, 'unit normals', (v) => (Math.abs(len(at3(nrm, v)) - 1) < 1e-6 ? undefined : `length ${len(at3(nrm, v))}`));
      const idx = read(p.indices!);
      expectEach(idx.length / 3, 'triangles, not degenerate and wound counter-clockwise around their normals', (t) => {
        const [a, b, c] = [idx[3 * t], idx[3 * t + 1], idx[3 * t + 2]];
        const face = cross(sub(at3(pos, b), at3(pos, a)), sub(at3(pos, c), at3(pos, a)));
        if (!(len(face) > 0)) return 'degenerate';
        const smooth: V3 = [0, 1, 2].map((k) => nrm[3 * a + k] + nrm[3 * b + k] + nrm[3 * c + k]) as V3;
        return dot(face, smooth) > 0 ? undefined : `wound clockwise (face · normals = ${dot(face, smooth)})`;
      });
    }
  });

  it('has unit tangents orthogonal to the normals, with w = ±1 matching the UV handedness', () => {
    for (const p of skinnedPrimitives(json)) {
      const pos = read(p.attributes.POSITION);
      const nrm = read(p.attributes.NORMAL);
      const tan = read(p.attributes.TANGENT);
      const uv = read(p.attributes.TEXCOORD_0);
      expectEach(nrm.length / 3, 'unit tangents orthogonal to the normals, w = ±1', (v) => {
        const t: V3 = [tan[4 * v], tan[4 * v + 1], tan[4 * v + 2]];
        if (!(Math.abs(len(t) - 1) < 1e-6)) return `length ${len(t)}`;
        if (!(Math.abs(dot(t, at3(nrm, v))) < 1e-5)) return `tangent · normal = ${dot(t, at3(nrm, v))}`;
        return Math.abs(tan[4 * v + 3]) === 1 ? undefined : `w = ${tan[4 * v + 3]}`;
      });
      // glTF: bitangent = cross(normal, tangent) * w points towards decreasing v
      // (UV origin top-left), and the tangent follows increasing u.
      const idx = read(p.indices!);
      let checked = 0;
      expectEach(idx.length / 3, 'tangents along increasing u, bitangents towards decreasing v', (tri) => {
        const [a, b, c] = [idx[3 * tri], idx[3 * tri + 1], idx[3 * tri + 2]];
        const e1 = sub(at3(pos, b), at3(pos, a));
        const e2 = sub(at3(pos, c), at3(pos, a));
        const [du1, dv1] = [uv[2 * b] - uv[2 * a], uv[2 * b + 1] - uv[2 * a + 1]];
        const [du2, dv2] = [uv[2 * c] - uv[2 * a], uv[2 * c + 1] - uv[2 * a + 1]];
        const det = du1 * dv2 - du2 * dv1;
        if (Math.abs(det) < 1e-9) return undefined;
        const dPdu: V3 = [0, 1, 2].map((k) => (e1[k] * dv2 - e2[k] * dv1) / det) as V3;
        const dPdv: V3 = [0, 1, 2].map((k) => (e2[k] * du1 - e1[k] * du2) / det) as V3;
        checked++;
        for (const v of [a, b, c]) {
          const t: V3 = [tan[4 * v], tan[4 * v + 1], tan[4 * v + 2]];
          const bitangent = cross(at3(nrm, v), t).map((x) => x * tan[4 * v + 3]) as V3;
          if (!(dot(t, dPdu) > 0)) return `vertex ${v}: tangent · dP/du = ${dot(t, dPdu)}`;
          if (!(dot(bitangent, dPdv) < 0)) return `vertex ${v}: bitangent · dP/dv = ${dot(bitangent, dPdv)}`;
        }
        return undefined;
      });
      expect(checked).toBeGreaterThan(idx.length / 3 / 2);
    }
  });

  it('has normalized weights (≤ 4 influences) on valid, distinct joints', () => {
    for (const p of skinnedPrimitives(json)) {
      const joints = read(p.attributes.JOINTS_0);
      const weights = read(p.attributes.WEIGHTS_0);
      expectEach(weights.length / 4, 'weights: ≥ 0 on distinct joints of the skin, unused slots joint 0, summing to 1', (v) => {
        let sum = 0;
        const used = new Set<number>();
        for (let k = 0; k < 4; k++) {
          const w = weights[4 * v + k];
          const j = joints[4 * v + k];
          if (!(w >= 0)) return `weight ${w}`;
          if (!(j < skin.joints.length)) return `joint ${j} of ${skin.joints.length}`;
          if (w > 0) {
            if (used.has(j)) return `joint ${j} twice`;
            used.add(j);
          } else if (j !== 0) {
            return `unused slot ${k} names joint ${j}`; // unused slots: joint 0, weight 0
          }
          sum += w;
        }
        return Math.abs(sum - 1) < 1e-6 ? undefined : `weights sum to ${sum}`;
      });
    }
  });

  it('binds each vertex mostly to a bone near it, and blends somewhere', () => {
    // A joint's bone runs from its head to the mean of its child joints' heads;
    // a leaf's bone runs `leafBone` metres along its local +Y.
    const globals = restGlobals(json);
    const heads = skin.joints.map((node) => Array.from(mat4.getTranslation(globals[node])) as V3);
    const tails = skin.joints.map((node, j) => {
      const kids = (json.nodes[node].children ?? []).map((c) => skin.joints.indexOf(c)).filter((c) => c >= 0);
      if (kids.length === 0) {
        const y = mat4.getAxis(globals[node], 1);
        return heads[j].map((h, c) => h + expected.leafBone * y[c]) as V3;
      }
      return [0, 1, 2].map((c) => kids.reduce((s, k) => s + heads[k][c], 0) / kids.length) as V3;
    });
    const distanceToBone = (p: V3, j: number) => {
      const d = sub(tails[j], heads[j]);
      const t = Math.min(1, Math.max(0, dot(sub(p, heads[j]), d) / Math.max(dot(d, d), 1e-12)));
      return len(sub(p, heads[j].map((h, c) => h + t * d[c]) as V3));
    };
    let blended = 0;
    for (const p of skinnedPrimitives(json)) {
      const pos = read(p.attributes.POSITION);
      const joints = read(p.attributes.JOINTS_0);
      const weights = read(p.attributes.WEIGHTS_0);
      for (let v = 0; v < pos.length / 3; v++) {
        let best = 0;
        for (let k = 1; k < 4; k++) if (weights[4 * v + k] > weights[4 * v + best]) best = k;
        expect(distanceToBone(at3(pos, v), joints[4 * v + best])).toBeLessThan(expected.maxDistanceToBone);
        if (weights[4 * v + 1] > 0.1) blended++;
      }
    }
    expect(blended).toBeGreaterThan(20);
  });

  it(`has the clips ${Object.keys(expected.clips).join(', ')} with valid keyframes`, () => {
    expect(Object.fromEntries(json.animations.map((a) => [a.name, json.accessors[a.samplers[0].input].max![0]]))).toEqual(expected.clips);
    for (const anim of json.animations) {
      const targets = new Set<string>();
      for (const ch of anim.channels) {
        expect(skin.joints).toContain(ch.target.node);
        const key = `${ch.target.node}/${ch.target.path}`;
        expect(targets.has(key)).toBe(false); // one channel per node and path
        targets.add(key);
        const s = anim.samplers[ch.sampler];
        expect(s.interpolation).toBe('LINEAR');
        const times = read(s.input);
        expect(times[0]).toBe(0);
        expect(json.accessors[s.input].min).toEqual([times[0]]);
        expect(json.accessors[s.input].max).toEqual([times[times.length - 1]]);
        for (let k = 1; k < times.length; k++) expect(times[k]).toBeGreaterThan(times[k - 1]);
        const values = read(s.output);
        const n = ch.target.path === 'rotation' ? 4 : 3;
        expect(values.length).toBe(times.length * n);
        if (ch.target.path === 'rotation') {
          for (let k = 0; k < times.length; k++) {
            const q = [0, 1, 2, 3].map((c) => values[4 * k + c]);
            expect(Math.abs(Math.hypot(...q) - 1)).toBeLessThan(1e-6);
            // Adjacent keys in one hemisphere: slerp must not take the long way.
            if (k > 0) expect(quat.dot(q, [0, 1, 2, 3].map((c) => values[4 * k - 4 + c]))).toBeGreaterThan(0);
          }
        }
        if ((expected.loops as readonly string[]).includes(anim.name!)) {
          const last = values.length - n;
          // The root-motion track ends a loop one stride further along the model's front (+Z; −Z for the
          // VRM 0.x avatar); everything else ends where it began.
          const walks = name === 'character' || name === 'vrm-avatar' || name === 'vrm0-avatar';
          const travel = walks && anim.name === 'Walk' && json.nodes[ch.target.node!].name === 'Root' && ch.target.path === 'translation'
            ? [0, 0, name === 'vrm0-avatar' ? -WALK_STRIDE : WALK_STRIDE] : undefined;
          for (let c = 0; c < n; c++) {
            if (travel) expect(values[last + c]).toBeCloseTo(values[c] + travel[c], 6);
            else expect(values[last + c]).toBe(values[c]);
          }
        }
      }
    }
  });
});

describe('builtin character specifics', () => {
  const { json, read } = open('character');
  const names = json.skins[0].joints.map((j) => json.nodes[j].name);
  const globals = restGlobals(json);
  const head = (name: string) => mat4.getTranslation(globals[json.nodes.findIndex((n) => n.name === name)]);

  it('has a humanoid joint set', () => {
    for (const side of ['L', 'R']) {
      for (const part of ['Shoulder', 'UpperArm', 'LowerArm', 'Hand', 'UpperLeg', 'LowerLeg', 'Foot']) {
        expect(names).toContain(`${part}.${side}`);
      }
    }
    for (const n of ['Root', 'Hips', 'Spine', 'Chest', 'Neck', 'Head']) expect(names).toContain(n);
  });

  /** Each primitive's separate pieces (vertex sets joined by triangles), with their box and the joint most of their weight is on. */
  const pieces = (materialName: string) => {
    const p = json.meshes[0].primitives.find((q) => json.materials[q.material!].name === materialName);
    if (!p) throw new Error(`no primitive of material ${materialName}`);
    const pos = read(p.attributes.POSITION);
    const joints = read(p.attributes.JOINTS_0);
    const weights = read(p.attributes.WEIGHTS_0);
    const indices = read(p.indices!);
    const root = Array.from({ length: pos.length / 3 }, (_, i) => i);
    const find = (v: number): number => (root[v] === v ? v : (root[v] = find(root[v])));
    for (let i = 0; i < indices.length; i++) root[find(indices[i])] = find(indices[i - (i % 3)]);
    // Only vertices that triangles use (a lathe's pole leaves one column vertex unused).
    const byRoot = new Map<number, number[]>();
    for (const v of new Set(indices)) byRoot.set(find(v), [...(byRoot.get(find(v)) ?? []), v]);
    return [...byRoot.values()].map((vertices) => {
      const min = [0, 1, 2].map((c) => Math.min(...vertices.map((v) => pos[3 * v + c])));
      const max = [0, 1, 2].map((c) => Math.max(...vertices.map((v) => pos[3 * v + c])));
      const dominant = new Set(vertices.map((v) => names[joints[4 * v + [0, 1, 2, 3].reduce((b, k) => (weights[4 * v + k] > weights[4 * v + b] ? k : b), 0)]]));
      return { min, max, centre: min.map((m, c) => (m + max[c]) / 2), joints: [...dominant] };
    });
  };

  it('is dressed in materials that differ: fabric, denim, skin, hair, leather, rubber, eye white and a metal', () => {
    const materials = json.materials;
    expect(materials.map((m) => m.name)).toEqual(['Shirt', 'Denim', 'Skin', 'Hair', 'Leather', 'Rubber', 'Eye white', 'Brass']);
    // Each material on its own primitive, and no two the same colour.
    expect(json.meshes[0].primitives.map((p) => p.material).sort()).toEqual(materials.map((_, i) => i));
    const colours = new Set(materials.map((m) => m.pbrMetallicRoughness!.baseColorFactor!.map((c) => c.toFixed(2)).join(' ')));
    expect(colours.size).toBe(materials.length);
    // Matte cloth and rubber beside glossy eyes and leather, and one metal.
    const roughness = materials.map((m) => m.pbrMetallicRoughness!.roughnessFactor!);
    expect(Math.max(...roughness) - Math.min(...roughness)).toBeGreaterThan(0.5);
    expect(materials.filter((m) => m.pbrMetallicRoughness!.metallicFactor === 1).map((m) => m.name)).toEqual(['Brass']);
  });

  it('has a face: two eye whites, irises, brows and a mouth in front of the head, ears at its sides, hair over its top', () => {
    const headTop = Math.max(...pieces('Skin').filter((p) => p.joints.join() === 'Head').map((p) => p.max[1]));
    const whites = pieces('Eye white');
    expect(whites).toHaveLength(2);
    for (const eye of whites) {
      expect(eye.joints).toEqual(['Head']);
      expect(eye.centre[1]).toBeGreaterThan(1.69);
      expect(eye.centre[2]).toBeGreaterThan(0.09);
    }
    expect(Math.sign(whites[0].centre[0])).toBe(-Math.sign(whites[1].centre[0]));
    const hair = pieces('Hair');
    // The face's dark marks, on the front of the head: two irises on the whites, two brows above them, a mouth below.
    const marks = hair.filter((p) => p.max[2] > 0.09 && p.max[1] < headTop - 0.05);
    expect(marks.filter((p) => whites.some((w) => Math.abs(p.centre[0] - w.centre[0]) < 0.005 && Math.abs(p.centre[1] - w.centre[1]) < 0.005))).toHaveLength(2);
    expect(marks.filter((p) => p.centre[1] > 1.74)).toHaveLength(2);
    expect(marks.filter((p) => p.centre[1] < 1.67 && Math.abs(p.centre[0]) < 0.005)).toHaveLength(1);
    // The hair covers the head's top and reaches down its back.
    const scalp = hair.find((p) => p.max[1] > headTop)!;
    expect(scalp.min[2]).toBeLessThan(-0.1);
    expect(scalp.min[1]).toBeLessThan(1.65);
    // Ears: small Head pieces of skin beside the head.
    expect(pieces('Skin').filter((p) => p.joints.join() === 'Head' && Math.abs(p.centre[0]) > 0.09)).toHaveLength(2);
  });

  it('has hands with four fingers and a thumb each, beside a palm blended from the forearm', () => {
    for (const side of ['L', 'R']) {
      const hand = pieces('Skin').filter((p) => p.joints.includes(`Hand.${side}`));
      // The palm also follows the forearm at the wrist; each digit is on the hand alone.
      expect(hand.filter((p) => p.joints.includes(`LowerArm.${side}`))).toHaveLength(1);
      expect(hand.filter((p) => p.joints.join() === `Hand.${side}`)).toHaveLength(5);
    }
  });

  /** Every vertex of a material's primitive: its position and the joint most of its weight is on. */
  const vertices = (materialName: string) => {
    const p = json.meshes[0].primitives.find((q) => json.materials[q.material!].name === materialName)!;
    const pos = read(p.attributes.POSITION), joints = read(p.attributes.JOINTS_0), weights = read(p.attributes.WEIGHTS_0);
    return Array.from({ length: pos.length / 3 }, (_, v) => ({
      at: at3(pos, v),
      joint: names[joints[4 * v + [0, 1, 2, 3].reduce((b, k) => (weights[4 * v + k] > weights[4 * v + b] ? k : b), 0)]],
    }));
  };

  it('has the proportions of a stylised adult over the mannequin’s joints: head, chest over waist, seat, forearms', () => {
    // The joints are the mannequin's (the VRM avatar keeps its body): the figure changes only the surface.
    const avatar = open('vrm-avatar').json;
    for (const name of names) {
      const [mine, its] = [json, avatar].map((j) => j.nodes.find((n) => n.name === name)!);
      expect([mine.translation, mine.rotation], name).toEqual([its.translation, its.rotation]);
    }
    const all = json.meshes[0].primitives.flatMap((p) => [json.accessors[p.attributes.POSITION].min![1], json.accessors[p.attributes.POSITION].max![1]]);
    const height = Math.max(...all) - Math.min(...all);
    // Head (chin to crown, hair included) about a sixth and a half of the height: a mannequin's is over 7.
    const headParts = [...vertices('Skin'), ...vertices('Hair')].filter((v) => v.joint === 'Head').map((v) => v.at[1]);
    const chin = Math.min(...vertices('Skin').filter((v) => v.joint === 'Head' && Math.abs(v.at[0]) < 0.01 && v.at[2] > 0).map((v) => v.at[1]));
    expect(height / (Math.max(...headParts) - chin)).toBeGreaterThan(5.5);
    expect(height / (Math.max(...headParts) - chin)).toBeLessThan(6.8);
    // The chest a quarter wider than the waist (the shirt's torso: vertices following the spine's joints, not the arms').
    const torso = vertices('Shirt').filter((v) => v.joint === 'Hips' || v.joint === 'Spine' || v.joint === 'Chest');
    const halfWidth = (y0: number, y1: number) => Math.max(...torso.filter((v) => v.at[1] > y0 && v.at[1] < y1).map((v) => Math.abs(v.at[0])));
    expect(halfWidth(1.26, 1.34) / halfWidth(1.04, 1.1)).toBeGreaterThan(1.25);
    // A seat: the trousers' hips reach further back than forward.
    const hips = vertices('Denim').filter((v) => v.joint === 'Hips').map((v) => v.at[2]);
    expect(-Math.min(...hips) - Math.max(...hips)).toBeGreaterThan(0.02);
    // A forearm that swells below the elbow and narrows to the wrist.
    const wrist = head('Hand.L'), elbow = head('LowerArm.L');
    const radiusAt = (t: number) => {
      const axis = [0, 1, 2].map((c) => wrist[c] - elbow[c]) as V3, length = len(axis);
      return Math.max(...vertices('Shirt').filter((v) => v.joint === 'LowerArm.L' || v.joint === 'UpperArm.L').flatMap((v) => {
        const d = sub(v.at, [elbow[0], elbow[1], elbow[2]]), along = dot(d, axis) / length;
        return Math.abs(along - t * length) < 0.01 ? [len(cross(d, axis)) / length] : [];
      }));
    };
    expect(radiusAt(0.2) / radiusAt(0)).toBeGreaterThan(1.08);
    expect(radiusAt(0.2) / radiusAt(0.95)).toBeGreaterThan(1.2);
  });

  it('stands on the ground, Y up, facing +Z with its left hand at +X', () => {
    expect(head('Head')[1]).toBeGreaterThan(head('Hips')[1]);
    expect(head('Hand.L')[0]).toBeGreaterThan(0.3);
    expect(head('Hand.R')[0]).toBeLessThan(-0.3);
    const mins = json.meshes[0].primitives.map((p) => json.accessors[p.attributes.POSITION].min!);
    const maxs = json.meshes[0].primitives.map((p) => json.accessors[p.attributes.POSITION].max!);
    expect(Math.min(...mins.map((m) => m[1]))).toBeCloseTo(0, 2);
    expect(Math.max(...maxs.map((m) => m[1]))).toBeGreaterThan(1.7);
    // The toes reach further forward (+Z) than the heels go back.
    expect(Math.max(...maxs.map((m) => m[2]))).toBeGreaterThan(-Math.min(...mins.map((m) => m[2])));
  });

  it('walks forward: the Walk moves its Root along +Z, steadily, one stride per loop, and nothing else sideways', () => {
    const walk = json.animations.find((a) => a.name === 'Walk')!;
    const root = json.nodes.findIndex((n) => n.name === 'Root');
    const rootTracks = walk.channels.filter((ch) => ch.target.node === root);
    expect(rootTracks.map((ch) => ch.target.path)).toEqual(['translation']);
    const s = walk.samplers[rootTracks[0].sampler];
    const times = read(s.input), values = read(s.output);
    const duration = times[times.length - 1];
    for (let k = 0; k < times.length; k++) {
      expect(values[3 * k]).toBe(0);
      expect(values[3 * k + 1]).toBe(0);
      expect(values[3 * k + 2]).toBeCloseTo((WALK_STRIDE * times[k]) / duration, 6);
    }
    // An ordinary walking pace: 1–2 m/s.
    expect(WALK_STRIDE / duration).toBeGreaterThan(1);
    expect(WALK_STRIDE / duration).toBeLessThan(2);
  });

  it('has rotated bones in the rest pose, so most IBMs are more than translations', () => {
    const ibm = read(json.skins[0].inverseBindMatrices!);
    const identity = mat4.identity();
    let rotated = 0;
    for (let j = 0; j < names.length; j++) {
      if ([0, 1, 2, 4, 5, 6, 8, 9, 10].some((k) => Math.abs(ibm[16 * j + k] - identity[k]) > 1e-3)) rotated++;
    }
    expect(rotated).toBe(14); // 4 arm and 3 leg joints per side
  });

  it('carries both tangent handednesses (mirrored UVs on the right side)', () => {
    const ws = new Set<number>();
    for (const p of json.meshes[0].primitives) {
      const tan = read(p.attributes.TANGENT);
      for (let i = 3; i < tan.length; i += 4) ws.add(tan[i]);
    }
    expect([...ws].sort()).toEqual([-1, 1]);
  });
});

describe('builtin twist-cylinder specifics', () => {
  const { json, read } = open('twist-cylinder');
  const anim = json.animations[0];
  const rotations = read(anim.samplers[anim.channels[0].sampler].output);

  it('twists the middle joint from 0 to 180° about Y', () => {
    expect(json.nodes[anim.channels[0].target.node!].name).toBe('Middle');
    expect(Array.from(rotations.slice(0, 4))).toEqual([0, 0, 0, 1]);
    const last = Array.from(rotations.slice(rotations.length - 4));
    expect(Math.abs(last[1])).toBeCloseTo(1, 6);
    expect(last[3]).toBeCloseTo(0, 6);
  });

  it('is chequered in vertex colours, so its twist shows: the colour changes around the side and along it', () => {
    const p = json.meshes[0].primitives[0];
    const pos = read(p.attributes.POSITION);
    const colours = read(p.attributes.COLOR_0!);
    const key = (v: number) => Array.from(colours.slice(4 * v, 4 * v + 3), (c) => c.toFixed(3)).join(' ');
    /** The distinct colours met going once around the side at height h (side vertices only, not the caps' centres). */
    const around = (h: number) => {
      const ring: [angle: number, colour: string][] = [];
      for (let v = 0; v < pos.length / 3; v++) {
        const [x, y, z] = at3(pos, v);
        if (Math.abs(y - h) < 1e-6 && Math.hypot(x, z) > 0.2) ring.push([Math.atan2(z, x), key(v)]);
      }
      ring.sort((a, b) => a[0] - b[0]);
      let changes = 0;
      for (let i = 0; i < ring.length; i++) if (ring[i][1] !== ring[(i + 1) % ring.length][1]) changes++;
      return { colours: new Set(ring.map(([, c]) => c)).size, changes };
    };
    // At the waist, where the twist and the collapse are: two colours, alternating in stripes (8 columns: 8 changes, seam duplicates aside).
    const waist = around(1.1);
    expect(waist.colours).toBe(2);
    expect(waist.changes).toBeGreaterThanOrEqual(8);
    // Along the side, a column changes colour too: its rows show where the waist pinches.
    const column = new Set<string>();
    for (let v = 0; v < pos.length / 3; v++) {
      const [x, y, z] = at3(pos, v);
      if (Math.abs(Math.atan2(z, x) - Math.PI / 8) < 1e-4 && Math.hypot(x, z) > 0.2 && y > 0.05 && y < 1.95) column.add(key(v));
    }
    expect(column.size).toBe(2);
    expect(Array.from(json.materials[p.material!].pbrMetallicRoughness!.baseColorFactor!)).toEqual([1, 1, 1, 1]);
  });

  it('collapses the blended middle under linear blend skinning at 180° (candy wrapper)', () => {
    const globals = restGlobals(json);
    const [base, middle] = json.skins[0].joints;
    const ibm = read(json.skins[0].inverseBindMatrices!);
    const twisted = mat4.multiply(
      globals[base],
      mat4.multiply(mat4.translation(json.nodes[middle].translation!), mat4.fromQuat(Array.from(rotations.slice(rotations.length - 4)))),
    );
    const palette = [globals[base], twisted].map((g, j) => mat4.multiply(g, Float32Array.from({ length: 16 }, (_, k) => ibm[16 * j + k])));
    const p = json.meshes[0].primitives[0];
    const pos = read(p.attributes.POSITION);
    const joints = read(p.attributes.JOINTS_0);
    const weights = read(p.attributes.WEIGHTS_0);
    let atMiddle = 0;
    for (let v = 0; v < pos.length / 3; v++) {
      const rest = at3(pos, v);
      if (Math.abs(rest[1] - 1) > 1e-6 || Math.hypot(rest[0], rest[2]) < 0.2) continue;
      const skinned = [0, 0, 0];
      for (let k = 0; k < 4; k++) {
        const q = vec3.transformMat4(rest, palette[joints[4 * v + k]]);
        for (let c = 0; c < 3; c++) skinned[c] += weights[4 * v + k] * q[c];
      }
      expect(Math.hypot(skinned[0], skinned[2])).toBeLessThan(1e-3);
      atMiddle++;
    }
    expect(atMiddle).toBeGreaterThan(8);
  });
});

describe('builtin limb specifics', () => {
  const { json, read } = open('limb');

  it('has a rotated rest pose, so its IBMs are more than translations', () => {
    const ibm = read(json.skins[0].inverseBindMatrices!);
    // Upper-left 3×3 of the first IBM is a 90° rotation, not the identity.
    expect(Math.abs(ibm[0])).toBeLessThan(1e-6);
    expect(Math.abs(ibm[1])).toBeCloseTo(1, 6);
  });
});

describe('builtin helpers', () => {
  it('addClip keeps rotation keys in one hemisphere and ends on the duration', () => {
    const b = new GltfBuilder();
    const node = b.addNode({});
    // The same slow turn about Y, but every other key arrives negated (q and -q).
    addClip(b, [node], {
      name: 'Flip',
      duration: 1,
      fps: 4,
      loop: false,
      tracks: [{ joint: 0, path: 'rotation', at: (t) => { const q = quat.fromAxisAngle([0, 1, 0], t); return Math.round(t * 4) % 2 ? quat.scale(q, -1) : q; } }],
    });
    const { json, read } = openGlb(b.toGlb());
    const anim = json.animations[0];
    expect(Array.from(read(anim.samplers[0].input))).toEqual([0, 0.25, 0.5, 0.75, 1]);
    const q = read(anim.samplers[0].output);
    for (let k = 0; k < 5; k++) {
      expect(q[4 * k + 3]).toBeGreaterThan(0); // w = cos(t/2) > 0 once signs are made continuous
      expect(q[4 * k + 1]).toBeCloseTo(Math.sin(k / 8), 6);
    }
  });

  it('addClip refuses a looping clip that does not return to its start', () => {
    const b = new GltfBuilder();
    expect(() =>
      addClip(b, [b.addNode({})], { name: 'Drift', duration: 1, fps: 10, loop: true, tracks: [{ joint: 0, path: 'translation', at: (t) => [t, 0, 0] }] }),
    ).toThrow(/Drift.*does not loop/);
  });

  it('normalizeInfluences keeps the four strongest, merges duplicates and sums to 1', () => {
    const out = normalizeInfluences([[3, 0.1], [1, 0.2], [7, 0.05], [1, 0.2], [2, 0.3], [5, 0.15]]);
    expect(out.map(([j]) => j)).toEqual([1, 2, 5, 3]);
    expect(out.reduce((s, [, w]) => s + w, 0)).toBeCloseTo(1, 12);
    expect(out[0][1]).toBeCloseTo(0.4 / 0.95, 12);
    expect(normalizeInfluences([[4, 2]])).toEqual([[4, 1], [0, 0], [0, 0], [0, 0]]);
    expect(() => normalizeInfluences([[1, 0]])).toThrow(/no influence/);
    expect(() => normalizeInfluences([[1, -0.5], [2, 1]])).toThrow(/negative/);
  });
});
