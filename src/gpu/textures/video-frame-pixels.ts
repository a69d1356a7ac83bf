/**
 * A browser-decoded image's RGBA8 bytes read through WebCodecs: `new VideoFrame(bitmap)`,
 * then `VideoFrame.copyTo(…, { format: 'RGBA' })`, so that the upload is a plain
 * `writeTexture` instead of `copyExternalImageToTexture`. In Chromium on SwiftShader the
 * latter took 110–240 ms for a 1024² texture (700+ ms the first time a page did it), this
 * 10–25 ms (notes of issue 22, sessions 6 and 7).
 *
 * Taken only where it gives exactly the bytes `copyExternalImageToTexture(…, {
 * premultipliedAlpha: false })` would:
 * - once a page, a probe checks that the browser converts to the asked-for format (older ones
 *   ignore `format` and hand back the frame's own layout: BGRA, I420…), and that a decoded
 *   PNG comes back in order and without colour conversion;
 * - each image's frame must be RGB, whole, in sRGB, and come back as one tight plane;
 * - and opaque. Chromium keeps a frame made from a straight-alpha bitmap premultiplied and
 *   divides the alpha out again in copyTo, which moves a semi-transparent texel's colour by up
 *   to a few steps (and loses it under alpha 0). A frame without alpha (BGRX: a JPEG) is
 *   exact; one with alpha is exact only if every texel is opaque, checked after the copy.
 * Anything else, or any error, returns undefined and the caller keeps the ImageBitmap for
 * `copyExternalImageToTexture`. Upload-time only.
 */

/** The options every glTF image is decoded with: the file's bytes, unconverted and straight. */
export const IMAGE_BITMAP_OPTIONS: ImageBitmapOptions = { colorSpaceConversion: 'none', premultiplyAlpha: 'none' };

const RGBA8_BYTES = 4;

/** Frame formats holding RGB(A) bytes: converting them to RGBA reorders them. */
const RGB_FRAME_FORMATS: ReadonlySet<string> = new Set(['RGBA', 'RGBX', 'BGRA', 'BGRX']);
/** RGB frame formats without alpha: copyTo as RGBA gives alpha 255. */
const OPAQUE_FRAME_FORMATS: ReadonlySet<string> = new Set(['RGBX', 'BGRX']);
const OPAQUE_ALPHA = 255;

/**
 * Above the limit every device has (maxTextureDimension2D defaults to 8192), a texture is
 * downscaled on upload; an ImageBitmap is resized by the browser then (textures.ts fitImage),
 * so such an image stays one.
 */
const LARGEST_READ_DIMENSION = 8192;

/** A 3×1 RGBA PNG of opaque (10, 20, 30), (200, 100, 50), (60, 120, 240). */
export const PROBE_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAMAAAABCAYAAAAb4BS0AAAAFUlEQVR4AWPkEpH7vy9AhKFEZB8DABexA6WJgx1cAAAAAElFTkSuQmCC';
/** PROBE_PNG_BASE64's pixels: distinct channels catch a swapped order, and values off 0 and 255 a conversion. */
export const PROBE_RGBA: readonly number[] = [10, 20, 30, 255, 200, 100, 50, 255, 60, 120, 240, 255];
const PROBE_WIDTH = 3;

let probed: Promise<boolean> | undefined;

/** Whether this browser's VideoFrame.copyTo gives an image's exact RGBA bytes (probed once a page). */
export function videoFrameReadable(): Promise<boolean> {
  probed ??= probe().catch(() => false);
  return probed;
}

async function probe(): Promise<boolean> {
  if (typeof VideoFrame !== 'function' || typeof createImageBitmap !== 'function') return false;
  // A frame that is BGRA for certain: a browser ignoring `format` hands back blue first.
  const bgra = new Uint8Array(PROBE_WIDTH * RGBA8_BYTES);
  for (let i = 0; i < PROBE_WIDTH; i++) {
    bgra.set([PROBE_RGBA[i * 4 + 2], PROBE_RGBA[i * 4 + 1], PROBE_RGBA[i * 4], PROBE_RGBA[i * 4 + 3]], i * RGBA8_BYTES);
  }
  const converted = await readFrame(new VideoFrame(bgra, { format: 'BGRA', codedWidth: PROBE_WIDTH, codedHeight: 1, timestamp: 0 }), PROBE_WIDTH, 1);
  if (!converted || !sameBytes(converted, PROBE_RGBA)) return false;
  // A decoded PNG the way glTF images are decoded: order kept, no colour conversion.
  const png = Uint8Array.from(atob(PROBE_PNG_BASE64), (c) => c.charCodeAt(0));
  const bitmap = await createImageBitmap(new Blob([png], { type: 'image/png' }), IMAGE_BITMAP_OPTIONS);
  try {
    const decoded = await readFrame(new VideoFrame(bitmap, { timestamp: 0, alpha: 'keep' }), PROBE_WIDTH, 1);
    return !!decoded && sameBytes(decoded, PROBE_RGBA);
  } finally {
    bitmap.close();
  }
}

function sameBytes(a: Uint8Array, b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function isSrgb(space: VideoColorSpace): boolean {
  return (space.primaries ?? 'bt709') === 'bt709' && (space.transfer ?? 'iec61966-2-1') === 'iec61966-2-1';
}

function allOpaque(rgba: Uint8Array): boolean {
  for (let i = 3; i < rgba.length; i += RGBA8_BYTES) if (rgba[i] !== OPAQUE_ALPHA) return false;
  return true;
}

/**
 * `frame`'s whole picture as tightly packed RGBA8 (width × 4 bytes a row, top row first), or
 * undefined if it cannot be exact (see the file's comment). Closes `frame` in every case.
 */
async function readFrame(frame: VideoFrame, width: number, height: number): Promise<Uint8Array | undefined> {
  try {
    const { format, visibleRect: visible } = frame;
    if (!format || !RGB_FRAME_FORMATS.has(format) || !isSrgb(frame.colorSpace) || !visible
      || visible.x !== 0 || visible.y !== 0 || visible.width !== width || visible.height !== height) return undefined;
    const stride = width * RGBA8_BYTES;
    const pixels = new Uint8Array(stride * height);
    const planes = await frame.copyTo(pixels, { format: 'RGBA', colorSpace: 'srgb', layout: [{ offset: 0, stride }] });
    if (planes.length !== 1 || planes[0].offset !== 0 || planes[0].stride !== stride) return undefined;
    return OPAQUE_FRAME_FORMATS.has(format) || allOpaque(pixels) ? pixels : undefined;
  } finally {
    frame.close();
  }
}

/**
 * `bitmap`'s RGBA8 bytes (decoded with IMAGE_BITMAP_OPTIONS), exactly as
 * `copyExternalImageToTexture` would write them, or undefined where that cannot be promised
 * (see the file's comment): the caller then uploads the bitmap itself. Does not close `bitmap`.
 */
export async function readBitmapPixels(bitmap: ImageBitmap): Promise<Uint8Array | undefined> {
  const { width, height } = bitmap;
  if (width > LARGEST_READ_DIMENSION || height > LARGEST_READ_DIMENSION || !(await videoFrameReadable())) return undefined;
  try {
    return await readFrame(new VideoFrame(bitmap, { timestamp: 0, alpha: 'keep' }), width, height);
  } catch {
    return undefined;
  }
}
