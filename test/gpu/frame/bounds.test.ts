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
import { assetPath, sharedAssets } from '../../support/assets.ts';
import { AnimationPlayer } from '../../../src/anim/player.ts';
import { meshNodeWorld } from '../../../src/anim/mesh-node-world.ts';
import { weldPrimitive } from '../../../src/gltf/topology.ts';
import { createSkinnedVertices, skinPrimitive } from '../../../src/skin/cpu-skin.ts';

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

describe('computeInstanceBounds', () => {
  it('skins each welded vertex once: on the Fox (1728 corners, 434 vertices), the box of every corner skinned, in every clip at every sampled time', async () => {
    const model = await loadGltf(readFileSync(assetPath('Fox')), { name: 'Fox' });
    const player = new AnimationPlayer(model);
    const prim = model.meshes[0].primitives[0], mn = model.meshNodes[0];
    expect(weldPrimitive(prim).vertexCount).toBeLessThan(prim.vertexCount / 3);
    const world = new Float64Array(16);
    const SAMPLES = 16;
    for (let k = 0; k < model.animations.length * SAMPLES; k++) {
      player.clip = Math.floor(k / SAMPLES);
      player.seek((player.duration * (k % SAMPLES)) / (SAMPLES - 1));
      const { palette, paletteOffsets, nodeMatrices } = player.instance;
      const skinned = skinPrimitive(prim, palette, createSkinnedVertices(prim, 'float64'), paletteOffsets[0]).positions;
      meshNodeWorld(model, nodeMatrices, 0, 0, world);
      const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
      for (let v = 0; v < prim.vertexCount; v++) {
        for (let c = 0; c < 3; c++) {
          const w = Math.fround(world[c] * skinned[v * 3] + world[4 + c] * skinned[v * 3 + 1] + world[8 + c] * skinned[v * 3 + 2] + world[12 + c]);
          min[c] = Math.min(min[c], w);
          max[c] = Math.max(max[c], w);
        }
      }
      expect(mn.mesh).toBe(0);
      const b = computeInstanceBounds(player.instance);
      expect([...b.min, ...b.max], `clip ${player.clip} time ${player.time}`).toEqual([...min, ...max]);
    }
  });
});
