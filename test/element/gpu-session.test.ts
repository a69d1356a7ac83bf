/**
 * readViewerSettings (src/element/gpu-session.ts): the render settings the element's attributes
 * ask for, here the `outline-width` attribute that thins or hides MToon outlines
 * (RenderSettings.outlineWidth): a number ≥ 0, 1 when absent; anything else warns and keeps 1.
 */
import { describe, expect, it } from 'vitest';
import { readViewerSettings } from '../../src/element/gpu-session.ts';

function settingsOf(attributes: Record<string, string>): { outlineWidth: number; warnings: string[] } {
  const element = { getAttribute: (name: string) => attributes[name] ?? null, hasAttribute: (name: string) => name in attributes };
  const warnings: string[] = [];
  const { outlineWidth } = readViewerSettings(element, 0, (message) => warnings.push(message));
  return { outlineWidth, warnings };
}

describe('readViewerSettings: outline-width', () => {
  it('takes a number ≥ 0 (0 hides the outlines), 1 without the attribute', () => {
    expect(settingsOf({})).toEqual({ outlineWidth: 1, warnings: [] });
    expect(settingsOf({ 'outline-width': '0.5' })).toEqual({ outlineWidth: 0.5, warnings: [] });
    expect(settingsOf({ 'outline-width': '0' })).toEqual({ outlineWidth: 0, warnings: [] });
    expect(settingsOf({ 'outline-width': '2' })).toEqual({ outlineWidth: 2, warnings: [] });
  });

  it('warns for a negative or non-numeric value and draws the outlines as authored', () => {
    for (const value of ['-1', 'thin', '', 'NaN']) {
      const { outlineWidth, warnings } = settingsOf({ 'outline-width': value });
      expect(outlineWidth, value).toBe(1);
      expect(warnings, value).toEqual([`outline-width="${value}" is not a number ≥ 0; outlines are drawn as authored`]);
    }
  });
});
