import { describe, expect, it } from 'vitest';
import { EnvironmentError, type EquirectImage } from '../../../src/gpu/environment/equirect.ts';
import { encodeRgbe, isRadianceHdr, parseHdr, writeHdr } from '../../../src/gpu/environment/hdr.ts';

const ascii = (s: string) => new TextEncoder().encode(s);
function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/** A varied image: a ramp over five orders of magnitude, runs of one value and noise. */
function testImage(width: number, height: number): EquirectImage {
  const rgb = new Float32Array(width * height * 3);
  let seed = 7;
  const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
    const i = (y * width + x) * 3;
    if (x < width / 3) { rgb[i] = rgb[i + 1] = rgb[i + 2] = 0.5; continue; }
    rgb[i] = 10 ** (-2 + (4 * x) / width); rgb[i + 1] = rand() * 3; rgb[i + 2] = y / height;
  }
  return { width, height, rgb };
}

function expectClose(a: EquirectImage, b: EquirectImage): void {
  expect([a.width, a.height]).toEqual([b.width, b.height]);
  for (let i = 0; i < a.rgb.length; i += 3) {
    const peak = Math.max(b.rgb[i], b.rgb[i + 1], b.rgb[i + 2]);
    // One mantissa step of the pixel's shared exponent.
    for (let c = 0; c < 3; c++) expect(Math.abs(a.rgb[i + c] - b.rgb[i + c])).toBeLessThanOrEqual(peak / 128 + 1e-30);
  }
}

describe('Radiance .hdr', () => {
  /** Radiance's decoding: (mantissa + 0.5) · 2^(e − 136). */
  const decode = (b: Uint8Array, at: number) => (b[at + 3] === 0 ? [0, 0, 0] : [0, 1, 2].map((c) => (b[at + c] + 0.5) * 2 ** (b[at + 3] - 136)));

  it('encodes RGBE within half a mantissa step, black as zeros', () => {
    const px = new Uint8Array(4);
    for (const [r, g, b] of [[1, 0.5, 0.25], [40, 38, 34], [0.001, 0.002, 0.0005], [0.9999, 1, 1.0001], [255.9, 0, 1]]) {
      encodeRgbe(r, g, b, px, 0);
      const max = Math.max(r, g, b);
      const back = decode(px, 0);
      [r, g, b].forEach((v, c) => expect(Math.abs(back[c] - v)).toBeLessThanOrEqual(max / 256 + 1e-12));
      expect(Math.max(px[0], px[1], px[2])).toBeGreaterThanOrEqual(128); // normalised mantissa
    }
    encodeRgbe(0, 0, 0, px, 0);
    expect([...px]).toEqual([0, 0, 0, 0]);
  });

  it('reads run-length encoded and flat files to within RGBE precision', () => {
    const image = testImage(40, 6);
    const rle = writeHdr(image, true), flat = writeHdr(image, false);
    expect(rle.length).toBeLessThan(flat.length);
    expectClose(parseHdr(rle), image);
    expectClose(parseHdr(flat), image);
    expect(Array.from(parseHdr(rle).rgb)).toEqual(Array.from(parseHdr(flat).rgb));
  });

  it('narrow images (< 8 wide) are flat; RGBE decodes as Radiance does, (m + 0.5)·2^(e−136); black is 0', () => {
    const px = new Uint8Array(8);
    encodeRgbe(1, 0.5, 0, px, 0);
    expect(Array.from(px.subarray(0, 4))).toEqual([128, 64, 0, 129]);
    const bytes = concat(ascii('#?RGBE\n\n-Y 1 +X 2\n'), px);
    const img = parseHdr(bytes);
    expect(Array.from(img.rgb)).toEqual([128.5 / 128, 64.5 / 128, 0.5 / 128, 0, 0, 0]);
  });

  it('+Y files are bottom-up: row 0 of the result is the last scanline', () => {
    const px = new Uint8Array(8);
    encodeRgbe(1, 1, 1, px, 0);
    const img = parseHdr(concat(ascii('#?RADIANCE\n\n+Y 2 +X 1\n'), px));
    expect(img.rgb[0]).toBe(0);
    expect(img.rgb[3]).toBeCloseTo(1, 2);
  });

  it('isRadianceHdr looks at the magic only', () => {
    expect(isRadianceHdr(ascii('#?RADIANCE'))).toBe(true);
    expect(isRadianceHdr(new Uint8Array([0x89, 0x50]))).toBe(false);
  });

  describe('corrupt input gets a specific EnvironmentError', () => {
    const good = writeHdr(testImage(16, 2));
    const cases: [string, Uint8Array, RegExp][] = [
      ['not Radiance', ascii('P6\n1 1\n255\n'), /does not start with "#\?"/],
      ['no resolution line', ascii('#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n'), /ends before the resolution line/],
      ['XYZE', ascii('#?RADIANCE\nFORMAT=32-bit_rle_xyze\n\n-Y 1 +X 1\n\0\0\0\0'), /FORMAT=32-bit_rle_xyze is not supported/],
      ['odd orientation', ascii('#?RADIANCE\n\n-X 4 +Y 4\n'), /resolution line/],
      ['zero size', ascii('#?RADIANCE\n\n-Y 0 +X 4\n'), /not a positive whole number/],
      ['absurd size', ascii('#?RADIANCE\n\n-Y 100000 +X 100000\n'), /beyond the limit/],
      ['too many pixels', ascii(`#?RADIANCE\n\n-Y 16384 +X 16384\n`), /beyond the limit/],
      ['truncated pixels', good.subarray(0, good.length - 5), /file ends inside channel/],
      ['truncated flat', concat(ascii('#?RADIANCE\n\n-Y 2 +X 4\n'), new Uint8Array(20)), /scanline 1: the file ends inside it/],
      ['run overruns the line', concat(ascii('#?RADIANCE\n\n-Y 1 +X 8\n'), Uint8Array.of(2, 2, 0, 8, 128 + 9, 1)), /a run of 9 overruns channel 0/],
      ['literal overruns the line', concat(ascii('#?RADIANCE\n\n-Y 1 +X 8\n'), Uint8Array.of(2, 2, 0, 8, 9)), /9 literal bytes overrun/],
      ['zero-length run', concat(ascii('#?RADIANCE\n\n-Y 1 +X 8\n'), Uint8Array.of(2, 2, 0, 8, 0)), /zero-length run/],
      ['scanline width mismatch', concat(ascii('#?RADIANCE\n\n-Y 1 +X 8\n'), Uint8Array.of(2, 2, 0, 9, 0)), /says width 9, the image is 8 wide/],
      ['endless header', concat(ascii('#?RADIANCE\n'), new Uint8Array(70 * 1024).fill(0x41)), /header longer than/],
    ];
    for (const [name, bytes, message] of cases) {
      it(name, () => {
        expect(() => parseHdr(bytes)).toThrow(EnvironmentError);
        expect(() => parseHdr(bytes)).toThrow(message);
      });
    }
  });

  it('random corruption of a valid file never escapes as anything but an EnvironmentError', () => {
    const good = writeHdr(testImage(24, 4));
    let seed = 3;
    const rand = (n: number) => ((seed = (seed * 48271) % 2147483647) % n);
    for (let k = 0; k < 500; k++) {
      const bytes = good.slice(0, good.length - rand(good.length / 2));
      for (let j = 0; j < 4; j++) bytes[rand(bytes.length)] = rand(256);
      try {
        const img = parseHdr(bytes);
        expect(img.rgb.length).toBe(img.width * img.height * 3);
      } catch (e) {
        expect(e).toBeInstanceOf(EnvironmentError);
      }
    }
  });
});
