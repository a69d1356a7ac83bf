/**
 * A plain material pays nothing for the PBR extensions (src/gpu/pipelines/pbr-extensions-path.ts),
 * as exact counters: the plain PBR path's pipelines (every PBR material without an extension that
 * changes the look: model/pbr-extensions-material.test.ts) compile WGSL in which none of the
 * extension code's declarations occurs, bind no extension uniforms or textures, read no group 3
 * (the transmission pass's scene) and set no extension override; the extensions path's pipelines
 * have all of it. The counter would fail if the extension terms were added to the plain PBR
 * function as branches.
 */
import { describe, expect, it } from 'vitest';
import iridescenceWgsl from '../../../shaders/pbr-extensions/iridescence.wgsl?raw';
import lobesWgsl from '../../../shaders/pbr-extensions/lobes.wgsl?raw';
import pbrExtensionsWgsl from '../../../shaders/pbr-extensions/pbr-extensions.wgsl?raw';
import { ALL_MATERIAL_TEXTURES } from '../../../src/gpu/layouts/bindings.ts';
import { EXTENSION_TEXTURE_COUNT, PBR_EXTENSION_FEATURE_BITS, PbrExtensionBinding } from '../../../src/gpu/layouts/pbr-extension-uniforms.ts';
import { meshShaderSource } from '../../../src/gpu/pipelines/mesh.ts';
import { PBR_EXTENSIONS_PATH, pbrExtensionFeatures } from '../../../src/gpu/pipelines/pbr-extensions-path.ts';
import { PBR_PATH, pbrFeatures } from '../../../src/gpu/pipelines/pbr-path.ts';
import { testDevice } from '../gpu-test.ts';

// The layouts name GPUShaderStage, which the device's module defines.
const device = await testDevice('pbr-extensions path test device');

/** Every name the extension WGSL declares at module scope (functions, structs, constants, overrides, bindings). */
function declaredNames(...sources: string[]): string[] {
  const names = new Set<string>();
  for (const source of sources) {
    for (const m of source.matchAll(/^(?:@[^\n]*?\s)?(?:fn|struct|const|override|var(?:<[^>]*>)?)\s+([A-Za-z_]\w*)/gm)) names.add(m[1]);
  }
  return [...names];
}

/** Uses of `name` in the code of `source` (its comments left out). */
function occurrences(source: string, name: string): number {
  return [...source.replace(/\/\/[^\n]*/g, '').matchAll(new RegExp(`\\b${name}\\b`, 'g'))].length;
}

const EXTENSION_NAMES = declaredNames(lobesWgsl, iridescenceWgsl, pbrExtensionsWgsl);
const EVERY_EXTENSION = pbrExtensionFeatures(PBR_PATH.allFeatures, (1 << PBR_EXTENSION_FEATURE_BITS) - 1, (1 << EXTENSION_TEXTURE_COUNT) - 1);

describe('the plain PBR path pays nothing for the extensions', () => {
  it(`the extension WGSL declares names (${EXTENSION_NAMES.length}), all in the extensions path's shader with every extension`, () => {
    expect(EXTENSION_NAMES.length).toBeGreaterThan(30);
    for (const name of ['extendedMaterial', 'evalIridescence', 'distributionCharlie', 'transmittedLight', 'PBR_EXTENSIONS', 'extension']) expect(EXTENSION_NAMES).toContain(name);
    const extended = meshShaderSource('pbr-extensions', EVERY_EXTENSION);
    expect(EXTENSION_NAMES.filter((name) => occurrences(extended, name) === 0)).toEqual([]);
  });

  it('a plain material\'s pipeline WGSL contains none of them (an exact counter: 0 occurrences), for every texture set', () => {
    for (const textures of [0, ALL_MATERIAL_TEXTURES]) {
      const plain = meshShaderSource('pbr', pbrFeatures(textures));
      const found = EXTENSION_NAMES.map((name) => [name, occurrences(plain, name)] as const).filter(([, n]) => n > 0);
      expect(found).toEqual([]);
    }
    // Wrong input: the extensions path's own source fails the same count.
    const extended = meshShaderSource('pbr-extensions', EVERY_EXTENSION);
    expect(EXTENSION_NAMES.filter((name) => occurrences(extended, name) > 0).length).toBe(EXTENSION_NAMES.length);
  });

  it.skipIf(!device)('binds no extension uniforms or textures, reads no group 3 and sets no extension override', () => {
    const plainBindings = PBR_PATH.layoutEntries().map((e) => e.binding);
    expect(plainBindings).not.toContain(PbrExtensionBinding.UNIFORMS);
    expect(PBR_PATH.variant).toBeUndefined();
    for (const stage of Object.values(PBR_PATH.constants(PBR_PATH.allFeatures))) expect(Object.keys(stage)).not.toContain('PBR_EXTENSIONS');
    // The extensions path, for contrast: the uniforms, a texture per slot, group 3 with transmission.
    expect(PBR_EXTENSIONS_PATH.layoutEntries().map((e) => e.binding)).toContain(PbrExtensionBinding.UNIFORMS);
    const variant = PBR_EXTENSIONS_PATH.variant!(EVERY_EXTENSION);
    expect(variant.layoutEntries().length).toBeGreaterThanOrEqual(EXTENSION_TEXTURE_COUNT);
    expect(variant.group3).toBeDefined();
    expect(PBR_EXTENSIONS_PATH.constants(EVERY_EXTENSION).fragment.PBR_EXTENSIONS).toBe((1 << PBR_EXTENSION_FEATURE_BITS) - 1);
  });
});
