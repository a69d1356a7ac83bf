import { describe, expect, it } from 'vitest';
import { mat4 } from 'wgpu-matrix';
import { paletteHasNonUniformScale } from '../../../src/gpu/draw/skin-normals.ts';

function palette(...matrices: Float32Array[]): Float32Array {
  const out = new Float32Array(matrices.length * 16);
  matrices.forEach((m, i) => out.set(m, i * 16));
  return out;
}

describe('paletteHasNonUniformScale', () => {
  const rotation = mat4.mul(mat4.rotationX(0.7), mat4.rotationZ(-1.2));
  it('is false for rotations, translations, uniform scale and mirrors', () => {
    const p = palette(mat4.identity(), rotation, mat4.mul(mat4.translation([3, 4, 5]), mat4.uniformScaling(2.5)), mat4.scaling([-1, 1, 1]), mat4.mul(rotation, mat4.uniformScaling(100)));
    expect(paletteHasNonUniformScale(p, 0, 5)).toBe(false);
  });

  it('is true for non-uniform scale or shear in any matrix of the range', () => {
    const stretched = mat4.mul(rotation, mat4.scaling([1, 1.01, 1]));
    const shear = mat4.identity();
    shear[4] = 0.05;
    expect(paletteHasNonUniformScale(palette(mat4.identity(), stretched), 0, 2)).toBe(true);
    expect(paletteHasNonUniformScale(palette(mat4.identity(), shear), 0, 2)).toBe(true);
  });

  it('only looks at the given range of matrices', () => {
    const p = palette(mat4.scaling([2, 1, 1]), mat4.identity(), mat4.identity());
    expect(paletteHasNonUniformScale(p, 1, 2)).toBe(false);
    expect(paletteHasNonUniformScale(p, 0, 1)).toBe(true);
  });

  it('ignores collapsed (all-zero) joints', () => {
    expect(paletteHasNonUniformScale(palette(mat4.uniformScaling(0)), 0, 1)).toBe(false);
  });
});
