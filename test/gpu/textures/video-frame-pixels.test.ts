import { describe, expect, it } from 'vitest';
import { PROBE_PNG_BASE64, PROBE_RGBA, readBitmapPixels, videoFrameReadable } from '../../../src/gpu/textures/video-frame-pixels.ts';
import { decodeImageBytes } from '../../support/png.ts';

describe('the WebCodecs read of decoded images (video-frame-pixels.ts); the browser side is test/browser/texture-upload.test.ts', () => {
  it("the probe image is the PNG its comment says: three opaque texels of distinct channels", () => {
    const decoded = decodeImageBytes(new Uint8Array(Buffer.from(PROBE_PNG_BASE64, 'base64')));
    expect([decoded.width, decoded.height]).toEqual([3, 1]);
    expect(Array.from(decoded.data)).toEqual(PROBE_RGBA);
  });

  it('is not taken where there is no VideoFrame (Node): the bitmap is uploaded as it is', async () => {
    expect(typeof (globalThis as { VideoFrame?: unknown }).VideoFrame).toBe('undefined');
    expect(await videoFrameReadable()).toBe(false);
    expect(await readBitmapPixels({ width: 2, height: 2 } as ImageBitmap)).toBeUndefined();
  });
});
