import { expect } from 'vitest';

type TypedArray = Exclude<ArrayBufferView, DataView>;

const isTypedArray = (x: unknown): x is TypedArray => ArrayBuffer.isView(x) && !(x instanceof DataView);

/** Own enumerable keys beyond an array's indices (toEqual compares those too)? Symbols included. */
const onlyIndices = (a: object, length: number) => Object.keys(a).length === length && Object.getOwnPropertySymbols(a).length === 0;

/**
 * Whether `toEqual` certainly holds for a and b, decided without it: two typed arrays of one
 * constructor and length equal element by element as toEqual compares them (Object.is), or two
 * arrays of one length whose items are such numbers or (recursively) such arrays; neither with
 * an own key beyond its indices. False means only "not decided here".
 */
export function plainlyEqual(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length || !onlyIndices(a, a.length) || !onlyIndices(b, b.length)) return false;
    for (let i = 0; i < a.length; i++) {
      const x = a[i], y = b[i];
      if (typeof x === 'number' && typeof y === 'number' ? !Object.is(x, y) : !plainlyEqual(x, y)) return false;
    }
    return true;
  }
  if (!isTypedArray(a) || !isTypedArray(b) || a.constructor !== b.constructor) return false;
  const x = a as unknown as ArrayLike<unknown>, y = b as unknown as ArrayLike<unknown>;
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) return false;
  return onlyIndices(a, x.length) && onlyIndices(b, y.length);
}

/**
 * `expect(actual, message).toEqual(expected)`, made only when `plainlyEqual` cannot tell they
 * are equal: toEqual walks a typed array through its iterator and then again through
 * Object.entries (an array per element), ~1 µs an element, which was a third to a half of some
 * files' CPU. A passing check passes as before; a failing one fails with toEqual's own message.
 */
export function expectArraysEqual(actual: unknown, expected: unknown, message?: string): void {
  if (plainlyEqual(actual, expected)) return;
  expect(actual, message).toEqual(expected);
}
