/**
 * What the VRM readers (vrmc-vrm.ts, vrmc-spring-bone.ts, vrmc-node-constraint.ts, vrm0*.ts)
 * share. A VRM part that is broken is skipped with a warning naming its JSON path and the
 * model still loads and draws (the VRM rule, unlike core glTF where a broken reference is
 * refused): the lenient reads of lenient-reader.ts, plus node and index references.
 */
import { GltfError } from '../errors.ts';
import { describe, isObject, type JsonObject } from '../json.ts';
import type { Mesh, NodeInfo } from '../model.ts';
import type { ReadContext } from '../read-context.ts';
import { LenientReader } from './lenient-reader.ts';

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

export class VrmReader extends LenientReader {
  constructor(readonly input: VrmReadInput) {
    super((path, message) => input.ctx.warn(path, message));
  }

  get nodeCount(): number {
    return this.input.nodes.length;
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

/** The object at `root.extensions[name]`, or undefined. */
export function rootExtension(root: JsonObject, name: string): unknown {
  const ext = root.extensions;
  return isObject(ext) ? ext[name] : undefined;
}
