import { describe, expect, it } from 'vitest';
import { createModelInstance } from '../../src/anim/instance.ts';
import { createSkinnedBounds, SkinnedBoundsJob } from '../../src/anim/skinned-bounds.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { createShadowCasterBounds } from '../../src/gpu/frame/shadow-map.ts';
import { buildInstancedQuad, translations } from '../support/instancing.ts';

/** A quad of half size 0.25 instanced at x = −2 and x = 3 (scaled 2), on a node lifted 1, and a plain copy of it at z = 5. */
const model = await loadGltf(buildInstancedQuad({
  node: { translation: [0, 1, 0] },
  attributes: { TRANSLATION: translations(-2, 0, 0, 3, 0, 0), SCALE: { data: Float32Array.of(1, 1, 1, 2, 2, 2), type: 'VEC3' } },
  plainCopyAt: [0, 0, 5],
}));

describe('culling and shadow bounds of EXT_mesh_gpu_instancing nodes', () => {
  it('SkinnedBoundsJob: the instanced node\'s box covers every instance, the plain copy keeps its own', () => {
    const instance = createModelInstance(model);
    const min = new Float32Array(3), max = new Float32Array(3), perNode = new Float32Array(12);
    new SkinnedBoundsJob(createSkinnedBounds(model), instance, min, max, perNode).run();
    const eps = 1e-4; // the job's outward margins (weight sums, float rounding)
    // Instanced: x from −2.25 to 3.5, y from 1 − 0.5 to 1 + 0.5 (the scaled one), z 0.
    expect(perNode[0]).toBeLessThanOrEqual(-2.25); expect(perNode[0]).toBeGreaterThan(-2.25 - eps);
    expect(perNode[3]).toBeGreaterThanOrEqual(3.5); expect(perNode[3]).toBeLessThan(3.5 + eps);
    expect(perNode[1]).toBeLessThanOrEqual(0.5); expect(perNode[4]).toBeGreaterThanOrEqual(1.5);
    expect(perNode[4]).toBeLessThan(1.5 + eps);
    // The plain copy (same mesh, not instanced): the quad alone at z = 5.
    expect(perNode[6]).toBeLessThanOrEqual(-0.25); expect(perNode[6]).toBeGreaterThan(-0.25 - eps);
    expect(perNode[9]).toBeGreaterThanOrEqual(0.25); expect(perNode[9]).toBeLessThan(0.25 + eps);
    expect(min[0]).toBe(perNode[0]);
    expect(max[2]).toBe(perNode[11]);
  });

  it('shadow casters: one sphere per rigid primitive enclosing every instance', () => {
    const casters = createShadowCasterBounds(model);
    expect(casters.rigidSpheres.length).toBe(8);
    const [cx, cy, cz, r] = casters.rigidSpheres;
    // Instance centres at x = −2 and 3 (radii 0.25·√2 and 0.5·√2), around x = 0.5.
    expect([cx, cy, cz]).toEqual([0.5, 0, 0]);
    expect(r).toBeCloseTo(2.5 + 0.5 * Math.SQRT2, 6);
    expect(casters.rigidSpheres[7]).toBeCloseTo(0.25 * Math.SQRT2, 6);
  });
});
