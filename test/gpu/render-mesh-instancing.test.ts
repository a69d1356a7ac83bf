/**
 * EXT_mesh_gpu_instancing on the GPU: a node with N instances draws N copies, each where
 * node world · instance TRS puts it — pixel for pixel what N plain nodes with those
 * transforms draw — and the framing bounds cover every instance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeInstanceBounds } from '../../src/gpu/frame/bounds.ts';
import { createModelInstance } from '../../src/anim/instance.ts';
import { GltfBuilder } from '../../src/gltf/builder.ts';
import { composeTRS } from '../../src/math/trs.ts';
import { addQuadMesh, buildInstancedQuad, translations } from '../support/instancing.ts';
import { writeArtifactPng } from '../support/png.ts';
import { expectNoGpuErrors, type Frame, loadModel, OffscreenScene, pixel, projectToPixel, testDevice } from './gpu-test.ts';

const device = await testDevice();
const W = 160, H = 96;
const HALF = 0.25;
const NODE_T = [0, 0.5, 0];
const T = [-1.5, 0, 0, 0, 0, 0, 1.5, 0, 0, 3, 0, 0];
const S = Math.sin(Math.PI / 8), C = Math.cos(Math.PI / 8);
/** Instance 1 turned 45° about z and scaled 1.5 × 0.5; instance 3 mirrored in x (its winding flips). */
const R = [0, 0, 0, 1, 0, 0, S, C, 0, 0, 0, 1, 0, 0, 0, 1];
const SC = [1, 1, 1, 1.5, 0.5, 1, 1, 1, 1, -1, 1, 1];
const N = 4;

function instanced(): Uint8Array {
  return buildInstancedQuad({
    halfSize: HALF,
    node: { translation: NODE_T },
    attributes: {
      TRANSLATION: translations(...T),
      ROTATION: { data: Float32Array.from(R), type: 'VEC4' },
      SCALE: { data: Float32Array.from(SC), type: 'VEC3' },
    },
  });
}

/** The same quads as plain nodes, each with matrix = node TRS · instance TRS. */
function plainNodes(): Uint8Array {
  const b = new GltfBuilder('reference');
  const mesh = addQuadMesh(b, { halfSize: HALF });
  const nodes: number[] = [];
  for (let k = 0; k < N; k++) {
    const m = composeTRS(T.slice(k * 3, k * 3 + 3), R.slice(k * 4, k * 4 + 4), SC.slice(k * 3, k * 3 + 3), new Array<number>(16));
    m[12] += NODE_T[0]; m[13] += NODE_T[1]; m[14] += NODE_T[2];
    nodes.push(b.addNode({ mesh, matrix: m }));
  }
  b.addScene({ nodes });
  return b.toGlb();
}

describe.skipIf(!device)('EXT_mesh_gpu_instancing rendering (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  beforeAll(() => {
    scene = new OffscreenScene(gpu, W, H);
  });
  afterAll(() => scene?.destroy());

  it('bounds cover every instance', async () => {
    const model = await loadModel(instanced(), 'instanced quads');
    const b = computeInstanceBounds(createModelInstance(model));
    // Instances from x = −1.5 to 3 (half size 0.25), the node lifted 0.5; the middle one,
    // 0.75 × 0.25 turned 45°, reaches (0.375 + 0.125)/√2 up and down.
    expect(b.min[0]).toBeCloseTo(-1.75, 5);
    expect(b.max[0]).toBeCloseTo(3.25, 5);
    expect(b.min[1]).toBeCloseTo(0.5 - 0.5 * Math.SQRT1_2, 5);
    expect(b.max[1]).toBeCloseTo(0.5 + 0.5 * Math.SQRT1_2, 5);
  });

  it('draws N copies where node world · instance TRS puts them, exactly as N plain nodes, in one call per winding', async () => {
    const model = await loadModel(instanced(), 'instanced quads');
    const reference = await loadModel(plainNodes(), 'plain quads');
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model);
      const frame = await scene.render();
      writeArtifactPng('mesh-instancing-four-quads', W, H, frame.rgba);
      // One call for the three instances of one winding, one for the mirrored one.
      expect(scene.renderer.stats.drawCalls).toBe(2);
      // Each instance's centre is lit; halfway between instances is background.
      for (let k = 0; k < N; k++) {
        const [x, y] = projectToPixel(scene.camera, W, H, [T[k * 3] + NODE_T[0], T[k * 3 + 1] + NODE_T[1], NODE_T[2]]);
        expect(pixel(frame, Math.floor(x), Math.floor(y))[3], `instance ${k} at pixel ${x}, ${y}`).toBe(255);
      }
      for (const gap of [-0.75, 0.75, 2.25]) {
        const [x, y] = projectToPixel(scene.camera, W, H, [gap, NODE_T[1], 0]);
        expect(pixel(frame, Math.floor(x), Math.floor(y))[3], `gap at x = ${gap}`).toBe(0);
      }
      // Same camera, the plain-node twin: identical pixels.
      await scene.renderer.setModel(reference);
      scene.instance = createModelInstance(reference);
      const twin = await scene.render();
      let lit = 0, mismatched = 0;
      for (let i = 0; i < frame.rgba.length; i += 4) {
        if (frame.rgba[i + 3] > 0) lit++;
        for (let c = 0; c < 4; c++) if (frame.rgba[i + c] !== twin.rgba[i + c]) { mismatched++; break; }
      }
      expect(lit).toBeGreaterThan(250);
      expect(mismatched).toBe(0);
      await gpu.queue.onSubmittedWorkDone();
    });
  });

  it('the shadow pass draws the instances in the same calls', async () => {
    const model = await loadModel(instanced(), 'instanced quads');
    const settings = scene.renderer.settings;
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model);
      settings.shadows = true;
      try {
        await scene.renderer.prepareShadows();
        await scene.render();
        // Two lit calls and two shadow calls (one per winding each).
        expect(scene.renderer.stats.drawCalls).toBe(4);
      } finally {
        settings.shadows = false;
      }
      await gpu.queue.onSubmittedWorkDone();
    });
  });

  it('a crowd of such models: every placement draws every glTF instance, as the plain twin does', async () => {
    const model = await loadModel(instanced(), 'instanced quads');
    const reference = await loadModel(plainNodes(), 'plain quads');
    // Two model instances, one above the other.
    const placements = Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0.6, 0, 1);
    const frames: Frame[] = [];
    const calls: number[] = [];
    await expectNoGpuErrors(gpu, async () => {
      for (const m of [model, reference]) {
        await scene.renderer.setModel(m);
        const instances = [createModelInstance(m), createModelInstance(m)];
        scene.camera.target.set([0.75, 0, 0]);
        scene.camera.distance = 9;
        scene.renderer.renderInstances(scene.target, scene.camera, instances, 2, placements);
        calls.push(scene.renderer.stats.drawCalls);
        frames.push(await scene.read());
      }
      // One call per winding for both placements' instances; the twin one per node.
      expect(calls).toEqual([2, N]);
      await gpu.queue.onSubmittedWorkDone();
    });
    writeArtifactPng('mesh-instancing-crowd', W, H, frames[0].rgba);
    let lit = 0, mismatched = 0;
    for (let i = 0; i < frames[0].rgba.length; i += 4) {
      if (frames[0].rgba[i + 3] > 0) lit++;
      for (let c = 0; c < 4; c++) if (frames[0].rgba[i + c] !== frames[1].rgba[i + c]) { mismatched++; break; }
    }
    expect(lit).toBeGreaterThan(200);
    expect(mismatched).toBe(0);
  });
});
