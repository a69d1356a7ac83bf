/**
 * Each clip's root motion table (src/anim/crowd-root-motion.ts findRootMotions), which a crowd and
 * the viewer's walking character share: found from the rest world matrices (restWorldMatrices), it
 * equals what findRootMotion gives on a rest instance's node matrices, value for value.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findRootMotion, findRootMotions } from '../../src/anim/crowd-root-motion.ts';
import { createModelInstance } from '../../src/anim/instance.ts';
import { buildBuiltinGlb, builtinModelNames } from '../../src/builtin/index.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { sharedAssets } from '../support/assets.ts';

describe('findRootMotions', () => {
  it('is each clip\'s findRootMotion on a rest instance, value for value, on every shared asset and built-in model', async () => {
    const files = [
      ...sharedAssets().map((a) => ({ name: a.name, bytes: readFileSync(a.path) })),
      ...builtinModelNames().map((name) => ({ name, bytes: buildBuiltinGlb(name) })),
    ];
    let travelling = 0;
    for (const { name, bytes } of files) {
      const model = await loadGltf(bytes, { name });
      const rest = createModelInstance(model).nodeMatrices;
      const table = findRootMotions(model);
      expect(table.length, name).toBe(model.animations.length);
      table.forEach((m, clip) => {
        const expected = findRootMotion(model, clip, rest);
        expect(m === undefined, `${name} clip ${clip}`).toBe(expected === undefined);
        if (!m || !expected) return;
        travelling++;
        expect(m.track.rootSlot, `${name} clip ${clip}`).toBe(expected.track.rootSlot);
        expect(Array.from(m.track.up), `${name} clip ${clip}`).toEqual(Array.from(expected.track.up));
        expect(Array.from(m.parentWorld), `${name} clip ${clip}`).toEqual(Array.from(expected.parentWorld));
        expect(Array.from(m.parentWorldInverse), `${name} clip ${clip}`).toEqual(Array.from(expected.parentWorldInverse));
        expect(Array.from(m.track.ends), `${name} clip ${clip}`).toEqual(Array.from(expected.track.ends));
      });
    }
    expect(travelling).toBeGreaterThan(0);
  });
});
