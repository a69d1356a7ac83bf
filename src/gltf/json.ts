import { GltfError } from './errors.ts';

/**
 * Checked reads of untrusted glTF JSON. Every getter takes the JSON path of the
 * value so the error can say exactly where the problem is.
 */
export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function asObject(v: unknown, path: string): JsonObject {
  if (!isObject(v)) throw new GltfError(path, `expected an object, got ${describe(v)}`);
  return v;
}

export function optArray(obj: JsonObject, key: string, path: string): unknown[] {
  const v = obj[key];
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new GltfError(`${path}.${key}`, `expected an array, got ${describe(v)}`);
  return v;
}

export function optObject(obj: JsonObject, key: string, path: string): JsonObject | undefined {
  const v = obj[key];
  if (v === undefined) return undefined;
  return asObject(v, `${path}.${key}`);
}

export function optString(obj: JsonObject, key: string, path: string): string | undefined {
  const v = obj[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new GltfError(`${path}.${key}`, `expected a string, got ${describe(v)}`);
  return v;
}

export function reqString(obj: JsonObject, key: string, path: string): string {
  const v = optString(obj, key, path);
  if (v === undefined) throw new GltfError(`${path}.${key}`, 'is required');
  return v;
}

export function optBoolean(obj: JsonObject, key: string, path: string, fallback: boolean): boolean {
  const v = obj[key];
  if (v === undefined) return fallback;
  if (typeof v !== 'boolean') throw new GltfError(`${path}.${key}`, `expected a boolean, got ${describe(v)}`);
  return v;
}

export function optNumber(obj: JsonObject, key: string, path: string, fallback: number): number {
  const v = obj[key];
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw new GltfError(`${path}.${key}`, `expected a finite number, got ${describe(v)}`);
  }
  return v;
}

/** A non-negative integer no larger than `max`. */
export function optInteger(obj: JsonObject, key: string, path: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const v = obj[key];
  if (v === undefined) return fallback;
  return checkInteger(v, `${path}.${key}`, max);
}

export function reqInteger(obj: JsonObject, key: string, path: string, max = Number.MAX_SAFE_INTEGER): number {
  const v = obj[key];
  if (v === undefined) throw new GltfError(`${path}.${key}`, 'is required');
  return checkInteger(v, `${path}.${key}`, max);
}

export function checkInteger(v: unknown, path: string, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw new GltfError(path, `expected a non-negative integer, got ${describe(v)}`);
  }
  if (v > max) throw new GltfError(path, `${v} is larger than the maximum ${max}`);
  return v;
}

/** An index into a top-level array of `length` entries named `what`. */
export function checkIndex(v: unknown, path: string, length: number, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw new GltfError(path, `expected an index into ${what}, got ${describe(v)}`);
  }
  if (v >= length) throw new GltfError(path, `index ${v} is out of range (${what} has ${length})`);
  return v;
}

export function reqIndex(obj: JsonObject, key: string, path: string, length: number, what: string): number {
  const v = obj[key];
  if (v === undefined) throw new GltfError(`${path}.${key}`, 'is required');
  return checkIndex(v, `${path}.${key}`, length, what);
}

export function optIndex(obj: JsonObject, key: string, path: string, length: number, what: string): number {
  const v = obj[key];
  if (v === undefined) return -1;
  return checkIndex(v, `${path}.${key}`, length, what);
}

/** A fixed-length array of finite numbers (e.g. a node's `rotation`). */
export function optNumbers(obj: JsonObject, key: string, path: string, length: number): number[] | undefined {
  const v = obj[key];
  if (v === undefined) return undefined;
  const p = `${path}.${key}`;
  if (!Array.isArray(v) || v.length !== length) {
    throw new GltfError(p, `expected an array of ${length} numbers, got ${describe(v)}`);
  }
  for (let i = 0; i < length; i++) {
    if (typeof v[i] !== 'number' || !Number.isFinite(v[i])) {
      throw new GltfError(`${p}[${i}]`, `expected a finite number, got ${describe(v[i])}`);
    }
  }
  return v as number[];
}

/** JSON numbers into 32-bit floats, refusing those that only a double can hold (1e308 would become Infinity). */
export function float32Array(values: readonly number[], path: string): Float32Array {
  const out = Float32Array.from(values);
  for (let i = 0; i < out.length; i++) {
    if (!Number.isFinite(out[i])) throw new GltfError(`${path}[${i}]`, `${values[i]} does not fit a 32-bit float`);
  }
  return out;
}

export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v);
  if (typeof v === 'number') return String(v);
  return typeof v;
}
