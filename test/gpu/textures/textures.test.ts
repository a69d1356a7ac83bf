import { describe, expect, it } from 'vitest';
import { SamplerFilter, SamplerWrap } from '../../../src/gltf/constants.ts';
import { MipmapGenerator, mipLevelCount } from '../../../src/gpu/textures/mipmaps.ts';
import { readTexturePixels } from '../../../src/gpu/device/readback.ts';
import { CPU_MIPMAP_MAX_TEXELS, createImageTexture, samplerDescriptor } from '../../../src/gpu/textures/textures.ts';
import { decodeImageBytes, encodePng } from '../../support/png.ts';
import { countGpuCalls, expectNoGpuErrors, testDevice } from '../gpu-test.ts';

describe('samplerDescriptor (glTF sampler → GPUSamplerDescriptor)', () => {
  it('maps the wrap modes by their glTF enum values', () => {
    expect(SamplerWrap).toEqual({ CLAMP_TO_EDGE: 33071, MIRRORED_REPEAT: 33648, REPEAT: 10497 });
    const d = samplerDescriptor({ wrapS: SamplerWrap.CLAMP_TO_EDGE, wrapT: SamplerWrap.MIRRORED_REPEAT, magFilter: undefined, minFilter: undefined }, 's');
    expect([d.addressModeU, d.addressModeV]).toEqual(['clamp-to-edge', 'mirror-repeat']);
    const r = samplerDescriptor({ wrapS: SamplerWrap.REPEAT, wrapT: SamplerWrap.REPEAT, magFilter: undefined, minFilter: undefined }, 's');
    expect([r.addressModeU, r.addressModeV]).toEqual(['repeat', 'repeat']);
  });

  it('defaults to repeat and trilinear filtering without a sampler', () => {
    expect(samplerDescriptor(undefined, 'default')).toMatchObject({
      label: 'default', addressModeU: 'repeat', addressModeV: 'repeat', magFilter: 'linear', minFilter: 'linear', mipmapFilter: 'linear',
    });
  });

  it('maps every filter; non-mipmapped minFilters sample level 0 only', () => {
    const f = (minFilter: number, magFilter: number = SamplerFilter.LINEAR) => samplerDescriptor({ wrapS: SamplerWrap.REPEAT, wrapT: SamplerWrap.REPEAT, minFilter, magFilter }, 's');
    expect(f(SamplerFilter.NEAREST, SamplerFilter.NEAREST)).toMatchObject({ magFilter: 'nearest', minFilter: 'nearest', lodMaxClamp: 0 });
    expect(f(SamplerFilter.LINEAR)).toMatchObject({ minFilter: 'linear', lodMaxClamp: 0 });
    expect(f(SamplerFilter.NEAREST_MIPMAP_NEAREST)).toMatchObject({ minFilter: 'nearest', mipmapFilter: 'nearest' });
    expect(f(SamplerFilter.LINEAR_MIPMAP_NEAREST)).toMatchObject({ minFilter: 'linear', mipmapFilter: 'nearest' });
    expect(f(SamplerFilter.NEAREST_MIPMAP_LINEAR)).toMatchObject({ minFilter: 'nearest', mipmapFilter: 'linear' });
    expect(f(SamplerFilter.LINEAR_MIPMAP_LINEAR)).toMatchObject({ minFilter: 'linear', mipmapFilter: 'linear' });
    expect(f(SamplerFilter.LINEAR_MIPMAP_LINEAR).lodMaxClamp).toBeUndefined();
  });
});

describe('mipLevelCount', () => {
  it('counts levels down to 1×1', () => {
    expect([mipLevelCount(1, 1), mipLevelCount(2, 2), mipLevelCount(256, 64), mipLevelCount(300, 20)]).toEqual([1, 2, 9, 9]);
  });
});

const device = await testDevice();

/** A black/white checkerboard of 1-texel squares, `size`×`size`. */
function checker(size: number): Uint8Array {
  const data = new Uint8Array(size * size * 4);
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) data.set((x + y) % 2 ? [255, 255, 255, 255] : [0, 0, 0, 255], (y * size + x) * 4);
  return data;
}

/** A MipmapGenerator that counts the textures it is asked to draw levels for. */
class CountingMipmaps extends MipmapGenerator {
  drawn: string[] = [];
  override generate(texture: GPUTexture): void {
    this.drawn.push(texture.label);
    super.generate(texture);
  }
}

/** Pixels whose channels vary independently (every level below 0 differs from a plain copy). */
function noise(width: number, height: number, opaque = true): Uint8Array {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < data.length; i++) data[i] = i % 4 === 3 && opaque ? 255 : (Math.imul(i + 3, 2654435761) >>> 24);
  return data;
}

describe.skipIf(!device)('image textures and their mipmaps (Dawn)', () => {
  const gpu = device!;
  it('averages in linear light on sRGB textures and in stored values on linear ones', async () => {
    const png = encodePng(8, 8, checker(8));
    const decoded = decodeImageBytes(png);
    expect(decoded.width).toBe(8);
    await expectNoGpuErrors(gpu, async () => {
      const mipmaps = new MipmapGenerator(gpu);
      const srgb = createImageTexture(gpu, mipmaps, decoded, true, 'checker sRGB');
      const linear = createImageTexture(gpu, mipmaps, decoded, false, 'checker linear');
      expect(srgb.mipLevelCount).toBe(4);
      expect(srgb.format).toBe('rgba8unorm-srgb');
      expect(linear.format).toBe('rgba8unorm');
      // Level 0 holds the file's bytes unchanged.
      expect(Array.from(await readTexturePixels(gpu, srgb, 0))).toEqual(Array.from(checker(8)));
      // Half black, half white: linear 0.5 everywhere below level 0, stored as sRGB 188 or as 128.
      for (const level of [1, 3]) {
        const s = await readTexturePixels(gpu, srgb, level);
        const l = await readTexturePixels(gpu, linear, level);
        expect(Math.abs(s[0] - 188), `sRGB level ${level}: ${s[0]}`).toBeLessThanOrEqual(2);
        expect(Math.abs(l[0] - 128), `linear level ${level}: ${l[0]}`).toBeLessThanOrEqual(2);
        expect(s[3]).toBe(255);
      }
      srgb.destroy();
      linear.destroy();
    });
  });

  it('box-filters a power-of-two image\'s levels on the CPU, within a rounding of what the GPU generator draws, down to 1×1, alpha or not', async () => {
    await expectNoGpuErrors(gpu, async () => {
      // Opaque, and with every alpha (the generator weights colour by nothing; neither do these levels).
      for (const [srgb, pixels] of [true, false].flatMap((srgb) => [true, false].map((opaque) => [srgb, { width: 64, height: 16, data: noise(64, 16, opaque) }] as const))) {
        let texture!: GPUTexture, mipmaps!: CountingMipmaps;
        const calls = countGpuCalls(gpu, () => {
          mipmaps = new CountingMipmaps(gpu);
          texture = createImageTexture(gpu, mipmaps, pixels, srgb, `noise ${srgb ? 'sRGB' : 'linear'}`);
        });
        expect(mipmaps.drawn, 'textures whose levels were drawn').toEqual([]);
        // Nothing of the generator is made (MipmapGenerator makes its module and layouts at its first draw).
        expect([calls.createShaderModule ?? 0, calls.createRenderPipeline ?? 0, calls.createBindGroup ?? 0]).toEqual([0, 0, 0]);
        // The same level 0, levels drawn by the generator (shaders/mipmap.wgsl).
        const drawn = gpu.createTexture({
          label: 'noise drawn', size: [64, 16], format: texture.format, mipLevelCount: texture.mipLevelCount,
          usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST | GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC,
        });
        gpu.queue.writeTexture({ texture: drawn }, pixels.data, { bytesPerRow: 64 * 4 }, [64, 16]);
        new MipmapGenerator(gpu).generate(drawn);
        expect(texture.mipLevelCount).toBe(7);
        for (let level = 0; level < texture.mipLevelCount; level++) {
          const cpu = await readTexturePixels(gpu, texture, level), gpuLevel = await readTexturePixels(gpu, drawn, level);
          const worst = cpu.reduce((m, v, i) => Math.max(m, Math.abs(v - gpuLevel[i])), 0);
          // A mean exactly between two bytes may round either way (test/browser/texture-upload.test.ts).
          expect(worst, `${texture.format} level ${level}`).toBeLessThanOrEqual(level === 0 ? 0 : 1);
        }
        texture.destroy();
        drawn.destroy();
      }
    });
  });

  it('draws the levels of an odd-sized image, and of one larger than CPU_MIPMAP_MAX_TEXELS, on the GPU', async () => {
    await expectNoGpuErrors(gpu, async () => {
      const mipmaps = new CountingMipmaps(gpu);
      const side = Math.sqrt(CPU_MIPMAP_MAX_TEXELS);
      const images = [
        { label: 'odd', width: 6, height: 4 },
        { label: 'largest on the CPU', width: side, height: side },
        { label: 'larger', width: 2 * side, height: side },
      ];
      for (const { label, width, height } of images) {
        createImageTexture(gpu, mipmaps, { width, height, data: new Uint8Array(width * height * 4).fill(255) }, true, label).destroy();
      }
      expect(mipmaps.drawn).toEqual(['odd', 'larger']);
    });
  });
});
