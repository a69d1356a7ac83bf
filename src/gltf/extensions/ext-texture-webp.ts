/** EXT_texture_webp: a WebP image as a texture's source, falling back to its plain `source`. */
import { textureSourceExtension } from './texture-source.ts';

export const EXT_TEXTURE_WEBP = textureSourceExtension('EXT_texture_webp');
