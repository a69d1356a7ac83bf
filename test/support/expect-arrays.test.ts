import { describe, expect, it } from 'vitest';
import { expectArraysEqual, plainlyEqual } from './expect-arrays.ts';

/** The message of the error `run` throws ('' when it throws none). */
function failure(run: () => void): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  return '';
}

describe('expectArraysEqual (toEqual on typed arrays and arrays of them, made only when not plainly equal)', () => {
  it('says "equal" only where toEqual passes', () => {
    const withKey = new Float32Array([1, 2]);
    (withKey as unknown as { extra: number }).extra = 1;
    const buffer = new Float64Array([5, 1, 2, 7]);
    const pairs: [unknown, unknown][] = [
      [new Float64Array([1, 2, 3]), new Float64Array([1, 2, 3])],
      [new Float64Array([1, 2, 3]), new Float64Array([1, 2, 4])],
      [new Float64Array([0]), new Float64Array([-0])],
      [new Float64Array([NaN]), new Float64Array([NaN])],
      [new Float32Array([1, 2]), new Float64Array([1, 2])],
      [new Float32Array([1, 2]), new Float32Array([1, 2, 3])],
      [new Float32Array([1, 2]), withKey],
      [withKey, new Float32Array([1, 2])],
      [buffer.subarray(1, 3), new Float64Array([1, 2])],
      [new Uint8Array(0), new Uint8Array(0)],
      [[1, 2], new Float64Array([1, 2])],
      [new Float64Array([1, 2]), [1, 2]],
      [[new Float64Array([1]), new Float64Array([2])], [new Float64Array([1]), new Float64Array([2])]],
      [[new Float64Array([1]), new Float64Array([2])], [new Float64Array([1]), new Float32Array([2])]],
      [[new Float64Array([1])], [new Float64Array([1]), new Float64Array([2])]],
      [[1, -0], [1, 0]],
      [[1, [2, NaN]], [1, [2, NaN]]],
      // eslint-disable-next-line no-sparse-arrays
      [[1, , 3], [1, undefined, 3]],
    ];
    let decided = 0;
    pairs.forEach(([a, b], i) => {
      const toEqualPasses = failure(() => expect(a).toEqual(b)) === '';
      if (plainlyEqual(a, b)) {
        decided++;
        expect(toEqualPasses, `pair ${i}`).toBe(true);
      }
      expect(failure(() => expectArraysEqual(a, b)) === '', `pair ${i}`).toBe(toEqualPasses);
    });
    expect(decided).toBe(6);
  });

  it('fails with toEqual\'s own message', () => {
    const a = new Float64Array([1, 2, 3]), b = new Float64Array([1, 2.5, 3]);
    const plain = failure(() => expect(a, 'matrices').toEqual(b));
    expect(plain).not.toBe('');
    expect(failure(() => expectArraysEqual(a, b, 'matrices'))).toBe(plain);
  });
});
