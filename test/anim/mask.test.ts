import { describe, expect, it } from 'vitest';
import { createMask, findSlot, isInSubtree, setSubtreeWeight, subtreeMask } from '../../src/anim/mask.ts';
import { loadCharacter } from './fixtures.ts';

describe('masks: invalid inputs', () => {
  it('rejects unknown names, slots out of range, weights outside [0, 1] and masks of another size', async () => {
    const model = await loadCharacter();
    const h = model.hierarchy;
    expect(() => findSlot(model, 'Tail')).toThrow(/no node named "Tail"; the model has \d+ named nodes: .*Hips/);
    expect(() => subtreeMask(h, -1)).toThrow(/slot -1 is not in \[0, 22\)/);
    expect(() => subtreeMask(h, 22)).toThrow(/slot 22/);
    expect(() => setSubtreeWeight(h, 0, 1.5, createMask(h))).toThrow(/weight 1.5 is not in \[0, 1\]/);
    expect(() => setSubtreeWeight(h, 0, 1, new Float32Array(3))).toThrow(/mask has 3 weights, hierarchy has 22 slots/);
  });
});

describe('masks: numbers', () => {
  it('"upper body" from the spine: 1 on the spine and everything under it, 0 elsewhere', async () => {
    const model = await loadCharacter();
    const h = model.hierarchy;
    const mask = subtreeMask(h, findSlot(model, 'Spine'));
    const names = (w: number) => Array.from(mask).flatMap((m, s) => (m === w ? [model.nodes[h.order[s]].name] : [])).sort();
    expect(names(1)).toEqual(['Chest', 'Hand.L', 'Hand.R', 'Head', 'LowerArm.L', 'LowerArm.R', 'Neck', 'Shoulder.L', 'Shoulder.R', 'Spine', 'UpperArm.L', 'UpperArm.R']);
    expect(names(0)).toEqual(expect.arrayContaining(['Root', 'Hips', 'UpperLeg.L', 'Foot.R', 'Character']));
  });

  it('subtree weights compose, later calls overriding earlier ones inside their subtree', async () => {
    const model = await loadCharacter();
    const h = model.hierarchy;
    const mask = subtreeMask(h, findSlot(model, 'Spine'));
    setSubtreeWeight(h, findSlot(model, 'Shoulder.L'), 0.5, mask);
    expect(mask[findSlot(model, 'Hand.L')]).toBe(0.5);
    expect(mask[findSlot(model, 'Hand.R')]).toBe(1);
    expect(mask[findSlot(model, 'Chest')]).toBe(1);
    expect(mask[findSlot(model, 'Hips')]).toBe(0);
    expect(isInSubtree(h, findSlot(model, 'Hand.L'), findSlot(model, 'Chest'))).toBe(true);
    expect(isInSubtree(h, findSlot(model, 'Foot.L'), findSlot(model, 'Chest'))).toBe(false);
    expect(isInSubtree(h, findSlot(model, 'Chest'), findSlot(model, 'Chest'))).toBe(true);
  });
});
