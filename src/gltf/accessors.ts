import type { LoadBudget } from './budget.ts';
import { COMPONENT_BYTE_SIZE, ComponentType, TYPE_COMPONENTS } from './constants.ts';
import { GltfError, type WarnFn } from './errors.ts';
import {
  asObject, checkIndex, optIndex, optInteger, optBoolean, optObject, reqInteger, reqString,
  type JsonObject,
} from './json.ts';

/** The typed array of each glTF component type (BYTE … FLOAT). */
export type ComponentArray = Int8Array | Uint8Array | Int16Array | Uint16Array | Uint32Array | Float32Array;

/** An accessor's storage, as read or as the file's JSON declares it before any data is read: what picks a vertex format. */
export type AccessorFormat = Pick<AccessorData, 'componentType' | 'normalized' | 'components'>;

/** An accessor's elements, de-interleaved into a tightly packed array of its own component type. */
export interface AccessorData {
  readonly array: ComponentArray;
  readonly componentType: ComponentType;
  /** Components per element (3 for VEC3, 16 for MAT4). */
  readonly components: number;
  readonly count: number;
  readonly normalized: boolean;
}

/**
 * Largest element count accepted for an accessor that has no bufferView: its size
 * is not bounded by any bytes in the file, so a tiny file could otherwise ask for gigabytes.
 */
export const MAX_UNBACKED_COMPONENTS = 1 << 24;

export interface AccessorSource {
  readonly accessors: readonly unknown[];
  readonly bufferViews: readonly unknown[];
  readonly buffers: readonly Uint8Array[];
  /** Charged before every array is allocated. */
  readonly budget: LoadBudget;
  /**
   * Decoded bytes of compressed bufferViews by view index (EXT/KHR_meshopt_compression),
   * read in place of the view's own range; its byteStride still applies.
   */
  readonly decodedViews?: ReadonlyMap<number, Uint8Array>;
}

/** The typed array that holds a glTF componentType's values; undefined for an unknown type. */
export function componentArrayConstructor(componentType: number) {
  switch (componentType) {
    case ComponentType.BYTE: return Int8Array;
    case ComponentType.UNSIGNED_BYTE: return Uint8Array;
    case ComponentType.SHORT: return Int16Array;
    case ComponentType.UNSIGNED_SHORT: return Uint16Array;
    case ComponentType.UNSIGNED_INT: return Uint32Array;
    case ComponentType.FLOAT: return Float32Array;
    default: return undefined;
  }
}

interface ViewSlice {
  readonly bytes: Uint8Array;
  readonly byteStride: number;
}

function bufferViewSlice(src: AccessorSource, index: number, path: string): ViewSlice {
  const vpath = `bufferViews[${index}]`;
  const view = asObject(src.bufferViews[index], vpath);
  const decoded = src.decodedViews?.get(index);
  const bufferIndex = checkIndex(view.buffer, `${vpath}.buffer`, src.buffers.length, 'buffers');
  const buffer = src.buffers[bufferIndex];
  const byteOffset = optInteger(view, 'byteOffset', vpath, 0);
  const byteLength = reqInteger(view, 'byteLength', vpath);
  if (!decoded && byteOffset + byteLength > buffer.byteLength) {
    throw new GltfError(vpath, `byteOffset ${byteOffset} + byteLength ${byteLength} exceeds buffers[${bufferIndex}] (${buffer.byteLength} bytes); referenced from ${path}`);
  }
  const byteStride = optInteger(view, 'byteStride', vpath, 0, 252);
  if (byteStride !== 0 && (byteStride < 4 || byteStride % 4 !== 0)) {
    throw new GltfError(`${vpath}.byteStride`, `${byteStride} must be a multiple of 4 between 4 and 252`);
  }
  return { bytes: decoded ?? buffer.subarray(byteOffset, byteOffset + byteLength), byteStride };
}

/**
 * Copies `count` elements out of `bytes` (element i at `offset + i * stride`) into `out`.
 * Goes through a DataView so unaligned or interleaved data reads correctly on any host.
 */
function copyElements(
  bytes: Uint8Array, offset: number, stride: number, count: number, components: number,
  componentType: number, out: ComponentArray, outStart = 0,
): void {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const size = COMPONENT_BYTE_SIZE[componentType];
  // Fast path: tightly packed and aligned — one copy.
  if (stride === size * components && (bytes.byteOffset + offset) % size === 0) {
    const Ctor = componentArrayConstructor(componentType)!;
    out.set(new Ctor(bytes.buffer as ArrayBuffer, bytes.byteOffset + offset, count * components), outStart);
    return;
  }
  for (let i = 0; i < count; i++) {
    const base = offset + i * stride;
    for (let c = 0; c < components; c++) {
      const at = base + c * size;
      let v: number;
      switch (componentType) {
        case ComponentType.BYTE: v = dv.getInt8(at); break;
        case ComponentType.UNSIGNED_BYTE: v = dv.getUint8(at); break;
        case ComponentType.SHORT: v = dv.getInt16(at, true); break;
        case ComponentType.UNSIGNED_SHORT: v = dv.getUint16(at, true); break;
        case ComponentType.UNSIGNED_INT: v = dv.getUint32(at, true); break;
        default: v = dv.getFloat32(at, true); break;
      }
      out[outStart + i * components + c] = v;
    }
  }
}

/**
 * An accessor's `normalized`, checked against its component type. glTF allows it on 8- and
 * 16-bit integers only. A normalized FLOAT is read as plain floats, with a warning, as three.js
 * r187 reads it (its `denormalize` is the identity for Float32Array, and the graphics APIs
 * ignore the flag on float attributes): nothing needs guessing. A normalized UNSIGNED_INT
 * is refused: no vertex format has it, and its scale would be a guess.
 */
export function accessorNormalized(acc: JsonObject, componentType: number, path: string, warn: WarnFn | undefined): boolean {
  const normalized = optBoolean(acc, 'normalized', path, false);
  if (!normalized) return false;
  if (componentType === ComponentType.FLOAT) {
    warn?.(`${path}.normalized`, 'is true on a FLOAT accessor (allowed for 8- and 16-bit integers only); ignored, the floats are read as they are');
    return false;
  }
  if (componentType === ComponentType.UNSIGNED_INT) {
    throw new GltfError(`${path}.normalized`, 'is only allowed for 8- and 16-bit integer components');
  }
  return true;
}

/** Element byte size with padding: matrix columns of 1- and 2-byte types are 4-byte aligned (spec §3.6.2.4). */
function elementByteSize(type: string, componentType: number): number {
  const size = COMPONENT_BYTE_SIZE[componentType];
  if (type === 'MAT2' && size === 1) return 8;
  if (type === 'MAT3' && size === 1) return 12;
  if (type === 'MAT3' && size === 2) return 24;
  return size * TYPE_COMPONENTS[type];
}

/**
 * Reads accessor `index` completely: bufferView (with byteStride), zeros when there is
 * no bufferView, then sparse substitution. Validates every range before allocating.
 * `min`/`max` are ignored: they are hints that real files get wrong.
 */
export function readAccessor(src: AccessorSource, index: number, usedAt: string, warn?: WarnFn): AccessorData {
  const path = `accessors[${index}]`;
  checkIndex(index, usedAt, src.accessors.length, 'accessors');
  const acc = asObject(src.accessors[index], path);
  const componentType = reqInteger(acc, 'componentType', path);
  const Ctor = componentArrayConstructor(componentType);
  if (!Ctor) throw new GltfError(`${path}.componentType`, `${componentType} is not a glTF component type`);
  const type = reqString(acc, 'type', path);
  // Own properties only: "constructor" must not find Object's.
  const components = Object.hasOwn(TYPE_COMPONENTS, type) ? TYPE_COMPONENTS[type] : undefined;
  if (components === undefined) throw new GltfError(`${path}.type`, `"${type}" is not a glTF accessor type`);
  const count = reqInteger(acc, 'count', path);
  if (count < 1) throw new GltfError(`${path}.count`, 'must be at least 1');
  const normalized = accessorNormalized(acc, componentType, path, warn);
  const size = COMPONENT_BYTE_SIZE[componentType];
  const elementSize = elementByteSize(type, componentType);
  const padded = elementSize !== size * components;
  if (padded) throw new GltfError(`${path}.type`, `${type} of ${size}-byte components (column padding) is not supported`);

  const viewIndex = optIndex(acc, 'bufferView', path, src.bufferViews.length, 'bufferViews');
  const sparse = optObject(acc, 'sparse', path);
  let array: ComponentArray;
  if (viewIndex >= 0) {
    const view = bufferViewSlice(src, viewIndex, path);
    const byteOffset = optInteger(acc, 'byteOffset', path, 0);
    const stride = view.byteStride || elementSize;
    if (view.byteStride && view.byteStride < elementSize) {
      throw new GltfError(path, `bufferViews[${viewIndex}].byteStride ${view.byteStride} is smaller than one ${type} element (${elementSize} bytes)`);
    }
    const needed = byteOffset + stride * (count - 1) + elementSize;
    if (needed > view.bytes.byteLength) {
      throw new GltfError(path, `count ${count} × stride ${stride} from byteOffset ${byteOffset} needs ${needed} bytes but bufferViews[${viewIndex}] has ${view.bytes.byteLength}`);
    }
    src.budget.charge(count * components * size, path);
    array = new Ctor(count * components);
    copyElements(view.bytes, byteOffset, stride, count, components, componentType, array);
  } else {
    if (count * components > MAX_UNBACKED_COMPONENTS) {
      throw new GltfError(`${path}.count`, `${count} elements without a bufferView exceeds the limit of ${MAX_UNBACKED_COMPONENTS / components}`);
    }
    src.budget.charge(count * components * size, `${path}.count`);
    array = new Ctor(count * components);
  }
  if (sparse) applySparse(src, sparse, `${path}.sparse`, count, components, componentType, array);
  return { array, componentType: componentType as ComponentType, components, count, normalized };
}

function applySparse(
  src: AccessorSource, sparse: JsonObject, path: string, count: number, components: number,
  componentType: number, out: ComponentArray,
): void {
  const sparseCount = reqInteger(sparse, 'count', path, count);
  if (sparseCount < 1) throw new GltfError(`${path}.count`, 'must be at least 1');
  const indices = asObject(sparse.indices, `${path}.indices`);
  const values = asObject(sparse.values, `${path}.values`);
  const indexType = reqInteger(indices, 'componentType', `${path}.indices`);
  if (indexType !== ComponentType.UNSIGNED_BYTE && indexType !== ComponentType.UNSIGNED_SHORT && indexType !== ComponentType.UNSIGNED_INT) {
    throw new GltfError(`${path}.indices.componentType`, `${indexType} is not an unsigned integer type`);
  }
  const indexArray = readSparsePart(src, indices, `${path}.indices`, sparseCount, 1, indexType);
  const valueArray = readSparsePart(src, values, `${path}.values`, sparseCount, components, componentType);
  let previous = -1;
  for (let i = 0; i < sparseCount; i++) {
    const target = indexArray[i];
    if (target >= count) throw new GltfError(`${path}.indices`, `index ${target} at position ${i} is out of range (count ${count})`);
    if (target <= previous) throw new GltfError(`${path}.indices`, `indices must strictly increase (position ${i}: ${target} after ${previous})`);
    previous = target;
    for (let c = 0; c < components; c++) out[target * components + c] = valueArray[i * components + c];
  }
}

function readSparsePart(
  src: AccessorSource, part: JsonObject, path: string, count: number, components: number, componentType: number,
): ComponentArray {
  const viewIndex = reqInteger(part, 'bufferView', path);
  checkIndex(viewIndex, `${path}.bufferView`, src.bufferViews.length, 'bufferViews');
  const view = bufferViewSlice(src, viewIndex, path);
  if (view.byteStride) throw new GltfError(`${path}.bufferView`, 'sparse data must be tightly packed (no byteStride)');
  const byteOffset = optInteger(part, 'byteOffset', path, 0);
  const size = COMPONENT_BYTE_SIZE[componentType] * components;
  if (byteOffset + size * count > view.bytes.byteLength) {
    throw new GltfError(path, `${count} elements from byteOffset ${byteOffset} overrun bufferViews[${viewIndex}] (${view.bytes.byteLength} bytes)`);
  }
  src.budget.charge(size * count, path);
  const out = new (componentArrayConstructor(componentType)!)(count * components);
  copyElements(view.bytes, byteOffset, size, count, components, componentType, out);
  return out;
}

/**
 * The accessor's values as floats, applying the spec's normalisation
 * (§3.11: c/255, max(c/127, -1), c/65535, max(c/32767, -1)).
 */
export function toFloat32(data: AccessorData): Float32Array {
  const { array, componentType, normalized } = data;
  if (componentType === ComponentType.FLOAT) return array as Float32Array;
  const out = new Float32Array(array.length);
  if (!normalized) {
    out.set(array);
    return out;
  }
  const scale = normalizedScale(componentType);
  const signed = componentType === ComponentType.BYTE || componentType === ComponentType.SHORT;
  for (let i = 0; i < array.length; i++) {
    const v = array[i] * scale;
    out[i] = signed && v < -1 ? -1 : v;
  }
  return out;
}

/** Multiplier that maps a normalized integer component to [0, 1] / [-1, 1]. */
export function normalizedScale(componentType: number): number {
  switch (componentType) {
    case ComponentType.UNSIGNED_BYTE: return 1 / 255;
    case ComponentType.BYTE: return 1 / 127;
    case ComponentType.UNSIGNED_SHORT: return 1 / 65535;
    case ComponentType.SHORT: return 1 / 32767;
    default: return 1;
  }
}

