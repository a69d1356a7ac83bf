/**
 * VRMC_materials_mtoon 1.0: a material's toon parameters (mtoon-model.ts) into
 * `Material.mtoon`, which the renderer draws with its MToon path (src/gpu/materials/mtoon*).
 * Nothing here refuses the file: a wrong-typed value takes its default, an out-of-range one is
 * clamped, a broken texture reference is dropped, each with a warning naming its JSON path, and
 * an unknown `specVersion` leaves the material to its glTF fallback (as three-vrm does).
 * With KHR_materials_unlit on the same material, MToon wins (the specification's rule); the
 * unlit shading stays the fallback.
 */
import { describe, isObject, type JsonObject } from '../json.ts';
import type { Material, TextureInfo } from '../model.ts';
import { MTOON_DEFAULTS, MTOON_OUTLINE_WIDTH_MODES, type MToonMaterial } from '../mtoon-model.ts';
import type { Rgb } from '../pbr-extensions-model.ts';
import { LenientReader } from './lenient-reader.ts';
import type { GltfExtension, MaterialDraft, MaterialReader } from './types.ts';

export const VRMC_MATERIALS_MTOON = 'VRMC_materials_mtoon';

/** The versions three-vrm 3.x accepts. */
const SPEC_VERSIONS: readonly string[] = ['1.0', '1.0-beta'];

export type MToonDraft = { -readonly [K in keyof MToonMaterial]: MToonMaterial[K] };

/** The colour keys, each three components in [0, 1]. */
const COLOR_KEYS = ['shadeColorFactor', 'matcapFactor', 'parametricRimColorFactor', 'outlineColorFactor'] as const;
/** Keys of factors in [0, 1]. */
const UNIT_KEYS = ['shadingToonyFactor', 'giEqualizationFactor', 'rimLightingMixFactor', 'outlineLightingMixFactor'] as const;
/** Keys of factors ≥ 0. */
const NON_NEGATIVE_KEYS = ['parametricRimFresnelPowerFactor', 'outlineWidthFactor'] as const;
/** Keys of any finite number. */
const FREE_KEYS = [
  'shadingShiftFactor', 'parametricRimLiftFactor', 'uvAnimationScrollXSpeedFactor', 'uvAnimationScrollYSpeedFactor', 'uvAnimationRotationSpeedFactor',
] as const;
const TEXTURE_KEYS = [
  'shadeMultiplyTexture', 'shadingShiftTexture', 'matcapTexture', 'rimMultiplyTexture', 'outlineWidthMultiplyTexture', 'uvAnimationMaskTexture',
] as const;

/** Most render queue steps either way (the specification's table). */
export const MTOON_RENDER_QUEUE_STEPS = 9;

/**
 * A draft's values brought into the specification's ranges, each change a warning at
 * `pathOf(key)` (a key of the draft): non-finite numbers take their default, the rest are
 * clamped; the render queue offset is rounded and kept in its alpha mode's range.
 */
export function checkMToon(draft: MToonDraft, alphaMode: Material['alphaMode'], reader: LenientReader, pathOf: (key: string) => string): MToonMaterial {
  const finite = (v: number, key: keyof MToonMaterial, fallback: number, path = pathOf(key)): number => {
    if (Number.isFinite(Math.fround(v))) return v;
    reader.warn(path, `${v} is not a finite number a 32-bit float holds; using ${fallback}`);
    return fallback;
  };
  for (const key of COLOR_KEYS) {
    const fallback = MTOON_DEFAULTS[key];
    draft[key] = draft[key].map((v, c) => reader.inRange(finite(v, key, fallback[c], `${pathOf(key)}[${c}]`), `${pathOf(key)}[${c}]`, 0, 1)) as unknown as Rgb;
  }
  for (const key of UNIT_KEYS) draft[key] = reader.inRange(finite(draft[key], key, MTOON_DEFAULTS[key]), pathOf(key), 0, 1);
  for (const key of NON_NEGATIVE_KEYS) draft[key] = reader.inRange(finite(draft[key], key, MTOON_DEFAULTS[key]), pathOf(key), 0, Infinity);
  for (const key of FREE_KEYS) draft[key] = finite(draft[key], key, MTOON_DEFAULTS[key]);
  const shift = draft.shadingShiftTexture;
  if (shift) draft.shadingShiftTexture = { ...shift, scale: finite(shift.scale, 'shadingShiftTexture', 1, `${pathOf('shadingShiftTexture')}.scale`) };

  const queuePath = pathOf('renderQueueOffsetNumber');
  let queue = finite(draft.renderQueueOffsetNumber, 'renderQueueOffsetNumber', 0);
  if (!Number.isInteger(queue)) {
    const rounded = Math.round(queue);
    reader.warn(queuePath, `${queue} is not an integer; using ${rounded}`);
    queue = rounded;
  }
  if (alphaMode !== 'BLEND') {
    // The specification's table: only blended materials take an offset.
    if (queue !== 0) reader.warn(queuePath, `${queue} has no effect with alphaMode ${alphaMode}; using 0`);
    queue = 0;
  } else if (draft.transparentWithZWrite) {
    queue = reader.inRange(queue, queuePath, 0, MTOON_RENDER_QUEUE_STEPS);
  } else {
    queue = reader.inRange(queue, queuePath, -MTOON_RENDER_QUEUE_STEPS, 0);
  }
  draft.renderQueueOffsetNumber = queue;
  return Object.freeze(draft);
}

/** Reads `materials[i].extensions.VRMC_materials_mtoon` (at `path`); undefined when its specVersion is unknown. */
export function readMToon(ext: JsonObject, path: string, alphaMode: Material['alphaMode'], materialReader: MaterialReader): MToonMaterial | undefined {
  const reader = new LenientReader((p, message) => materialReader.warn(p, message));
  const version = ext.specVersion;
  if (typeof version !== 'string' || !SPEC_VERSIONS.includes(version)) {
    reader.warn(`${path}.specVersion`, `${describe(version)} is not a VRMC_materials_mtoon version this reader knows (${SPEC_VERSIONS.join(', ')}); the material is drawn as its glTF fallback`);
    return undefined;
  }
  const draft: MToonDraft = { ...MTOON_DEFAULTS };
  draft.transparentWithZWrite = reader.boolean(ext, 'transparentWithZWrite', path, false);
  draft.renderQueueOffsetNumber = reader.number(ext, 'renderQueueOffsetNumber', path, 0);
  for (const key of COLOR_KEYS) draft[key] = reader.numbers(ext, key, path, [...MTOON_DEFAULTS[key]] as [number, number, number]);
  for (const key of [...UNIT_KEYS, ...NON_NEGATIVE_KEYS, ...FREE_KEYS]) draft[key] = reader.number(ext, key, path, MTOON_DEFAULTS[key]);
  draft.outlineWidthMode = reader.choice(ext, 'outlineWidthMode', path, MTOON_OUTLINE_WIDTH_MODES, 'none');
  for (const key of TEXTURE_KEYS) draft[key] = readTexture(ext, key, path, reader, materialReader);
  return checkMToon(draft, alphaMode, reader, (key) => `${path}.${key}`);
}

/** A texture reference of the extension; a broken one is dropped with a warning. */
function readTexture(ext: JsonObject, key: string, path: string, reader: LenientReader, materialReader: MaterialReader): TextureInfo | undefined {
  const json = ext[key];
  if (json === undefined) return undefined;
  if (!isObject(json)) {
    reader.warn(`${path}.${key}`, `expected a textureInfo object, got ${describe(json)}; ignored`);
    return undefined;
  }
  const info = reader.part(() => materialReader.textureInfo(ext, key, path));
  if (!info || key !== 'shadingShiftTexture') return info;
  return { ...info, scale: reader.number(json, 'scale', `${path}.${key}`, 1) };
}

export const VRMC_MATERIALS_MTOON_EXTENSION: GltfExtension = {
  name: VRMC_MATERIALS_MTOON,
  readMaterial(ext: JsonObject, path: string, material: MaterialDraft, reader: MaterialReader): void {
    const mtoon = readMToon(ext, path, material.alphaMode, reader);
    if (mtoon) material.mtoon = mtoon;
  },
};
