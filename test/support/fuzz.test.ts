/**
 * The fuzzer's case maker (fuzz.ts): a case's bytes are what JSON.stringify of its edited JSON
 * gives, though `jsonText` reuses the text of the parts a case left as the source has them. And
 * its allocation counter (`trackAllocations`): what it counts as made, and what it refuses.
 */
import { describe, expect, it } from 'vitest';
import { sharedAssets } from './assets.ts';
import { AllocationTooLarge, jsonText, loadFuzzSources, makeCase, trackAllocations } from './fuzz.ts';

/** The shared assets as they are (.gltf with embedded buffers and .glb, RecursiveSkeletons' 450 KB JSON); not the variants fuzz-sources.ts makes (KTX2 encoding alone costs seconds). */
const sources = loadFuzzSources(sharedAssets());

describe('jsonText', () => {
  it('writes what JSON.stringify writes: undefined and functions left out of objects, null in arrays and holes', () => {
    const frozen = Object.freeze({ a: 1, b: Object.freeze([1, undefined, -0]) });
    const values: unknown[] = [
      { a: undefined, b: () => 1, c: [undefined, () => 1, NaN, Infinity, -0, 1e-7, 'é"\n'], 2: 'two', 1: 'one' },
      [, 1, , { x: frozen }],
      { nested: { deeper: [frozen, frozen, { ...frozen, c: null }] } },
      [], {}, 0, 'text', null, true,
    ];
    for (const value of values) expect(jsonText(value)).toBe(JSON.stringify(value));
  });

  it("gives every case the bytes that JSON.stringify of the case's JSON gives (250 cases over every shared asset)", () => {
    let differing = 0;
    for (let index = 0; index < 250; index++) {
      const fast = makeCase(sources, 7, index);
      const plain = makeCase(sources, 7, index, JSON.stringify);
      expect(fast.label).toBe(plain.label);
      if (Buffer.compare(fast.bytes, plain.bytes) !== 0) differing++;
    }
    expect(differing).toBe(0);
  });
});

describe('trackAllocations', () => {
  it('counts the bytes of every typed array and ArrayBuffer made, by length or as a copy, and nothing for a view', async () => {
    const buffer = new ArrayBuffer(64);
    let subclassed: unknown;
    const report = await trackAllocations(async () => {
      // Declared while counting: it extends the counting Float64Array.
      class Doubles extends Float64Array {}
      subclassed = new Doubles(1);
      const made = [
        new Float32Array(10), // 40
        new Uint8Array([1, 2, 3]), // 3, a copy
        new ArrayBuffer(8), // 8
        new Uint16Array(new Uint8Array(0)), // 0: a copy of nothing (the Uint8Array's own 0)
        new Doubles(2), // 16, a subclass (and the 8 above)
        new Int32Array(buffer, 8, 4), // a view: nothing
        Float64Array.from([1, 2]), // 16: made through the constructor
      ];
      return made.length;
    });
    expect(report.result).toBe(7);
    expect(report.totalBytes).toBe(8 + 40 + 3 + 8 + 0 + 16 + 16);
    expect((subclassed as Float64Array).constructor.name).toBe('Doubles');
    expect(report.largestBytes).toBe(40);
    // The constructors are the originals again, and make real typed arrays meanwhile.
    expect(new Float32Array(1)).toBeInstanceOf(Float32Array);
    expect(Object.getPrototypeOf(new Float32Array(1))).toBe(Float32Array.prototype);
  });

  it('refuses an allocation over its limit before making it, as an AllocationTooLarge', async () => {
    const report = await trackAllocations(async () => new Float64Array(1 << 20), 1 << 20);
    expect(report.error).toBeInstanceOf(AllocationTooLarge);
    expect(report.largestBytes).toBe(0);
    const copy = await trackAllocations(async () => new Uint8Array(new Array(100).fill(1)), 64);
    expect(copy.error).toBeInstanceOf(AllocationTooLarge);
  });
});
