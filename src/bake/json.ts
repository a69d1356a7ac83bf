import type { BakeResult } from './bake.ts';

/** Ten significant digits: far below float32 precision, and half the size of full doubles. */
function formatNumber(v: number): string {
  if (v === 0) return '0';
  return String(Number(v.toPrecision(10)));
}

function formatArray(values: ArrayLike<number>): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) parts[i] = formatNumber(values[i]);
  return `[${parts.join(',')}]`;
}

/**
 * The bake JSON contract:
 * {"asset", "animation": {"index", "name"} | null, "time", "primitives": [{"node", "mesh",
 *  "primitive", "vertexCount", "POSITION", "NORMAL"?, "TANGENT"?}]}
 */
export function bakeToJson(result: BakeResult): string {
  const prims = result.primitives.map((p) => {
    let s = `{"node":${p.node},"mesh":${p.mesh},"primitive":${p.primitive},"vertexCount":${p.vertexCount},"POSITION":${formatArray(p.positions)}`;
    if (p.normals) s += `,"NORMAL":${formatArray(p.normals)}`;
    if (p.tangents) s += `,"TANGENT":${formatArray(p.tangents)}`;
    return s + '}';
  });
  const animation = result.animation ? JSON.stringify(result.animation) : 'null';
  return `{"asset":${JSON.stringify(result.asset)},"animation":${animation},"time":${result.time},"primitives":[\n${prims.join(',\n')}\n]}\n`;
}
