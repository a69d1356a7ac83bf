import { SamplerWrap } from './constants.ts';
import { GltfError } from './errors.ts';
import {
  asObject, describe, optArray, optBoolean, optIndex, optInteger, optNumber, optNumbers, optObject, optString, reqIndex,
  type JsonObject,
} from './json.ts';
import type { Material, Texture, TextureInfo, TextureSampler, TextureSource } from './model.ts';
import type { ReadContext } from './read-context.ts';
import { findExtension } from './extensions/registry.ts';
import type { MaterialDraft, MaterialReader, TextureInfoDraft } from './extensions/types.ts';
import { UnsupportedMaterialExtensions } from './extensions/unsupported-material-extensions.ts';

/** The `materials` section: PBR factors (range-checked) and texture references. */
export function readMaterials(ctx: ReadContext): Material[] {
  const textureCount = optArray(ctx.root, 'textures', '').length;
  // The schema's ranges (glTF-Validator VALUE_NOT_IN_RANGE): out-of-range factors are
  // clamped with a warning, since the shader would only clamp them later or go wrong;
  // numbers beyond a 32-bit float (the GPU's) are refused.
  const inRange = (v: number, path: string, min: number, max: number): number => {
    if (!Number.isFinite(Math.fround(v))) throw new GltfError(path, `${v} does not fit a 32-bit float`);
    if (v >= min && v <= max) return v;
    const clamped = Math.min(Math.max(v, min), max);
    ctx.warn(path, `${v} is outside [${min}, ${max}]; clamped to ${clamped}`);
    return clamped;
  };
  const factors = (obj: JsonObject, key: string, path: string, fallback: readonly number[]): number[] => {
    const v = optNumbers(obj, key, path, fallback.length);
    return v ? v.map((x, i) => inRange(x, `${path}.${key}[${i}]`, 0, 1)) : [...fallback];
  };
  const info = (obj: JsonObject, key: string, path: string, scaleKey?: 'scale' | 'strength'): TextureInfo | undefined => {
    const t = optObject(obj, key, path);
    if (!t) return undefined;
    const p = `${path}.${key}`;
    // An index past the textures (or negative) loses the texture, not the file: three.js and the
    // sample viewer draw the material without it. A non-integer is refused as any index is.
    const index = t.index;
    if (typeof index === 'number' && Number.isInteger(index) && (index < 0 || index >= textureCount)) {
      ctx.warn(`${p}.index`, `textures[${index}] does not exist (the file has ${textureCount}); the texture is ignored`);
      return undefined;
    }
    const scale = scaleKey ? optNumber(t, scaleKey, p, 1) : 1;
    const out: TextureInfoDraft = {
      index: reqIndex(t, 'index', p, textureCount, 'textures'),
      texCoord: optInteger(t, 'texCoord', p, 0, 1),
      scale: scaleKey === 'strength' ? inRange(scale, `${p}.strength`, 0, 1) : inRange(scale, `${p}.scale`, -Infinity, Infinity),
    };
    forEachExtension(t, p, (name, ext, ep) => findExtension(name)?.readTextureInfo?.(ext, ep, out));
    return out;
  };
  const reader: MaterialReader = {
    textureInfo: (obj, key, path, scaleKey) => info(obj, key, path, scaleKey),
    inRange,
    factor: (obj, key, path, fallback, min, max) => inRange(optNumber(obj, key, path, fallback), `${path}.${key}`, min, max),
    factors: (obj, key, path, fallback, min, max) => {
      const v = optNumbers(obj, key, path, fallback.length);
      return v ? v.map((x, i) => inRange(x, `${path}.${key}[${i}]`, min, max)) : [...fallback];
    },
    warn: (path, message) => ctx.warn(path, message),
  };
  const unsupported = new UnsupportedMaterialExtensions();
  const materials = optArray(ctx.root, 'materials', '').map((m, mi): Material => {
    const path = `materials[${mi}]`;
    const mat = asObject(m, path);
    const pbr = optObject(mat, 'pbrMetallicRoughness', path) ?? {};
    const ppath = `${path}.pbrMetallicRoughness`;
    const declared = optString(mat, 'alphaMode', path) ?? 'OPAQUE';
    const alphaMode = declared === 'MASK' || declared === 'BLEND' ? declared : 'OPAQUE';
    // three.js r187 tests for BLEND and MASK only, so anything else draws opaque.
    if (declared !== alphaMode) ctx.warn(`${path}.alphaMode`, `${describe(declared)} is not OPAQUE, MASK or BLEND; drawn OPAQUE`);
    const bc = factors(pbr, 'baseColorFactor', ppath, [1, 1, 1, 1]);
    const em = factors(mat, 'emissiveFactor', path, [0, 0, 0]);
    const material: MaterialDraft = {
      name: optString(mat, 'name', path),
      baseColorFactor: [bc[0], bc[1], bc[2], bc[3]] as const,
      baseColorTexture: info(pbr, 'baseColorTexture', ppath),
      metallicFactor: inRange(optNumber(pbr, 'metallicFactor', ppath, 1), `${ppath}.metallicFactor`, 0, 1),
      roughnessFactor: inRange(optNumber(pbr, 'roughnessFactor', ppath, 1), `${ppath}.roughnessFactor`, 0, 1),
      metallicRoughnessTexture: info(pbr, 'metallicRoughnessTexture', ppath),
      normalTexture: info(mat, 'normalTexture', path, 'scale'),
      occlusionTexture: info(mat, 'occlusionTexture', path, 'strength'),
      emissiveTexture: info(mat, 'emissiveTexture', path),
      emissiveFactor: [em[0], em[1], em[2]] as const,
      alphaMode,
      alphaCutoff: inRange(optNumber(mat, 'alphaCutoff', path, 0.5), `${path}.alphaCutoff`, 0, Infinity),
      doubleSided: optBoolean(mat, 'doubleSided', path, false),
    };
    forEachExtension(mat, path, (name, ext, ep) => {
      const read = findExtension(name)?.readMaterial;
      if (read) read(ext, ep, material, reader);
      else unsupported.note(name, ep);
    });
    return material;
  });
  for (const w of unsupported.warnings()) ctx.warn(w.path, w.message);
  return materials;
}

/** Calls `fn` for each entry of `obj.extensions` (each must be an object). */
function forEachExtension(obj: JsonObject, path: string, fn: (name: string, ext: JsonObject, extPath: string) => void): void {
  const exts = optObject(obj, 'extensions', path);
  if (!exts) return;
  for (const name of Object.keys(exts)) fn(name, asObject(exts[name], `${path}.extensions.${name}`), `${path}.extensions.${name}`);
}

/** The `textures` section: which sampler and image each texture pairs. */
export function readTextures(ctx: ReadContext, imageCount: number): Texture[] {
  const samplerCount = optArray(ctx.root, 'samplers', '').length;
  return optArray(ctx.root, 'textures', '').map((t, ti) => {
    const path = `textures[${ti}]`;
    const tex = asObject(t, path);
    const extensionSources: TextureSource[] = [];
    forEachExtension(tex, path, (extension, ext, ep) => {
      const read = findExtension(extension)?.readTextureSource;
      if (read) extensionSources.push({ extension, source: read(ext, ep, imageCount) });
    });
    const texture: Texture = { sampler: optIndex(tex, 'sampler', path, samplerCount, 'samplers'), source: optIndex(tex, 'source', path, imageCount, 'images') };
    return extensionSources.length > 0 ? { ...texture, extensionSources } : texture;
  });
}

/** The `samplers` section: filters as given (undefined when absent), wrap modes defaulting to REPEAT. */
export function readSamplers(ctx: ReadContext): TextureSampler[] {
  return optArray(ctx.root, 'samplers', '').map((s, si) => {
    const path = `samplers[${si}]`;
    const obj = asObject(s, path);
    return {
      magFilter: obj.magFilter === undefined ? undefined : optInteger(obj, 'magFilter', path, 0),
      minFilter: obj.minFilter === undefined ? undefined : optInteger(obj, 'minFilter', path, 0),
      wrapS: optInteger(obj, 'wrapS', path, SamplerWrap.REPEAT),
      wrapT: optInteger(obj, 'wrapT', path, SamplerWrap.REPEAT),
    };
  });
}
