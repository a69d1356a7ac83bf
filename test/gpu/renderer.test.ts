import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SKINNING_METHODS } from '../../src/anim/skinning-method.ts';
import { createModelInstance } from '../../src/anim/instance.ts';
import { buildChain } from '../support/fixtures.ts';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { ToneMapping } from '../../src/gpu/layouts/bindings.ts';
import { createOffscreenTarget } from '../../src/gpu/device/readback.ts';
import { Renderer } from '../../src/gpu/renderer.ts';
import { OrbitCamera } from '../../src/gpu/frame/camera.ts';
import { DebugView } from '../../src/gpu/debug/views.ts';
import { createNodeDevice } from '../../src/gpu/device/node-device.ts';
import { backgroundBuildsStarted } from '../../src/gpu/device/background-build.ts';
import { assetPath } from '../support/assets.ts';
import { nodeImageDecoder, writeArtifactPng } from '../support/png.ts';
import { buildBlendedPair, buildEmissiveQuad, buildNormalMappedQuads, buildSphere, buildTwoJointStrip } from './fixtures.ts';
import { coverage, expectNoGpuErrors, loadModel, luma, OffscreenScene, pixel, projectToPixel, testDevice, countGpuCalls, type Frame } from './gpu-test.ts';

const device = await testDevice();
const SIZE = 96;

/** Mean luma over a square of pixels around (x, y). */
function meanLuma(frame: Frame, x: number, y: number, radius = 4): number {
  let sum = 0, n = 0;
  for (let dy = -radius; dy <= radius; dy++) for (let dx = -radius; dx <= radius; dx++) {
    sum += luma(frame, x + dx, y + dy);
    n++;
  }
  return sum / n;
}

function maxChannelDifference(a: Frame, b: Frame): number {
  let worst = 0;
  for (let i = 0; i < a.rgba.length; i++) worst = Math.max(worst, Math.abs(a.rgba[i] - b.rgba[i]));
  return worst;
}

describe.skipIf(!device)('Renderer (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  beforeAll(() => {
    scene = new OffscreenScene(gpu, SIZE, SIZE);
  });
  afterAll(() => scene?.destroy());

  /** Camera on +z looking at `target` from `distance`. */
  function lookFromFront(target: readonly number[], distance: number, yaw = 0): void {
    scene.camera.target.set(target);
    scene.camera.yaw = yaw;
    scene.camera.pitch = 0;
    scene.camera.distance = distance;
    scene.camera.near = 0.05;
    scene.camera.far = 50;
  }

  it('SimpleSkin: the top of the strip swings left as joint 1 turns +90° about z', async () => {
    const model = await loadModel(readFileSync(assetPath('SimpleSkin')), 'SimpleSkin');
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model, false);
      lookFromFront([0, 1, 0], 6);
      const rest = await scene.pose(0, 0).render();
      const bent = await scene.pose(0, 1).render();
      writeArtifactPng('simple-skin-t0', rest.width, rest.height, rest.rgba);
      writeArtifactPng('simple-skin-t1', bent.width, bent.height, bent.rgba);
      // The strip spans x −0.5…0.5, y 0…2; joint 1 sits at (0, 1). Turned +90° about z,
      // the upper half points along −x: its end spans y 0.5…1.5 at x = −1.
      const upperRight = projectToPixel(scene.camera, SIZE, SIZE, [0.3, 1.8, 0]);
      const upperLeft = projectToPixel(scene.camera, SIZE, SIZE, [-0.85, 1.0, 0]);
      const lower = projectToPixel(scene.camera, SIZE, SIZE, [0.3, 0.3, 0]);
      expect(pixel(rest, ...upperRight)[3]).toBe(255);
      expect(pixel(rest, ...upperLeft)[3]).toBe(0);
      expect(pixel(bent, ...upperRight)[3]).toBe(0);
      expect(pixel(bent, ...upperLeft)[3]).toBe(255);
      // Below the joint nothing moves.
      expect(pixel(rest, ...lower)[3]).toBe(255);
      expect(pixel(bent, ...lower)[3]).toBe(255);
    });
  });

  it('a lit sphere is brightest where its normal faces the light', async () => {
    const model = await loadModel(buildSphere(), 'sphere');
    const s = scene.renderer.settings;
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model, false);
      lookFromFront([0, 0, 0], 3.2);
      s.toneMapping = ToneMapping.NONE;
      s.lightIntensity = 1.2;
      s.skyColor.fill(0);
      s.groundColor.fill(0);
      for (const [i, dir] of [[0.6, 0.5, 0.62], [-0.5, -0.3, 0.81]].entries()) {
        s.lightSpace = 'world';
        const len = Math.hypot(...dir);
        s.lightDirection.set(dir.map((c) => c / len));
        const frame = await scene.pose(-1, 0).render();
        writeArtifactPng(`sphere-light-${i}`, frame.width, frame.height, frame.rgba);
        // n·l is flat near its peak, so take the centroid of the brightest pixels.
        let best = -1;
        for (let y = 0; y < SIZE; y++) for (let x = 0; x < SIZE; x++) best = Math.max(best, luma(frame, x, y));
        let bx = 0, by = 0, n = 0;
        for (let y = 0; y < SIZE; y++) for (let x = 0; x < SIZE; x++) {
          if (luma(frame, x, y) >= best - 2) { bx += x; by += y; n++; }
        }
        bx /= n;
        by /= n;
        const [ex, ey] = projectToPixel(scene.camera, SIZE, SIZE, [...s.lightDirection]);
        expect(Math.hypot(bx - ex, by - ey), `brightest (${bx.toFixed(1)}, ${by.toFixed(1)}), light faces (${ex.toFixed(1)}, ${ey.toFixed(1)})`).toBeLessThan(3);
      }
    }).finally(() => Object.assign(s, { toneMapping: ToneMapping.PBR_NEUTRAL, lightIntensity: 3, lightSpace: 'view' }));
    scene.renderer.settings.skyColor.set([0.42, 0.45, 0.5]);
    scene.renderer.settings.groundColor.set([0.16, 0.14, 0.12]);
  });

  it('normal maps follow the tangent handedness (TANGENT w = ±1), and work without TANGENT', async () => {
    const s = scene.renderer.settings;
    s.lightSpace = 'world';
    const results: Record<string, [number, number]> = {};
    try {
      for (const tangents of [true, false]) {
        const model = await loadModel(buildNormalMappedQuads(tangents), 'normal-mapped quads');
        await expectNoGpuErrors(gpu, async () => {
          await scene.setModel(model, false);
          lookFromFront([0, 0, 0], 6);
          for (const [name, dir] of [['from above', [0, 0.8, 0.6]], ['from below', [0, -0.8, 0.6]]] as const) {
            s.lightDirection.set(dir);
            const frame = await scene.pose(-1, 0).render();
            writeArtifactPng(`normal-map-${tangents ? 'tangents' : 'derived'}-${name.replace(' ', '-')}`, frame.width, frame.height, frame.rgba);
            const left = meanLuma(frame, ...projectToPixel(scene.camera, SIZE, SIZE, [-1.1, 0, 0]));
            const right = meanLuma(frame, ...projectToPixel(scene.camera, SIZE, SIZE, [1.1, 0, 0]));
            results[`${tangents ? 'TANGENT' : 'derived'} ${name}`] = [left, right];
          }
        });
      }
    } finally {
      s.lightSpace = 'view';
    }
    // w = +1 leans the left quad's normals up, w = −1 leans the right one's down.
    const [aboveL, aboveR] = results['TANGENT from above'];
    const [belowL, belowR] = results['TANGENT from below'];
    expect(aboveL, JSON.stringify(results)).toBeGreaterThan(aboveR + 20);
    expect(belowR, JSON.stringify(results)).toBeGreaterThan(belowL + 20);
    // Without TANGENT the derived frame has bitangent = +y on both quads (like w = +1).
    const [dAboveL, dAboveR] = results['derived from above'];
    const [dBelowL, dBelowR] = results['derived from below'];
    expect(Math.abs(dAboveL - dAboveR)).toBeLessThan(3);
    expect(Math.abs(dAboveL - aboveL)).toBeLessThan(6);
    expect(Math.abs(dBelowL - belowL)).toBeLessThan(6);
    expect(dAboveL).toBeGreaterThan(dBelowL + 20);
    expect(dAboveR).toBeGreaterThan(dBelowR + 20);
  });

  it('blended draws are sorted back to front for every view', async () => {
    const model = await loadModel(buildBlendedPair(), 'blended pair');
    const s = scene.renderer.settings;
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model, false);
      s.toneMapping = ToneMapping.NONE;
      for (const [yaw, nearer] of [[0, 'red'], [Math.PI, 'blue']] as const) {
        lookFromFront([0, 0, 0], 4, yaw);
        const frame = await scene.pose(-1, 0).render();
        writeArtifactPng(`blend-yaw-${yaw === 0 ? 0 : 180}`, frame.width, frame.height, frame.rgba);
        const [r, , b, a] = pixel(frame, SIZE / 2, SIZE / 2);
        // Nearer layer: 0.5 of its colour; farther one: 0.25 (sRGB-encoded ≈ 188 vs 137).
        if (nearer === 'red') expect(r, `rgba ${[r, b, a]}`).toBeGreaterThan(b + 30);
        else expect(b, `rgba ${[r, b, a]}`).toBeGreaterThan(r + 30);
        expect(a).toBeGreaterThan(180);
      }
    }).finally(() => {
      s.toneMapping = ToneMapping.PBR_NEUTRAL;
    });
  });

  it('writes sRGB: linear 0.5 becomes 188 on -srgb and on plain unorm targets, and sRGB textures decode', async () => {
    const s = scene.renderer.settings;
    s.toneMapping = ToneMapping.NONE;
    const unorm = new OffscreenScene(gpu, 32, 32, 'rgba8unorm');
    unorm.renderer.settings.toneMapping = ToneMapping.NONE;
    try {
      for (const [name, bytes] of [
        ['factor', buildEmissiveQuad({ emissive: [0.5, 0.5, 0.5] })],
        // Texel 188 is sRGB for 0.5: decoded by the sampler, encoded again on output.
        ['texture', buildEmissiveQuad({ emissive: [1, 1, 1], emissiveTexel: [188, 188, 188] })],
      ] as const) {
        const model = await loadModel(bytes, `emissive ${name}`);
        for (const target of [scene, unorm]) {
          await expectNoGpuErrors(gpu, async () => {
            await target.setModelHeadOn(model, 1.5);
            const frame = await target.pose(-1, 0).render();
            const [r, g, b, a] = pixel(frame, frame.width / 2, frame.height / 2);
            // Ambient specular of the black dielectric adds a little (F0 = 0.04).
            expect(Math.abs(r - 190), `${name} on ${target.renderer.format}: ${[r, g, b, a]}`).toBeLessThan(4);
            expect(a).toBe(255);
          });
        }
      }
    } finally {
      s.toneMapping = ToneMapping.PBR_NEUTRAL;
      unorm.destroy();
    }
  });

  it('alphaMode MASK cuts below alphaCutoff; single-sided faces cull from behind; double-sided ones do not', async () => {
    const cases = [
      { name: 'mask below cutoff', o: { alphaMode: 'MASK' as const, alpha: 0.3 }, covered: false },
      { name: 'mask above cutoff', o: { alphaMode: 'MASK' as const, alpha: 0.7 }, covered: true },
      { name: 'back face, single-sided', o: { flip: true }, covered: false },
      { name: 'back face, double-sided', o: { flip: true, doubleSided: true }, covered: true },
      // Mirrored in x the quad still faces +z, but its triangles turn clockwise on screen:
      // glTF §3.7.4 says the winding is reversed for such nodes.
      { name: 'mirrored node', o: { scale: [-1, 1, 1] as const }, covered: true },
      { name: 'mirrored node, back face', o: { flip: true, scale: [-1, 1, 1] as const }, covered: false },
    ];
    for (const c of cases) {
      const model = await loadModel(buildEmissiveQuad(c.o), c.name);
      await expectNoGpuErrors(gpu, async () => {
        await scene.setModel(model, false);
        lookFromFront([0, 0, 0], 3);
        const frame = await scene.pose(-1, 0).render();
        expect(pixel(frame, SIZE / 2, SIZE / 2)[3], c.name).toBe(c.covered ? 255 : 0);
      });
    }
  });

  it('JOINTS/WEIGHTS as uint8/uint16 and unorm8/unorm16 render exactly like float weights', async () => {
    const frames: Record<string, Frame> = {};
    const variants = {
      'float, u16 joints': { weights: 'float', joints: 'u16' },
      'unorm8, u8 joints': { weights: 'u8', joints: 'u8' },
      'unorm16, u16 joints': { weights: 'u16', joints: 'u16' },
    } as const;
    for (const [name, options] of Object.entries(variants)) {
      const model = await loadModel(buildTwoJointStrip(options), `strip ${name}`);
      await expectNoGpuErrors(gpu, async () => {
        await scene.setModel(model, false);
        lookFromFront([0, 1, 0], 4.5);
        frames[name] = await scene.pose(0, 0.6).render();
      });
    }
    writeArtifactPng('strip-float', SIZE, SIZE, frames['float, u16 joints'].rgba);
    expect(coverage(frames['float, u16 joints'])).toBeGreaterThan(0.02);
    // unorm8 decodes to exactly w/255 and unorm16 to w·257/65535 = w/255: the same floats.
    expect(maxChannelDifference(frames['unorm8, u8 joints'], frames['float, u16 joints'])).toBe(0);
    expect(maxChannelDifference(frames['unorm16, u16 joints'], frames['float, u16 joints'])).toBe(0);
  });

  it('8 influences (JOINTS_1/WEIGHTS_1) render like the same weights in 4', async () => {
    const frames: Frame[] = [];
    for (const eightInfluences of [false, true]) {
      const model = await loadModel(buildChain({ eightInfluences, tangents: true }), `chain ${eightInfluences ? 8 : 4}`);
      expect(model.meshes[0].primitives[0].influences).toBe(eightInfluences ? 8 : 4);
      await expectNoGpuErrors(gpu, async () => {
        await scene.setModel(model, false);
        lookFromFront([0, 1, 0], 4.5);
        frames.push(await scene.pose(0, 1.5).render());
      });
    }
    writeArtifactPng('chain-8-influences', SIZE, SIZE, frames[1].rgba);
    expect(coverage(frames[0])).toBeGreaterThan(0.02);
    // Same blended matrix, summed in another order: at most a rounding step at an edge.
    let differing = 0;
    for (let i = 0; i < frames[0].rgba.length; i += 4) if (Math.abs(frames[0].rgba[i] - frames[1].rgba[i]) > 2) differing++;
    expect(differing).toBeLessThan(SIZE / 4);
  });

  it('the frame path: 3 writeBuffers and 1 submit per frame, no GPU objects created after the first frame', async () => {
    const model = await loadModel(readFileSync(assetPath('RobotExpressive')), 'RobotExpressive');
    await scene.setModel(model);
    await expectNoGpuErrors(gpu, async () => {
      scene.renderer.render(scene.target, scene.camera, scene.instance.model === model ? scene.instance : createModelInstance(model));
      const frames = 5;
      const counts = countGpuCalls(gpu, () => {
        for (let f = 0; f < frames; f++) {
          scene.pose(0, f * 0.1);
          scene.renderer.render(scene.target, scene.camera, scene.instance);
        }
      });
      expect(counts).toEqual({ writeBuffer: 3 * frames, submit: frames, createCommandEncoder: frames });
      await gpu.queue.onSubmittedWorkDone();
    });
  });

  it('caches pipelines by what varies: one for 84 skinned nodes of one mesh, none new on reload', async () => {
    await expectNoGpuErrors(gpu, async () => {
      const renderer = new Renderer(gpu, { format: 'rgba8unorm-srgb', imageDecoder: nodeImageDecoder, label: 'pipeline cache renderer' });
      try {
        const recursive = await loadModel(readFileSync(assetPath('RecursiveSkeletons')), 'RecursiveSkeletons');
        expect(recursive.meshNodes.length).toBe(84);
        await renderer.setModel(recursive);
        expect(renderer.pipelineCount).toBe(1);
        await renderer.setModel(recursive);
        expect(renderer.pipelineCount).toBe(1);
        // Four primitives and materials with one vertex layout and alpha mode: one more pipeline.
        await renderer.setModel(await loadModel(buildBuiltinGlb('character'), 'character'));
        expect(renderer.pipelineCount).toBe(2);
      } finally {
        renderer.destroy();
      }
    });
  });

  it('renders into a second target of another size, and destroy() frees everything', async () => {
    await expectNoGpuErrors(gpu, async () => {
      const renderer = new Renderer(gpu, { format: 'bgra8unorm', imageDecoder: nodeImageDecoder, label: 'second renderer' });
      const model = await loadModel(readFileSync(assetPath('SimpleSkin')), 'SimpleSkin');
      await renderer.setModel(model);
      const camera = new OrbitCamera();
      camera.target.set([0, 1, 0]);
      camera.distance = 5;
      const instance = createModelInstance(model);
      for (const [w, h] of [[40, 30], [64, 64]]) {
        const target = createOffscreenTarget(gpu, w, h, 'bgra8unorm');
        renderer.render(target, camera, instance);
        target.destroy();
      }
      expect(() => renderer.render(scene.target, camera, createModelInstance(scene.renderer.model!))).toThrow(/instance is of model/);
      renderer.destroy();
      await gpu.queue.onSubmittedWorkDone();
    });
  });
});

describe.skipIf(!device)('skinned normal modes', () => {
  const gpu = device!;
  it("'fast-when-uniform' shades differently only where it may: never under non-uniform joint scale", async () => {
    const scene = new OffscreenScene(gpu, SIZE, SIZE);
    try {
      const differing = async (nonUniformScale: boolean) => {
        const model = await loadModel(buildChain({ nonUniformScale }), `chain${nonUniformScale ? ' scaled' : ''}`);
        return expectNoGpuErrors(gpu, async () => {
          await scene.setModel(model, false);
          scene.camera.target.set([0, 1, 0]);
          scene.camera.distance = 4.5;
          scene.pose(0, 1);
          scene.renderer.settings.normals = 'exact';
          const exact = await scene.render();
          scene.renderer.settings.normals = 'fast-when-uniform';
          const fast = await scene.render();
          let n = 0;
          for (let i = 0; i < exact.rgba.length; i++) if (exact.rgba[i] !== fast.rgba[i]) n++;
          return n;
        });
      };
      // Uniform joints: the cheap path runs and blended vertices shade differently.
      expect(await differing(false)).toBeGreaterThan(20);
      // J1 is scaled (1.6, 1, 0.5) at t = 1: detected, so the exact path runs anyway.
      expect(await differing(true)).toBe(0);
    } finally {
      scene.destroy();
    }
  });
});

describe.skipIf(!device)('pipelines are compiled once per device', () => {
  const COMPILING_CALLS = ['createShaderModule', 'createRenderPipeline', 'createRenderPipelineAsync', 'createComputePipeline', 'createComputePipelineAsync'];
  const EVERY_VIEW = DebugView.SKELETON | DebugView.NORMALS | DebugView.TANGENTS | DebugView.WEIGHTS | DebugView.WIREFRAME | DebugView.BOUNDS;

  /** Shader modules and pipelines `gpu` creates while `fn` runs (async: pipelines build between awaits). */
  async function countCompiles<T>(gpu: GPUDevice, fn: () => Promise<T>): Promise<{ count: number; result: T }> {
    const dev = gpu as unknown as Record<string, (...a: unknown[]) => unknown>;
    const originals = COMPILING_CALLS.map((name) => dev[name]);
    let count = 0;
    COMPILING_CALLS.forEach((name, i) => { dev[name] = (...args: unknown[]) => { count++; return originals[i].apply(gpu, args); }; });
    try {
      const result = await fn();
      return { count, result };
    } finally {
      COMPILING_CALLS.forEach((name, i) => { dev[name] = originals[i]; });
    }
  }

  /** A renderer with the model set and every method, path, shadow, ground and debug pipeline built; then one frame of all of it. */
  async function preparedScene(gpu: GPUDevice, model: Awaited<ReturnType<typeof loadModel>>): Promise<OffscreenScene> {
    const scene = new OffscreenScene(gpu, SIZE, SIZE);
    await scene.setModel(model);
    const r = scene.renderer;
    for (const method of SKINNING_METHODS) {
      await Promise.all([r.prepareSkinning(method), r.prepareShadows(method), r.prepareComputeSkinning(method)]);
    }
    await Promise.all([r.prepareDebugViews(EVERY_VIEW), r.prepareGround()]);
    return scene;
  }

  it('a second renderer on a device compiles nothing; a renderer on another device compiles as much as the first', async () => {
    const model = await loadModel(readFileSync(assetPath('CesiumMan')), 'CesiumMan');
    const devices = [await createNodeDevice({ label: 'sharing device A' }), await createNodeDevice({ label: 'sharing device B' })];
    const scenes: OffscreenScene[] = [];
    try {
      const [a, b] = devices;
      const firstOnA = await expectNoGpuErrors(a, () => countCompiles(a, () => preparedScene(a, model)));
      const secondOnA = await expectNoGpuErrors(a, () => countCompiles(a, () => preparedScene(a, model)));
      const firstOnB = await expectNoGpuErrors(b, () => countCompiles(b, () => preparedScene(b, model)));
      scenes.push(firstOnA.result, secondOnA.result, firstOnB.result);
      expect(firstOnA.count).toBeGreaterThan(10);
      expect(secondOnA.count).toBe(0);
      expect(firstOnB.count).toBe(firstOnA.count);
      // Each renderer still counts the mesh pipelines it uses, whoever compiled them.
      expect(secondOnA.result.renderer.pipelineCount).toBe(firstOnA.result.renderer.pipelineCount);
      // The shared pipelines draw the same frame with everything on (shadows, ground, compute path, every view).
      const frames = [];
      for (const scene of scenes) {
        Object.assign(scene.renderer.settings, { shadows: true, ground: true, skinningPath: 'compute', debug: EVERY_VIEW, skinning: 'dual-quaternion' });
        frames.push(await expectNoGpuErrors(scene.device, async () => {
          const frame = await scene.pose(0, 0.5).render();
          await scene.device.queue.onSubmittedWorkDone();
          return frame;
        }));
        expect(scene.renderer.skinningPath).toBe('compute');
        expect(scene.renderer.skinning).toBe('dual-quaternion');
      }
      expect(coverage(frames[0])).toBeGreaterThan(0.05);
      expect(maxChannelDifference(frames[1], frames[0])).toBe(0);
      expect(maxChannelDifference(frames[2], frames[0])).toBe(0);
    } finally {
      for (const scene of scenes) scene.destroy();
      for (const d of devices) d.destroy();
    }
  });
});

describe.skipIf(!device)('buildsSettled', () => {
  it('resolves once the pipelines frames asked for have arrived: the next frame draws with them; once what that frame asks for has come too, frames start no other', async () => {
    // A device of its own: nothing built before, so the frame's builds are really under way.
    const own = await createNodeDevice({ label: 'builds-settled device' });
    const scene = new OffscreenScene(own, SIZE, SIZE);
    try {
      await scene.setModel(await loadModel(readFileSync(assetPath('CesiumMan')), 'CesiumMan'));
      const r = scene.renderer;
      Object.assign(r.settings, { shadows: true, ground: true, debug: DebugView.BOUNDS });
      await expectNoGpuErrors(own, async () => {
        // The first frame asks for the shadow pipelines, the ground and the bounds view, and draws without them.
        r.render(scene.target, scene.camera, scene.instance);
        const without = r.stats.drawCalls;
        expect(r.shadowsReady).toBe(false);
        expect(r.debugViewsReady & DebugView.BOUNDS).toBe(0);
        await r.buildsSettled();
        expect(r.shadowsReady).toBe(true);
        // What arrives can make the next frame ask for more (the debug views' code, then the bounds
        // view's pipeline; with shadows, two passes: the compute skinning path): frame and settle until a frame starts nothing.
        for (let round = 0; round < 4; round++) {
          const before = backgroundBuildsStarted();
          r.render(scene.target, scene.camera, scene.instance);
          if (backgroundBuildsStarted() === before) break;
          await r.buildsSettled();
        }
        expect(r.debugViewsReady & DebugView.BOUNDS).toBe(DebugView.BOUNDS);
        const withAll = r.stats.drawCalls;
        // Shadow casters, the ground disc and the boxes.
        expect(withAll).toBeGreaterThan(without + 2);
        const started = backgroundBuildsStarted();
        r.render(scene.target, scene.camera, scene.instance);
        expect(r.stats.drawCalls).toBe(withAll);
        expect(backgroundBuildsStarted()).toBe(started);
        await own.queue.onSubmittedWorkDone();
      });
    } finally {
      scene.destroy();
      own.destroy();
    }
  });
});
