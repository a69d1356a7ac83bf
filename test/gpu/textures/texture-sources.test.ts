import { describe, expect, it } from 'vitest';
import type { GltfWarning } from '../../../src/gltf/errors.ts';
import type { Image, Model } from '../../../src/gltf/model.ts';
import { decodeTextureSource, textureSourceCandidates } from '../../../src/gpu/textures/texture-sources.ts';
import type { DecodedImage, ImageDecoder } from '../../../src/gpu/textures/textures.ts';

const image = (mimeType: string, tag: number): Image => ({ name: undefined, mimeType, bytes: Uint8Array.of(tag) });
const model = {
  images: [image('image/png', 0), image('image/webp', 1), image('image/avif', 2)],
  textures: [
    { sampler: -1, source: 0, extensionSources: [{ extension: 'EXT_texture_avif', source: 2 }, { extension: 'EXT_texture_webp', source: 1 }] },
    { sampler: -1, source: -1, extensionSources: [{ extension: 'EXT_texture_webp', source: 1 }] },
    { sampler: -1, source: 0 },
    { sampler: -1, source: -1 },
  ],
} as unknown as Model;

/** Decodes only the given types, to a 1×1 image whose red byte is the image's tag. */
function decoderFor(...types: string[]): ImageDecoder {
  return async (img) => {
    if (!types.includes(img.mimeType!)) throw new Error(`${img.mimeType} unsupported`);
    return { width: 1, height: 1, data: Uint8Array.of(img.bytes[0], 0, 0, 255) };
  };
}
const tag = (d: DecodedImage): number => (d as { data: Uint8Array }).data[0];

describe('texture sources (EXT_texture_webp / EXT_texture_avif fallback)', () => {
  it('candidates: extension sources in order, then the plain source', () => {
    expect(textureSourceCandidates(model, 0)).toEqual([2, 1, 0]);
    expect(textureSourceCandidates(model, 1)).toEqual([1]);
    expect(textureSourceCandidates(model, 2)).toEqual([0]);
    expect(textureSourceCandidates(model, 3)).toEqual([]);
  });

  it('uses the first source the decoder accepts; each refusal before it is a warning', async () => {
    let warnings: GltfWarning[] = [];
    const all = await decodeTextureSource(model, [2, 1, 0], decoderFor('image/png', 'image/webp', 'image/avif'), 'M', 'materials[0].baseColorTexture', warnings);
    expect([all.source, tag(all.image)]).toEqual([2, 2]);
    expect(warnings).toEqual([]);
    const noAvif = await decodeTextureSource(model, [2, 1, 0], decoderFor('image/png', 'image/webp'), 'M', 'materials[0].baseColorTexture', warnings);
    expect([noAvif.source, tag(noAvif.image)]).toEqual([1, 1]);
    expect(warnings).toEqual([{ path: 'materials[0].baseColorTexture', message: 'images[2] (image/avif) could not be decoded: image/avif unsupported; drew images[1] instead' }]);
    warnings = [];
    const pngOnly = await decodeTextureSource(model, [2, 1, 0], decoderFor('image/png'), 'M', 'materials[0].baseColorTexture', warnings);
    expect([pngOnly.source, tag(pngOnly.image)]).toEqual([0, 0]);
    expect(warnings).toHaveLength(2);
  });

  it('none decodable: an error naming every source and why', async () => {
    await expect(decodeTextureSource(model, [2, 1, 0], decoderFor(), 'M', 'materials[1].emissiveTexture', []))
      .rejects.toThrow('M materials[1].emissiveTexture: none of its texture\'s sources could be decoded: images[2] (image/avif) could not be decoded: image/avif unsupported; images[1] (image/webp) could not be decoded: image/webp unsupported; images[0] (image/png) could not be decoded: image/png unsupported');
    // A WebP-only texture (no plain source) in a browser without WebP.
    await expect(decodeTextureSource(model, [1], decoderFor('image/png'), 'M', 'materials[0].baseColorTexture', []))
      .rejects.toThrow('M images[1] (image/webp, used by materials[0].baseColorTexture): could not decode: image/webp unsupported');
  });
});
