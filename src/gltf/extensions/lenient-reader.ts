/**
 * Reads of untrusted extension JSON that never refuse the file: a wrong-typed value is
 * replaced by its default, an out-of-range number clamped, a broken part skipped, each with a
 * warning naming its JSON path. The VRM readers (vrm-read.ts) and the MToon material
 * (vrmc-materials-mtoon.ts) read this way; core glTF refuses instead (json.ts).
 */
import { GltfError, type WarnFn } from '../errors.ts';
import { describe, isObject, type JsonObject } from '../json.ts';

export class LenientReader {
  constructor(private readonly warnFn: WarnFn) {}

  warn(path: string, message: string): void {
    this.warnFn(path, message);
  }

  /** Runs `read`; a GltfError it throws becomes a warning ("… ; skipped") and the result undefined. */
  part<T>(read: () => T): T | undefined {
    try {
      return read();
    } catch (e) {
      if (!(e instanceof GltfError)) throw e;
      this.warn(e.path, `${e.problem}; skipped`);
      return undefined;
    }
  }

  /** The object at `obj[key]`, or undefined (with a warning) when it is something else. */
  object(obj: JsonObject, key: string, path: string): JsonObject | undefined {
    const v = obj[key];
    if (v === undefined) return undefined;
    if (isObject(v)) return v;
    this.warn(`${path}.${key}`, `expected an object, got ${describe(v)}; ignored`);
    return undefined;
  }

  /** The array at `obj[key]` (empty when absent; a warning when it is something else). */
  array(obj: JsonObject, key: string, path: string): readonly unknown[] {
    const v = obj[key];
    if (v === undefined) return [];
    if (Array.isArray(v)) return v;
    this.warn(`${path}.${key}`, `expected an array, got ${describe(v)}; ignored`);
    return [];
  }

  /** A finite number in [min, max]: `fallback` when absent or not a number, clamped when outside, each with a warning. */
  number(obj: JsonObject, key: string, path: string, fallback: number, min = -Infinity, max = Infinity): number {
    const v = obj[key];
    if (v === undefined) return fallback;
    const p = `${path}.${key}`;
    if (!fitsFloat32(v)) {
      this.warn(p, `expected a finite number a 32-bit float holds, got ${describe(v)}; using ${fallback}`);
      return fallback;
    }
    return this.inRange(v, p, min, max);
  }

  /** `v` clamped to [min, max], with a warning at `path` when it was outside. */
  inRange(v: number, path: string, min: number, max: number): number {
    if (v >= min && v <= max) return v;
    const clamped = v < min ? min : max;
    this.warn(path, `${v} is outside [${min}, ${max}]; using ${clamped}`);
    return clamped;
  }

  boolean(obj: JsonObject, key: string, path: string, fallback: boolean): boolean {
    const v = obj[key];
    if (v === undefined) return fallback;
    if (typeof v === 'boolean') return v;
    this.warn(`${path}.${key}`, `expected a boolean, got ${describe(v)}; using ${fallback}`);
    return fallback;
  }

  string(obj: JsonObject, key: string, path: string): string | undefined {
    const v = obj[key];
    if (v === undefined || typeof v === 'string') return v;
    this.warn(`${path}.${key}`, `expected a string, got ${describe(v)}; ignored`);
    return undefined;
  }

  /** One of `choices`, else `fallback` with a warning. */
  choice<T extends string>(obj: JsonObject, key: string, path: string, choices: readonly T[], fallback: T): T {
    const v = obj[key];
    if (v === undefined) return fallback;
    if (typeof v === 'string' && (choices as readonly string[]).includes(v)) return v as T;
    this.warn(`${path}.${key}`, `${describe(v)} is not one of ${choices.join(', ')}; using ${fallback}`);
    return fallback;
  }

  /** `length` finite numbers at `obj[key]` (an array), else `fallback` with a warning. */
  numbers<N extends number[]>(obj: JsonObject, key: string, path: string, fallback: N): N {
    const v = obj[key];
    if (v === undefined) return fallback.slice() as N;
    const p = `${path}.${key}`;
    if (!Array.isArray(v) || v.length !== fallback.length || !v.every(fitsFloat32)) {
      this.warn(p, `expected ${fallback.length} finite numbers a 32-bit float holds, got ${describe(v)}; using [${fallback.join(', ')}]`);
      return fallback.slice() as N;
    }
    return v.slice() as N;
  }

}

/** A finite number that stays finite as a 32-bit float (what the GPU and the file's floats hold). */
export function fitsFloat32(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && Number.isFinite(Math.fround(v));
}

