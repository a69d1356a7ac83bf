import { describe, expect, it } from 'vitest';
import { asSkinningMethod, methodChoices, parseSkinningMethod, usesDqPalette } from '../../src/anim/skinning-method.ts';

describe('skinning method', () => {
  it('parseSkinningMethod names the choices; undefined means linear', () => {
    expect(() => parseSkinningMethod('spherical')).toThrow(/skinning "spherical" must be linear, dual-quaternion or center-of-rotation/);
    expect(() => parseSkinningMethod('')).toThrow(/must be linear, dual-quaternion or center-of-rotation/);
    expect(parseSkinningMethod(undefined)).toBe('linear');
    expect(parseSkinningMethod('dual-quaternion')).toBe('dual-quaternion');
    expect(parseSkinningMethod('center-of-rotation')).toBe('center-of-rotation');
  });
  it('asSkinningMethod takes the three names exactly and nothing else', () => {
    expect(asSkinningMethod('linear')).toBe('linear');
    expect(asSkinningMethod('dual-quaternion')).toBe('dual-quaternion');
    expect(asSkinningMethod('center-of-rotation')).toBe('center-of-rotation');
    expect(asSkinningMethod('centre-of-rotation')).toBeUndefined();
    expect(asSkinningMethod('Linear')).toBeUndefined();
    expect(asSkinningMethod('')).toBeUndefined();
  });
  it('the palette each method reads, and the choices as a message lists them', () => {
    expect([usesDqPalette('linear'), usesDqPalette('dual-quaternion'), usesDqPalette('center-of-rotation')]).toEqual([false, true, true]);
    expect(methodChoices()).toBe('linear, dual-quaternion or center-of-rotation');
  });
});
