/**
 * The world matrix a mesh node is drawn with (src/anim/mesh-node-world.ts): its node's from the
 * pose's node matrices, times the instance matrix for an EXT_mesh_gpu_instancing node — the one
 * place the bake's posed primitives, the CPU bounds and the ray casts take it from.
 */
import { describe, expect, it } from 'vitest';
import { createModelInstance } from '../../src/anim/instance.ts';
import { meshNodeWorld } from '../../src/anim/mesh-node-world.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { multiplyMat4 } from '../../src/math/trs.ts';
import { buildInstancedQuad, translations } from '../support/instancing.ts';

describe('meshNodeWorld', () => {
  it('is the node\'s world matrix, times instance matrix k for an instanced node; it writes dst only', async () => {
    const model = await loadGltf(buildInstancedQuad({
      halfSize: 0.5,
      node: { translation: [0, 0, -1] },
      attributes: { TRANSLATION: translations(10, 0, 0, 0, 20, 0) },
      plainCopyAt: [0, 0, 3],
    }));
    const { nodeMatrices } = createModelInstance(model);
    const instanced = model.meshNodes.findIndex((mn) => mn.instances !== undefined);
    const plain = model.meshNodes.findIndex((mn) => mn.instances === undefined);
    expect(instanced).toBeGreaterThanOrEqual(0);
    expect(plain).toBeGreaterThanOrEqual(0);
    const slot = (i: number) => model.hierarchy.slotOf[model.meshNodes[i].node] * 16;
    const dst = new Float64Array(16).fill(7);
    expect(meshNodeWorld(model, nodeMatrices, plain, 0, dst)).toBe(dst);
    expect(Array.from(dst)).toEqual(Array.from(nodeMatrices.subarray(slot(plain), slot(plain) + 16)));
    expect([dst[12], dst[13], dst[14]]).toEqual([0, 0, 3]);
    for (const k of [0, 1]) {
      meshNodeWorld(model, nodeMatrices, instanced, k, dst);
      expect(Array.from(dst)).toEqual(Array.from(multiplyMat4(nodeMatrices, model.meshNodes[instanced].instances!, new Float64Array(16), slot(instanced), k * 16, 0)));
    }
    // Instance 1: the node's translation (0, 0, −1) plus its own (0, 20, 0).
    expect([dst[12], dst[13], dst[14]]).toEqual([0, 20, -1]);
  });
});
