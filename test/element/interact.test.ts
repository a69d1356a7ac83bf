import { describe, expect, it } from 'vitest';
import { pathAt } from '../../src/element/interact.ts';

describe('interact() paths (model-viewer\'s finger timelines)', () => {
  it('start at the initial value, pass each keyframe at its share of the frames, eased in and out, and hold the last', () => {
    const path = { initialValue: 0.5, keyframes: [{ frames: 1, value: 0.2 }, { frames: 3, value: 0.8 }] };
    expect(pathAt(path, 0)).toBe(0.5);
    expect(pathAt(path, 0.25)).toBeCloseTo(0.2, 12);
    expect(pathAt(path, 1)).toBeCloseTo(0.8, 12);
    expect(pathAt(path, 2)).toBeCloseTo(0.8, 12);
    // Halfway through a keyframe, the ease is halfway.
    expect(pathAt(path, 0.125)).toBeCloseTo(0.35, 12);
    // Eased: slow at the ends (a quarter of the time covers an eighth of the way).
    expect(pathAt(path, 0.25 + 0.75 / 4)).toBeCloseTo(0.2 + 0.6 / 8, 12);
    // A keyframe's own ease.
    expect(pathAt({ initialValue: 0, keyframes: [{ frames: 1, value: 1, ease: (t) => t }] }, 0.3)).toBeCloseTo(0.3, 12);
  });

  it('without keyframes (or frames) it stays where it starts, or jumps to the last value', () => {
    expect(pathAt({ initialValue: 0.4, keyframes: [] }, 0.5)).toBe(0.4);
    expect(pathAt({ initialValue: 0.4, keyframes: [{ frames: 0, value: 0.9 }] }, 0.5)).toBe(0.9);
  });
});
