/** crowd-eval.wgsl ↔ src/gpu/crowd/layout.ts: every struct's size and offsets, constants and bindings, from the shader text. */
import { describe, expect, it } from 'vitest';
import { Interpolation, TargetPath } from '../../../src/gltf/constants.ts';
import {
  CHANNEL_WORDS, CLIP_WORDS, CROWD_WORKGROUP_SIZE, CrowdBinding, GLOBAL_VEC4S, INSTANCE_STATE_BYTES, InstanceStateOffset, LOCAL_VEC4S, MeshMode,
  NO_CLIP, NODE_RECORD_BYTES, NodeKind, NodeRecordOffset, NO_CHANNEL, PALETTE_JOINT_BYTES, PaletteJointOffset, PARAMS_BYTES, ParamsOffset, TABLE_WORDS,
} from '../../../src/gpu/crowd/layout.ts';
import crowdEvalWgsl from '../../../shaders/crowd-eval.wgsl?raw';
import { specialisation } from '../../../src/gpu/crowd/evaluator.ts';
import { loadModel } from '../gpu-test.ts';
import { buildChain, buildMorphedSkin } from '../../support/fixtures.ts';
import { bindings, screamingSnake, structLayout, u32Constants } from '../wgsl-layout.ts';

function expectStruct(name: string, offsets: Record<string, number>, size: number): void {
  const layout = structLayout(crowdEvalWgsl, name);
  expect(Object.fromEntries(layout.fields.map((f) => [screamingSnake(f.name), f.offset])), name).toEqual(offsets);
  expect(layout.size, name).toBe(size);
}

describe('crowd-eval.wgsl ↔ crowd-gpu/layout.ts', () => {
  it('InstanceState is 32 bytes: the whole per-frame upload of an instance', () => {
    expectStruct('InstanceState', InstanceStateOffset, INSTANCE_STATE_BYTES);
    expect(INSTANCE_STATE_BYTES).toBe(32);
  });

  it('NodeRecord, PaletteJoint and Params', () => {
    expectStruct('NodeRecord', NodeRecordOffset, NODE_RECORD_BYTES);
    expectStruct('PaletteJoint', PaletteJointOffset, PALETTE_JOINT_BYTES);
    expectStruct('Params', ParamsOffset, PARAMS_BYTES);
  });

  it('constants: record sizes, sentinels, glTF enums, node and mesh modes', () => {
    const c = u32Constants(crowdEvalWgsl);
    expect(Object.fromEntries(c)).toEqual({
      WORKGROUP_SIZE: CROWD_WORKGROUP_SIZE, NO_CLIP, NO_CHANNEL, CLIP_WORDS, TABLE_WORDS, CHANNEL_WORDS, LOCAL_VEC4S, GLOBAL_VEC4S,
      INTERPOLATION_LINEAR: Interpolation.LINEAR, INTERPOLATION_STEP: Interpolation.STEP, INTERPOLATION_CUBICSPLINE: Interpolation.CUBICSPLINE,
      PATH_TRANSLATION: TargetPath.TRANSLATION, PATH_ROTATION: TargetPath.ROTATION, PATH_SCALE: TargetPath.SCALE, PATH_WEIGHTS: TargetPath.WEIGHTS,
      MESH_WORLD: MeshMode.WORLD, MESH_STATIC: MeshMode.STATIC, MESH_ANIMATED: MeshMode.ANIMATED,
      NODE_TRS: NodeKind.TRS, NODE_MATRIX: NodeKind.MATRIX, NODE_STATIC: NodeKind.STATIC,
    });
  });

  it('feature overrides: one per specialisation key; each false only when the model never needs that code', async () => {
    const overrides = [...crowdEvalWgsl.matchAll(/override\s+(\w+)\s*:\s*bool\s*=\s*true\s*;/g)].map((m) => m[1]).filter((n) => n !== 'HAS_CROSSFADE').sort();
    const chain = await loadModel(buildChain({ interpolation: 'STEP' }), 'chain');
    expect(Object.keys(specialisation(chain, 0)).sort()).toEqual(overrides);
    expect(specialisation(chain, 0)).toEqual({ HAS_CUBICSPLINE: 0, HAS_STEP: 1, HAS_ROOT_LOCKS: 0, HAS_MORPH_WEIGHTS: 0 });
    const cubic = await loadModel(buildChain({ interpolation: 'CUBICSPLINE' }), 'chain');
    expect(specialisation(cubic, 0, [undefined, { rootSlot: 0, up: [0, 1, 0], ends: [0, 0, 0, 0] }])).toEqual({ HAS_CUBICSPLINE: 1, HAS_STEP: 0, HAS_ROOT_LOCKS: 1, HAS_MORPH_WEIGHTS: 0 });
    const morph = await loadModel(buildMorphedSkin(), 'morph');
    expect(specialisation(morph, 2).HAS_MORPH_WEIGHTS).toBe(1);
  });

  it('bindings of group 0', () => {
    const b = bindings(crowdEvalWgsl);
    expect([...b.values()].every((x) => x.group === 0)).toBe(true);
    expect(Object.fromEntries([...b].map(([name, x]) => [screamingSnake(name), x.binding]))).toEqual(CrowdBinding);
  });
});
