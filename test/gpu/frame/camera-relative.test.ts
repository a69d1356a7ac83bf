/**
 * Camera-relative precision (src/gpu/frame/camera-relative.ts): a skinned character at
 * (1e4, 0, 1e4) seen from a camera offset by the same amount lands where the same
 * character at the origin does, to 1e-4 m — in the float32 numbers that reach the GPU,
 * and in the rendered image. The naive float32 path (world matrix, then eye subtracted
 * in float32) is shown to miss that tolerance, so the test can tell the two apart.
 * PNGs: test-artifacts/far-origin.png, far-1e4.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelInstance, updateModelInstance } from '../../../src/anim/instance.ts';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import type { Model } from '../../../src/gltf/model.ts';
import { computeInstanceBounds } from '../../../src/gpu/frame/bounds.ts';
import { OrbitCamera } from '../../../src/gpu/frame/camera.ts';
import { cameraRelativeModel, viewRotation } from '../../../src/gpu/frame/camera-relative.ts';
import { readTexturePixels } from '../../../src/gpu/device/readback.ts';
import { createSkinnedVertices, skinPrimitive } from '../../../src/skin/cpu-skin.ts';
import { writeArtifactPng } from '../../support/png.ts';
import { expectNoGpuErrors, loadModel, OffscreenScene, testDevice } from '../gpu-test.ts';

const device = await testDevice();
const FAR = 1e4;
const TOLERANCE = 1e-4;

function translation(x: number, y: number, z: number): Float64Array {
  return Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1);
}

/**
 * Every skinned vertex of the posed instance in the frame the shaders see: the float32
 * record matrix (as `cameraRelativeModel` or the naive path writes it) applied in float32
 * to the float32 mesh-node-space skinned position.
 */
function shaderPositions(model: Model, placement: Float64Array, eye: Float64Array, naive: boolean): number[] {
  const instance = createModelInstance(model);
  updateModelInstance(instance, 0, 0.37);
  const out: number[] = [];
  const f = Math.fround;
  const record = new Float32Array(16);
  model.meshNodes.forEach((mn, i) => {
    const slot = model.hierarchy.slotOf[mn.node];
    if (naive) {
      // World matrix in float32, eye in float32, subtracted on the GPU in float32.
      cameraRelativeModel(instance.nodeMatrices, slot * 16, placement, 0, [0, 0, 0], record, 0);
    } else {
      cameraRelativeModel(instance.nodeMatrices, slot * 16, placement, 0, eye, record, 0);
    }
    for (const prim of model.meshes[mn.mesh].primitives) {
      const skinned = skinPrimitive(prim, instance.palette, createSkinnedVertices(prim), instance.paletteOffsets[i]).positions;
      for (let v = 0; v < prim.vertexCount; v++) {
        const x = skinned[v * 3], y = skinned[v * 3 + 1], z = skinned[v * 3 + 2];
        for (let r = 0; r < 3; r++) {
          let w = f(f(f(f(record[r] * x) + f(record[4 + r] * y)) + f(record[8 + r] * z)) + record[12 + r]);
          if (naive) w = f(w - f(eye[r]));
          out.push(w);
        }
      }
    }
  });
  return out;
}

function maxDifference(a: readonly number[], b: readonly number[]): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

describe('cameraRelativeModel / viewRotation', () => {
  it('subtracts the eye in float64 before rounding; with and without a placement; the view keeps its rotation only', () => {
    const node = Float64Array.of(0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0.25, 1.5, -0.75, 1);
    const placement = translation(FAR + 0.0123, 0, FAR - 0.0456);
    const eye = Float64Array.of(FAR + 0.0123 + 1, 2, FAR - 0.0456 + 3);
    const dst = new Float32Array(20).fill(7);
    expect(cameraRelativeModel(node, 0, placement, 0, eye, dst, 2)).toBe(dst);
    expect(Array.from(dst.subarray(14, 17))).toEqual([0.25 - 1, 1.5 - 2, -0.75 - 3].map(Math.fround));
    expect(Array.from(dst.subarray(2, 14))).toEqual(Array.from(node.subarray(0, 12)));
    expect(dst[0]).toBe(7);
    expect(dst[18]).toBe(7);
    // Without a placement the node matrix is the world matrix.
    const world = Float64Array.from(node);
    world.set([FAR + 0.25, 1.5, FAR - 0.75], 12);
    const direct = cameraRelativeModel(world, 0, undefined, 0, Float64Array.of(FAR, 0, FAR), new Float32Array(16), 0);
    expect(Array.from(direct.subarray(12, 16))).toEqual([0.25, 1.5, -0.75, 1]);
    const view = Float32Array.from([1, 0, 0, 0, 0, 0.6, -0.8, 0, 0, 0.8, 0.6, 0, 5, 6, 7, 1]);
    expect(Array.from(viewRotation(view, view))).toEqual(Array.from(view.subarray(0, 12)).concat([0, 0, 0, 1]));
  });

  it('OrbitCamera: same rotation and relative eye anywhere; eye in float64', () => {
    const a = new OrbitCamera(), b = new OrbitCamera();
    for (const c of [a, b]) {
      c.yaw = 0.7;
      c.pitch = 0.3;
      c.distance = 2.5;
    }
    b.target.set([FAR, 1, FAR]);
    a.target.set([0, 1, 0]);
    a.update(1.5);
    b.update(1.5);
    expect(Array.from(b.view.subarray(0, 12))).toEqual(Array.from(a.view.subarray(0, 12)));
    for (let c = 0; c < 3; c++) expect(b.eye[c] - b.target[c]).toBeCloseTo(a.eye[c] - a.target[c], 12);
  });

  it('skinned positions of the built-in character at (1e4, 0, 1e4) match those at the origin to 1e-4 m (the naive float32 path does not)', async () => {
    const model = await loadModel(buildBuiltinGlb('character'), 'character');
    const relativeEye = [0.3, 1.2, 2.5];
    const near = shaderPositions(model, translation(0, 0, 0), Float64Array.from(relativeEye), false);
    const farEye = Float64Array.of(FAR + relativeEye[0], relativeEye[1], FAR + relativeEye[2]);
    const far = shaderPositions(model, translation(FAR, 0, FAR), farEye, false);
    const naive = shaderPositions(model, translation(FAR, 0, FAR), farEye, true);
    expect(near.length).toBeGreaterThan(300);
    expect(maxDifference(near, far), 'camera-relative, metres').toBeLessThan(TOLERANCE);
    expect(maxDifference(near, naive), 'naive float32, metres').toBeGreaterThan(TOLERANCE);
  });
});

describe.skipIf(!device)('camera-relative rendering (Dawn on SwiftShader)', () => {
  const gpu = device!;
  const SIZE = 128;
  let scene: OffscreenScene;
  beforeAll(() => {
    scene = new OffscreenScene(gpu, SIZE, SIZE);
  });
  afterAll(() => scene?.destroy());

  it('the character at (1e4, 0, 1e4) with the camera offset equally renders the same image as at the origin', async () => {
    const model = await loadModel(buildBuiltinGlb('character'), 'character');
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model, false);
      scene.pose(0, 0.37);
      const cam = scene.camera;
      cam.yaw = 0.6;
      cam.pitch = 0.2;
      const bounds = computeInstanceBounds(scene.instance);
      cam.frame(bounds, 1);
      cam.distance *= 0.6; // a close-up, where jitter would show
      const center = Array.from(bounds.center);
      const frames: Uint8Array[] = [];
      for (const offset of [0, FAR]) {
        cam.target.set([center[0] + offset, center[1], center[2] + offset]);
        scene.renderer.renderInstances(scene.target, cam, [scene.instance], 1, translation(offset, 0, offset));
        frames.push(await readTexturePixels(gpu, scene.target));
      }
      writeArtifactPng('far-origin', SIZE, SIZE, frames[0]);
      writeArtifactPng('far-1e4', SIZE, SIZE, frames[1]);
      let covered = 0, worst = 0;
      for (let i = 0; i < frames[0].length; i++) {
        worst = Math.max(worst, Math.abs(frames[0][i] - frames[1][i]));
        if (i % 4 === 3 && frames[0][i] > 0) covered++;
      }
      expect(covered).toBeGreaterThan(SIZE * SIZE * 0.1);
      expect(worst, 'largest channel difference').toBeLessThanOrEqual(1);
    });
  });
});
