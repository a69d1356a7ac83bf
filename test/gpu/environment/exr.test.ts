import { describe, expect, it } from 'vitest';
import { EnvironmentError } from '../../../src/gpu/environment/equirect.ts';
import { exrSize, isOpenExr, parseExrEnvironment } from '../../../src/gpu/environment/exr.ts';
import { writeExr } from '../../support/exr.ts';

/** Sky above, ground below, a bright sun pixel and a value past half-float precision. */
function skyGround(width: number, height: number): Float32Array {
  const rgb = new Float32Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
    const i = (y * width + x) * 3;
    rgb.set(y < height / 2 ? [0.15, 0.35, 1 + x / 1024] : [0.9, 0.4, 0.05], i);
  }
  rgb.set([5000, 4000, 3000], (1 * width + 3) * 3);
  return rgb;
}

describe('OpenEXR environments (parse-exr)', () => {
  it('decodes float channels exactly, top row first, whatever the bytes\' offset in their buffer', async () => {
    const width = 16, height = 8, rgb = skyGround(width, height);
    const file = writeExr(width, height, rgb);
    expect(isOpenExr(file)).toBe(true);
    expect(exrSize(file)).toEqual({ width, height });
    const image = await parseExrEnvironment(file);
    expect([image.width, image.height]).toEqual([width, height]);
    expect(Array.from(image.rgb)).toEqual(Array.from(rgb));
    // The same file inside a larger buffer (as a subarray of a download).
    const padded = new Uint8Array(file.length + 10);
    padded.set(file, 5);
    expect(Array.from((await parseExrEnvironment(padded.subarray(5, 5 + file.length))).rgb)).toEqual(Array.from(rgb));
  });

  it('decodes half channels to within half precision', async () => {
    const width = 8, height = 4, rgb = skyGround(width, height);
    const image = await parseExrEnvironment(writeExr(width, height, rgb, { pixelType: 1 }));
    for (let i = 0; i < rgb.length; i++) expect(Math.abs(image.rgb[i] - rgb[i])).toBeLessThanOrEqual(rgb[i] * 2 ** -10);
  });

  it('negative and non-finite radiance becomes 0', async () => {
    const rgb = new Float32Array([-1, Number.NaN, Number.POSITIVE_INFINITY, 2, 3, 4]);
    expect(Array.from((await parseExrEnvironment(writeExr(2, 1, rgb))).rgb)).toEqual([0, 0, 0, 2, 3, 4]);
  });

  it('refuses what is not an OpenEXR file, a cut header, a header without a data window, and a size past the limit, before decoding', async () => {
    const good = writeExr(4, 2, skyGround(4, 2));
    const reject = (bytes: Uint8Array, pattern: RegExp) => expect(parseExrEnvironment(bytes)).rejects.toThrow(pattern);
    await reject(new TextEncoder().encode('#?RADIANCE\n'), /^\.exr: does not start with the OpenEXR magic number/);
    await reject(good.subarray(0, 12), /^\.exr: the header is cut short/);
    await reject(good.subarray(0, 40), /^\.exr: attribute "channels" claims 55 bytes, past the header's end/);
    await reject(Uint8Array.from([0x76, 0x2f, 0x31, 0x01, 2, 0, 0, 0, 0]), /^\.exr: the header has no dataWindow/);
    // A data window 100000 × 100000: refused by its size, not by an allocation failure.
    await reject(writeExr(4, 2, skyGround(4, 2), { dataWindow: [0, 0, 99_999, 99_999] }), /^\.exr: size 100000 × 100000 is beyond the limit/);
    await reject(writeExr(4, 2, skyGround(4, 2), { dataWindow: [5, 0, 0, 1] }), /^\.exr: size -4 × 2 is not a positive whole number/);
    const multipart = good.slice();
    multipart[5] |= 0x10;
    await reject(multipart, /^\.exr: multi-part and deep-data files are not supported/);
    await expect(parseExrEnvironment(good.subarray(0, 40))).rejects.toBeInstanceOf(EnvironmentError);
  });

  it('a file cut inside its pixels is an EnvironmentError, not a crash', async () => {
    const good = writeExr(16, 8, skyGround(16, 8));
    await expect(parseExrEnvironment(good.subarray(0, good.length - 100))).rejects.toThrow(/^\.exr: /);
  });
});
