/**
 * Which extensions a material is drawn with (inert ones stay on the plain PBR path, so such a
 * material pays nothing), the device's texture budget, and the upload of extended materials.
 */
import { describe, expect, it } from 'vitest';
import { loadGltf } from '../../../src/gltf/load.ts';
import type { Material } from '../../../src/gltf/model.ts';
import { PbrExtensionFeature as F } from '../../../src/gpu/layouts/pbr-extension-uniforms.ts';
import { DEFAULT_MATERIAL } from '../../../src/gpu/layouts/material-uniforms.ts';
import { activePbrExtensions, extensionTextureBudget, PBR_EXTENSIONS_UPLOADER } from '../../../src/gpu/model/pbr-extensions-material.ts';
import { uploadModel, createDefaultResources } from '../../../src/gpu/model/upload.ts';
import { MeshPipelines } from '../../../src/gpu/pipelines/mesh.ts';
import { mipmapGenerator } from '../../../src/gpu/textures/mipmaps.ts';
import { extensionFeatures, extensionTextures } from '../../../src/gpu/pipelines/pbr-extensions-path.ts';
import { nodeImageDecoder } from '../../support/png.ts';
import { everyExtensionQuad } from '../../support/pbr-fuzz.ts';
import { sphereGlb } from '../../support/spheres.ts';
import { expectNoGpuErrors, testDevice } from '../gpu-test.ts';

const device = await testDevice();
const m = (extra: Partial<Material>): Material => ({ ...DEFAULT_MATERIAL, ...extra });

describe('activePbrExtensions: what changes how a material looks', () => {
  it('inert values are left out: factor 0, white specular 1, IOR 1.5, no thickness, no transmission to hold a volume', () => {
    expect(activePbrExtensions(m({
      ior: 1.5, specular: { factor: 1, colorFactor: [1, 1, 1], texture: undefined, colorTexture: undefined },
      clearcoat: { factor: 0, texture: { index: 0, texCoord: 0, scale: 1 }, roughnessFactor: 0, roughnessTexture: undefined, normalTexture: undefined },
      sheen: { colorFactor: [0, 0, 0], colorTexture: undefined, roughnessFactor: 0.5, roughnessTexture: undefined },
      volume: { thicknessFactor: 1, thicknessTexture: undefined, attenuationDistance: 1, attenuationColor: [1, 0, 0] },
      dispersion: 1,
    }), false)).toBe(0);
  });

  it('each extension at a value that shows is drawn; volume and dispersion only with what they change', () => {
    expect(activePbrExtensions(m({ ior: 1.4 }), false)).toBe(F.IOR);
    expect(activePbrExtensions(m({ ior: 0 }), false)).toBe(F.IOR);
    expect(activePbrExtensions(m({ specular: { factor: 1, colorFactor: [1, 1, 1], texture: { index: 0, texCoord: 0, scale: 1 }, colorTexture: undefined } }), false)).toBe(F.SPECULAR);
    const transmission = { factor: 0.5, texture: undefined };
    const volume = { thicknessFactor: 0.2, thicknessTexture: undefined, attenuationDistance: Infinity, attenuationColor: [1, 1, 1] as const };
    expect(activePbrExtensions(m({ transmission, volume, dispersion: 0.5 }), false)).toBe(F.TRANSMISSION | F.VOLUME | F.DISPERSION);
    expect(activePbrExtensions(m({ transmission, dispersion: 0.5 }), false)).toBe(F.TRANSMISSION);
    expect(activePbrExtensions(m({ diffuseTransmission: { factor: 0.5, texture: undefined, colorFactor: [1, 1, 1], colorTexture: undefined }, volume }), false)).toBe(F.DIFFUSE_TRANSMISSION | F.VOLUME);
  });

  it('an animated material keeps every extension it has (a clip may raise a factor from 0); unlit draws none', () => {
    const coat = { factor: 0, texture: undefined, roughnessFactor: 0, roughnessTexture: undefined, normalTexture: undefined };
    expect(activePbrExtensions(m({ clearcoat: coat }), false)).toBe(0);
    expect(activePbrExtensions(m({ clearcoat: coat }), true)).toBe(F.CLEARCOAT);
    expect(activePbrExtensions(m({ ior: 2, shading: 'unlit' }), true)).toBe(0);
  });
});

describe('the texture budget', () => {
  it('a device of 16 sampled textures per stage leaves the last extension textures out, each with a warning naming it', async () => {
    const model = await loadGltf(everyExtensionQuad());
    const material = model.materials[0];
    const warnings: { path: string; message: string }[] = [];
    const small = { limits: { maxSampledTexturesPerShaderStage: 16 } } as unknown as GPUDevice;
    // 16 − 4 (frame) − 5 (core) − the sheen table − the transmitted scene.
    expect(extensionTextureBudget(small, activePbrExtensions(material, false))).toBe(5);
    const drawn = PBR_EXTENSIONS_UPLOADER.prepare!(material, { device: small, animated: false, warn: (path, message) => warnings.push({ path, message }) }, 'materials[0]');
    expect(extensionTextures(PBR_EXTENSIONS_UPLOADER.features(drawn)).toString(2).split('1').length - 1).toBe(5);
    expect(warnings).toHaveLength(14 - 5);
    expect(warnings[0]).toEqual({ path: 'materials[0].extensions.KHR_materials_diffuse_transmission.diffuseTransmissionColorTexture', message: expect.stringMatching(/may sample 16 textures on this device/) });
    // The five kept are the first slots: clearcoat's three and specular's two; sheen's colour is the last left out.
    expect(warnings.at(-1)!.path).toBe('materials[0].extensions.KHR_materials_sheen.sheenColorTexture');
    // A device of 32 (what the renderer asks for where the adapter has it) draws all fourteen.
    const large = { limits: { maxSampledTexturesPerShaderStage: 32 } } as unknown as GPUDevice;
    const all = PBR_EXTENSIONS_UPLOADER.prepare!(material, { device: large, animated: false, warn: () => expect.fail('no warning') }, 'materials[0]');
    expect(extensionTextures(PBR_EXTENSIONS_UPLOADER.features(all))).toBe((1 << 14) - 1);
  });
});

describe.skipIf(!device)('uploading extended materials', () => {
  const gpu = device!;
  const upload = async (bytes: Uint8Array) => {
    const model = await loadGltf(bytes);
    return expectNoGpuErrors(gpu, () => uploadModel({
      device: gpu, pipelines: new MeshPipelines(gpu), mipmaps: mipmapGenerator(gpu), imageDecoder: nodeImageDecoder, defaults: createDefaultResources(gpu),
    }, model));
  };

  it('a material whose extensions are all inert is uploaded and drawn exactly as the plain material (same path and features)', async () => {
    const plain = await upload(sphereGlb({ pbrMetallicRoughness: { roughnessFactor: 0.5 } }));
    const inert = await upload(sphereGlb({
      pbrMetallicRoughness: { roughnessFactor: 0.5 },
      extensions: { KHR_materials_ior: { ior: 1.5 }, KHR_materials_specular: {}, KHR_materials_clearcoat: { clearcoatFactor: 0 } },
    }, { extensionsUsed: ['KHR_materials_ior', 'KHR_materials_specular', 'KHR_materials_clearcoat'] }));
    expect([inert.materials[0].path, inert.materials[0].features]).toEqual([plain.materials[0].path, plain.materials[0].features]);
    expect(plain.materials[0].path).toBe('pbr');
    plain.destroy();
    inert.destroy();
  });

  it('a material with every extension uploads on the extensions path with every texture, no warning, no WebGPU error', async () => {
    const gpuModel = await upload(everyExtensionQuad());
    const material = gpuModel.materials[0];
    expect(material.path).toBe('pbr-extensions');
    expect(extensionFeatures(material.features)).toBe((1 << 10) - 1);
    expect(extensionTextures(material.features)).toBe((1 << 14) - 1);
    expect(gpuModel.warnings).toEqual([]);
    gpuModel.destroy();
  });
});
