/**
 * A fuzz source for the PBR material extensions: a quad whose one material uses every
 * extension with every texture (test/support/pbr-materials.ts), mutated by replacing one to four
 * values anywhere in the extensions' JSON (factors, colours, texture references and their
 * fields, whole extension objects) with hostile ones, or deleting them. `pbrProblems` lists what
 * a loaded material must never carry: non-finite numbers, values outside the schemas' ranges,
 * texture references to textures that do not exist. Shared by the loader's fuzz pass and the GPU's.
 */
import { buildMaterialQuad, solidPng } from '../gpu/fixtures.ts';
import type { Material, Model, TextureInfo } from '../../src/gltf/model.ts';
import type { Rng } from './fuzz.ts';
import { everyPbrExtension, PBR_EXTENSION_NAMES, PBR_EXTENSION_TEXTURE_COUNT } from './pbr-materials.ts';

/** The quad with every PBR extension (and 14 small textures), as GLB bytes. */
export function everyExtensionQuad(): Uint8Array {
  return buildMaterialQuad((texture, b) => {
    const textures = Array.from({ length: PBR_EXTENSION_TEXTURE_COUNT }, (_, k) => texture(solidPng([k * 16, 255 - k * 16, 128, 255])));
    b.json.extensionsUsed!.push(...PBR_EXTENSION_NAMES);
    return { pbrMetallicRoughness: { baseColorFactor: [0.8, 0.6, 0.4, 1], roughnessFactor: 0.4, metallicFactor: 0.1 }, extensions: everyPbrExtension((k) => textures[k]) };
  }, true);
}

const HOSTILE: readonly unknown[] = [
  -1, -1e30, 1e39, -0, 1e-45, 2, 1.5, 1e6, 0, 3.5, 'x', '', null, true, [], [1, 2], [-1, -1, -1], [1e39, 0, 0], [Number.MAX_VALUE, 0, 0, 0], {},
  { index: -1 }, { index: 1e9 }, { index: 0.5 }, { index: 0, texCoord: 7 }, { index: 0, texCoord: 1 }, { index: 0, scale: -1e30 },
  { index: 0, extensions: { KHR_texture_transform: { scale: [0, 0], rotation: 1e20 } } }, { index: 999 },
];

/** Replaces or deletes one to four values under `materials[0].extensions`; returns what it did. */
export function mutatePbrJson(json: Record<string, any>, rng: Rng): string[] {
  const exts = json.materials[0].extensions as Record<string, any>;
  const notes: string[] = [];
  const n = 1 + rng.int(4);
  for (let i = 0; i < n; i++) {
    const name = rng.pick(PBR_EXTENSION_NAMES);
    const ext = exts[name];
    if (rng.chance(0.05) || ext === null || typeof ext !== 'object' || Array.isArray(ext)) {
      const v = rng.pick([{}, null, 3, [], 'clearcoat']);
      exts[name] = v;
      notes.push(`${name} = ${JSON.stringify(v)}`);
      continue;
    }
    const keys = Object.keys(ext);
    if (keys.length === 0) continue;
    let key = rng.pick(keys);
    let target = ext;
    let where = `${name}.${key}`;
    // Half the time, a field inside a texture reference or an array.
    const inner = target[key];
    if (inner !== null && typeof inner === 'object' && rng.chance(0.5)) {
      const innerKeys = Object.keys(inner);
      if (innerKeys.length > 0) {
        target = inner;
        key = rng.pick(innerKeys);
        where += `.${key}`;
      }
    }
    if (rng.chance(0.15)) {
      delete target[key];
      notes.push(`delete ${where}`);
    } else {
      const v = rng.pick(HOSTILE);
      target[key] = structuredClone(v);
      notes.push(`${where} = ${JSON.stringify(v)}`);
    }
  }
  return notes;
}

/** What a loaded material's extensions must never carry; empty when all is sound. */
export function pbrProblems(model: Model, m: Material): string[] {
  const out: string[] = [];
  const num = (what: string, v: number, min: number, max: number) => {
    if (!(v >= min && v <= max) || Number.isNaN(v)) out.push(`${what} = ${v}`);
    else if (Number.isFinite(v) && !Number.isFinite(Math.fround(v))) out.push(`${what} = ${v} (not a 32-bit float)`);
  };
  const rgb = (what: string, c: readonly number[], max: number) => c.forEach((v, i) => num(`${what}[${i}]`, v, 0, max));
  const tex = (what: string, t: TextureInfo | undefined) => {
    if (!t) return;
    if (!(Number.isInteger(t.index) && t.index >= 0 && t.index < model.textures.length)) out.push(`${what}.index = ${t.index}`);
    if (t.texCoord !== 0 && t.texCoord !== 1) out.push(`${what}.texCoord = ${t.texCoord}`);
    num(`${what}.scale`, t.scale, -3.4e38, 3.4e38);
  };
  const c = m.clearcoat;
  if (c) { num('clearcoat.factor', c.factor, 0, 1); num('clearcoat.roughnessFactor', c.roughnessFactor, 0, 1); tex('clearcoat.texture', c.texture); tex('clearcoat.roughnessTexture', c.roughnessTexture); tex('clearcoat.normalTexture', c.normalTexture); }
  const s = m.specular;
  if (s) { num('specular.factor', s.factor, 0, 1); rgb('specular.colorFactor', s.colorFactor, 3.4e38); tex('specular.texture', s.texture); tex('specular.colorTexture', s.colorTexture); }
  if (m.ior !== undefined && m.ior !== 0) num('ior', m.ior, 1, 3.4e38);
  const sh = m.sheen;
  if (sh) { rgb('sheen.colorFactor', sh.colorFactor, 1); num('sheen.roughnessFactor', sh.roughnessFactor, 0, 1); tex('sheen.colorTexture', sh.colorTexture); tex('sheen.roughnessTexture', sh.roughnessTexture); }
  const t = m.transmission;
  if (t) { num('transmission.factor', t.factor, 0, 1); tex('transmission.texture', t.texture); }
  const v = m.volume;
  if (v) {
    num('volume.thicknessFactor', v.thicknessFactor, 0, 3.4e38); rgb('volume.attenuationColor', v.attenuationColor, 1); tex('volume.thicknessTexture', v.thicknessTexture);
    if (!(v.attenuationDistance > 0)) out.push(`volume.attenuationDistance = ${v.attenuationDistance}`);
  }
  const ir = m.iridescence;
  if (ir) {
    num('iridescence.factor', ir.factor, 0, 1); num('iridescence.ior', ir.ior, 1, 3.4e38);
    num('iridescence.thicknessMinimum', ir.thicknessMinimum, 0, 3.4e38); num('iridescence.thicknessMaximum', ir.thicknessMaximum, 0, 3.4e38);
    tex('iridescence.texture', ir.texture); tex('iridescence.thicknessTexture', ir.thicknessTexture);
  }
  const a = m.anisotropy;
  if (a) { num('anisotropy.strength', a.strength, 0, 1); num('anisotropy.rotation', a.rotation, -3.4e38, 3.4e38); tex('anisotropy.texture', a.texture); }
  if (m.dispersion !== undefined) num('dispersion', m.dispersion, 0, 3.4e38);
  const d = m.diffuseTransmission;
  if (d) { num('diffuseTransmission.factor', d.factor, 0, 1); rgb('diffuseTransmission.colorFactor', d.colorFactor, 1); tex('diffuseTransmission.texture', d.texture); tex('diffuseTransmission.colorTexture', d.colorTexture); }
  return out;
}
