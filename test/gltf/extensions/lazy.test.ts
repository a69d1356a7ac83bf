import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadGltf } from '../../../src/gltf/load.ts';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { encodeGlb } from '../../../src/gltf/builder.ts';
import { parseGlb } from '../../../src/gltf/glb.ts';
import { assetPath } from '../../support/assets.ts';
import { compressGlb } from '../../support/compressed.ts';
import { addPointerAnimation, buildPointerScene } from '../../support/animation-pointer.ts';
import { buildConstraintFixture } from '../../support/vrm-fixtures.ts';

/**
 * The decoders' packages must be loaded only when a file needs them: a static import would
 * put their WebAssembly into every page and every load. Checked on the source text, since a
 * test process cannot unload a module to see whether importing ours pulled it in.
 */
const SRC = resolve(import.meta.dirname, '../../../src/gltf/extensions');

describe('compressed-geometry decoders load their packages lazily', () => {
  for (const [file, pkg] of [['meshopt.ts', 'meshoptimizer'], ['draco.ts', 'draco3dgltf']] as const) {
    it(`${file} imports ${pkg} only with a dynamic import()`, () => {
      const text = readFileSync(resolve(SRC, file), 'utf8');
      expect(text).not.toMatch(new RegExp(`^\\s*import[^(]*['"]${pkg}`, 'm'));
      expect(text).toMatch(new RegExp(`import\\(['"]${pkg}/`));
    });
  }
});

// Counts the imports of the Draco decoder's module made through the loader (glTF-Transform's
// encoder, used to make the fixture, requires the package's own copy and is not counted).
const dracoImports = vi.hoisted(() => ({ count: 0 }));
vi.mock('draco3dgltf/draco_decoder_gltf_nodejs.js', async (importOriginal) => {
  dracoImports.count++;
  return importOriginal();
});

describe('the Draco decoder is imported by the first load that needs it', () => {
  it('a file without Draco does not import it; the first Draco file does, and later ones reuse it', async () => {
    const fox = new Uint8Array(readFileSync(assetPath('Fox')));
    const compressed = await compressGlb(fox, 'draco');
    await loadGltf(fox);
    expect(dracoImports.count).toBe(0);
    await loadGltf(compressed);
    expect(dracoImports.count).toBe(1);
    await loadGltf(compressed);
    expect(dracoImports.count).toBe(1);
  });
});

// Counts the imports of the VRM readers (vrm-readers.ts), which load.ts imports for a file with a VRM part.
const vrmReaderImports = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../../src/gltf/extensions/vrm-readers.ts', async (importOriginal) => {
  vrmReaderImports.count++;
  return importOriginal();
});

describe('the VRM readers are imported by the first file with a VRM part', () => {
  it('a plain glTF does not import them; a VRM does, even one whose extensionsUsed forgets VRMC_vrm; a node constraint does', async () => {
    const fox = await loadGltf(new Uint8Array(readFileSync(assetPath('Fox'))));
    expect(vrmReaderImports.count).toBe(0);
    expect(fox.vrm).toBeUndefined();
    expect(fox.humanoid).toBeUndefined();
    const { json, bin } = parseGlb(buildBuiltinGlb('vrm-avatar'));
    (json as { extensionsUsed: string[] }).extensionsUsed = [];
    const avatar = await loadGltf(encodeGlb(json, bin));
    expect(vrmReaderImports.count).toBe(1);
    expect(avatar.vrm?.specVersion).toBe(1);
    expect(avatar.humanoid?.hips).toBeDefined();
    const constrained = await loadGltf(buildConstraintFixture());
    expect(constrained.vrm?.constraints.length).toBeGreaterThan(0);
    expect(vrmReaderImports.count).toBe(1);
  });
});

// Counts the imports of KHR_animation_pointer's channel reader, which load.ts imports for a file with a pointer channel.
const pointerReaderImports = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../../src/gltf/extensions/khr-animation-pointer-reader.ts', async (importOriginal) => {
  pointerReaderImports.count++;
  return importOriginal();
});

describe('KHR_animation_pointer\'s reader is imported by the first file with a pointer channel', () => {
  it('the Fox (core channels) does not import it; a pointer channel does, with extensionsUsed emptied, and is read', async () => {
    const fox = await loadGltf(new Uint8Array(readFileSync(assetPath('Fox'))));
    expect(fox.animations.length).toBeGreaterThan(0);
    expect(pointerReaderImports.count).toBe(0);
    const scene = buildPointerScene((b) => addPointerAnimation(b, 'tint', [{
      pointer: '/materials/0/pbrMetallicRoughness/baseColorFactor', input: Float32Array.of(0, 1), output: Float32Array.of(1, 0, 0, 1, 0, 0, 1, 1), type: 'VEC4',
    }]));
    const { json, bin } = parseGlb(scene);
    (json as { extensionsUsed: string[] }).extensionsUsed = (json as { extensionsUsed: string[] }).extensionsUsed.filter((e) => e !== 'KHR_animation_pointer');
    const model = await loadGltf(encodeGlb(json, bin));
    expect(pointerReaderImports.count).toBe(1);
    expect(model.animations[0].materialTracks?.map((t) => t.material)).toEqual([0]);
  });
});
