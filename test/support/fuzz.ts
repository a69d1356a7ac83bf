import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { GltfError } from '../../src/gltf/errors.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Model } from '../../src/gltf/model.ts';
import { bakeModel } from '../../src/bake/bake.ts';
import { ktx2UploadBudget, isKtx2Image } from '../../src/gpu/textures/ktx2-texture.ts';
import { FEATURE_BC, transcodeKtx2 } from '../../src/gpu/textures/ktx2-transcode.ts';
import type { AssetFile } from './assets.ts';

/**
 * A deterministic fuzzer for the glTF loader: each case is a shared asset with one to a
 * few mutations, derived only from (seed, case index), so any failure is reproduced by
 * its index alone. Mutations work on raw bytes (bit flips, truncation, GLB length lies),
 * on the JSON (hostile values for every field, graph surgery) and on the binary data
 * behind accessors (NaN in matrices and keys, decreasing times, joints out of range).
 */

// ---------------------------------------------------------------- PRNG

/** sfc32: small, fast, and good enough to spread mutations; seeded from two integers. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, stream = 0) {
    this.a = 0x9e3779b9 ^ seed;
    this.b = 0x243f6a88 ^ stream;
    this.c = 0xb7e15162;
    this.d = 1;
    for (let i = 0; i < 12; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
}

// ---------------------------------------------------------------- sources

/** Untrusted JSON being mutated: any shape at all. */
type Json = any;
type JsonPath = readonly (string | number)[];

/** Accessors by what uses them, so binary mutations hit data that matters. */
interface AccessorRoles {
  readonly float: number[];
  readonly times: number[];
  readonly joints: number[];
  readonly weights: number[];
  readonly indices: number[];
}

/** A shared asset decoded once: its bytes, JSON, binary buffers and every JSON path. */
export interface FuzzSource {
  readonly name: string;
  readonly bytes: Uint8Array;
  readonly glb: boolean;
  /** Byte range of the JSON text inside `bytes` (the whole file for .gltf). */
  readonly jsonStart: number;
  readonly jsonEnd: number;
  readonly json: Json;
  /** Decoded buffers; for a GLB, buffers[0] is the BIN chunk when the JSON says so. */
  readonly buffers: readonly Uint8Array[];
  /** Every value's path in the JSON, except long strings (data URIs). */
  readonly paths: readonly JsonPath[];
  readonly roles: AccessorRoles;
  /** Byte ranges inside `bytes` of compressed data (Draco bufferViews, KTX2 images in the GLB's BIN), where bit flips also land. */
  readonly compressed: readonly (readonly [number, number])[];
}

export function loadFuzzSources(assets: readonly AssetFile[]): FuzzSource[] {
  return assets.map((a) => decodeSource(a.name, new Uint8Array(readFileSync(a.path))));
}

/** A source from bytes made at test time (a compressed variant of an asset, say); embedded buffers only. */
export function fuzzSourceOf(name: string, bytes: Uint8Array): FuzzSource {
  return decodeSource(name, bytes);
}

function decodeSource(name: string, bytes: Uint8Array): FuzzSource {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const glb = bytes.byteLength >= 20 && dv.getUint32(0, true) === 0x46546c67;
  let jsonStart = 0, jsonEnd = bytes.byteLength;
  let bin: Uint8Array | undefined;
  if (glb) {
    const jsonLength = dv.getUint32(12, true);
    jsonStart = 20;
    jsonEnd = 20 + jsonLength;
    const binAt = 20 + ((jsonLength + 3) & ~3);
    if (binAt + 8 <= bytes.byteLength) bin = bytes.subarray(binAt + 8, binAt + 8 + dv.getUint32(binAt, true));
  }
  const binStart = bin ? bin.byteOffset - bytes.byteOffset : 0;
  const json = JSON.parse(new TextDecoder().decode(bytes.subarray(jsonStart, jsonEnd)));
  const buffers = (json.buffers ?? []).map((b: Json, i: number) => {
    if (b.uri === undefined) return i === 0 && bin ? bin : new Uint8Array(0);
    const m = /^data:[^,]*;base64,(.*)$/.exec(b.uri);
    if (!m) throw new Error(`${name}: buffers[${i}] is not embedded; the fuzzer only reads embedded assets`);
    return new Uint8Array(Buffer.from(m[1], 'base64'));
  });
  const paths: JsonPath[] = [];
  const walk = (v: Json, path: (string | number)[]) => {
    if (typeof v === 'string' && v.length > 200) return;
    paths.push(path);
    if (v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else for (const k of Object.keys(v)) walk(v[k], [...path, k]);
    // Drafts copy what they edit and never write into the source (frozen: a write would throw),
    // so a source object's JSON text can be kept for every case (see `jsonText`).
    Object.freeze(v);
    SOURCE_OBJECTS.add(v);
  };
  walk(json, []);
  const roles: AccessorRoles = { float: [], times: [], joints: [], weights: [], indices: [] };
  for (const s of json.skins ?? []) if (s.inverseBindMatrices !== undefined) roles.float.push(s.inverseBindMatrices);
  for (const m of json.meshes ?? []) {
    for (const p of m.primitives ?? []) {
      for (const [k, v] of Object.entries(p.attributes ?? {})) {
        if (k.startsWith('JOINTS')) roles.joints.push(v as number);
        else if (k.startsWith('WEIGHTS')) roles.weights.push(v as number);
        else roles.float.push(v as number);
      }
      if (p.indices !== undefined) roles.indices.push(p.indices);
    }
  }
  for (const a of json.animations ?? []) {
    for (const s of a.samplers ?? []) {
      roles.times.push(s.input);
      roles.float.push(s.output);
    }
  }
  const compressed: [number, number][] = [];
  for (const m of json.meshes ?? []) {
    for (const p of m.primitives ?? []) {
      const view = json.bufferViews?.[p.extensions?.KHR_draco_mesh_compression?.bufferView];
      if (bin && view && (view.buffer ?? 0) === 0) compressed.push([binStart + (view.byteOffset ?? 0), binStart + (view.byteOffset ?? 0) + view.byteLength]);
    }
  }
  // KHR_texture_basisu: KTX2 images in the BIN chunk (header, level index, BasisLZ/UASTC data).
  for (const image of json.images ?? []) {
    const view = json.bufferViews?.[image.bufferView];
    if (image.mimeType === 'image/ktx2' && bin && view && (view.buffer ?? 0) === 0) compressed.push([binStart + (view.byteOffset ?? 0), binStart + (view.byteOffset ?? 0) + view.byteLength]);
  }
  return { name, bytes, glb, jsonStart, jsonEnd, json, buffers, paths, roles, compressed };
}

// ---------------------------------------------------------------- a mutable copy

/** A raw JSON number token (1e400 parses to Infinity; JSON.stringify cannot write it). */
const raw = (token: string) => `@@RAW:${token}@@`;
const COMPONENT_SIZE: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };
const TYPE_SIZE: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };

/**
 * Copy-on-write editing of a source: containers on the way to an edit are copied once,
 * so a mutation of a 450 KB JSON costs a few shallow copies, not a deep clone.
 */
class Draft {
  readonly root: Json;
  private readonly copied = new Set<object>();
  readonly buffers: Uint8Array[];
  private readonly changedBuffers = new Set<number>();

  constructor(readonly source: FuzzSource) {
    this.root = { ...source.json };
    this.copied.add(this.root);
    this.buffers = [...source.buffers];
  }

  get(path: JsonPath): Json {
    let v = this.root;
    for (const k of path) {
      if (v === null || typeof v !== 'object') return undefined;
      v = v[k];
    }
    return v;
  }

  /** The container at `path`, made writable (undefined when there is none). */
  edit(path: JsonPath): Json {
    let cur = this.root;
    for (const k of path) {
      const child = cur[k];
      if (child === null || typeof child !== 'object') return undefined;
      if (!this.copied.has(child)) {
        const copy = Array.isArray(child) ? child.slice() : { ...child };
        cur[k] = copy;
        this.copied.add(copy);
        cur = copy;
      } else {
        cur = child;
      }
    }
    return cur;
  }

  set(path: JsonPath, value: unknown): void {
    if (path.length === 0) return;
    const parent = this.edit(path.slice(0, -1));
    if (parent !== undefined) parent[path[path.length - 1]] = value;
  }

  remove(path: JsonPath): void {
    const parent = this.edit(path.slice(0, -1));
    const key = path[path.length - 1];
    if (parent === undefined) return;
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  }

  /** Length of a top-level array (0 when missing or not an array). */
  count(key: string): number {
    const v = this.root[key];
    return Array.isArray(v) ? v.length : 0;
  }

  /** Appends to a top-level array, creating it; returns the new index. */
  push(key: string, value: unknown): number {
    if (!Array.isArray(this.root[key])) this.root[key] = [];
    return this.edit([key]).push(value) - 1;
  }

  /** A new embedded buffer and a bufferView over all of it; returns the bufferView index. */
  addData(bytes: Uint8Array, byteStride?: number): number {
    const buffer = this.push('buffers', { byteLength: bytes.byteLength, uri: dataUri(bytes) });
    return this.push('bufferViews', { buffer, byteLength: bytes.byteLength, ...(byteStride ? { byteStride } : {}) });
  }

  /** Where element `e`, component `c` of accessor `a` lives in the buffers, if it is in range. */
  locate(a: number, e: number, c: number): { buffer: number; offset: number; size: number; componentType: number } | undefined {
    const acc = this.get(['accessors', a]);
    if (!acc || typeof acc !== 'object' || acc.bufferView === undefined) return undefined;
    const view = this.get(['bufferViews', acc.bufferView]);
    const size = COMPONENT_SIZE[acc.componentType];
    const comps = TYPE_SIZE[acc.type];
    if (!view || !size || !comps || typeof view.buffer !== 'number' || !this.buffers[view.buffer]) return undefined;
    const stride = view.byteStride || size * comps;
    const offset = (view.byteOffset ?? 0) + (acc.byteOffset ?? 0) + e * stride + c * size;
    if (!(offset >= 0 && offset + size <= this.buffers[view.buffer].byteLength)) return undefined;
    return { buffer: view.buffer, offset, size, componentType: acc.componentType };
  }

  /** Writes `value` (converted to the component type) into an accessor's binary data. */
  write(a: number, e: number, c: number, value: number): boolean {
    const at = this.locate(a, e, c);
    if (!at) return false;
    if (!this.changedBuffers.has(at.buffer)) {
      this.buffers[at.buffer] = this.buffers[at.buffer].slice();
      this.changedBuffers.add(at.buffer);
    }
    const b = this.buffers[at.buffer];
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    switch (at.componentType) {
      case 5126: dv.setFloat32(at.offset, value, true); break;
      case 5125: dv.setUint32(at.offset, value >>> 0, true); break;
      case 5123: dv.setUint16(at.offset, value & 0xffff, true); break;
      case 5122: dv.setInt16(at.offset, value, true); break;
      case 5121: dv.setUint8(at.offset, value & 0xff); break;
      default: dv.setInt8(at.offset, value); break;
    }
    return true;
  }

  read(a: number, e: number, c: number): number | undefined {
    const at = this.locate(a, e, c);
    if (!at) return undefined;
    const b = this.buffers[at.buffer];
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    switch (at.componentType) {
      case 5126: return dv.getFloat32(at.offset, true);
      case 5125: return dv.getUint32(at.offset, true);
      case 5123: return dv.getUint16(at.offset, true);
      case 5122: return dv.getInt16(at.offset, true);
      case 5121: return dv.getUint8(at.offset);
      default: return dv.getInt8(at.offset);
    }
  }

  encode(stringify: (value: unknown) => string | undefined): Uint8Array {
    const src = this.source;
    // Embedded buffers whose bytes changed get a new data URI; a GLB's BIN chunk is rewritten.
    for (const i of this.changedBuffers) {
      const entry = this.get(['buffers', i]);
      if (entry && typeof entry === 'object' && typeof entry.uri === 'string') this.set(['buffers', i, 'uri'], dataUri(this.buffers[i]));
    }
    let text = stringify(this.root)!;
    if (text.includes('@@RAW:')) text = text.replace(/"@@RAW:(.*?)@@"/g, '$1');
    const json = new TextEncoder().encode(text);
    if (!src.glb) return json;
    const binEntry = src.json.buffers?.[0];
    const bin = binEntry && binEntry.uri === undefined ? this.buffers[0] : undefined;
    return glbOf(json, bin);
  }
}

/** Every object and array of every source's JSON (frozen). */
const SOURCE_OBJECTS = new WeakSet<object>();
/** `JSON.stringify` of source objects, made once for all cases. */
const SOURCE_TEXT = new WeakMap<object, string>();

/**
 * `JSON.stringify(value)`, the same text, reusing the text of every part a draft left as the
 * source has it: a case edits a few values, but re-encoding a 450 KB JSON whole was about a
 * tenth of the fuzzer's time. Keys in JSON.stringify's order (Object.keys), undefined and
 * functions left out of objects and written `null` in arrays, as it does.
 */
export function jsonText(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (SOURCE_OBJECTS.has(value)) {
    let text = SOURCE_TEXT.get(value);
    if (text === undefined) SOURCE_TEXT.set(value, text = JSON.stringify(value));
    return text;
  }
  if (Array.isArray(value)) {
    const parts: string[] = [];
    for (let i = 0; i < value.length; i++) parts.push(jsonText(value[i]) ?? 'null');
    return `[${parts.join(',')}]`;
  }
  const parts: string[] = [];
  for (const key of Object.keys(value)) {
    const text = jsonText((value as Record<string, unknown>)[key]);
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

function dataUri(bytes: Uint8Array): string {
  return `data:application/octet-stream;base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}`;
}

/** A GLB of a JSON chunk and an optional BIN chunk, both padded to 4 bytes. */
export function glbOf(json: Uint8Array, bin?: Uint8Array): Uint8Array {
  const jsonLength = (json.byteLength + 3) & ~3;
  const binLength = bin ? (bin.byteLength + 3) & ~3 : 0;
  const total = 12 + 8 + jsonLength + (bin ? 8 + binLength : 0);
  const out = new Uint8Array(total);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, 0x46546c67, true);
  dv.setUint32(4, 2, true);
  dv.setUint32(8, total, true);
  dv.setUint32(12, jsonLength, true);
  dv.setUint32(16, 0x4e4f534a, true);
  out.set(json, 20);
  out.fill(0x20, 20 + json.byteLength, 20 + jsonLength);
  if (bin) {
    dv.setUint32(20 + jsonLength, binLength, true);
    dv.setUint32(24 + jsonLength, 0x004e4942, true);
    out.set(bin, 28 + jsonLength);
  }
  return out;
}

// ---------------------------------------------------------------- mutations

/** Which top-level array a key's value indexes (for in-range and just-out-of-range indices). */
const INDEX_OF: Record<string, string> = {
  bufferView: 'bufferViews', buffer: 'buffers', mesh: 'meshes', skin: 'skins', skeleton: 'nodes', node: 'nodes',
  children: 'nodes', joints: 'nodes', nodes: 'nodes', scene: 'scenes', material: 'materials', source: 'images',
  index: 'textures', inverseBindMatrices: 'accessors', indices: 'accessors', input: 'accessors', output: 'accessors',
  POSITION: 'accessors', NORMAL: 'accessors', TANGENT: 'accessors', TEXCOORD_0: 'accessors', TEXCOORD_1: 'accessors',
  COLOR_0: 'accessors', JOINTS_0: 'accessors', WEIGHTS_0: 'accessors', JOINTS_1: 'accessors', WEIGHTS_1: 'accessors',
};

const ANY_VALUES: readonly unknown[] = [
  -1, 0, 1, 2, 3, 4, 7, 255, 256, 65535, 65536, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53, -(2 ** 31), 0.5, 1.5, 1e308, -1e308,
  raw('1e400'), raw('-1e400'), raw('1e-400'), raw('-0'), '', 'x', '0', '__proto__', 'constructor', null, true, false, {}, [], [0], [null], [-1],
  ['a'], [[[[[]]]]], { '__proto__': 1 }, raw(`${'['.repeat(100_000)}0${']'.repeat(100_000)}`),
];

const KEY_VALUES: Record<string, readonly unknown[]> = {
  componentType: [5120, 5121, 5122, 5123, 5124, 5125, 5126, 0, 5127],
  type: ['SCALAR', 'VEC2', 'VEC3', 'VEC4', 'MAT2', 'MAT3', 'MAT4', 'vec3', 'constructor', 'toString'],
  interpolation: ['LINEAR', 'STEP', 'CUBICSPLINE', 'linear', 'constructor', '__proto__'],
  path: ['translation', 'rotation', 'scale', 'weights', 'pointer', 'matrix', 'constructor', '__proto__', 'hasOwnProperty'],
  mode: [0, 1, 2, 3, 4, 5, 6, 7],
  byteStride: [0, 1, 2, 3, 4, 6, 8, 12, 16, 32, 252, 256, 2 ** 31],
  normalized: [true, false],
  count: [0, 1, 2, 3, 2 ** 20, 2 ** 24, 2 ** 31, 2 ** 32 - 1, 2 ** 53 - 1],
  byteOffset: [1, 2, 3, 4, 8, 2 ** 31, 2 ** 53 - 1],
  byteLength: [0, 1, 3, 4, 2 ** 31, 2 ** 53 - 1],
  alphaMode: ['OPAQUE', 'MASK', 'BLEND', 'toString'],
  version: ['2.0', '2.1', '1.0', '3.0', '2', '2.0.0'],
  uri: [
    'x.bin', '../../etc/passwd', '/etc/passwd', 'file:///etc/passwd', '..%2F..%2Fetc%2Fpasswd', '%zz', 'data:', 'data:,%E0%A4%A',
    'data:application/octet-stream;base64,!!!!', 'data:application/octet-stream;base64,AAAA', 'javascript:alert(1)', '',
  ],
  matrix: [[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], [1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    [1e308, 1e308, 1e308, 0, 1e308, 1e308, 1e308, 0, 0, 0, 1, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, raw('1e400'), 0, 0, 1]],
  rotation: [[0, 0, 0, 0], [0, 0, 0, 2], [1e308, 1e308, 0, 0], [0, 0, 0, raw('1e400')], [0, 0, 1]],
  translation: [[raw('1e400'), 0, 0], [1e308, -1e308, 1e308], [0, 0]],
  scale: [[0, 0, 0], [raw('-1e400'), 1, 1], [1e308, 1e308, 1e308], [-1, 1, 1]],
  weights: [[], [0.5], [raw('1e400')], [1, 2, 3, 4, 5, 6, 7, 8]],
  extensionsRequired: [['KHR_draco_mesh_compression'], [[[[[[[1]]]]]]], [{}], raw(`[${'['.repeat(100_000)}0${']'.repeat(100_000)}]`)],
};

/** Replaces one JSON value with something hostile: wrong type, negative, huge, out of range. */
function mutateValue(rng: Rng, d: Draft): string {
  const path = rng.pick(d.source.paths);
  if (path.length === 0) return 'root kept';
  const key = path[path.length - 1];
  const namedKey = typeof key === 'string' ? key : (path[path.length - 2] as string);
  const choices: unknown[] = [];
  const table = INDEX_OF[namedKey];
  if (table) {
    const n = d.count(table);
    choices.push(n, n + 1, n - 1, rng.int(Math.max(n, 1)), rng.int(Math.max(n, 1)));
  }
  const special = KEY_VALUES[namedKey];
  let value: unknown;
  if (special && rng.chance(0.6)) value = rng.pick(special);
  else if (choices.length > 0 && rng.chance(0.5)) value = rng.pick(choices);
  else value = rng.pick(ANY_VALUES);
  d.set(path, value);
  return `${path.join('.')} = ${JSON.stringify(value)}`;
}

function deleteValue(rng: Rng, d: Draft): string {
  const path = rng.pick(d.source.paths);
  if (path.length === 0) return 'root kept';
  d.remove(path);
  return `delete ${path.join('.')}`;
}

/** Node indices that have a parent, and their parent. */
function parents(d: Draft): Map<number, number> {
  const out = new Map<number, number>();
  const nodes = d.get(['nodes']);
  if (!Array.isArray(nodes)) return out;
  nodes.forEach((n: Json, i: number) => {
    if (Array.isArray(n?.children)) for (const c of n.children) if (typeof c === 'number' && c >= 0 && c < nodes.length) out.set(c, i);
  });
  return out;
}

const GRAPH_MUTATIONS: readonly ((rng: Rng, d: Draft) => string)[] = [
  function cycle(rng, d) {
    const up = parents(d);
    const nodes = d.count('nodes');
    if (nodes === 0) return 'no nodes';
    let n = rng.int(nodes);
    if (up.size > 0 && rng.chance(0.8)) n = rng.pick([...up.keys()]);
    let ancestor = n;
    for (let steps = rng.int(4); steps > 0 && up.has(ancestor); steps--) ancestor = up.get(ancestor)!;
    const node = d.edit(['nodes', n]);
    if (!node || typeof node !== 'object') return 'node not an object';
    node.children = [...(Array.isArray(node.children) ? node.children : []), ancestor];
    return `cycle: nodes[${n}].children += ${ancestor}`;
  },
  function twoParents(rng, d) {
    const up = parents(d);
    const nodes = d.count('nodes');
    if (up.size === 0 || nodes < 2) return 'no child nodes';
    const c = rng.pick([...up.keys()]);
    let q = rng.int(nodes);
    if (q === up.get(c)) q = (q + 1) % nodes;
    const node = d.edit(['nodes', q]);
    if (!node || typeof node !== 'object') return 'node not an object';
    node.children = [...(Array.isArray(node.children) ? node.children : []), c];
    return `two parents: nodes[${q}].children += ${c}`;
  },
  function childTwice(rng, d) {
    const up = parents(d);
    if (up.size === 0) return 'no child nodes';
    const c = rng.pick([...up.keys()]);
    const p = up.get(c)!;
    const children = d.edit(['nodes', p, 'children']);
    if (!Array.isArray(children)) return 'children not an array';
    children.push(c);
    return `nodes[${p}].children lists ${c} twice`;
  },
  function sceneTwice(rng, d) {
    const scenes = d.count('scenes');
    if (scenes === 0) return 'no scenes';
    const s = rng.int(scenes);
    const list = d.edit(['scenes', s, 'nodes']);
    if (!Array.isArray(list) || list.length === 0) return 'empty scene';
    if (rng.chance(0.5)) {
      list.push(rng.pick(list));
      return `scenes[${s}].nodes lists a root twice`;
    }
    const up = parents(d);
    if (up.size === 0) return 'no child nodes';
    const c = rng.pick([...up.keys()]);
    list.push(c);
    return `scenes[${s}].nodes += non-root ${c}`;
  },
  function jointOutsideScene(rng, d) {
    const skins = d.count('skins');
    if (skins === 0) return 'no skins';
    const s = rng.int(skins);
    const n = d.push('nodes', { name: 'stray' });
    const joints = d.edit(['skins', s, 'joints']);
    if (!Array.isArray(joints)) return 'joints not an array';
    if (rng.chance(0.5)) {
      // Also a scene root: the joints then have no common root.
      const scene = d.edit(['scenes', 0, 'nodes']);
      if (Array.isArray(scene)) scene.push(n);
    }
    if (rng.chance(0.5) && joints.length > 0) joints[rng.int(joints.length)] = n;
    else joints.push(n);
    return `skins[${s}].joints gets unparented nodes[${n}]`;
  },
  function skeletonAnywhere(rng, d) {
    const skins = d.count('skins');
    if (skins === 0) return 'no skins';
    const s = rng.int(skins);
    const node = rng.int(d.count('nodes') + 1);
    d.set(['skins', s, 'skeleton'], node);
    return `skins[${s}].skeleton = ${node}`;
  },
  function jointTwice(rng, d) {
    const skins = d.count('skins');
    if (skins === 0) return 'no skins';
    const s = rng.int(skins);
    const joints = d.edit(['skins', s, 'joints']);
    if (!Array.isArray(joints) || joints.length === 0) return 'no joints';
    joints.push(rng.pick(joints));
    return `skins[${s}].joints lists a joint twice`;
  },
  function samplerNowhere(rng, d) {
    const anims = d.count('animations');
    if (anims === 0) return 'no animations';
    const a = rng.int(anims);
    const lengthOf = (v: Json) => (Array.isArray(v) ? v.length : 0);
    const samplers = lengthOf(d.get(['animations', a, 'samplers']));
    const channels = lengthOf(d.get(['animations', a, 'channels']));
    const accessors = d.count('accessors');
    const what = rng.int(4);
    if (what === 0 && channels > 0) {
      const c = rng.int(channels);
      d.set(['animations', a, 'channels', c, 'sampler'], samplers + rng.int(3));
      return `animations[${a}].channels[${c}].sampler points past the samplers`;
    }
    if (samplers === 0) return 'no samplers';
    const s = rng.int(samplers);
    const key = rng.pick(['input', 'output']);
    const value = what === 1 ? accessors + rng.int(3) : rng.int(accessors);
    d.set(['animations', a, 'samplers', s, key], value);
    return `animations[${a}].samplers[${s}].${key} = ${value}`;
  },
  function accessorTypeSwap(rng, d) {
    const n = d.count('accessors');
    if (n === 0) return 'no accessors';
    const a = rng.int(n);
    const acc = d.edit(['accessors', a]);
    if (!acc || typeof acc !== 'object') return 'accessor not an object';
    if (rng.chance(0.5)) acc.componentType = rng.pick([5120, 5121, 5122, 5123, 5125, 5126]);
    else acc.type = rng.pick(['SCALAR', 'VEC2', 'VEC3', 'VEC4', 'MAT2', 'MAT3', 'MAT4']);
    if (rng.chance(0.3)) acc.normalized = rng.chance(0.5);
    return `accessors[${a}] becomes ${acc.componentType} ${acc.type}${acc.normalized ? ' normalized' : ''}`;
  },
  function stride(rng, d) {
    const n = d.count('bufferViews');
    if (n === 0) return 'no bufferViews';
    const v = rng.int(n);
    const value = rng.pick([0, 1, 2, 4, 8, 12, 16, 20, 24, 28, 36, 64, 252, 256]);
    d.set(['bufferViews', v, 'byteStride'], value);
    return `bufferViews[${v}].byteStride = ${value}`;
  },
  function hugeCount(rng, d) {
    const n = d.count('accessors');
    if (n === 0) return 'no accessors';
    const a = rng.int(n);
    const acc = d.edit(['accessors', a]);
    if (!acc || typeof acc !== 'object') return 'accessor not an object';
    if (rng.chance(0.5)) delete acc.bufferView;
    acc.count = rng.pick([2 ** 20, 2 ** 22, 5592405, 2 ** 24, 2 ** 28, 2 ** 31, 2 ** 32, 2 ** 53 - 1]);
    return `accessors[${a}].count = ${acc.count}${acc.bufferView === undefined ? ' (no bufferView)' : ''}`;
  },
  function offsets(rng, d) {
    const target = rng.chance(0.5) ? 'accessors' : 'bufferViews';
    const n = d.count(target);
    if (n === 0) return `no ${target}`;
    const i = rng.int(n);
    const key = target === 'accessors' ? 'byteOffset' : rng.pick(['byteOffset', 'byteLength']);
    const value = rng.pick([-4, -1, 1, 2, 3, 4, 1024, 2 ** 31, 2 ** 32, 2 ** 53 - 1, 2 ** 53, raw('1e400')]);
    d.set([target, i, key], value);
    return `${target}[${i}].${key} = ${value}`;
  },
  function sparse(rng, d) {
    const n = d.count('accessors');
    if (n === 0) return 'no accessors';
    const a = rng.int(n);
    const acc = d.get(['accessors', a]);
    if (!acc || typeof acc !== 'object') return 'accessor not an object';
    const count = typeof acc.count === 'number' ? acc.count : 4;
    const k = 1 + rng.int(4);
    const indices = new Uint32Array(k);
    for (let i = 0; i < k; i++) indices[i] = rng.pick([i, count - 1, count, count + 1, 2 ** 31, 0xffffffff, k - i]);
    const comps = TYPE_SIZE[acc.type] ?? 1;
    const size = COMPONENT_SIZE[acc.componentType] ?? 4;
    const values = new Uint8Array(k * comps * size);
    for (let i = 0; i < values.length; i++) values[i] = rng.int(256);
    const iv = d.addData(new Uint8Array(indices.buffer));
    const vv = d.addData(values);
    const sparseCount = rng.chance(0.8) ? k : rng.pick([0, k + 1, count + 1, 2 ** 31]);
    d.set(['accessors', a, 'sparse'], { count: sparseCount, indices: { bufferView: iv, componentType: 5125 }, values: { bufferView: vv } });
    return `accessors[${a}].sparse over indices ${Array.from(indices).join(',')} (count ${sparseCount})`;
  },
  function morphWeights(rng, d) {
    const meshes = d.count('meshes');
    const nodes = d.count('nodes');
    if (rng.chance(0.5) && meshes > 0) {
      const m = rng.int(meshes);
      const w = Array.from({ length: rng.int(4) }, () => rng.next());
      d.set(['meshes', m, 'weights'], w);
      return `meshes[${m}].weights = ${w.length} values`;
    }
    if (nodes === 0) return 'no nodes';
    const n = rng.int(nodes);
    d.set(['nodes', n, 'weights'], [0.5, 0.5]);
    return `nodes[${n}].weights = [0.5, 0.5]`;
  },
  function matrixNode(rng, d) {
    const nodes = d.count('nodes');
    if (nodes === 0) return 'no nodes';
    const n = rng.int(nodes);
    const node = d.edit(['nodes', n]);
    if (!node || typeof node !== 'object') return 'node not an object';
    if (rng.chance(0.5)) {
      delete node.translation; delete node.rotation; delete node.scale;
    }
    node.matrix = rng.pick(KEY_VALUES.matrix);
    return `nodes[${n}].matrix = ${JSON.stringify(node.matrix)}`;
  },
];

function graphMutation(rng: Rng, d: Draft): string {
  return rng.pick(GRAPH_MUTATIONS)(rng, d);
}

const FLOAT_POISON = [NaN, Infinity, -Infinity, 3.4e38, -3.4e38, -0, 1e-45, 0];

/** Poisons the binary data behind an accessor the loader reads. */
function binaryMutation(rng: Rng, d: Draft): string {
  const roles = d.source.roles;
  const kinds = (['float', 'times', 'joints', 'weights', 'indices'] as const).filter((k) => roles[k].length > 0);
  if (kinds.length === 0) return 'no accessors';
  const kind = rng.pick(kinds);
  const a = rng.pick(roles[kind]);
  const acc = d.get(['accessors', a]);
  const count = typeof acc?.count === 'number' ? acc.count : 1;
  const comps = TYPE_SIZE[acc?.type] ?? 1;
  const e = rng.int(count);
  const c = rng.int(comps);
  let value: number;
  switch (kind) {
    case 'float': value = rng.pick(FLOAT_POISON); break;
    case 'times': {
      const previous = e > 0 ? d.read(a, e - 1, 0) ?? 0 : 0;
      value = rng.pick([previous - 0.5, -1, NaN, Infinity, previous - 1e-6]);
      break;
    }
    case 'joints': value = rng.pick([255, 65535, 1000, 7, 23, 24]); break;
    case 'weights': {
      if (rng.chance(0.5)) {
        for (let k = 0; k < comps; k++) d.write(a, e, k, 0);
        return `accessors[${a}] (weights) element ${e} all zero`;
      }
      value = rng.pick([-0.5, NaN, Infinity, 1e30, 2]);
      break;
    }
    default: value = rng.pick([65535, 0xffffffff, 1e6, count]); break;
  }
  const ok = d.write(a, e, c, value);
  return ok ? `accessors[${a}] (${kind}) element ${e}.${c} = ${value}` : `accessors[${a}] not in a buffer`;
}

// Byte-level mutations work on the file as it is.

function flipBits(rng: Rng, s: FuzzSource): { bytes: Uint8Array; label: string } {
  const bytes = s.bytes.slice();
  const flips = 1 + rng.int(8);
  const where: number[] = [];
  for (let i = 0; i < flips; i++) {
    // Half of the flips land in the JSON, where most of the structure is; in a file with
    // compressed meshes, half of them first land in the compressed data.
    let at: number;
    if (s.compressed.length > 0 && rng.chance(0.5)) {
      const [start, end] = rng.pick(s.compressed);
      at = start + rng.int(end - start);
    } else {
      at = rng.chance(0.5) ? s.jsonStart + rng.int(s.jsonEnd - s.jsonStart) : rng.int(bytes.length);
    }
    bytes[at] ^= 1 << rng.int(8);
    where.push(at);
  }
  return { bytes, label: `flip bits at ${where.join(',')}` };
}

function truncate(rng: Rng, s: FuzzSource): { bytes: Uint8Array; label: string } {
  const length = rng.chance(0.3) ? rng.int(64) : rng.int(s.bytes.length);
  return { bytes: s.bytes.slice(0, length), label: `truncate to ${length}` };
}

function splice(rng: Rng, s: FuzzSource): { bytes: Uint8Array; label: string } {
  const bytes = s.bytes.slice();
  const at = rng.chance(0.6) ? s.jsonStart + rng.int(s.jsonEnd - s.jsonStart) : rng.int(bytes.length);
  const n = 1 + rng.int(16);
  const fill = rng.pick([0, 0xff, 0x22, 0x7b, 0x5b, 0x30, -1]);
  for (let i = at; i < Math.min(at + n, bytes.length); i++) bytes[i] = fill < 0 ? rng.int(256) : fill;
  return { bytes, label: `overwrite ${n} bytes at ${at} with ${fill < 0 ? 'random' : fill}` };
}

function glbLengthLie(rng: Rng, s: FuzzSource): { bytes: Uint8Array; label: string } {
  if (!s.glb) return splice(rng, s);
  const bytes = s.bytes.slice();
  const dv = new DataView(bytes.buffer);
  const jsonLength = dv.getUint32(12, true);
  const binAt = 20 + ((jsonLength + 3) & ~3);
  const field = rng.pick(['header length', 'JSON chunk length', 'JSON chunk type', 'BIN chunk length', 'BIN chunk type', 'version']);
  const offset = { 'header length': 8, 'JSON chunk length': 12, 'JSON chunk type': 16, 'BIN chunk length': binAt, 'BIN chunk type': binAt + 4, version: 4 }[field]!;
  if (offset + 4 > bytes.length) return { bytes, label: 'no such field' };
  const old = dv.getUint32(offset, true);
  const value = rng.pick([0, 1, 2, 3, old - 1, old + 1, old + 4, old - 4, old * 2, 0x7fffffff, 0xffffffff, 0xfffffff8, rng.u32(), 0x4e4f534a, 0x004e4942]) >>> 0;
  dv.setUint32(offset, value, true);
  return { bytes, label: `GLB ${field} ${old} → ${value}` };
}

export interface FuzzCase {
  readonly index: number;
  readonly asset: string;
  readonly label: string;
  readonly bytes: Uint8Array;
}

const BYTE_MUTATIONS = [flipBits, truncate, splice, glbLengthLie];
const DRAFT_MUTATIONS = [mutateValue, mutateValue, mutateValue, deleteValue, graphMutation, graphMutation, graphMutation, binaryMutation, binaryMutation];

const schedules = new WeakMap<readonly FuzzSource[], number[]>();

/**
 * Which source case `index` mutates. Cases cycle through the sources, an asset with a
 * large JSON (slow to re-encode and parse, e.g. RecursiveSkeletons) a third as often.
 */
export function sourceOf(sources: readonly FuzzSource[], index: number): number {
  let schedule = schedules.get(sources);
  if (!schedule) {
    schedule = [];
    for (let round = 0; round < 3; round++) {
      sources.forEach((s, i) => { if (round === 0 || s.jsonEnd - s.jsonStart < 200_000) schedule!.push(i); });
    }
    schedules.set(sources, schedule);
  }
  return schedule[index % schedule.length];
}

/**
 * Case `index` of the run with `seed` (see `sourceOf`): its mutated bytes and what was done.
 * `stringify` writes the edited JSON (test/support/fuzz.test.ts passes JSON.stringify).
 */
export function makeCase(sources: readonly FuzzSource[], seed: number, index: number, stringify = jsonText): FuzzCase {
  const rng = new Rng(seed, index);
  const source = sources[sourceOf(sources, index)];
  if (rng.chance(0.3)) {
    const { bytes, label } = rng.pick(BYTE_MUTATIONS)(rng, source);
    return { index, asset: source.name, label, bytes };
  }
  const draft = new Draft(source);
  const labels: string[] = [];
  const n = rng.chance(0.7) ? 1 : 2 + rng.int(3);
  for (let i = 0; i < n; i++) labels.push(rng.pick(DRAFT_MUTATIONS)(rng, draft));
  return { index, asset: source.name, label: labels.join('; '), bytes: draft.encode(stringify) };
}

// ---------------------------------------------------------------- running and checking

interface Timing {
  /** Wall-clock milliseconds of the load. */
  readonly ms: number;
  /** CPU milliseconds of this process during the load (user + system): immune to other processes. */
  readonly cpuMs: number;
  readonly start: number;
  readonly end: number;
}

/** What a load of a case came to. */
export type LoadOutcome =
  | { readonly kind: 'loaded'; readonly model: Model }
  | { readonly kind: 'refused'; readonly error: GltfError }
  | { readonly kind: 'crashed'; readonly error: unknown };

export type Outcome = LoadOutcome & Timing;

/**
 * Loads the bytes as the CLI would, with external files unavailable. Untimed: the fuzzer's
 * path. `process.cpuUsage()` sums every thread's time in the kernel, which on the 2-vCPU VM
 * cost ~0.3 ms a call inside a test worker — two calls a case were ~7% of the fuzzer's CPU.
 */
export async function loadCase(bytes: Uint8Array): Promise<LoadOutcome> {
  try {
    const model = await loadGltf(bytes, {
      name: 'fuzz',
      resolveUri: async (uri) => { throw new Error(`no external files in the fuzzer (${uri})`); },
    });
    return { kind: 'loaded', model };
  } catch (error) {
    return error instanceof GltfError ? { kind: 'refused', error } : { kind: 'crashed', error };
  }
}

/** `loadCase` with the load's wall and CPU time (`npm run bench -- --hostile-loads`). */
export async function runCase(bytes: Uint8Array): Promise<Outcome> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const outcome = await loadCase(bytes);
  const end = performance.now();
  const used = process.cpuUsage(cpu);
  return { ...outcome, ms: end - start, cpuMs: (used.user + used.system) / 1000, start, end };
}

const finite = (a: ArrayLike<number> | undefined) => {
  if (!a) return true;
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) return false;
  return true;
};

/**
 * What the loader promises about a model it accepted, checked cheaply: a parent-first
 * hierarchy, finite data where it checks finiteness, joints within their skin, sane
 * samplers. Returns one line per broken promise (empty when sane).
 */
export function modelProblems(model: Model): string[] {
  const out: string[] = [];
  const h = model.hierarchy;
  const nodeCount = model.nodes.length;
  if (h.count !== nodeCount) out.push(`hierarchy.count ${h.count} ≠ ${nodeCount} nodes`);
  for (let slot = 0; slot < h.count; slot++) {
    const n = h.order[slot];
    if (h.slotOf[n] !== slot) out.push(`slotOf[order[${slot}]] ≠ ${slot}`);
    if (h.parentSlot[slot] >= slot) out.push(`slot ${slot} has parent slot ${h.parentSlot[slot]} (not parent-first)`);
    const parent = model.nodes[n].parent;
    if (h.parentSlot[slot] !== (parent < 0 ? -1 : h.slotOf[parent])) out.push(`slot ${slot} parent mismatch`);
  }
  if (!finite(h.restTranslation) || !finite(h.restRotation) || !finite(h.restScale) || !finite(h.restMatrix)) out.push('non-finite rest transform');
  for (let slot = 0; slot < h.count; slot++) {
    const r = h.restRotation.subarray(slot * 4, slot * 4 + 4);
    if (Math.abs(Math.hypot(r[0], r[1], r[2], r[3]) - 1) > 1e-6) out.push(`rest rotation of slot ${slot} not unit`);
  }
  model.nodes.forEach((node, n) => { if (!finite(node.weights)) out.push(`nodes[${n}].weights non-finite`); });
  model.meshes.forEach((mesh, m) => {
    mesh.primitives.forEach((p, pi) => {
      const at = `meshes[${m}].primitives[${pi}]`;
      const v = p.vertexCount;
      if (!(v >= 1) || p.positions.length !== v * 3) out.push(`${at}: ${p.positions.length} position values for ${v} vertices`);
      for (const [name, arr, k] of [['normals', p.normals, 3], ['tangents', p.tangents, 4], ['texcoords0', p.texcoords0, 2], ['texcoords1', p.texcoords1, 2], ['colors0', p.colors0, 4]] as const) {
        if (arr && arr.length !== v * k) out.push(`${at}.${name}: length ${arr.length} for ${v} vertices`);
        if (!finite(arr)) out.push(`${at}.${name} non-finite`);
      }
      if (!finite(p.positions)) out.push(`${at}.positions non-finite`);
      if (p.indices) for (let i = 0; i < p.indices.length; i++) if (p.indices[i] >= v) { out.push(`${at}.indices[${i}] out of range`); break; }
      if (p.influences > 0) {
        const k = p.influences;
        if (!p.joints || !p.weights || p.joints.length !== v * k || p.weights.length !== v * k) out.push(`${at}: skinning arrays of the wrong size`);
        else {
          let max = -1;
          for (let i = 0; i < p.joints.length; i++) if (p.joints[i] > max) max = p.joints[i];
          if (max !== p.maxJoint) out.push(`${at}.maxJoint ${p.maxJoint} ≠ ${max}`);
          for (let vi = 0; vi < v; vi++) {
            let sum = 0;
            for (let i = 0; i < k; i++) {
              const w = p.weights[vi * k + i];
              if (!(w >= 0) || !Number.isFinite(w)) { out.push(`${at}: vertex ${vi} weight ${w}`); break; }
              sum += w;
            }
            if (Math.abs(sum - 1) > 1e-4) { out.push(`${at}: vertex ${vi} weights sum to ${sum}`); break; }
          }
        }
      }
      if (p.targets.length > mesh.weights.length) out.push(`${at}: ${p.targets.length} targets but the mesh has ${mesh.weights.length} weights`);
      if (p.variantMaterials) {
        if (p.variantMaterials.length !== (model.variants?.length ?? 0)) out.push(`${at}: ${p.variantMaterials.length} variant materials for ${model.variants?.length ?? 0} variants`);
        if (p.variantMaterials.some((m) => m < -1 || m >= model.materials.length)) out.push(`${at}: variant material out of range`);
      }
      p.targets.forEach((t, ti) => {
        for (const arr of [t.positions, t.normals, t.tangents]) if (arr && (arr.length !== v * 3 || !finite(arr))) out.push(`${at}.targets[${ti}] bad`);
      });
    });
    // Unequal target counts are drawn (each primitive's target k follows weight k): the mesh has the largest count.
    const targets = mesh.primitives.reduce((most, p) => Math.max(most, p.targets.length), 0);
    if (mesh.weights.length !== targets) out.push(`meshes[${m}].weights length ${mesh.weights.length} for at most ${targets} targets`);
  });
  model.skins.forEach((skin, s) => {
    const j = skin.joints.length;
    if (skin.inverseBindMatrices.length !== j * 16 || !finite(skin.inverseBindMatrices)) out.push(`skins[${s}] inverse bind matrices bad`);
    for (let i = 0; i < j; i++) {
      if (!(skin.joints[i] >= 0 && skin.joints[i] < nodeCount)) out.push(`skins[${s}].joints[${i}] out of range`);
      else if (skin.jointSlots[i] !== h.slotOf[skin.joints[i]]) out.push(`skins[${s}].jointSlots[${i}] wrong`);
      const p = skin.jointParents[i];
      if (p >= j || p === i) out.push(`skins[${s}].jointParents[${i}] = ${p}`);
      if (i > 0 && skin.jointSlots[skin.jointsParentFirst[i]] < skin.jointSlots[skin.jointsParentFirst[i - 1]]) out.push(`skins[${s}].jointsParentFirst not parent-first`);
    }
  });
  for (const mn of model.meshNodes) {
    if (!model.inScene[mn.node]) out.push(`meshNode nodes[${mn.node}] not in the scene`);
    if (model.meshes[mn.mesh].primitives.length === 0) out.push(`meshNode nodes[${mn.node}] has a mesh without primitives`);
    if (mn.skin < 0) continue;
    const skin = model.skins[mn.skin];
    for (const p of model.meshes[mn.mesh].primitives) if (p.maxJoint >= skin.joints.length) out.push(`nodes[${mn.node}]: joint ${p.maxJoint} ≥ ${skin.joints.length}`);
    // A joint outside the scene is allowed with a warning (posed by its own hierarchy, as three.js does).
    for (const j of skin.joints) {
      if (!model.inScene[j] && !model.warnings.some((w) => w.message.startsWith(`skins[${mn.skin}].joints[`))) { out.push(`nodes[${mn.node}]: joint nodes[${j}] not in the scene, unreported`); break; }
    }
  }
  model.animations.forEach((clip, a) => {
    if (!Number.isFinite(clip.duration) || clip.duration < 0) out.push(`animations[${a}].duration ${clip.duration}`);
    clip.channels.forEach((ch, c) => {
      const at = `animations[${a}].channels[${c}]`;
      const s = ch.sampler;
      if (ch.slot !== h.slotOf[ch.node]) out.push(`${at}.slot wrong`);
      const keys = s.times.length;
      if (keys < 1) out.push(`${at}: no keys`);
      for (let k = 0; k < keys; k++) if (!(s.times[k] >= 0) || !Number.isFinite(s.times[k]) || (k > 0 && s.times[k] < s.times[k - 1])) { out.push(`${at}: key times bad at ${k}`); break; }
      const perKey = s.interpolation === 2 ? 3 * s.components : s.components;
      if (!(ch.path >= 0 && ch.path <= 3)) out.push(`${at}: path ${String(ch.path)}`);
      if (!(s.interpolation >= 0 && s.interpolation <= 2)) out.push(`${at}: interpolation ${String(s.interpolation)}`);
      if (s.values.length !== keys * perKey) out.push(`${at}: ${s.values.length} values for ${keys} keys`);
      if (!finite(s.values)) out.push(`${at}: non-finite values`);
      const timeline = clip.timelines[ch.timeline];
      if (!timeline || timeline.length !== keys || timeline.some((t, k) => t !== s.times[k])) out.push(`${at}: timeline differs from sampler times`);
      if (ch.path === 1 && s.interpolation === 0 && (!s.slerpAngle || s.slerpAngle.length !== Math.max(keys - 1, 0) || !finite(s.slerpAngle))) out.push(`${at}: slerp tables bad`);
    });
  });
  for (const r of model.sceneRoots) if (model.nodes[r].parent >= 0) out.push(`scene root nodes[${r}] has a parent`);
  model.materials.forEach((m, i) => {
    const numbers = [...m.baseColorFactor, ...m.emissiveFactor, m.metallicFactor, m.roughnessFactor, m.alphaCutoff, m.normalTexture?.scale ?? 1, m.occlusionTexture?.scale ?? 1];
    if (!numbers.every((v) => Number.isFinite(Math.fround(v)))) out.push(`materials[${i}] has a number a 32-bit float cannot hold`);
  });
  return out;
}

/**
 * Bakes a loaded model at a clip time; returns a problem line when bake throws, which
 * means the loader accepted a model its consumers cannot use.
 */
export function bakeProblem(model: Model, rng: Rng): string | undefined {
  const clips = model.animations.length;
  const animation = clips > 0 ? rng.int(clips) : undefined;
  const duration = animation === undefined ? 0 : model.animations[animation].duration;
  const time = rng.pick([0, duration, duration * rng.next(), -1, duration + 1]);
  try {
    bakeModel(model, { animation, time });
    return undefined;
  } catch (e) {
    return `bakeModel threw ${(e as Error)?.name}: ${(e as Error)?.message}`;
  }
}

/**
 * What an upload does with a loaded model's KTX2 images, without a GPU: each is transcoded
 * (Binomial's transcoder runs in Node) for a device with BC or with nothing compressed, the
 * levels charged to the model's budget. Each must give levels of exactly the sizes their
 * format needs, or a GltfError whose message starts with the image's path.
 */
export async function ktx2Problem(model: Model, rng: Rng): Promise<string | undefined> {
  const budget = ktx2UploadBudget(model);
  for (let i = 0; i < model.images.length; i++) {
    if (!isKtx2Image(model.images[i])) continue;
    const path = `images[${i}]`;
    const features = new Set(rng.chance(0.5) ? [FEATURE_BC] : []);
    try {
      const t = await transcodeKtx2(model.images[i].bytes, path, { features, srgb: rng.chance(0.5), maxDimension: rng.pick([64, 8192]), budget });
      for (const level of t.levels) {
        const blocks = Math.ceil(level.width / 4) * Math.ceil(level.height / 4);
        const expected = t.blockBytes === 0 ? level.width * level.height * 4 : blocks * t.blockBytes;
        if (level.data.byteLength !== expected) return `${path}: a ${level.width}×${level.height} level of ${t.format} has ${level.data.byteLength} bytes, not ${expected}`;
      }
    } catch (e) {
      if (!(e instanceof GltfError)) return `transcodeKtx2 threw ${(e as Error)?.name}: ${(e as Error)?.message}`;
      if (e.path !== path || !e.message.startsWith(path)) return `transcodeKtx2's GltfError does not name ${path}: ${e.message}`;
    }
  }
  return undefined;
}

/**
 * A hang guard: a synchronous endless loop blocks the test runner's own timeouts, so a
 * second thread watches a heartbeat in shared memory and, when one case has run for
 * `limitMs` of wall time, writes the case index to stderr and kills the process (the test
 * run then fails instead of hanging CI).
 */
export class Watchdog {
  /** [0] cases started, [1] 1 while a case runs, [2] its index. */
  private readonly beat = new Int32Array(new SharedArrayBuffer(12));
  private readonly worker: Worker;

  constructor(limitMs: number) {
    this.worker = new Worker(`
      const { workerData } = require('node:worker_threads');
      const { writeSync } = require('node:fs');
      const beat = new Int32Array(workerData.buffer);
      let seen = -1, since = Date.now();
      setInterval(() => {
        const started = Atomics.load(beat, 0);
        if (started !== seen || Atomics.load(beat, 1) === 0) { seen = started; since = Date.now(); return; }
        if (Date.now() - since > workerData.limitMs) {
          writeSync(2, 'fuzz watchdog: case ' + Atomics.load(beat, 2) + ' ran for over ' + workerData.limitMs + ' ms; killing the run\\n');
          process.kill(process.pid, 'SIGKILL');
        }
      }, 250);`, { eval: true, workerData: { buffer: this.beat.buffer, limitMs } });
    this.worker.unref();
  }

  start(index: number): void {
    Atomics.store(this.beat, 2, index);
    Atomics.store(this.beat, 1, 1);
    Atomics.add(this.beat, 0, 1);
  }

  done(): void {
    Atomics.store(this.beat, 1, 0);
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}

// ---------------------------------------------------------------- allocation tracking

const TYPED_ARRAYS = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array'] as const;

export class AllocationTooLarge extends Error {
  override readonly name = 'AllocationTooLarge';
}

export interface AllocationReport<T> {
  readonly result: T | undefined;
  readonly error: unknown;
  /** Sum of the byte sizes of every typed array and ArrayBuffer created (views excluded). */
  readonly totalBytes: number;
  readonly largestBytes: number;
}

/**
 * Runs `fn` with the global typed-array constructors (and ArrayBuffer) wrapped so every
 * allocation is counted; a single allocation above `refuseAbove` bytes throws
 * `AllocationTooLarge` instead of being made, so a test of a runaway allocation fails
 * without taking the machine's memory. Views over an existing buffer are not counted.
 */
export async function trackAllocations<T>(fn: () => Promise<T>, refuseAbove = 256 * 1024 * 1024): Promise<AllocationReport<T>> {
  const g = globalThis as unknown as Record<string, unknown>;
  const originals = new Map<string, unknown>();
  let totalBytes = 0;
  let largestBytes = 0;
  const count = (bytes: number) => {
    if (bytes > refuseAbove) throw new AllocationTooLarge(`an allocation of ${bytes} bytes was attempted`);
    totalBytes += bytes;
    if (bytes > largestBytes) largestBytes = bytes;
  };
  // Looked up once, not per allocation (a fuzz case makes thousands): the loader's own allocations
  // go through these traps, which were ~10% of a case's load time.
  const OriginalArrayBuffer = g.ArrayBuffer as typeof ArrayBuffer;
  const OriginalShared = typeof SharedArrayBuffer !== 'undefined' ? SharedArrayBuffer : undefined;
  for (const name of [...TYPED_ARRAYS, 'ArrayBuffer']) {
    const Original = g[name] as { new (...args: unknown[]): ArrayBufferView | ArrayBuffer; BYTES_PER_ELEMENT?: number };
    originals.set(name, Original);
    const perElement = Original.BYTES_PER_ELEMENT ?? 1;
    const proxy: unknown = new Proxy(Original, {
      construct(target, args, newTarget) {
        const first = args[0];
        // A length: counted (and refused above the limit) before it is allocated.
        if (typeof first === 'number') {
          count(first * perElement);
          return Reflect.construct(target, args, newTarget === proxy ? target : newTarget);
        }
        // A view over an existing buffer allocates nothing; a copy (array, iterable, typed array) is counted as made.
        const isView = first instanceof OriginalArrayBuffer || (OriginalShared !== undefined && first instanceof OriginalShared);
        const made = Reflect.construct(target, args, newTarget === proxy ? target : newTarget);
        if (!isView) count((made as ArrayBufferView).byteLength ?? 0);
        return made;
      },
    });
    g[name] = proxy;
  }
  try {
    const result = await fn();
    return { result, error: undefined, totalBytes, largestBytes };
  } catch (error) {
    return { result: undefined, error, totalBytes, largestBytes };
  } finally {
    for (const [name, original] of originals) g[name] = original;
  }
}
