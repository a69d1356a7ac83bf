import { describe, expect, it } from 'vitest';
import { GltfError } from '../../../src/gltf/errors.ts';
import { loadMaterialFile } from '../../support/material-files.ts';

const EXT = 'EXT_texture_avif';

describe('EXT_texture_avif', () => {
  it('records the AVIF source ahead of the plain source; with WebP too, both in the file\'s order', async () => {
    const model = await loadMaterialFile({
      images: ['image/png', 'image/avif', 'image/webp'], extensionsUsed: [EXT, 'EXT_texture_webp'], extensionsRequired: [EXT],
      textures: [
        { source: 0, extensions: { [EXT]: { source: 1 } } },
        { source: 0, extensions: { [EXT]: { source: 1 }, EXT_texture_webp: { source: 2 } } },
      ],
      materials: [],
    });
    expect(model.textures[0].extensionSources).toEqual([{ extension: EXT, source: 1 }]);
    expect(model.textures[1].extensionSources).toEqual([{ extension: EXT, source: 1 }, { extension: 'EXT_texture_webp', source: 2 }]);
  });

  it('refuses a source that names no image', async () => {
    const error = await loadMaterialFile({
      images: ['image/avif'], extensionsUsed: [EXT], textures: [{ extensions: { [EXT]: { source: 1 } } }], materials: [],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GltfError);
    expect((error as GltfError).path).toBe('textures[0].extensions.EXT_texture_avif.source');
  });
});
