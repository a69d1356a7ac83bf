import { readAccessor, toFloat32, type AccessorData, type AccessorSource } from './accessors.ts';
import type { LoadBudget } from './budget.ts';
import { ComponentType } from './constants.ts';
import { GltfError, type GltfWarning } from './errors.ts';
import { asObject, checkIndex, reqInteger, type JsonObject } from './json.ts';

/**
 * What a compressed primitive (extensions/khr-draco-mesh-compression.ts) decodes to: the data
 * that replaces some of its attributes' accessors while that primitive is read, its
 * triangle-list indices, and the mode they are in. Primitives that share one decode share one
 * substitute, and with it everything derived from its data.
 */
export interface PrimitiveSubstitute {
  /** Distinguishes what is derived from this substitute's data in the readers' caches. */
  readonly key: string;
  /**
   * Replacement data by attribute semantic (TEXCOORD_1). By semantic, not by accessor: the
   * compressed stream's attribute map defines the data, and some writers name one accessor
   * for several attributes (TEXCOORD_0…3), which still decode to four arrays, as in three.js.
   * Those accessors may have no bufferView at all.
   */
  readonly attributes: ReadonlyMap<string, AccessorData>;
  readonly indices: AccessorData;
  readonly mode: number;
}

/** A quaternion whose length is further than this from 1 is reported when normalised. */
export const QUAT_LENGTH_WARN = 1e-3;

/**
 * What every section reader (nodes.ts, meshes.ts, skins.ts, animations.ts, materials.ts…)
 * shares during one load: the JSON root, the accessors with their derived arrays, the
 * budget and the warnings. One instance per load.
 */
export class ReadContext {
  readonly warnings: GltfWarning[] = [];
  readonly budget: LoadBudget;
  /**
   * Everything derived from an accessor is computed once and shared by every use, so a
   * file that references one big accessor from thousands of places costs no more than
   * one reference (the budget covers what is not shared).
   */
  private readonly accessorCache = new Map<number, AccessorData>();
  private readonly floatCache = new Map<number, Float32Array>();
  private readonly usedAccessors: Uint8Array;
  private readonly warned = new Set<string>();
  /** Decoded compressed primitives, by their JSON object (filled before the meshes are read). */
  readonly substitutes = new Map<JsonObject, PrimitiveSubstitute>();
  private active: PrimitiveSubstitute | undefined;
  /** floatValues of substitutes' data, by that data. */
  private readonly substituteFloats = new WeakMap<AccessorData, Float32Array>();

  constructor(
    readonly root: JsonObject,
    private readonly src: AccessorSource,
  ) {
    this.budget = src.budget;
    this.usedAccessors = new Uint8Array(src.accessors.length);
  }

  /** Records a warning once: data shared by several references (a Draco stream two meshes use) reports once. */
  warn(path: string, message: string): void {
    const key = `${path}\n${message}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.warnings.push({ path, message });
  }

  /** Runs `read` with `substitute`'s data in place of the accessors it replaces. */
  withSubstitute<T>(substitute: PrimitiveSubstitute | undefined, read: () => T): T {
    if (!substitute) return read();
    this.active = substitute;
    try {
      return read();
    } finally {
      this.active = undefined;
    }
  }

  /** Prefix for cache keys derived from accessor indices: empty unless a substitute is active. */
  get cacheTag(): string {
    return this.active ? `${this.active.key}:` : '';
  }

  accessor(index: unknown, usedAt: string): AccessorData {
    const i = this.markUsed(index, usedAt);
    let data = this.accessorCache.get(i);
    if (!data) {
      data = readAccessor(this.src, i, usedAt, (at, message) => this.warn(at, message));
      this.accessorCache.set(i, data);
    }
    return data;
  }

  /** The accessor's values as floats (normalisation applied), all checked finite. */
  floatValues(index: unknown, usedAt: string): Float32Array {
    const data = this.accessor(index, usedAt);
    const i = index as number;
    let out = this.floatCache.get(i);
    if (!out) {
      out = this.checkedFloats(data, `accessors[${i}]`, usedAt);
      this.floatCache.set(i, out);
    }
    return out;
  }

  floatAccessor(index: unknown, usedAt: string, components: readonly number[]): Float32Array {
    const data = this.accessor(index, usedAt);
    checkComponents(data, `accessors[${String(index)}]`, usedAt, components);
    return this.floatValues(index, usedAt);
  }

  /** An accessor's `count` from its JSON alone (for attributes the loader does not read). */
  accessorCount(index: unknown, usedAt: string): number {
    const i = this.markUsed(index, usedAt);
    const cached = this.accessorCache.get(i);
    if (cached) return cached.count;
    return reqInteger(asObject(this.src.accessors[i], `accessors[${i}]`), 'count', `accessors[${i}]`);
  }

  /**
   * A primitive's attribute `name` (`attrs[name]` names its accessor, `apath` is
   * `….attributes`): the active substitute's data for that semantic when it decodes one, else
   * the accessor's. Every attribute reader goes through these three, so a decoded attribute is
   * read as what it decodes to whichever accessor it names.
   */
  attribute(attrs: JsonObject, name: string, apath: string): AccessorData {
    const decoded = this.active?.attributes.get(name);
    if (!decoded) return this.accessor(attrs[name], `${apath}.${name}`);
    this.markAttribute(attrs, name, apath);
    return decoded;
  }

  /** `attribute`'s values as floats (normalisation applied), all checked finite; `components` it must have. */
  attributeFloats(attrs: JsonObject, name: string, apath: string, components?: readonly number[]): Float32Array {
    const decoded = this.active?.attributes.get(name);
    if (!decoded) {
      const usedAt = `${apath}.${name}`;
      return components ? this.floatAccessor(attrs[name], usedAt, components) : this.floatValues(attrs[name], usedAt);
    }
    const usedAt = this.markAttribute(attrs, name, apath);
    const what = `the decoded ${name}`;
    if (components) checkComponents(decoded, what, usedAt, components);
    let out = this.substituteFloats.get(decoded);
    if (!out) {
      out = this.checkedFloats(decoded, what, usedAt);
      this.substituteFloats.set(decoded, out);
    }
    return out;
  }

  /** `attribute`'s element count, from the accessor's JSON alone when nothing decodes it. */
  attributeCount(attrs: JsonObject, name: string, apath: string): number {
    const decoded = this.active?.attributes.get(name);
    if (!decoded) return this.accessorCount(attrs[name], `${apath}.${name}`);
    this.markAttribute(attrs, name, apath);
    return decoded.count;
  }

  private markAttribute(attrs: JsonObject, name: string, apath: string): string {
    const usedAt = `${apath}.${name}`;
    this.markUsed(attrs[name], usedAt);
    return usedAt;
  }

  /** Checks an accessor index and marks the accessor used. */
  private markUsed(index: unknown, usedAt: string): number {
    const i = checkIndex(index, usedAt, this.src.accessors.length, 'accessors');
    this.usedAccessors[i] = 1;
    return i;
  }

  /** `data` widened to floats (charged unless already float), every value checked finite. */
  private checkedFloats(data: AccessorData, what: string, usedAt: string): Float32Array {
    if (data.componentType !== ComponentType.FLOAT) this.budget.charge(data.array.length * 4, usedAt);
    const out = toFloat32(data);
    for (let k = 0; k < out.length; k++) {
      if (!Number.isFinite(out[k])) {
        throw new GltfError(usedAt, `${what} has a non-finite value (${out[k]}) at element ${Math.floor(k / data.components)}`);
      }
    }
    return out;
  }

  /** Like glTF-Validator's UNUSED_OBJECT hint: accessors the file carries but no section read. */
  warnUnusedAccessors(): void {
    const unused: number[] = [];
    for (let i = 0; i < this.usedAccessors.length; i++) if (!this.usedAccessors[i]) unused.push(i);
    if (unused.length > 0) this.warn('accessors', `${listOf(unused, 'accessors')} never used; ignored`);
  }
}

/** "accessors[3], accessors[7] and 2 more are" — a short list for a warning. */
export function listOf(indices: number[], what: string): string {
  const shown = indices.slice(0, 5).map((i) => `${what}[${i}]`).join(', ');
  const more = indices.length > 5 ? ` and ${indices.length - 5} more` : '';
  return `${shown}${more} ${indices.length === 1 ? 'is' : 'are'}`;
}

function checkComponents(data: AccessorData, what: string, usedAt: string, components: readonly number[]): void {
  if (!components.includes(data.components)) {
    throw new GltfError(usedAt, `${what} has ${data.components} components, expected ${components.join(' or ')}`);
  }
}
