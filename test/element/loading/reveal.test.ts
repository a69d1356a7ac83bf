import { describe, expect, it } from 'vitest';
import { parseLoading, parseReveal, RevealState } from '../../../src/element/loading/reveal.ts';

describe('loading and reveal attributes', () => {
  it('parse model-viewer values case-insensitively; absent is auto; unknown is undefined', () => {
    expect([null, 'auto', 'LAZY', ' eager '].map(parseLoading)).toEqual(['auto', 'auto', 'lazy', 'eager']);
    expect(parseLoading('soon')).toBeUndefined();
    expect([null, 'auto', 'Manual', 'interaction'].map(parseReveal)).toEqual(['auto', 'auto', 'manual', 'manual']);
    expect(parseReveal('never')).toBeUndefined();
  });
});

describe('RevealState', () => {
  function state(loading: 'auto' | 'lazy' | 'eager', reveal: 'auto' | 'manual'): RevealState {
    const s = new RevealState();
    s.loading = loading;
    s.reveal = reveal;
    return s;
  }

  it('eager loads at once; lazy and auto wait until near the viewport', () => {
    expect(state('eager', 'auto').mayLoad()).toBe(true);
    for (const loading of ['lazy', 'auto'] as const) {
      const s = state(loading, 'auto');
      expect(s.mayLoad()).toBe(false);
      expect(s.waitsForNear()).toBe(true);
      s.near = true;
      expect(s.mayLoad()).toBe(true);
      expect(s.waitsForNear()).toBe(false);
    }
  });

  it('auto loading with manual reveal waits for dismissPoster, not for the viewport; lazy with manual waits for the viewport', () => {
    const s = state('auto', 'manual');
    s.near = true;
    expect(s.mayLoad()).toBe(false);
    expect(s.waitsForNear()).toBe(false);
    expect(s.dismiss()).toBe(false); // nothing drawn yet: it comes down with the first frame
    expect(s.mayLoad()).toBe(true);
    expect(s.posterShown).toBe(true);
    expect(s.frameDrawn()).toBe(true);
    expect(s.posterShown).toBe(false);
    const lazy = state('lazy', 'manual');
    expect(lazy.mayLoad()).toBe(false);
    lazy.near = true;
    expect(lazy.mayLoad()).toBe(true);
  });

  it('auto reveal takes the poster down at the first frame drawn, once', () => {
    const s = state('eager', 'auto');
    expect(s.posterShown).toBe(true);
    expect(s.modelVisible(true)).toBe(false);
    expect(s.frameDrawn()).toBe(true);
    expect(s.frameDrawn()).toBe(false);
    expect(s.posterShown).toBe(false);
    expect(s.modelVisible(true)).toBe(true);
    expect(s.modelVisible(false)).toBe(false);
  });

  it('manual reveal keeps the poster over drawn frames until dismiss; showPoster puts it back until the next dismiss', () => {
    const s = state('eager', 'manual');
    expect(s.frameDrawn()).toBe(false);
    expect(s.posterShown).toBe(true);
    expect(s.modelDrawn).toBe(true);
    expect(s.dismiss()).toBe(true);
    expect(s.dismiss()).toBe(false); // already down
    expect(s.show()).toBe(true);
    expect(s.show()).toBe(false);
    expect(s.frameDrawn()).toBe(false); // the same model drawing on does not reveal it
    expect(s.posterShown).toBe(true);
    expect(s.dismiss()).toBe(true);
  });

  it('a new model is not drawn until its first frame; auto reveal takes a re-shown poster down for it', () => {
    const s = state('eager', 'auto');
    s.frameDrawn();
    s.show();
    s.modelChanged();
    expect(s.modelDrawn).toBe(false);
    expect(s.frameDrawn()).toBe(true);
    expect(s.posterShown).toBe(false);
    s.modelCleared();
    expect(s.modelVisible(true)).toBe(false);
  });
});
