import { read, write } from 'ktx-parse';
import { beforeAll, describe, expect, it } from 'vitest';
import { LoadBudget } from '../../../src/gltf/budget.ts';
import { GltfError } from '../../../src/gltf/errors.ts';
import {
  FEATURE_ASTC, FEATURE_BC, FEATURE_ETC2, readKtx2Header, transcodeKtx2, type Ktx2Options,
} from '../../../src/gpu/textures/ktx2-transcode.ts';
import { Rng } from '../../support/fuzz.ts';
import { encodeKtx2, gradientImage, type Rgba8Image } from '../../support/ktx2.ts';

const PATH = 'images[0]';
const NONE: ReadonlySet<string> = new Set();
const rgba = (srgb = true): Ktx2Options => ({ features: NONE, srgb, maxDimension: 8192 });

/** Largest per-channel difference between two RGBA8 images of the same size. */
function maxDifference(a: Uint8Array, b: Uint8Array): number {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}
/** Mean per-channel difference. */
function meanDifference(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
}

/** The average of channel `c` of sRGB-encoded RGBA8 pixels, taken in linear light. */
function srgbAverage(data: Uint8Array, c: number): number {
  const toLinear = (v: number) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  let sum = 0;
  for (let i = c; i < data.length; i += 4) sum += toLinear(data[i] / 255);
  const l = sum / (data.length / 4);
  return 255 * (l <= 0.0031308 ? l * 12.92 : 1.055 * l ** (1 / 2.4) - 0.055);
}

describe('KTX2 transcoding (KHR_texture_basisu)', () => {
  const image: Rgba8Image = gradientImage(32, 16);
  let etc1s: Uint8Array;
  let uastc: Uint8Array;
  beforeAll(async () => {
    etc1s = await encodeKtx2(image, { uastc: false });
    uastc = await encodeKtx2(image, { uastc: true });
  });

  it('reads the header: size, the whole mip chain, ETC1S or UASTC', () => {
    expect(readKtx2Header(etc1s, PATH)).toEqual({ width: 32, height: 16, levelCount: 6, uastc: false });
    expect(readKtx2Header(uastc, PATH)).toEqual({ width: 32, height: 16, levelCount: 6, uastc: true });
  });

  it('RGBA8 (no compression feature): every level, base level close to the original', async () => {
    for (const [bytes, meanTolerance] of [[etc1s, 10], [uastc, 3]] as const) {
      const t = await transcodeKtx2(bytes, PATH, rgba());
      expect(t.format).toBe('rgba8unorm-srgb');
      expect(t.blockBytes).toBe(0);
      expect(t.levels.map((l) => [l.width, l.height])).toEqual([[32, 16], [16, 8], [8, 4], [4, 2], [2, 1], [1, 1]]);
      expect(t.levels[0].data.length).toBe(32 * 16 * 4);
      expect(meanDifference(t.levels[0].data, image.data)).toBeLessThan(meanTolerance);
      expect(maxDifference(t.levels[0].data, image.data)).toBeLessThan(40);
      // The last level is the whole image's average (the encoder filters sRGB data in linear light).
      const last = t.levels[5].data;
      for (const c of [0, 1, 2]) expect(Math.abs(last[c] - srgbAverage(image.data, c))).toBeLessThan(12);
    }
    expect((await transcodeKtx2(uastc, PATH, rgba(false))).format).toBe('rgba8unorm');
  });

  it('picks the compressed format three.js would: UASTC → ASTC, BC7, ETC2; ETC1S → ETC1/ETC2, BC7', async () => {
    const pick = async (bytes: Uint8Array, features: string[], srgb = true) => {
      const t = await transcodeKtx2(bytes, PATH, { features: new Set(features), srgb, maxDimension: 8192 });
      return [t.format, t.blockBytes, t.levels[0].data.length, t.levels[5].data.length];
    };
    expect(await pick(uastc, [FEATURE_ASTC, FEATURE_BC, FEATURE_ETC2])).toEqual(['astc-4x4-unorm-srgb', 16, 8 * 4 * 16, 16]);
    expect(await pick(uastc, [FEATURE_BC, FEATURE_ETC2], false)).toEqual(['bc7-rgba-unorm', 16, 8 * 4 * 16, 16]);
    expect(await pick(uastc, [FEATURE_ETC2])).toEqual(['etc2-rgba8unorm-srgb', 16, 8 * 4 * 16, 16]);
    expect(await pick(etc1s, [FEATURE_ASTC, FEATURE_BC, FEATURE_ETC2])).toEqual(['etc2-rgb8unorm-srgb', 8, 8 * 4 * 8, 8]);
    expect(await pick(etc1s, [FEATURE_ASTC, FEATURE_BC])).toEqual(['bc7-rgba-unorm-srgb', 16, 8 * 4 * 16, 16]);
    expect(await pick(etc1s, [FEATURE_ASTC])).toEqual(['rgba8unorm-srgb', 0, 32 * 16 * 4, 4]);
  });

  it('alpha: ETC1S with alpha goes to ETC2 RGBA (not ETC1), and the alpha survives the RGBA8 transcode', async () => {
    const withAlpha = gradientImage(16, 16);
    for (let i = 0; i < 16 * 16; i++) withAlpha.data[i * 4 + 3] = (i % 16) * 17;
    const bytes = await encodeKtx2(withAlpha, { uastc: false });
    const etc = await transcodeKtx2(bytes, PATH, { features: new Set([FEATURE_ETC2]), srgb: true, maxDimension: 8192 });
    expect([etc.format, etc.blockBytes]).toEqual(['etc2-rgba8unorm-srgb', 16]);
    const rgba8 = await transcodeKtx2(bytes, PATH, rgba());
    let worst = 0;
    for (let i = 3; i < rgba8.levels[0].data.length; i += 4) worst = Math.max(worst, Math.abs(rgba8.levels[0].data[i] - withAlpha.data[i]));
    expect(worst).toBeLessThan(24);
  });

  it('a base level that is not a multiple of 4 transcodes to RGBA8 even when BC7 is there', async () => {
    const odd = await encodeKtx2(gradientImage(6, 6), { uastc: true, mipmaps: false });
    const t = await transcodeKtx2(odd, PATH, { features: new Set([FEATURE_BC]), srgb: true, maxDimension: 8192 });
    expect([t.format, t.levels.length, t.levels[0].data.length]).toEqual(['rgba8unorm-srgb', 1, 6 * 6 * 4]);
  });

  it('levels larger than the device allows are dropped; none fitting is refused', async () => {
    const t = await transcodeKtx2(uastc, PATH, { features: NONE, srgb: true, maxDimension: 8 });
    expect(t.levels.map((l) => l.width)).toEqual([8, 4, 2, 1]);
    expect(t.downscaledFrom).toEqual({ width: 32, height: 16 });
    const single = await encodeKtx2(image, { uastc: true, mipmaps: false });
    await expect(transcodeKtx2(single, PATH, { features: NONE, srgb: true, maxDimension: 16 })).rejects.toThrow(/images\[0\].*maxTextureDimension2D \(16\)/);
  });

  it('refuses bad headers with a GltfError naming the path, before transcoding', async () => {
    const refuse = async (bytes: Uint8Array, message: RegExp) => {
      const e = await transcodeKtx2(bytes, PATH, rgba()).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(GltfError);
      expect((e as GltfError).path).toBe(PATH);
      expect((e as Error).message).toMatch(message);
    };
    await refuse(Uint8Array.of(1, 2, 3), /not a valid KTX2/);
    await refuse(new TextEncoder().encode('\u00abKTX 20\u00bb\r\n\x1a\n'), /not a valid KTX2/);
    const edit = (f: (c: ReturnType<typeof read>) => void) => { const c = read(uastc); f(c); return write(c); };
    await refuse(edit((c) => { c.pixelWidth = 1 << 30; c.pixelHeight = 1 << 30; }), /maxTextureDimension2D|mip levels/);
    await refuse(edit((c) => { c.pixelWidth = 0; }), /KHR_texture_basisu needs a single 2D image/);
    await refuse(edit((c) => { c.faceCount = 6; }), /faces/);
    await refuse(edit((c) => { c.vkFormat = 37; }), /vkFormat 37/);
    await refuse(edit((c) => { c.pixelWidth = 4096; }), /mip levels|transcoder/);
    // A level index whose byte range lies past the end of the file.
    const lying = uastc.slice();
    const view = new DataView(lying.buffer);
    const LEVEL_INDEX = 80;
    view.setUint32(LEVEL_INDEX + 8, 0x7fffffff, true);
    await refuse(lying, /not a valid KTX2|transcoder/);
  });

  it('charges the transcoded levels to the load budget before allocating them', async () => {
    const budget = new LoadBudget(1 << 30, 0);
    const t = await transcodeKtx2(uastc, PATH, { features: new Set([FEATURE_BC]), srgb: true, maxDimension: 8192, budget });
    expect(budget.usedBytes).toBe(t.levels.reduce((n, l) => n + l.data.byteLength, 0));
    expect(budget.usedBytes).toBe(8 * 4 * 16 + 4 * 2 * 16 + 2 * 1 * 16 + 3 * 16);
    // RGBA8 costs four bytes a pixel, every level.
    const rgbaBudget = new LoadBudget(1 << 30, 0);
    await transcodeKtx2(uastc, PATH, { ...rgba(), budget: rgbaBudget });
    expect(rgbaBudget.usedBytes).toBe(4 * (32 * 16 + 16 * 8 + 8 * 4 + 4 * 2 + 2 * 1 + 1));
    const small = new LoadBudget(1000, 0);
    const e = await transcodeKtx2(uastc, PATH, { ...rgba(), budget: small }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(GltfError);
    expect((e as GltfError).path).toBe(PATH);
    expect((e as GltfError).problem).toMatch(/loading needs more than/);
    expect(small.usedBytes).toBe(0);
  });

  it('a small file claiming a huge image (a lying header) is refused by the budget before allocating, naming it', async () => {
    const single = await encodeKtx2(gradientImage(16, 16), { uastc: false, mipmaps: false });
    for (const side of [4096, 16384]) {
      const c = read(single);
      c.pixelWidth = side;
      c.pixelHeight = side;
      const lying = write(c);
      const budget = LoadBudget.forInput(lying.byteLength);
      const e = await transcodeKtx2(lying, PATH, { ...rgba(), maxDimension: 16384, budget }).catch((x: unknown) => x);
      expect(e, `${side}²`).toBeInstanceOf(GltfError);
      expect((e as GltfError).path).toBe(PATH);
      // The transcoder accepts the header (it checks level sizes only as it decodes them):
      // the budget refuses 64 MiB or 1 GiB of RGBA8 for a 0.4 KiB file before anything is allocated.
      expect((e as GltfError).problem).toMatch(/loading needs more than 16\.0 MiB .*asked\), the limit for 0\.\d KiB of input/);
      expect(budget.usedBytes).toBe(0);
    }
  });

  it('1,200 hostile headers, level indexes and DFDs give a GltfError naming the image or levels of exactly the right size, within the budget', async () => {
    // KTX2 layout: u32 fields from byte 12 (vkFormat … kvdByteLength), u64 sgd offset/length at
    // 64/72, then per level u64 byteOffset, byteLength, uncompressedByteLength from byte 80.
    const u32Fields = [12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 64, 72];
    const rng = new Rng(7);
    let refused = 0, transcoded = 0;
    for (const source of [etc1s, uastc]) {
      const levelFields = Array.from({ length: 6 * 3 }, (_, k) => 80 + 8 * k);
      for (let i = 0; i < 600; i++) {
        const bytes = source.slice();
        const view = new DataView(bytes.buffer);
        for (let m = 0; m <= rng.int(3); m++) {
          const hostile = [0, 1, 2, 3, 4, 0x7fffffff, 0xffffffff, bytes.length, bytes.length + 1, rng.u32(), rng.int(bytes.length), view.getUint32(rng.pick(u32Fields), true) * 2];
          if (rng.chance(0.3)) bytes[rng.int(Math.min(bytes.length, 400))] ^= 1 << rng.int(8);
          else view.setUint32(rng.chance(0.5) ? rng.pick(u32Fields) : rng.pick(levelFields), rng.pick(hostile), true);
        }
        const budget = LoadBudget.forInput(bytes.length);
        try {
          const t = await transcodeKtx2(bytes, PATH, { features: new Set(rng.chance(0.5) ? [FEATURE_BC] : []), srgb: true, maxDimension: 16384, budget });
          transcoded++;
          for (const level of t.levels) {
            const expected = t.blockBytes === 0 ? level.width * level.height * 4 : Math.ceil(level.width / 4) * Math.ceil(level.height / 4) * t.blockBytes;
            expect(level.data.byteLength).toBe(expected);
          }
        } catch (e) {
          expect(e, `case ${i}`).toBeInstanceOf(GltfError);
          expect((e as GltfError).path).toBe(PATH);
          refused++;
        }
        expect(budget.usedBytes).toBeLessThanOrEqual(budget.limit);
      }
    }
    expect(refused).toBeGreaterThan(600);
    expect(transcoded).toBeGreaterThan(0);
    expect((await transcodeKtx2(uastc, PATH, rgba())).levels.length).toBe(6);
  });

  it('bit flips in the data give a GltfError or an image, never a crash or a hang', async () => {
    let refused = 0;
    for (const source of [etc1s, uastc]) {
      for (let i = 0; i < 40; i++) {
        const bytes = source.slice();
        const at = (i * 7919) % bytes.length;
        bytes[at] ^= 1 << (i % 8);
        try {
          const t = await transcodeKtx2(bytes, PATH, { features: new Set([FEATURE_BC]), srgb: true, maxDimension: 64 });
          expect(t.levels[0].data.length).toBeGreaterThan(0);
        } catch (e) {
          expect(e).toBeInstanceOf(GltfError);
          refused++;
        }
      }
    }
    expect(refused).toBeGreaterThan(0);
    // The transcoder still works afterwards.
    expect((await transcodeKtx2(uastc, PATH, rgba())).levels.length).toBe(6);
  });
});
