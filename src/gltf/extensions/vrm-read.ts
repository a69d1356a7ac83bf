/**
 * What the VRM readers (vrmc-vrm.ts, vrmc-spring-bone.ts, vrmc-node-constraint.ts, vrm0*.ts)
 * share. A VRM part that is broken is skipped with a warning naming its JSON path and the
 * model still loads and draws (the VRM rule, unlike core glTF where a broken reference is
 * refused): `part` turns a part's GltfError into that warning. Out-of-range numbers are
 * clamped, and wrong-typed ones replaced by the default, each with a warning.
 */
import { GltfError } from '../errors.ts';
import { describe, isObject, type JsonObject } from '../json.ts';
import type { Mesh, NodeInfo } from '../model.ts';
import type { ReadContext } from '../read-context.ts';

/** What the VRM readers need of the model read so far. */
export interface VrmReadInput {
  readonly ctx: ReadContext;
  readonly nodes: readonly NodeInfo[];
  readonly meshes: readonly Mesh[];
  readonly materialCount: number;
  readonly textureCount: number;
  /** Parent node (glTF index) of each node, -1 for a root. */
  readonly parent: ArrayLike<number>;
}

export class VrmReader {
  constructor(readonly input: VrmReadInput) {}

  get nodeCount(): number {
    return this.input.nodes.length;
  }

  warn(path: string, message: string): void {
    this.input.ctx.warn(path, message);
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
    if (v < min || v > max) {
      const clamped = v < min ? min : max;
      this.warn(p, `${v} is outside [${min}, ${max}]; using ${clamped}`);
      return clamped;
    }
    return v;
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

  /** A 0.x `{x, y, z}` vector (missing components 0), else `fallback` with a warning. */
  xyz(obj: JsonObject, key: string, path: string, fallback: [number, number, number]): [number, number, number] {
    const v = obj[key];
    if (v === undefined) return fallback.slice() as [number, number, number];
    const p = `${path}.${key}`;
    if (!isObject(v)) {
      this.warn(p, `expected an {x, y, z} object, got ${describe(v)}; using [${fallback.join(', ')}]`);
      return fallback.slice() as [number, number, number];
    }
    return [this.number(v, 'x', p, 0), this.number(v, 'y', p, 0), this.number(v, 'z', p, 0)];
  }

  /** A node index (throws GltfError naming the path, for `part` to skip). */
  node(v: unknown, path: string): number {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new GltfError(path, `expected a node index, got ${describe(v)}`);
    if (v >= this.nodeCount) throw new GltfError(path, `node ${v} does not exist (nodes has ${this.nodeCount})`);
    return v;
  }

  /** An index into a list of `length` entries named `what` (throws GltfError for `part`). */
  index(v: unknown, path: string, length: number, what: string): number {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new GltfError(path, `expected an index into ${what}, got ${describe(v)}`);
    if (v >= length) throw new GltfError(path, `index ${v} is out of range (${what} has ${length})`);
    return v;
  }

  /** True when `ancestor` is a strict ancestor of `node`. */
  isAncestor(ancestor: number, node: number): boolean {
    const parent = this.input.parent;
    // Bounded by the node count: the hierarchy was checked acyclic before.
    for (let n = parent[node], steps = 0; n >= 0 && steps <= this.nodeCount; n = parent[n], steps++) {
      if (n === ancestor) return true;
    }
    return false;
  }
}

/** A finite number that stays finite as a 32-bit float (what the GPU and the file's floats hold). */
export function fitsFloat32(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && Number.isFinite(Math.fround(v));
}

/** The object at `root.extensions[name]`, or undefined. */
export function rootExtension(root: JsonObject, name: string): unknown {
  const ext = root.extensions;
  return isObject(ext) ? ext[name] : undefined;
}
