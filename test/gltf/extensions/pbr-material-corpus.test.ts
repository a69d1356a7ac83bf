/**
 * Files in the real-world shapes that use the PBR material extensions (test/support/material-corpus.ts:
 * every shared asset rewritten as glTF-Transform and gltfjsx write them) load with no warning about
 * those extensions: the same warnings as the asset itself, and every material carrying what was written.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGltf } from '../../../src/gltf/load.ts';
import type { Model } from '../../../src/gltf/model.ts';
import { sharedAssets } from '../../support/assets.ts';
import { MATERIAL_CORPUS_VARIANTS, materialCorpusFile } from '../../support/material-corpus.ts';

async function loadOriginal(path: string): Promise<Model> {
  return loadGltf(new Uint8Array(readFileSync(path)), { resolveUri: async (uri) => new Uint8Array(readFileSync(join(dirname(path), uri))) });
}

describe('the shared assets with PBR material extensions, as the tools write them', () => {
  for (const asset of sharedAssets()) {
    for (const variant of MATERIAL_CORPUS_VARIANTS) {
      it(`${asset.name} (${variant})`, async () => {
        const original = await loadOriginal(asset.path);
        const model = await loadGltf(await materialCorpusFile(asset.path, variant));
        expect(model.warnings.filter((w) => /KHR_materials/.test(`${w.path} ${w.message}`))).toEqual([]);
        expect(model.warnings.map((w) => w.path)).toEqual(original.warnings.map((w) => w.path));
        for (const m of model.materials) {
          if (variant === 'clearcoat-specular') expect([m.clearcoat?.factor, m.specular?.factor]).toEqual([1, 0.5]);
          if (variant === 'ior-specular') expect([m.ior, m.specular?.factor]).toEqual([1.45, 0.5]);
          if (variant === 'every-extension') {
            expect([m.clearcoat, m.specular, m.ior, m.sheen, m.transmission, m.volume, m.iridescence, m.anisotropy, m.dispersion, m.diffuseTransmission]
              .every((e) => e !== undefined)).toBe(true);
          }
        }
      }, 60_000);
    }
  }
});
