/**
 * bake on VRM models: node constraints applied; `--spring-steps N --dt S` simulating the spring
 * bones from rest at T − N·S to T in N fixed steps (deterministic, equal to the runtime stepped
 * by hand, different from the springs at rest); `--expression NAME:WEIGHT`; the VRM sample
 * files and built-in avatars baked through the command line; its argument errors.
 */
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createClipCursor, sampleClip } from '../../src/anim/sample.ts';
import { localToModel } from '../../src/anim/local-to-model.ts';
import { createPose, setRestPose } from '../../src/anim/pose.ts';
import { NodeConstraintJob } from '../../src/anim/vrm/node-constraints.ts';
import { VrmRuntime } from '../../src/anim/vrm/vrm-runtime.ts';
import { bakeModel, poseForBake } from '../../src/bake/bake.ts';
import { buildBuiltinGlb } from '../../src/builtin/index.ts';
import { parseBakeArgs } from '../../src/cli/bake.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { ourLines, runBuiltBake } from '../support/bake-cli.ts';
import { buildConstraintFixture } from '../support/vrm-fixtures.ts';

const avatar = () => loadGltf(buildBuiltinGlb('vrm-avatar'), { name: 'builtin:vrm-avatar' });
const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
};

describe('bake on VRM models', () => {
  it('applies node constraints', async () => {
    const model = await loadGltf(buildConstraintFixture());
    const posed = poseForBake(model, {});
    const pose = createPose(model);
    const m = new Float64Array(model.hierarchy.count * 16);
    localToModel(model.hierarchy, pose, m);
    new NodeConstraintJob(model.hierarchy, model.vrm!.constraints, pose, m).run();
    expect(maxDiff(posed.nodeMatrices, m)).toBe(0);
    // The aim constraint really turned its node (the fixture's rest does not aim at the hand).
    expect(maxDiff(posed.pose.rotation, model.hierarchy.restRotation)).toBeGreaterThan(0.01);
  });

  it('--spring-steps: from rest at T − N·S, N steps, ending at T; deterministic; the runtime stepped by hand gives the same', async () => {
    const model = await avatar();
    const T = 0.8, N = 45, S = 1 / 60;
    const a = bakeModel(model, { animation: 'Walk', time: T, springSteps: { steps: N, dt: S } });
    const b = bakeModel(model, { animation: 'Walk', time: T, springSteps: { steps: N, dt: S } });
    expect(maxDiff(a.primitives[0].positions, b.primitives[0].positions)).toBe(0);
    // By hand: the runtime over the Walk sampled at each step's time.
    const pose = createPose(model);
    const m = new Float64Array(model.hierarchy.count * 16);
    const vrm = new VrmRuntime(model, pose, m);
    const cursor = createClipCursor(model.animations[0]);
    for (let k = 0; k <= N; k++) {
      setRestPose(model, pose);
      sampleClip(cursor, k === N ? T : T - N * S + k * S, pose);
      localToModel(model.hierarchy, pose, m);
      vrm.dt = k === 0 ? 0 : S;
      vrm.run();
    }
    expect(maxDiff(a.nodeMatrices, m)).toBe(0);
    // At rest without the flag: the hair differs.
    const rest = bakeModel(model, { animation: 'Walk', time: T });
    const hair = model.meshes[0].primitives.findIndex((p) => model.materials[p.material].name === 'Hair');
    const moved = maxDiff(a.primitives[hair].positions, rest.primitives[hair].positions);
    expect(moved).toBeGreaterThan(0.005);
    // The body does not move with the springs.
    expect(maxDiff(a.primitives[0].positions, rest.primitives[0].positions)).toBe(0);
  });

  it('--expression moves the face; an unknown name is an error naming the expressions', async () => {
    const model = await avatar();
    const face = model.meshes[0].primitives.findIndex((p) => model.materials[p.material].name === 'Face');
    const plain = bakeModel(model, {});
    const aa = bakeModel(model, { expressions: [{ name: 'aa', weight: 1 }] });
    expect(maxDiff(plain.primitives[face].positions, aa.primitives[face].positions)).toBeGreaterThan(0.005);
    expect(() => bakeModel(model, { expressions: [{ name: 'grin', weight: 1 }] })).toThrow(/expression "grin" not found; builtin:vrm-avatar has 18: aa, ih/);
  });

  it('parses --spring-steps, --dt and --expression, refusing bad values', () => {
    expect(parseBakeArgs(['a.vrm', '--spring-steps', '30', '--dt', '0.0166', '--expression', 'happy:1', '--expression', 'blink:0.5'])).toMatchObject({
      springSteps: 30, dt: 0.0166, expressions: [{ name: 'happy', weight: 1 }, { name: 'blink', weight: 0.5 }],
    });
    expect(() => parseBakeArgs(['a.vrm', '--spring-steps', '30'])).toThrow(/--spring-steps needs --dt/);
    expect(() => parseBakeArgs(['a.vrm', '--dt', '0.1'])).toThrow(/--dt needs --spring-steps/);
    expect(() => parseBakeArgs(['a.vrm', '--spring-steps', '-1', '--dt', '0.1'])).toThrow(/whole number/);
    expect(() => parseBakeArgs(['a.vrm', '--spring-steps', '2.5', '--dt', '0.1'])).toThrow(/whole number/);
    expect(() => parseBakeArgs(['a.vrm', '--spring-steps', '10', '--dt', '0'])).toThrow(/--dt "0"/);
    expect(() => parseBakeArgs(['a.vrm', '--spring-steps', '10', '--dt', 'NaN'])).toThrow(/--dt "NaN"/);
    expect(() => parseBakeArgs(['a.vrm', '--expression', 'happy'])).toThrow(/NAME:WEIGHT/);
    expect(() => parseBakeArgs(['a.vrm', '--expression', 'happy:2'])).toThrow(/NAME:WEIGHT/);
    expect(() => parseBakeArgs(['a.vrm', '--write-centers', 'x.glb', '--expression', 'a:1'])).toThrow(/takes no --expression/);
  });

  const dir = mkdtempSync(join(tmpdir(), 'vrm-bake-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('bakes the VRM sample files and the built-in avatars from the command line', async () => {
    const runs = await Promise.all([
      runBuiltBake(['../shared/assets/vrm/VRMC_vrm_expressions_isBinary_Overrides.vrm', '--expression', 'happy:1']),
      runBuiltBake(['../shared/assets/vrm/VRMC_vrm_expressions_isBinary_Overridden.vrm', '--out', join(dir, 'o.json')]),
      runBuiltBake(['../shared/assets/vrm/VRMC_materials_mtoon_UV_Animation_Test.vrm', '--out', join(dir, 'm.glb')]),
      runBuiltBake(['--builtin', 'vrm0-avatar', '--animation', 'Walk', '--time', '0.5', '--spring-steps', '30', '--dt', '0.0333', '--expression', 'happy:0.7', '--out', join(dir, 'a.json')]),
      runBuiltBake(['--builtin', 'character', '--spring-steps', '3', '--dt', '0.1']),
      runBuiltBake(['--builtin', 'vrm-avatar', '--animations-from', '../shared/assets/vrm/test.vrma', '--time', '1', '--spring-steps', '20', '--dt', '0.05', '--out', join(dir, 'vrma.json')]),
    ]);
    for (const r of runs.slice(0, 4)) {
      expect(r.code, r.stderr).toBe(0);
      expect(ourLines(r.stderr)).toEqual([]);
    }
    expect(runs[5].code, runs[5].stderr).toBe(0);
    const vrma = JSON.parse(readFileSync(join(dir, 'vrma.json'), 'utf8')) as { animation: { name: string | null } };
    expect(vrma.animation).toBeTruthy();
    expect(runs[4].code).toBe(0);
    expect(ourLines(runs[4].stderr)).toEqual(['bake: warning: --spring-steps: builtin:character has no spring bones; nothing to simulate']);
    const json = JSON.parse(readFileSync(join(dir, 'a.json'), 'utf8')) as { primitives: unknown[] };
    expect(json.primitives.length).toBe(8);
    const bad = await runBuiltBake(['--builtin', 'vrm-avatar', '--expression', 'wink:1']);
    expect(bad.code).toBe(1);
    expect(ourLines(bad.stderr)).toEqual([expect.stringMatching(/^bake: expression "wink" not found; builtin:vrm-avatar has 18: /)]);
  }, 120_000);
});
