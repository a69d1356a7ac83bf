import { describe, expect, it } from 'vitest';
import { asSkinningMethod, parseSkinningMethod } from '../../src/anim/skinning-method.ts';

describe('skinning method', () => {
  it('parseSkinningMethod names the choices; undefined means linear', () => {
    expect(() => parseSkinningMethod('spherical')).toThrow(/skinning "spherical" must be linear or dual-quaternion/);
    expect(() => parseSkinningMethod('')).toThrow(/must be linear or dual-quaternion/);
    expect(parseSkinningMethod(undefined)).toBe('linear');
    expect(parseSkinningMethod('dual-quaternion')).toBe('dual-quaternion');
  });
  it('asSkinningMethod takes the two names exactly and nothing else', () => {
    expect(asSkinningMethod('linear')).toBe('linear');
    expect(asSkinningMethod('dual-quaternion')).toBe('dual-quaternion');
    expect(asSkinningMethod('Linear')).toBeUndefined();
    expect(asSkinningMethod('')).toBeUndefined();
  });
});
