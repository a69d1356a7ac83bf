/**
 * The shared reading of texture-source extensions (EXT_texture_webp, EXT_texture_avif):
 * `textures[i].extensions[name].source` names an image in a format the core spec does not
 * allow. Which one is drawn is decided at upload (src/gpu/model/upload.ts): the first source
 * the image decoder accepts, else the texture's plain `source`.
 */
import { reqIndex, type JsonObject } from '../json.ts';
import type { GltfExtension } from './types.ts';

export function textureSourceExtension(name: string): GltfExtension {
  return {
    name,
    readTextureSource: (ext: JsonObject, path: string, imageCount: number): number => reqIndex(ext, 'source', path, imageCount, 'images'),
  };
}
