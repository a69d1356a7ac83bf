/**
 * The rest pose's bounds (src/gpu/frame/bounds.ts restPoseBounds, where the ground disc goes): from
 * the rest world matrices (restWorldMatrices) and their palettes, exactly the bounds of a rest
 * instance (computeInstanceBounds(createModelInstance(model))) on every shared asset and built-in
 * model; a VRM avatar's, whose rest instance also runs its spring steps, agrees to rounding.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createModelInstance } from '../../../src/anim/instance.ts';
import { buildBuiltinGlb, builtinModelNames } from '../../../src/builtin/index.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { computeInstanceBounds, restPoseBounds } from '../../../src/gpu/frame/bounds.ts';
import { sharedAssets } from '../../support/assets.ts';

describe('restPoseBounds', () => {
  it('is a rest instance\'s bounds: exactly, or to rounding for a VRM avatar', async () => {
    const files = [
      ...sharedAssets().map((a) => ({ name: a.name, bytes: readFileSync(a.path) })),
      ...builtinModelNames().map((name) => ({ name, bytes: buildBuiltinGlb(name) })),
    ];
    expect(files.length).toBeGreaterThan(10);
    for (const { name, bytes } of files) {
      const model = await loadGltf(bytes, { name });
      const rest = restPoseBounds(model), instance = computeInstanceBounds(createModelInstance(model));
      const values = (b: typeof rest) => [...b.min, ...b.max, ...b.center, b.radius];
      if (!model.vrm) expect(values(rest), name).toEqual(values(instance));
      else values(rest).forEach((v, i) => expect(v, `${name} [${i}]`).toBeCloseTo(values(instance)[i], 6));
    }
  });
});
