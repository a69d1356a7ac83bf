import { afterAll, describe, it } from 'vitest';
import { bakeModel } from '../../src/bake/bake.ts';
import { bakeModelGpu } from '../../src/bake/gpu-bake.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { sharedAssets } from '../support/assets.ts';
import { compareBakes, noErrors, poses, type BakeErrors } from '../support/compare-bakes.ts';
import { compressFile } from '../support/compressed.ts';
import { useTestDevice } from '../support/webgpu.ts';

/**
 * The GPU path on decoded Draco data: what the loader makes of a Draco primitive (joints as
 * the u8/u16 integers Draco stores, weights as declared, decoded indices) uploads and skins on
 * the GPU exactly as the CPU bake does, at the same tolerances as the uncompressed assets
 * (gpu-bake.test.ts). That the Draco bakes match the originals is khr-draco-mesh-compression.test.ts.
 */
const gpu = useTestDevice('Draco GPU bake tests');

const measured = new Map<string, BakeErrors>();
afterAll(() => {
  if (measured.size === 0) return;
  const rows = [...measured].map(([name, e]) => `  ${name.padEnd(30)} ${String(e.primitives).padStart(4)} primitive bakes  pos ${e.position.toExponential(1)}  nrm ${e.normalDegrees.toExponential(1)}°`);
  process.stdout.write(`GPU vs CPU bake of the Draco variants, largest errors:\n${rows.join('\n')}\n`);
});

describe('bakeModelGpu matches bakeModel on every shared asset’s Draco variant', () => {
  for (const asset of sharedAssets()) {
    it(`${asset.name} (Draco): every skinned primitive, every clip at 3 times`, async (ctx) => {
      const device = gpu.device(ctx);
      const model = await loadGltf(await compressFile(asset.path, 'draco'), { name: asset.name });
      const errors = noErrors();
      for (const options of poses(model)) {
        compareBakes(bakeModel(model, options), await bakeModelGpu(device, model, options), `${asset.name} (Draco) ${JSON.stringify(options)}`, errors);
      }
      measured.set(asset.name, errors);
    }, 120_000);
  }
});
