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

/**
 * `p` as its vertex buffers hold it: a non-indexed triangle list without morph targets gets its
 * bit-identical vertices (every attribute, skinning ones included) merged and an index buffer
 * (glTF exporters often write flat-shaded meshes like the Fox this way: 1728 corners, 434
 * distinct vertices). Same triangles with the same vertex values, so the same pixels; the
 * vertex stage runs once per distinct vertex where the rasteriser caches indexed vertices
 * (SwiftShader does). Any other primitive is returned as is.
 */
export function weldPrimitive(p: Primitive): Primitive {
  if (p.indices || p.mode !== PrimitiveMode.TRIANGLES || p.targets.length > 0 || p.vertexCount === 0) return p;
  const n = p.vertexCount;
  // Every per-vertex array, compared by bits (floats through a Uint32 view: -0 ≠ 0, NaN = NaN of the same bits).
  const arrays: ArrayLike<number>[] = [];
  const bits = (a: ComponentArray): ArrayLike<number> => (a instanceof Float32Array ? new Uint32Array(a.buffer, a.byteOffset, a.length) : a);
  for (const a of [p.positions, p.normals, p.tangents, p.texcoords0, p.texcoords1, p.colors0, p.joints, p.weights]) if (a) arrays.push(bits(a));
  for (const s of [...p.jointSets, ...p.weightSets]) arrays.push(bits(s.array));
  const widths = arrays.map((a) => a.length / n);
  const remap = new Uint32Array(n);
  const first: number[] = [];
  const seen = new Map<string, number>();
  const key: number[] = [];
  for (let v = 0; v < n; v++) {
    key.length = 0;
    for (let k = 0; k < arrays.length; k++) for (let c = 0; c < widths[k]; c++) key.push(arrays[k][v * widths[k] + c]);
    const id = key.join(',');
    let u = seen.get(id);
    if (u === undefined) {
      u = first.length;
      seen.set(id, u);
      first.push(v);
    }
    remap[v] = u;
  }
  const unique = first.length;
  if (unique === n) return p;
  function compact<T extends ComponentArray | undefined>(a: T): T {
    if (!a) return a;
    const width = a.length / n;
    const out = new (a.constructor as new (length: number) => ComponentArray)(unique * width);
    for (let u = 0; u < unique; u++) for (let c = 0; c < width; c++) out[u * width + c] = a[first[u] * width + c];
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
