/**
 * KHR_texture_basisu: a KTX2 image (Basis Universal ETC1S or UASTC) as a texture's source,
 * falling back to its plain `source` when the KTX2 cannot be used. Loading only records the
 * image index, so the bake (Node) needs no transcoder; upload transcodes it
 * (src/gpu/textures/ktx2-texture.ts).
 */
import { textureSourceExtension } from './texture-source.ts';

export const KHR_TEXTURE_BASISU = textureSourceExtension('KHR_texture_basisu');

/** The media type of a KTX2 image (`images[i].mimeType`). */
export const KTX2_MIME_TYPE = 'image/ktx2';
