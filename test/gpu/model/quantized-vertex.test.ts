import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccessorData, ComponentArray } from '../../../src/gltf/accessors.ts';
import { ComponentType } from '../../../src/gltf/constants.ts';
import type { Model, Primitive } from '../../../src/gltf/model.ts';
import { createModelInstance } from '../../../src/anim/instance.ts';
import { computeInstanceBounds } from '../../../src/gpu/frame/bounds.ts';
import { loadGltfFile } from '../../../src/cli/load-file.ts';
import { createDefaultResources, uploadModel, type UploadContext } from '../../../src/gpu/model/upload.ts';
import { VertexLocation } from '../../../src/gpu/layouts/bindings.ts';
import { MipmapGenerator } from '../../../src/gpu/textures/mipmaps.ts';
import { MeshPipelines } from '../../../src/gpu/pipelines/mesh.ts';
import { buildGeometryBuffer, quantizedVertexFormat, type GeometryAttribute } from '../../../src/gpu/model/quantized-vertex.ts';
import { sharedAssets } from '../../support/assets.ts';
import { compressFile, type CompressedVariant } from '../../support/compressed.ts';
import { nodeImageDecoder } from '../../support/png.ts';
import { buildQuantizedQuad } from '../../support/quantized-fixture.ts';
import { coverage, expectNoGpuErrors, loadModel, OffscreenScene, testDevice, type Frame } from '../gpu-test.ts';

const data = (array: ComponentArray, componentType: number, components: number, normalized: boolean): AccessorData => ({
  array, componentType: componentType as ComponentType, components, count: array.length / components, normalized,
});

describe('quantizedVertexFormat: the WebGPU format that dequantizes as glTF does', () => {
  it('maps normalized 8/16-bit VEC2 to ×2 and VEC3/VEC4 to ×4 formats', () => {
    const cases: [number, number, GPUVertexFormat][] = [
      [ComponentType.BYTE, 2, 'snorm8x2'], [ComponentType.BYTE, 3, 'snorm8x4'], [ComponentType.BYTE, 4, 'snorm8x4'],
      [ComponentType.UNSIGNED_BYTE, 2, 'unorm8x2'], [ComponentType.UNSIGNED_BYTE, 3, 'unorm8x4'],
      [ComponentType.SHORT, 2, 'snorm16x2'], [ComponentType.SHORT, 3, 'snorm16x4'], [ComponentType.SHORT, 4, 'snorm16x4'],
      [ComponentType.UNSIGNED_SHORT, 2, 'unorm16x2'], [ComponentType.UNSIGNED_SHORT, 3, 'unorm16x4'],
    ];
    for (const [type, components, format] of cases) {
      expect(quantizedVertexFormat(data(new Uint8Array(components * 2), type, components, true), components as 2 | 3 | 4)).toBe(format);
    }
  });

  it('has none for unnormalized integers or floats (those are uploaded as float32)', () => {
    expect(quantizedVertexFormat(data(new Int16Array(3), ComponentType.SHORT, 3, false), 3)).toBeUndefined();
    expect(quantizedVertexFormat(data(new Uint8Array(2), ComponentType.UNSIGNED_BYTE, 2, false), 2)).toBeUndefined();
    expect(quantizedVertexFormat(data(new Float32Array(3), ComponentType.FLOAT, 3, false), 3)).toBeUndefined();
  });
});

describe('buildGeometryBuffer', () => {
  const attrs: GeometryAttribute[] = [
    { location: VertexLocation.POSITION, name: 'POSITION', components: 3, data: (p) => p.positions },
    { location: VertexLocation.NORMAL, name: 'NORMAL', components: 3, data: (p) => p.normals },
    { location: VertexLocation.TEXCOORD_0, name: 'TEXCOORD_0', components: 2, data: (p) => p.texcoords0 },
    { location: VertexLocation.TEXCOORD_1, name: 'TEXCOORD_1', components: 2, data: (p) => p.texcoords1 },
  ];
  const positions = Int16Array.of(-32767, 0, 32767, 100, -100, 5);
  const normals = Int8Array.of(127, 0, 0, 0, -127, 0);
  const uv0 = Uint16Array.of(0, 65535, 1000, 2000);
  const uv1 = Uint8Array.of(1, 2, 3, 4);
  const floats = (a: ArrayLike<number>, scale: number) => Float32Array.from(a, (v) => Math.max(v * scale, -1));
  const prim = (quantized: boolean) => ({
    vertexCount: 2,
    positions: floats(positions, 1 / 32767), normals: floats(normals, 1 / 127), texcoords0: floats(uv0, 1 / 65535), texcoords1: Float32Array.from(uv1),
    ...(quantized && {
      quantized: {
        POSITION: data(positions, ComponentType.SHORT, 3, true), NORMAL: data(normals, ComponentType.BYTE, 3, true),
        TEXCOORD_0: data(uv0, ComponentType.UNSIGNED_SHORT, 2, true), TEXCOORD_1: data(uv1, ComponentType.UNSIGNED_BYTE, 2, false),
      },
    }),
  }) as unknown as Primitive;

  it('keeps normalized attributes in their storage, 4-byte aligned, and widens unnormalized ones to float32', () => {
    const g = buildGeometryBuffer(prim(true), attrs);
    expect(g.attributes).toEqual([
      { shaderLocation: VertexLocation.POSITION, format: 'snorm16x4', offset: 0 },
      { shaderLocation: VertexLocation.NORMAL, format: 'snorm8x4', offset: 8 },
      { shaderLocation: VertexLocation.TEXCOORD_0, format: 'unorm16x2', offset: 12 },
      { shaderLocation: VertexLocation.TEXCOORD_1, format: 'float32x2', offset: 16 },
    ]);
    expect(g.stride).toBe(24);
    expect(g.key).toBe('g24:POSITION=snorm16x4,NORMAL=snorm8x4,TEXCOORD_0=unorm16x2,TEXCOORD_1');
    const dv = new DataView(g.bytes.buffer, g.bytes.byteOffset, g.bytes.byteLength);
    for (let v = 0; v < 2; v++) {
      const o = v * 24;
      expect([0, 1, 2, 3].map((c) => dv.getInt16(o + c * 2, true))).toEqual([...positions.slice(v * 3, v * 3 + 3), 0]);
      expect([0, 1, 2, 3].map((c) => dv.getInt8(o + 8 + c))).toEqual([...normals.slice(v * 3, v * 3 + 3), 0]);
      expect([0, 1].map((c) => dv.getUint16(o + 12 + c * 2, true))).toEqual([...uv0.slice(v * 2, v * 2 + 2)]);
      expect([0, 1].map((c) => dv.getFloat32(o + 16 + c * 4, true))).toEqual([...uv1.slice(v * 2, v * 2 + 2)]);
    }
  });

  it('gives a float-only primitive the float32 layout and key it always had', () => {
    const g = buildGeometryBuffer(prim(false), attrs);
    expect(g.attributes.map((a) => a.format)).toEqual(['float32x3', 'float32x3', 'float32x2', 'float32x2']);
    expect(g.stride).toBe(40);
    expect(g.key).toBe('g40:POSITION,NORMAL,TEXCOORD_0,TEXCOORD_1');
    expect(Array.from(new Float32Array(g.bytes.buffer, 0, 3))).toEqual(Array.from(prim(false).positions.slice(0, 3)));
  });
});

const device = await testDevice();
const ASSETS = sharedAssets();
const SIZE = 128;
const VARIANTS: readonly CompressedVariant[] = ['quantized', 'meshopt'];

/** A channel further off than this (of 255) makes a pixel "far" (as test/gpu/compressed-assets-render.test.ts counts). */
const FAR_LEVELS = 24;

/**
 * Pixels covered in one frame and not the other, the mean RGB difference where both are
 * covered, and the share of those with a channel off by more than FAR_LEVELS.
 */
function difference(a: Frame, b: Frame): { coverageOnlyOne: number; meanRgb: number; far: number } {
  let onlyOne = 0, both = 0, rgb = 0, far = 0;
  for (let i = 0; i < a.rgba.length; i += 4) {
    const ca = a.rgba[i + 3] === 255, cb = b.rgba[i + 3] === 255;
    if (ca !== cb) onlyOne++;
    else if (ca) {
      both++;
      let worst = 0;
      for (let c = 0; c < 3; c++) {
        const d = Math.abs(a.rgba[i + c] - b.rgba[i + c]);
        rgb += d;
        worst = Math.max(worst, d);
      }
      if (worst > FAR_LEVELS) far++;
    }
  }
  return { coverageOnlyOne: onlyOne, meanRgb: rgb / Math.max(1, both * 3), far: far / Math.max(1, both) };
}

describe.skipIf(!device)('quantized variants on the GPU (Dawn)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  let pipelines: MeshPipelines;
  let defaults: ReturnType<typeof createDefaultResources>;
  const ctx = () => ({ device: gpu, pipelines, mipmaps: new MipmapGenerator(gpu), imageDecoder: nodeImageDecoder, defaults }) satisfies UploadContext;
  beforeAll(() => {
    scene = new OffscreenScene(gpu, SIZE, SIZE);
    pipelines = new MeshPipelines(gpu);
    defaults = createDefaultResources(gpu);
  });
  afterAll(() => {
    scene?.destroy();
    defaults?.destroy();
  });

  it('a quad of unnormalized SHORT positions, BYTE normals, SHORT tangents, UNSIGNED_BYTE UVs draws like its float twin', async () => {
    const [floatQuad, quantizedQuad] = await Promise.all([loadModel(buildQuantizedQuad(true), 'float quad'), loadModel(buildQuantizedQuad(), 'quantized quad')]);
    await expectNoGpuErrors(gpu, async () => {
      const up = await uploadModel(ctx(), quantizedQuad);
      const formats = new Map(up.primitives[0][0].rigidLayouts[0].attributes.map((a) => [a.shaderLocation, a.format]));
      // Unnormalized integers have no float vertex format: widened to float32 (quantized-vertex.ts).
      expect(formats.get(VertexLocation.POSITION)).toBe('float32x3');
      expect(formats.get(VertexLocation.TEXCOORD_0)).toBe('float32x2');
      expect(formats.get(VertexLocation.NORMAL)).toBe('snorm8x4');
      expect(formats.get(VertexLocation.TANGENT)).toBe('snorm16x4');
      // 12 + 4 + 8 + 8 bytes, where the float twin takes 12 + 12 + 16 + 8.
      expect(up.bytesPerVertex).toBe(32);
      up.destroy();
      const twin = await uploadModel(ctx(), floatQuad);
      expect(twin.bytesPerVertex).toBe(48);
      twin.destroy();
    });
    const frames: Frame[] = [];
    for (const [i, model] of [floatQuad, quantizedQuad].entries()) {
      await expectNoGpuErrors(gpu, async () => {
        await scene.setModel(model, i === 0);
        frames.push(await scene.pose(-1, 0).render());
      });
    }
    expect(coverage(frames[0])).toBeGreaterThan(0.05);
    // The same values reach the shaders, so the frames are identical.
    expect(difference(frames[0], frames[1])).toEqual({ coverageOnlyOne: 0, meanRgb: 0, far: 0 });
  });

  /**
   * Each asset's original, loaded, drawn and uploaded once for both variants: its frame (framed
   * on it, at the pose the variants are drawn in) and its GPU bytes per vertex.
   */
  const originals = new Map<string, Promise<{ model: Model; frame: Frame; bytesPerVertex: number }>>();
  const original = (path: string): Promise<{ model: Model; frame: Frame; bytesPerVertex: number }> => {
    let loaded = originals.get(path);
    if (!loaded) {
      originals.set(path, loaded = (async () => {
        const model = await loadGltfFile(path);
        return expectNoGpuErrors(gpu, async () => {
          await scene.setModel(model);
          const frame = await scene.pose(...poseOf(model)).render();
          const upload = await uploadModel(ctx(), model);
          const bytesPerVertex = upload.bytesPerVertex;
          upload.destroy();
          return { model, frame, bytesPerVertex };
        });
      })());
    }
    return loaded;
  };
  /** The same pose for the original and its variants: its first clip at 0.37 of its length, or the rest pose. */
  const poseOf = (model: Model): [number, number] => (model.animations.length > 0 ? [0, model.animations[0].duration * 0.37] : [-1, 0]);

  for (const asset of ASSETS) {
    for (const variant of VARIANTS) {
      it(`${asset.name}, ${variant}: fewer bytes per vertex in unorm/snorm formats, and drawn like the original`, async () => {
        const base = await original(asset.path);
        const quantized = await loadModel(await compressFile(asset.path, variant), asset.name);
        // The same pose from the same camera (framed on the original).
        const frames: Frame[] = [base.frame];
        await expectNoGpuErrors(gpu, async () => {
          await scene.setModel(quantized, false);
          scene.camera.frame(computeInstanceBounds(createModelInstance(base.model)), 1);
          frames.push(await scene.pose(...poseOf(base.model)).render());
        });
        const covered = coverage(frames[0]) * SIZE * SIZE;
        expect(covered, 'the original is drawn').toBeGreaterThan(50);
        const d = difference(frames[0], frames[1]);
        // Quantization moves silhouettes by well under a pixel (tests in
        // test/gltf/extensions/khr-mesh-quantization.test.ts bound the vertices), so only edge
        // pixels may flip (at most 6 of 4856 measured); 8-bit normals shift shading by under a
        // level on average (0.83 at most measured), and few pixels by more than 24 levels. (These
        // are the checks of every shared asset's meshopt and quantized variants; Chromium draws
        // the Draco and KTX2 ones, decoded in the page's workers: compressed-assets-render.test.ts.)
        expect(d.coverageOnlyOne, `pixels covered in one frame only (of ${covered.toFixed(0)})`).toBeLessThanOrEqual(Math.max(8, covered * 0.005));
        expect(d.meanRgb, 'mean RGB difference where both are covered').toBeLessThan(1.5);
        expect(d.far, `share of pixels off by more than ${FAR_LEVELS} levels where both are covered`).toBeLessThanOrEqual(0.02);
        await expectNoGpuErrors(gpu, async () => {
          const b = await uploadModel(ctx(), quantized);
          expect(b.bytesPerVertex, 'GPU bytes per vertex').toBeLessThan(base.bytesPerVertex);
          const formats = new Set(b.primitives.flat().flatMap((p) => p.rigidLayouts[0].attributes.filter((x) => x.shaderLocation === VertexLocation.POSITION).map((x) => x.format)));
          expect([...formats]).toEqual(['snorm16x4']);
          b.destroy();
        });
      });
    }
  }
});
