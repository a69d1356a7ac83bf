import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { humanoidBoneSlot, nearestMappedAncestor } from '../../../src/anim/retarget/joint-map.ts';
import type { Hierarchy } from '../../../src/gltf/model.ts';
import { findSlot } from '../../../src/anim/mask.ts';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { composeModels } from '../../../src/gltf/compose.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { ASSETS_DIR, assetPath } from '../../support/assets.ts';
import { editGlb } from './fixtures.ts';

const VRM = join(ASSETS_DIR, 'vrm', 'VRMC_vrm_expressions_isBinary_Overrides.vrm');

describe('humanoidBoneSlot', () => {
  it('finds a humanoid bone by the rig\'s naming convention (the built-in character\'s Hand.L is leftHand)', async () => {
    const model = await loadGltf(buildBuiltinGlb('character'), { name: 'character' });
    expect(humanoidBoneSlot(model, 'leftHand')).toBe(findSlot(model, 'Hand.L'));
    expect(humanoidBoneSlot(model, 'head')).toBe(findSlot(model, 'Head'));
    expect(humanoidBoneSlot(model, 'leftIndexDistal')).toBe(-1);
    expect(humanoidBoneSlot(model, 'Hand.L')).toBe(-1);
  });

  it('uses a VRM\'s humanoid map, whatever its nodes are called; −1 for a rig no convention names', async () => {
    const renamed = editGlb(new Uint8Array(readFileSync(VRM)), (json) => {
      json.nodes.forEach((node: { name?: string }, i: number) => { node.name = `n${i}`; });
    });
    const model = await loadGltf(renamed, { name: 'renamed.vrm' });
    expect(model.humanoid?.head).toBeDefined();
    expect(humanoidBoneSlot(model, 'head')).toBe(model.hierarchy.slotOf[model.humanoid!.head!]);
    expect(humanoidBoneSlot(model, 'rightHand')).toBe(model.hierarchy.slotOf[model.humanoid!.rightHand!]);
    const fox = await loadGltf(new Uint8Array(readFileSync(assetPath('Fox'))), { name: 'Fox' });
    expect(humanoidBoneSlot(fox, 'head')).toBe(-1);
  });

  it('a composition keeps its VRM part\'s humanoid map, shifted to where that part\'s nodes went', async () => {
    const limb = await loadGltf(buildBuiltinGlb('limb'), { name: 'limb' });
    const vrm = await loadGltf(new Uint8Array(readFileSync(VRM)), { name: 'avatar.vrm' });
    const { model } = composeModels('both', [{ model: limb }, { model: vrm, root: 'extra-model 1' }], []);
    const shift = limb.nodes.length + 1;
    expect(model.humanoid?.head).toBe(vrm.humanoid!.head! + shift);
    expect(model.nodes[model.humanoid!.head!].name).toBe(vrm.nodes[vrm.humanoid!.head!].name);
    expect(humanoidBoneSlot(model, 'head')).toBe(model.hierarchy.slotOf[model.humanoid!.head!]);
  });
});

describe('nearestMappedAncestor (the one walk the map check, the hips search and the swings share)', () => {
  it('skips unmapped joints up to the nearest mapped one; -1 above a mapped root or with none mapped above', () => {
    // 0 ─ 1 ─ 2 ─ 3, and 0 ─ 4; 0 and 2 mapped.
    const h = { parentSlot: Int32Array.of(-1, 0, 1, 2, 0) } as unknown as Hierarchy;
    const mapped = Int32Array.of(7, -1, 5, -1, -1);
    expect([0, 1, 2, 3, 4].map((slot) => nearestMappedAncestor(h, mapped, slot))).toEqual([-1, 0, 0, 2, 0]);
    expect(nearestMappedAncestor(h, Int32Array.of(-1, -1, -1, 4, -1), 3)).toBe(-1);
  });
});
