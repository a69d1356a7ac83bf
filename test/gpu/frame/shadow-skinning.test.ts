/**
 * The shadow a skinned caster throws, per skinning method, against an independent reference:
 * the same pose baked on the CPU (bakeModel, double precision) and drawn as a rigid mesh. The
 * caster stands before a large receiver quad that belongs to both scenes; the quad's bounding
 * sphere holds every caster of either (checked: the same caster box), so the light is fitted
 * alike and both shadow maps have the same texels. Compared are only the receiver's pixels
 * that no pose's silhouette covers: there the image is the shadow alone.
 * - The twist cylinder turned 180° on the ground: dual quaternions and centres of rotation keep
 *   the twisted band round, linear blending pinches it.
 * - The limb bent 90° at the elbow before a wall, seen close: dual quaternions bulge at the
 *   elbow's outside, centres of rotation less, linear blending loses volume.
 * A shadow pass that skinned with another method than the lit pass would throw that method's
 * shadow: each frame is told apart from the other methods' references where they differ
 * (measured: twist 202 receiver pixels linear against the others; limb 798 linear and 210
 * dual quaternions against centres of rotation; a shadow pass skinning centres of rotation as
 * dual quaternions fails the limb, one skinning linearly fails both). Vertex and compute paths.
 * PNGs: test-artifacts/shadow-skinning-*.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelInstance, updateModelInstance } from '../../../src/anim/instance.ts';
import type { SkinningMethod } from '../../../src/anim/skinning-method.ts';
import { bakeModel, type BakeOptions } from '../../../src/bake/bake.ts';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { GltfBuilder } from '../../../src/gltf/builder.ts';
import { composeModels } from '../../../src/gltf/compose.ts';
import type { Model } from '../../../src/gltf/model.ts';
import { drawIndices } from '../../../src/gltf/topology.ts';
import { ToneMapping } from '../../../src/gpu/layouts/bindings.ts';
import { createShadowCasterBounds, shadowCasterBox } from '../../../src/gpu/frame/shadow-map.ts';
import { writeArtifactPng } from '../../support/png.ts';
import { expectNoGpuErrors, loadModel, luma, OffscreenScene, testDevice, type Frame } from '../gpu-test.ts';
import { bakedCoverage } from '../silhouette.ts';

const device = await testDevice();
const SIZE = 160;
const SHADOW_MAP_SIZE = 4096;
/** A receiver pixel differs when its luma moves by more than this (of 255): far below the shadow's depth. */
const LUMA_TOLERANCE = 8;
const METHODS: readonly SkinningMethod[] = ['linear', 'dual-quaternion', 'center-of-rotation'];

interface ShadowCase {
  readonly model: string;
  readonly clip: string;
  readonly time: number;
  /** Towards the key light (world space, normalised here). */
  readonly light: readonly number[];
  /** The receiver quad: centre, and its two half-edge vectors (their cross product faces the light). */
  readonly receiver: { readonly center: readonly number[]; readonly u: readonly number[]; readonly v: readonly number[] };
  readonly camera: { readonly target: readonly number[]; readonly yaw: number; readonly pitch: number; readonly distance: number };
  /** Pairs of methods whose shadows this pose tells apart, with the fewest differing receiver pixels expected. */
  readonly apart: readonly (readonly [SkinningMethod, SkinningMethod, number])[];
}

const CASES: readonly ShadowCase[] = [
  {
    // Lit low from +x: the 2-unit cylinder's shadow runs about 3 units towards −x.
    model: 'twist-cylinder', clip: 'Twist', time: 2, light: [0.8, 0.55, 0.25],
    receiver: { center: [-1.3, -0.01, -0.3], u: [2.4, 0, 0], v: [0, 0, -2.4] },
    camera: { target: [-1.2, 0.3, 0], yaw: 0, pitch: 1.0, distance: 7 },
    apart: [['linear', 'center-of-rotation', 40], ['linear', 'dual-quaternion', 40]],
  },
  {
    // Bent in the xy plane, lit from the front onto a wall behind; the view holds the elbow's shadow.
    model: 'limb', clip: 'Bend', time: 1, light: [0.5, 0.3, 1],
    receiver: { center: [0.5, 0.5, -0.6], u: [1.5, 0, 0], v: [0, 1.5, 0] },
    camera: { target: [0.7, -0.34, -0.6], yaw: 0, pitch: 0, distance: 1.1 },
    apart: [['linear', 'center-of-rotation', 100], ['dual-quaternion', 'center-of-rotation', 20]],
  },
];

/** Adds the receiver quad (matte grey, double-sided) to `b`; returns its node. */
function addReceiver(b: GltfBuilder, { center: c, u, v }: ShadowCase['receiver']): number {
  const material = b.addMaterial({ pbrMetallicRoughness: { baseColorFactor: [0.8, 0.8, 0.8, 1], metallicFactor: 0, roughnessFactor: 1 }, doubleSided: true });
  const corner = (su: number, sv: number) => [0, 1, 2].map((k) => c[k] + su * u[k] + sv * v[k]);
  const n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
  const l = Math.hypot(...n);
  const mesh = b.addMesh({
    primitives: [{
      attributes: {
        POSITION: b.addAccessor(Float32Array.from([...corner(-1, -1), ...corner(1, -1), ...corner(1, 1), ...corner(-1, 1)]), 'VEC3', { minMax: true }),
        NORMAL: b.addAccessor(Float32Array.from([0, 1, 2, 3].flatMap(() => n.map((x) => x / l))), 'VEC3'),
      },
      indices: b.addAccessor(Uint16Array.of(0, 1, 2, 0, 2, 3), 'SCALAR'),
      material,
    }],
  });
  return b.addNode({ mesh });
}

/** The posed caster as the CPU bakes it, as rigid world-space meshes, before the receiver. */
async function rigidReference(caster: Model, pose: BakeOptions, receiver: ShadowCase['receiver']): Promise<Model> {
  const b = new GltfBuilder('baked caster before the receiver');
  const material = b.addMaterial({ pbrMetallicRoughness: { baseColorFactor: [0.85, 0.45, 0.18, 1], metallicFactor: 0, roughnessFactor: 0.55 } });
  const nodes = [addReceiver(b, receiver)];
  for (const baked of bakeModel(caster, pose).primitives) {
    const prim = caster.meshes[baked.mesh].primitives[baked.primitive];
    const mesh = b.addMesh({
      primitives: [{
        attributes: {
          POSITION: b.addAccessor(Float32Array.from(baked.positions), 'VEC3', { minMax: true }),
          ...(baked.normals ? { NORMAL: b.addAccessor(Float32Array.from(baked.normals), 'VEC3') } : {}),
        },
        indices: b.addAccessor(drawIndices(prim)!, 'SCALAR'),
        material,
      }],
    });
    nodes.push(b.addNode({ mesh }));
  }
  b.addScene({ nodes });
  return loadModel(b.toGlb(), 'rigid reference');
}

async function receiverModel(receiver: ShadowCase['receiver']): Promise<Model> {
  const b = new GltfBuilder('receiver');
  b.addScene({ nodes: [addReceiver(b, receiver)] });
  return loadModel(b.toGlb(), 'receiver');
}

/** The box the shadow pass fits its light to, for `model` at clip `clip`, time `time`. */
function casterBox(model: Model, clip: number, time: number): number[] {
  const instance = createModelInstance(model);
  updateModelInstance(instance, clip, time);
  const min = new Float64Array(3), max = new Float64Array(3);
  shadowCasterBox(createShadowCasterBounds(model), [instance], 1, undefined, [0, 0, 0], min, max);
  return [...min, ...max];
}

/** Receiver pixels whose luma in `frame` and `reference` is more than LUMA_TOLERANCE apart, outside `silhouettes` (grown by a pixel). */
function differingReceiverPixels(frame: Frame, reference: Frame, silhouettes: readonly Uint8Array[]): number {
  let n = 0;
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      if (nearSilhouette(silhouettes, x, y)) continue;
      if (Math.abs(luma(frame, x, y) - luma(reference, x, y)) > LUMA_TOLERANCE) n++;
    }
  }
  return n;
}

function nearSilhouette(silhouettes: readonly Uint8Array[], x: number, y: number): boolean {
  for (let dy = -1; dy <= 1; dy++) {
    for (let dx = -1; dx <= 1; dx++) {
      const px = x + dx, py = y + dy;
      if (px < 0 || py < 0 || px >= SIZE || py >= SIZE) continue;
      for (const s of silhouettes) if (s[py * SIZE + px] > 0) return true;
    }
  }
  return false;
}

describe.skipIf(!device)('the shadow of a skinned caster against the CPU-baked pose drawn rigid (Dawn on SwiftShader)', () => {
  const gpu = device!;
  let scene: OffscreenScene;
  beforeAll(() => {
    scene = new OffscreenScene(gpu, SIZE, SIZE);
    const s = scene.renderer.settings;
    s.lightSpace = 'world';
    s.toneMapping = ToneMapping.NONE;
    s.shadowMapSize = SHADOW_MAP_SIZE;
  });
  afterAll(() => scene?.destroy());

  for (const c of CASES) {
    it(`${c.model} (${c.clip} at ${c.time} s): each method's shadow is its CPU pose's, on the vertex and compute paths, and told apart from ${c.apart.map(([a, b]) => `${a} against ${b}`).join(', ')}`, async () => {
      const caster = await loadModel(buildBuiltinGlb(c.model), c.model);
      const clip = caster.animations.findIndex((a) => a.name === c.clip);
      const receiver = await receiverModel(c.receiver);
      const scenery = composeModels(`${c.model} before a receiver`, [{ model: caster }, { model: receiver }], [{ name: c.clip, sources: [clip, -1] }]).model;
      const s = scene.renderer.settings;
      const l = Math.hypot(...c.light);
      s.lightDirection.set(c.light.map((x) => x / l));
      const cam = scene.camera;
      cam.target.set(c.camera.target);
      cam.yaw = c.camera.yaw;
      cam.pitch = c.camera.pitch;
      cam.distance = c.camera.distance;
      cam.near = 0.1;
      cam.far = 50;
      await expectNoGpuErrors(gpu, async () => {
        s.shadows = true;
        // The references: each method's pose baked on the CPU and drawn rigid, and the receiver unshadowed.
        const references = new Map<SkinningMethod, Frame>();
        const silhouettes: Uint8Array[] = [];
        const skinnedBox = casterBox(scenery, 0, c.time);
        for (const method of METHODS) {
          const pose = { animation: clip, time: c.time, skinning: method };
          const reference = await rigidReference(caster, pose, c.receiver);
          // The light is fitted to the same box for the skinned scene and every reference: the receiver's.
          expect(casterBox(reference, -1, 0), `${method} reference's caster box`).toEqual(skinnedBox);
          await scene.setModel(reference, false);
          await scene.renderer.prepareShadows();
          references.set(method, await scene.pose(-1, 0).render());
          silhouettes.push(bakedCoverage(cam, SIZE, SIZE, caster, pose));
          writeArtifactPng(`shadow-skinning-${c.model}-reference-${method}`, SIZE, SIZE, references.get(method)!.rgba);
        }
        s.shadows = false;
        const unshadowed = await scene.render();
        s.shadows = true;
        const shadowed = differingReceiverPixels(references.get('center-of-rotation')!, unshadowed, silhouettes);
        const apart = c.apart.map(([a, b, least]) => [a, b, least, differingReceiverPixels(references.get(a)!, references.get(b)!, silhouettes)] as const);
        const detail = `shadowed receiver pixels ${shadowed}; references apart ${JSON.stringify(apart)}`;
        expect.soft(shadowed, detail).toBeGreaterThan(400);
        // Where a shadow pass skinning with the other method would show.
        for (const [, , least, count] of apart) expect.soft(count, detail).toBeGreaterThanOrEqual(least);

        await scene.setModel(scenery, false);
        scene.pose(clip, c.time);
        for (const method of METHODS) {
          s.skinning = method;
          await Promise.all([scene.renderer.prepareSkinning(), scene.renderer.prepareShadows(), scene.renderer.prepareComputeSkinning()]);
          for (const path of ['vertex', 'compute'] as const) {
            s.skinningPath = path;
            const frame = await scene.render();
            expect(scene.renderer.skinning).toBe(method);
            expect(scene.renderer.skinningPath).toBe(path);
            expect(scene.renderer.shadowsReady).toBe(true);
            writeArtifactPng(`shadow-skinning-${c.model}-${method}-${path}`, SIZE, SIZE, frame.rgba);
            const against = Object.fromEntries(METHODS.map((m) => [m, differingReceiverPixels(frame, references.get(m)!, silhouettes)]));
            const what = `${method} ${path}: receiver pixels off each CPU pose's shadow ${JSON.stringify(against)}; ${detail}`;
            expect.soft(against[method], what).toBeLessThanOrEqual(4);
            for (const [a, b, least] of apart) {
              if (a === method || b === method) expect.soft(against[a === method ? b : a], what).toBeGreaterThanOrEqual(least / 2);
            }
          }
        }
      }).finally(() => {
        s.shadows = false;
        s.skinning = 'linear';
        s.skinningPath = 'vertex';
      });
    });
  }
});
