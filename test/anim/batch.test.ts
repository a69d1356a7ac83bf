import { describe, expect, it } from 'vitest';
import {
  createInstanceBatch, sampleInstanceBatch, updateBatchMatricesAndPalettes, updateInstanceBatch, type InstanceBatch,
} from '../../src/anim/batch.ts';
import { createModelInstance, updateMatricesAndPalettes, updateModelInstance } from '../../src/anim/instance.ts';
import { localToModel } from '../../src/anim/local-to-model.ts';
import { skinPalette } from '../../src/anim/palette.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import type { Model } from '../../src/gltf/model.ts';
import { assetPath, sharedAssets } from '../support/assets.ts';
import { loadCharacter, paletteUlpError } from './fixtures.ts';
import { expectArraysEqual } from '../support/expect-arrays.ts';

const FRACTIONS = [0, 0.1, 0.33, 0.5, 0.77, 1, 1.2];

/** Largest |a - b| over two arrays of equal length (0 for equal numbers, whatever a zero's sign). */
function maxDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let max = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i] === b[i] ? 0 : Math.abs(a[i] - b[i]);
    if (!(d <= max)) max = d;
  }
  return max;
}

function setFrame(batch: InstanceBatch, clip: number, time: number): void {
  for (let i = 0; i < batch.count; i++) { batch.clips[i] = clip; batch.times[i] = time + 0.01 * i; }
}

/**
 * Palette of a batch character against the JS jobs': equal on the JS path; on the kernel,
 * whose last product is f32, within a few f32 ulps (paletteUlpError).
 */
function expectPalette(batch: InstanceBatch, i: number, expected: ArrayLike<number>, message?: string): void {
  const instance = batch.instances[i];
  if (batch.accelerated) expect(paletteUlpError(instance.palette, expected, batch.model, instance.nodeMatrices), message).toBeLessThanOrEqual(1);
  else expect(maxDifference(instance.palette, expected), message).toBe(0);
}

describe('createInstanceBatch', () => {
  it('refuses a count that is not a positive integer', async () => {
    const model = await loadCharacter();
    for (const count of [0, -1, 1.5, Number.NaN]) expect(() => createInstanceBatch(model, count)).toThrow(/count must be a positive integer/);
  });

  it('uses the WebAssembly kernel where available, and the JS jobs when told not to', async () => {
    const model = await loadCharacter();
    expect(createInstanceBatch(model, 2).accelerated).toBe(true);
    expect(createInstanceBatch(model, 2, { wasm: false }).accelerated).toBe(false);
  });

  it('lays every character palette back to back in `palette`, as views', async () => {
    const model = await loadGltfFile(assetPath('Fox'));
    const batch = createInstanceBatch(model, 3);
    expect(batch.paletteMatrixCount).toBe(24);
    expect(batch.palette.length).toBe(3 * 24 * 16);
    batch.instances.forEach((instance, i) => {
      expect(instance.palette.buffer).toBe(batch.palette.buffer);
      expect(instance.palette.byteOffset).toBe(batch.palette.byteOffset + i * 24 * 64);
      expect(instance.paletteMatrixCount).toBe(24);
    });
  });

  it('starts in the rest pose, as createModelInstance', async () => {
    const model = await loadGltfFile(assetPath('CesiumMan'));
    const batch = createInstanceBatch(model, 2);
    const reference = createModelInstance(model);
    batch.instances.forEach((instance, i) => {
      expectPalette(batch, i, reference.palette);
      expect(maxDifference(instance.nodeMatrices, reference.nodeMatrices)).toBe(0);
    });
  });
});

describe('updateInstanceBatch', () => {
  // Every clip of every shared asset, at times inside, on and past the keys, plus the rest pose.
  for (const asset of sharedAssets()) {
    it(`${asset.name}: WebAssembly and JS batches equal updateModelInstance on every clip (kernel palettes to f32 rounding)`, async () => {
      const model = await loadGltfFile(asset.path);
      const wasm = createInstanceBatch(model, 3), js = createInstanceBatch(model, 3, { wasm: false });
      const reference = createModelInstance(model);
      for (let clip = -1; clip < model.animations.length; clip++) {
        const duration = clip >= 0 ? model.animations[clip].duration : 1;
        for (const f of FRACTIONS) {
          setFrame(wasm, clip, f * duration); setFrame(js, clip, f * duration);
          updateInstanceBatch(wasm); updateInstanceBatch(js);
          for (let i = 0; i < 3; i++) {
            updateModelInstance(reference, clip, wasm.times[i]);
            for (const batch of [wasm, js]) {
              const instance = batch.instances[i];
              expectPalette(batch, i, reference.palette, `${batch.accelerated ? 'wasm' : 'js'} clip ${clip} t ${batch.times[i]}`);
              expect(maxDifference(instance.nodeMatrices, reference.nodeMatrices)).toBe(0);
              expect(maxDifference(instance.pose.weights, reference.pose.weights)).toBe(0);
            }
          }
        }
      }
    });
  }

  it('node matrices keep the sign of zero too, and palettes\' bottom rows are exactly 0 0 0 1 (never −0), as Object.is-based toEqual sees', async () => {
    for (const name of ['Fox', 'CesiumMan']) {
      const model = await loadGltfFile(assetPath(name));
      const batch = createInstanceBatch(model, 1);
      const reference = createModelInstance(model);
      for (let clip = -1; clip < model.animations.length; clip++) {
        batch.clips[0] = clip; batch.times[0] = 0.4;
        updateInstanceBatch(batch);
        updateModelInstance(reference, clip, 0.4);
        const palette = batch.instances[0].palette;
        for (let o = 0; o < palette.length; o += 16) {
          expect([palette[o + 3], palette[o + 7], palette[o + 11], palette[o + 15]], `${name} clip ${clip}`).toEqual([0, 0, 0, 1]);
        }
        expectPalette(batch, 0, reference.palette, `${name} clip ${clip}`);
        expectArraysEqual(batch.instances[0].nodeMatrices, reference.nodeMatrices, `${name} clip ${clip}`);
      }
    }
  });

  it('a batch larger than one kernel chunk poses every character as updateModelInstance', async () => {
    const model = await loadGltfFile(assetPath('Fox'));
    const batch = createInstanceBatch(model, 50);
    expect(batch.layout.chunk).toBeLessThan(25); // at least three chunks
    const reference = createModelInstance(model);
    for (let i = 0; i < batch.count; i++) { batch.clips[i] = i % 4 - 1; batch.times[i] = 0.037 * i; }
    updateInstanceBatch(batch);
    for (let i = 0; i < batch.count; i++) {
      updateModelInstance(reference, batch.clips[i], batch.times[i]);
      expectPalette(batch, i, reference.palette, `character ${i}`);
    }
  });

  it('world palettes equal skinPalette with meshSlot -1, on both paths (the kernel to f32 rounding)', async () => {
    const model = await loadGltfFile(assetPath('CesiumMan'));
    for (const wasm of [true, false]) {
      const batch = createInstanceBatch(model, 2, { worldPalettes: true, wasm });
      setFrame(batch, 0, 0.7);
      updateInstanceBatch(batch);
      const skin = model.skins[model.meshNodes.find((mn) => mn.skin >= 0)!.skin];
      batch.instances.forEach((instance, i) => {
        const expected = new Float32Array(instance.palette.length);
        skinPalette(skin, localToModel(model.hierarchy, instance.pose, new Float64Array(model.hierarchy.count * 16)), -1, expected);
        expectPalette(batch, i, expected);
      });
    }
  });

  it('falls back to world palettes when the mesh node matrix is singular, as skinPalette does', async () => {
    const fox = await loadGltfFile(assetPath('Fox'));
    const meshSlot = fox.hierarchy.slotOf[fox.meshNodes.find((mn) => mn.skin >= 0)!.node];
    const restScale = fox.hierarchy.restScale.slice();
    restScale.fill(0, meshSlot * 3, meshSlot * 3 + 3);
    const model: Model = { ...fox, hierarchy: { ...fox.hierarchy, restScale } };
    const batch = createInstanceBatch(model, 2), world = createInstanceBatch(model, 2, { worldPalettes: true });
    const reference = createModelInstance(model);
    for (const b of [batch, world]) { setFrame(b, 1, 0.4); updateInstanceBatch(b); }
    for (let i = 0; i < 2; i++) {
      updateModelInstance(reference, 1, batch.times[i]);
      expectPalette(batch, i, reference.palette, `character ${i}`);
      expect(maxDifference(batch.instances[i].palette, world.instances[i].palette)).toBe(0);
    }
  });

  it('leaves skins with a non-affine inverse bind matrix to skinPalette, the others to the kernel', async () => {
    const fox = await loadGltfFile(assetPath('Fox'));
    const skin = fox.skins[0];
    const inverseBindMatrices = skin.inverseBindMatrices.slice();
    inverseBindMatrices[3] = 0.01; // joint 0's bottom row is no longer 0 0 0 1
    const model: Model = { ...fox, skins: [{ ...skin, inverseBindMatrices, inverseBindAffine: false }] };
    const batch = createInstanceBatch(model, 3);
    expect(batch.layout.meshes[0].affine).toBe(false);
    const reference = createModelInstance(model);
    setFrame(batch, 2, 0.25);
    updateInstanceBatch(batch);
    for (let i = 0; i < 3; i++) {
      updateModelInstance(reference, 2, batch.times[i]);
      expect(maxDifference(batch.instances[i].palette, reference.palette), `character ${i}`).toBe(0);
    }
  });

  it('updateBatchMatricesAndPalettes follows edits to the poses (e.g. blending)', async () => {
    const model: Model = await loadGltfFile(assetPath('Fox'));
    const batch = createInstanceBatch(model, 2);
    setFrame(batch, 1, 0.3);
    updateInstanceBatch(batch);
    batch.instances[1].pose.rotation.set([0, 0.6, 0, 0.8], 4);
    updateBatchMatricesAndPalettes(batch);
    const edited = createModelInstance(model);
    edited.pose.translation.set(batch.instances[1].pose.translation);
    edited.pose.rotation.set(batch.instances[1].pose.rotation);
    edited.pose.scale.set(batch.instances[1].pose.scale);
    updateMatricesAndPalettes(edited);
    expectPalette(batch, 1, edited.palette);
    expect(maxDifference(batch.instances[0].palette, edited.palette)).toBeGreaterThan(0.01);
  });

  it('its instances work with updateModelInstance too (the JS path on the same views)', async () => {
    const model = await loadGltfFile(assetPath('Fox'));
    const batch = createInstanceBatch(model, 2);
    const reference = createModelInstance(model);
    updateModelInstance(batch.instances[0], 2, 0.4);
    updateModelInstance(reference, 2, 0.4);
    expect(maxDifference(batch.instances[0].palette, reference.palette)).toBe(0);
  });
});

describe('sampleInstanceBatch', () => {
  for (const wasm of [true, false]) {
    const path = wasm ? 'WebAssembly' : 'JS';
    it(`then updateBatchMatricesAndPalettes equals updateInstanceBatch exactly, over several chunks (${path} path)`, async () => {
      const model = await loadGltfFile(assetPath('Fox'));
      const fused = createInstanceBatch(model, 50, { wasm }), split = createInstanceBatch(model, 50, { wasm });
      if (wasm) expect(split.layout.chunk).toBeLessThan(25);
      for (const batch of [fused, split]) {
        for (let i = 0; i < batch.count; i++) { batch.clips[i] = i % 4 - 1; batch.times[i] = 0.037 * i; }
      }
      updateInstanceBatch(fused);
      sampleInstanceBatch(split);
      updateBatchMatricesAndPalettes(split);
      for (let i = 0; i < fused.count; i++) {
        const a = fused.instances[i], b = split.instances[i];
        expect(maxDifference(b.pose.translation, a.pose.translation), `character ${i}`).toBe(0);
        expect(maxDifference(b.pose.rotation, a.pose.rotation)).toBe(0);
        expect(maxDifference(b.pose.scale, a.pose.scale)).toBe(0);
        expect(maxDifference(b.nodeMatrices, a.nodeMatrices)).toBe(0);
        expect(maxDifference(b.palette, a.palette)).toBe(0);
      }
    });

    it(`poses only, leaving matrices and palettes for updateBatchMatricesAndPalettes (${path} path)`, async () => {
      const model = await loadGltfFile(assetPath('Fox'));
      const batch = createInstanceBatch(model, 2, { wasm });
      const reference = createModelInstance(model);
      const restPalette = batch.instances[0].palette.slice();
      setFrame(batch, 1, 0.3);
      sampleInstanceBatch(batch);
      updateModelInstance(reference, 1, batch.times[0]);
      expect(maxDifference(batch.instances[0].pose.rotation, reference.pose.rotation)).toBe(0);
      expect(maxDifference(batch.instances[0].palette, restPalette)).toBe(0);
    });

    it(`with a count, touches characters 0..count-1 only (${path} path)`, async () => {
      const model = await loadGltfFile(assetPath('Fox'));
      const batch = createInstanceBatch(model, 40, { wasm });
      const restPose = batch.instances[0].pose.rotation.slice(), restPalette = batch.instances[0].palette.slice();
      const reference = createModelInstance(model);
      setFrame(batch, 2, 0.2);
      const count = 25; // more than one chunk, fewer than all
      sampleInstanceBatch(batch, count);
      updateBatchMatricesAndPalettes(batch, count);
      for (let i = 0; i < batch.count; i++) {
        const instance = batch.instances[i];
        if (i < count) {
          updateModelInstance(reference, 2, batch.times[i]);
          expectPalette(batch, i, reference.palette, `character ${i}`);
        } else {
          expect(maxDifference(instance.pose.rotation, restPose), `character ${i}`).toBe(0);
          expect(maxDifference(instance.palette, restPalette), `character ${i}`).toBe(0);
        }
      }
      const lastBefore = batch.instances[2].palette.slice(), nextBefore = batch.instances[3].palette.slice();
      setFrame(batch, 0, 0.5);
      updateInstanceBatch(batch, 3);
      expect(maxDifference(batch.instances[2].palette, lastBefore)).toBeGreaterThan(0);
      expect(maxDifference(batch.instances[3].palette, nextBefore)).toBe(0);
      updateInstanceBatch(batch, 0); // nothing to do
    });
  }

  it('refuses a count outside [0, batch.count]', async () => {
    const batch = createInstanceBatch(await loadCharacter(), 3);
    for (const count of [-1, 4, 1.5, Number.NaN]) {
      expect(() => sampleInstanceBatch(batch, count)).toThrow(/count .* is not in \[0, 3\]/);
      expect(() => updateBatchMatricesAndPalettes(batch, count)).toThrow(/count .* is not in \[0, 3\]/);
      expect(() => updateInstanceBatch(batch, count)).toThrow(/count .* is not in \[0, 3\]/);
    }
  });
});
