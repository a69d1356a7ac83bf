import { describe, expect, it } from 'vitest';
import { bakeModel, resolveAnimation } from '../../src/bake/bake.ts';
import { bakeToJson } from '../../src/bake/json.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import { assetPath, sharedAssets } from '../support/assets.ts';

const closeTo = (a: ArrayLike<number>, b: number[], eps = 1e-6) => {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < b.length; i++) expect(Math.abs(a[i] - b[i]), `component ${i}: ${a[i]} vs ${b[i]}`).toBeLessThan(eps);
};

/** Vertex v of the first baked primitive. */
const vertex = (positions: Float64Array, v: number) => Array.from(positions.subarray(v * 3, v * 3 + 3));

describe('bake: SimpleSkin, the glTF tutorial numbers', () => {
  // The tutorial's strip: 10 vertices at x = ±0.5, y = 0, 0.5, 1, 1.5, 2; joint 0 at the origin,
  // joint 1 at (0, 1, 0); weights of joint 1 go 0, 0.25, 0.5, 0.75, 1 up the strip. The clip turns
  // joint 1 about z: 0° at t=0, 45° at 0.5, 90° at 1.0 (key value 0.707, 0.707), back, then -90°.
  const rotateAboutJoint1 = (p: number[], degrees: number) => {
    const a = (degrees * Math.PI) / 180;
    const x = p[0], y = p[1] - 1;
    return [x * Math.cos(a) - y * Math.sin(a), x * Math.sin(a) + y * Math.cos(a) + 1, 0];
  };
  const rest = [-0.5, 0, 0, 0.5, 0, 0, -0.5, 0.5, 0, 0.5, 0.5, 0, -0.5, 1, 0, 0.5, 1, 0, -0.5, 1.5, 0, 0.5, 1.5, 0, -0.5, 2, 0, 0.5, 2, 0];
  const w1 = [0, 0, 0.25, 0.25, 0.5, 0.5, 0.75, 0.75, 1, 1];

  const expected = (degrees: number) =>
    w1.flatMap((w, v) => {
      const p = rest.slice(v * 3, v * 3 + 3);
      const r = rotateAboutJoint1(p, degrees);
      return [0, 1, 2].map((c) => (1 - w) * p[c] + w * r[c]);
    });

  it('at t=0 the strip is in its rest pose', async () => {
    const model = await loadGltfFile(assetPath('SimpleSkin'));
    const out = bakeModel(model, { time: 0 });
    expect(out.primitives).toHaveLength(1);
    closeTo(out.primitives[0].positions, rest);
  });

  it('at t=1 the top is turned 90° about joint 1 and the middle blends half-way', async () => {
    const model = await loadGltfFile(assetPath('SimpleSkin'));
    const out = bakeModel(model, { time: 1 });
    // The file's keys hold 0.707 (not √½), so allow 1e-3.
    closeTo(out.primitives[0].positions, expected(90), 1e-3);
    closeTo(vertex(out.primitives[0].positions, 8), [-1, 0.5, 0], 1e-3);
    closeTo(vertex(out.primitives[0].positions, 4), [-0.25, 0.75, 0], 1e-3);
  });

  it('at t=0.25 the rotation is the slerp midpoint 22.5° of keys 0° and 45°', async () => {
    const model = await loadGltfFile(assetPath('SimpleSkin'));
    closeTo(bakeModel(model, { time: 0.25 }).primitives[0].positions, expected(22.5), 1e-3);
  });

  it('clamps before the first and after the last key', async () => {
    const model = await loadGltfFile(assetPath('SimpleSkin'));
    closeTo(bakeModel(model, { time: -3 }).primitives[0].positions, rest);
    closeTo(bakeModel(model, { time: 100 }).primitives[0].positions, rest, 1e-6); // last key is identity
  });
});

describe('bake: every shared asset', () => {
  for (const asset of sharedAssets()) {
    it(`${asset.name}: bakes every clip at several times to finite world-space data`, async () => {
      const model = await loadGltfFile(asset.path);
      const clips = Math.max(1, model.animations.length);
      for (let c = 0; c < clips; c++) {
        const duration = model.animations[c]?.duration ?? 0;
        for (const time of [0, duration / 3, duration]) {
          const out = bakeModel(model, { animation: model.animations.length ? c : undefined, time });
          const skinned = model.meshNodes.filter((m) => m.skin >= 0).reduce((n, m) => n + model.meshes[m.mesh].primitives.filter((p) => p.influences > 0).length, 0);
          expect(out.primitives).toHaveLength(skinned);
          for (const p of out.primitives) {
            expect(p.positions.length).toBe(p.vertexCount * 3);
            expect(p.positions.every(Number.isFinite)).toBe(true);
            if (p.normals) {
              for (let v = 0; v < p.vertexCount; v++) {
                const len = Math.hypot(p.normals[v * 3], p.normals[v * 3 + 1], p.normals[v * 3 + 2]);
                expect(Math.abs(len - 1)).toBeLessThan(1e-9);
              }
            }
          }
        }
      }
    });
  }
});

describe('bake: the skinned mesh node transform does not move skinned vertices', () => {
  it('RobotExpressive: its skinned nodes carry scale 100, yet the figure stays a few metres tall', async () => {
    const model = await loadGltfFile(assetPath('RobotExpressive'));
    const scaled = model.meshNodes.filter((m) => m.skin >= 0).map((m) => model.hierarchy.restScale[model.hierarchy.slotOf[m.node] * 3]);
    expect(scaled.some((s) => Math.abs(s - 100) < 1e-3)).toBe(true);
    const out = bakeModel(model, { animation: 'Idle', time: 0 });
    let minY = Infinity, maxY = -Infinity;
    for (const p of out.primitives) for (let v = 0; v < p.vertexCount; v++) {
      minY = Math.min(minY, p.positions[v * 3 + 1]);
      maxY = Math.max(maxY, p.positions[v * 3 + 1]);
    }
    expect(maxY - minY).toBeGreaterThan(1);
    expect(maxY - minY).toBeLessThan(10);
  });
});

describe('resolveAnimation', () => {
  it('takes an index, a numeric string or a name, and names the choices when wrong', async () => {
    const model = await loadGltfFile(assetPath('Fox'));
    expect(resolveAnimation(model, 1)).toBe(1);
    expect(resolveAnimation(model, '2')).toBe(2);
    expect(resolveAnimation(model, 'Walk')).toBe(1);
    expect(resolveAnimation(model, undefined)).toBe(0);
    expect(() => resolveAnimation(model, 'Dance')).toThrow(/"Dance" not found; the model has 3: 0 "Survey", 1 "Walk", 2 "Run"/);
    expect(() => resolveAnimation(model, 3)).toThrow(/not found/);
  });
  it('is -1 (rest pose) for a model without animations', async () => {
    const model = await loadGltfFile(assetPath('SimpleSkin'));
    expect(resolveAnimation({ ...model, animations: [] }, undefined)).toBe(-1);
  });
});

describe('bakeToJson', () => {
  it('writes the contract format', async () => {
    const model = await loadGltfFile(assetPath('SimpleSkin'));
    const json = JSON.parse(bakeToJson(bakeModel(model, { time: 1 })));
    expect(Object.keys(json)).toEqual(['asset', 'animation', 'time', 'primitives']);
    expect(json.asset).toBe('SimpleSkin.gltf');
    expect(json.animation).toEqual({ index: 0, name: null });
    expect(json.time).toBe(1);
    expect(Object.keys(json.primitives[0])).toEqual(['node', 'mesh', 'primitive', 'vertexCount', 'POSITION']);
    expect(json.primitives[0]).toMatchObject({ node: 0, mesh: 0, primitive: 0, vertexCount: 10 });
    closeTo(json.primitives[0].POSITION.slice(24, 27), [-1, 0.5, 0], 1e-3);
  });
  it('includes NORMAL and TANGENT only when the primitive has them', async () => {
    const model = await loadGltfFile(assetPath('CesiumMan'));
    const json = JSON.parse(bakeToJson(bakeModel(model)));
    expect(json.primitives[0].NORMAL).toHaveLength(json.primitives[0].vertexCount * 3);
    expect(json.primitives[0].TANGENT).toBeUndefined();
    expect(json.animation).toEqual({ index: 0, name: null });
  });
  it('keeps full float precision', async () => {
    const model = await loadGltfFile(assetPath('Fox'));
    const result = bakeModel(model, { animation: 'Run', time: 0.3 });
    const json = JSON.parse(bakeToJson(result));
    const a = result.primitives[0].positions;
    const b = json.primitives[0].POSITION as number[];
    for (let i = 0; i < a.length; i++) expect(Math.abs(a[i] - b[i])).toBeLessThanOrEqual(Math.abs(a[i]) * 1e-9);
  });
});
