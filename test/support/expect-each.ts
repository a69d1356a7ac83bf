import { expect } from 'vitest';

/**
 * Checks every item i < count: `check` says what is wrong with item i, or undefined. One expect
 * for the lot, listing the first five wrong items: these loops run hundreds of thousands of
 * checks, and each vitest expect costs tens of microseconds (more than the GPU work of some tests).
 */
export function expectEach(count: number, what: string, check: (i: number) => string | undefined): void {
  const wrong: string[] = [];
  for (let i = 0; i < count && wrong.length < 5; i++) {
    const problem = check(i);
    if (problem !== undefined) wrong.push(`${i}: ${problem}`);
  }
  expect(wrong, what).toEqual([]);
}

/** `expect(actual).toBeCloseTo(expected, digits)`'s test, for use in an `expectEach` check. */
export function closeTo(actual: number, expected: number, digits: number): boolean {
  if (actual === expected) return true; // also equal infinities, which toBeCloseTo accepts
  return Math.abs(expected - actual) < 10 ** -digits / 2;
}
