/// <reference path="./draco3dgltf-decoder.d.ts" />
import { accessorNormalized, componentArrayConstructor, type AccessorData, type ComponentArray } from '../accessors.ts';
import type { LoadBudget } from '../budget.ts';
import { COMPONENT_BYTE_SIZE, ComponentType, PrimitiveMode, TYPE_COMPONENTS } from '../constants.ts';
import { GltfError, type WarnFn } from '../errors.ts';
import {
  asObject, checkIndex, checkInteger, describe, optIndex, optInteger, reqIndex, reqInteger, reqString,
  type JsonObject,
} from '../json.ts';
import { KHR_DRACO_MESH_COMPRESSION } from './names.ts';

/**
 * Decoding of one KHR_draco_mesh_compression primitive with Google's decoder from the
 * `draco3dgltf` package (WebAssembly, loaded on first use, one instance per process or page).
 * The output follows the accessors the primitive declares, not what Draco happens to store:
 * JOINTS_0 comes out as the u8/u16 integers its accessor says, normalized weights stay
 * normalized integers, and every count is checked against the accessor before it is copied.
 * Morph targets are not part of the extension (its `attributes` map has no place for them):
 * they stay ordinary accessors, which encoders keep valid by not reordering vertices.
 */

export { KHR_DRACO_MESH_COMPRESSION };

/** Above this much WebAssembly memory the module is dropped after a decode, so one huge file does not pin it. */
export const DRACO_HEAP_RETIRE_BYTES = 256 * 1024 * 1024;

/** What an accessor declares: the shape the decoded data must have. */
export interface DracoAccessorShape {
  /** JSON path of the accessor (`accessors[12]`), for errors. */
  readonly path: string;
  readonly componentType: ComponentType;
  readonly components: number;
  readonly count: number;
  readonly normalized: boolean;
}

export interface DracoAttributeRequest {
  /** glTF semantic (`POSITION`, `JOINTS_0`). */
  readonly semantic: string;
  /** The attribute's unique id in the Draco data (the extension's `attributes` value). */
  readonly uniqueId: number;
  readonly accessor: DracoAccessorShape;
}

/** Everything one decode needs, checked; plain data, so it can be posted to a worker as is. */
export interface DracoPrimitiveRequest {
  /** JSON path of the extension object, for errors. */
  readonly path: string;
  /** The compressed bytes (the extension's bufferView). */
  readonly bytes: Uint8Array;
  readonly attributes: readonly DracoAttributeRequest[];
  /** The primitive's `indices` accessor, when it has one. */
  readonly indices: DracoAccessorShape | undefined;
}

export interface DracoPrimitive {
  /** Points in the decoded mesh; every attribute has this many elements. */
  readonly vertexCount: number;
  /** By glTF semantic, each in its accessor's component type (tightly packed). */
  readonly attributes: ReadonlyMap<string, AccessorData>;
  /**
   * Triangle-list indices (three per Draco face) in the indices accessor's component type;
   * without one, u16 when every index fits, else u32.
   */
  readonly indices: AccessorData;
}

/** Where a primitive's accessors and bufferViews are read from; `buffers[i]` is undefined when not fetched. */
export interface DracoSource {
  readonly accessors: readonly unknown[];
  readonly bufferViews: readonly unknown[];
  readonly buffers: readonly (Uint8Array | undefined)[];
}

/**
 * The checked Draco request of `primitive` (at `path`, e.g. `meshes[0].primitives[1]`), or
 * undefined when it has no Draco extension. Accessors named in the extension are read for
 * their shape only: their bufferView, if any, is the uncompressed fallback and is ignored.
 */
export function readDracoPrimitive(primitive: JsonObject, path: string, src: DracoSource, warn?: WarnFn): DracoPrimitiveRequest | undefined {
  if (primitive.extensions === undefined) return undefined;
  const extensions = asObject(primitive.extensions, `${path}.extensions`);
  if (extensions[KHR_DRACO_MESH_COMPRESSION] === undefined) return undefined;
  const extPath = `${path}.extensions.${KHR_DRACO_MESH_COMPRESSION}`;
  const ext = asObject(extensions[KHR_DRACO_MESH_COMPRESSION], extPath);

  const mode = optInteger(primitive, 'mode', path, PrimitiveMode.TRIANGLES);
  if (mode !== PrimitiveMode.TRIANGLES && mode !== PrimitiveMode.TRIANGLE_STRIP) {
    throw new GltfError(`${path}.mode`, `${mode} is not allowed with ${KHR_DRACO_MESH_COMPRESSION} (only TRIANGLES or TRIANGLE_STRIP)`);
  }
  const viewIndex = reqIndex(ext, 'bufferView', extPath, src.bufferViews.length, 'bufferViews');
  const bytes = bufferViewBytes(src, viewIndex, `${extPath}.bufferView`);

  const primitiveAttributes = asObject(primitive.attributes, `${path}.attributes`);
  const map = asObject(ext.attributes, `${extPath}.attributes`);
  const attributes: DracoAttributeRequest[] = [];
  for (const semantic of Object.keys(map)) {
    const at = `${extPath}.attributes.${semantic}`;
    const uniqueId = checkInteger(map[semantic], at, 0x7fffffff);
    if (!Object.hasOwn(primitiveAttributes, semantic)) {
      throw new GltfError(at, `names an attribute the primitive does not have (${path}.attributes has no ${semantic})`);
    }
    const accessorIndex = checkIndex(primitiveAttributes[semantic], `${path}.attributes.${semantic}`, src.accessors.length, 'accessors');
    attributes.push({ semantic, uniqueId, accessor: accessorShape(src, accessorIndex, warn) });
  }
  if (attributes.length === 0) throw new GltfError(`${extPath}.attributes`, 'names no attribute');

  const indicesIndex = optIndex(primitive, 'indices', path, src.accessors.length, 'accessors');
  let indices: DracoAccessorShape | undefined;
  if (indicesIndex >= 0) {
    indices = accessorShape(src, indicesIndex, warn);
    const t = indices.componentType;
    if (indices.components !== 1 || (t !== ComponentType.UNSIGNED_BYTE && t !== ComponentType.UNSIGNED_SHORT && t !== ComponentType.UNSIGNED_INT)) {
      throw new GltfError(indices.path, 'indices must be a SCALAR of unsigned integers');
    }
  }
  return { path: extPath, bytes, attributes, indices };
}

function bufferViewBytes(src: DracoSource, index: number, usedAt: string): Uint8Array {
  const path = `bufferViews[${index}]`;
  const view = asObject(src.bufferViews[index], path);
  const bufferIndex = checkIndex(view.buffer, `${path}.buffer`, src.buffers.length, 'buffers');
  const buffer = src.buffers[bufferIndex];
  if (!buffer) throw new GltfError(`${path}.buffer`, `buffers[${bufferIndex}] was not loaded; referenced from ${usedAt}`);
  const byteOffset = optInteger(view, 'byteOffset', path, 0);
  const byteLength = reqInteger(view, 'byteLength', path);
  if (byteOffset + byteLength > buffer.byteLength) {
    throw new GltfError(path, `byteOffset ${byteOffset} + byteLength ${byteLength} exceeds buffers[${bufferIndex}] (${buffer.byteLength} bytes); referenced from ${usedAt}`);
  }
  return buffer.subarray(byteOffset, byteOffset + byteLength);
}

function accessorShape(src: DracoSource, index: number, warn: WarnFn | undefined): DracoAccessorShape {
  const path = `accessors[${index}]`;
  const acc = asObject(src.accessors[index], path);
  const componentType = reqInteger(acc, 'componentType', path);
  if (!Object.hasOwn(COMPONENT_BYTE_SIZE, componentType)) {
    throw new GltfError(`${path}.componentType`, `${componentType} is not a glTF component type`);
  }
  const type = reqString(acc, 'type', path);
  const components = Object.hasOwn(TYPE_COMPONENTS, type) ? TYPE_COMPONENTS[type] : undefined;
  if (components === undefined || components > 4) {
    throw new GltfError(`${path}.type`, `${describe(type)} is not a vertex attribute type (SCALAR or VEC2–VEC4)`);
  }
  const count = reqInteger(acc, 'count', path);
  if (count < 1) throw new GltfError(`${path}.count`, 'must be at least 1');
  const normalized = accessorNormalized(acc, componentType, path, warn);
  return { path, componentType: componentType as ComponentType, components, count, normalized };
}

// --- The decoder module: the part of Draco's Emscripten API used here. ---

interface DracoObject {
  /** 0 for a missing object (e.g. no attribute with that unique id). */
  readonly ptr: number;
}
interface DracoStatus {
  ok(): boolean;
  error_msg(): string;
}
interface DracoMesh extends DracoObject {
  num_points(): number;
  num_faces(): number;
}
interface DracoPointAttribute extends DracoObject {
  num_components(): number;
  /** Draco's kind: POSITION, NORMAL, COLOR, TEX_COORD or GENERIC. */
  attribute_type(): number;
  data_type(): number;
  normalized(): boolean;
}
interface DracoDecoder extends DracoObject {
  DecodeArrayToMesh(data: Int8Array, byteLength: number, mesh: DracoMesh): DracoStatus;
  GetAttributeByUniqueId(mesh: DracoMesh, uniqueId: number): DracoPointAttribute;
  GetAttributeDataArrayForAllPoints(mesh: DracoMesh, attribute: DracoPointAttribute, dataType: number, byteLength: number, ptr: number): boolean;
  GetTrianglesUInt32Array(mesh: DracoMesh, byteLength: number, ptr: number): boolean;
  /** Leaves attributes of that kind quantized (with their transform) instead of dequantizing them. */
  SkipAttributeTransform(attributeType: number): void;
}
interface DracoQuantizationTransform extends DracoObject {
  /** False when the attribute is not quantized. */
  InitFromAttribute(attribute: DracoPointAttribute): boolean;
  quantization_bits(): number;
  range(): number;
}
export interface DracoDecoderModule {
  readonly Decoder: new () => DracoDecoder;
  readonly AttributeQuantizationTransform: new () => DracoQuantizationTransform;
  readonly Mesh: new () => DracoMesh;
  readonly DT_INT8: number;
  readonly DT_UINT8: number;
  readonly DT_INT16: number;
  readonly DT_UINT16: number;
  readonly DT_UINT32: number;
  readonly DT_FLOAT32: number;
  /** Re-read after every allocation: the heap's ArrayBuffer is replaced when memory grows. */
  readonly HEAPU8: Uint8Array;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  destroy(object: DracoObject): void;
}

/** How the decoder's WebAssembly is found; Node reads it beside the package's JS by itself. */
export interface DracoDecoderOptions {
  /** The bytes of `draco_decoder_gltf.wasm`, e.g. fetched from a bundler's asset URL. */
  readonly wasmBinary?: ArrayBuffer;
  /** Emscripten's hook: the URL of `file` (`draco_decoder_gltf.wasm`). */
  readonly locateFile?: (file: string, prefix: string) => string;
}

let decoderOptions: DracoDecoderOptions = {};
let modulePromise: Promise<DracoDecoderModule> | undefined;

/**
 * Sets where the WebAssembly comes from (browsers, where a bundler moved it). Takes effect at
 * the next module load: a module already loaded is dropped.
 */
export function configureDracoDecoder(options: DracoDecoderOptions): void {
  decoderOptions = options;
  modulePromise = undefined;
}

/** The shared decoder module, imported and instantiated on first use only. */
export function loadDracoDecoderModule(): Promise<DracoDecoderModule> {
  if (!modulePromise) {
    const options = { ...decoderOptions };
    const loading = import('draco3dgltf/draco_decoder_gltf_nodejs.js').then(async (m) => {
      // The package is CommonJS: its factory is the default export, or the namespace itself
      // when a bundler unwraps it.
      const factory = (m.default ?? m) as unknown as (o: object) => Promise<unknown>;
      return (await factory(options)) as DracoDecoderModule;
    });
    modulePromise = loading;
    // A failed load may succeed later (a network hiccup fetching the chunk or the .wasm).
    loading.catch(() => { if (modulePromise === loading) modulePromise = undefined; });
  }
  return modulePromise;
}

/** Drops the shared module (after it aborted, or grew too large) so the next decode starts a fresh one. */
function retireModule(module: DracoDecoderModule): void {
  const current = modulePromise;
  if (!current) return;
  current.then((m) => { if (m === module && modulePromise === current) modulePromise = undefined; }, () => {});
}

/** The bytes a request's outputs take, as its accessors declare them (what a decode charges). */
export function dracoDeclaredBytes(request: DracoPrimitiveRequest): number {
  let declared = 0;
  for (const a of request.attributes) declared += a.accessor.count * a.accessor.components * COMPONENT_BYTE_SIZE[a.accessor.componentType];
  if (request.indices) declared += request.indices.count * COMPONENT_BYTE_SIZE[request.indices.componentType];
  return declared;
}

/**
 * Decodes a checked request. The declared output sizes are charged to `budget` first; the
 * decoded counts must equal the accessors' before anything is copied out. A stream Draco
 * rejects, or one that makes the decoder fail, gives a GltfError naming `request.path`.
 */
export async function decodeDracoPrimitive(request: DracoPrimitiveRequest, budget: LoadBudget): Promise<DracoPrimitive> {
  budget.charge(dracoDeclaredBytes(request), request.path);

  let draco: DracoDecoderModule;
  try {
    draco = await loadDracoDecoderModule();
  } catch (e) {
    throw new GltfError(request.path, `the Draco decoder could not be loaded: ${message(e)}`);
  }
  const decoder = new draco.Decoder();
  const mesh = new draco.Mesh();
  try {
    return decodeWith(draco, decoder, mesh, request);
  } catch (e) {
    if (e instanceof GltfError) throw e;
    // Anything else came out of the WebAssembly (an abort or trap leaves the module unusable).
    retireModule(draco);
    throw new GltfError(request.path, `the Draco decoder failed on this data (${message(e)}); the file is damaged`);
  } finally {
    try {
      draco.destroy(mesh);
      draco.destroy(decoder);
    } catch {
      retireModule(draco);
    }
    if (draco.HEAPU8.byteLength > DRACO_HEAP_RETIRE_BYTES) retireModule(draco);
  }
}

function decodeWith(draco: DracoDecoderModule, decoder: DracoDecoder, mesh: DracoMesh, request: DracoPrimitiveRequest): DracoPrimitive {
  const { bytes, path } = request;
  const data = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const status = decoder.DecodeArrayToMesh(data, data.byteLength, mesh);
  if (!status.ok() || mesh.ptr === 0) {
    throw new GltfError(path, `the Draco data cannot be decoded (${status.error_msg() || 'no reason given'}); the file is damaged or not a Draco mesh`);
  }
  const vertexCount = mesh.num_points();
  const attributes = new Map<string, AccessorData>();
  for (const wanted of request.attributes) {
    attributes.set(wanted.semantic, readAttribute(draco, decoder, mesh, data, vertexCount, wanted, path));
  }
  return { vertexCount, attributes, indices: readIndices(draco, decoder, mesh, vertexCount, request.indices, path) };
}

function readAttribute(
  draco: DracoDecoderModule, decoder: DracoDecoder, mesh: DracoMesh, bytes: Int8Array, vertexCount: number,
  request: DracoAttributeRequest, path: string,
): AccessorData {
  const { semantic, uniqueId, accessor } = request;
  const attribute = decoder.GetAttributeByUniqueId(mesh, uniqueId);
  if (attribute.ptr === 0) {
    throw new GltfError(`${path}.attributes.${semantic}`, `the Draco data has no attribute with unique id ${uniqueId}`);
  }
  if (vertexCount !== accessor.count) {
    throw new GltfError(`${accessor.path}.count`, `is ${accessor.count} but the Draco data (${path}) decodes to ${vertexCount} vertices`);
  }
  const components = attribute.num_components();
  if (components !== accessor.components) {
    throw new GltfError(`${accessor.path}.type`, `has ${accessor.components} components but Draco's ${semantic} (${path}) has ${components}`);
  }
  const stored = attribute.data_type();
  const storedFloat = stored === draco.DT_FLOAT32;
  const wantFloat = accessor.componentType === ComponentType.FLOAT;
  const length = vertexCount * components;
  if (wantFloat && !storedFloat && !attribute.normalized()) {
    // Draco would hand back the raw integers (0..255 for weights): not what a float accessor means.
    throw new GltfError(`${accessor.path}.componentType`, `is FLOAT but Draco stores ${semantic} (${path}) as integers that are not normalized`);
  }
  if (!wantFloat && storedFloat) {
    if (accessor.normalized) {
      throw new GltfError(`${accessor.path}.componentType`, `is a normalized integer type but Draco stores ${semantic} (${path}) as floats`);
    }
    // Integer data some encoder stored as floats (the JOINTS bug class, seen from the other
    // side): rounded only when every value is within Draco's own quantization error of a
    // whole number that fits the accessor's type; anything further is not integer data.
    const at = `${path}.attributes.${semantic}`;
    const tolerance = quantizationError(draco, bytes, uniqueId, attribute.attribute_type());
    if (!(tolerance < 0.5)) throw new GltfError(at, `is stored as floats quantized too coarsely (step ${2 * tolerance}) to recover ${accessor.path}'s integers`);
    const floats = copyOut(draco, decoder, mesh, attribute, draco.DT_FLOAT32, Float32Array, length, at);
    const out = new (arrayConstructor(accessor.componentType))(length);
    const [lo, hi] = integerRange(accessor.componentType);
    for (let i = 0; i < length; i++) {
      const v = Math.round(floats[i]);
      if (!(Math.abs(floats[i] - v) <= tolerance) || v < lo || v > hi) {
        throw new GltfError(at, `value ${floats[i]} (element ${Math.floor(i / components)}) is not a whole number that fits ${accessor.path}'s component type`);
      }
      out[i] = v;
    }
    return { array: out, componentType: accessor.componentType, components, count: vertexCount, normalized: accessor.normalized };
  }
  const array = copyOut(
    draco, decoder, mesh, attribute, dracoDataType(draco, accessor.componentType), arrayConstructor(accessor.componentType), length,
    `${path}.attributes.${semantic}`,
  );
  return { array, componentType: accessor.componentType, components, count: vertexCount, normalized: accessor.normalized };
}

/**
 * Half a quantization step of a float attribute (plus float rounding), or 0 when Draco stores
 * it unquantized: how far a decoded value may be from the value that was encoded. A decoded
 * attribute no longer carries its quantization, so this decodes the stream once more with
 * the attribute's kind left quantized (a rare path: integer data stored as floats).
 */
function quantizationError(draco: DracoDecoderModule, bytes: Int8Array, uniqueId: number, attributeType: number): number {
  const decoder = new draco.Decoder();
  const mesh = new draco.Mesh();
  const transform = new draco.AttributeQuantizationTransform();
  try {
    decoder.SkipAttributeTransform(attributeType);
    if (!decoder.DecodeArrayToMesh(bytes, bytes.byteLength, mesh).ok()) return 0;
    const attribute = decoder.GetAttributeByUniqueId(mesh, uniqueId);
    if (attribute.ptr === 0 || !transform.InitFromAttribute(attribute)) return 0;
    return transform.range() / ((2 ** transform.quantization_bits() - 1) * 2) + 1e-6;
  } finally {
    draco.destroy(transform);
    draco.destroy(mesh);
    draco.destroy(decoder);
  }
}

type ComponentArrayConstructor = new (length: number) => ComponentArray;

/** Has Draco convert the attribute to `dataType` in its heap, then copies it into a new JS array. */
function copyOut<T extends ComponentArray>(
  draco: DracoDecoderModule, decoder: DracoDecoder, mesh: DracoMesh, attribute: DracoPointAttribute, dataType: number,
  Ctor: new (length: number) => T, length: number, path: string,
): T {
  const out = new Ctor(length);
  const byteLength = out.byteLength;
  const ptr = draco._malloc(byteLength);
  if (ptr === 0) throw new GltfError(path, `the Draco decoder could not allocate ${byteLength} bytes`);
  try {
    if (!decoder.GetAttributeDataArrayForAllPoints(mesh, attribute, dataType, byteLength, ptr)) {
      throw new GltfError(path, 'the decoded values do not fit the accessor\'s component type');
    }
    new Uint8Array(out.buffer).set(draco.HEAPU8.subarray(ptr, ptr + byteLength));
  } finally {
    draco._free(ptr);
  }
  return out;
}

function readIndices(
  draco: DracoDecoderModule, decoder: DracoDecoder, mesh: DracoMesh, vertexCount: number,
  accessor: DracoAccessorShape | undefined, path: string,
): AccessorData {
  const count = mesh.num_faces() * 3;
  if (accessor && count !== accessor.count) {
    throw new GltfError(`${accessor.path}.count`, `is ${accessor.count} but the Draco data (${path}) decodes to ${count / 3} triangles (${count} indices)`);
  }
  const all = new Uint32Array(count);
  if (count > 0) {
    const ptr = draco._malloc(all.byteLength);
    if (ptr === 0) throw new GltfError(path, `the Draco decoder could not allocate ${all.byteLength} bytes`);
    try {
      if (decoder.GetTrianglesUInt32Array(mesh, all.byteLength, ptr) === false) {
        throw new GltfError(path, 'the Draco decoder could not produce the triangle indices');
      }
      new Uint8Array(all.buffer).set(draco.HEAPU8.subarray(ptr, ptr + all.byteLength));
    } finally {
      draco._free(ptr);
    }
  }
  let max = 0;
  for (let i = 0; i < count; i++) if (all[i] > max) max = all[i];
  if (count > 0 && max >= vertexCount) {
    throw new GltfError(path, `the decoded indices reach ${max} but there are only ${vertexCount} vertices`);
  }
  const componentType = accessor?.componentType ?? (vertexCount <= 0x10000 ? ComponentType.UNSIGNED_SHORT : ComponentType.UNSIGNED_INT);
  if (componentType === ComponentType.UNSIGNED_INT) {
    return { array: all, componentType, components: 1, count, normalized: false };
  }
  if (max > integerRange(componentType)[1]) {
    throw new GltfError(`${accessor!.path}.componentType`, `cannot hold index ${max} of the Draco data (${path})`);
  }
  const narrow = componentType === ComponentType.UNSIGNED_BYTE ? new Uint8Array(all) : new Uint16Array(all);
  return { array: narrow, componentType, components: 1, count, normalized: false };
}

/** The declared accessor's array type; the accessor's componentType was checked before decoding. */
function arrayConstructor(componentType: ComponentType): ComponentArrayConstructor {
  return componentArrayConstructor(componentType) ?? Float32Array;
}

function dracoDataType(draco: DracoDecoderModule, componentType: ComponentType): number {
  switch (componentType) {
    case ComponentType.BYTE: return draco.DT_INT8;
    case ComponentType.UNSIGNED_BYTE: return draco.DT_UINT8;
    case ComponentType.SHORT: return draco.DT_INT16;
    case ComponentType.UNSIGNED_SHORT: return draco.DT_UINT16;
    case ComponentType.UNSIGNED_INT: return draco.DT_UINT32;
    default: return draco.DT_FLOAT32;
  }
}

function integerRange(componentType: ComponentType): readonly [number, number] {
  switch (componentType) {
    case ComponentType.BYTE: return [-128, 127];
    case ComponentType.UNSIGNED_BYTE: return [0, 255];
    case ComponentType.SHORT: return [-32768, 32767];
    case ComponentType.UNSIGNED_SHORT: return [0, 65535];
    default: return [0, 0xffffffff];
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
