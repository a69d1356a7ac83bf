import { describe, expect, it } from 'vitest';
import { chooseLighting, loadEnvironmentImage, parseToneMapping, parseUnit } from '../../src/element/lighting.ts';
import { writeHdr } from '../../src/gpu/environment/hdr.ts';
import { writeExr } from '../support/exr.ts';
import { ToneMapping } from '../../src/gpu/layouts/bindings.ts';

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
    // model-viewer 4.4's default value.
    expect(parseToneMapping('auto')).toBe(ToneMapping.PBR_NEUTRAL);
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

  it('loadEnvironmentImage tells .hdr and .exr by their bytes, whatever the URL ends in; an HTTP error names the URL', async () => {
    const rgb = new Float32Array([0.5, 1, 2, 4, 8, 16]);
    const files: Record<string, Uint8Array> = {
      'https://e.com/a.exr': writeExr(2, 1, rgb),
      'https://e.com/exr-without-extension': writeExr(2, 1, rgb),
      'https://e.com/b.hdr': writeHdr({ width: 2, height: 1, rgb }),
    };
    const fetcher = (async (url: string) => (files[url]
      ? new Response(files[url].slice().buffer, { status: 200 })
      : new Response('no', { status: 404 }))) as unknown as typeof fetch;
    for (const url of ['https://e.com/a.exr', 'https://e.com/exr-without-extension']) {
      const image = await loadEnvironmentImage(url, fetcher);
      expect([image.width, image.height, ...image.rgb]).toEqual([2, 1, ...rgb]);
    }
    const hdr = await loadEnvironmentImage('https://e.com/b.hdr', fetcher);
    expect(hdr.width).toBe(2);
    expect(hdr.rgb[5]).toBeCloseTo(16, 0);
    await expect(loadEnvironmentImage('https://e.com/missing.exr', fetcher)).rejects.toThrow('https://e.com/missing.exr: HTTP 404');
  });
});
