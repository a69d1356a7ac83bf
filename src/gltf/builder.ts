import {
  BufferTarget,
  COMPONENT_BYTE_SIZE,
  ComponentType,
  GLB_CHUNK_BIN,
  GLB_CHUNK_JSON,
  GLB_MAGIC,
  TYPE_COMPONENTS,
} from './constants.ts';
import type {
  AnimationPath, GltfAccessorJson, GltfAnimationJson, GltfBufferJson, GltfBufferViewJson, GltfImageJson, GltfJson, GltfMaterialJson, GltfMeshJson, GltfNodeJson, GltfSceneJson, GltfSkinJson, InterpolationName,
} from './gltf-json.ts';

/**
 * A small glTF 2.0 writer: test fixtures, the built-in models and the `bake`
 * exporter all produce files through it, so every file we write gets the same
 * alignment, padding and min/max rules.
 *
 * The builder owns exactly one binary buffer (`buffers[0]`); everything else
 * lives in the mutable `json` object. Helpers validate what they are given so
 * that ordinary callers cannot write a broken file by accident; a fixture that
 * wants a broken file on purpose builds a valid one and then edits `json`.
 */

// The JSON types live in gltf-json.ts; fixtures and the built-in models import them from here too.
export type {
  AnimationPath,
  GltfAccessorJson,
  GltfAnimationChannelJson,
  GltfAnimationJson,
  GltfAnimationSamplerJson,
  GltfBufferJson,
  GltfBufferViewJson,
  GltfImageJson,
  GltfJson,
  GltfMaterialJson,
  GltfMeshJson,
  GltfNodeJson,
  GltfPrimitiveJson,
  GltfSceneJson,
  GltfSkinJson,
  GltfSparseJson,
  GltfTextureInfoJson,
  InterpolationName,
} from './gltf-json.ts';

export type AccessorType = 'SCALAR' | 'VEC2' | 'VEC3' | 'VEC4' | 'MAT4';

export type ComponentArray = Float32Array | Uint32Array | Uint16Array | Uint8Array | Int16Array | Int8Array;
export type IndexArray = Uint8Array | Uint16Array | Uint32Array;

export interface BufferViewOptions {
  byteStride?: number;
  target?: number;
}

export interface AccessorOptions {
  /** Integer data stands for [0,1] (unsigned) or [-1,1] (signed). */
  normalized?: boolean;
  /** Write `min`/`max`; the spec requires them for POSITION and animation inputs. */
  minMax?: boolean;
  /** `target` of the new bufferView (ignored with `bufferView`). */
  target?: number;
  /** Reference this existing (e.g. interleaved) bufferView instead of writing `data`. */
  bufferView?: number;
  /** Offset of the first element inside `bufferView`. */
  byteOffset?: number;
  /**
   * Without `bufferView`: write elements this many bytes apart (zero padding in
   * between) and record the stride on the new bufferView. With `bufferView`:
   * must match that view's stride.
   */
  byteStride?: number;
  /** Element count; defaults to `data.length / components`. */
  count?: number;
  name?: string;
}

export interface SparseAccessorOptions {
  /** Required when there is no base data. */
  count?: number;
  normalized?: boolean;
  minMax?: boolean;
  target?: number;
  name?: string;
}

export interface InterleavedAttribute {
  data: ComponentArray;
  type: AccessorType;
  normalized?: boolean;
  minMax?: boolean;
  name?: string;
}

export interface AnimationTrack {
  node: number;
  path: AnimationPath;
  /** Key times in seconds. Tracks passing the same array object share one input accessor. */
  input: Float32Array;
  /** Key values (for CUBICSPLINE: in-tangent, value, out-tangent per key). */
  output: Float32Array;
  interpolation?: InterpolationName;
}

const OUTPUT_TYPE: Record<AnimationPath, AccessorType> = {
  translation: 'VEC3',
  rotation: 'VEC4',
  scale: 'VEC3',
  weights: 'SCALAR',
};

const GLB_VERSION = 2;
const GLB_HEADER_BYTES = 12;
const GLB_CHUNK_HEADER_BYTES = 8;
/** glTF requires bufferView offsets, vertex strides and GLB chunks to be 4-byte aligned. */
const ALIGNMENT = 4;
const JSON_PAD_BYTE = 0x20;
const BYTE_STRIDE_MAX = 252;
const DATA_URI_PREFIX = 'data:application/octet-stream;base64,';

/** Order of top-level keys in the output, so files diff nicely and are deterministic. */
const TOP_LEVEL_ORDER = [
  'asset', 'extensionsUsed', 'extensionsRequired', 'scene', 'scenes', 'nodes', 'meshes', 'skins',
  'animations', 'materials', 'textures', 'images', 'samplers', 'accessors', 'bufferViews', 'buffers',
];

/** glTF componentType of a typed array, by its constructor. */
export function componentTypeOf(data: ArrayBufferView): number {
  if (data instanceof Float32Array) return ComponentType.FLOAT;
  if (data instanceof Uint32Array) return ComponentType.UNSIGNED_INT;
  if (data instanceof Uint16Array) return ComponentType.UNSIGNED_SHORT;
  // Uint8ClampedArray is not a Uint8Array; refuse it rather than guess.
  if (data instanceof Uint8Array) return ComponentType.UNSIGNED_BYTE;
  if (data instanceof Int16Array) return ComponentType.SHORT;
  if (data instanceof Int8Array) return ComponentType.BYTE;
  throw new Error(`glTF has no component type for ${data.constructor.name}`);
}

export function alignTo4(n: number): number {
  return (n + ALIGNMENT - 1) & ~(ALIGNMENT - 1);
}

function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

function componentsOf(type: string): number {
  const n = TYPE_COMPONENTS[type];
  if (n === undefined) throw new Error(`unknown accessor type ${JSON.stringify(type)}`);
  return n;
}

/**
 * Per-component min/max of `count` elements of `components` each, as JSON
 * numbers. Float32 values are exact doubles, so JSON keeps them bit-exact.
 */
function computeMinMax(data: ComponentArray, components: number): { min: number[]; max: number[] } {
  const min = new Array<number>(components).fill(Infinity);
  const max = new Array<number>(components).fill(-Infinity);
  for (let i = 0; i < data.length; i++) {
    const c = i % components;
    const v = data[i];
    if (Number.isNaN(v)) throw new Error(`cannot write min/max: element ${(i / components) | 0} is NaN`);
    if (v < min[c]) min[c] = v;
    if (v > max[c]) max[c] = v;
  }
  return { min, max };
}

/**
 * Encodes a GLB container from already-final JSON and an optional BIN payload.
 * Exported so tests can re-encode a JSON they broke on purpose.
 */
export function encodeGlb(json: unknown, bin?: Uint8Array): Uint8Array {
  const jsonBytes = new TextEncoder().encode(JSON.stringify(json));
  const jsonChunkLength = alignTo4(jsonBytes.length);
  const binChunkLength = bin && bin.length > 0 ? alignTo4(bin.length) : 0;
  const total =
    GLB_HEADER_BYTES +
    GLB_CHUNK_HEADER_BYTES + jsonChunkLength +
    (binChunkLength > 0 ? GLB_CHUNK_HEADER_BYTES + binChunkLength : 0);

  const out = new Uint8Array(total); // zero-filled, which is the BIN padding
  const dv = new DataView(out.buffer);
  dv.setUint32(0, GLB_MAGIC, true);
  dv.setUint32(4, GLB_VERSION, true);
  dv.setUint32(8, total, true);

  let p = GLB_HEADER_BYTES;
  dv.setUint32(p, jsonChunkLength, true);
  dv.setUint32(p + 4, GLB_CHUNK_JSON, true);
  p += GLB_CHUNK_HEADER_BYTES;
  out.set(jsonBytes, p);
  // The JSON chunk must stay valid JSON after padding, hence spaces, not zeros.
  out.fill(JSON_PAD_BYTE, p + jsonBytes.length, p + jsonChunkLength);
  p += jsonChunkLength;

  if (binChunkLength > 0 && bin) {
    dv.setUint32(p, binChunkLength, true);
    dv.setUint32(p + 4, GLB_CHUNK_BIN, true);
    p += GLB_CHUNK_HEADER_BYTES;
    out.set(bin, p);
  }
  return out;
}

/** Base64 without Node's Buffer, so the builder also runs in the browser. */
export function toBase64(bytes: Uint8Array): string {
  const CHUNK = 0x8000; // keeps String.fromCharCode's argument list small
  let s = '';
  for (let i = 0; i < bytes.length; i += CHUNK) {
    s += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(s);
}

export class GltfBuilder {
  readonly json: GltfJson;
  private chunks: Uint8Array[] = [];
  private byteLength = 0;

  constructor(generator = 'skinned-mesh-webgpu GltfBuilder') {
    this.json = {
      asset: { version: '2.0', generator },
      extensionsUsed: [],
      extensionsRequired: [],
      scenes: [],
      nodes: [],
      meshes: [],
      skins: [],
      animations: [],
      materials: [],
      textures: [],
      images: [],
      samplers: [],
      accessors: [],
      bufferViews: [],
    };
  }

  /** Bytes written to the BIN buffer so far (without trailing padding). */
  get binByteLength(): number {
    return this.byteLength;
  }

  /** Appends raw bytes at the next 4-byte boundary and returns the bufferView index. */
  addBufferView(bytes: ArrayBufferView, opts: BufferViewOptions = {}): number {
    if (bytes.byteLength === 0) throw new Error('a bufferView must hold at least one byte');
    if (opts.byteStride !== undefined) checkStride(opts.byteStride);
    const byteOffset = this.append(bytesOf(bytes));
    const view: GltfBufferViewJson = { buffer: 0, byteOffset, byteLength: bytes.byteLength };
    if (opts.byteStride !== undefined) view.byteStride = opts.byteStride;
    if (opts.target !== undefined) view.target = opts.target;
    return this.json.bufferViews.push(view) - 1;
  }

  /**
   * Adds an accessor. Without `opts.bufferView` the data is written to a new
   * bufferView; with it, `data` only supplies component type, count and
   * min/max, and the bytes must already be in that view.
   *
   * Vertex attributes (target ARRAY_BUFFER) whose element size is not a
   * multiple of 4 (e.g. u8 VEC3) are written with a padded stride, because the
   * spec requires 4-byte aligned vertex elements.
   */
  addAccessor(data: ComponentArray, type: AccessorType, opts: AccessorOptions = {}): number {
    const componentType = componentTypeOf(data);
    const components = componentsOf(type);
    const componentSize = COMPONENT_BYTE_SIZE[componentType];
    const elementSize = components * componentSize;
    if (data.length % components !== 0) {
      throw new Error(`${data.length} values do not make whole ${type} elements`);
    }
    const count = opts.count ?? data.length / components;
    if (!Number.isInteger(count) || count < 1) throw new Error(`accessor count must be a positive integer, got ${count}`);
    if (opts.normalized && componentType === ComponentType.FLOAT) {
      throw new Error('only integer accessors can be normalized');
    }
    if (opts.normalized && componentType === ComponentType.UNSIGNED_INT) {
      throw new Error('UNSIGNED_INT accessors cannot be normalized');
    }

    let bufferView: number;
    let byteOffset = opts.byteOffset ?? 0;
    if (opts.bufferView !== undefined) {
      const view = this.json.bufferViews[opts.bufferView];
      if (!view) throw new Error(`bufferView ${opts.bufferView} does not exist`);
      if (opts.byteStride !== undefined && opts.byteStride !== (view.byteStride ?? elementSize)) {
        throw new Error(`byteStride ${opts.byteStride} differs from bufferViews[${opts.bufferView}].byteStride`);
      }
      const stride = view.byteStride ?? elementSize;
      if (byteOffset % componentSize !== 0) {
        throw new Error(`byteOffset ${byteOffset} is not a multiple of the component size ${componentSize}`);
      }
      const end = byteOffset + stride * (count - 1) + elementSize;
      if (end > view.byteLength) {
        throw new Error(`accessor needs ${end} bytes but bufferViews[${opts.bufferView}] has ${view.byteLength}`);
      }
      bufferView = opts.bufferView;
    } else {
      if (opts.byteOffset) throw new Error('byteOffset needs an existing bufferView');
      if (data.length !== count * components) {
        throw new Error(`count ${count} does not match ${data.length / components} elements of data`);
      }
      let stride = opts.byteStride;
      if (stride === undefined && opts.target === BufferTarget.ARRAY_BUFFER && elementSize % ALIGNMENT !== 0) {
        stride = alignTo4(elementSize);
      }
      if (stride !== undefined && stride !== elementSize) {
        checkStride(stride);
        if (stride < elementSize) throw new Error(`byteStride ${stride} is smaller than the element size ${elementSize}`);
        if (stride % componentSize !== 0) throw new Error(`byteStride ${stride} is not a multiple of ${componentSize}`);
        bufferView = this.addBufferView(strided(data, elementSize, stride, count), {
          byteStride: stride,
          target: opts.target,
        });
      } else {
        // A stride equal to the element size is what "tightly packed" means anyway, but
        // we keep it when asked: fixtures use it to check that loaders honour explicit strides.
        bufferView = this.addBufferView(data, { byteStride: stride, target: opts.target });
      }
      byteOffset = 0;
    }

    const accessor: GltfAccessorJson = {
      bufferView,
      ...(byteOffset !== 0 ? { byteOffset } : {}),
      componentType,
      count,
      type,
    };
    if (opts.normalized) accessor.normalized = true;
    if (opts.minMax) Object.assign(accessor, computeMinMax(data.subarray(0, count * components), components));
    if (opts.name !== undefined) accessor.name = opts.name;
    return this.json.accessors.push(accessor) - 1;
  }

  /**
   * Adds a sparse accessor: `base` (or zeros when null) with `sparse.values`
   * substituted at the strictly increasing element `sparse.indices`.
   * min/max, when asked, describe the data after substitution, as the spec requires.
   */
  addSparseAccessor(
    base: ComponentArray | null,
    type: AccessorType,
    sparse: { indices: IndexArray; values: ComponentArray },
    opts: SparseAccessorOptions = {},
  ): number {
    const components = componentsOf(type);
    const componentType = componentTypeOf(sparse.values);
    if (base && componentTypeOf(base) !== componentType) {
      throw new Error('base data and sparse values must have the same component type');
    }
    if (base && base.length % components !== 0) throw new Error(`${base.length} values do not make whole ${type} elements`);
    const count = base ? base.length / components : opts.count;
    if (count === undefined || !Number.isInteger(count) || count < 1) {
      throw new Error('a sparse accessor without base data needs a positive integer opts.count');
    }
    if (base && opts.count !== undefined && opts.count !== count) {
      throw new Error(`opts.count ${opts.count} does not match ${count} base elements`);
    }
    const n = sparse.indices.length;
    if (n < 1) throw new Error('a sparse accessor needs at least one index');
    if (sparse.values.length !== n * components) {
      throw new Error(`${n} sparse indices need ${n * components} values, got ${sparse.values.length}`);
    }
    for (let i = 0; i < n; i++) {
      if (sparse.indices[i] >= count) throw new Error(`sparse index ${sparse.indices[i]} is not below count ${count}`);
      if (i > 0 && sparse.indices[i] <= sparse.indices[i - 1]) throw new Error('sparse indices must strictly increase');
    }

    // Without base data the accessor has no bufferView and starts as all zeros.
    const accessor: GltfAccessorJson = {
      ...(base ? { bufferView: this.addBufferView(base, { target: opts.target }) } : {}),
      componentType,
      count,
      type,
    };
    if (opts.normalized) accessor.normalized = true;
    if (opts.minMax) {
      const effective = makeEffective(base, count, components, sparse.indices, sparse.values);
      Object.assign(accessor, computeMinMax(effective, components));
    }
    // The spec forbids target and byteStride on the views of sparse indices and values.
    accessor.sparse = {
      count: n,
      indices: { bufferView: this.addBufferView(sparse.indices), componentType: componentTypeOf(sparse.indices) },
      values: { bufferView: this.addBufferView(sparse.values) },
    };
    if (opts.name !== undefined) accessor.name = opts.name;
    return this.json.accessors.push(accessor) - 1;
  }

  /**
   * Writes several per-vertex attributes interleaved into one bufferView and
   * returns one accessor index per attribute, in order. Each attribute starts
   * at a 4-byte aligned offset, as the spec requires for vertex data.
   */
  addInterleaved(attributes: InterleavedAttribute[], opts: { target?: number } = {}): number[] {
    if (attributes.length === 0) throw new Error('nothing to interleave');
    const offsets: number[] = [];
    let stride = 0;
    let count = -1;
    for (const a of attributes) {
      const components = componentsOf(a.type);
      if (a.data.length % components !== 0) throw new Error(`${a.data.length} values do not make whole ${a.type} elements`);
      const n = a.data.length / components;
      if (count >= 0 && n !== count) throw new Error(`interleaved attributes disagree on count: ${count} vs ${n}`);
      count = n;
      offsets.push(stride);
      stride += alignTo4(components * a.data.BYTES_PER_ELEMENT);
    }
    checkStride(stride);
    const bytes = new Uint8Array(stride * count);
    attributes.forEach((a, i) => {
      const components = componentsOf(a.type);
      const elementSize = components * a.data.BYTES_PER_ELEMENT;
      const src = bytesOf(a.data);
      for (let e = 0; e < count; e++) {
        bytes.set(src.subarray(e * elementSize, (e + 1) * elementSize), e * stride + offsets[i]);
      }
    });
    const bufferView = this.addBufferView(bytes, { byteStride: stride, target: opts.target ?? BufferTarget.ARRAY_BUFFER });
    return attributes.map((a, i) =>
      this.addAccessor(a.data, a.type, {
        bufferView,
        byteOffset: offsets[i],
        normalized: a.normalized,
        minMax: a.minMax,
        name: a.name,
      }),
    );
  }

  /**
   * Adds an encoded image (PNG/JPEG bytes) stored in the BIN buffer.
   * Returns the image index.
   */
  addImage(bytes: Uint8Array, mimeType: string, name?: string): number {
    const image: GltfImageJson = { bufferView: this.addBufferView(bytes), mimeType };
    if (name !== undefined) image.name = name;
    return this.json.images.push(image) - 1;
  }

  addNode(node: GltfNodeJson): number {
    return this.json.nodes.push(node) - 1;
  }

  addMesh(mesh: GltfMeshJson): number {
    return this.json.meshes.push(mesh) - 1;
  }

  addSkin(skin: GltfSkinJson): number {
    return this.json.skins.push(skin) - 1;
  }

  addAnimation(animation: GltfAnimationJson): number {
    return this.json.animations.push(animation) - 1;
  }

  addMaterial(material: GltfMaterialJson): number {
    return this.json.materials.push(material) - 1;
  }

  addTexture(texture: Record<string, unknown>): number {
    return this.json.textures.push(texture) - 1;
  }

  addSampler(sampler: Record<string, unknown>): number {
    return this.json.samplers.push(sampler) - 1;
  }

  /** Adds a scene; the first scene added becomes the default `scene`. */
  addScene(scene: GltfSceneJson): number {
    const index = this.json.scenes.push(scene) - 1;
    if (this.json.scene === undefined) this.json.scene = index;
    return index;
  }

  /**
   * Adds an animation from keyframe tracks: writes input accessors (with the
   * min/max the spec requires) and output accessors, one sampler per track.
   * Tracks that pass the same `input` array object share its accessor.
   */
  addAnimationTracks(name: string, tracks: AnimationTrack[]): number {
    if (tracks.length === 0) throw new Error(`animation ${JSON.stringify(name)} has no tracks`);
    const inputs = new Map<Float32Array, number>();
    const animation: GltfAnimationJson = { name, samplers: [], channels: [] };
    for (const t of tracks) {
      const interpolation = t.interpolation ?? 'LINEAR';
      const keys = t.input.length;
      if (keys < 1) throw new Error(`animation ${JSON.stringify(name)}: a track needs at least one key`);
      for (let k = 1; k < keys; k++) {
        if (!(t.input[k] > t.input[k - 1])) throw new Error(`animation ${JSON.stringify(name)}: key times must strictly increase`);
      }
      const outType = OUTPUT_TYPE[t.path];
      const perKey = interpolation === 'CUBICSPLINE' ? 3 : 1;
      const components = componentsOf(outType);
      // Morph weights carry one value per target per key; the element count says how many.
      const expected = t.path === 'weights' ? t.output.length % (keys * perKey) === 0 : t.output.length === keys * perKey * components;
      if (!expected) {
        throw new Error(`animation ${JSON.stringify(name)}: ${t.output.length} ${t.path} values do not fit ${keys} keys`);
      }
      let input = inputs.get(t.input);
      if (input === undefined) {
        input = this.addAccessor(t.input, 'SCALAR', { minMax: true });
        inputs.set(t.input, input);
      }
      const output = this.addAccessor(t.output, outType);
      const sampler = animation.samplers.push({ input, output, interpolation }) - 1;
      animation.channels.push({ sampler, target: { node: t.node, path: t.path } });
    }
    return this.addAnimation(animation);
  }

  /** The BIN payload (unpadded). */
  binary(): Uint8Array {
    const out = new Uint8Array(this.byteLength);
    let p = 0;
    for (const c of this.chunks) {
      out.set(c, p);
      p += c.length;
    }
    return out;
  }

  /** A binary glTF: header, space-padded JSON chunk, zero-padded BIN chunk (omitted when empty). */
  toGlb(): Uint8Array {
    const bin = this.binary();
    return encodeGlb(this.outputJson(bin.length > 0 ? { byteLength: bin.length } : undefined), bin);
  }

  /** A .gltf with the buffer embedded as a base64 data URI. */
  toGltf(): { json: GltfJson } {
    const bin = this.binary();
    const buffer = bin.length > 0 ? { byteLength: bin.length, uri: DATA_URI_PREFIX + toBase64(bin) } : undefined;
    return { json: this.outputJson(buffer) };
  }

  /** A .gltf whose buffer is the separate file `binName`, returned alongside. */
  toGltfWithExternalBuffer(binName: string): { json: GltfJson; bin: Uint8Array } {
    const bin = this.binary();
    return { json: this.outputJson(bin.length > 0 ? { byteLength: bin.length, uri: binName } : undefined), bin };
  }

  /** Appends bytes at the next aligned offset; returns that offset. */
  private append(bytes: Uint8Array): number {
    const offset = alignTo4(this.byteLength);
    if (offset > this.byteLength) {
      this.chunks.push(new Uint8Array(offset - this.byteLength));
    }
    // Copy: the caller may reuse or mutate its array after this call.
    this.chunks.push(bytes.slice());
    this.byteLength = offset + bytes.length;
    return offset;
  }

  /**
   * A deep copy of `json` in canonical key order, with empty top-level arrays
   * dropped (the schema gives them all minItems 1) and the buffer filled in.
   */
  private outputJson(buffer: GltfBufferJson | undefined): GltfJson {
    if (this.json.bufferViews.length > 0 && !buffer) throw new Error('bufferViews exist but the buffer is empty');
    const src: Record<string, unknown> = { ...this.json };
    delete src.buffers;
    if (buffer) src.buffers = [buffer];
    const out: Record<string, unknown> = {};
    const keys = [...TOP_LEVEL_ORDER, ...Object.keys(src).filter((k) => !TOP_LEVEL_ORDER.includes(k))];
    for (const k of keys) {
      const v = src[k];
      if (v === undefined) continue;
      if (Array.isArray(v) && v.length === 0) continue;
      out[k] = v;
    }
    return JSON.parse(JSON.stringify(out)) as GltfJson;
  }
}

function checkStride(stride: number): void {
  if (!Number.isInteger(stride) || stride < ALIGNMENT || stride > BYTE_STRIDE_MAX || stride % ALIGNMENT !== 0) {
    throw new Error(`byteStride must be a multiple of 4 in [4, 252], got ${stride}`);
  }
}

/** Copies `count` elements into a new buffer `stride` bytes apart. */
function strided(data: ComponentArray, elementSize: number, stride: number, count: number): Uint8Array {
  // The last element needs no trailing padding (spec: byteLength may end at the last element).
  const out = new Uint8Array(stride * (count - 1) + elementSize);
  const src = bytesOf(data);
  for (let e = 0; e < count; e++) out.set(src.subarray(e * elementSize, (e + 1) * elementSize), e * stride);
  return out;
}

/** The logical contents of a sparse accessor, for min/max. */
function makeEffective(
  base: ComponentArray | null,
  count: number,
  components: number,
  indices: IndexArray,
  values: ComponentArray,
): ComponentArray {
  const Ctor = values.constructor as new (n: number) => ComponentArray;
  const out = new Ctor(count * components);
  if (base) out.set(base);
  for (let i = 0; i < indices.length; i++) {
    for (let c = 0; c < components; c++) out[indices[i] * components + c] = values[i * components + c];
  }
  return out;
}
