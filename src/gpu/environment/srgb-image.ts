/**
 * Environments from ordinary images (`.jpg`, `.png`, `.webp`): sRGB-encoded, decoded by the
 * browser, made linear here. Low dynamic range, so highlights are clipped at 1.
 */
import { srgbToLinear } from '../textures/textures.ts';
import { checkEnvironmentSize, EnvironmentError, type EquirectImage } from './equirect.ts';

/** Widest image kept: wider ones are scaled down as they are decoded (the cube map needs no more). */
export const MAX_IMAGE_ENVIRONMENT_WIDTH = 2048;

const SRGB_TO_LINEAR = Float32Array.from({ length: 256 }, (_, i) => srgbToLinear(i / 255));

/** RGBA8 sRGB pixels (alpha ignored) as a linear equirect image. */
export function srgbPixelsToEquirect(rgba: Uint8Array | Uint8ClampedArray, width: number, height: number): EquirectImage {
  checkEnvironmentSize(width, height, 'environment image');
  if (rgba.length < width * height * 4) throw new EnvironmentError(`environment image: ${rgba.length} bytes for ${width} × ${height} RGBA pixels`);
  const rgb = new Float32Array(width * height * 3);
  for (let p = 0; p < width * height; p++) {
    rgb[p * 3] = SRGB_TO_LINEAR[rgba[p * 4]];
    rgb[p * 3 + 1] = SRGB_TO_LINEAR[rgba[p * 4 + 1]];
    rgb[p * 3 + 2] = SRGB_TO_LINEAR[rgba[p * 4 + 2]];
  }
  return { width, height, rgb };
}

/**
 * Decodes an encoded image (browser: createImageBitmap and a 2D canvas), scaled to at most
 * MAX_IMAGE_ENVIRONMENT_WIDTH wide, into a linear equirect image.
 */
export async function decodeImageEnvironment(bytes: Uint8Array, mimeType?: string): Promise<EquirectImage> {
  if (typeof createImageBitmap !== 'function' || typeof OffscreenCanvas !== 'function') {
    throw new EnvironmentError('environment image: decoding .jpg/.png/.webp needs a browser (createImageBitmap, OffscreenCanvas)');
  }
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(new Blob([bytes as Uint8Array<ArrayBuffer>], mimeType ? { type: mimeType } : {}), { colorSpaceConversion: 'none' });
  } catch (e) {
    throw new EnvironmentError(`environment image: the browser could not decode it (${(e as Error).message})`);
  }
  try {
    checkEnvironmentSize(bitmap.width, bitmap.height, 'environment image');
    const scale = Math.min(1, MAX_IMAGE_ENVIRONMENT_WIDTH / bitmap.width);
    const width = Math.max(1, Math.round(bitmap.width * scale)), height = Math.max(1, Math.round(bitmap.height * scale));
    const canvas = new OffscreenCanvas(width, height);
    const context = canvas.getContext('2d');
    if (!context) throw new EnvironmentError('environment image: no 2D canvas context to read its pixels');
    context.drawImage(bitmap, 0, 0, width, height);
    return srgbPixelsToEquirect(context.getImageData(0, 0, width, height).data, width, height);
  } finally {
    bitmap.close();
  }
}
