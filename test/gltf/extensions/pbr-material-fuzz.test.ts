/**
 * A fuzz pass over the PBR material extensions' JSON (test/support/pbr-fuzz.ts): one to four
 * values of a material using all ten extensions replaced by hostile ones. Every case loads with
 * every extension value inside its schema's range (clamped, with a warning naming the path) and
 * every texture reference existing, or is refused with a GltfError naming a path inside the
 * material's extensions (a value of the wrong type, as the core material reader refuses one).
 * The GPU side of the same cases is test/gpu/pbr-extensions-bad-input.test.ts. FUZZ_PBR_CASES scales it.
 */
import { describe, expect, it } from 'vitest';
import { encodeGlb } from '../../../src/gltf/builder.ts';
import { GltfError } from '../../../src/gltf/errors.ts';
import { parseGlb } from '../../../src/gltf/glb.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { Rng } from '../../support/fuzz.ts';
import { everyExtensionQuad, mutatePbrJson, pbrProblems } from '../../support/pbr-fuzz.ts';

const CASES = Number(process.env.FUZZ_PBR_CASES ?? 400);
const SEED = Number(process.env.FUZZ_PBR_SEED ?? 1);

describe('PBR material extension JSON fuzz', () => {
  it(`${CASES} mutated materials load inside the schemas' ranges, or are refused naming a path in the extensions`, async () => {
    const rng = new Rng(SEED, 26);
    const source = parseGlb(everyExtensionQuad());
    const failures: string[] = [];
    let loaded = 0, warned = 0;
    for (let c = 0; c < CASES; c++) {
      const json = structuredClone(source.json) as Record<string, any>;
      const notes = mutatePbrJson(json, rng);
      const label = `case ${c}: ${notes.join('; ')}`;
      try {
        const model = await loadGltf(encodeGlb(json, source.bin));
        loaded++;
        if (model.warnings.length > 0) warned++;
        for (const p of pbrProblems(model, model.materials[0])) failures.push(`${label}: ${p}`);
        for (const w of model.warnings) if (!w.path.startsWith('materials[0].extensions.KHR_materials_')) failures.push(`${label}: warning at ${w.path}`);
      } catch (e) {
        if (!(e instanceof GltfError && /^materials\[0\]\.extensions\.KHR_materials_\w+/.test(e.path))) failures.push(`${label}: ${(e as Error).message}`);
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
    // Most hostile values are of the wrong type and refuse the file; enough load to exercise the clamps.
    expect(loaded).toBeGreaterThan(CASES / 10);
    expect(warned).toBeGreaterThan(CASES / 20);
  }, 600_000);

  it('the range check finds what it looks for (it could fail)', async () => {
    const model = await loadGltf(everyExtensionQuad());
    const m = model.materials[0];
    expect(pbrProblems(model, m)).toEqual([]);
    const broken = {
      ...m, clearcoat: { ...m.clearcoat!, factor: 2 }, ior: 0.5, volume: { ...m.volume!, attenuationDistance: 0 },
      sheen: { ...m.sheen!, colorTexture: { index: 99, texCoord: 0, scale: 1 } },
    };
    expect(pbrProblems(model, broken)).toEqual(['clearcoat.factor = 2', 'ior = 0.5', 'sheen.colorTexture.index = 99', 'volume.attenuationDistance = 0']);
  });
});
