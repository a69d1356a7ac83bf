import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createModelInstance, updateModelInstance } from '../../../src/anim/instance.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { computeInstanceBounds, type Bounds } from '../../../src/gpu/frame/bounds.ts';
import { MAX_PITCH, OrbitCamera } from '../../../src/gpu/frame/camera.ts';
import { createSkinnedVertices, skinPrimitive } from '../../../src/skin/cpu-skin.ts';
import { assetPath } from '../../support/assets.ts';
import { buildChain } from '../../support/fixtures.ts';

function project(camera: OrbitCamera, p: readonly number[]): number[] {
  const v = camera.view, pr = camera.projection;
  const e = [0, 1, 2, 3].map((r) => v[r] * p[0] + v[4 + r] * p[1] + v[8 + r] * p[2] + v[12 + r]);
  const c = [0, 1, 2, 3].map((r) => pr[r] * e[0] + pr[4 + r] * e[1] + pr[8 + r] * e[2] + pr[12 + r] * e[3]);
  return [c[0] / c[3], c[1] / c[3], c[2] / c[3]];
}

function corners(b: Bounds): number[][] {
  return [0, 1, 2, 3, 4, 5, 6, 7].map((i) => [i & 1 ? b.max[0] : b.min[0], i & 2 ? b.max[1] : b.min[1], i & 4 ? b.max[2] : b.min[2]]);
}

describe('OrbitCamera', () => {
  it('at yaw 0, pitch 0 looks from +z at the target', () => {
    const camera = new OrbitCamera();
    camera.target.set([1, 2, 3]);
    camera.distance = 4;
    camera.update(1);
    expect(Array.from(camera.position)).toEqual([1, 2, 7]);
    const centre = project(camera, [1, 2, 3]);
    expect(centre[0]).toBeCloseTo(0, 6);
    expect(centre[1]).toBeCloseTo(0, 6);
    expect(centre[2]).toBeGreaterThan(0);
    expect(centre[2]).toBeLessThan(1);
    // +x is to the right, +y up.
    expect(project(camera, [2, 2, 3])[0]).toBeGreaterThan(0);
    expect(project(camera, [1, 3, 3])[1]).toBeGreaterThan(0);
  });

  it('clamps pitch short of the poles and keeps the distance positive', () => {
    const camera = new OrbitCamera();
    camera.orbit(0.5, 10);
    expect(camera.pitch).toBe(MAX_PITCH);
    camera.orbit(0, -20);
    expect(camera.pitch).toBe(-MAX_PITCH);
    expect(camera.yaw).toBe(0.5);
    camera.zoom(1e-9);
    expect(camera.distance).toBeGreaterThan(0);
  });

  it('frames bounds so every corner is in view and the box fills most of it', () => {
    const bounds: Bounds = { min: Float32Array.of(-0.3, 0, -0.2), max: Float32Array.of(0.3, 1.8, 0.25), center: Float32Array.of(0, 0.9, 0.025), radius: Math.hypot(0.6, 1.8, 0.45) / 2 };
    for (const aspect of [0.5, 1, 2]) {
      for (const [yaw, pitch] of [[0, 0], [0.8, 0.3], [Math.PI, -0.5]]) {
        const camera = new OrbitCamera();
        camera.yaw = yaw;
        camera.pitch = pitch;
        expect(camera.frame(bounds, aspect)).toBe(camera);
        camera.update(aspect);
        const ndc = corners(bounds).map((c) => project(camera, c));
        for (const [x, y, z] of ndc) {
          expect(Math.abs(x)).toBeLessThanOrEqual(1);
          expect(Math.abs(y)).toBeLessThanOrEqual(1);
          expect(z).toBeGreaterThan(0);
          expect(z).toBeLessThan(1);
        }
        const extent = Math.max(...ndc.map(([x, y]) => Math.max(Math.abs(x), Math.abs(y))));
        expect(extent, `aspect ${aspect} yaw ${yaw}`).toBeGreaterThan(0.8);
      }
    }
  });

  it('framedAspect: framed vertically (aspect Infinity), the box fits across a view exactly that wide, and not across a narrower one', () => {
    const bounds: Bounds = { min: Float32Array.of(-1.2, 0, -0.2), max: Float32Array.of(1.2, 1, 0.25), center: Float32Array.of(0, 0.5, 0.025), radius: Math.hypot(2.4, 1, 0.45) / 2 };
    for (const [yaw, pitch] of [[0, 0], [0.8, 0.3], [Math.PI / 2, -0.5]]) {
      const camera = new OrbitCamera();
      camera.yaw = yaw;
      camera.pitch = pitch;
      camera.frame(bounds, Infinity);
      const aspect = camera.framedAspect(bounds);
      const widest = (a: number) => {
        camera.update(a);
        return Math.max(...corners(bounds).map((c) => Math.abs(project(camera, c)[0])));
      };
      // FRAME_MARGIN's room: the outermost corner at 1 / 1.1 of the half-width.
      expect(widest(aspect), `yaw ${yaw}`).toBeCloseTo(1 / 1.1, 6);
      expect(widest(aspect * 0.9)).toBeGreaterThan(1 / 1.1 + 1e-3);
    }
  });
});

describe('computeInstanceBounds', () => {
  it('SimpleSkin at rest: x −0.5…0.5, y 0…2', async () => {
    const model = await loadGltf(new Uint8Array(readFileSync(assetPath('SimpleSkin'))));
    const b = computeInstanceBounds(createModelInstance(model));
    expect(Array.from(b.min)).toEqual([-0.5, 0, 0]);
    expect(Array.from(b.max)).toEqual([0.5, 2, 0]);
    expect(b.radius).toBeCloseTo(Math.hypot(1, 2) / 2, 6);
  });

  it('covers posed skinned vertices placed by their mesh node, like the vertex stage', async () => {
    const model = await loadGltf(buildChain({ transformedMeshNode: true }));
    const instance = createModelInstance(model);
    updateModelInstance(instance, 0, 1.3);
    const b = computeInstanceBounds(instance);
    const mn = model.meshNodes[0];
    const prim = model.meshes[mn.mesh].primitives[0];
    const skinned = skinPrimitive(prim, instance.palette, createSkinnedVertices(prim, 'float64'), instance.paletteOffsets[0]).positions;
    const m = instance.nodeMatrices.subarray(model.hierarchy.slotOf[mn.node] * 16);
    for (let v = 0; v < prim.vertexCount; v++) {
      for (let c = 0; c < 3; c++) {
        const w = m[c] * skinned[v * 3] + m[4 + c] * skinned[v * 3 + 1] + m[8 + c] * skinned[v * 3 + 2] + m[12 + c];
        expect(w).toBeGreaterThanOrEqual(b.min[c] - 1e-5);
        expect(w).toBeLessThanOrEqual(b.max[c] + 1e-5);
      }
    }
  });
});
