/**
 * VRMC_materials_mtoon 1.0 read into Material.mtoon: every parameter as written, the defaults,
 * the specification's sample file, and bad input — each out-of-range or wrong-typed value
 * clamped or defaulted with a warning naming its JSON path, broken texture references dropped,
 * an unknown version left to the glTF fallback. Nothing refuses the file.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadGltf } from '../../../src/gltf/load.ts';
import type { Model } from '../../../src/gltf/model.ts';
import { MTOON_DEFAULTS } from '../../../src/gltf/mtoon-model.ts';
import { loadMaterialFile } from '../../support/material-files.ts';

const EXT = 'VRMC_materials_mtoon';
const AT = `materials[0].extensions.${EXT}`;

function load(mtoon: Record<string, unknown>, material: Record<string, unknown> = {}): Promise<Model> {
  return loadMaterialFile({
    images: ['image/png', 'image/png'], textures: [{ source: 0 }, { source: 1 }], extensionsUsed: [EXT],
    materials: [{ ...material, extensions: { [EXT]: { specVersion: '1.0', ...mtoon } } }],
  });
}

function warningAt(model: Model, path: string): string {
  const w = model.warnings.find((x) => x.path === path);
  expect(w, `no warning at ${path}; got ${JSON.stringify(model.warnings)}`).toBeDefined();
  return w!.message;
}

const FULL = {
  transparentWithZWrite: true, renderQueueOffsetNumber: 3,
  shadeColorFactor: [0.1, 0.2, 0.3], shadeMultiplyTexture: { index: 0 },
  shadingShiftFactor: -0.25, shadingShiftTexture: { index: 1, scale: 0.5 }, shadingToonyFactor: 0.7, giEqualizationFactor: 0.4,
  matcapFactor: [0.5, 0.6, 0.7], matcapTexture: { index: 1, texCoord: 1 },
  parametricRimColorFactor: [0.9, 0.8, 0.7], rimMultiplyTexture: { index: 0 }, rimLightingMixFactor: 0.3,
  parametricRimFresnelPowerFactor: 3, parametricRimLiftFactor: 0.1,
  outlineWidthMode: 'screenCoordinates', outlineWidthFactor: 0.004, outlineWidthMultiplyTexture: { index: 1 },
  outlineColorFactor: [0.2, 0.1, 0], outlineLightingMixFactor: 0.6,
  uvAnimationMaskTexture: { index: 0, extensions: { KHR_texture_transform: { offset: [0.5, 0] } } },
  uvAnimationScrollXSpeedFactor: 0.25, uvAnimationScrollYSpeedFactor: -0.5, uvAnimationRotationSpeedFactor: 2,
};

describe('VRMC_materials_mtoon', () => {
  it('reads every parameter as the file writes it', async () => {
    const model = await load(FULL, { alphaMode: 'BLEND' });
    expect(model.warnings).toEqual([]);
    const m = model.materials[0].mtoon!;
    expect(m).toMatchObject({
      transparentWithZWrite: true, renderQueueOffsetNumber: 3, shadeColorFactor: [0.1, 0.2, 0.3], shadingShiftFactor: -0.25,
      shadingToonyFactor: 0.7, giEqualizationFactor: 0.4, matcapFactor: [0.5, 0.6, 0.7], parametricRimColorFactor: [0.9, 0.8, 0.7],
      rimLightingMixFactor: 0.3, parametricRimFresnelPowerFactor: 3, parametricRimLiftFactor: 0.1, outlineWidthMode: 'screenCoordinates',
      outlineWidthFactor: 0.004, outlineColorFactor: [0.2, 0.1, 0], outlineLightingMixFactor: 0.6,
      uvAnimationScrollXSpeedFactor: 0.25, uvAnimationScrollYSpeedFactor: -0.5, uvAnimationRotationSpeedFactor: 2,
    });
    expect(m.shadeMultiplyTexture).toEqual({ index: 0, texCoord: 0, scale: 1 });
    expect(m.shadingShiftTexture).toEqual({ index: 1, texCoord: 0, scale: 0.5 });
    expect(m.matcapTexture).toEqual({ index: 1, texCoord: 1, scale: 1 });
    expect(m.outlineWidthMultiplyTexture?.index).toBe(1);
    expect(m.rimMultiplyTexture?.index).toBe(0);
    // KHR_texture_transform on an MToon texture is read like a core one.
    expect(m.uvAnimationMaskTexture?.transform).toEqual({ offset: [0.5, 0], rotation: 0, scale: [1, 1] });
  });

  it('takes the specification’s defaults for what the extension leaves out', async () => {
    const model = await load({});
    expect(model.warnings).toEqual([]);
    expect(model.materials[0].mtoon).toEqual(MTOON_DEFAULTS);
  });

  it('wins over KHR_materials_unlit, which stays the fallback', async () => {
    const model = await loadMaterialFile({ materials: [{ extensions: { KHR_materials_unlit: {}, [EXT]: { specVersion: '1.0' } } }] });
    expect(model.materials[0].mtoon).toBeDefined();
    expect(model.materials[0].shading).toBe('unlit');
  });

  it('reads the specification’s UV animation sample without a warning', async () => {
    const model = await loadGltf(readFileSync('../shared/assets/vrm/VRMC_materials_mtoon_UV_Animation_Test.vrm'));
    expect(model.warnings).toEqual([]);
    const speeds = model.materials.map((m) => [m.name, m.mtoon!.uvAnimationScrollXSpeedFactor, m.mtoon!.uvAnimationScrollYSpeedFactor, m.mtoon!.uvAnimationRotationSpeedFactor]);
    expect(speeds).toEqual([['ScrollX', 1, 0, 0], ['ScrollY', 0, 1, 0], ['ScrollRot', 0, 0, 1]]);
    for (const m of model.materials) {
      expect(m.mtoon!.shadeColorFactor).toEqual([1, 1, 1]);
      expect(m.mtoon!.shadeMultiplyTexture?.index).toBe(m.baseColorTexture?.index);
    }
  });
});

describe('VRMC_materials_mtoon: bad input warns by JSON path and never refuses', () => {
  it('clamps out-of-range factors and colours to the schema’s ranges', async () => {
    const model = await load({
      shadingToonyFactor: 1.5, giEqualizationFactor: -0.2, rimLightingMixFactor: 2, outlineLightingMixFactor: -1,
      parametricRimFresnelPowerFactor: -3, outlineWidthFactor: -0.01, shadeColorFactor: [1.2, 0.5, -0.5],
    });
    const m = model.materials[0].mtoon!;
    expect([m.shadingToonyFactor, m.giEqualizationFactor, m.rimLightingMixFactor, m.outlineLightingMixFactor]).toEqual([1, 0, 1, 0]);
    expect([m.parametricRimFresnelPowerFactor, m.outlineWidthFactor]).toEqual([0, 0]);
    expect(m.shadeColorFactor).toEqual([1, 0.5, 0]);
    expect(warningAt(model, `${AT}.shadingToonyFactor`)).toMatch(/1\.5 is outside \[0, 1\]; using 1/);
    expect(warningAt(model, `${AT}.giEqualizationFactor`)).toMatch(/using 0/);
    expect(warningAt(model, `${AT}.parametricRimFresnelPowerFactor`)).toMatch(/-3 is outside/);
    expect(warningAt(model, `${AT}.outlineWidthFactor`)).toMatch(/-0\.01 is outside/);
    expect(warningAt(model, `${AT}.shadeColorFactor[0]`)).toMatch(/1\.2/);
    expect(warningAt(model, `${AT}.shadeColorFactor[2]`)).toMatch(/-0\.5/);
    expect(model.warnings).toHaveLength(8);
  });

  it('keeps the render queue offset an integer in its alpha mode’s range', async () => {
    const cases: [Record<string, unknown>, string, number, RegExp][] = [
      [{ transparentWithZWrite: true, renderQueueOffsetNumber: 12 }, 'BLEND', 9, /12 is outside \[0, 9\]/],
      [{ transparentWithZWrite: true, renderQueueOffsetNumber: -2 }, 'BLEND', 0, /-2 is outside \[0, 9\]/],
      [{ renderQueueOffsetNumber: 4 }, 'BLEND', 0, /4 is outside \[-9, 0\]/],
      [{ renderQueueOffsetNumber: -2.6 }, 'BLEND', -3, /-2\.6 is not an integer; using -3/],
      [{ renderQueueOffsetNumber: 5 }, 'OPAQUE', 0, /no effect with alphaMode OPAQUE/],
      [{ renderQueueOffsetNumber: -5 }, 'MASK', 0, /no effect with alphaMode MASK/],
    ];
    for (const [mtoon, alphaMode, expected, message] of cases) {
      const model = await load(mtoon, { alphaMode });
      expect(model.materials[0].mtoon!.renderQueueOffsetNumber, JSON.stringify(mtoon)).toBe(expected);
      expect(warningAt(model, `${AT}.renderQueueOffsetNumber`)).toMatch(message);
    }
  });

  it('replaces wrong-typed values by their defaults', async () => {
    const model = await load({
      shadingShiftFactor: 'a lot', transparentWithZWrite: 1, shadeColorFactor: [1, 1], matcapFactor: 'red',
      outlineWidthMode: 'thick', uvAnimationScrollXSpeedFactor: 1e39, parametricRimLiftFactor: null,
    });
    const m = model.materials[0].mtoon!;
    expect(m.shadingShiftFactor).toBe(0);
    expect(m.transparentWithZWrite).toBe(false);
    expect(m.shadeColorFactor).toEqual([0, 0, 0]);
    expect(m.matcapFactor).toEqual([1, 1, 1]);
    expect(m.outlineWidthMode).toBe('none');
    expect(m.uvAnimationScrollXSpeedFactor).toBe(0);
    expect(m.parametricRimLiftFactor).toBe(0);
    for (const key of ['shadingShiftFactor', 'transparentWithZWrite', 'shadeColorFactor', 'matcapFactor', 'outlineWidthMode', 'uvAnimationScrollXSpeedFactor', 'parametricRimLiftFactor']) {
      warningAt(model, `${AT}.${key}`);
    }
  });

  it('drops broken texture references and keeps the material', async () => {
    const model = await load({
      shadeMultiplyTexture: { index: 7 }, matcapTexture: 3, rimMultiplyTexture: { texCoord: 0 }, shadingShiftTexture: { index: 0, scale: 'half' },
      uvAnimationMaskTexture: { index: -1 },
    });
    const m = model.materials[0].mtoon!;
    expect(m.shadeMultiplyTexture).toBeUndefined();
    expect(m.matcapTexture).toBeUndefined();
    expect(m.rimMultiplyTexture).toBeUndefined();
    expect(m.uvAnimationMaskTexture).toBeUndefined();
    expect(m.shadingShiftTexture).toEqual({ index: 0, texCoord: 0, scale: 1 });
    // The core reader's texture-reference check (src/gltf/materials.ts) may name it first.
    expect(warningAt(model, `${AT}.shadeMultiplyTexture.index`)).toMatch(/out of range.*skipped|does not exist.*ignored/);
    expect(warningAt(model, `${AT}.matcapTexture`)).toMatch(/expected a textureInfo object/);
    expect(warningAt(model, `${AT}.rimMultiplyTexture.index`)).toMatch(/required.*skipped/);
    expect(warningAt(model, `${AT}.uvAnimationMaskTexture.index`)).toMatch(/skipped|ignored/);
    expect(warningAt(model, `${AT}.shadingShiftTexture.scale`)).toMatch(/using 1/);
  });

  it('leaves a material with an unknown specVersion to its glTF fallback', async () => {
    for (const specVersion of ['2.0', undefined, 1]) {
      const model = await loadMaterialFile({ materials: [{ extensions: { [EXT]: { specVersion, shadingToonyFactor: 0.5 } } }] });
      expect(model.materials[0].mtoon).toBeUndefined();
      expect(warningAt(model, `${AT}.specVersion`)).toMatch(/glTF fallback/);
    }
  });
});
