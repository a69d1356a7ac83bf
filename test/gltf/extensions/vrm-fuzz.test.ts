/**
 * A fuzz pass over the VRM extension JSON: VRM sample files and generated VRM files (1.0 and
 * 0.x avatars, spring bones with every collider kind, constraints) with one to four values
 * inside their VRM extensions (VRMC_vrm, VRMC_springBone and its extended colliders,
 * VRMC_node_constraint, VRM 0.x) replaced by hostile ones or deleted. Only VRM JSON changes,
 * so every case must load (a broken VRM part warns, it never refuses the file); then a player
 * with the VRM steps on (springs, random expressions, a look-at target, the model moving)
 * runs frames, and every node matrix, palette value and material value must stay finite. No
 * case may hang. FUZZ_VRM_CASES scales it (default 400); FUZZ_VRM_SEED picks the run.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AnimationPlayer } from '../../../src/anim/player.ts';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { encodeGlb } from '../../../src/gltf/builder.ts';
import { parseGlb } from '../../../src/gltf/glb.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { Rng } from '../../support/fuzz.ts';
import { buildConstraintFixture, buildSpringFixture } from '../../support/vrm-fixtures.ts';

const CASES = Number(process.env.FUZZ_VRM_CASES ?? 400);
const SEED = Number(process.env.FUZZ_VRM_SEED ?? 1);
const FRAMES = 12;

type Json = Record<string, unknown>;

const SOURCES: { name: string; weight: number; bytes: Uint8Array }[] = [
  { name: 'vrm-avatar', weight: 1, bytes: buildBuiltinGlb('vrm-avatar') },
  { name: 'vrm0-avatar', weight: 1, bytes: buildBuiltinGlb('vrm0-avatar') },
  { name: 'springs 1.0', weight: 4, bytes: buildSpringFixture({ version: 1, colliders: ['sphere', 'capsule', 'plane', 'insideSphere'], center: true }) },
  { name: 'springs 0.x', weight: 3, bytes: buildSpringFixture({ version: 0, colliders: ['sphere'] }) },
  { name: 'constraints', weight: 3, bytes: buildConstraintFixture() },
  { name: 'isBinary overrides', weight: 3, bytes: new Uint8Array(readFileSync('../shared/assets/vrm/VRMC_vrm_expressions_isBinary_Overrides.vrm')) },
];

const HOSTILE: unknown[] = [
  -1, 0, 1, 2, 0.5, -0.5, 1e308, -1e308, 3.5e38, 1e-320, 2 ** 31, 2 ** 53, 1.5, 99999, 'NaN', 'Infinity', '', 'x'.repeat(5000), null, true, false,
  [], [0], [1, 2], [0, 0, 0], [0, 0, 0, 0], [1e308, 1, 1], ['a', 'b', 'c'], {}, { x: 1 }, [[[[[0]]]]], { node: 0 }, 'PositiveX', 'block', 'blend', 'bone', 'expression',
];

/** JSON paths of every value inside the VRM extensions of `json` (root and per node). */
function vrmPaths(json: Json): (string | number)[][] {
  const out: (string | number)[][] = [];
  const walk = (v: unknown, path: (string | number)[]): void => {
    out.push(path);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  const ext = (json.extensions ?? {}) as Json;
  for (const name of ['VRMC_vrm', 'VRMC_springBone', 'VRM']) if (ext[name] !== undefined) walk(ext[name], ['extensions', name]);
  ((json.nodes ?? []) as Json[]).forEach((n, i) => {
    const c = (n.extensions as Json | undefined)?.VRMC_node_constraint;
    if (c !== undefined) walk(c, ['nodes', i, 'extensions', 'VRMC_node_constraint']);
  });
  return out;
}

function mutate(json: Json, rng: Rng): string[] {
  const paths = vrmPaths(json);
  const notes: string[] = [];
  for (let m = 1 + rng.int(4); m > 0; m--) {
    const path = paths[rng.int(paths.length)];
    let parent: unknown = json;
    for (const k of path.slice(0, -1)) parent = (parent as Record<string | number, unknown> | undefined)?.[k];
    if (!parent || typeof parent !== 'object') continue;
    const key = path[path.length - 1] as string | number;
    if (rng.chance(0.2)) {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete (parent as Json)[key];
      notes.push(`delete ${path.join('.')}`);
    } else {
      const value = HOSTILE[rng.int(HOSTILE.length)];
      (parent as Record<string | number, unknown>)[key] = value;
      notes.push(`${path.join('.')} = ${JSON.stringify(value)?.slice(0, 40)}`);
    }
  }
  return notes;
}

function allFinite(a: ArrayLike<number>): boolean {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) return false;
  return true;
}

describe('VRM extension JSON fuzz', () => {
  it(`${CASES} mutated files load, run and stay finite`, async () => {
    const rng = new Rng(SEED, 23);
    const total = SOURCES.reduce((n, s) => n + s.weight, 0);
    const parsed = SOURCES.map((s) => ({ ...s, glb: parseGlb(s.bytes) }));
    const failures: string[] = [];
    let warned = 0;
    for (let c = 0; c < CASES; c++) {
      let pick = rng.int(total), s = 0;
      while (pick >= parsed[s].weight) pick -= parsed[s++].weight;
      const source = parsed[s];
      const json = JSON.parse(JSON.stringify(source.glb.json)) as Json;
      const notes = mutate(json, rng);
      const label = `case ${c} (${source.name}): ${notes.join('; ')}`;
      try {
        const model = await loadGltf(encodeGlb(json, source.glb.bin));
        if (model.warnings.length > 0) warned++;
        if (!model.vrm) continue;
        const player = new AnimationPlayer(model);
        player.play();
        const vrm = player.instance.vrm!;
        vrm.lookAt?.lookAt(rng.next() - 0.5, 1.5, 1);
        for (let f = 0; f < FRAMES; f++) {
          for (const name of vrm.expressionNames) vrm.expressions.setWeight(name, rng.next());
          vrm.worldFromModel[12] = f * 0.05;
          player.update(1 / 30);
        }
        const i = player.instance;
        if (!allFinite(i.nodeMatrices) || !allFinite(i.palette) || !allFinite(i.pose.weights) || (i.materialAnimation && !allFinite(i.materialAnimation.values))) {
          failures.push(`${label}: a non-finite value`);
        }
      } catch (e) {
        failures.push(`${label}: ${(e as Error).message}`);
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
    expect(warned).toBeGreaterThan(CASES / 4);
  }, 600_000);
});
