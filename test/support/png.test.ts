/**
 * The Node tests' image decoder (png.ts): decoding a file again gives the same pixels from
 * the worker's cache, in a copy of their own; a file that does not decode fails every time.
 */
import { describe, expect, it } from 'vitest';
import { decodeImageBytes, decodeImageBytesCached, encodePng, nodeImageDecoder } from './png.ts';
import type { Image } from '../../src/gltf/model.ts';

describe('decodeImageBytesCached', () => {
  const rgba = Uint8Array.from({ length: 8 * 4 * 4 }, (_, i) => (i * 37) & 255);
  const png = encodePng(8, 4, rgba);

  it('gives what decodeImageBytes gives, each call its own pixels', async () => {
    const first = decodeImageBytesCached(png);
    const again = await nodeImageDecoder({ bytes: png.slice() } as unknown as Image) as ReturnType<typeof decodeImageBytes>;
    expect(first).toEqual(decodeImageBytes(png));
    expect(again).toEqual(first);
    expect(first.data).toEqual(rgba);
    // A caller writing into its pixels changes no other caller's.
    first.data.fill(0);
    expect(decodeImageBytesCached(png).data).toEqual(rgba);
    expect(again.data.buffer).not.toBe(first.data.buffer);
  });

  it('tells files apart by their bytes, and keeps no failure', () => {
    // One bit of one pixel apart.
    const otherRgba = rgba.slice();
    otherRgba[5] ^= 1;
    const other = encodePng(8, 4, otherRgba);
    expect(decodeImageBytesCached(png).data).toEqual(rgba);
    expect(decodeImageBytesCached(other).data).toEqual(otherRgba);
    expect(decodeImageBytesCached(png).data).toEqual(rgba);
    const broken = png.slice(0, 40);
    expect(() => decodeImageBytesCached(broken)).toThrow();
    expect(() => decodeImageBytesCached(broken)).toThrow();
    expect(() => decodeImageBytesCached(Uint8Array.of(1, 2, 3))).toThrow(/not a PNG or JPEG file/);
  });
});
