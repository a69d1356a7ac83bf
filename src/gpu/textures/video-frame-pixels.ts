/**
 * A browser-decoded image's RGBA8 bytes read through WebCodecs: `new VideoFrame(bitmap)`,
 * then `VideoFrame.copyTo(…, { format: 'RGBA' })`, so that the upload is a plain
 * `writeTexture` instead of `copyExternalImageToTexture`. In Chromium on SwiftShader the
 * latter took 110–240 ms for a 1024² texture (700+ ms the first time a page did it), this
 * 10–25 ms (notes of issue 22, sessions 6 and 7).
 *
 * Taken only where it gives exactly the bytes `copyExternalImageToTexture(…, {
 * premultipliedAlpha: false })` would: once a page, a probe checks that the browser converts
 * to the asked-for format (older ones ignore `format` and hand back the frame's own layout:
 * BGRA, I420…) and that a decoded PNG's semi-transparent colours come back straight, in
 * order and unconverted. Each image then checks its frame (an RGB format, the whole image
 * visible, one tightly packed plane back). Anything else, or any error, returns undefined and
 * the caller keeps the ImageBitmap for `copyExternalImageToTexture`. Upload-time only.
 */

/** The options every glTF image is decoded with: the file's bytes, unconverted and straight. */
export const IMAGE_BITMAP_OPTIONS: ImageBitmapOptions = { colorSpaceConversion: 'none', premultiplyAlpha: 'none' };

const RGBA8_BYTES = 4;

/** Frame formats holding RGB(A) bytes: converting them to RGBA reorders, and adds alpha 255 to X. */
const RGB_FRAME_FORMATS: ReadonlySet<string> = new Set(['RGBA', 'RGBX', 'BGRA', 'BGRX']);

/**
 * Above the limit every device has (maxTextureDimension2D defaults to 8192), a texture is
 * downscaled on upload; an ImageBitmap is resized by the browser then (textures.ts fitImage),
 * so such an image stays one.
 */
const LARGEST_READ_DIMENSION = 8192;

/** A 3×1 PNG: opaque (10, 20, 30), (200, 100, 50) at alpha 128, (60, 120, 240) at alpha 3. */
export const PROBE_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAMAAAABCAYAAAAb4BS0AAAAFUlEQVR4AWPmEpH7fzhKmfGG2/XDABuzBTgPwQIqAAAAAElFTkSuQmCC';
/** PROBE_PNG_BASE64's pixels: distinct channels catch a swapped order, low alphas a premultiplication. */
export const PROBE_RGBA: readonly number[] = [10, 20, 30, 255, 200, 100, 50, 128, 60, 120, 240, 3];
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
  // A decoded PNG the way glTF images are decoded: straight alpha and no colour conversion survive.
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

/**
 * `frame`'s whole picture as tightly packed RGBA8 (width × 4 bytes a row, top row first), or
 * undefined if the frame is not an RGB one of that size or the copy does not come back as one
 * such plane. Closes `frame` in every case.
 */
async function readFrame(frame: VideoFrame, width: number, height: number): Promise<Uint8Array | undefined> {
  try {
    const visible = frame.visibleRect;
    if (!frame.format || !RGB_FRAME_FORMATS.has(frame.format) || !visible
      || visible.x !== 0 || visible.y !== 0 || visible.width !== width || visible.height !== height) return undefined;
    const stride = width * RGBA8_BYTES;
    const pixels = new Uint8Array(stride * height);
    const planes = await frame.copyTo(pixels, { format: 'RGBA', colorSpace: 'srgb', layout: [{ offset: 0, stride }] });
    return planes.length === 1 && planes[0].offset === 0 && planes[0].stride === stride ? pixels : undefined;
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
