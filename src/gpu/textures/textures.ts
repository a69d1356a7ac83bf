import { SamplerFilter, SamplerWrap } from '../../gltf/constants.ts';
import type { Image, TextureSampler } from '../../gltf/model.ts';
import { fitDimensions } from '../device/limits.ts';
import { MipmapGenerator, mipLevelCount } from './mipmaps.ts';
import { IMAGE_BITMAP_OPTIONS, readBitmapPixels, videoFrameReadable } from './video-frame-pixels.ts';
import type { DecodedPixels } from './downscale.ts';
import { nextMipLevel } from './mip-levels.ts';

export type { DecodedPixels } from './downscale.ts';
export { srgbToLinear } from './srgb.ts';

/** Something the browser decoded (e.g. an ImageBitmap), copied with `copyExternalImageToTexture`. */
export interface DecodedExternalImage {
  readonly width: number;
  readonly height: number;
  readonly source: GPUCopyExternalImageSource;
}

/** What an `ImageDecoder` returns: raw pixels, or something the browser decoded. */
export type DecodedImage = DecodedPixels | DecodedExternalImage;

/**
 * Turns a glTF image's bytes into pixels. Injected so that the same upload code runs in
 * the browser (createImageBitmap) and in Node tests (a JS PNG/JPEG decoder).
 */
export type ImageDecoder = (image: Image) => Promise<DecodedImage>;

/**
 * The browser's decoder: no colour-space conversion and no premultiplication, so the
 * texels are exactly the file's bytes (glTF colour textures are sRGB-encoded already).
 * Returns the bytes themselves where WebCodecs can read them exactly (video-frame-pixels.ts:
 * a writeTexture then, several times faster than copyExternalImageToTexture on SwiftShader),
 * else the ImageBitmap.
 */
export const browserImageDecoder: ImageDecoder = async (image) => {
  if (typeof createImageBitmap !== 'function') {
    throw new Error('createImageBitmap is not available in this environment; pass an imageDecoder to decode glTF images');
  }
  const blob = new Blob([image.bytes.slice()], image.mimeType ? { type: image.mimeType } : {});
  const decoded = createImageBitmap(blob, IMAGE_BITMAP_OPTIONS);
  // The page's one WebCodecs probe runs beside the first decode, not after it (a first frame waits for both).
  void videoFrameReadable();
  const bitmap = await decoded;
  const { width, height } = bitmap;
  const data = await readBitmapPixels(bitmap);
  if (!data) return { width, height, source: bitmap };
  bitmap.close();
  return { width, height, data };
};

/** Formats of colour data (baseColor, emissive: sRGB-encoded) and of everything else (linear data). */
export const COLOR_TEXTURE_FORMAT: GPUTextureFormat = 'rgba8unorm-srgb';
export const DATA_TEXTURE_FORMAT: GPUTextureFormat = 'rgba8unorm';

const RGBA8_BYTES = 4;

function isPixels(image: DecodedImage): image is DecodedPixels {
  return (image as DecodedPixels).data !== undefined;
}

/**
 * A mipmapped texture of a decoded image: decoded pixels of a power-of-two size up to
 * CPU_MIPMAP_MAX_TEXELS get their levels box-filtered on the CPU (mip-levels.ts), anything else
 * drawn on the GPU (MipmapGenerator): the same levels either way, within a step of rounding.
 * Upload-time only.
 */
export function createImageTexture(
  device: GPUDevice, mipmaps: MipmapGenerator, image: DecodedImage, srgb: boolean, label: string,
): GPUTexture {
  const { width, height } = image;
  const texture = device.createTexture({
    label,
    size: [width, height],
    format: srgb ? COLOR_TEXTURE_FORMAT : DATA_TEXTURE_FORMAT,
    // RENDER_ATTACHMENT: mip levels are drawn, and copyExternalImageToTexture needs it.
    // COPY_SRC: tests and debugging tools read levels back.
    usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST | GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC,
    mipLevelCount: mipLevelCount(width, height),
  });
  if (isPixels(image)) {
    if (image.data.byteLength < width * height * RGBA8_BYTES) {
      throw new Error(`${label}: decoded image has ${image.data.byteLength} bytes, ${width}×${height} RGBA8 needs ${width * height * RGBA8_BYTES}`);
    }
    writeLevel(device, texture, 0, image);
    if (width * height <= CPU_MIPMAP_MAX_TEXELS && isPowerOfTwo(width) && isPowerOfTwo(height)) {
      for (let level = 1, above: DecodedPixels = image; level < texture.mipLevelCount; level++) {
        above = nextMipLevel(above, srgb);
        writeLevel(device, texture, level, above);
      }
      return texture;
    }
  } else {
    device.queue.copyExternalImageToTexture({ source: image.source }, { texture, premultipliedAlpha: false }, [width, height]);
  }
  mipmaps.generate(texture);
  return texture;
}

/**
 * Largest decoded image (texels) whose mip levels are box-filtered on the CPU (mip-levels.ts) rather
 * than drawn. A 1024² chain is ~8–15 ms of script; drawing it needs the mipmap pipeline, whose compile
 * and first draw on a CPU rasteriser (SwiftShader) took ~75 ms of CPU beside the model's own pipeline
 * before the first frame (notes of issue 27). Larger images are drawn: their chains grow with area.
 * Only power-of-two sizes: there each level's 2 × 2 box is exactly the GPU's bilinear tap at the
 * texel's centre (shaders/mipmap.wgsl), so both paths make the same levels (within a step of
 * rounding); an odd size is drawn.
 */
export const CPU_MIPMAP_MAX_TEXELS = 1024 * 1024;

function isPowerOfTwo(n: number): boolean {
  return n > 0 && (n & (n - 1)) === 0;
}

function writeLevel(device: GPUDevice, texture: GPUTexture, mipLevel: number, pixels: DecodedPixels): void {
  const { width, height } = pixels;
  device.queue.writeTexture({ texture, mipLevel }, pixels.data as Uint8Array<ArrayBuffer>, { bytesPerRow: width * RGBA8_BYTES, rowsPerImage: height }, [width, height]);
}

/**
 * `image` scaled down (aspect kept) so neither side exceeds `maxDimension`, the device's
 * maxTextureDimension2D: a texture that large cannot be created at all. Returns `image`
 * itself when it fits. Decoded pixels are box-filtered on the CPU (downscale.ts); a browser
 * image is resized by `createImageBitmap`. Upload-time only.
 */
export async function fitImage(image: DecodedImage, maxDimension: number, srgb: boolean): Promise<DecodedImage> {
  const { width, height } = fitDimensions(image.width, image.height, maxDimension);
  if (width === image.width && height === image.height) return image;
  // The CPU filter comes only with an image that needs it (a page's first load carries none of it).
  if (isPixels(image)) return (await import('./downscale.ts')).downscalePixels(image, width, height, srgb);
  if (typeof createImageBitmap !== 'function') throw new Error(`cannot resize a ${image.width}×${image.height} image here: createImageBitmap is unavailable`);
  const source = await createImageBitmap(image.source as ImageBitmapSource, {
    ...IMAGE_BITMAP_OPTIONS, resizeWidth: width, resizeHeight: height, resizeQuality: 'high',
  });
  return { width, height, source };
}

/** A 1×1 texture of one RGBA8 colour (bytes), for material slots without a texture. */
export function createSolidTexture(device: GPUDevice, rgba: readonly number[], srgb: boolean, label: string): GPUTexture {
  const texture = device.createTexture({
    label,
    size: [1, 1],
    format: srgb ? COLOR_TEXTURE_FORMAT : DATA_TEXTURE_FORMAT,
    usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST,
  });
  device.queue.writeTexture({ texture }, Uint8Array.from(rgba), { bytesPerRow: RGBA8_BYTES }, [1, 1]);
  return texture;
}

/** Defaults that leave a material's factors unchanged: white (×1) and a straight-up normal. */
export const WHITE_RGBA8 = [255, 255, 255, 255] as const;
export const FLAT_NORMAL_RGBA8 = [128, 128, 255, 255] as const;

function addressMode(wrap: number): GPUAddressMode {
  switch (wrap) {
    case SamplerWrap.CLAMP_TO_EDGE: return 'clamp-to-edge';
    case SamplerWrap.MIRRORED_REPEAT: return 'mirror-repeat';
    default: return 'repeat';
  }
}

/**
 * A glTF sampler as a GPUSamplerDescriptor. Undefined filters get the usual trilinear
 * default; a non-mipmapped minFilter (NEAREST, LINEAR) samples level 0 only.
 */
export function samplerDescriptor(sampler: TextureSampler | undefined, label: string): GPUSamplerDescriptor {
  const wrapS = sampler?.wrapS ?? SamplerWrap.REPEAT;
  const wrapT = sampler?.wrapT ?? SamplerWrap.REPEAT;
  const desc: GPUSamplerDescriptor = {
    label,
    addressModeU: addressMode(wrapS),
    addressModeV: addressMode(wrapT),
    magFilter: sampler?.magFilter === SamplerFilter.NEAREST ? 'nearest' : 'linear',
    minFilter: 'linear',
    mipmapFilter: 'linear',
  };
  switch (sampler?.minFilter) {
    case SamplerFilter.NEAREST: desc.minFilter = 'nearest'; desc.mipmapFilter = 'nearest'; desc.lodMaxClamp = 0; break;
    case SamplerFilter.LINEAR: desc.minFilter = 'linear'; desc.mipmapFilter = 'nearest'; desc.lodMaxClamp = 0; break;
    case SamplerFilter.NEAREST_MIPMAP_NEAREST: desc.minFilter = 'nearest'; desc.mipmapFilter = 'nearest'; break;
    case SamplerFilter.LINEAR_MIPMAP_NEAREST: desc.minFilter = 'linear'; desc.mipmapFilter = 'nearest'; break;
    case SamplerFilter.NEAREST_MIPMAP_LINEAR: desc.minFilter = 'nearest'; desc.mipmapFilter = 'linear'; break;
    default: break; // LINEAR_MIPMAP_LINEAR or unspecified.
  }
  return desc;
}
