import type { Model } from '../gltf/model.ts';
import { triangleList } from '../gltf/topology.ts';
import type { BakeResult } from './bake.ts';
import { posedPrimitives } from './posed.ts';

const fmt = (v: number): string => String(Number(v.toPrecision(8)));

/**
 * Wavefront OBJ of the whole posed scene in world space: one `o` group per primitive,
 * `v`/`vn`/`vt` (V flipped: OBJ's origin is bottom-left, glTF's top-left), triangles only.
 */
export function bakeToObj(model: Model, result: BakeResult): string {
  const lines: string[] = [`# ${result.asset} posed at t=${result.time}s${result.animation ? ` of animation ${result.animation.index}` : ''}`];
  // OBJ indices are 1-based and global, with separate counters for v, vt and vn.
  let vBase = 1, vtBase = 1, vnBase = 1;
  for (const p of posedPrimitives(model, result)) {
    const tris = triangleList(p.source);
    if (!tris) continue;
    lines.push(`o node${p.node}_mesh${p.mesh}_primitive${p.primitive}${p.instance >= 0 ? `_instance${p.instance}` : ''}`);
    const n = p.source.vertexCount;
    for (let v = 0; v < n; v++) lines.push(`v ${fmt(p.positions[v * 3])} ${fmt(p.positions[v * 3 + 1])} ${fmt(p.positions[v * 3 + 2])}`);
    const uv = p.source.texcoords0;
    if (uv) for (let v = 0; v < n; v++) lines.push(`vt ${fmt(uv[v * 2])} ${fmt(1 - uv[v * 2 + 1])}`);
    if (p.normals) for (let v = 0; v < n; v++) lines.push(`vn ${fmt(p.normals[v * 3])} ${fmt(p.normals[v * 3 + 1])} ${fmt(p.normals[v * 3 + 2])}`);
    const ref = (i: number): string => {
      const v = vBase + i;
      if (uv && p.normals) return `${v}/${vtBase + i}/${vnBase + i}`;
      if (p.normals) return `${v}//${vnBase + i}`;
      if (uv) return `${v}/${vtBase + i}`;
      return String(v);
    };
    for (let t = 0; t < tris.length; t += 3) lines.push(`f ${ref(tris[t])} ${ref(tris[t + 1])} ${ref(tris[t + 2])}`);
    vBase += n;
    if (uv) vtBase += n;
    if (p.normals) vnBase += n;
  }
  return lines.join('\n') + '\n';
}
