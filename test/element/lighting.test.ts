import { describe, expect, it } from 'vitest';
import { chooseLighting, parseToneMapping, parseUnit } from '../../src/element/lighting.ts';
import { ToneMapping } from '../../src/gpu/layouts.ts';

const BASE = 'https://example.com/page/index.html';

describe('element lighting attributes', () => {
  it('chooseLighting: model-viewer semantics of environment-image and skybox-image', () => {
    expect(chooseLighting(null, null, BASE)).toEqual({ lighting: 'neutral', background: null });
    expect(chooseLighting('NEUTRAL', null, BASE)).toEqual({ lighting: 'neutral', background: null });
    expect(chooseLighting('legacy', null, BASE)).toEqual({ lighting: 'legacy', background: null });
    expect(chooseLighting('env/a.hdr', null, BASE)).toEqual({ lighting: 'https://example.com/page/env/a.hdr', background: null });
    // A skybox lights the model too, unless environment-image says otherwise.
    expect(chooseLighting(null, '/sky.jpg', BASE)).toEqual({ lighting: 'https://example.com/sky.jpg', background: 'https://example.com/sky.jpg' });
    expect(chooseLighting('legacy', '/sky.jpg', BASE)).toEqual({ lighting: 'legacy', background: 'https://example.com/sky.jpg' });
    expect(chooseLighting('neutral', '/sky.jpg', BASE)).toEqual({ lighting: 'neutral', background: 'https://example.com/sky.jpg' });
    expect(chooseLighting(' ', '', BASE)).toEqual({ lighting: 'neutral', background: null });
  });

  it('parseToneMapping: ours, model-viewer aliases to the nearest, unknown → undefined', () => {
    expect(parseToneMapping(null)).toBe(ToneMapping.PBR_NEUTRAL);
    expect(parseToneMapping('neutral')).toBe(ToneMapping.PBR_NEUTRAL);
    expect(parseToneMapping('commerce')).toBe(ToneMapping.PBR_NEUTRAL);
    expect(parseToneMapping('reinhard')).toBe(ToneMapping.PBR_NEUTRAL);
    expect(parseToneMapping('ACES')).toBe(ToneMapping.ACES);
    expect(parseToneMapping('cineon')).toBe(ToneMapping.ACES);
    expect(parseToneMapping('agx')).toBe(ToneMapping.AGX);
    expect(parseToneMapping('none')).toBe(ToneMapping.NONE);
    expect(parseToneMapping('linear')).toBe(ToneMapping.NONE);
    expect(parseToneMapping('filmic')).toBeUndefined();
  });

  it('parseUnit clamps to 0…1 and falls back on malformed values', () => {
    expect(parseUnit('0.4', 0)).toBe(0.4);
    expect(parseUnit('3', 0)).toBe(1);
    expect(parseUnit('-1', 0.5)).toBe(0);
    expect(parseUnit('soft', 1)).toBe(1);
    expect(parseUnit(null, 0)).toBe(0);
  });
});
