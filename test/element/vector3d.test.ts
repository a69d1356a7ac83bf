import { describe, expect, it } from 'vitest';
import { parseCameraOrbit } from '../../src/element/attributes.ts';
import { parseCameraTarget } from '../../src/element/camera/camera-goal.ts';
import { sphericalPosition, vector2d, vector3d } from '../../src/element/vector3d.ts';

describe('model-viewer\'s value objects', () => {
  it('toString() reads the fields when called, so a changed field is written back (the documented orbit.theta += d pattern)', () => {
    const orbit = sphericalPosition(0.5, 1.2, 3);
    orbit.theta += 0.25;
    expect(String(orbit)).toBe('0.75rad 1.2rad 3m');
    const point = vector3d(1, 2, 3);
    point.z = -0.5;
    expect(`${point}`).toBe('1m 2m -0.5m');
    const uv = vector2d(0.25, 0.5);
    uv.v = 1;
    expect(String(uv)).toBe('0.25 1');
  });

  it('writes full precision in the attributes\' units, so the round trip is exact', () => {
    const orbit = sphericalPosition(Math.PI / 7, Math.PI / 3, Math.E);
    expect(parseCameraOrbit(String(orbit))).toEqual({ theta: Math.PI / 7, phi: Math.PI / 3, radius: { value: Math.E, unit: 'm' } });
    const target = vector3d(-1 / 3, 0.1, -2.5e-8);
    expect(parseCameraTarget(String(target))).toEqual({ x: -1 / 3, y: 0.1, z: -2.5e-8 });
  });
});
