/**
 * A fuzz pass over the MToon JSON: VRMC_materials_mtoon objects (the specification's UV
 * animation sample, a material using every parameter) and VRM 0.x `materialProperties` (the
 * built-in 0.x avatar) with one to four values replaced by hostile ones or deleted. Every case
 * must load (MToon never refuses a file; only an extension value that is not an object at all,
 * which glTF's schema forbids for every extension, is refused by the core reader, naming it)
 * and every MToon material must come out inside the
 * specification's ranges: finite numbers, colours in [0, 1], the render queue an integer in its
 * alpha mode's range, texture references that exist. The GPU side (mutated files drawn without
 * a WebGPU error) is test/gpu/mtoon-bad-input.test.ts. FUZZ_MTOON_CASES scales it (default 300).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { encodeGlb } from '../../../src/gltf/builder.ts';
import { parseGlb } from '../../../src/gltf/glb.ts';
import { GltfError } from '../../../src/gltf/errors.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { Rng } from '../../support/fuzz.ts';
import { mtoonFuzzSources, mtoonProblems, mutateMToonJson } from '../../support/mtoon-fixtures.ts';

const CASES = Number(process.env.FUZZ_MTOON_CASES ?? 300);
const SEED = Number(process.env.FUZZ_MTOON_SEED ?? 1);

describe('MToon JSON fuzz', () => {
  it(`${CASES} mutated files load with MToon inside the specification's ranges`, async () => {
    const rng = new Rng(SEED, 24);
    const sources = mtoonFuzzSources().map((s) => ({ ...s, glb: parseGlb(s.bytes) }));
    sources.push({ name: 'UV animation sample', bytes: new Uint8Array(), glb: parseGlb(readFileSync('../shared/assets/vrm/VRMC_materials_mtoon_UV_Animation_Test.vrm')) });
    const failures: string[] = [];
    let warned = 0, drawnAsMToon = 0, refused = 0;
    for (let c = 0; c < CASES; c++) {
      const source = sources[rng.int(sources.length)];
      const json = structuredClone(source.glb.json) as Record<string, unknown>;
      const notes = mutateMToonJson(json, rng);
      const label = `case ${c} (${source.name}): ${notes.join('; ')}`;
      try {
        const model = await loadGltf(encodeGlb(json, source.glb.bin));
        if (model.warnings.length > 0) warned++;
        model.materials.forEach((m, i) => {
          if (m.mtoon) drawnAsMToon++;
          for (const p of mtoonProblems(model, m)) failures.push(`${label}: materials[${i}] ${p}`);
        });
      } catch (e) {
        // glTF's schema makes every extension value an object: the core reader refuses one that is not, naming it.
        if (e instanceof GltfError && /^materials\[\d+\]\.extensions\.VRMC_materials_mtoon$/.test(e.path)) refused++;
        else failures.push(`${label}: ${(e as Error).message}`);
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
    expect(warned).toBeGreaterThan(CASES / 3);
    expect(drawnAsMToon).toBeGreaterThan(CASES);
    expect(refused).toBeLessThan(CASES / 10);
  }, 600_000);

  it('the range check finds what it looks for (it could fail)', async () => {
    const model = await loadGltf(buildBuiltinGlb('vrm0-avatar'));
    const m = model.materials[0];
    expect(mtoonProblems(model, m)).toEqual([]);
    const broken = { ...m, mtoon: { ...m.mtoon!, shadingToonyFactor: 2, renderQueueOffsetNumber: 3, shadeColorFactor: [0, Number.NaN, 0] as const } };
    expect(mtoonProblems(model, broken)).toEqual(['shadeColorFactor[1] = NaN', 'shadingToonyFactor = 2', 'renderQueueOffsetNumber = 3']);
  });
});
