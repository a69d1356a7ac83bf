/**
 * Pipelines forecast from a file's JSON (src/gpu/draw/pipeline-forecast.ts, from
 * src/gltf/model-shape.ts): the forecast asks for exactly the pipelines the upload's first
 * draws ask for (same keys, so the same cached objects), a normal load compiles each once, and
 * a wrong forecast costs only its own compiles.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolveSkinningMethod, type SkinningMethod } from '../../../src/anim/skinning-method.ts';
import { readBesideFile } from '../../../src/cli/load-file.ts';
import { GltfBuilder } from '../../../src/gltf/builder.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import type { Model } from '../../../src/gltf/model.ts';
import type { ModelShape } from '../../../src/gltf/model-shape.ts';
import { createNodeDevice } from '../../../src/gpu/device/node-device.ts';
import { createDraws } from '../../../src/gpu/draw/draw-list.ts';
import { forecastDescs, mipmappedFormats, type ForecastContext } from '../../../src/gpu/draw/pipeline-forecast.ts';
import { createDefaultResources, uploadModel } from '../../../src/gpu/model/upload.ts';
import { materialFeaturesOf, materialPathOf, meshPipelineKey, meshVariantDesc, MeshPipelines, type MeshPipelineDesc } from '../../../src/gpu/pipelines/mesh.ts';
import { MipmapGenerator } from '../../../src/gpu/textures/mipmaps.ts';
import { COLOR_TEXTURE_FORMAT, DATA_TEXTURE_FORMAT } from '../../../src/gpu/textures/textures.ts';
import { assetPath, sharedAssets, sharedVrmFiles } from '../../support/assets.ts';
import { compressFile } from '../../support/compressed.ts';
import { encodePng, nodeImageDecoder } from '../../support/png.ts';
import { buildQuantizedQuad } from '../../support/quantized-fixture.ts';
import { countGpuCalls, expectNoGpuErrors, OffscreenScene, testDevice } from '../gpu-test.ts';

const device = await testDevice();
const FORMAT: GPUTextureFormat = 'rgba8unorm-srgb';
const SIZE = 64;

/** The model in `bytes` and the shape its JSON gave while loading (before its buffers were read). */
async function loadWithShape(bytes: Uint8Array, options: Parameters<typeof loadGltf>[1] = {}): Promise<{ model: Model; shape: ModelShape | undefined }> {
  let shape: ModelShape | undefined;
  let modelLoaded = false;
  let shapeBeforeModel = false;
  // onShape runs inside loadGltf: before its first await, or (a file whose material readers load
  // lazily, met first by this worker) once they have loaded, never after the model.
  const loading = loadGltf(bytes, { ...options, onShape: (s) => { shape = s; shapeBeforeModel = !modelLoaded; } });
  const model = await loading;
  modelLoaded = true;
  if (shape) expect(shapeBeforeModel).toBe(true);
  return { model, shape };
}

/** A file with what picks pipelines varied: integer-stored attributes, mirrored nodes (and a mirror undone), two skin sets, morphed normals, alpha modes, double sides, unlit. */
function variedFixture(): Uint8Array {
  const b = new GltfBuilder();
  const tri = Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0);
  const normals = Float32Array.of(0, 0, 1, 0, 0, 1, 0, 0, 1);
  const masked = b.addMaterial({ alphaMode: 'MASK', doubleSided: true, pbrMetallicRoughness: { baseColorFactor: [1, 0.5, 0.2, 1] } });
  const blended = b.addMaterial({ alphaMode: 'BLEND', extensions: { KHR_materials_unlit: {} } });
  b.json.extensionsUsed!.push('KHR_materials_unlit');
  const plain = b.addMesh({
    primitives: [{
      attributes: {
        POSITION: b.addAccessor(tri, 'VEC3', { minMax: true }),
        NORMAL: b.addAccessor(normals, 'VEC3'),
        COLOR_0: b.addAccessor(Uint8Array.of(255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255), 'VEC4', { normalized: true }),
        TEXCOORD_0: b.addAccessor(Uint16Array.of(0, 0, 65535, 0, 0, 65535), 'VEC2', { normalized: true }),
      },
      material: masked,
    }],
  });
  const skinned = b.addMesh({
    primitives: [{
      attributes: {
        POSITION: b.addAccessor(tri, 'VEC3', { minMax: true }),
        NORMAL: b.addAccessor(normals, 'VEC3'),
        JOINTS_0: b.addAccessor(new Uint8Array(12), 'VEC4'),
        WEIGHTS_0: b.addAccessor(Uint8Array.of(255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0), 'VEC4', { normalized: true }),
        JOINTS_1: b.addAccessor(new Uint16Array(12), 'VEC4'),
        WEIGHTS_1: b.addAccessor(new Float32Array(12), 'VEC4'),
      },
      targets: [{ NORMAL: b.addAccessor(new Float32Array(9), 'VEC3') }],
      material: blended,
    }],
    weights: [0],
  });
  const joint = b.addNode({ name: 'joint' });
  const skin = b.addSkin({ joints: [joint] });
  const mirrored = b.addNode({ mesh: plain, scale: [-1, 1, 1] });
  const undone = b.addNode({ mesh: plain, scale: [1, -1, 1] });
  const mirroringParent = b.addNode({ matrix: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1], children: [undone] });
  const upright = b.addNode({ mesh: plain });
  const skinnedNode = b.addNode({ mesh: skinned, skin });
  b.addScene({ nodes: [joint, mirrored, mirroringParent, upright, skinnedNode] });
  return b.toGlb();
}

/** The keys of the pipelines the upload's draws of `model` ask for first (DrawPipelineTable: `skinning`, shadows off, then on with `shadows`), outlines included. */
async function firstDrawKeys(gpu: GPUDevice, pipelines: MeshPipelines, model: Model, skinning: SkinningMethod, shadows: boolean): Promise<Set<string>> {
  const defaults = createDefaultResources(gpu);
  const uploaded = await uploadModel({ device: gpu, pipelines, mipmaps: new MipmapGenerator(gpu), imageDecoder: nodeImageDecoder, defaults }, model);
  try {
    const keys = new Set<string>();
    for (const d of createDraws(model, uploaded, FORMAT, -1).draws) {
      for (const s of shadows ? [false, true] : [false]) {
        const lit: MeshPipelineDesc = { ...d.desc, skinning, shadows: s };
        keys.add(meshPipelineKey(lit));
        if (materialPathOf(lit).outlines(materialFeaturesOf(lit))) keys.add(meshPipelineKey(meshVariantDesc(lit, 'outline')));
      }
    }
    return keys;
  } finally {
    uploaded.destroy();
    defaults.destroy();
  }
}

function forecastKeys(gpu: GPUDevice, pipelines: MeshPipelines, shape: ModelShape, skinning: SkinningMethod, shadows: boolean): Set<string> {
  const ctx: ForecastContext = { device: gpu, meshPipelines: pipelines, format: FORMAT, maxVertexBuffers: gpu.limits.maxVertexBuffers, mtoon: true, skinning, shadows };
  return new Set(forecastDescs(ctx, shape).map(meshPipelineKey));
}

describe.skipIf(!device)('the forecast asks for the pipelines the first draws ask for', () => {
  const gpu = device!;

  it('every shared asset, VRM 1.0 file, compressed variant and the varied fixture: the same keys (the Draco variant: none forecast)', async () => {
    const pipelines = new MeshPipelines(gpu);
    const files: { name: string; load: () => Promise<{ model: Model; shape: ModelShape | undefined }> }[] = [
      ...[...sharedAssets(), ...sharedVrmFiles()].map((a) => ({ name: a.name, load: async () => { const { bytes, options } = await readBesideFile(a.path); return loadWithShape(bytes, options); } })),
      ...(['quantized', 'meshopt', 'draco'] as const).map((v) => ({ name: `Fox (${v})`, load: async () => loadWithShape(await compressFile(assetPath('Fox'), v)) })),
      { name: 'quantized quad', load: () => loadWithShape(buildQuantizedQuad()) },
      { name: 'varied fixture', load: () => loadWithShape(variedFixture()) },
    ];
    let compared = 0;
    for (const file of files) {
      const { model, shape } = await file.load();
      if (file.name.endsWith('(draco)')) {
        expect(shape?.draws.length, file.name).toBe(0);
        continue;
      }
      if (!shape) {
        // VRM 0.x: its materials become MToon only after the VRM readers run.
        expect(model.vrm?.specVersion, file.name).toBe(0);
        continue;
      }
      for (const [skinning, shadows] of [['linear', false], ['dual-quaternion', true]] as const) {
        const expected = await expectNoGpuErrors(gpu, () => firstDrawKeys(gpu, pipelines, model, skinning, shadows));
        expect([...forecastKeys(gpu, pipelines, shape, skinning, shadows)].sort(), `${file.name} ${skinning}${shadows ? ' shadowed' : ''}`).toEqual([...expected].sort());
      }
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(14);
  }, 600_000);

  it('the varied fixture forecasts what varies: mirrored and undone nodes, integer storage, both skin sets, morph, alpha modes', async () => {
    const { shape } = await loadWithShape(variedFixture());
    const keys = [...forecastKeys(gpu, new MeshPipelines(gpu), shape!, 'linear', false)];
    // One mirrored draw of the plain mesh (cw) and one not (its own and the undone mirror share a key); the skinned one.
    expect(keys).toHaveLength(3);
    expect(keys.filter((k) => k.includes('|cw|'))).toHaveLength(1);
    // TEXCOORD_0 stays unorm16 (Primitive.quantized); COLOR_0, which the loader reads as floats, is float32.
    expect(keys.some((k) => k.includes('TEXCOORD_0=unorm16x2') && k.includes('COLOR_0') && !k.includes('COLOR_0=') && k.includes('|MASK|double|'))).toBe(true);
    expect(keys.some((k) => k.includes('j0:uint8x4 w0:unorm8x4') && k.includes('j1:uint16x4 w1:float32x4') && k.includes('|8|') && k.includes('|BLEND|') && k.includes('|morph|'))).toBe(true);
  });
});

describe('the mipmap formats forecast (mipmappedFormats)', () => {
  /** A file whose materials each have one texture: the given slot, alpha mode. */
  async function shapeOf(materials: { slot: 'baseColorTexture' | 'emissiveTexture' | 'normalTexture'; alphaMode: 'OPAQUE' | 'MASK' | 'BLEND' }[]): Promise<ModelShape> {
    const b = new GltfBuilder();
    const texture = b.addTexture({ source: b.addImage(encodePng(2, 2, new Uint8Array(16).fill(255)), 'image/png') });
    const mesh = b.addMesh({
      primitives: materials.map(({ slot, alphaMode }) => ({
        attributes: { POSITION: b.addAccessor(Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0), 'VEC3', { minMax: true }) },
        material: b.addMaterial(slot === 'baseColorTexture'
          ? { alphaMode, pbrMetallicRoughness: { baseColorTexture: { index: texture } } }
          : { alphaMode, [slot]: { index: texture } }),
      })),
    });
    b.addScene({ nodes: [b.addNode({ mesh })] });
    const { shape } = await loadWithShape(b.toGlb());
    return shape!;
  }

  it('where images arrive as pixels, only a MASK or BLEND base colour (a bitmap: it has alpha); else every textured slot\'s format', async () => {
    const opaque = await shapeOf([{ slot: 'baseColorTexture', alphaMode: 'OPAQUE' }, { slot: 'normalTexture', alphaMode: 'OPAQUE' }]);
    expect(mipmappedFormats(opaque, true)).toEqual([]);
    expect(mipmappedFormats(opaque, false)).toEqual([COLOR_TEXTURE_FORMAT, DATA_TEXTURE_FORMAT]);
    for (const alphaMode of ['MASK', 'BLEND'] as const) {
      expect(mipmappedFormats(await shapeOf([{ slot: 'baseColorTexture', alphaMode }]), true), alphaMode).toEqual([COLOR_TEXTURE_FORMAT]);
    }
    // An emissive texture of a blended material has no say in the material's alpha.
    expect(mipmappedFormats(await shapeOf([{ slot: 'emissiveTexture', alphaMode: 'BLEND' }]), true)).toEqual([]);
    expect(mipmappedFormats(await shapeOf([{ slot: 'emissiveTexture', alphaMode: 'BLEND' }]), false)).toEqual([COLOR_TEXTURE_FORMAT]);
  });
});

describe.skipIf(!device)('a load with the forecast compiles each pipeline once, and the first draw uses the forecast one', () => {
  /** Calls `gpu.createRenderPipelineAsync` makes for mesh pipelines (labels `mesh …`), counted from now. */
  function countMeshCompiles(gpu: GPUDevice): { readonly labels: string[]; restore(): void } {
    const original = gpu.createRenderPipelineAsync;
    const labels: string[] = [];
    gpu.createRenderPipelineAsync = (d: GPURenderPipelineDescriptor) => {
      if (d.label?.startsWith('mesh ')) labels.push(d.label);
      return original.call(gpu, d);
    };
    return { labels, restore: () => { gpu.createRenderPipelineAsync = original; } };
  }

  it('Fox on a fresh device: the forecast compiles its one pipeline; setModel and frames compile none; a frame is three writeBuffers and one submit', async () => {
    const gpu = await createNodeDevice({ label: 'forecast device' });
    const counter = countMeshCompiles(gpu);
    const scene = new OffscreenScene(gpu, SIZE, SIZE, FORMAT);
    try {
      const { model, shape } = await loadWithShape(readFileSync(assetPath('Fox')));
      expect(await scene.renderer.forecast(shape!)).toBe(1);
      expect(counter.labels).toHaveLength(1);
      await scene.setModel(model);
      expect(scene.renderer.pipelineCount).toBe(1);
      // The draws took the forecast pipeline (the cache's, by its key): nothing compiled since.
      expect(counter.labels).toHaveLength(1);
      await expectNoGpuErrors(gpu, () => scene.pose(0, 0.5).render());
      const calls = countGpuCalls(gpu, () => scene.renderer.render(scene.target, scene.camera, scene.instance));
      expect(calls.writeBuffer).toBe(3);
      expect(calls.submit).toBe(1);
      expect(calls.createRenderPipelineAsync ?? 0).toBe(0);
      expect(counter.labels).toHaveLength(1);
    } finally {
      counter.restore();
      scene.destroy();
      gpu.destroy();
    }
  }, 300_000);

  it('a wrong forecast (another file\'s JSON) costs its own compiles only: the model then compiles its own and draws the same frame', async () => {
    const gpu = await createNodeDevice({ label: 'wrong forecast device' });
    const counter = countMeshCompiles(gpu);
    const scenes = [new OffscreenScene(gpu, SIZE, SIZE, FORMAT), new OffscreenScene(gpu, SIZE, SIZE, FORMAT)];
    try {
      const fox = await loadWithShape(readFileSync(assetPath('Fox')));
      const other = await loadWithShape(readFileSync(assetPath('CesiumMan')));
      const wrong = await scenes[0].renderer.forecast(other.shape!);
      expect(wrong).toBeGreaterThan(0);
      expect(counter.labels).toHaveLength(wrong);
      await scenes[0].setModel(fox.model);
      expect(counter.labels).toHaveLength(wrong + 1);
      const withWrong = await expectNoGpuErrors(gpu, () => scenes[0].pose(0, 0.5).render());
      // A renderer without any forecast on the same device: the Fox's pipeline is cached, the frame is the same.
      await scenes[1].setModel(fox.model);
      const without = await expectNoGpuErrors(gpu, () => scenes[1].pose(0, 0.5).render());
      expect(counter.labels).toHaveLength(wrong + 1);
      expect(Buffer.compare(withWrong.rgba, without.rgba)).toBe(0);
      expect(resolveSkinningMethod(scenes[0].renderer.settings.skinning)).toBe('linear');
    } finally {
      counter.restore();
      for (const s of scenes) s.destroy();
      gpu.destroy();
    }
  }, 300_000);
});
