import { describe, expect, it } from 'vitest';
import { DQ_JOINT_FLOATS, DqJointFloat, dqPaletteFromMatrices, skinDqPalette } from '../../src/anim/dq-palette.ts';
import { skinPalette } from '../../src/anim/palette.ts';
import { poseForBake } from '../../src/bake/bake.ts';
import { loadGltf } from '../../src/gltf/load.ts';
import { PALETTE_MATRIX_FLOATS } from '../../src/gpu/layouts/bindings.ts';
import { rigidStretchFromMat4 } from '../../src/math/dual-quat.ts';
import { buildChain } from '../support/fixtures.ts';

const close = (a: ArrayLike<number>, b: ArrayLike<number>, eps = 1e-12) => {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < b.length; i++) expect(Math.abs(a[i] - b[i]), `element ${i}: ${a[i]} vs ${b[i]}`).toBeLessThan(eps);
};

/** The chain fixture with non-uniform scale and a transformed mesh node, posed between keys. */
async function posedChain() {
  const model = await loadGltf(buildChain({ nonUniformScale: true, transformedMeshNode: true }), { name: 'chain' });
  const { nodeMatrices } = poseForBake(model, { time: 1.3 });
  const meshSlot = model.hierarchy.slotOf[model.meshNodes[0].node];
  return { model, skin: model.skins[0], nodeMatrices, meshSlot };
}

describe('dqPaletteFromMatrices: invalid inputs', () => {
  it('refuses outputs and inputs too short for the entries asked for', () => {
    expect(() => dqPaletteFromMatrices(new Float64Array(32), 2, new Float64Array(31))).toThrow(RangeError);
    expect(() => dqPaletteFromMatrices(new Float64Array(32), 2, new Float64Array(64), 0, 3)).toThrow(/output holds 1 entries after the offset, 2 needed/);
    expect(() => dqPaletteFromMatrices(new Float64Array(32), 2, new Float64Array(64), 1)).toThrow(/input holds 1 matrices after the offset, 2 needed/);
  });
});

describe('the DQ palette layout', () => {
  it('one entry fills one palette matrix slot; fields are vec4-aligned and do not overlap', () => {
    expect(DQ_JOINT_FLOATS).toBe(PALETTE_MATRIX_FLOATS);
    expect(Object.values(DqJointFloat)).toEqual([0, 4, 8, 12]);
  });
});

describe('dqPaletteFromMatrices / skinDqPalette', () => {
  it('each entry is rigidStretchFromMat4 of the skinning matrix, padded with zeros', async () => {
    const { skin, nodeMatrices, meshSlot } = await posedChain();
    const count = skin.joints.length;
    const matrices = skinPalette(skin, nodeMatrices, meshSlot, new Float64Array(count * 16));
    const out = dqPaletteFromMatrices(matrices, count, new Float64Array(count * DQ_JOINT_FLOATS));
    const dq = new Float64Array(8), s = new Float64Array(6);
    for (let j = 0; j < count; j++) {
      rigidStretchFromMat4(matrices, dq, s, j * 16);
      const o = j * DQ_JOINT_FLOATS;
      close(out.slice(o + DqJointFloat.REAL, o + DqJointFloat.REAL + 8), dq);
      close(out.slice(o + DqJointFloat.STRETCH_DIAGONAL, o + DqJointFloat.STRETCH_DIAGONAL + 4), [s[0], s[1], s[2], 0]);
      close(out.slice(o + DqJointFloat.STRETCH_OFF_DIAGONAL, o + DqJointFloat.STRETCH_OFF_DIAGONAL + 4), [s[3], s[4], s[5], 0]);
    }
    // The fixture scales J1 non-uniformly at this time: some stretch is not the identity.
    expect(Array.from(out).some((x, i) => i % 16 === DqJointFloat.STRETCH_DIAGONAL && Math.abs(x - 1) > 0.05)).toBe(true);
  });

  it('skinDqPalette: in place, through a double-precision scratch, and at an entry offset — one result', async () => {
    const { skin, nodeMatrices, meshSlot } = await posedChain();
    const count = skin.joints.length;
    const matrices = skinPalette(skin, nodeMatrices, meshSlot, new Float64Array(count * 16));
    const expected = dqPaletteFromMatrices(matrices, count, new Float64Array(count * 16));
    const inPlace = new Float64Array((count + 2) * 16);
    expect(skinDqPalette(skin, nodeMatrices, meshSlot, inPlace, 2)).toBe(inPlace);
    close(inPlace.subarray(0, 32), new Float64Array(32));
    close(inPlace.subarray(32), expected);
    const viaScratch = skinDqPalette(skin, nodeMatrices, meshSlot, new Float32Array(count * 16), 0, new Float64Array(count * 16));
    close(viaScratch, expected, 1e-6);
  });
});
