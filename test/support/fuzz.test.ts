/**
 * The fuzzer's case maker (fuzz.ts): a case's bytes are what JSON.stringify of its edited JSON
 * gives, though `jsonText` reuses the text of the parts a case left as the source has them.
 */
import { describe, expect, it } from 'vitest';
import { sharedAssets } from './assets.ts';
import { jsonText, loadFuzzSources, makeCase } from './fuzz.ts';

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
