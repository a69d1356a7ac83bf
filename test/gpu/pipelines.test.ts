/**
 * Pipeline keys (src/gpu/pipelines.ts): what is compiled in per pipeline is part of the key,
 * so a primitive without morph targets never shares a pipeline compiled with them.
 */
import { describe, expect, it } from 'vitest';
import meshWgsl from '../../shaders/mesh.wgsl?raw';
import { meshPipelineKey, type MeshPipelineDesc } from '../../src/gpu/pipelines.ts';

const desc: MeshPipelineDesc = {
  vertexLayoutKey: 'p', vertexLayouts: [], influences: 4, topology: 'triangle-list', stripIndexFormat: undefined,
  alphaMode: 'OPAQUE', doubleSided: false, frontFace: 'ccw', colorFormat: 'rgba8unorm',
};

describe('meshPipelineKey', () => {
  it('keys morph targets compiled in or out; unset means compiled in', () => {
    expect(meshPipelineKey({ ...desc, morphed: false })).not.toBe(meshPipelineKey({ ...desc, morphed: true }));
    expect(meshPipelineKey(desc)).toBe(meshPipelineKey({ ...desc, morphed: true }));
  });

  it('the overrides it sets exist in mesh.wgsl, defaulting to the behaviour of an unspecialised pipeline', () => {
    expect(meshWgsl).toMatch(/override MORPH_TARGETS: bool = true;/);
    expect(meshWgsl).toMatch(/override ALPHA_TEST: bool = true;/);
    // discard only under ALPHA_TEST, so opaque and blended pipelines compile without it.
    for (const m of meshWgsl.matchAll(/discard;/g)) {
      const before = meshWgsl.slice(Math.max(0, m.index! - 120), m.index);
      expect(before).toMatch(/ALPHA_TEST &&/);
    }
  });
});
