/**
 * The rest pose's model-space matrices (src/anim/local-to-model.ts restWorldMatrices): the one
 * rest-pose world function equals what localToModel makes of a rest pose (a fresh instance's
 * node matrices), value for value (up to the sign of a zero), on every shared asset and the
 * built-in models, and after a composed model's part root moved (setPartRoot). A VRM avatar's
 * instance runs its pose steps at rest too, which moves its spring joints by rounding only: so
 * the rest-pose users (root motion, the ground's footprint) take restWorldMatrices for it too.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createModelInstance } from '../../src/anim/instance.ts';
import { composeModels, setPartRoot } from '../../src/gltf/compose.ts';
import { restWorldMatrices } from '../../src/anim/local-to-model.ts';
import { buildBuiltinGlb, builtinModelNames } from '../../src/builtin/index.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { sharedAssets } from '../support/assets.ts';

describe('restWorldMatrices', () => {
  it('is a rest-pose instance\'s node matrices, exactly', async () => {
    const files = [
      ...sharedAssets().map((a) => ({ name: a.name, bytes: readFileSync(a.path) })),
      ...builtinModelNames().map((name) => ({ name, bytes: buildBuiltinGlb(name) })),
    ];
    expect(files.length).toBeGreaterThan(10);
    for (const { name, bytes } of files) {
      const model = await loadGltf(bytes, { name });
      // A VRM avatar's instance runs its pose steps (constraints, springs) even at rest.
      if (model.vrm) continue;
      const rest = restWorldMatrices(model.hierarchy), posed = createModelInstance(model).nodeMatrices;
      expect(rest.length, name).toBe(posed.length);
      // Equal as numbers (a zero may differ in sign: −0 === 0).
      const differing = Array.from(rest).filter((v, i) => v !== posed[i]);
      expect(differing, name).toEqual([]);
    }
  });

  it('follows a composed model\'s part root moved by setPartRoot', async () => {
    const character = await loadGltf(buildBuiltinGlb('character')), limb = await loadGltf(buildBuiltinGlb('limb'));
    const { model, rootSlots } = composeModels('both', [{ model: character }, { model: limb, root: 'placed' }], []);
    setPartRoot(model, rootSlots[1], [2, 0.5, -1], [0, Math.sin(0.3), 0, Math.cos(0.3)], [1.5, 1.5, 1.5]);
    const rest = restWorldMatrices(model.hierarchy), posed = createModelInstance(model).nodeMatrices;
    expect(rest[rootSlots[1] * 16 + 12]).toBe(2);
    expect(Array.from(rest).filter((v, i) => v !== posed[i])).toEqual([]);
  });

  it('differs from a VRM avatar\'s rest instance only by rounding, in its spring joints', async () => {
    let avatars = 0;
    for (const name of builtinModelNames()) {
      const model = await loadGltf(buildBuiltinGlb(name), { name });
      if (!model.vrm) continue;
      avatars++;
      const rest = restWorldMatrices(model.hierarchy), posed = createModelInstance(model).nodeMatrices;
      const h = model.hierarchy, springs = model.vrm.springBones;
      const heads = new Set(Array.from(springs?.jointNode ?? [], (node) => h.slotOf[node]));
      // A spring joint's head or anything under one.
      const underSpring = (slot: number): boolean => slot >= 0 && (heads.has(slot) || underSpring(h.parentSlot[slot]));
      expect(heads.size, name).toBeGreaterThan(0);
      for (let i = 0; i < rest.length; i++) {
        if (rest[i] === posed[i]) continue;
        expect(underSpring(i >> 4), `${name} slot ${i >> 4}`).toBe(true);
        expect(Math.abs(rest[i] - posed[i]), `${name} slot ${i >> 4}`).toBeLessThan(1e-12);
      }
    }
    expect(avatars).toBeGreaterThan(0);
  });
});
