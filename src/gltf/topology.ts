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
