import type { AccessorData, ComponentArray } from './accessors.ts';
import { PrimitiveMode } from './constants.ts';
import type { Primitive } from './model.ts';

/**
 * The primitive's triangles as a flat index list (three per triangle), expanding
 * strips and fans and the non-indexed case. Undefined for points and lines.
 */
export function triangleList(prim: Primitive): Uint32Array | undefined {
  const count = prim.indices ? prim.indices.length : prim.vertexCount;
  const at = (i: number): number => (prim.indices ? prim.indices[i] : i);
  switch (prim.mode) {
    case PrimitiveMode.TRIANGLES: {
      const out = new Uint32Array(count - (count % 3));
      for (let i = 0; i < out.length; i++) out[i] = at(i);
      return out;
    }
    case PrimitiveMode.TRIANGLE_STRIP: {
      const n = Math.max(0, count - 2);
      const out = new Uint32Array(n * 3);
      for (let i = 0; i < n; i++) {
        // Every other triangle swaps its first two vertices to keep the winding (glTF §3.7.2.1).
        const even = i % 2 === 0;
        out[i * 3] = at(even ? i : i + 1);
        out[i * 3 + 1] = at(even ? i + 1 : i);
        out[i * 3 + 2] = at(i + 2);
      }
      return out;
    }
    case PrimitiveMode.TRIANGLE_FAN: {
      const n = Math.max(0, count - 2);
      const out = new Uint32Array(n * 3);
      for (let i = 0; i < n; i++) {
        out[i * 3] = at(i + 1);
        out[i * 3 + 1] = at(i + 2);
        out[i * 3 + 2] = at(0);
      }
      return out;
    }
    default:
      return undefined;
  }
}

/**
 * WebGPU has no fans or loops: fans become lists, loops become strips that return to
 * their first vertex. Returns the primitive's indices otherwise (undefined: non-indexed).
 */
export function drawIndices(p: Primitive): Uint16Array | Uint32Array | undefined {
  const n = p.indices ? p.indices.length : p.vertexCount;
  const at = (i: number) => (p.indices ? p.indices[i] : i);
  const Wide = p.vertexCount > 0xffff ? Uint32Array : Uint16Array;
  if (p.mode === PrimitiveMode.TRIANGLE_FAN) {
    const out = new Wide(Math.max(0, n - 2) * 3);
    for (let i = 0; i + 2 < n; i++) {
      out[i * 3] = at(0); out[i * 3 + 1] = at(i + 1); out[i * 3 + 2] = at(i + 2);
    }
    return out;
  }
  if (p.mode === PrimitiveMode.LINE_LOOP) {
    const out = new Wide(n + 1);
    for (let i = 0; i < n; i++) out[i] = at(i);
    out[n] = at(0);
    return out;
  }
  return p.indices;
}

/** weldPrimitive's vertex hash: h · 31 + word per word (31 · 2^32 + 2^32 stays exact in a double), high half folded into the slot. */
const HASH_MULTIPLIER = 31;
const HASH_FOLD = 16;

/**
 * A per-vertex array as 32-bit words where each vertex is whole aligned words (floats, 4 × u16
 * joints, 4 × u8 colours): fewer reads, all of one array type, so the cold loops over them stay
 * monomorphic. Otherwise (3 × u8, 3 × i16) the array itself; either way equal entries mean equal bits.
 */
function vertexWords(a: ComponentArray, n: number): Uint32Array | ComponentArray {
  return (a.byteLength / n) % 4 === 0 && a.byteOffset % 4 === 0 ? new Uint32Array(a.buffer, a.byteOffset, a.byteLength / 4) : a;
}

/** Whether vertices `a` and `b` have the same entries in every array (weldPrimitive). */
function sameVertex(arrays: readonly ArrayLike<number>[], widths: readonly number[], a: number, b: number): boolean {
  for (let k = 0; k < arrays.length; k++) {
    const array = arrays[k], w = widths[k];
    for (let i = a * w, j = b * w, end = i + w; i < end; i++, j++) if (array[i] !== array[j]) return false;
  }
  return true;
}

/**
 * `p` as its vertex buffers hold it: a non-indexed triangle list without morph targets gets its
 * bit-identical vertices (every attribute, skinning ones included) merged and an index buffer
 * (glTF exporters often write flat-shaded meshes like the Fox this way: 1728 corners, 434
 * distinct vertices). Same triangles with the same vertex values, so the same pixels; the
 * vertex stage runs once per distinct vertex where the rasteriser caches indexed vertices
 * (SwiftShader does). Any other primitive is returned as is.
 *
 * Made once per primitive and kept (the model is immutable): the GPU upload and the load-time
 * bounds, which skin or transform each distinct vertex once instead of every corner (a quarter
 * of the Fox's), share it.
 */
export function weldPrimitive(p: Primitive): Primitive {
  let welded = welds.get(p);
  if (!welded) {
    welded = weld(p);
    welds.set(p, welded);
  }
  return welded;
}

/** weldPrimitive's results, by the model's primitive. */
const welds = new WeakMap<Primitive, Primitive>();

function weld(p: Primitive): Primitive {
  if (p.indices || p.mode !== PrimitiveMode.TRIANGLES || p.targets.length > 0 || p.vertexCount === 0) return p;
  const n = p.vertexCount;
  // Every per-vertex array, compared by bits (floats as words: -0 ≠ 0, NaN = NaN of the same bits).
  const all: ComponentArray[] = [];
  for (const a of [p.positions, p.normals, p.tangents, p.texcoords0, p.texcoords1, p.colors0, p.joints, p.weights]) if (a) all.push(a);
  for (const s of [...p.jointSets, ...p.weightSets]) all.push(s.array);
  const arrays = all.map((a) => vertexWords(a, n));
  const widths = arrays.map((a) => a.length / n);
  // Open addressing on a numeric hash of each vertex's words, compared word by word on a hit:
  // this runs once per load, cold (interpreted), where a string key per vertex cost ~10 ms
  // of the Fox's first frame. Ids go to vertices in order of first appearance.
  const remap = new Uint32Array(n);
  const first = new Uint32Array(n);
  let unique = 0;
  const mask = (1 << Math.ceil(Math.log2(n * 2))) - 1;
  const table = new Int32Array(mask + 1).fill(-1);
  for (let v = 0; v < n; v++) {
    let h = 0;
    for (let k = 0; k < arrays.length; k++) {
      const array = arrays[k], w = widths[k];
      // A multiply-add hash in doubles (exact below 2^53, then wrapped): no call per word.
      for (let i = v * w, end = i + w; i < end; i++) h = (h * HASH_MULTIPLIER + array[i]) | 0;
    }
    let slot = (h ^ (h >>> HASH_FOLD)) & mask;
    let u = table[slot];
    while (u >= 0 && !sameVertex(arrays, widths, first[u], v)) {
      slot = (slot + 1) & mask;
      u = table[slot];
    }
    if (u < 0) {
      u = unique++;
      table[slot] = u;
      first[u] = v;
    }
    remap[v] = u;
  }
  if (unique === n) return p;
  function compact<T extends ComponentArray | undefined>(a: T): T {
    if (!a) return a;
    const out = new (a.constructor as new (length: number) => ComponentArray)(a.length / n * unique);
    const from = vertexWords(a, n);
    const to = from === a ? out : new Uint32Array(out.buffer);
    const width = from.length / n;
    for (let u = 0; u < unique; u++) {
      for (let i = first[u] * width, o = u * width, end = i + width; i < end; i++, o++) to[o] = from[i];
    }
    return out as T;
  }
  const compactSet = (s: AccessorData): AccessorData => ({ ...s, array: compact(s.array), count: unique });
  return {
    ...p,
    vertexCount: unique,
    positions: compact(p.positions),
    normals: compact(p.normals),
    tangents: compact(p.tangents),
    texcoords0: compact(p.texcoords0),
    texcoords1: compact(p.texcoords1),
    colors0: compact(p.colors0),
    joints: compact(p.joints),
    weights: compact(p.weights),
    // Merged vertices have the same weights and position, so the same centre of rotation.
    ...(p.centersOfRotation && { centersOfRotation: compact(p.centersOfRotation) }),
    jointSets: p.jointSets.map(compactSet),
    weightSets: p.weightSets.map(compactSet),
    ...(p.quantized && { quantized: Object.fromEntries(Object.entries(p.quantized).map(([k, s]) => [k, compactSet(s)])) }),
    indices: unique > 0xffff ? remap : Uint16Array.from(remap),
  };
}
