/**
 * Texture upload in Chromium: the WebCodecs path (src/gpu/textures/video-frame-pixels.ts)
 * writes exactly the bytes copyExternalImageToTexture writes, and where that path is missing,
 * wrong or inexact (semi-transparent texels) the decoder falls back to the ImageBitmap.
 */
import jpeg from 'jpeg-js';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserUnavailable, type BrowserSession } from '../support/browser.ts';
import { useBrowserSession } from '../support/browser-hooks.ts';
import { testPageUrl } from '../support/built-pages.ts';
import { encodePng } from '../support/png.ts';
import type { UploadComparison } from './texture-upload-page.ts';

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

/** Straight-alpha RGBA with every channel distinct, alphas from 0 to 255 (colour under alpha 0 and 1 must survive). */
function alphaPixels(width: number, height: number): Uint8Array {
  const alphas = [0, 1, 64, 128, 200, 254, 255];
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) data.set([(i * 37 + 5) & 255, (i * 91 + 10) & 255, (i * 13 + 200) & 255, alphas[i % alphas.length]], i * 4);
  return data;
}

/** An opaque gradient whose channels differ (a JPEG of it decodes to distinct R, G, B). */
function gradient(width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) data.set([(x * 255) / width, (y * 255) / height, 255 - (x * 7 + y * 3) % 256, 255], (y * width + x) * 4);
  }
  return data;
}

const SMALL_ALPHA = { width: 3, height: 5, rgba: alphaPixels(3, 5) };
const SMALL_OPAQUE = { width: 3, height: 5, rgba: alphaPixels(3, 5).map((v, i) => (i % 4 === 3 ? 255 : v)) };
const WIDE = { width: 257, height: 3, rgba: gradient(257, 3) };
const alphaPng = encodePng(SMALL_ALPHA.width, SMALL_ALPHA.height, SMALL_ALPHA.rgba);
const opaquePng = encodePng(SMALL_OPAQUE.width, SMALL_OPAQUE.height, SMALL_OPAQUE.rgba);
const widePng = encodePng(WIDE.width, WIDE.height, WIDE.rgba);
/** Power-of-two sizes: the library box-filters their levels on the CPU, the reference draws them. */
const SQUARE = { width: 32, height: 32, rgba: gradient(32, 32) };
const squarePng = encodePng(SQUARE.width, SQUARE.height, SQUARE.rgba);
const flatJpeg = new Uint8Array(jpeg.encode({ width: 64, height: 8, data: Buffer.from(gradient(64, 8)) }, 90).data);
const oddJpeg = new Uint8Array(jpeg.encode({ width: 33, height: 17, data: Buffer.from(gradient(33, 17)) }, 90).data);

/** The page that puts texture-upload-page.ts's exports on `window.uploadTest`. */
const PAGE = 'test/browser/pages/texture-upload.html';
type PageModule = typeof import('./texture-upload-page.ts');

async function openPage(session: BrowserSession, stub?: () => void): Promise<Page> {
  const { page } = await session.newPage();
  if (stub) await page.addInitScript(stub);
  await page.goto(testPageUrl(session.baseUrl, PAGE));
  await page.waitForFunction(() => (window as unknown as { uploadTest?: PageModule }).uploadTest !== undefined);
  return page;
}

function compare(page: Page, file: Uint8Array, mimeType: string): Promise<UploadComparison> {
  return page.evaluate(([bytes, type]) => (window as unknown as { uploadTest: PageModule }).uploadTest.compareUploads(bytes, type), [Array.from(file), mimeType] as const);
}

function fastPathTaken(page: Page): Promise<boolean> {
  return page.evaluate(() => (window as unknown as { uploadTest: PageModule }).uploadTest.fastPathTaken());
}

/**
 * Both uploads wrote the same levels (all of them), in sRGB and linear formats. `mipTolerance`: how far
 * a byte below level 0 may be from the reference's, for levels made on the CPU (the reference draws
 * its levels): where sRGB is linear (dark values) two texels' mean is often exactly halfway between
 * two bytes, and the GPU's f32 and the CPU's f64 may round such a tie either way.
 */
function expectSameAsReference(result: UploadComparison, mipTolerance = 0): void {
  expect(result.library.map((l) => l.format)).toEqual(['rgba8unorm-srgb', 'rgba8unorm']);
  for (let i = 0; i < 2; i++) {
    expect(result.library[i].levels.length, `${result.library[i].format} levels read`).toBe(Math.floor(Math.log2(Math.max(result.width, result.height))) + 1);
    result.library[i].levels.forEach((level, l) => {
      const reference = result.reference[i].levels[l];
      if (l === 0 || mipTolerance === 0) {
        expect(level, `${result.library[i].format} level ${l}`).toEqual(reference);
        return;
      }
      expect(level.length, `${result.library[i].format} level ${l}`).toBe(reference.length);
      const worst = level.reduce((m, v, k) => Math.max(m, Math.abs(v - reference[k])), 0);
      expect(worst, `${result.library[i].format} level ${l}: largest difference from the drawn level`).toBeLessThanOrEqual(mipTolerance);
    });
  }
}

describe.skipIf(!!unavailable)('texture upload in Chromium', () => {
  const session = useBrowserSession();

  it('reads opaque images through VideoFrame.copyTo, byte for byte as copyExternalImageToTexture writes them; semi-transparent ones as before; closes every frame', async () => {
    const page = await openPage(session);
    try {
      expect(await fastPathTaken(page)).toBe(true);
      // An RGBA PNG, every texel opaque, 3×5: rows of 12 bytes.
      const png = await compare(page, opaquePng, 'image/png');
      expect([png.path, png.width, png.height]).toEqual(['pixels', 3, 5]);
      expect(png.library[0].levels[0]).toEqual(Array.from(SMALL_OPAQUE.rgba));
      expect(png.library[1].levels[0]).toEqual(Array.from(SMALL_OPAQUE.rgba));
      expectSameAsReference(png);

      // Odd width, rows of 1028 bytes (not a multiple of 256).
      const wide = await compare(page, widePng, 'image/png');
      expect([wide.path, wide.width, wide.height]).toEqual(['pixels', WIDE.width, WIDE.height]);
      expect(wide.library[0].levels[0]).toEqual(Array.from(WIDE.rgba));
      expectSameAsReference(wide);

      // Power-of-two sizes: levels box-filtered on the CPU (textures.ts CPU_MIPMAP_MAX_TEXELS), the
      // reference's drawn ones (mipmap.wgsl) within a rounding, in linear light for sRGB, down to 1×1.
      const square = await compare(page, squarePng, 'image/png');
      expect([square.path, square.width, square.height]).toEqual(['pixels', 32, 32]);
      expectSameAsReference(square, 1);
      const flat = await compare(page, flatJpeg, 'image/jpeg');
      expect([flat.path, flat.width, flat.height]).toEqual(['pixels', 64, 8]);
      expectSameAsReference(flat, 1);

      // A JPEG's decoded bytes are the browser's: the same as the reference upload, alpha 255.
      const jpg = await compare(page, oddJpeg, 'image/jpeg');
      expect([jpg.path, jpg.width, jpg.height]).toEqual(['pixels', 33, 17]);
      expect(jpg.library[1].levels[0].filter((_, i) => i % 4 === 3).every((a) => a === 255)).toBe(true);
      expectSameAsReference(jpg);

      // Semi-transparent texels: Chromium's frame would move their colour, so the bitmap is
      // uploaded; the file's straight-alpha bytes arrive, colour kept under alpha 0 and 1.
      const alpha = await compare(page, alphaPng, 'image/png');
      expect([alpha.path, alpha.width, alpha.height]).toEqual(['bitmap', 3, 5]);
      expect(alpha.library[0].levels[0]).toEqual(Array.from(SMALL_ALPHA.rgba));
      expect(alpha.library[1].levels[0]).toEqual(Array.from(SMALL_ALPHA.rgba));
      expectSameAsReference(alpha);

      expect(alpha.openFrames, 'VideoFrames left open').toBe(0);
    } finally {
      await page.close();
    }
  }, 60_000);

  const fallbacks: [string, () => void][] = [
    ['without WebCodecs (no VideoFrame)', () => { delete (globalThis as { VideoFrame?: unknown }).VideoFrame; }],
    ['when copyTo ignores the format asked for', () => {
      const copyTo = VideoFrame.prototype.copyTo;
      VideoFrame.prototype.copyTo = function (this: VideoFrame, destination: AllowSharedBufferSource, options?: VideoFrameCopyToOptions) {
        const { format: _ignored, ...rest } = options ?? {};
        return copyTo.call(this, destination, rest);
      };
    }],
    ['when a frame is not RGB (I420)', () => {
      Object.defineProperty(VideoFrame.prototype, 'format', { get: () => 'I420' });
    }],
    ['when copyTo fails', () => {
      VideoFrame.prototype.copyTo = () => Promise.reject(new DOMException('stubbed', 'NotSupportedError'));
    }],
  ];
  it.each(fallbacks)('falls back to copyExternalImageToTexture %s, with the same bytes', async (_name, stub) => {
    const page = await openPage(session, stub);
    try {
      expect(await fastPathTaken(page)).toBe(false);
      const png = await compare(page, opaquePng, 'image/png');
      expect(png.path).toBe('bitmap');
      expect(png.library[0].levels[0]).toEqual(Array.from(SMALL_OPAQUE.rgba));
      expectSameAsReference(png);
      expect(png.openFrames, 'VideoFrames left open').toBe(0);
    } finally {
      await page.close();
    }
  }, 60_000);
});
