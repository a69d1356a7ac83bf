import { describe, expect, it } from 'vitest';
import { bakeModel } from '../../src/bake/bake.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { bakeModelGpu } from '../../src/bake/gpu-bake.ts';
import { buildMorphedSkin } from '../support/fixtures.ts';
import { useTestDevice } from '../support/webgpu.ts';

const gpu = useTestDevice('morph gpu bake tests');

describe('bake --backend gpu with morph targets', () => {
  it('skins the morphed vertices exactly as the CPU does, at rest and mid-clip', async (ctx) => {
    const device = gpu.device(ctx);
    const model = await loadGltf(buildMorphedSkin());
    for (const time of [0, 0.5, 1]) {
      const cpu = bakeModel(model, { time });
      const got = await bakeModelGpu(device, model, { time });
      const a = cpu.primitives[0], b = got.primitives[0];
      for (let i = 0; i < a.positions.length; i++) expect(Math.abs(a.positions[i] - b.positions[i]), `t=${time} position ${i}`).toBeLessThan(1e-6);
      for (let i = 0; i < a.normals!.length; i++) expect(Math.abs(a.normals![i] - b.normals![i]), `t=${time} normal ${i}`).toBeLessThan(1e-6);
    }
    // The morph really moved something: t=1 differs from the rest pose.
    expect(bakeModel(model, { time: 1 }).primitives[0].positions[2]).not.toBe(bakeModel(model, { time: 0 }).primitives[0].positions[2]);
  });
});
