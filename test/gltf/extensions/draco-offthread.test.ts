import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoadBudget } from '../../../src/gltf/budget.ts';
import { configureDracoDecoder, decodeDracoPrimitive, dracoDeclaredBytes, readDracoPrimitive, type DracoPrimitiveRequest } from '../../../src/gltf/extensions/draco.ts';
import { decodeDraco, DRACO_WORKER_MEASURE } from '../../../src/gltf/extensions/draco-offthread.ts';
import { GltfError } from '../../../src/gltf/errors.ts';
import { parseGlb } from '../../../src/gltf/glb.ts';
import type { JsonObject } from '../../../src/gltf/json.ts';
import { assetPath } from '../../support/assets.ts';
import { compressFile } from '../../support/compressed.ts';
import { installStandInWorker, removeStandInWorker, type StandInWorkerLog } from '../../support/stand-in-worker.ts';

/**
 * The page side of the Draco worker, in Node: a stand-in `Worker` runs the real worker module
 * (draco-worker.ts) in this thread, its messages structured-cloned with their transfers as a
 * browser would. The real thing, in Chromium with the built library, is in
 * test/browser/element-build.test.ts.
 */

let log: StandInWorkerLog;
let request: DracoPrimitiveRequest;

beforeAll(async () => {
  log = await installStandInWorker(/\/draco-worker\.ts$/, async () => {
    await import('../../../src/gltf/extensions/draco-worker.ts');
    // The worker pointed the decoder at the bundled WebAssembly's URL; in Node it reads the package's own.
    configureDracoDecoder({});
  });
  const { json, bin } = parseGlb(await compressFile(assetPath('Fox'), 'draco')) as { json: JsonObject; bin: Uint8Array };
  const prim = ((json.meshes as JsonObject[])[0].primitives as JsonObject[])[0];
  request = readDracoPrimitive(prim, 'meshes[0].primitives[0]', {
    accessors: json.accessors as unknown[], bufferViews: json.bufferViews as unknown[], buffers: [bin],
  })!;
}, 60_000);

afterAll(removeStandInWorker);

describe('Draco decoding in a page goes to the worker', () => {
  it('gives what decoding in place gives, charges the budget before posting, and records a measure', async () => {
    const budget = new LoadBudget(1 << 30, 0);
    const decoded = await decodeDraco(request, budget);
    expect(log.started).toBe(1);
    expect(budget.usedBytes).toBe(dracoDeclaredBytes(request));
    const expected = await decodeDracoPrimitive(request, new LoadBudget(1 << 30, 0));
    expect(decoded.vertexCount).toBe(expected.vertexCount);
    expect([...decoded.attributes.keys()]).toEqual([...expected.attributes.keys()]);
    for (const [semantic, data] of expected.attributes) {
      const got = decoded.attributes.get(semantic)!;
      expect(got.array.constructor, semantic).toBe(data.array.constructor);
      expect(got.array, semantic).toEqual(data.array);
    }
    expect(decoded.indices.array).toEqual(expected.indices.array);
    // The page's copy of the file is not handed over: only a copy of the compressed bytes moves.
    expect(request.bytes.byteLength).toBeGreaterThan(0);
    expect(performance.getEntriesByName(DRACO_WORKER_MEASURE).map((e) => (e as PerformanceMeasure).detail)).toContain(request.path);
  });

  it('reuses its worker, and a stream the decoder rejects comes back as a GltfError naming the extension', async () => {
    const broken = { ...request, bytes: new Uint8Array(request.bytes.byteLength) };
    const error = await decodeDraco(broken, new LoadBudget(1 << 30, 0)).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(GltfError);
    expect((error as GltfError).path).toBe(request.path);
    expect((error as GltfError).problem).toMatch(/cannot be decoded/);
    expect(log.started).toBe(1);
  });

  it('a budget too small fails before anything is posted', async () => {
    const error = await decodeDraco(request, new LoadBudget(100, 0)).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(GltfError);
    expect((error as GltfError).path).toBe(request.path);
  });

  it('when the worker cannot start, decodes on the page instead, from then on', async () => {
    // A fresh module state: the worker above is idle but alive, so start over with one that fails.
    const { vi } = await import('vitest');
    vi.resetModules();
    const fresh = await import('../../../src/gltf/extensions/draco-offthread.ts');
    log.failOnStart = true;
    const started = log.started;
    const decoded = await fresh.decodeDraco(request, new LoadBudget(1 << 30, 0));
    expect(log.started).toBe(started + 1);
    expect(decoded.vertexCount).toBe(434);
    await fresh.decodeDraco(request, new LoadBudget(1 << 30, 0));
    expect(log.started).toBe(started + 1);
  });
});
