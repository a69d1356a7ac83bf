/** EXT_texture_avif: an AVIF image as a texture's source, falling back to its plain `source`. */
import { textureSourceExtension } from './texture-source.ts';

export const EXT_TEXTURE_AVIF = textureSourceExtension('EXT_texture_avif');
