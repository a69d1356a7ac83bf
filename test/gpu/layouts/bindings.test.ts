/**
 * One WGSL struct ↔ one TS layout module: every struct the TypeScript writes is laid
 * out from the shader text with WGSL's rules and compared with its module, and every
 * location, binding and flag the TS side uses is compared with the WGSL literal.
 */
import { describe, expect, it } from 'vitest';
import drawRecordWgsl from '../../../shaders/draw-record.wgsl?raw';
import environmentLightingWgsl from '../../../shaders/environment-lighting.wgsl?raw';
import meshWgsl from '../../../shaders/mesh.wgsl?raw';
import pbrMaterialWgsl from '../../../shaders/pbr-material.wgsl?raw';
import morphWgsl from '../../../shaders/morph.wgsl?raw';
import pbrWgsl from '../../../shaders/pbr.wgsl?raw';
import { DRAW_RECORD_SIZE, DRAW_RECORD_WORDS, DrawRecordOffset, DrawRecordWord, MAT3_COLUMN_WORDS } from '../../../src/gpu/layouts/draw-record.ts';
import { FRAME_UNIFORMS_SIZE, FrameUniformsData, FrameUniformsOffset } from '../../../src/gpu/layouts/frame-uniforms.ts';
import pbrExtensionsWgsl from '../../../shaders/pbr-extensions/pbr-extensions.wgsl?raw';
import type { Material } from '../../../src/gltf/model.ts';
import {
  EXTENDED_UNIFORMS_SIZE, EXTENSION_TEXTURE_COUNT, EXTENSION_TEXTURE_SLOTS, EXTENSION_UNIFORMS_OFFSET, ExtensionTexture, PBR_EXTENSION_UNIFORMS_SIZE,
  PbrExtensionBinding, PbrExtensionFeature, PbrExtensionUniformsOffset, writePbrExtensionUniforms,
} from '../../../src/gpu/layouts/pbr-extension-uniforms.ts';
import { TransmissionBinding, variantPart } from '../../../src/gpu/pipelines/pbr-extensions-path.ts';
import {
  AlphaModeCode, BindGroup, DrawFlag, FrameBinding, MaterialBinding, MaterialFlag, MaterialShadingCode, MaterialTexture, PALETTE_MATRIX_BYTES, SkinBinding,
  ToneMapping, VertexLocation,
} from '../../../src/gpu/layouts/bindings.ts';
import { uvTransformMatrix } from '../../../src/gltf/extensions/khr-texture-transform.ts';
import { MATERIAL_UNIFORMS_SIZE, MaterialUniformsOffset, packMaterialUniforms, DEFAULT_MATERIAL } from '../../../src/gpu/layouts/material-uniforms.ts';
import { MAX_ACTIVE_MORPH_TARGETS, MORPH_DELTA_COMPONENTS } from '../../../src/gpu/model/morph-targets.ts';
import { MESH_SHADER_SOURCE } from '../../../src/gpu/pipelines/mesh.ts';
import { PRESKIN_WGSL } from '../../../src/gpu/draw/preskin-wgsl.ts';
import { expectNoGpuErrors, testDevice } from '../gpu-test.ts';
import { bindings, screamingSnake, structLayout, structLocations, u32Constants } from '../wgsl-layout.ts';

function expectStructMatches(struct: string, offsets: Record<string, number>, size: number, source = meshWgsl): void {
  const layout = structLayout(source, struct);
  const fromWgsl = Object.fromEntries(layout.fields.map((f) => [screamingSnake(f.name), f.offset]));
  expect(fromWgsl, `${struct} offsets`).toEqual(offsets);
  expect(layout.size, `${struct} size`).toBe(size);
}

describe('WGSL struct layouts ↔ TS layout modules', () => {
  it('the layout rules themselves: vec3f aligns to 16, mat3x3f columns are padded', () => {
    const src = 'struct S { a: f32, b: vec3f, c: f32, d: mat3x3f, e: vec2f, }';
    expect(structLayout(src, 'S').fields.map((f) => f.offset)).toEqual([0, 16, 28, 32, 80]);
    expect(structLayout(src, 'S').size).toBe(96);
    const arrays = 'struct A { a: f32, b: array<vec4f, 9>, c: f32, d: array<vec3f, 2>, }';
    expect(structLayout(arrays, 'A').fields.map((f) => f.offset)).toEqual([0, 16, 160, 176]);
    expect(structLayout(arrays, 'A').size).toBe(208);
  });

  it('FrameUniforms', () => {
    expectStructMatches('FrameUniforms', FrameUniformsOffset, FRAME_UNIFORMS_SIZE);
    const data = new FrameUniformsData();
    expect(data.buffer.byteLength).toBe(FRAME_UNIFORMS_SIZE);
    expect(data.lightDirection.byteOffset).toBe(FrameUniformsOffset.LIGHT_DIRECTION);
    expect(data.toneMapping.byteOffset).toBe(FrameUniformsOffset.TONE_MAPPING);
    expect(data.groundColor.byteOffset).toBe(FrameUniformsOffset.GROUND_COLOR);
  });

  it('DrawRecord', () => {
    expectStructMatches('DrawRecord', DrawRecordOffset, DRAW_RECORD_SIZE, drawRecordWgsl);
    // One declaration, in draw-record.wgsl, for every pipeline that reads the records.
    for (const source of [MESH_SHADER_SOURCE, PRESKIN_WGSL]) expect(source.match(/struct\s+DrawRecord\b/g)).toHaveLength(1);
    expect(DRAW_RECORD_WORDS * 4).toBe(DRAW_RECORD_SIZE);
    for (const [k, v] of Object.entries(DrawRecordWord)) expect(v * 4).toBe(DrawRecordOffset[k as keyof typeof DrawRecordOffset]);
    // A storage array's stride is the struct size rounded to its alignment: already 16-aligned.
    expect(DRAW_RECORD_SIZE % 16).toBe(0);
    expect(MAT3_COLUMN_WORDS).toBe(4);
  });

  it('MaterialUniforms, and packMaterialUniforms writes where WGSL reads', () => {
    expectStructMatches('MaterialUniforms', MaterialUniformsOffset, MATERIAL_UNIFORMS_SIZE, pbrMaterialWgsl);
    const packed = packMaterialUniforms({ ...DEFAULT_MATERIAL, baseColorFactor: [0.1, 0.2, 0.3, 0.4], alphaMode: 'MASK', alphaCutoff: 0.25, doubleSided: true });
    const f32 = new Float32Array(packed), u32 = new Uint32Array(packed);
    expect(Array.from(f32.subarray(0, 4))).toEqual([0.1, 0.2, 0.3, 0.4].map(Math.fround));
    expect(f32[MaterialUniformsOffset.ALPHA_CUTOFF / 4]).toBe(0.25);
    expect(u32[MaterialUniformsOffset.ALPHA_MODE / 4]).toBe(AlphaModeCode.MASK);
    expect(u32[MaterialUniformsOffset.FLAGS / 4]).toBe(MaterialFlag.DOUBLE_SIDED);
    // Texture slots without KHR_texture_transform get the identity.
    const O = MaterialUniformsOffset;
    for (const offset of [O.BASE_COLOR_UV_TRANSFORM, O.METALLIC_ROUGHNESS_UV_TRANSFORM, O.NORMAL_UV_TRANSFORM, O.OCCLUSION_UV_TRANSFORM, O.EMISSIVE_UV_TRANSFORM]) {
      expect(Array.from(f32.subarray(offset / 4, offset / 4 + 6))).toEqual([1, 0, 0, 1, 0, 0]);
    }
  });

  it('PbrExtensionUniforms, its feature bits and bindings, and writePbrExtensionUniforms writes where WGSL reads', () => {
    expectStructMatches('PbrExtensionUniforms', PbrExtensionUniformsOffset, PBR_EXTENSION_UNIFORMS_SIZE, pbrExtensionsWgsl);
    // After MaterialUniforms in one block, at an offset every device allows for a uniform binding.
    expect(MATERIAL_UNIFORMS_SIZE).toBeLessThanOrEqual(EXTENSION_UNIFORMS_OFFSET);
    expect(EXTENSION_UNIFORMS_OFFSET % 256).toBe(0);
    expect(EXTENDED_UNIFORMS_SIZE).toBe(EXTENSION_UNIFORMS_OFFSET + PBR_EXTENSION_UNIFORMS_SIZE);
    const c = u32Constants(pbrExtensionsWgsl);
    for (const [name, bit] of Object.entries(PbrExtensionFeature)) expect(c.get(`PBR_${name}`), name).toBe(bit);
    expect(Object.fromEntries(bindings(pbrExtensionsWgsl))).toEqual({ extension: { group: BindGroup.MATERIAL, binding: PbrExtensionBinding.UNIFORMS } });
    // Every slot's texture, the shared sampler, the sheen table and the transmitted scene: in the generated part.
    const part = variantPart((1 << EXTENSION_TEXTURE_COUNT) - 1, true, true);
    const expected: Record<string, { group: number; binding: number }> = {
      extensionSampler: { group: BindGroup.MATERIAL, binding: PbrExtensionBinding.SAMPLER },
      sheenAlbedoTable: { group: BindGroup.MATERIAL, binding: PbrExtensionBinding.SHEEN_ALBEDO },
      transmissionScene: { group: BindGroup.TRANSMISSION, binding: TransmissionBinding.SCENE },
      transmissionSampler: { group: BindGroup.TRANSMISSION, binding: TransmissionBinding.SAMPLER },
    };
    EXTENSION_TEXTURE_SLOTS.forEach((slot, k) => { expected[`${slot.name}Texture`] = { group: BindGroup.MATERIAL, binding: PbrExtensionBinding.TEXTURE_BASE + k }; });
    expect(Object.fromEntries(bindings(part))).toEqual(expected);
    // writePbrExtensionUniforms: a value per field where WGSL reads it.
    const m: Material = {
      ...DEFAULT_MATERIAL, ior: 1.7, dispersion: 0.25,
      clearcoat: { factor: 0.8, roughnessFactor: 0.3, texture: undefined, roughnessTexture: undefined, normalTexture: { index: 0, texCoord: 1, scale: 0.5 } },
      volume: { thicknessFactor: 0.4, thicknessTexture: undefined, attenuationDistance: Infinity, attenuationColor: [0.9, 0.8, 0.7] },
      anisotropy: { strength: 0.6, rotation: Math.PI / 2, texture: undefined },
    };
    const buffer = new ArrayBuffer(PBR_EXTENSION_UNIFORMS_SIZE);
    const f32 = new Float32Array(buffer), u32 = new Uint32Array(buffer);
    writePbrExtensionUniforms(m, f32, u32, 0);
    const O = PbrExtensionUniformsOffset;
    expect(f32[O.IOR / 4]).toBeCloseTo(1.7, 6);
    expect(f32[O.CLEARCOAT_NORMAL_SCALE / 4]).toBe(0.5);
    // Infinity is written as 0 (no attenuation).
    expect(f32[O.ATTENUATION_DISTANCE / 4]).toBe(0);
    expect(Array.from(f32.subarray(O.ATTENUATION_COLOR / 4, O.ATTENUATION_COLOR / 4 + 3))).toEqual([0.9, 0.8, 0.7].map(Math.fround));
    expect(f32[O.ANISOTROPY_DIRECTION / 4]).toBeCloseTo(0, 6);
    expect(f32[O.ANISOTROPY_DIRECTION / 4 + 1]).toBeCloseTo(1, 6);
    // Slot CLEARCOAT_NORMAL reads UV set 1; the rest UV set 0; transforms are identities.
    expect(u32[O.TEX_COORDS / 4 + ExtensionTexture.CLEARCOAT_NORMAL]).toBe(1);
    expect(u32[O.TEX_COORDS / 4 + ExtensionTexture.SHEEN_COLOR]).toBe(0);
    expect(Array.from(f32.subarray(O.UV_TRANSFORMS / 4, O.UV_TRANSFORMS / 4 + 8))).toEqual([1, 0, 0, 1, 0, 0, 0, 0]);
  });

  it('packMaterialUniforms: every slot has its own texture transform at its own offset, emissive × emissiveStrength', () => {
    const O = MaterialUniformsOffset;
    const slots = [
      ['baseColorTexture', O.BASE_COLOR_UV_TRANSFORM], ['metallicRoughnessTexture', O.METALLIC_ROUGHNESS_UV_TRANSFORM],
      ['normalTexture', O.NORMAL_UV_TRANSFORM], ['occlusionTexture', O.OCCLUSION_UV_TRANSFORM], ['emissiveTexture', O.EMISSIVE_UV_TRANSFORM],
    ] as const;
    const material: Record<string, unknown> = { ...DEFAULT_MATERIAL, emissiveFactor: [0.5, 0.25, 1], emissiveStrength: 4 };
    const transformOf = (i: number) => ({ offset: [i * 0.25, 1 - i * 0.125], rotation: i * 0.5, scale: [1 + i, 2 - i * 0.25] } as const);
    slots.forEach(([slot], i) => { material[slot] = { index: 0, texCoord: 1, scale: 1, transform: transformOf(i) }; });
    const f32 = new Float32Array(packMaterialUniforms(material as unknown as typeof DEFAULT_MATERIAL));
    slots.forEach(([slot, offset], i) => {
      const t = transformOf(i);
      expect(Array.from(f32.subarray(offset / 4, offset / 4 + 6)), slot).toEqual(uvTransformMatrix(t.offset, t.rotation, t.scale).map(Math.fround));
    });
    expect(Array.from(f32.subarray(O.EMISSIVE_FACTOR / 4, O.EMISSIVE_FACTOR / 4 + 3))).toEqual([2, 1, 4]);
  });

  it('the palette is an array<mat4x4f>', () => {
    expect(meshWgsl).toMatch(/var<storage, read> jointPalette: array<mat4x4f>;/);
    expect(PALETTE_MATRIX_BYTES).toBe(64);
  });
});

describe('WGSL literals ↔ src/gpu/layouts/bindings.ts', () => {
  it('vertex @locations', () => {
    const locations = new Map([...structLocations(meshWgsl, 'SurfaceInput'), ...structLocations(meshWgsl, 'Influences8')]);
    expect(Object.fromEntries([...locations].map(([name, n]) => [screamingSnake(name), n]))).toEqual(VertexLocation);
    for (const [name, n] of structLocations(meshWgsl, 'Influences4')) expect(n).toBe(locations.get(name));
    // The lean entry points' input and output keep the full structs' locations.
    expect([...structLocations(meshWgsl, 'LeanSurfaceInput')]).toEqual([['position', 0], ['normal', 1], ['texcoord0', 3]].map(([k]) => [k, locations.get(k as string)]));
    const outputs = structLocations(meshWgsl, 'VertexOutput');
    for (const [name, n] of structLocations(meshWgsl, 'LeanVertexOutput')) expect(n, name).toBe(outputs.get(name));
  });

  it('@group/@binding of every resource (groups 0 and 1 in mesh.wgsl, the PBR path’s group 2 in pbr-material.wgsl)', () => {
    const M = MaterialBinding;
    expect(Object.fromEntries([...bindings(meshWgsl), ...bindings(pbrMaterialWgsl)])).toEqual({
      frame: { group: BindGroup.FRAME, binding: FrameBinding.UNIFORMS },
      shadowMap: { group: BindGroup.FRAME, binding: FrameBinding.SHADOW_MAP },
      shadowSampler: { group: BindGroup.FRAME, binding: FrameBinding.SHADOW_SAMPLER },
      jointPalette: { group: BindGroup.SKIN, binding: SkinBinding.PALETTE },
      draws: { group: BindGroup.SKIN, binding: SkinBinding.DRAWS },
      morphDeltas: { group: BindGroup.SKIN, binding: SkinBinding.MORPH_DELTAS },
      skinnedVertices: { group: BindGroup.SKIN, binding: SkinBinding.SKINNED_VERTICES },
      centers: { group: BindGroup.SKIN, binding: SkinBinding.CENTERS },
      material: { group: BindGroup.MATERIAL, binding: M.UNIFORMS },
      baseColorTexture: { group: BindGroup.MATERIAL, binding: M.BASE_COLOR_TEXTURE },
      baseColorSampler: { group: BindGroup.MATERIAL, binding: M.BASE_COLOR_SAMPLER },
      metallicRoughnessTexture: { group: BindGroup.MATERIAL, binding: M.METALLIC_ROUGHNESS_TEXTURE },
      metallicRoughnessSampler: { group: BindGroup.MATERIAL, binding: M.METALLIC_ROUGHNESS_SAMPLER },
      normalTexture: { group: BindGroup.MATERIAL, binding: M.NORMAL_TEXTURE },
      normalSampler: { group: BindGroup.MATERIAL, binding: M.NORMAL_SAMPLER },
      occlusionTexture: { group: BindGroup.MATERIAL, binding: M.OCCLUSION_TEXTURE },
      occlusionSampler: { group: BindGroup.MATERIAL, binding: M.OCCLUSION_SAMPLER },
      emissiveTexture: { group: BindGroup.MATERIAL, binding: M.EMISSIVE_TEXTURE },
      emissiveSampler: { group: BindGroup.MATERIAL, binding: M.EMISSIVE_SAMPLER },
    });
  });

  it('@group/@binding of the environment (shaders/environment-lighting.wgsl, part of the mesh shader)', () => {
    const F = FrameBinding;
    expect(Object.fromEntries(bindings(environmentLightingWgsl))).toEqual({
      environmentSpecular: { group: BindGroup.FRAME, binding: F.ENVIRONMENT_SPECULAR },
      environmentSampler: { group: BindGroup.FRAME, binding: F.ENVIRONMENT_SAMPLER },
      brdfLut: { group: BindGroup.FRAME, binding: F.BRDF_LUT },
      environmentBackground: { group: BindGroup.FRAME, binding: F.ENVIRONMENT_BACKGROUND },
    });
    expect(MESH_SHADER_SOURCE).toContain(environmentLightingWgsl);
    const data = new FrameUniformsData();
    expect(data.environmentLevels.byteOffset).toBe(FrameUniformsOffset.ENVIRONMENT_LEVELS);
    expect(data.shadowSpread.byteOffset).toBe(FrameUniformsOffset.SHADOW_SPREAD);
    expect(data.environmentIrradiance.byteOffset).toBe(FrameUniformsOffset.ENVIRONMENT_IRRADIANCE);
    expect(data.environmentIrradiance.byteLength).toBe(FRAME_UNIFORMS_SIZE - FrameUniformsOffset.ENVIRONMENT_IRRADIANCE);
  });

  it('flag bits and enum codes', () => {
    const c = new Map([...u32Constants(meshWgsl), ...u32Constants(pbrMaterialWgsl), ...u32Constants(pbrWgsl), ...u32Constants(drawRecordWgsl)]);
    const prefixed = (prefix: string) => Object.fromEntries([...c].filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v]));
    expect(prefixed('DRAW_')).toEqual(DrawFlag);
    expect(prefixed('MATERIAL_')).toEqual(MaterialFlag);
    expect(prefixed('TEXTURE_')).toEqual(MaterialTexture);
    expect(prefixed('ALPHA_')).toEqual(AlphaModeCode);
    expect(prefixed('TONE_MAP_')).toEqual(ToneMapping);
    expect(prefixed('SHADING_')).toEqual(MaterialShadingCode);
  });

  it('morph.wgsl: the active-target maximum and delta width of src/gpu/model/morph-targets.ts; it declares no bindings of its own', () => {
    const c = u32Constants(morphWgsl);
    expect(c.get('MAX_ACTIVE_MORPH_TARGETS')).toBe(MAX_ACTIVE_MORPH_TARGETS);
    expect(c.get('MORPH_DELTA_COMPONENTS')).toBe(MORPH_DELTA_COMPONENTS);
    // Two vec4f of weights and one vec4u of 16-bit target indices hold exactly the maximum.
    expect(MAX_ACTIVE_MORPH_TARGETS).toBe(8);
    expect(bindings(morphWgsl).size).toBe(0);
    expect(meshWgsl).toMatch(/var<storage, read> morphDeltas: array<f32>;/);
  });

  it('the skinning method is one vertex-stage override, DUAL_QUATERNION', () => {
    expect(meshWgsl).toMatch(/override DUAL_QUATERNION: bool = false;/);
    expect(MESH_SHADER_SOURCE.match(/override\s+DUAL_QUATERNION\b/g)).toHaveLength(1);
  });
});

const device = await testDevice();

describe.skipIf(!device)('the mesh shader compiles (Dawn)', () => {
  it('without errors or warnings', async () => {
    const gpu = device!;
    const info = await expectNoGpuErrors(gpu, () => gpu.createShaderModule({ label: 'mesh (compile check)', code: MESH_SHADER_SOURCE }).getCompilationInfo());
    expect(info.messages.map((m) => `${m.type} ${m.lineNum}:${m.linePos} ${m.message}`)).toEqual([]);
  });
});
