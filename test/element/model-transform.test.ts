import { describe, expect, it } from 'vitest';
import { modelMatrix, parseOrientation, parseScale, transformBounds } from '../../src/element/model-transform.ts';
import { isIdentityMat4 as isIdentity } from '../../src/math/trs.ts';

const DEG = Math.PI / 180;

describe('orientation and scale', () => {
  it('parse model-viewer’s syntax; absent is the identity; malformed is undefined', () => {
    expect(parseOrientation('0deg 90deg 180deg')).toEqual({ roll: 0, pitch: 90 * DEG, yaw: 180 * DEG });
    expect(parseOrientation('0.5rad')).toEqual({ roll: 0.5, pitch: 0, yaw: 0 });
    expect(parseOrientation(null)).toEqual({ roll: 0, pitch: 0, yaw: 0 });
    for (const bad of ['1 2 3 4', 'sideways', '10m']) expect(parseOrientation(bad), bad).toBeUndefined();
    expect(parseScale('2 3 4')).toEqual([2, 3, 4]);
    expect(parseScale('0.5')).toEqual([0.5, 0.5, 0.5]);
    expect(parseScale(null)).toEqual([1, 1, 1]);
    for (const bad of ['1 2', '0 1 1', 'big', '1 NaN 1']) expect(parseScale(bad), bad).toBeUndefined();
  });

  it('is Ry(yaw)·Rx(pitch)·Rz(roll)·S: roll first, then pitch, then yaw', () => {
    const m = new Float64Array(16);
    expect(isIdentity(modelMatrix({ roll: 0, pitch: 0, yaw: 0 }, [1, 1, 1], m))).toBe(true);
    const apply = (v: number[]) => [0, 1, 2].map((r) => m[r] * v[0] + m[4 + r] * v[1] + m[8 + r] * v[2] + m[12 + r]);
    // Yaw 90°: +X turns to −Z (right-handed, about +Y).
    modelMatrix({ roll: 0, pitch: 0, yaw: 90 * DEG }, [1, 1, 1], m);
    apply([1, 0, 0]).forEach((v, i) => expect(v).toBeCloseTo([0, 0, -1][i], 12));
    // Roll 90° then yaw 90°: +X → +Y (roll about Z) → stays +Y (yaw about Y).
    modelMatrix({ roll: 90 * DEG, pitch: 0, yaw: 90 * DEG }, [1, 1, 1], m);
    apply([1, 0, 0]).forEach((v, i) => expect(v).toBeCloseTo([0, 1, 0][i], 12));
    // Pitch 90°: +Y → +Z; scale applies first.
    modelMatrix({ roll: 0, pitch: 90 * DEG, yaw: 0 }, [1, 2, 1], m);
    apply([0, 1, 0]).forEach((v, i) => expect(v).toBeCloseTo([0, 0, 2][i], 12));
    expect(isIdentity(m)).toBe(false);
  });

  it('transforms a box to the box around its turned, scaled corners', () => {
    const bounds = { min: Float32Array.of(-1, 0, -0.5), max: Float32Array.of(1, 2, 0.5), center: Float32Array.of(0, 1, 0), radius: 1.5 };
    const m = modelMatrix({ roll: 0, pitch: 0, yaw: 90 * DEG }, [2, 2, 2], new Float64Array(16));
    const b = transformBounds(bounds, m);
    expect([...b.min].map((v) => Number(v.toFixed(5)))).toEqual([-1, 0, -2]);
    expect([...b.max].map((v) => Number(v.toFixed(5)))).toEqual([1, 4, 2]);
    expect([...b.center].map((v) => Number(v.toFixed(5)))).toEqual([0, 2, 0]);
  });
});
