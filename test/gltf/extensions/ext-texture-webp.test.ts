import { describe, expect, it } from 'vitest';
import { GltfError } from '../../../src/gltf/errors.ts';
import { loadMaterialFile } from '../../support/material-files.ts';

const EXT = 'EXT_texture_webp';

describe('EXT_texture_webp', () => {
  it('records the WebP source ahead of the plain fallback source', async () => {
    const model = await loadMaterialFile({
      images: ['image/png', 'image/webp'], extensionsUsed: [EXT],
      textures: [{ source: 0, extensions: { [EXT]: { source: 1 } } }, { source: 0 }],
      materials: [{ pbrMetallicRoughness: { baseColorTexture: { index: 0 } } }],
    });
    expect(model.textures[0]).toEqual({ sampler: -1, source: 0, extensionSources: [{ extension: EXT, source: 1 }] });
    expect(model.textures[1]).toEqual({ sampler: -1, source: 0 });
    expect(model.warnings).toEqual([]);
  });

  it('a required EXT_texture_webp with no plain source loads (the WebP is the only source)', async () => {
    const model = await loadMaterialFile({
      images: ['image/webp'], extensionsUsed: [EXT], extensionsRequired: [EXT],
      textures: [{ extensions: { [EXT]: { source: 0 } } }], materials: [],
    });
    expect(model.textures[0]).toEqual({ sampler: -1, source: -1, extensionSources: [{ extension: EXT, source: 0 }] });
  });

  it.each([
    [{}, /textures\[0\]\.extensions\.EXT_texture_webp/],
    [{ source: 5 }, /textures\[0\]\.extensions\.EXT_texture_webp\.source/],
    [{ source: -1 }, /textures\[0\]\.extensions\.EXT_texture_webp\.source/],
    [{ source: 'a' }, /textures\[0\]\.extensions\.EXT_texture_webp\.source/],
  ])('refuses %j, naming the JSON path', async (ext, path) => {
    const error = await loadMaterialFile({
      images: ['image/webp'], extensionsUsed: [EXT], textures: [{ extensions: { [EXT]: ext } }], materials: [],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GltfError);
    expect((error as GltfError).path).toMatch(path);
  });

  it('refuses an extension value that is not an object', async () => {
    const error = await loadMaterialFile({
      images: ['image/webp'], extensionsUsed: [EXT], textures: [{ extensions: { [EXT]: 3 } }], materials: [],
    }).catch((e: unknown) => e);
    expect((error as GltfError).path).toBe('textures[0].extensions.EXT_texture_webp');
  });
});
