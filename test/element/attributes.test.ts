import { describe, expect, it } from 'vitest';
import {
  builtinNameOf, DEFAULT_PHI, parseAngle, parseCameraOrbit, parseCssColor, parseLength, parseNumber,
  parseSeconds, parseSimpleColor, parseSkinning, type ColorCanvas,
} from '../../src/element/attributes.ts';

const DEG = Math.PI / 180;

describe('camera-orbit', () => {
  it('rejects what model-viewer would not parse', () => {
    for (const bad of ['a b c', '30deg 75deg 2.5m 1', '30px', '30deg 75deg -1m', '30deg 75% 2m', 'NaNdeg', '1e']) {
      expect(parseCameraOrbit(bad), bad).toBeUndefined();
    }
    // A bare number is an angle in radians: valid.
    expect(parseCameraOrbit('3')).toEqual({ theta: 3, phi: undefined, radius: undefined });
  });

  it('reads degrees, radians, metres, percentages and auto; missing terms are auto', () => {
    expect(parseCameraOrbit('30deg 75deg 2.5m')).toEqual({ theta: 30 * DEG, phi: 75 * DEG, radius: { value: 2.5, unit: 'm' } });
    expect(parseCameraOrbit('  0.5rad\t1.2   250cm ')).toEqual({ theta: 0.5, phi: 1.2, radius: { value: 2.5, unit: 'm' } });
    expect(parseCameraOrbit('-45DEG auto 150%')).toEqual({ theta: -45 * DEG, phi: undefined, radius: { value: 150, unit: '%' } });
    expect(parseCameraOrbit('auto auto auto')).toEqual({ theta: undefined, phi: undefined, radius: undefined });
    expect(parseCameraOrbit('90deg')).toEqual({ theta: 90 * DEG, phi: undefined, radius: undefined });
    expect(parseCameraOrbit('')).toEqual({ theta: undefined, phi: undefined, radius: undefined });
    expect(parseCameraOrbit(null)).toEqual({ theta: undefined, phi: undefined, radius: undefined });
    expect(parseLength('3000mm')).toEqual({ value: 3, unit: 'm' });
    expect(parseLength('2')).toEqual({ value: 2, unit: 'm' });
    expect(parseAngle('1.5')).toBe(1.5);
    expect(parseAngle('.5e1deg')).toBeCloseTo(5 * DEG, 12);
    expect(DEFAULT_PHI).toBeCloseTo(75 * DEG, 12);
  });
});

describe('numbers and durations', () => {
  it('keep the default (undefined) for anything not finite', () => {
    for (const bad of [null, undefined, '', '  ', 'abc', 'Infinity', 'NaN', '1x']) expect(parseNumber(bad), String(bad)).toBeUndefined();
    expect(parseNumber('-2.5')).toBe(-2.5);
    expect(parseNumber(' 3 ')).toBe(3);
  });

  it('read seconds with optional s or ms', () => {
    expect(parseSeconds('0.3')).toBe(0.3);
    expect(parseSeconds('0.3s')).toBe(0.3);
    expect(parseSeconds('300ms')).toBeCloseTo(0.3, 12);
    expect(parseSeconds(' 2 S ')).toBe(2);
    for (const bad of [null, '', '-1', 'fast', '1 min', '1e400']) expect(parseSeconds(bad), String(bad)).toBeUndefined();
  });
});

describe('colours without a browser', () => {
  it('parse hex, rgb()/rgba() in both syntaxes and transparent into sRGB 0…1 with straight alpha', () => {
    expect(parseSimpleColor('transparent')).toEqual([0, 0, 0, 0]);
    expect(parseSimpleColor('#f00')).toEqual([1, 0, 0, 1]);
    expect(parseSimpleColor('#ff000080')).toEqual([1, 0, 0, 128 / 255]);
    expect(parseSimpleColor('#0F08')).toEqual([0, 1, 0, 136 / 255]);
    expect(parseSimpleColor(' #336699 ')).toEqual([0x33 / 255, 0x66 / 255, 0x99 / 255, 1]);
    expect(parseSimpleColor('rgb(255, 0, 51)')).toEqual([1, 0, 0.2, 1]);
    expect(parseSimpleColor('rgba(0, 0, 0, 0.5)')).toEqual([0, 0, 0, 0.5]);
    expect(parseSimpleColor('rgb(60 70 55)')).toEqual([60 / 255, 70 / 255, 55 / 255, 1]);
    expect(parseSimpleColor('rgb(100% 0% 50% / 25%)')).toEqual([1, 0, 0.5, 0.25]);
  });

  it('leave names and other functions to the browser (undefined), and reject junk', () => {
    for (const other of ['red', 'hsl(0 100% 50%)', 'color-mix(in srgb, red, blue)', '#12', '#1234567', 'rgb(1, 2)', 'rgb(a, b, c)', '']) {
      expect(parseSimpleColor(other), other).toBeUndefined();
    }
  });
});

/**
 * A 2D context as parseCssColor sees one: `fillStyle` keeps its value when given a colour it
 * does not know and serialises the ones it knows to hex; a fill paints that colour.
 */
function stubCanvas(known: Readonly<Record<string, string>>): ColorCanvas & { uses: number } {
  let style = '#000000';
  let pixel = [0, 0, 0, 0];
  const hex = (s: string) => [1, 3, 5].map((i) => parseInt(s.slice(i, i + 2), 16)).concat(255);
  return {
    uses: 0,
    get fillStyle() { return style; },
    set fillStyle(value: string) {
      this.uses++;
      const canonical = /^#[0-9a-f]{6}$/.test(value) ? value : known[value];
      if (canonical !== undefined) style = canonical;
    },
    clearRect() { pixel = [0, 0, 0, 0]; },
    fillRect() { pixel = hex(style); },
    getImageData() { return { data: Uint8ClampedArray.from(pixel) } as unknown as ImageData; },
  } as ColorCanvas & { uses: number };
}

describe('colours through the browser (parseCssColor)', () => {
  it('reads the simple ones itself, without the canvas', () => {
    const canvas = stubCanvas({});
    expect(parseCssColor('#f00', canvas)).toEqual([1, 0, 0, 1]);
    expect(parseCssColor('transparent', canvas)).toEqual([0, 0, 0, 0]);
    expect(canvas.uses).toBe(0);
  });

  it('asks the canvas for names and functions, and rejects what it rejects (including its sentinels)', () => {
    const canvas = stubCanvas({ red: '#ff0000', 'hsl(120 100% 50%)': '#00ff00' });
    expect(parseCssColor('red', canvas)).toEqual([1, 0, 0, 1]);
    expect(parseCssColor('hsl(120 100% 50%)', canvas)).toEqual([0, 1, 0, 1]);
    for (const junk of ['reddish', 'hsl(', '']) expect(parseCssColor(junk, canvas), junk).toBeUndefined();
  });

  it('without a page (Node) reads only the simple ones', () => {
    expect(parseCssColor('rgb(0, 0, 255)')).toEqual([0, 0, 1, 1]);
    expect(parseCssColor('red')).toBeUndefined();
  });
});

describe('skinning and sources', () => {
  it('support linear (the default), dual-quaternion and center-of-rotation, nothing else', () => {
    expect(parseSkinning(null)).toBe('linear');
    expect(parseSkinning('')).toBe('linear');
    expect(parseSkinning(' Linear ')).toBe('linear');
    expect(parseSkinning('dual-quaternion')).toBe('dual-quaternion');
    expect(parseSkinning(' Center-Of-Rotation')).toBe('center-of-rotation');
    expect(parseSkinning('spherical')).toBeUndefined();
  });

  it('recognise builtin: sources', () => {
    expect(builtinNameOf('builtin:character')).toBe('character');
    expect(builtinNameOf('models/builtin:x.glb')).toBeUndefined();
  });
});
