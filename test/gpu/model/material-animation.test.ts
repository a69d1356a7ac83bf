/**
 * KHR_animation_pointer material tracks on the GPU (src/gpu/model/material-animation.ts): the
 * packed values match upload-time packing, an animated base colour draws the colour of the
 * time (Dawn on SwiftShader), an animated UV offset draws what a static one does, and a frame
 * writes the animated materials' uniforms (one buffer) only when their values change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MaterialAnimation } from '../../../src/anim/material-tracks.ts';
import type { GltfBuilder } from '../../../src/gltf/builder.ts';
import { MATERIAL_ANIM_FLOATS } from '../../../src/gltf/extensions/khr-animation-pointer.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { MaterialUniformAnimator } from '../../../src/gpu/model/material-animation.ts';
import { packAnimatedValues } from '../../../src/gpu/layouts/material-uniforms.ts';
import { packAnimatedExtensionValues, PBR_EXTENSION_UNIFORMS_SIZE, PbrExtensionUniformsOffset, writePbrExtensionUniforms } from '../../../src/gpu/layouts/pbr-extension-uniforms.ts';
import { MATERIAL_UNIFORMS_SIZE, packMaterialUniforms } from '../../../src/gpu/layouts/material-uniforms.ts';
import { ToneMapping } from '../../../src/gpu/layouts/bindings.ts';
import { addPointerAnimation, type PointerTrack } from '../../support/animation-pointer.ts';
import { measureAllocation } from '../../support/allocation.ts';
import { everyPbrExtension, PBR_EXTENSION_NAMES } from '../../support/pbr-materials.ts';
import { encodePng } from '../../support/png.ts';
import { buildMaterialQuad, type AddTexture } from '../fixtures.ts';
import { countGpuCalls, expectNoGpuErrors, loadModel, OffscreenScene, pixel, testDevice, type Frame } from '../gpu-test.ts';

const SIZE = 48;
const linearToSrgb = (l: number) => Math.round(255 * (l <= 0.0031308 ? l * 12.92 : 1.055 * Math.pow(l, 1 / 2.4) - 0.055));
const BASE_COLOR = '/materials/0/pbrMetallicRoughness/baseColorFactor';
/** Red at 0 s, blue at 1 s, green at 2 s. */
const COLOUR_TRACK: PointerTrack = { pointer: BASE_COLOR, input: Float32Array.of(0, 1, 2), output: Float32Array.of(1, 0, 0, 1, 0, 0, 1, 1, 0, 1, 0, 1), type: 'VEC4' };
/** A 2×1 texture: red texel left, blue right. */
const TWO_TEXELS = encodePng(2, 1, Uint8Array.of(255, 0, 0, 255, 0, 0, 255, 255));

/**
 * The unlit quad of fixtures.ts, its material made by `material` and animated by `tracks`.
 * `others` materials (unlit green) come before the quad's, so the quad's is materials[others].
 */
function animatedQuad(tracks: readonly PointerTrack[], material: (texture: AddTexture) => Record<string, unknown> = () => ({}), others = 0): Uint8Array {
  return buildMaterialQuad((texture, b: GltfBuilder) => {
    for (let i = 0; i < others; i++) b.addMaterial({ pbrMetallicRoughness: { baseColorFactor: [0, 1, 0, 1] }, extensions: { KHR_materials_unlit: {} } });
    if (tracks.length > 0) addPointerAnimation(b, 'animated', tracks);
    b.json.extensionsUsed!.push('KHR_materials_unlit');
    return { extensions: { KHR_materials_unlit: {} }, ...material(texture) };
  });
}

describe('packAnimatedValues', () => {
  it('packs a material\'s own values as upload does (factors, emissive × strength, every slot\'s UV matrix)', async () => {
    const t = (texture: AddTexture, rotation: number) => ({
      index: texture(TWO_TEXELS), extensions: { KHR_texture_transform: { offset: [0.25, -0.5], rotation, scale: [2, 0.5] } },
    });
    const model = await loadGltf(buildMaterialQuad((texture, b) => {
      addPointerAnimation(b, 'a', [COLOUR_TRACK]);
      b.json.extensionsUsed!.push('KHR_materials_emissive_strength');
      return {
        pbrMetallicRoughness: { baseColorFactor: [0.1, 0.2, 0.3, 0.4], baseColorTexture: t(texture, 0.5), metallicRoughnessTexture: t(texture, 1) },
        normalTexture: t(texture, 1.5), occlusionTexture: t(texture, -1), emissiveTexture: t(texture, 2),
        emissiveFactor: [0.5, 0.25, 1], alphaMode: 'MASK', alphaCutoff: 0.3,
        extensions: { KHR_materials_emissive_strength: { emissiveStrength: 3 } },
      };
    }, true));
    const m = new MaterialAnimation(model);
    m.evaluate();
    const expected = new Float32Array(packMaterialUniforms(model.materials[0]));
    const packed = new Float32Array(MATERIAL_UNIFORMS_SIZE / 4).fill(NaN);
    packAnimatedValues(m.values, 0, packed, 0);
    let written = 0;
    expected.forEach((e, i) => {
      if (Number.isNaN(packed[i])) return; // not an animated field: upload's value stays
      written++;
      // UV matrices come from the rotation as a 32-bit float here, as a double at upload.
      expect(Math.abs(packed[i] - e), `float ${i}: ${packed[i]} vs ${e}`).toBeLessThan(1e-6);
    });
    // Base colour 4, emissive 3, alpha cutoff 1, five 3×2 UV matrices.
    expect(written).toBe(4 + 3 + 1 + 5 * 6);
    expect(m.values.length).toBe(MATERIAL_ANIM_FLOATS);
  });
});

describe('packAnimatedExtensionValues', () => {
  it('packs a material\'s own extension factors as upload does (every animatable one, the anisotropy rotation as its direction)', async () => {
    // Every extension on the quad, one of its factors animated so the material is an animated one.
    const model = await loadGltf(buildMaterialQuad((texture, b) => {
      const white = texture(TWO_TEXELS);
      addPointerAnimation(b, 'coat', [{ pointer: '/materials/0/extensions/KHR_materials_clearcoat/clearcoatFactor', input: Float32Array.of(0, 1), output: Float32Array.of(0.8, 0.8), type: 'SCALAR' }]);
      b.json.extensionsUsed!.push(...PBR_EXTENSION_NAMES);
      return { extensions: everyPbrExtension(() => white) };
    }, true));
    expect(model.warnings).toEqual([]);
    const m = new MaterialAnimation(model);
    m.evaluate();
    const expected = new Float32Array(PBR_EXTENSION_UNIFORMS_SIZE / 4);
    writePbrExtensionUniforms(model.materials[0], expected, new Uint32Array(expected.buffer), 0);
    const packed = new Float32Array(PBR_EXTENSION_UNIFORMS_SIZE / 4).fill(NaN);
    packAnimatedExtensionValues(m.values, 0, packed, 0);
    const O = PbrExtensionUniformsOffset;
    let written = 0;
    expected.forEach((e, i) => {
      if (Number.isNaN(packed[i])) return;
      written++;
      expect(Math.abs(packed[i] - e), `float ${i}: ${packed[i]} vs ${e}`).toBeLessThan(1e-6);
    });
    // Specular colour, sheen colour, attenuation colour, diffuse transmission colour (3 each), the
    // anisotropy direction (2) and 14 single factors; the normal scale, UV sets and transforms are not animatable.
    expect(written).toBe(4 * 3 + 2 + 15);
    expect(Number.isNaN(packed[O.CLEARCOAT_NORMAL_SCALE / 4])).toBe(true);
    // Wrong input: another material's values differ (the comparison could fail).
    const other = new Float32Array(PBR_EXTENSION_UNIFORMS_SIZE / 4);
    writePbrExtensionUniforms({ ...model.materials[0], ior: 1.2 }, other, new Uint32Array(other.buffer), 0);
    expect(Math.abs(packed[O.IOR / 4] - other[O.IOR / 4])).toBeGreaterThan(0.1);
  });
});

describe('MaterialUniformAnimator', () => {
  it('writes all animated materials with one writeBuffer when their values changed, allocating nothing', async () => {
    const model = await loadGltf(animatedQuad([{ ...COLOUR_TRACK, pointer: BASE_COLOR.replace('/0/', '/2/') }, COLOUR_TRACK], undefined, 2));
    const buffer = {} as GPUBuffer;
    const animator = new MaterialUniformAnimator({ buffer, stride: 256, materials: Int32Array.of(0, 2), paths: ['pbr', 'pbr'] }, model.materials);
    // Integers only in the stub (a double kept in a closure would be boxed).
    let writes = 0, bytes = 0, elsewhere = 0;
    const queue = { writeBuffer: (target: GPUBuffer, at: number, _data: ArrayBuffer, offset: number, size: number) => {
      if (target !== buffer || at !== 0 || offset !== 0) elsewhere++;
      writes++;
      bytes = size;
    } } as unknown as GPUQueue;
    const values = new MaterialAnimation(model);
    values.clip = 0;
    values.evaluate();
    animator.write(queue, values);
    animator.write(queue, values);
    expect([writes, bytes]).toEqual([1, 2 * 256]);
    let frames = 0, calls = 0;
    const frame = (): void => {
      calls++;
      if (++frames === 120) frames = 0;
      values.time = frames / 60;
      values.evaluate();
      animator.write(queue, values);
    };
    const { rounds, clean } = await measureAllocation(frame, 20_000, 64 * 1024);
    expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
    // One write per frame, counted (how many frames fit the warm-up depends on the machine's speed).
    expect(calls).toBeGreaterThanOrEqual(2 * 20_000);
    expect(writes).toBe(1 + calls);
    expect(elsewhere).toBe(0);
  });
});

const device = await testDevice();

describe.skipIf(!device)('animated materials drawn (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  beforeAll(() => {
    scene = new OffscreenScene(gpu, SIZE, SIZE);
    scene.renderer.settings.toneMapping = ToneMapping.NONE;
  });
  afterAll(() => scene?.destroy());

  async function show(bytes: Uint8Array): Promise<void> {
    await scene.setModelHeadOn(await loadModel(bytes, 'quad'), 2.6);
  }
  const centre = (f: Frame) => pixel(f, SIZE / 2, SIZE / 2);

  it.each([0, 2])('an animated baseColorFactor draws the colour of the time (%i other animated materials before it)', async (others) => {
    // The other materials' tracks hold them grey: their uniforms share the buffer, the quad's comes after theirs.
    const grey = (m: number): PointerTrack => ({ pointer: `/materials/${m}/pbrMetallicRoughness/baseColorFactor`, input: Float32Array.of(0), output: Float32Array.of(0.5, 0.5, 0.5, 1), type: 'VEC4' });
    const tracks = [...Array.from({ length: others }, (_, m) => grey(m)), { ...COLOUR_TRACK, pointer: `/materials/${others}/pbrMetallicRoughness/baseColorFactor` }];
    await expectNoGpuErrors(gpu, async () => {
      await show(animatedQuad(tracks, undefined, others));
      expect(scene.renderer.model!.materials).toHaveLength(others + 1);
      for (const [time, rgb] of [[0, [1, 0, 0]], [0.5, [0.5, 0, 0.5]], [0.75, [0.25, 0, 0.75]], [1, [0, 0, 1]], [1.5, [0, 0.5, 0.5]], [2, [0, 1, 0]], [0.25, [0.75, 0, 0.25]]] as const) {
        const p = centre(await scene.pose(0, time).render());
        rgb.forEach((c, i) => expect(Math.abs(p[i] - linearToSrgb(c)), `t=${time}: ${p} vs linear ${rgb}`).toBeLessThanOrEqual(1));
      }
      // The rest pose draws the material's own factor (white).
      expect(centre(await scene.pose(-1, 0).render()).slice(0, 3)).toEqual([255, 255, 255]);
    });
  });

  it('an animated KHR_texture_transform offset draws what the same static offset draws', async () => {
    const material = (offset?: number[]) => (texture: AddTexture) => ({
      pbrMetallicRoughness: {
        baseColorTexture: { index: texture(TWO_TEXELS, { nearest: true }), ...(offset ? { extensions: { KHR_texture_transform: { offset } } } : {}) },
      },
    });
    const offsetTrack: PointerTrack = {
      pointer: '/materials/0/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/offset',
      input: Float32Array.of(0, 1), output: Float32Array.of(0, 0, 0.5, 0), type: 'VEC2',
    };
    await expectNoGpuErrors(gpu, async () => {
      await show(animatedQuad([], material([0.5, 0])));
      const still = await scene.pose(-1, 0).render();
      await show(animatedQuad([], material()));
      const plain = await scene.pose(-1, 0).render();
      await show(animatedQuad([offsetTrack], material()));
      const start = await scene.pose(0, 0).render();
      const end = await scene.pose(0, 1).render();
      expect(Array.from(end.rgba)).toEqual(Array.from(still.rgba));
      expect(Array.from(start.rgba)).toEqual(Array.from(plain.rgba));
      expect(Array.from(end.rgba)).not.toEqual(Array.from(start.rgba));
    });
  });

  it('the frame path: one more writeBuffer for all animated materials, only when their values change', async () => {
    const frames = 5;
    await expectNoGpuErrors(gpu, async () => {
      // The same quad without material animation: the frame's own writeBuffers.
      await show(animatedQuad([]));
      scene.pose(-1, 0).renderer.render(scene.target, scene.camera, scene.instance);
      const plain = countGpuCalls(gpu, () => {
        for (let f = 0; f < frames; f++) scene.pose(-1, 0).renderer.render(scene.target, scene.camera, scene.instance);
      });
      expect(plain.submit).toBe(frames);
      const own = plain.writeBuffer;
      // Two animated materials: still one writeBuffer.
      await show(animatedQuad([{ ...COLOUR_TRACK, pointer: BASE_COLOR.replace('/0/', '/1/') }, COLOUR_TRACK], undefined, 1));
      scene.pose(0, 0).renderer.render(scene.target, scene.camera, scene.instance);
      const moving = countGpuCalls(gpu, () => {
        for (let f = 1; f <= frames; f++) scene.pose(0, f * 0.1).renderer.render(scene.target, scene.camera, scene.instance);
      });
      expect(moving).toEqual({ writeBuffer: own + frames, submit: frames, createCommandEncoder: frames });
      // Held at one time: written on the first frame there only.
      const still = countGpuCalls(gpu, () => {
        for (let f = 1; f <= frames; f++) scene.pose(0, 0.75).renderer.render(scene.target, scene.camera, scene.instance);
      });
      expect(still).toEqual({ writeBuffer: own + 1, submit: frames, createCommandEncoder: frames });
      await gpu.queue.onSubmittedWorkDone();
    });
  });
});
