/**
 * shaders/mtoon.wgsl ↔ src/gpu/layouts/mtoon-uniforms.ts: the MToonUniforms struct laid out from the
 * shader text against its TS offsets, the group 2 bindings, the feature bits, the packing at
 * upload and from animated values, and the MToon path's WGSL compiling on Dawn.
 */
import { describe, expect, it } from 'vitest';
import mtoonWgsl from '../../../shaders/mtoon.wgsl?raw';
import { MaterialAnimation, restValues } from '../../../src/anim/material-tracks.ts';
import { MATERIAL_ANIM_FLOATS, MaterialAnimOffset } from '../../../src/gltf/extensions/khr-animation-pointer.ts';
import { uvTransformMatrix } from '../../../src/gltf/extensions/khr-texture-transform.ts';
import type { Material } from '../../../src/gltf/model.ts';
import { MTOON_DEFAULTS } from '../../../src/gltf/mtoon-model.ts';
import { BindGroup } from '../../../src/gpu/layouts/bindings.ts';
import { DEFAULT_MATERIAL } from '../../../src/gpu/layouts/material-uniforms.ts';
import {
  ALL_MTOON_FEATURES, MToonBinding, MToonFeature, mtoonFeatures, MToonUniformsOffset, MTOON_UNIFORMS_SIZE, packAnimatedMToonValues, packMToonUniforms,
} from '../../../src/gpu/layouts/mtoon-uniforms.ts';
import { loadMaterialPaths, meshShaderSource } from '../../../src/gpu/pipelines/mesh.ts';
import { expectNoGpuErrors, testDevice } from '../gpu-test.ts';
import { bindings, screamingSnake, structLayout, u32Constants } from '../wgsl-layout.ts';

const info = (index: number, transform?: { offset: [number, number]; rotation: number; scale: [number, number] }, texCoord = 0) => ({ index, texCoord, scale: 1, ...(transform ? { transform } : {}) });

/** A material using every MToon parameter and slot, each value different. */
const FULL: Material = {
  ...DEFAULT_MATERIAL,
  baseColorFactor: [0.9, 0.8, 0.7, 0.6], baseColorTexture: info(0, { offset: [0.1, 0.2], rotation: 0.3, scale: [2, 3] }),
  normalTexture: { ...info(1), scale: 0.7 }, emissiveTexture: info(2, undefined, 1), emissiveFactor: [0.25, 0.5, 0.75], emissiveStrength: 2,
  alphaMode: 'MASK', alphaCutoff: 0.3,
  mtoon: {
    ...MTOON_DEFAULTS,
    shadeColorFactor: [0.1, 0.2, 0.3], shadeMultiplyTexture: info(3), shadingShiftFactor: -0.2, shadingShiftTexture: { ...info(4), scale: 0.4 },
    shadingToonyFactor: 0.75, giEqualizationFactor: 0.6, matcapFactor: [0.3, 0.4, 0.5], matcapTexture: info(5), parametricRimColorFactor: [0.6, 0.5, 0.4],
    rimMultiplyTexture: info(6), rimLightingMixFactor: 0.35, parametricRimFresnelPowerFactor: 3, parametricRimLiftFactor: 0.15,
    outlineWidthMode: 'screenCoordinates', outlineWidthFactor: 0.01, outlineWidthMultiplyTexture: info(7, { offset: [0.5, 0.5], rotation: 0, scale: [1, 1] }),
    outlineColorFactor: [0.05, 0.1, 0.15], outlineLightingMixFactor: 0.45, uvAnimationMaskTexture: info(8, undefined, 1),
    uvAnimationScrollXSpeedFactor: 0.5, uvAnimationScrollYSpeedFactor: -0.25, uvAnimationRotationSpeedFactor: 1.5,
  },
};

describe('MToonUniforms ↔ mtoon-uniforms.ts', () => {
  it('every offset and the size, as WGSL lays the struct out', () => {
    const layout = structLayout(mtoonWgsl, 'MToonUniforms');
    // screamingSnake runs a one-letter word into the next (scrollXSpeed → SCROLL_XSPEED).
    const name = (field: string) => screamingSnake(field).replace(/_([XY])SPEED/, '_$1_SPEED');
    expect(Object.fromEntries(layout.fields.map((f) => [name(f.name), f.offset]))).toEqual(MToonUniformsOffset);
    expect(layout.size).toBe(MTOON_UNIFORMS_SIZE);
  });

  it('group 2 bindings and the feature bits', () => {
    const found = Object.fromEntries([...bindings(mtoonWgsl)].map(([name, b]) => [name, b]));
    expect(Object.values(found).every((b) => b.group === BindGroup.MATERIAL)).toBe(true);
    const byName = Object.fromEntries(Object.entries(found).map(([name, b]) => [screamingSnake(name).replace(/^MTOON$/, 'UNIFORMS'), b.binding]));
    expect(byName).toEqual(MToonBinding);
    const c = u32Constants(mtoonWgsl);
    const bits = Object.fromEntries([...c].filter(([k]) => k.startsWith('MTOON_')).map(([k, v]) => [k.slice('MTOON_'.length), v]));
    expect(bits).toEqual(MToonFeature);
    expect(mtoonWgsl).toMatch(new RegExp(`override MTOON_FEATURES: u32 = ${ALL_MTOON_FEATURES}u;`));
    expect(Object.values(MToonFeature).reduce((a, b) => a | b, 0)).toBe(ALL_MTOON_FEATURES);
  });

  it('packs every value where the WGSL reads it', () => {
    const buffer = packMToonUniforms(FULL);
    const f32 = new Float32Array(buffer), u32 = new Uint32Array(buffer);
    const O = MToonUniformsOffset;
    const at = (o: number, n = 1) => Array.from(f32.subarray(o / 4, o / 4 + n));
    const f = Math.fround;
    const t = FULL.mtoon!;
    expect(at(O.LIT_FACTOR, 4)).toEqual([0.9, 0.8, 0.7, 0.6].map(f));
    expect(at(O.EMISSIVE_FACTOR, 3)).toEqual([0.5, 1, 1.5]);
    expect(at(O.SHADE_COLOR_FACTOR, 3)).toEqual(t.shadeColorFactor.map(f));
    expect(at(O.MATCAP_FACTOR, 3)).toEqual(t.matcapFactor.map(f));
    expect(at(O.PARAMETRIC_RIM_COLOR_FACTOR, 3)).toEqual(t.parametricRimColorFactor.map(f));
    expect(at(O.OUTLINE_COLOR_FACTOR, 3)).toEqual(t.outlineColorFactor.map(f));
    const scalars: [number, number][] = [
      [O.SHADING_SHIFT_FACTOR, -0.2], [O.SHADING_SHIFT_TEXTURE_SCALE, 0.4], [O.SHADING_TOONY_FACTOR, 0.75], [O.GI_EQUALIZATION_FACTOR, 0.6],
      [O.RIM_LIGHTING_MIX_FACTOR, 0.35], [O.PARAMETRIC_RIM_FRESNEL_POWER_FACTOR, 3], [O.PARAMETRIC_RIM_LIFT_FACTOR, 0.15], [O.OUTLINE_WIDTH_FACTOR, 0.01],
      [O.OUTLINE_LIGHTING_MIX_FACTOR, 0.45], [O.UV_ANIMATION_SCROLL_X_SPEED_FACTOR, 0.5], [O.UV_ANIMATION_SCROLL_Y_SPEED_FACTOR, -0.25],
      [O.UV_ANIMATION_ROTATION_SPEED_FACTOR, 1.5], [O.UV_ANIMATION_TIME, 0], [O.NORMAL_SCALE, 0.7], [O.ALPHA_CUTOFF, 0.3],
    ];
    for (const [offset, value] of scalars) expect(f32[offset / 4], `offset ${offset}`).toBe(f(value));
    expect(u32[O.ALPHA_MODE / 4]).toBe(1);
    expect(u32[O.TEX_COORDS / 4]).toBe(MToonFeature.EMISSIVE_TEXTURE | MToonFeature.UV_ANIMATION_MASK_TEXTURE);
    expect(at(O.BASE_COLOR_UV_TRANSFORM, 6)).toEqual(uvTransformMatrix([0.1, 0.2], 0.3, [2, 3]).map(f));
    expect(at(O.OUTLINE_WIDTH_MULTIPLY_UV_TRANSFORM, 6)).toEqual([1, 0, 0, 1, 0.5, 0.5]);
    expect(at(O.MATCAP_UV_TRANSFORM, 6)).toEqual([1, 0, 0, 1, 0, 0]);
    expect(mtoonFeatures(FULL)).toBe(ALL_MTOON_FEATURES);
    expect(mtoonFeatures({ ...DEFAULT_MATERIAL, mtoon: MTOON_DEFAULTS })).toBe(0);
  });

  it('packs animated values (expression binds, UV animation time) over the upload’s uniforms, as at upload', () => {
    const upload = new Float32Array(packMToonUniforms(FULL));
    const values = new Float32Array(MATERIAL_ANIM_FLOATS);
    restValues(FULL, values, 0);
    const packed = upload.slice();
    packAnimatedMToonValues(values, 0, packed, 0);
    packed.forEach((v, i) => expect(Math.abs(v - upload[i]), `float ${i}`).toBeLessThan(1e-6));
    // A bound shade colour, and the time (the emissive strength, 2, comes from the values as restValues wrote it).
    values.set([1, 0.5, 0.25], MaterialAnimOffset.MTOON_SHADE_COLOR);
    values[MaterialAnimOffset.MTOON_UV_ANIMATION_TIME] = 12.5;
    packAnimatedMToonValues(values, 0, packed, 0);
    expect(Array.from(packed.subarray(MToonUniformsOffset.SHADE_COLOR_FACTOR / 4, MToonUniformsOffset.SHADE_COLOR_FACTOR / 4 + 3))).toEqual([1, 0.5, 0.25]);
    expect(packed[MToonUniformsOffset.UV_ANIMATION_TIME / 4]).toBe(12.5);
  });

  it('an MToon material with UV animation is animated: its time advances with the player’s wall time', () => {
    const model = { materials: [FULL], animations: [], meshNodes: [] } as unknown as ConstructorParameters<typeof MaterialAnimation>[0];
    const animation = new MaterialAnimation(model);
    expect(Array.from(animation.materials)).toEqual([0]);
    animation.uvAnimationTime = 3;
    animation.evaluate();
    expect(animation.values[MaterialAnimOffset.MTOON_UV_ANIMATION_TIME]).toBe(3);
  });
});

const device = await testDevice();

describe.skipIf(!device)('the MToon shader compiles (Dawn)', () => {
  it('without errors or warnings', async () => {
    const gpu = device!;
    await loadMaterialPaths(['mtoon']);
    const compiled = await expectNoGpuErrors(gpu, () => gpu.createShaderModule({ label: 'mtoon (compile check)', code: meshShaderSource('mtoon') }).getCompilationInfo());
    expect(compiled.messages.map((m) => `${m.type} ${m.lineNum}:${m.linePos} ${m.message}`)).toEqual([]);
  });
});
