/**
 * KHR_texture_basisu drawn on Dawn/SwiftShader: an unlit quad whose base colour is a KTX2
 * (ETC1S and UASTC, encoded at test time) draws like the same quad with the PNG original,
 * in whichever compressed format the device offers and in the RGBA8 fallback; every
 * compressed format the device has decodes on the GPU, level by level, like the RGBA8
 * transcode; corrupt KTX2 falls back to the plain source with a warning, or fails naming
 * the image.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bakeModel } from '../../../src/bake/bake.ts';
import { GltfError, type GltfWarning } from '../../../src/gltf/errors.ts';
import { FEATURE_ASTC, FEATURE_BC, FEATURE_ETC2, transcodeKtx2 } from '../../../src/gpu/textures/ktx2-transcode.ts';
import { createKtx2Texture, isKtx2Image } from '../../../src/gpu/textures/ktx2-texture.ts';
import { assetPath } from '../../support/assets.ts';
import { encodeKtx2, gradientImage, ktx2Glb, ktx2Quad, pngQuad, type Rgba8Image } from '../../support/ktx2.ts';
import { encodePng } from '../../support/png.ts';
import { createOffscreenTarget, readTexturePixels } from '../../../src/gpu/device/readback.ts';
import { coverage, expectNoGpuErrors, loadModel, OffscreenScene, testDevice, type Frame } from '../gpu-test.ts';

const device = await testDevice();
const SIZE = 64;

/** Pixels whose channels differ by more than `tolerance`, as a fraction of the frame. */
function differing(a: Frame, b: Frame, tolerance: number): number {
  let n = 0;
  for (let i = 0; i < a.rgba.length; i += 4) {
    for (let c = 0; c < 3; c++) {
      if (Math.abs(a.rgba[i + c] - b.rgba[i + c]) > tolerance) { n++; break; }
    }
  }
  return n / (a.width * a.height);
}

const mirrored = (img: Rgba8Image): Rgba8Image => {
  const data = new Uint8Array(img.data.length);
  for (let y = 0; y < img.height; y++) for (let x = 0; x < img.width; x++) {
    data.set(img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 4), (y * img.width + img.width - 1 - x) * 4);
  }
  return { ...img, data };
};

describe.skipIf(!device)('KHR_texture_basisu (Dawn on SwiftShader)', () => {
  const gpu = device!;
  const warnings: GltfWarning[] = [];
  let scene: OffscreenScene;
  const image = gradientImage(32, 32);
  const png = encodePng(image.width, image.height, image.data);
  let etc1s: Uint8Array, uastc: Uint8Array;
  beforeAll(async () => {
    scene = new OffscreenScene(gpu, SIZE, SIZE, 'rgba8unorm-srgb', { onWarning: (w) => warnings.push(w) });
    etc1s = await encodeKtx2(image, { uastc: false });
    uastc = await encodeKtx2(image, { uastc: true });
  });
  afterAll(() => scene?.destroy());

  async function render(bytes: Uint8Array): Promise<Frame> {
    return expectNoGpuErrors(gpu, async () => {
      await scene.setModelHeadOn(await loadModel(bytes, 'quad'), 2.6);
      return scene.pose(-1, 0).render();
    });
  }

  it('the device was asked for every compression feature its adapter has', () => {
    const has = [FEATURE_BC, FEATURE_ETC2, FEATURE_ASTC].filter((f) => gpu.features.has(f));
    process.stderr.write(`KTX2 test device compression features: ${has.join(', ') || 'none'}\n`);
    expect(isKtx2Image({ name: undefined, mimeType: undefined, bytes: uastc })).toBe(true);
  });

  it.each([['UASTC', 6, 0.03], ['ETC1S', 16, 0.05]] as const)('%s base colour draws like the PNG original', async (kind, tolerance, fraction) => {
    warnings.length = 0;
    const ktx2 = kind === 'UASTC' ? uastc : etc1s;
    const reference = await render(pngQuad(png));
    // The plain source is the mirrored image: drawing it instead of the KTX2 would show.
    const mirror = mirrored(image);
    const frame = await render(ktx2Quad(ktx2, encodePng(mirror.width, mirror.height, mirror.data)));
    expect(warnings).toEqual([]);
    expect(differing(frame, reference, tolerance), 'KTX2 vs PNG').toBeLessThan(fraction);
    expect(differing(await render(pngQuad(encodePng(mirror.width, mirror.height, mirror.data))), reference, tolerance), 'the mirror differs').toBeGreaterThan(0.2);
  });

  it('RGBA8 fallback (a size that is not whole 4×4 blocks) draws like the PNG original', async () => {
    const odd = gradientImage(30, 30);
    const oddPng = encodePng(odd.width, odd.height, odd.data);
    const ktx2 = await encodeKtx2(odd, { uastc: true });
    expect((await transcodeKtx2(ktx2, 'images[0]', { features: gpu.features, srgb: true, maxDimension: 8192 })).format).toBe('rgba8unorm-srgb');
    warnings.length = 0;
    const frame = await render(ktx2Quad(ktx2, undefined));
    expect(warnings).toEqual([]);
    expect(differing(frame, await render(pngQuad(oddPng)), 6)).toBeLessThan(0.03);
  });

  /** Every texel of `texture`'s level `mip`, decoded by the GPU (textureLoad) into RGBA8 of the same encoding. */
  async function decodeOnGpu(texture: GPUTexture, mip: number): Promise<Uint8Array> {
    const srgb = texture.format.endsWith('-srgb');
    const format: GPUTextureFormat = srgb ? 'rgba8unorm-srgb' : 'rgba8unorm';
    const module = gpu.createShaderModule({
      label: 'ktx2 test texel copy',
      code: `
        @group(0) @binding(0) var t: texture_2d<f32>;
        @vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f {
          return vec4f(f32(i & 1u) * 4.0 - 1.0, f32(i >> 1u) * 4.0 - 1.0, 0.0, 1.0);
        }
        @fragment fn fs(@builtin(position) p: vec4f) -> @location(0) vec4f {
          return textureLoad(t, vec2i(p.xy), ${mip});
        }`,
    });
    const pipeline = gpu.createRenderPipeline({
      label: 'ktx2 test texel copy', layout: 'auto',
      vertex: { module, entryPoint: 'vs' }, fragment: { module, entryPoint: 'fs', targets: [{ format }] },
    });
    const width = Math.max(1, texture.width >> mip), height = Math.max(1, texture.height >> mip);
    const target = createOffscreenTarget(gpu, width, height, format, 'ktx2 test decoded level');
    const encoder = gpu.createCommandEncoder({ label: 'ktx2 test texel copy' });
    const pass = encoder.beginRenderPass({ label: 'ktx2 test texel copy', colorAttachments: [{ view: target.createView(), loadOp: 'clear', storeOp: 'store', clearValue: [0, 0, 0, 0] }] });
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, gpu.createBindGroup({ label: 'ktx2 test texel copy', layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: texture.createView() }] }));
    pass.draw(3);
    pass.end();
    gpu.queue.submit([encoder.finish()]);
    const pixels = await readTexturePixels(gpu, target);
    target.destroy();
    return pixels;
  }

  it('every compressed format the device has decodes, level by level, like the RGBA8 transcode of the same file', async () => {
    const formats: string[] = [];
    for (const feature of [FEATURE_BC, FEATURE_ETC2, FEATURE_ASTC].filter((f) => gpu.features.has(f))) {
      for (const [bytes, srgb] of [[uastc, true], [etc1s, false], [uastc, false], [etc1s, true]] as const) {
        const reference = await transcodeKtx2(bytes, 'images[0]', { features: new Set(), srgb, maxDimension: 8192 });
        const t = await transcodeKtx2(bytes, 'images[0]', { features: new Set([feature]), srgb, maxDimension: 8192 });
        if (t.blockBytes === 0) continue; // ETC1S has no ASTC target (as in three.js)
        formats.push(t.format);
        await expectNoGpuErrors(gpu, async () => {
          const texture = createKtx2Texture(gpu, t, 'ktx2 test');
          expect([texture.format, texture.mipLevelCount, texture.width, texture.height]).toEqual([t.format, 6, 32, 32]);
          for (let mip = 0; mip < t.levels.length; mip++) {
            const decoded = await decodeOnGpu(texture, mip);
            const expected = reference.levels[mip].data;
            let sum = 0, max = 0;
            for (let i = 0; i < expected.length; i++) { const d = Math.abs(decoded[i] - expected[i]); sum += d; max = Math.max(max, d); }
            // ASTC and BC7 hold UASTC (and ETC1 holds ETC1S) nearly exactly; UASTC re-encoded as
            // ETC2 loses chroma detail (ETC blocks vary in luminance only), most in the small levels.
            const lossy = t.format.startsWith('etc2-rgba8') && bytes === uastc;
            const [meanLimit, maxLimit] = lossy ? [mip === 0 ? 4 : 20, 128] : [1.5, 4];
            expect(sum / expected.length, `${t.format} level ${mip}: mean difference`).toBeLessThan(meanLimit);
            expect(max, `${t.format} level ${mip}: largest difference`).toBeLessThanOrEqual(maxLimit);
          }
          texture.destroy();
        });
      }
    }
    process.stderr.write(`KTX2 formats decoded on the GPU: ${formats.join(', ')}\n`);
    expect(formats.length).toBeGreaterThan(0);
  });

  it('CesiumMan with its texture as UASTC KTX2 (the only source) draws and bakes like the original', async () => {
    const original = new Uint8Array(readFileSync(assetPath('CesiumMan')));
    const variant = await ktx2Glb(original);
    const frames: Frame[] = [];
    const models = [];
    // Large enough that the 1024² texture is not reduced to its last few mip levels.
    const big = new OffscreenScene(gpu, 256, 256);
    try {
      for (const bytes of [original, variant]) {
        const model = await loadModel(bytes, 'CesiumMan');
        models.push(model);
        frames.push(await expectNoGpuErrors(gpu, async () => {
          big.camera.yaw = 0.6;
          big.camera.pitch = 0.15;
          await big.setModel(model);
          return big.pose(0, 0.5).render();
        }));
      }
    } finally {
      big.destroy();
    }
    expect(models[1].images.map((i) => i.mimeType)).toEqual(['image/ktx2']);
    expect(models[1].textures[0].source).toBe(-1);
    expect(coverage(frames[0])).toBeGreaterThan(0.05);
    let sum = 0, covered = 0;
    for (let i = 0; i < frames[0].rgba.length; i += 4) {
      if (frames[0].rgba[i + 3] === 0 && frames[1].rgba[i + 3] === 0) continue;
      covered++;
      for (let c = 0; c < 3; c++) sum += Math.abs(frames[0].rgba[i + c] - frames[1].rgba[i + c]);
    }
    // Same geometry; the texture differs by UASTC's error and the encoder's own mip filter.
    expect(sum / (covered * 3), 'mean RGB difference over drawn pixels').toBeLessThan(3);
    // The bake reads no texture: the same vertices (glTF-Transform's rewrite of the file may
    // change the order of float sums, so up to rounding).
    const [a, b] = models.map((m) => bakeModel(m, { time: 0.5 }));
    expect(b.primitives.length).toBe(a.primitives.length);
    a.primitives.forEach((p, i) => {
      expect(b.primitives[i].positions.length).toBe(p.positions.length);
      let worst = 0;
      for (let k = 0; k < p.positions.length; k++) worst = Math.max(worst, Math.abs(p.positions[k] - b.primitives[i].positions[k]));
      expect(worst).toBeLessThan(1e-9);
    });
  }, 120_000);

  it('a corrupt KTX2 falls back to the plain source with a warning, or fails naming the image', async () => {
    const corrupt = uastc.slice(0, 200);
    warnings.length = 0;
    const reference = await render(pngQuad(png));
    const frame = await render(ktx2Quad(corrupt, png));
    expect(differing(frame, reference, 2)).toBeLessThan(0.01);
    expect(warnings).toHaveLength(1);
    expect(warnings[0].path).toBe('materials[0].baseColorTexture');
    expect(warnings[0].message).toMatch(/^images\[0\]: not a valid KTX2 file: .*; falling back to images\[1\]$/);
    const error = await render(ktx2Quad(corrupt, undefined)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GltfError);
    expect((error as GltfError).path).toBe('images[0]');
    expect((error as Error).message).toMatch(/used by materials\[0\]\.baseColorTexture/);
  });

  it('transcoded bytes are charged to the model\'s load budget: one the load nearly used up refuses the KTX2, naming it', async () => {
    const model = await loadModel(ktx2Quad(uastc, undefined), 'quad');
    const state = model.loadBudget!;
    expect(state.usedBytes).toBeGreaterThan(0);
    expect(state.usedBytes).toBeLessThan(state.limit);
    // Room for the quad's vertex data only: 32×32 RGBA8 or BC7 levels do not fit.
    const starved = { ...model, loadBudget: { ...state, usedBytes: state.limit - 256 } };
    const error = await expectNoGpuErrors(gpu, () => scene.setModel(starved).catch((e: unknown) => e));
    expect(error).toBeInstanceOf(GltfError);
    expect((error as GltfError).path).toBe('images[0]');
    expect((error as GltfError).problem).toMatch(/loading needs more than .*used by materials\[0\]\.baseColorTexture/);
    // The same model with its budget as loaded draws.
    await expectNoGpuErrors(gpu, () => scene.setModel(model));
  });
});
