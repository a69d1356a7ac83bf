import { describe, expect, it } from 'vitest';
import { GltfError } from '../../../src/gltf/errors.ts';
import { findExtension } from '../../../src/gltf/extensions/registry.ts';
import { loadMaterialFile } from '../../support/material-files.ts';

const EXT = 'KHR_texture_basisu';

describe('KHR_texture_basisu', () => {
  it('is a supported extension (a file that requires it is not refused)', () => {
    expect(findExtension(EXT)?.readTextureSource).toBeTypeOf('function');
  });

  it('records the KTX2 source ahead of the plain fallback source; loading does not transcode', async () => {
    // The KTX2 image holds placeholder bytes: loading never reads them, so the geometry of a
    // KTX2 file loads (and bakes) without the transcoder.
    const model = await loadMaterialFile({
      images: ['image/png', 'image/ktx2'], extensionsUsed: [EXT],
      textures: [{ source: 0, extensions: { [EXT]: { source: 1 } } }, { source: 0 }],
      materials: [{ pbrMetallicRoughness: { baseColorTexture: { index: 0 } } }],
    });
    expect(model.textures[0]).toEqual({ sampler: -1, source: 0, extensionSources: [{ extension: EXT, source: 1 }] });
    expect(model.textures[1]).toEqual({ sampler: -1, source: 0 });
    expect(model.images[1].mimeType).toBe('image/ktx2');
    expect(model.warnings).toEqual([]);
  });

  it('a required KHR_texture_basisu with no plain source loads (the KTX2 is the only source)', async () => {
    const model = await loadMaterialFile({
      images: ['image/ktx2'], extensionsUsed: [EXT], extensionsRequired: [EXT],
      textures: [{ extensions: { [EXT]: { source: 0 } } }], materials: [],
    });
    expect(model.textures[0]).toEqual({ sampler: -1, source: -1, extensionSources: [{ extension: EXT, source: 0 }] });
  });

  it.each([
    [{}, /textures\[0\]\.extensions\.KHR_texture_basisu/],
    [{ source: 5 }, /textures\[0\]\.extensions\.KHR_texture_basisu\.source/],
    [{ source: -1 }, /textures\[0\]\.extensions\.KHR_texture_basisu\.source/],
    [{ source: 1.5 }, /textures\[0\]\.extensions\.KHR_texture_basisu\.source/],
  ])('refuses %j, naming the JSON path', async (ext, path) => {
    const error = await loadMaterialFile({
      images: ['image/ktx2'], extensionsUsed: [EXT], textures: [{ extensions: { [EXT]: ext } }], materials: [],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GltfError);
    expect((error as GltfError).path).toMatch(path);
  });
});
