/**
 * Material and texture extensions drawn on Dawn/SwiftShader: KHR_texture_transform on every
 * slot against the same texture pre-transformed on the CPU, KHR_materials_unlit's exact base
 * colour, KHR_materials_emissive_strength, KHR_materials_pbrSpecularGlossiness against its
 * metal-rough twin, and EXT_texture_webp's fallback to the plain source.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GltfMaterialJson } from '../../src/gltf/builder.ts';
import type { GltfWarning } from '../../src/gltf/errors.ts';
import { ToneMapping } from '../../src/gpu/layouts/bindings.ts';
import { defaultRenderSettings } from '../../src/gpu/frame/render-settings.ts';
import type { ImageDecoder } from '../../src/gpu/textures/textures.ts';
import { encodePng, nodeImageDecoder } from '../support/png.ts';
import { buildMaterialQuad, solidPng, type AddTexture } from './fixtures.ts';
import { expectNoGpuErrors, loadModel, OffscreenScene, pixel, testDevice, type Frame } from './gpu-test.ts';

const device = await testDevice();
const SIZE = 64;
const N = 8;

/** An N×N texture of distinct pseudo-random opaque colours. */
const PATTERN = (() => {
  const data = new Uint8Array(N * N * 4);
  let s = 12345;
  for (let i = 0; i < N * N; i++) {
    for (let c = 0; c < 3; c++) {
      s = (s * 1103515245 + 12345) >>> 0;
      data[i * 4 + c] = 40 + ((s >>> 16) % 200);
    }
    data[i * 4 + 3] = 255;
  }
  return data;
})();

interface Transform { offset: [number, number]; rotation: number; scale: [number, number] }

/**
 * `PATTERN` as the transform shows it: texel (x, y) holds the texel the spec's
 * T·R·S matrix maps its centre to (nearest, repeat). The transform maps each texel into one
 * texel of the source, so nearest sampling of either agrees everywhere but on edges.
 */
function pretransformed(t: Transform): Uint8Array {
  const c = Math.cos(t.rotation), s = Math.sin(t.rotation);
  const out = new Uint8Array(PATTERN.length);
  for (let y = 0; y < N; y++) {
    for (let x = 0; x < N; x++) {
      const u = ((x + 0.5) / N) * t.scale[0], v = ((y + 0.5) / N) * t.scale[1];
      const u2 = c * u + s * v + t.offset[0], v2 = -s * u + c * v + t.offset[1];
      const wrap = (a: number) => Math.floor((a - Math.floor(a)) * N);
      out.set(PATTERN.subarray((wrap(v2) * N + wrap(u2)) * 4, (wrap(v2) * N + wrap(u2)) * 4 + 4), (y * N + x) * 4);
    }
  }
  return out;
}

/** Pixels whose channels differ by more than `tolerance`, as a fraction of the frame. */
function differing(a: Frame, b: Frame, tolerance = 2): number {
  let n = 0;
  for (let i = 0; i < a.rgba.length; i += 4) {
    for (let c = 0; c < 4; c++) {
      if (Math.abs(a.rgba[i + c] - b.rgba[i + c]) > tolerance) { n++; break; }
    }
  }
  return n / (a.width * a.height);
}

const srgbToLinear = (b: number) => { const c = b / 255; return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
const linearToSrgb = (l: number) => Math.round(255 * (l <= 0.0031308 ? l * 12.92 : 1.055 * Math.pow(l, 1 / 2.4) - 0.055));

describe.skipIf(!device)('material and texture extensions (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  beforeAll(() => {
    scene = new OffscreenScene(gpu, SIZE, SIZE);
  });
  afterAll(() => scene?.destroy());

  async function render(bytes: Uint8Array, target = scene): Promise<Frame> {
    return expectNoGpuErrors(gpu, async () => {
      await target.setModelHeadOn(await loadModel(bytes, 'quad'), 2.6);
      return target.pose(-1, 0).render();
    });
  }

  const TRANSFORM: Transform = { offset: [0.25, 0.5], rotation: Math.PI / 2, scale: [0.5, 1] };
  /** Each slot's material around a texture (textureInfo fields merged in) and whether the quad needs tangents. */
  const SLOTS: Record<string, { material: (info: Record<string, unknown>) => GltfMaterialJson; tangents?: boolean }> = {
    baseColorTexture: { material: (info) => ({ pbrMetallicRoughness: { baseColorTexture: info as never, metallicFactor: 0, roughnessFactor: 1 } }) },
    metallicRoughnessTexture: { material: (info) => ({ pbrMetallicRoughness: { baseColorFactor: [0.8, 0.8, 0.8, 1], metallicRoughnessTexture: info as never } }) },
    normalTexture: { material: (info) => ({ pbrMetallicRoughness: { metallicFactor: 0, roughnessFactor: 0.4 }, normalTexture: info as never }), tangents: true },
    occlusionTexture: { material: (info) => ({ pbrMetallicRoughness: { baseColorFactor: [0.8, 0.8, 0.8, 1], metallicFactor: 0 }, occlusionTexture: info as never }) },
    emissiveTexture: { material: (info) => ({ pbrMetallicRoughness: { baseColorFactor: [0, 0, 0, 1], metallicFactor: 0 }, emissiveFactor: [1, 1, 1], emissiveTexture: info as never }) },
  };

  it.each(Object.keys(SLOTS))('KHR_texture_transform on %s draws what the CPU pre-transformed texture draws', async (slot) => {
    const { material, tangents } = SLOTS[slot];
    const quad = (pixels: Uint8Array, ext?: object) => buildMaterialQuad((texture: AddTexture) => material({
      index: texture(encodePng(N, N, pixels), { nearest: true }),
      ...(ext ? { extensions: { KHR_texture_transform: ext } } : {}),
    }), tangents);
    const transformed = await render(quad(PATTERN, TRANSFORM));
    const reference = await render(quad(pretransformed(TRANSFORM)));
    const untransformed = await render(quad(PATTERN));
    expect(differing(transformed, reference), 'transformed vs pre-transformed').toBeLessThan(0.03);
    expect(differing(transformed, untransformed), 'the transform changes the picture').toBeGreaterThan(0.15);
  });

  it('KHR_texture_transform texCoord override: a quad without TEXCOORD_1 reads the texel at the offset everywhere', async () => {
    const s = scene.renderer.settings;
    s.toneMapping = ToneMapping.NONE;
    try {
      const frame = await render(buildMaterialQuad((texture) => ({
        pbrMetallicRoughness: { baseColorTexture: { index: texture(encodePng(N, N, PATTERN), { nearest: true }), extensions: { KHR_texture_transform: { offset: [2.5 / N, 4.5 / N], texCoord: 1 } } } },
        extensions: { KHR_materials_unlit: {} },
      })));
      const texel = Array.from(PATTERN.subarray((4 * N + 2) * 4, (4 * N + 2) * 4 + 4));
      for (const [x, y] of [[SIZE / 2, SIZE / 2], [SIZE * 0.3, SIZE * 0.35], [SIZE * 0.7, SIZE * 0.6]]) {
        const p = pixel(frame, x, y);
        p.forEach((v, c) => expect(Math.abs(v - texel[c]), `(${x}, ${y}): ${p} vs texel ${texel}`).toBeLessThanOrEqual(1));
      }
    } finally {
      s.toneMapping = ToneMapping.PBR_NEUTRAL;
    }
  });

  it('KHR_materials_unlit draws the base colour exactly (factor × texture), whatever the lights', async () => {
    const s = scene.renderer.settings;
    s.toneMapping = ToneMapping.NONE;
    const factor = [0.25, 0.5, 1, 1], texel = [200, 100, 50, 255];
    const quad = (unlit: boolean) => buildMaterialQuad((texture) => ({
      pbrMetallicRoughness: { baseColorFactor: factor, baseColorTexture: { index: texture(solidPng(texel)) } },
      // Textures unlit ignores: they must neither show nor be needed.
      normalTexture: { index: texture(solidPng([255, 0, 0, 255])) },
      emissiveFactor: [1, 1, 1],
      emissiveTexture: { index: texture(solidPng([255, 255, 255, 255])) },
      ...(unlit ? { extensions: { KHR_materials_unlit: {} } } : {}),
    }));
    const expected = [0, 1, 2].map((c) => linearToSrgb(factor[c] * srgbToLinear(texel[c])));
    try {
      const lit = await render(quad(false));
      for (const dark of [false, true]) {
        if (dark) {
          s.lightIntensity = 0;
          s.skyColor.fill(0);
          s.groundColor.fill(0);
        }
        const frame = await render(quad(true));
        const p = pixel(frame, SIZE / 2, SIZE / 2);
        [0, 1, 2].forEach((c) => expect(Math.abs(p[c] - expected[c]), `unlit ${p} vs ${expected}${dark ? ' (no light)' : ''}`).toBeLessThanOrEqual(1));
        expect(p[3]).toBe(255);
      }
      expect(differing(lit, await render(quad(true))), 'the lit twin differs').toBeGreaterThan(0.3);
    } finally {
      const d = defaultRenderSettings();
      s.toneMapping = d.toneMapping;
      s.lightIntensity = d.lightIntensity;
      s.skyColor.set(d.skyColor);
      s.groundColor.set(d.groundColor);
    }
  });

  it('KHR_materials_emissive_strength multiplies the emissive factor and texture', async () => {
    const s = scene.renderer.settings;
    s.toneMapping = ToneMapping.NONE;
    const quad = (emissive: number[], strength?: number) => buildMaterialQuad((texture) => ({
      pbrMetallicRoughness: { baseColorFactor: [0, 0, 0, 1], metallicFactor: 0 },
      emissiveFactor: emissive,
      emissiveTexture: { index: texture(solidPng([188, 188, 188, 255])) },
      ...(strength !== undefined ? { extensions: { KHR_materials_emissive_strength: { emissiveStrength: strength } } } : {}),
    }));
    try {
      const strong = await render(quad([0.2, 0.1, 0.05], 4));
      const twin = await render(quad([0.8, 0.4, 0.2]));
      const weak = await render(quad([0.2, 0.1, 0.05]));
      expect(differing(strong, twin, 1)).toBe(0);
      expect(pixel(strong, SIZE / 2, SIZE / 2)[0] - pixel(weak, SIZE / 2, SIZE / 2)[0]).toBeGreaterThan(60);
      // The product may exceed the factor's [0, 1]: 0.8 × 2 is not clamped to 1 before the texel's 0.5.
      const over = await render(quad([0.8, 0.4, 0.2], 2));
      expect(pixel(over, SIZE / 2, SIZE / 2)[0]).toBeGreaterThan(pixel(twin, SIZE / 2, SIZE / 2)[0] + 40);
    } finally {
      s.toneMapping = ToneMapping.PBR_NEUTRAL;
    }
  });

  it('KHR_materials_pbrSpecularGlossiness renders like its converted metal-rough twin', async () => {
    // Glossiness in alpha; 0.6 × alpha is a whole byte for each, so the twin's roughness
    // texel 255 − 0.6·alpha holds 1 − 0.6·alpha/255 exactly.
    const alphas = [0, 85, 170, 255];
    const sg = new Uint8Array(4 * 4 * 4), mr = new Uint8Array(4 * 4 * 4);
    for (let i = 0; i < 16; i++) {
      const a = alphas[(i + (i >> 2)) % 4];
      sg.set([30 + i * 10, 200 - i * 5, 90, a], i * 4);
      mr.set([0, 255 - 0.6 * a, 0, 255], i * 4);
    }
    const diffuse = [0.7, 0.5, 0.3, 1];
    const specGloss = (glossiness: number) => buildMaterialQuad((texture) => ({
      extensions: {
        KHR_materials_pbrSpecularGlossiness: {
          diffuseFactor: diffuse, specularFactor: [0.04, 0.04, 0.04], glossinessFactor: glossiness,
          specularGlossinessTexture: { index: texture(encodePng(4, 4, sg), { nearest: true }) },
        },
      },
    }));
    const twin = buildMaterialQuad((texture) => ({
      pbrMetallicRoughness: { baseColorFactor: diffuse, metallicFactor: 0, roughnessFactor: 1, metallicRoughnessTexture: { index: texture(encodePng(4, 4, mr), { nearest: true }) } },
    }));
    const s = scene.renderer.settings;
    // A light near the view direction, so the highlight (where roughness shows most) is on the quad.
    const light = Float32Array.from(s.lightDirection);
    s.lightDirection.set([0.2, 0.3, 0.93]);
    try {
      const converted = await render(specGloss(0.6));
      expect(differing(converted, await render(twin), 1)).toBeLessThan(0.01);
      expect(differing(converted, await render(specGloss(0.1)), 2), 'glossiness shows').toBeGreaterThan(0.1);
    } finally {
      s.lightDirection.set(light);
    }
  });

  it('EXT_texture_webp: drawn when the decoder takes WebP; otherwise the plain source, with a warning', async () => {
    const red = solidPng([255, 0, 0, 255]), green = solidPng([0, 255, 0, 255]);
    // The "WebP" image holds PNG bytes under image/webp: the test decoders tell them apart by type only.
    const bytes = buildMaterialQuad((texture, b) => {
      const webp = b.addImage(green, 'image/webp');
      return {
        pbrMetallicRoughness: { baseColorTexture: { index: texture(red, { extensions: { EXT_texture_webp: { source: webp } } }) } },
        extensions: { KHR_materials_unlit: {} },
      };
    });
    const noWebp: ImageDecoder = async (image) => {
      if (image.mimeType === 'image/webp') throw new Error('this browser cannot decode WebP');
      return nodeImageDecoder(image);
    };
    const warnings: GltfWarning[] = [];
    const refusing = new OffscreenScene(gpu, SIZE, SIZE, 'rgba8unorm-srgb', { imageDecoder: noWebp, onWarning: (w) => warnings.push(w) });
    const taking = new OffscreenScene(gpu, SIZE, SIZE, 'rgba8unorm-srgb', { onWarning: (w) => warnings.push(w) });
    try {
      const withWebp = pixel(await render(bytes, taking), SIZE / 2, SIZE / 2);
      expect(warnings).toEqual([]);
      expect(withWebp[1]).toBeGreaterThan(200);
      expect(withWebp[0]).toBeLessThan(40);
      const fallback = pixel(await render(bytes, refusing), SIZE / 2, SIZE / 2);
      expect(fallback[0]).toBeGreaterThan(200);
      expect(fallback[1]).toBeLessThan(40);
      expect(warnings).toEqual([{
        path: 'materials[0].baseColorTexture',
        message: 'images[0] (image/webp) could not be decoded: this browser cannot decode WebP; drew images[1] instead',
      }]);
    } finally {
      refusing.destroy();
      taking.destroy();
    }
  });
});
