/**
 * The page side of texture-upload.test.ts, imported into a blank page: uploads an image
 * through the library's browser decoder and, for reference, through
 * copyExternalImageToTexture of an ImageBitmap decoded the same way, and reads both back.
 */
import { readTexturePixels } from '../../src/gpu/device/readback.ts';
import { MipmapGenerator } from '../../src/gpu/textures/mipmaps.ts';
import { browserImageDecoder, createImageTexture, type DecodedImage } from '../../src/gpu/textures/textures.ts';
import { IMAGE_BITMAP_OPTIONS, videoFrameReadable } from '../../src/gpu/textures/video-frame-pixels.ts';

/** VideoFrames made and not yet closed, counted around the page's own VideoFrame (when it has one). */
let openFrames = 0;
if (typeof VideoFrame === 'function') {
  const Native = VideoFrame;
  class CountedVideoFrame extends Native {
    private counted = true;
    constructor(source: CanvasImageSource & AllowSharedBufferSource, init: VideoFrameInit & VideoFrameBufferInit) {
      super(source, init);
      openFrames++;
    }
    override close(): void {
      if (this.counted) openFrames--;
      this.counted = false;
      super.close();
    }
  }
  globalThis.VideoFrame = CountedVideoFrame as unknown as typeof VideoFrame;
}

let devicePromise: Promise<GPUDevice> | undefined;
async function device(): Promise<GPUDevice> {
  devicePromise ??= navigator.gpu.requestAdapter().then((a) => a!.requestDevice({ label: 'texture upload test' }));
  return devicePromise;
}

export interface UploadedLevels {
  /** Level 0 and (when the image is larger than 1×1) level 1, as RGBA bytes. */
  readonly levels: number[][];
  readonly format: string;
}

export interface UploadComparison {
  /** What the library's decoder returned: the bytes (WebCodecs) or the ImageBitmap (fallback). */
  readonly path: 'pixels' | 'bitmap';
  readonly width: number;
  readonly height: number;
  readonly openFrames: number;
  /** Through the library's decoder, sRGB then linear. */
  readonly library: UploadedLevels[];
  /** Through copyExternalImageToTexture of an ImageBitmap decoded with the same options, sRGB then linear. */
  readonly reference: UploadedLevels[];
}

async function levelsOf(gpu: GPUDevice, mipmaps: MipmapGenerator, image: DecodedImage, srgb: boolean, label: string): Promise<UploadedLevels> {
  const texture = createImageTexture(gpu, mipmaps, image, srgb, label);
  const levels: number[][] = [];
  for (let level = 0; level < texture.mipLevelCount; level++) levels.push(Array.from(await readTexturePixels(gpu, texture, level)));
  texture.destroy();
  return { levels, format: texture.format };
}

export async function compareUploads(bytes: number[], mimeType: string): Promise<UploadComparison> {
  const gpu = await device();
  const mipmaps = new MipmapGenerator(gpu);
  const file = Uint8Array.from(bytes);
  const decoded = await browserImageDecoder({ bytes: file, mimeType } as Parameters<typeof browserImageDecoder>[0]);
  const bitmap = await createImageBitmap(new Blob([file], { type: mimeType }), IMAGE_BITMAP_OPTIONS);
  const external: DecodedImage = { width: bitmap.width, height: bitmap.height, source: bitmap };
  const library: UploadedLevels[] = [];
  const reference: UploadedLevels[] = [];
  for (const srgb of [true, false]) {
    library.push(await levelsOf(gpu, mipmaps, decoded, srgb, `decoded ${mimeType}`));
    reference.push(await levelsOf(gpu, mipmaps, external, srgb, `external ${mimeType}`));
  }
  bitmap.close();
  return { path: 'data' in decoded ? 'pixels' : 'bitmap', width: decoded.width, height: decoded.height, openFrames, library, reference };
}

/** Whether the library takes the WebCodecs path on this page. */
export function fastPathTaken(): Promise<boolean> {
  return videoFrameReadable();
}
