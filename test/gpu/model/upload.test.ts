import { pbrShading, pbrTextures } from '../../../src/gpu/pipelines/pbr-path.ts';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ComponentType } from '../../../src/gltf/constants.ts';
import { createDefaultResources, jointsFormat, uploadModel, weightsFormat, type UploadContext } from '../../../src/gpu/model/upload.ts';
import { DrawFlag, MaterialTexture, VertexLocation } from '../../../src/gpu/layouts/bindings.ts';
import { MipmapGenerator } from '../../../src/gpu/textures/mipmaps.ts';
import { packMorphDeltas } from '../../../src/gpu/model/morph-targets.ts';
import { MeshPipelines } from '../../../src/gpu/pipelines/mesh.ts';
import { assetPath } from '../../support/assets.ts';
import { buildChain } from '../../support/fixtures.ts';
import { nodeImageDecoder } from '../../support/png.ts';
import { buildMaterialQuad, buildTwoJointStrip, solidPng } from '../fixtures.ts';
import { expectNoGpuErrors, loadModel, testDevice } from '../gpu-test.ts';

const accessor = (componentType: number, normalized = false) => ({ array: new Uint8Array(4), componentType: componentType as ComponentType, components: 4, count: 1, normalized });

describe('native vertex formats of skinning attributes', () => {
  it('JOINTS: uint8x4 / uint16x4', () => {
    expect(jointsFormat(accessor(ComponentType.UNSIGNED_BYTE))).toBe('uint8x4');
    expect(jointsFormat(accessor(ComponentType.UNSIGNED_SHORT))).toBe('uint16x4');
    expect(() => jointsFormat(accessor(ComponentType.FLOAT))).toThrow(/no WebGPU vertex format/);
  });

  it('WEIGHTS: float32x4 / unorm8x4 / unorm16x4', () => {
    expect(weightsFormat(accessor(ComponentType.FLOAT))).toBe('float32x4');
    expect(weightsFormat(accessor(ComponentType.UNSIGNED_BYTE, true))).toBe('unorm8x4');
    expect(weightsFormat(accessor(ComponentType.UNSIGNED_SHORT, true))).toBe('unorm16x4');
    expect(() => weightsFormat(accessor(ComponentType.UNSIGNED_BYTE))).toThrow(/no WebGPU vertex format/);
  });
});

const device = await testDevice();

describe.skipIf(!device)('uploadModel (Dawn)', () => {
  const gpu = device!;
  const pipelines = device ? new MeshPipelines(gpu) : undefined;
  const defaults = device ? createDefaultResources(gpu) : undefined;
  const ctx = () => ({ device: gpu, pipelines: pipelines!, mipmaps: new MipmapGenerator(gpu), imageDecoder: nodeImageDecoder, defaults: defaults! }) satisfies UploadContext;
  afterAll(() => defaults?.destroy());

  it('binds JOINTS/WEIGHTS in their file formats, without conversion', async () => {
    for (const [options, jf, wf] of [
      [{ joints: 'u8', weights: 'u8' }, 'uint8x4', 'unorm8x4'],
      [{ joints: 'u16', weights: 'u16' }, 'uint16x4', 'unorm16x4'],
      [{ joints: 'u16', weights: 'float' }, 'uint16x4', 'float32x4'],
    ] as const) {
      const model = await loadModel(buildTwoJointStrip(options), 'strip');
      expect(model.warnings).toEqual([]);
      const up = await expectNoGpuErrors(gpu, () => uploadModel(ctx(), model));
      const p = up.primitives[0][0];
      const byLocation = new Map(p.skinnedLayouts.flatMap((l) => l.attributes).map((a) => [a.shaderLocation, a.format]));
      expect(byLocation.get(VertexLocation.JOINTS_0)).toBe(jf);
      expect(byLocation.get(VertexLocation.WEIGHTS_0)).toBe(wf);
      const prim = model.meshes[0].primitives[0];
      // The bound ranges are the accessors' own bytes.
      expect(p.vertexSizes.slice(p.surfaceSlotCount)).toEqual([prim.jointSets[0].array.byteLength, prim.weightSets[0].array.byteLength]);
      up.destroy();
    }
  });

  it('supplies missing attributes from one stride-0 buffer, and stays within 8 vertex buffers with 8 influences', async () => {
    const model = await loadModel(buildChain({ eightInfluences: true, tangents: true }), 'chain');
    const up = await expectNoGpuErrors(gpu, () => uploadModel(ctx(), model));
    const p = up.primitives[0][0];
    expect(p.skinnedLayouts.length).toBeLessThanOrEqual(8);
    expect(p.influences).toBe(8);
    const defaultsLayout = p.skinnedLayouts[1];
    expect(defaultsLayout.arrayStride).toBe(0);
    // The chain has POSITION, NORMAL, TANGENT: texcoords and colour are defaults.
    expect(defaultsLayout.attributes.map((a) => a.shaderLocation).sort()).toEqual([VertexLocation.TEXCOORD_0, VertexLocation.TEXCOORD_1, VertexLocation.COLOR_0].sort());
    expect(p.skinnedLayouts[0].arrayStride).toBe((3 + 3 + 4) * 4);
    expect(p.skinnedLayoutKey).not.toBe(p.rigidLayoutKey);
    up.destroy();
  });

  it('uploads a textured asset: sRGB base colour, one sampler per glTF sampler, default material last', async () => {
    const model = await loadModel(new Uint8Array(readFileSync(assetPath('CesiumMan'))), 'CesiumMan');
    const up = await expectNoGpuErrors(gpu, () => uploadModel(ctx(), model));
    expect(up.materials.length).toBe(model.materials.length + 1);
    expect(up.materials[up.materials.length - 1].label).toMatch(/default material/);
    const p = up.primitives[0][0];
    expect(p.hasNormals).toBe(true);
    expect(p.indexFormat).toBe('uint16');
    expect(p.drawCount).toBe(model.meshes[0].primitives[0].indices!.length);
    up.destroy();
  });

  it('material shading: unlit binds (and uploads) its base colour texture only; spec-gloss reads its texture in the metallic-roughness slot', async () => {
    const textured = (extensions: Record<string, unknown>) => buildMaterialQuad((texture) => ({
      pbrMetallicRoughness: { baseColorTexture: { index: texture(solidPng([200, 10, 10, 255])) } },
      normalTexture: { index: texture(solidPng([128, 128, 255, 255])) },
      occlusionTexture: { index: texture(solidPng([255, 0, 0, 255])) },
      emissiveTexture: { index: texture(solidPng([10, 10, 10, 255])) },
      extensions,
    }));
    const T = MaterialTexture;
    const created = (bytes: Uint8Array) => async () => {
      const model = await loadModel(bytes, 'quad');
      let textures = 0;
      const original = gpu.createTexture.bind(gpu);
      gpu.createTexture = ((d: GPUTextureDescriptor) => { textures++; return original(d); }) as typeof gpu.createTexture;
      try {
        const up = await uploadModel(ctx(), model);
        up.destroy();
        return { material: up.materials[0], textures };
      } finally {
        gpu.createTexture = original;
      }
    };
    const lit = await expectNoGpuErrors(gpu, created(textured({})));
    expect([lit.material.path, pbrShading(lit.material.features), pbrTextures(lit.material.features), lit.textures]).toEqual(['pbr', 'pbr', T.BASE_COLOR | T.NORMAL | T.OCCLUSION | T.EMISSIVE, 4]);
    const unlit = await expectNoGpuErrors(gpu, created(textured({ KHR_materials_unlit: {} })));
    expect([pbrShading(unlit.material.features), pbrTextures(unlit.material.features), unlit.textures]).toEqual(['unlit', T.BASE_COLOR, 1]);
    const sg = await expectNoGpuErrors(gpu, created(buildMaterialQuad((texture) => ({
      extensions: { KHR_materials_pbrSpecularGlossiness: { specularGlossinessTexture: { index: texture(solidPng([10, 10, 10, 128])) } } },
    }))));
    expect([pbrShading(sg.material.features), pbrTextures(sg.material.features), sg.textures]).toEqual(['pbr-glossiness', T.METALLIC_ROUGHNESS, 1]);
  });

  it('Fox: non-indexed and without NORMAL; uploaded welded (434 distinct of 1728 corners) with an index buffer', async () => {
    const model = await loadModel(new Uint8Array(readFileSync(assetPath('Fox'))), 'Fox');
    const up = await expectNoGpuErrors(gpu, () => uploadModel(ctx(), model));
    const p = up.primitives[0][0];
    const own = model.meshes[0].primitives[0];
    expect(own.indices).toBeUndefined();
    expect(p.indexFormat).toBe('uint16');
    expect(p.drawCount).toBe(own.vertexCount);
    expect(p.vertexCount).toBe(434);
    expect(p.source.vertexCount).toBe(434);
    // Every corner keeps its exact position and skinning attributes.
    const welded = p.source;
    for (let v = 0; v < own.vertexCount; v++) {
      const u = welded.indices![v];
      for (let c = 0; c < 3; c++) expect(Object.is(welded.positions[u * 3 + c], own.positions[v * 3 + c])).toBe(true);
      for (let c = 0; c < 2; c++) expect(welded.texcoords0![u * 2 + c]).toBe(own.texcoords0![v * 2 + c]);
      for (let c = 0; c < 4; c++) {
        expect(welded.jointSets[0].array[u * 4 + c]).toBe(own.jointSets[0].array[v * 4 + c]);
        expect(welded.weightSets[0].array[u * 4 + c]).toBe(own.weightSets[0].array[v * 4 + c]);
      }
    }
    expect(p.hasNormals).toBe(false);
    expect(p.hasTangents).toBe(false);
    // No TANGENT, TEXCOORD_1 or COLOR_0: lean layouts, the same slots without those three defaults.
    const locations = (layouts: readonly GPUVertexBufferLayout[]) => layouts.map((l) => [...l.attributes].map((a) => a.shaderLocation).sort());
    const V = VertexLocation;
    expect(locations(p.leanSkinnedLayouts!)).toEqual(locations(p.skinnedLayouts).map((slot) => slot.filter((l) => l !== V.TANGENT && l !== V.TEXCOORD_1 && l !== V.COLOR_0)));
    expect(locations(p.leanSkinnedLayouts!).flat().sort((a, b) => a - b)).toEqual([V.POSITION, V.NORMAL, V.TEXCOORD_0, V.JOINTS_0, V.WEIGHTS_0]);
    expect(p.leanRigidLayouts!.length).toBe(p.surfaceSlotCount);
    expect(p.leanSkinnedLayouts!.map((l) => l.arrayStride)).toEqual(p.skinnedLayouts.map((l) => l.arrayStride));
    // Its one material has a base colour texture and no other.
    expect(pbrTextures(up.materials[model.meshes[0].primitives[0].material].features)).toBe(MaterialTexture.BASE_COLOR);
    expect(pbrTextures(up.materials[up.materials.length - 1].features)).toBe(0);
    up.destroy();
  });

  it('morph targets: every morphed primitive\'s deltas back to back in one storage buffer; none, a 16-byte placeholder', async () => {
    const robot = await loadModel(new Uint8Array(readFileSync(assetPath('RobotExpressive'))), 'RobotExpressive');
    const up = await expectNoGpuErrors(gpu, () => uploadModel(ctx(), robot));
    let floats = 0;
    robot.meshes.forEach((mesh, m) => mesh.primitives.forEach((prim, i) => {
      const p = up.primitives[m][i];
      if (prim.targets.length === 0) {
        expect(p.morphTargets).toBe(0);
        expect(p.morphFlags).toBe(0);
        return;
      }
      const block = packMorphDeltas(prim)!;
      expect(p.morphTargets).toBe(3);
      expect(p.morphFlags).toBe(DrawFlag.MORPH_POSITIONS);
      expect(p.morphBase, `meshes[${m}].primitives[${i}]`).toBe(floats);
      floats += block.floats.length;
    }));
    expect(floats).toBe((302 + 876 + 564) * 3 * 3);
    expect(up.morphDeltas.size).toBe(floats * 4);
    expect(up.morphDeltas.label).toMatch(/RobotExpressive morph deltas/);
    expect(up.morphDeltas.usage & GPUBufferUsage.STORAGE).toBeTruthy();
    up.destroy();
    const fox = await expectNoGpuErrors(gpu, async () => uploadModel(ctx(), await loadModel(new Uint8Array(readFileSync(assetPath('Fox'))), 'Fox')));
    expect(fox.morphDeltas.size).toBe(16);
    fox.destroy();
  });

  it('names the image when decoding fails', async () => {
    const model = await loadModel(new Uint8Array(readFileSync(assetPath('Fox'))), 'Fox');
    const failing = { ...ctx(), imageDecoder: async () => { throw new Error('boom'); } };
    await expect(uploadModel(failing, model)).rejects.toThrow(/Fox images\[0\] \(image\/png, used by materials\[0\]\.baseColorTexture\): could not decode: boom/);
  });
});
