/**
 * Which image a texture draws, and decoding it: texture-source extensions (EXT_texture_webp,
 * EXT_texture_avif; Texture.extensionSources) first, in order, then the plain `source`, as
 * those extensions specify: a source the image decoder refuses (a browser without WebP or
 * AVIF support) falls back to the next, with a warning. Upload-time only.
 */
import type { GltfWarning } from '../../gltf/errors.ts';
import type { Model } from '../../gltf/model.ts';
import type { DecodedImage, ImageDecoder } from './textures.ts';

/** Image indices `textures[index]` may draw, most preferred first (empty: none). */
export function textureSourceCandidates(model: Model, index: number): number[] {
  const texture = model.textures[index];
  const out = (texture.extensionSources ?? []).map((s) => s.source);
  if (texture.source >= 0) out.push(texture.source);
  return out;
}

/**
 * The first of `candidates` (textureSourceCandidates) that `decoder` accepts, and its image
 * index. Each refusal before it adds a warning; when every candidate is refused, the error
 * names each image and why.
 */
export async function decodeTextureSource(
  model: Model, candidates: readonly number[], decoder: ImageDecoder, label: string, usedAt: string, warnings: GltfWarning[],
): Promise<{ image: DecodedImage; source: number }> {
  const refusals: string[] = [];
  const describe = (source: number): string => `images[${source}] (${model.images[source].mimeType ?? 'unknown type'}`;
  for (const source of candidates) {
    try {
      const image = await decoder(model.images[source]);
      for (const r of refusals) warnings.push({ path: usedAt, message: `${r}; drew images[${source}] instead` });
      return { image, source };
    } catch (e) {
      refusals.push(`${describe(source)}) could not be decoded: ${(e as Error).message}`);
      if (candidates.length === 1) throw new Error(`${label} ${describe(source)}, used by ${usedAt}): could not decode: ${(e as Error).message}`);
    }
  }
  throw new Error(`${label} ${usedAt}: none of its texture's sources could be decoded: ${refusals.join('; ')}`);
}
