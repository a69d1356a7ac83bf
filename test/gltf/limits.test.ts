import { describe, expect, it } from 'vitest';
import { BUDGET_BASE_BYTES } from '../../src/gltf/budget.ts';
import { GltfError } from '../../src/gltf/errors.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { glbOf, trackAllocations } from '../support/fuzz.ts';
import {
  encodeJson as encode, jointChainFile, SHARED_POSITION_BYTES, sharedAccessorFile, tinyGltf as tiny, zeroBuffer as data,
} from '../support/hostile-files.ts';

/**
 * Tiny files with huge counts, one per allocation site of the loader: each must fail with
 * a GltfError naming the JSON path, having allocated (all typed arrays and ArrayBuffers
 * created during the load, counted) no more than the budget of a tiny file — never
 * gigabytes. Then files that reuse one big thing many times, which must cost once.
 */

const MiB = 1024 * 1024;
/** A tiny file's budget is BUDGET_BASE_BYTES plus a little; allow the transient copies around it. */
const TINY_LIMIT = BUDGET_BASE_BYTES + 4 * MiB;

async function refusedCheaply(bytes: Uint8Array, path: string, problem: RegExp): Promise<number> {
  expect(bytes.byteLength, 'the file itself is tiny').toBeLessThan(2048);
  const heapBefore = process.memoryUsage().arrayBuffers;
  const report = await trackAllocations(() => loadGltf(bytes));
  const heapAfter = process.memoryUsage().arrayBuffers;
  expect(report.error, 'expected a GltfError').toBeInstanceOf(GltfError);
  expect((report.error as GltfError).path).toBe(path);
  expect((report.error as GltfError).problem).toMatch(problem);
  expect(report.totalBytes, `allocated ${(report.totalBytes / MiB).toFixed(1)} MiB`).toBeLessThan(TINY_LIMIT);
  expect(heapAfter - heapBefore).toBeLessThan(TINY_LIMIT);
  return report.totalBytes;
}

describe('tiny files with huge counts are refused before allocating', () => {
  it('the baseline tiny file loads', async () => {
    expect((await loadGltf(encode(tiny()))).meshes[0].primitives[0].vertexCount).toBe(3);
  });

  it('accessor count past its bufferView', () => {
    const json = tiny();
    json.accessors[0].count = 2 ** 30;
    return refusedCheaply(encode(json), 'accessors[0]', /needs \d+ bytes but bufferViews\[0\] has 36/);
  });

  it('accessor stride × count past its bufferView', () => {
    const json = tiny();
    json.bufferViews[0].byteStride = 252;
    json.accessors[0].count = 2 ** 31;
    return refusedCheaply(encode(json), 'accessors[0]', /stride 252/);
  });

  it('accessor without bufferView: over the per-accessor limit', () => {
    const json = tiny();
    delete json.accessors[0].bufferView;
    json.accessors[0].count = 2 ** 31;
    return refusedCheaply(encode(json), 'accessors[0].count', /exceeds the limit/);
  });

  it('accessor without bufferView: under that limit but over the file\'s budget', () => {
    const json = tiny();
    delete json.accessors[0].bufferView;
    json.accessors[0].count = 5_000_000;
    return refusedCheaply(encode(json), 'accessors[0].count', /loading needs more than/);
  });

  it('many view-less accessors, each under the budget, together over it', () => {
    const accessors = Array.from({ length: 8 }, () => ({ componentType: 5126, count: 500_000, type: 'VEC3' }));
    const meshes = [{ primitives: accessors.map((_, i) => ({ attributes: { POSITION: i } })) }];
    return refusedCheaply(encode(tiny({ accessors, meshes })), 'accessors[2].count', /loading needs more than/);
  });

  it('sparse count larger than the accessor', () => {
    const json = tiny();
    json.accessors[0].sparse = { count: 2 ** 31, indices: { bufferView: 0, componentType: 5125 }, values: { bufferView: 0 } };
    return refusedCheaply(encode(json), 'accessors[0].sparse.count', /larger than the maximum 3/);
  });

  it('sparse count past its indices bufferView', () => {
    const json = tiny();
    delete json.accessors[0].bufferView;
    json.accessors[0].count = 1_000_000;
    json.accessors[0].sparse = { count: 1_000_000, indices: { bufferView: 0, componentType: 5125 }, values: { bufferView: 0 } };
    return refusedCheaply(encode(json), 'accessors[0].sparse.indices', /overrun bufferViews\[0\]/);
  });

  it('skin joints vs a huge view-less inverseBindMatrices accessor', () => {
    const json = tiny({ skins: [{ joints: [0], inverseBindMatrices: 1 }] });
    json.accessors.push({ componentType: 5126, count: 1_000_000, type: 'MAT4' });
    return refusedCheaply(encode(json), 'accessors[1].count', /loading needs more than/);
  });

  it('skin joints more than inverse bind matrices', () => {
    const json = tiny({ skins: [{ joints: [0], inverseBindMatrices: 1 }] });
    json.accessors.push({ componentType: 5126, count: 1, type: 'MAT4' });
    json.nodes.push({}, {});
    json.skins[0].joints = [0, 1, 2];
    return refusedCheaply(encode(json), 'skins[0].inverseBindMatrices', /1 matrices for 3 joints/);
  });

  it('animation keys: a huge key-time accessor', () => {
    const json = tiny({
      animations: [{ channels: [{ sampler: 0, target: { node: 0, path: 'translation' } }], samplers: [{ input: 1, output: 2 }] }],
    });
    json.accessors.push({ componentType: 5126, count: 2 ** 31, type: 'SCALAR' }, { componentType: 5126, count: 1, type: 'VEC3' });
    return refusedCheaply(encode(json), 'accessors[1].count', /exceeds the limit/);
  });

  it('animation keys: a huge output accessor behind a small input', () => {
    const json = tiny({
      animations: [{ channels: [{ sampler: 0, target: { node: 0, path: 'rotation' } }], samplers: [{ input: 1, output: 2 }] }],
    });
    json.accessors.push({ bufferView: 0, componentType: 5126, count: 9, type: 'SCALAR' }, { componentType: 5126, count: 4_000_000, type: 'VEC4' });
    return refusedCheaply(encode(json), 'accessors[2].count', /loading needs more than/);
  });

  it('indices: a huge view-less index accessor', () => {
    const json = tiny();
    json.accessors.push({ componentType: 5125, count: 15_000_000, type: 'SCALAR' });
    json.meshes[0].primitives[0].indices = 1;
    return refusedCheaply(encode(json), 'accessors[1].count', /loading needs more than/);
  });

  it('skinning attributes: huge view-less JOINTS_0/WEIGHTS_0 behind a huge POSITION', () => {
    const json = tiny();
    json.accessors = [
      { componentType: 5126, count: 1_000_000, type: 'VEC3' },
      { componentType: 5121, count: 1_000_000, type: 'VEC4' },
      { componentType: 5126, count: 1_000_000, type: 'VEC4' },
    ];
    json.meshes[0].primitives[0].attributes = { POSITION: 0, JOINTS_0: 1, WEIGHTS_0: 2 };
    return refusedCheaply(encode(json), 'accessors[2].count', /loading needs more than/);
  });

  it('images: a bufferView far past its buffer', () => {
    const json = tiny({ images: [{ bufferView: 1, mimeType: 'image/png' }] });
    json.bufferViews.push({ buffer: 0, byteOffset: 0, byteLength: 2 ** 40 });
    return refusedCheaply(encode(json), 'bufferViews[1]', /runs past the end of its buffer/);
  });

  it('buffers: a byteLength far past the data', () => {
    const json = tiny();
    json.buffers[0].byteLength = 2 ** 53 - 1;
    return refusedCheaply(encode(json), 'buffers[0].byteLength', /only 36 are available/);
  });

  it('nodes: indices far out of range', async () => {
    const json = tiny();
    json.nodes[0].children = [2 ** 31];
    await refusedCheaply(encode(json), 'nodes[0].children[0]', /out of range/);
    const skinned = tiny({ skins: [{ joints: [4294967295] }] });
    await refusedCheaply(encode(skinned), 'skins[0].joints[0]', /out of range/);
  });

  it('GLB: header and chunk lengths that lie', async () => {
    const glb = glbOf(encode(tiny()));
    const lie = (offset: number, value: number) => {
      const copy = glb.slice();
      new DataView(copy.buffer).setUint32(offset, value, true);
      return copy;
    };
    await refusedCheaply(lie(8, 0xffffffff), 'glb.length', /truncated/);
    await refusedCheaply(lie(12, 0xfffffff0), 'glb.chunks[0]', /runs past the end/);
    await refusedCheaply(lie(8, 12), 'glb.length', /no room for a JSON chunk/);
  });
});

describe('one big thing referenced many times costs once', () => {
  it('accessors aliasing one bufferView are charged each time they copy it', async () => {
    // 64 KiB of data, 400 accessors each covering all of it: 25 MiB of copies from a 130 KiB file.
    const bytes = 12 * 5461;
    const accessors = Array.from({ length: 400 }, () => ({ bufferView: 0, componentType: 5126, count: bytes / 12, type: 'VEC3' }));
    const json = tiny({ buffers: [data(bytes)], bufferViews: [{ buffer: 0, byteLength: bytes }], accessors });
    json.meshes[0].primitives = accessors.map((_, i) => ({ attributes: { POSITION: i } }));
    const report = await trackAllocations(() => loadGltf(encode(json)));
    expect(report.error).toBeInstanceOf(GltfError);
    expect((report.error as GltfError).problem).toMatch(/loading needs more than/);
    expect(report.totalBytes).toBeLessThan(BUDGET_BASE_BYTES + 64 * encode(json).byteLength + 4 * MiB);
  });

  it('one accessor used by 2,000 primitives, 2,000 samplers and 2,000 morph targets is read once', async () => {
    const once = await trackAllocations(() => loadGltf(sharedAccessorFile(1)));
    const report = await trackAllocations(() => loadGltf(sharedAccessorFile(2000)));
    expect(once.error).toBeUndefined();
    expect(report.error).toBeUndefined();
    expect(report.result!.meshes[0].primitives).toHaveLength(2000);
    expect(report.totalBytes).toBeLessThan(8 * MiB);
    // Counted, not timed (the time against the one-user file's is in `npm run bench -- --hostile-loads`):
    // the other 1,999 users together charge the load budget and allocate less than one more read of POSITION would.
    expect(report.result!.loadBudget!.usedBytes - once.result!.loadBudget!.usedBytes).toBeLessThan(SHARED_POSITION_BYTES);
    expect(report.totalBytes - once.totalBytes).toBeLessThan(SHARED_POSITION_BYTES);
  });

  it('a 100,000-node chain with every node a joint loads, parents found, in memory linear in its length', async () => {
    const n = 100_000;
    const tenth = await trackAllocations(() => loadGltf(jointChainFile(n / 10)));
    const report = await trackAllocations(() => loadGltf(jointChainFile(n)));
    expect(tenth.error).toBeUndefined();
    expect(report.error).toBeUndefined();
    const model = report.result!;
    // The skin lists the chain deepest-first, so parent links must be found, not assumed.
    expect(model.skins[0].jointParents[0]).toBe(1);
    expect(model.skins[0].jointParents[n - 1]).toBe(-1);
    expect(model.hierarchy.parentSlot[n - 1]).toBe(n - 2);
    // Counted, not timed (the time against the 10,000-node chain's is in `npm run bench -- --hostile-loads`):
    // ten times the chain charges the budget and allocates about ten times as much, nothing per pair of joints.
    expect(model.loadBudget!.usedBytes).toBeLessThanOrEqual(12 * tenth.result!.loadBudget!.usedBytes);
    expect(report.totalBytes).toBeLessThanOrEqual(12 * tenth.totalBytes);
  });
});
