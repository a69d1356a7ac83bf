import { describe, expect, it } from 'vitest';
import { accessibleLabel, INTERACTION_PROMPT, parseA11y, viewIndex, viewName } from '../../src/element/a11y.ts';

const DEG = Math.PI / 180;

describe('a11y (model-viewer 4.4\'s view names, labels and translations)', () => {
  it('names the side the camera sees: quadrants centred on front/right/back/left, thirds of phi at 60° and 120°', () => {
    const name = (theta: number, phi: number) => viewName(viewIndex(theta * DEG, phi * DEG));
    expect([name(0, 90), name(44, 90), name(46, 90), name(180, 90), name(-90, 90), name(270, 90), name(-135.1, 90)])
      .toEqual(['front', 'front', 'right', 'back', 'left', 'left', 'back']);
    expect([name(0, 0), name(0, 59), name(0, 61), name(0, 119), name(0, 121), name(0, 180)])
      .toEqual(['upper-front', 'upper-front', 'front', 'front', 'lower-front', 'lower-front']);
    // Whole turns wrap.
    expect(name(720 + 90, 90)).toBe('right');
    expect(name(-720 - 90, 45)).toBe('upper-left');
  });

  it('reads a11y from an object or a JSON string; null and \'\' clear it; bad input warns and changes nothing', () => {
    const warnings: string[] = [];
    const warn = (m: string) => warnings.push(m);
    expect(parseA11y({ front: 'Face', back: 7, 'interaction-prompt': 'Drag' }, warn)).toEqual({ front: 'Face', 'interaction-prompt': 'Drag' });
    expect(parseA11y('{"left": "Hinge"}', warn)).toEqual({ left: 'Hinge' });
    expect(parseA11y(null, warn)).toEqual({});
    expect(parseA11y('', warn)).toEqual({});
    expect(warnings).toEqual([]);
    expect(parseA11y('front', warn)).toBeUndefined();
    expect(parseA11y('{front: 1', warn)).toBeUndefined();
    expect(parseA11y('[1]', warn)).toBeUndefined();
    expect(parseA11y({ sideways: 'x' }, warn)).toEqual({});
    expect(warnings).toHaveLength(4);
    expect(warnings[3]).toMatch(/unknown key "sideways"/);
  });

  it('labels the image with alt (default "3D model"), plus the prompt with camera controls', () => {
    expect(accessibleLabel(null, false, {})).toBe('3D model');
    expect(accessibleLabel('A fox', false, {})).toBe('A fox');
    expect(accessibleLabel('A fox.', true, {})).toBe(`A fox. ${INTERACTION_PROMPT}`);
    expect(accessibleLabel(null, true, { 'interaction-prompt': 'Drag me' })).toBe('3D model. Drag me');
  });
});
