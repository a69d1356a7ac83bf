import { describe, expect, it } from 'vitest';
import { loadGltf } from '../../src/gltf/load.ts';
import { applyMorphTargets, createMorphedVertices } from '../../src/skin/morph.ts';
import { bakeModel } from '../../src/bake/bake.ts';
import { posedPrimitives } from '../../src/bake/posed.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import { assetPath } from '../support/assets.ts';
import { buildMorphedSkin } from '../support/fixtures.ts';

describe('applyMorphTargets', () => {
  it('returns the primitive itself when every weight is 0', async () => {
    const prim = (await loadGltf(buildMorphedSkin())).meshes[0].primitives[0];
    expect(applyMorphTargets(prim, Float32Array.of(0, 0), 0, 2, createMorphedVertices(prim))).toBe(prim);
  });
  it('adds weighted deltas to positions, normals and tangent xyz, keeping tangent w', async () => {
    const prim = (await loadGltf(buildMorphedSkin())).meshes[0].primitives[0];
    const out = applyMorphTargets(prim, Float32Array.of(9, 0.5, 0.25), 1, 2, createMorphedVertices(prim));
    expect(Array.from(out.positions)).toEqual([1, 0, 0.5, 0, 1, 0.5, 0, 0, 0]);
    expect(Array.from(out.normals!)).toEqual([0.5, 0, 1, 0, 0, 1, 0, 0, 1]);
    expect(Array.from(out.tangents!)).toEqual([1, 0, 0, -1, 1, 0.25, 0, -1, 1, 0, 0, -1]);
  });
  it('ignores targets beyond the weights given', async () => {
    const prim = (await loadGltf(buildMorphedSkin())).meshes[0].primitives[0];
    const out = applyMorphTargets(prim, Float32Array.of(1), 0, 1, createMorphedVertices(prim));
    expect(Array.from(out.positions)).toEqual([1, 0, 1, 0, 1, 0, 0, 0, 0]);
  });
});

describe('bake applies morph targets before skinning', () => {
  it('uses the mesh default weights in the rest pose and the animated weights in a clip', async () => {
    const model = await loadGltf(buildMorphedSkin());
    const rest = bakeModel({ ...model, animations: [] });
    expect(Array.from(rest.primitives[0].positions)).toEqual([1, 2, 0.5, 0, 3, 0, 0, 2, 0]);
    const t1 = bakeModel(model, { time: 1 }); // weights (1, 0.5)
    expect(Array.from(t1.primitives[0].positions)).toEqual([1, 2, 1, 0, 3, 1, 0, 2, 0]);
    const n = t1.primitives[0].normals!;
    expect(n[0]).toBeCloseTo(Math.SQRT1_2, 12); // (1, 0, 1) renormalised after skinning
    expect(n[2]).toBeCloseTo(Math.SQRT1_2, 12);
  });

  it('SimpleMorph (rigid) is morphed in the posed scene the GLB and OBJ outputs write', async () => {
    const model = await loadGltfFile(assetPath('SimpleMorph'));
    const base = model.meshes[0].primitives[0].positions;
    const result = bakeModel(model, { time: 1 });
    const slot = model.hierarchy.slotOf[model.meshNodes[0].node];
    const w = result.pose.weights.subarray(result.pose.weightOffsets[slot], result.pose.weightOffsets[slot + 1]);
    expect(Math.max(...w)).toBeGreaterThan(0);
    const [posed] = posedPrimitives(model, result);
    const targets = model.meshes[0].primitives[0].targets;
    for (let i = 0; i < base.length; i++) {
      const expected = base[i] + w[0] * targets[0].positions![i] + w[1] * targets[1].positions![i];
      expect(posed.positions[i]).toBeCloseTo(expected, 6);
    }
  });
});
