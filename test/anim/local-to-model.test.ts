/**
 * The rest pose's model-space matrices (src/anim/local-to-model.ts restWorldMatrices): the one
 * rest-pose world function equals what localToModel makes of a rest pose (a fresh instance's
 * node matrices), value for value (up to the sign of a zero), on every shared asset and the
 * built-in models. A VRM avatar's instance differs on purpose: its pose steps run at rest too.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createModelInstance } from '../../src/anim/instance.ts';
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
});
