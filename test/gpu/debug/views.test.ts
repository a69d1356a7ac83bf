import { describe, expect, it } from 'vitest';
import { DebugView, debugViewNames, parseDebugViews } from '../../../src/gpu/debug/views.ts';

describe('debug view names', () => {
  it('parse a space-separated attribute into a mask, reporting unknown words', () => {
    expect(parseDebugViews('skeleton  Normals\twireframe')).toEqual({ mask: DebugView.SKELETON | DebugView.NORMALS | DebugView.WIREFRAME, unknown: [] });
    expect(parseDebugViews('weights bones')).toEqual({ mask: DebugView.WEIGHTS, unknown: ['bones'] });
    expect(parseDebugViews(null)).toEqual({ mask: 0, unknown: [] });
  });
  it('round-trip through names', () => {
    expect(debugViewNames(DebugView.TANGENTS | DebugView.SKELETON)).toEqual(['skeleton', 'tangents']);
  });
});
