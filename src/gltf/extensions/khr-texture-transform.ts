/**
 * KHR_texture_transform: offset, rotation and scale of a textureInfo's UVs, and a texCoord
 * override, read into `TextureInfo.transform`. The mesh shader multiplies each slot's UVs
 * by M = T·R·S (`uvTransformMatrix`: the extension's definition, rotation counter-clockwise
 * in UV space, as the Khronos sample viewer builds it; three.js applies scale after
 * rotation, which differs only for a non-uniform scale with a rotation).
 */
import { GltfError } from '../errors.ts';
import { optInteger, optNumber, optNumbers, type JsonObject } from '../json.ts';
import type { TextureTransform, UvTransform } from '../model.ts';
import type { GltfExtension, TextureInfoDraft } from './types.ts';

/** The identity: what a textureInfo without the extension uses. */
export const IDENTITY_UV_TRANSFORM: UvTransform = Object.freeze([1, 0, 0, 1, 0, 0] as const);

/** T(offset) · R(rotation) · S(scale) as a column-major 3×2 matrix. */
export function uvTransformMatrix(offset: readonly number[], rotation: number, scale: readonly number[]): UvTransform {
  const c = Math.cos(rotation), s = Math.sin(rotation);
  // 0 − x, not −x: no −0 entries for a zero rotation.
  return [c * scale[0], 0 - s * scale[0], s * scale[1], c * scale[1], offset[0], offset[1]];
}

/** `m` applied to (u, v), written to `out` (which may be the input array). */
export function applyUvTransform(m: UvTransform, u: number, v: number, out: number[]): number[] {
  out[0] = m[0] * u + m[2] * v + m[4];
  out[1] = m[1] * u + m[3] * v + m[5];
  return out;
}

function finite(values: readonly number[], path: string): readonly number[] {
  for (const v of values) if (!Number.isFinite(Math.fround(v))) throw new GltfError(path, `${v} does not fit a 32-bit float`);
  return values;
}

/** The extension's JSON for `t`, defaults left out (a bake writes it back). */
export function textureTransformJson(t: TextureTransform): JsonObject {
  const json: JsonObject = {};
  if (t.offset[0] !== 0 || t.offset[1] !== 0) json.offset = [...t.offset];
  if (t.rotation !== 0) json.rotation = t.rotation;
  if (t.scale[0] !== 1 || t.scale[1] !== 1) json.scale = [...t.scale];
  return json;
}

export const KHR_TEXTURE_TRANSFORM: GltfExtension = {
  name: 'KHR_texture_transform',
  readTextureInfo(ext: JsonObject, path: string, info: TextureInfoDraft): void {
    const offset = finite(optNumbers(ext, 'offset', path, 2) ?? [0, 0], `${path}.offset`);
    const rotation = finite([optNumber(ext, 'rotation', path, 0)], `${path}.rotation`)[0];
    const scale = finite(optNumbers(ext, 'scale', path, 2) ?? [1, 1], `${path}.scale`);
    info.transform = { offset: [offset[0], offset[1]], rotation, scale: [scale[0], scale[1]] };
    if (ext.texCoord !== undefined) info.texCoord = optInteger(ext, 'texCoord', path, 0, 1);
  },
};
