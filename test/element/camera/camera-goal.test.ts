import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_PHI, DEFAULT_MIN_PHI, DEFAULT_ROTATION_PER_SECOND, parseAngleOr, parseCameraTarget, parseMilliseconds, parseOrbitLimits,
  parseRotationRate, stepDamped, type OrbitLimits,
} from '../../../src/element/camera/camera-goal.ts';

const DEG = Math.PI / 180;

describe('camera attribute parsing', () => {
  it('camera-target: lengths in m, cm, mm or bare metres, negative allowed, auto terms, malformed → undefined', () => {
    expect(parseCameraTarget('1m -20cm 300mm')).toEqual({ x: 1, y: -0.2, z: 0.3 });
    expect(parseCameraTarget('auto 1.5')).toEqual({ x: undefined, y: 1.5, z: undefined });
    expect(parseCameraTarget(null)).toEqual({ x: undefined, y: undefined, z: undefined });
    for (const bad of ['1m 2m 3m 4m', '10% 0 0', '1deg', 'x']) expect(parseCameraTarget(bad), bad).toBeUndefined();
  });

  it('angles (field-of-view, rotation-per-second): deg or rad, auto → the default, malformed → undefined', () => {
    expect(parseAngleOr('45deg', 1)).toBeCloseTo(45 * DEG, 12);
    expect(parseAngleOr('0.5rad', 1)).toBe(0.5);
    expect(parseAngleOr('auto', 7)).toBe(7);
    expect(parseAngleOr(null, 7)).toBe(7);
    expect(parseAngleOr('fast', 7)).toBeUndefined();
  });

  it('rotation-per-second as model-viewer 4.4 reads it: default π/32 rad/s, angles either way, percentages of the default', () => {
    expect(DEFAULT_ROTATION_PER_SECOND).toBe(Math.PI / 32);
    expect(parseRotationRate(null)).toBe(Math.PI / 32);
    expect(parseRotationRate('auto')).toBe(Math.PI / 32);
    expect(parseRotationRate('30deg')).toBeCloseTo(30 * DEG, 12);
    expect(parseRotationRate('-0.5rad')).toBe(-0.5);
    expect(parseRotationRate('-100%')).toBe(-Math.PI / 32);
    expect(parseRotationRate('250%')).toBeCloseTo(2.5 * Math.PI / 32, 12);
    for (const bad of ['fast', '10%%', '%']) expect(parseRotationRate(bad), bad).toBeUndefined();
  });

  it('milliseconds as model-viewer writes them: bare and ms are milliseconds, s seconds', () => {
    expect(parseMilliseconds('200', 0)).toBeCloseTo(0.2, 12);
    expect(parseMilliseconds('200ms', 0)).toBeCloseTo(0.2, 12);
    expect(parseMilliseconds('1.5s', 0)).toBe(1.5);
    expect(parseMilliseconds(null, 3)).toBe(3);
    expect(parseMilliseconds('-5', 3)).toBeUndefined();
    expect(parseMilliseconds('soon', 3)).toBeUndefined();
  });

  it('min/max-camera-orbit: auto terms are model-viewer’s (theta open, phi 22.5°…157.5°); a malformed one is named', () => {
    const limits = {} as OrbitLimits;
    expect(parseOrbitLimits(null, null, limits)).toBeUndefined();
    expect(limits).toEqual({ minTheta: -Infinity, maxTheta: Infinity, minPhi: DEFAULT_MIN_PHI, maxPhi: DEFAULT_MAX_PHI, minRadius: undefined, maxRadius: undefined });
    expect(parseOrbitLimits('-90deg 45deg 1m', '90deg auto 200%', limits)).toBeUndefined();
    expect(limits.minTheta).toBeCloseTo(-Math.PI / 2, 12);
    expect(limits.maxTheta).toBeCloseTo(Math.PI / 2, 12);
    expect(limits.minPhi).toBeCloseTo(Math.PI / 4, 12);
    expect(limits.maxPhi).toBe(DEFAULT_MAX_PHI);
    expect(limits.minRadius).toEqual({ value: 1, unit: 'm' });
    expect(limits.maxRadius).toEqual({ value: 200, unit: '%' });
    // Straight above is kept just off the pole.
    parseOrbitLimits('auto 0deg', 'auto 180deg', limits);
    expect(limits.minPhi).toBeGreaterThan(0);
    expect(limits.maxPhi).toBeLessThan(Math.PI);
    expect(parseOrbitLimits('1m 2m', null, limits)).toBe('min-camera-orbit');
    expect(parseOrbitLimits(null, 'x', limits)).toBe('max-camera-orbit');
  });
});

describe('stepDamped', () => {
  it('moves each component towards its goal without overshoot, settles exactly, and is the same in one step or many', () => {
    const value = Float64Array.of(0, 10), velocity = new Float64Array(2), goal = Float64Array.of(1, 0), eps = Float64Array.of(1e-6, 1e-6);
    const a = Float64Array.from(value), va = new Float64Array(2);
    stepDamped(a, va, goal, 0.1, 0.1, eps);
    for (let i = 0; i < 10; i++) stepDamped(value, velocity, goal, 0.1, 0.01, eps);
    expect(value[0]).toBeCloseTo(a[0], 12);
    expect(value[1]).toBeCloseTo(a[1], 12);
    expect(value[0]).toBeCloseTo(1 - 4 * Math.exp(-3), 12);
    let last = value[0];
    let moving = true;
    for (let i = 0; i < 1000 && moving; i++) {
      moving = stepDamped(value, velocity, goal, 0.1, 0.01, eps);
      expect(value[0]).toBeGreaterThanOrEqual(last);
      expect(value[0]).toBeLessThanOrEqual(1);
      last = value[0];
    }
    expect(moving).toBe(false);
    expect([...value]).toEqual([1, 0]);
    // Decay 0 jumps.
    goal[0] = 5;
    expect(stepDamped(value, velocity, goal, 0, 0.01, eps)).toBe(false);
    expect(value[0]).toBe(5);
  });
});
