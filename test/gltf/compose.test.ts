import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AnimationPlayer } from '../../src/anim/player.ts';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { composeModels, setPartRoot } from '../../src/gltf/compose.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import type { Model } from '../../src/gltf/model.ts';
import { composeTRS } from '../../src/math/trs.ts';
import { assetPath } from '../support/assets.ts';
import { COLOUR_VARIANTS, variantFileBytes } from '../support/variant-files.ts';

const builtin = (name: string): Promise<Model> => loadGltf(buildBuiltinGlb(name), { name });

/** a · b for column-major 4×4 matrices. */
function multiply(a: ArrayLike<number>, b: ArrayLike<number>): number[] {
  const out = new Array<number>(16).fill(0);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) out[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
  return out;
}

describe('composeModels', () => {
  it('appends each part after the previous, its indices shifted, its nodes under an added root; the hierarchy stays parent-first', async () => {
    const character = await builtin('character'), limb = await builtin('limb');
    const { model, rootSlots } = composeModels('both', [{ model: character }, { model: limb, root: 'extra-model 0' }], []);
    const h = model.hierarchy;
    expect(model.nodes.length).toBe(character.nodes.length + limb.nodes.length + 1);
    expect(h.count).toBe(character.hierarchy.count + limb.hierarchy.count + 1);
    expect(rootSlots[0]).toBe(-1);
    const root = rootSlots[1];
    expect(model.nodes[h.order[root]]).toMatchObject({ name: 'extra-model 0', parent: -1, mesh: -1, skin: -1 });
    for (let s = 0; s < h.count; s++) {
      expect(h.slotOf[h.order[s]]).toBe(s);
      expect(h.parentSlot[s]).toBeLessThan(s);
      const parent = model.nodes[h.order[s]].parent;
      expect(h.parentSlot[s]).toBe(parent < 0 ? -1 : h.slotOf[parent]);
    }
    // The limb's own roots hang from the added root; the character's stay roots.
    expect([...model.sceneRoots]).toEqual([...character.sceneRoots, h.order[root]]);
    expect(model.meshNodes.length).toBe(character.meshNodes.length + limb.meshNodes.length);
    expect(model.materials.length).toBe(character.materials.length + limb.materials.length);
    const limbMeshNode = model.meshNodes[character.meshNodes.length];
    expect(limbMeshNode.mesh).toBe(limb.meshNodes[0].mesh + character.meshes.length);
    expect(limbMeshNode.skin).toBe(limb.meshNodes[0].skin + character.skins.length);
    expect(Array.from(model.skins[limbMeshNode.skin].joints, (j) => model.nodes[j].name)).toEqual(Array.from(limb.skins[limb.meshNodes[0].skin].joints, (j) => limb.nodes[j].name));
    expect(model.meshes[limbMeshNode.mesh].primitives[0].material).toBe(limb.meshes[limb.meshNodes[0].mesh].primitives[0].material + character.materials.length);
    // Shared, not copied.
    expect(model.meshes[limbMeshNode.mesh].primitives[0].positions).toBe(limb.meshes[limb.meshNodes[0].mesh].primitives[0].positions);
  });

  it('a combined clip plays each part\'s clip on one timeline; the added root\'s rest transform (setPartRoot) places its part', async () => {
    const character = await builtin('character'), limb = await builtin('limb');
    const walk = character.animations.findIndex((c) => c.name === 'Walk');
    const { model, rootSlots } = composeModels('both', [{ model: character }, { model: limb, root: 'placed' }], [{ name: 'Walk', sources: [walk, 0] }]);
    expect(model.animations.map((c) => [c.name, c.duration])).toEqual([['Walk', Math.max(character.animations[walk].duration, limb.animations[0].duration)]]);
    const t = [2, 0.5, -1], r = [0, Math.sin(0.3), 0, Math.cos(0.3)], s = [1.5, 1.5, 1.5];
    setPartRoot(model, rootSlots[1], t, r, s);
    const composed = new AnimationPlayer(model), alone = new AnimationPlayer(character), limbAlone = new AnimationPlayer(limb);
    composed.setClip(0);
    alone.setClip(walk);
    limbAlone.setClip(0);
    for (const time of [0.1, 0.45]) {
      composed.seek(time);
      alone.seek(time);
      limbAlone.seek(time);
      const m = composed.instance.nodeMatrices;
      for (let slot = 0; slot < character.hierarchy.count; slot++) {
        for (let c = 0; c < 16; c++) expect(m[slot * 16 + c]).toBeCloseTo(alone.instance.nodeMatrices[slot * 16 + c], 12);
      }
      const place = composeTRS(t, r, s, new Float64Array(16));
      const first = rootSlots[1] + 1;
      for (let slot = 0; slot < limb.hierarchy.count; slot++) {
        const expected = multiply(place, limbAlone.instance.nodeMatrices.subarray(slot * 16, slot * 16 + 16));
        for (let c = 0; c < 16; c++) expect(m[(first + slot) * 16 + c]).toBeCloseTo(expected[c], 9);
      }
      // The character's palettes come out the same as alone.
      expect([...composed.instance.palette.subarray(0, alone.instance.palette.length)]).toEqual([...alone.instance.palette]);
    }
    expect(() => setPartRoot(model, rootSlots[1] + 1, t, r, s)).toThrow(/not a root/);
  });

  it('shifts textures, samplers and images; a variant list is the union, a part without a variant keeps its own material for it', async () => {
    const fox = await loadGltf(new Uint8Array(readFileSync(assetPath('Fox'))), { name: 'Fox' });
    const variants = await loadGltf(variantFileBytes(COLOUR_VARIANTS), { name: 'variants' });
    const { model } = composeModels('mix', [{ model: fox }, { model: fox, root: 'second' }, { model: variants, root: 'third' }], []);
    expect(model.images.length).toBe(2);
    expect(model.textures.length).toBe(2);
    expect(model.textures[1].source).toBe(fox.textures[0].source + 1);
    const second = model.materials[fox.materials.length];
    expect(second.baseColorTexture!.index).toBe(fox.materials[0].baseColorTexture!.index + fox.textures.length);
    expect(model.variants).toEqual(['blue', 'yellow']);
    const foxPrimitive = model.meshes[0].primitives[0];
    expect([...foxPrimitive.variantMaterials!]).toEqual([foxPrimitive.material, foxPrimitive.material]);
    const base = 2 * fox.materials.length;
    const left = model.meshes[2 * fox.meshes.length].primitives[0];
    expect(left.material).toBe(base);
    expect([...left.variantMaterials!]).toEqual([base + 2, base + 3]);
  });

  it('refuses no parts, and a clip whose sources do not match the parts', async () => {
    const limb = await builtin('limb');
    expect(() => composeModels('none', [], [])).toThrow(RangeError);
    expect(() => composeModels('bad', [{ model: limb }], [{ name: 'x', sources: [0, 0] }])).toThrow(/2 sources for 1 parts/);
    expect(() => composeModels('bad', [{ model: limb }], [{ name: 'x', sources: [5] }])).toThrow(/part 0 has no clip 5/);
  });
});
