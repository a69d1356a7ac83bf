import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bakeModel } from '../../src/bake/bake.ts';
import { bakeToJson } from '../../src/bake/json.ts';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { parseBakeArgs } from '../../src/cli/bake.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { ourLines, runBuiltBake as bake } from '../support/bake-cli.ts';
import { assetPath, sharedAssets } from '../support/assets.ts';

const closeTo = (a: ArrayLike<number>, b: ArrayLike<number>, eps: number) => {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < b.length; i++) expect(Math.abs(a[i] - b[i]), `component ${i}: ${a[i]} vs ${b[i]}`).toBeLessThan(eps);
};

describe('bake --skinning: invalid inputs', () => {
  it('an unknown or missing --skinning value is a usage error naming the choices', () => {
    expect(() => parseBakeArgs(['a.glb', '--skinning', 'spherical'])).toThrow(/--skinning "spherical" must be linear, dual-quaternion or center-of-rotation/);
    expect(() => parseBakeArgs(['a.glb', '--skinning', 'DQS'])).toThrow(/must be linear, dual-quaternion or center-of-rotation/);
    expect(() => parseBakeArgs(['a.glb', '--skinning'])).toThrow(/--skinning needs a value/);
    expect(() => parseBakeArgs(['a.glb', '--skinning', '--time', '1'])).toThrow(/--skinning needs a value/);
  });

  it('the command line exits 1 with one line for a bad value', async () => {
    const r = await bake([assetPath('SimpleSkin'), '--skinning', 'spherical']);
    expect(r.code).toBe(1);
    expect(ourLines(r.stderr)).toEqual(['bake: --skinning "spherical" must be linear, dual-quaternion or center-of-rotation']);
  });

  it('bakeModel refuses an unknown method', async () => {
    const model = await loadGltfFile(assetPath('SimpleSkin'));
    expect(() => bakeModel(model, { skinning: 'spherical' as never })).toThrow(/skinning "spherical" must be linear, dual-quaternion or center-of-rotation/);
  });
});

describe('bake --skinning: parsing and defaults', () => {
  it('defaults to linear; takes either method', async () => {
    expect(parseBakeArgs(['a.glb']).skinning).toBe('linear');
    expect(parseBakeArgs(['a.glb', '--skinning', 'dual-quaternion']).skinning).toBe('dual-quaternion');
    expect(parseBakeArgs(['a.glb', '--skinning', 'linear', '--backend', 'gpu'])).toMatchObject({ skinning: 'linear', backend: 'gpu' });
    const model = await loadGltfFile(assetPath('SimpleSkin'));
    expect(bakeModel(model, { time: 1, skinning: 'linear' })).toEqual(bakeModel(model, { time: 1 }));
  });
});

describe('bakeModel with dual-quaternion skinning', () => {
  it('SimpleSkin at t=1: each vertex turns about joint 1 by the DLB angle of its weight (90° at weight 1)', async () => {
    // Joint 1 at (0, 1, 0) turns 90° about z; joint 0 stays. DLB of the identity and that
    // rotation (same centre) is a rotation about the centre by 2·atan2(w·sin45°, 1 − w + w·cos45°).
    const model = await loadGltfFile(assetPath('SimpleSkin'));
    const out = bakeModel(model, { time: 1, skinning: 'dual-quaternion' }).primitives[0].positions;
    const rest = [-0.5, 0, 0, 0.5, 0, 0, -0.5, 0.5, 0, 0.5, 0.5, 0, -0.5, 1, 0, 0.5, 1, 0, -0.5, 1.5, 0, 0.5, 1.5, 0, -0.5, 2, 0, 0.5, 2, 0];
    const w1 = [0, 0, 0.25, 0.25, 0.5, 0.5, 0.75, 0.75, 1, 1];
    const expected = w1.flatMap((w, v) => {
      const a = 2 * Math.atan2(w * Math.SQRT1_2, 1 - w + w * Math.SQRT1_2);
      const x = rest[v * 3], y = rest[v * 3 + 1] - 1;
      return [x * Math.cos(a) - y * Math.sin(a), x * Math.sin(a) + y * Math.cos(a) + 1, 0];
    });
    closeTo(out, expected, 1e-3); // the file's keys hold 0.707, not √½
    // Unlike the linear blend, the half-weighted vertices stay at their distance from the joint.
    const v = 4;
    expect(Math.hypot(out[v * 3], out[v * 3 + 1] - 1)).toBeCloseTo(0.5, 3);
    const linear = bakeModel(model, { time: 1 }).primitives[0].positions;
    expect(Math.hypot(linear[v * 3], linear[v * 3 + 1] - 1)).toBeLessThan(0.4);
  });

  it('the candy wrapper: at the end of "Twist" the mid ring keeps its radius (linear: collapsed)', async () => {
    const model = await loadGltf(buildBuiltinGlb('twist-cylinder'), { name: 'twist-cylinder' });
    const prim = model.meshes[0].primitives[0];
    const ring: number[] = [];
    for (let v = 0; v < prim.vertexCount; v++) {
      if (Math.abs(prim.positions[v * 3 + 1] - 1) < 1e-6 && Math.abs(Math.hypot(prim.positions[v * 3], prim.positions[v * 3 + 2]) - 0.25) < 1e-6) ring.push(v);
    }
    const radius = (p: Float64Array) => ring.reduce((s, v) => s + Math.hypot(p[v * 3], p[v * 3 + 2]), 0) / ring.length / 0.25;
    expect(radius(bakeModel(model, { animation: 'Twist', time: 2, skinning: 'dual-quaternion' }).primitives[0].positions)).toBeGreaterThanOrEqual(0.9);
    expect(radius(bakeModel(model, { animation: 'Twist', time: 2 }).primitives[0].positions)).toBeLessThan(0.1);
  });

  for (const asset of sharedAssets()) {
    it(`${asset.name}: every clip bakes to finite data with unit normals; rigidly bound vertices match the linear bake`, async () => {
      const model = await loadGltfFile(asset.path);
      const clips = Math.max(1, model.animations.length);
      for (let c = 0; c < clips; c++) {
        const time = (model.animations[c]?.duration ?? 0) * 0.37;
        const animation = model.animations.length ? c : undefined;
        const dq = bakeModel(model, { animation, time, skinning: 'dual-quaternion' });
        const linear = bakeModel(model, { animation, time });
        expect(dq.primitives.map((p) => [p.node, p.mesh, p.primitive, p.vertexCount])).toEqual(linear.primitives.map((p) => [p.node, p.mesh, p.primitive, p.vertexCount]));
        dq.primitives.forEach((p, i) => {
          const prim = model.meshes[p.mesh].primitives[p.primitive];
          expect(p.positions.every(Number.isFinite)).toBe(true);
          const scale = Math.max(1, ...Array.from(linear.primitives[i].positions, Math.abs));
          for (let v = 0; v < p.vertexCount; v++) {
            if (p.normals) expect(Math.abs(Math.hypot(p.normals[v * 3], p.normals[v * 3 + 1], p.normals[v * 3 + 2]) - 1)).toBeLessThan(1e-9);
            let single = false;
            for (let k = 0; k < prim.influences; k++) if (prim.weights![v * prim.influences + k] === 1) single = true;
            if (!single) continue;
            for (let c3 = 0; c3 < 3; c3++) {
              expect(Math.abs(p.positions[v * 3 + c3] - linear.primitives[i].positions[v * 3 + c3]) / scale, `vertex ${v}`).toBeLessThan(1e-9);
            }
          }
        });
      }
    });
  }
});

describe('bake --skinning dual-quaternion on the command line (CPU)', () => {
  it('--out x.json holds the numbers of bakeModel({ skinning: "dual-quaternion" }) in the same format', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bake-dqs-'));
    const r = await bake(['--builtin', 'twist-cylinder', '--time', '2', '--skinning', 'dual-quaternion', '--out', 'twist.json'], dir);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(readFileSync(join(dir, 'twist.json'), 'utf8'));
    const model = await loadGltf(buildBuiltinGlb('twist-cylinder'), { name: 'builtin:twist-cylinder' });
    const expected = bakeModel(model, { time: 2, skinning: 'dual-quaternion' });
    expect(Object.keys(json)).toEqual(Object.keys(JSON.parse(bakeToJson(expected))));
    expect(json).toEqual(JSON.parse(bakeToJson(expected)));
  });

  it('--out x.obj and x.glb are written too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bake-dqs-'));
    const [obj, glb] = await Promise.all([
      bake([assetPath('SimpleSkin'), '--time', '1', '--skinning', 'dual-quaternion', '--out', 'skin.obj'], dir),
      bake([assetPath('SimpleSkin'), '--time', '1', '--skinning', 'dual-quaternion', '--out', 'skin.glb'], dir),
    ]);
    expect(obj.code, obj.stderr).toBe(0);
    expect(glb.code, glb.stderr).toBe(0);
    const expected = bakeModel(await loadGltfFile(assetPath('SimpleSkin')), { time: 1, skinning: 'dual-quaternion' }).primitives[0].positions;
    const vertices = readFileSync(join(dir, 'skin.obj'), 'utf8').split('\n').filter((l) => l.startsWith('v ')).flatMap((l) => l.split(' ').slice(1, 4).map(Number));
    closeTo(vertices, expected, 1e-5);
    const posed = await loadGltf(readFileSync(join(dir, 'skin.glb')));
    closeTo(posed.meshes[0].primitives[0].positions, expected, 1e-6);
  });
});
