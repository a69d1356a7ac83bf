/**
 * The loader's relaxations for files three.js r187 draws (test/gltf/relaxed.test.ts) reach
 * the GPU intact: SimpleMorph with a second primitive that has one morph target where the
 * first has two, whose POSITION is a FLOAT accessor marked `normalized`, plus a node whose
 * mesh has no primitives. The Renderer draws it, clip time by clip time, with the silhouette
 * of the CPU reference (src/skin/morph.ts at the pose's weights).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drawIndices } from '../../src/gltf/topology.ts';
import { applyMorphTargets, createMorphedVertices } from '../../src/skin/morph.ts';
import { assetJson } from '../support/assets.ts';
import { writeArtifactPng } from '../support/png.ts';
import { expectNoGpuErrors, loadModel, OffscreenScene, testDevice } from './gpu-test.ts';
import { compareCoverage, overBackdrop, sampleMask, samplesCovered, transformPositions } from './silhouette.ts';

const device = await testDevice();
const SIZE = 128;

/** SimpleMorph's triangle (accessor 1) shifted by +1.5 in x, as a data: buffer. */
function relaxedMorphFile(): Uint8Array {
  const j = assetJson('SimpleMorph');
  const shifted = new Float32Array([1.5, 0, 0, 2.5, 0, 0, 2, 0.5, 0]);
  j.buffers.push({ uri: `data:application/octet-stream;base64,${Buffer.from(shifted.buffer).toString('base64')}`, byteLength: 36 });
  j.bufferViews.push({ buffer: j.buffers.length - 1, byteLength: 36 });
  j.accessors.push({ bufferView: j.bufferViews.length - 1, componentType: 5126, count: 3, type: 'VEC3', normalized: true });
  j.meshes[0].primitives.push({ attributes: { POSITION: j.accessors.length - 1 }, indices: 0, targets: [{ POSITION: 3 }] });
  j.meshes.push({ primitives: [] });
  j.nodes.push({ mesh: 1 });
  j.scenes[0].nodes.push(1);
  return new TextEncoder().encode(JSON.stringify(j));
}

describe.skipIf(!device)('relaxed files in the Renderer (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  beforeAll(() => {
    scene = new OffscreenScene(gpu, SIZE, SIZE);
  });
  afterAll(() => scene?.destroy());

  /** Covered MSAA samples of every primitive morphed on the CPU at the pose's weights. */
  function cpuCoverage(): Uint8Array {
    const { model, nodeMatrices, pose } = scene.instance;
    const mask = new Uint8Array(SIZE * SIZE);
    for (const mn of model.meshNodes) {
      const slot = model.hierarchy.slotOf[mn.node];
      const o = pose.weightOffsets[slot];
      for (const prim of model.meshes[mn.mesh].primitives) {
        const morphed = applyMorphTargets(prim, pose.weights, o, pose.weightOffsets[slot + 1] - o, createMorphedVertices(prim));
        sampleMask(scene.camera, SIZE, SIZE, { positions: transformPositions(morphed.positions, nodeMatrices, slot * 16), indices: drawIndices(prim), cull: 'back' }, mask);
      }
    }
    return samplesCovered(mask);
  }

  it('unequal morph target counts, a normalized FLOAT POSITION and an empty mesh: drawn like the CPU reference', async () => {
    const model = await loadModel(relaxedMorphFile(), 'relaxed SimpleMorph');
    expect(model.warnings.map((w) => w.path).sort()).toEqual(['accessors[6].normalized', 'meshes[0].primitives', 'meshes[0].primitives[1].targets', 'meshes[1].primitives']);
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModelHeadOn(model, 5.5, [1.25, 0.6, 0]);
      // Keys (0,0) (0,1) (1,1) (1,0) (0,0) at 0…4 s: weight 0 alone moves the short primitive.
      for (const time of [0, 1, 2, 3]) {
        const frame = await scene.pose(0, time).render();
        if (time === 2) writeArtifactPng('relaxed-morph-t2', SIZE, SIZE, overBackdrop(frame));
        const c = compareCoverage(frame, cpuCoverage());
        const what = `t=${time}: ${JSON.stringify(c)}`;
        expect(c.covered, what).toBeGreaterThan(150);
        expect(c.wrong, what).toBeLessThanOrEqual(4);
        expect(c.offByOne, what).toBeLessThan(c.covered * 0.15);
      }
      // At t=3 (weights 1, 0) the short primitive is morphed by its only target: not its rest triangle.
      const posed = await scene.pose(0, 3).render();
      const { pose } = scene.instance;
      const rest = new Float32Array(pose.weights.length);
      const saved = Float32Array.from(pose.weights);
      pose.weights.set(rest);
      const unmorphed = cpuCoverage();
      pose.weights.set(saved);
      expect(compareCoverage(posed, unmorphed).wrong).toBeGreaterThan(50);
    });
  });
});
