/**
 * The directional shadow map (src/gpu/frame/shadow-map.ts, RenderSettings.shadows): the caster
 * box holds every skinned vertex; the fitted light maps the casters into its clip box; a
 * quad above a ground quad darkens the ground where the light's ray meets it and nowhere
 * else; shadows off is exactly the old image; the shadowed frame path makes one more
 * writeBuffer and nothing else.
 * PNGs: test-artifacts/shadow-off.png, shadow-on.png, shadow-character.png.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelInstance, updateModelInstance } from '../../../src/anim/instance.ts';
import { bakeModel } from '../../../src/bake/bake.ts';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { GltfBuilder } from '../../../src/gltf/builder.ts';
import { computeInstanceBounds } from '../../../src/gpu/frame/bounds.ts';
import { ToneMapping } from '../../../src/gpu/layouts/bindings.ts';
import { createShadowCasterBounds, fitLight, shadowCasterBox, type ShadowCasterBounds } from '../../../src/gpu/frame/shadow-map.ts';
import { groundFootprint, type GroundFootprint } from '../../../src/gpu/frame/ground.ts';
import { assetPath } from '../../support/assets.ts';
import { writeArtifactPng } from '../../support/png.ts';
import { countGpuCalls, expectNoGpuErrors, loadModel, luma, OffscreenScene, projectToPixel, testDevice, type Frame } from '../gpu-test.ts';

const device = await testDevice();
const SIZE = 128;

/** A 4×4 ground quad facing +y at y = 0 and a 0.8×0.8 quad above it at y = 1, both white, rough, double-sided. */
function buildShadowStage(): Uint8Array {
  const b = new GltfBuilder('shadow stage');
  const material = b.addMaterial({ pbrMetallicRoughness: { baseColorFactor: [0.8, 0.8, 0.8, 1], metallicFactor: 0, roughnessFactor: 1 }, doubleSided: true });
  const quad = (h: number, y: number): number => {
    const positions = Float32Array.of(-h, y, h, h, y, h, h, y, -h, -h, y, -h);
    return b.addMesh({
      primitives: [{
        attributes: {
          POSITION: b.addAccessor(positions, 'VEC3', { minMax: true }),
          NORMAL: b.addAccessor(Float32Array.of(0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0), 'VEC3'),
        },
        indices: b.addAccessor(Uint16Array.of(0, 1, 2, 0, 2, 3), 'SCALAR'),
        material,
      }],
    });
  };
  const nodes = [b.addNode({ mesh: quad(2, 0) }), b.addNode({ mesh: quad(0.4, 1) })];
  b.addScene({ nodes });
  return b.toGlb();
}

function meanLuma(frame: Frame, [x, y]: [number, number], radius = 2): number {
  let sum = 0, n = 0;
  for (let dy = -radius; dy <= radius; dy++) for (let dx = -radius; dx <= radius; dx++) {
    sum += luma(frame, x + dx, y + dy);
    n++;
  }
  return sum / n;
}

describe('shadow casters and the light fit', () => {
  it('the caster box holds every skinned vertex (built-in character, Fox, RobotExpressive with morphs), at every sampled time', async () => {
    for (const [name, bytes] of [
      ['character', buildBuiltinGlb('character')],
      ['Fox', readFileSync(assetPath('Fox'))],
      ['RobotExpressive', readFileSync(assetPath('RobotExpressive'))],
    ] as const) {
      const model = await loadModel(bytes, name);
      const bounds = createShadowCasterBounds(model);
      const instance = createModelInstance(model);
      const eye = Float64Array.of(3, 1, -2);
      const min = new Float64Array(3), max = new Float64Array(3);
      for (const time of [0, 0.3, 0.9]) {
        updateModelInstance(instance, 0, time);
        expect(shadowCasterBox(bounds, [instance], 1, undefined, eye, min, max)).toBe(true);
        const baked = bakeModel(model, { animation: 0, time });
        let outside = 0, vertices = 0;
        for (const p of baked.primitives) {
          for (let v = 0; v < p.vertexCount; v++, vertices++) {
            for (let c = 0; c < 3; c++) {
              const x = p.positions[v * 3 + c] - eye[c];
              if (x < min[c] - 1e-5 || x > max[c] + 1e-5) outside++;
            }
          }
        }
        expect(vertices).toBeGreaterThan(100);
        expect(outside, `${name} t=${time}: vertex coordinates outside the caster box`).toBe(0);
        // …and the box is not absurdly loose: within 2.5× the exact box's diagonal.
        const exact = computeInstanceBounds(instance);
        const exactDiagonal = Math.hypot(exact.max[0] - exact.min[0], exact.max[1] - exact.min[1], exact.max[2] - exact.min[2]);
        expect(Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2])).toBeLessThan(exactDiagonal * 2.5);
      }
    }
  });

  it('fitLight maps the casters sphere into the clip box (x, y in −1…1, depth 0…1) with the light looking down its direction', () => {
    const dst = new Float32Array(16), scratch = new Float32Array(32);
    const l = Float32Array.of(0.48, 0.6, 0.64);
    const center = [0.3, 1.1, -5], radius = 1.7;
    const size = 1024;
    const texel = fitLight(center, radius, l, size, dst, scratch);
    expect(texel * size / 2).toBeGreaterThanOrEqual(radius);
    expect(texel * size / 2).toBeLessThan(radius * 1.2);
    const project = (p: number[]): number[] => [0, 1, 2, 3].map((r) => dst[r] * p[0] + dst[4 + r] * p[1] + dst[8 + r] * p[2] + dst[12 + r]);
    for (const dir of [[1, 0, 0], [0, 1, 0], [0, 0, 1], [-1, 0, 0], [0, -1, 0], [0, 0, -1], [0.48, 0.6, 0.64], [-0.48, -0.6, -0.64]]) {
      const clip = project(center.map((c, i) => c + dir[i] * radius * 0.999));
      expect(Math.abs(clip[0])).toBeLessThanOrEqual(1);
      expect(Math.abs(clip[1])).toBeLessThanOrEqual(1);
      expect(clip[2]).toBeGreaterThanOrEqual(0);
      expect(clip[2]).toBeLessThanOrEqual(1);
    }
    // Nearer the light = smaller depth.
    expect(project(center.map((c, i) => c + l[i]))[2]).toBeLessThan(project(center.map((c, i) => c - l[i]))[2]);
  });
});

describe.skipIf(!device)('shadows in the Renderer (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  beforeAll(() => {
    scene = new OffscreenScene(gpu, SIZE, SIZE);
    const s = scene.renderer.settings;
    s.lightSpace = 'world';
    // Lit from +x and above: the quad's shadow falls 0.75 towards −x.
    s.lightDirection.set([0.6, 0.8, 0]);
    s.toneMapping = ToneMapping.NONE;
    s.shadowMapSize = 512;
  });
  afterAll(() => scene?.destroy());

  it('a quad above the ground shades the ground where the light ray meets it, nowhere else; shadows off is unchanged', async () => {
    const model = await loadModel(buildShadowStage(), 'shadow stage');
    const s = scene.renderer.settings;
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model, false);
      const cam = scene.camera;
      cam.target.set([0, 0, 0]);
      cam.yaw = 0;
      cam.pitch = 0.75;
      cam.distance = 6;
      cam.near = 0.1;
      cam.far = 50;
      s.shadows = false;
      const off = await scene.pose(-1, 0).render();
      s.shadows = true;
      await scene.renderer.prepareShadows();
      expect(scene.renderer.shadowsReady).toBe(true);
      const on = await scene.render();
      s.shadows = false;
      const offAgain = await scene.render();
      writeArtifactPng('shadow-off', SIZE, SIZE, off.rgba);
      writeArtifactPng('shadow-on', SIZE, SIZE, on.rgba);
      expect(Array.from(offAgain.rgba)).toEqual(Array.from(off.rgba));
      const shadowCentre = projectToPixel(cam, SIZE, SIZE, [-0.75, 0, 0]);
      const litGround = projectToPixel(cam, SIZE, SIZE, [1.3, 0, 1.2]);
      const caster = projectToPixel(cam, SIZE, SIZE, [0, 1, 0]);
      const detail = `shadow centre ${meanLuma(off, shadowCentre).toFixed(1)} → ${meanLuma(on, shadowCentre).toFixed(1)}, lit ground ${meanLuma(off, litGround).toFixed(1)} → ${meanLuma(on, litGround).toFixed(1)}, caster top ${meanLuma(off, caster).toFixed(1)} → ${meanLuma(on, caster).toFixed(1)}`;
      expect(meanLuma(on, shadowCentre), detail).toBeLessThan(meanLuma(off, shadowCentre) * 0.7);
      expect(Math.abs(meanLuma(on, litGround) - meanLuma(off, litGround)), detail).toBeLessThan(1);
      // The caster's lit top has nothing above it: no acne.
      expect(Math.abs(meanLuma(on, caster) - meanLuma(off, caster)), detail).toBeLessThan(1);
    });
  });

  it('the ground disc sits under the character at its lowest rest point and receives its shadow', async () => {
    const model = await loadModel(buildBuiltinGlb('character'), 'character');
    const s = scene.renderer.settings;
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model);
      const cam = scene.camera;
      cam.pitch = 0.5;
      cam.yaw = 0;
      const rest = computeInstanceBounds(scene.instance);
      cam.frame(rest, 1);
      cam.distance *= 1.3;
      cam.far *= 2;
      await scene.renderer.prepareGround();
      await scene.renderer.prepareShadows();
      scene.pose(1, 0.3); // Idle: it stays over the rest bounds (Walk travels along +Z)
      const none = await scene.render();
      s.ground = true;
      const ground = await scene.render();
      const groundCalls = scene.renderer.stats.drawCalls;
      s.shadows = true;
      const shadowed = await scene.render();
      expect(scene.renderer.stats.drawCalls).toBeGreaterThan(groundCalls);
      writeArtifactPng('shadow-ground-off', SIZE, SIZE, ground.rgba);
      writeArtifactPng('shadow-ground-on', SIZE, SIZE, shadowed.rgba);
      const alpha = (f: Frame) => { let n = 0; for (let i = 3; i < f.rgba.length; i += 4) if (f.rgba[i] > 0) n++; return n; };
      expect(alpha(ground)).toBeGreaterThan(alpha(none) * 1.5);
      // The light comes from +x and above: the body's shadow falls towards −x on the ground.
      const height = rest.max[1] - rest.min[1];
      const spot = projectToPixel(cam, SIZE, SIZE, [rest.center[0] - 0.75 * height * 0.4, rest.min[1], rest.center[2]]);
      const far = projectToPixel(cam, SIZE, SIZE, [rest.center[0] + height * 0.6, rest.min[1], rest.center[2] + height * 0.3]);
      const detail = `shadow spot ${meanLuma(ground, spot).toFixed(1)} → ${meanLuma(shadowed, spot).toFixed(1)}, lit ground ${meanLuma(ground, far).toFixed(1)} → ${meanLuma(shadowed, far).toFixed(1)}`;
      expect(meanLuma(ground, spot), detail).toBeGreaterThan(20);
      expect(meanLuma(shadowed, spot), detail).toBeLessThan(meanLuma(ground, spot) * 0.8);
      expect(Math.abs(meanLuma(shadowed, far) - meanLuma(ground, far)), detail).toBeLessThan(1);
    }).finally(() => {
      s.shadows = false;
      s.ground = false;
    });
  });

  it('a model set without shadows makes no ground or caster reach until a frame draws them; with shadows, at once; the same either way', async () => {
    const model = await loadModel(readFileSync(assetPath('Fox')), 'Fox');
    const s = scene.renderer.settings;
    type Reach = { groundFootprint?: GroundFootprint; shadowCasters?: ShadowCasterBounds };
    const reach = () => (scene.renderer as unknown as { current: { reach: Reach } }).current.reach;
    const expected = { groundFootprint: groundFootprint(model), shadowCasters: createShadowCasterBounds(model) };
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model);
      await scene.render();
      expect(reach().groundFootprint).toBeUndefined();
      expect(reach().shadowCasters).toBeUndefined();
      s.shadows = s.ground = true;
      await scene.renderer.prepareShadows();
      await scene.renderer.prepareGround();
      await scene.render();
      expect(reach()).toMatchObject(expected);
      await scene.setModel(model);
      expect(reach()).toMatchObject(expected);
    }).finally(() => {
      s.shadows = s.ground = false;
    });
  });

  it('a skinned character casts through the skinning vertex stages; the shadowed frame path makes one more writeBuffer and nothing else', async () => {
    const model = await loadModel(readFileSync(assetPath('RobotExpressive')), 'RobotExpressive');
    const s = scene.renderer.settings;
    await expectNoGpuErrors(gpu, async () => {
      await scene.setModel(model);
      s.shadows = true;
      await scene.renderer.prepareShadows();
      scene.pose(0, 0.2);
      const frame = await scene.render();
      writeArtifactPng('shadow-character', SIZE, SIZE, frame.rgba);
      const solid = scene.renderer.stats.drawCalls;
      s.shadows = false;
      await scene.render();
      expect(solid).toBeGreaterThan(scene.renderer.stats.drawCalls);
      s.shadows = true;
      const frames = 4;
      const counts = countGpuCalls(gpu, () => {
        for (let f = 0; f < frames; f++) {
          scene.pose(0, 0.3 + f * 0.1);
          scene.renderer.render(scene.target, scene.camera, scene.instance);
        }
      });
      expect(counts).toEqual({ writeBuffer: 4 * frames, submit: frames, createCommandEncoder: frames });
      await gpu.queue.onSubmittedWorkDone();
    }).finally(() => {
      s.shadows = false;
    });
  });
});
