import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadWarningsText, LOGGED_WARNINGS_MAX, logLoadWarnings } from '../../../src/element/loading/load-warnings.ts';

describe('load warnings reach the console', () => {
  afterEach(() => { vi.restoreAllMocks(); });

  it('one console.warn per call listing each warning by JSON path; nothing for a clean load', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    logLoadWarnings('<x-viewer>', 'a.glb', []);
    expect(warn).not.toHaveBeenCalled();
    logLoadWarnings('<x-viewer>', 'a.glb', [
      { path: 'materials[0].extensions.KHR_materials_clearcoat.clearcoatFactor', message: '-1 is outside [0, 1]; clamped to 0' },
      { path: 'accessors', message: 'accessors[3] is never used; ignored' },
    ]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toBe([
      '<x-viewer> a.glb loaded with 2 warnings:',
      '  materials[0].extensions.KHR_materials_clearcoat.clearcoatFactor: -1 is outside [0, 1]; clamped to 0',
      '  accessors: accessors[3] is never used; ignored',
    ].join('\n'));
  });

  it('a flood of warnings lists the first ones and counts the rest', () => {
    const many = Array.from({ length: LOGGED_WARNINGS_MAX + 7 }, (_, i) => ({ path: `nodes[${i}]`, message: 'odd' }));
    const lines = loadWarningsText('b.glb', many).split('\n');
    expect(lines[0]).toBe(`b.glb loaded with ${LOGGED_WARNINGS_MAX + 7} warnings:`);
    expect(lines).toHaveLength(LOGGED_WARNINGS_MAX + 2);
    expect(lines.at(-1)).toBe("  … and 7 more (the load event's detail.warnings lists them all)");
  });
});
