import { asSkinningMethod, DEFAULT_SKINNING, type SkinningMethod } from '../anim/skinning-method.ts';
/**
 * Parsing of <skinned-mesh-viewer>'s attribute strings. Pure functions with no DOM, so
 * they are tested in Node (parseCssColor asks a 2D canvas, which a test hands it); the
 * element calls them only when an attribute changes. Malformed values never throw: they
 * return undefined and the element keeps its default (and warns), as HTML attributes do.
 */

const DEG = Math.PI / 180;

/**
 * A `camera-orbit` value, model-viewer's syntax: `$theta $phi $radius`. Theta is the
 * azimuth about +Y (0 looks at the model's front from +Z), phi the polar angle from +Y
 * (90deg is level with the target). `undefined` fields are `auto`.
 */
export interface CameraOrbit {
  /** Radians. */
  readonly theta: number | undefined;
  /** Radians. */
  readonly phi: number | undefined;
  readonly radius: OrbitRadius | undefined;
}

/** Metres, or a percentage of the distance that frames the model (`auto` is 100%). */
export interface OrbitRadius {
  readonly value: number;
  readonly unit: 'm' | '%';
}

/** model-viewer's default orbit: front, 75° from straight above, framed. */
export const DEFAULT_THETA = 0;
export const DEFAULT_PHI = 75 * DEG;

const NUMBER = '[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:e[+-]?\\d+)?';
const ANGLE_RE = new RegExp(`^(${NUMBER})(deg|rad)?$`, 'i');
const LENGTH_RE = new RegExp(`^(${NUMBER})(m|cm|mm|%)?$`, 'i');
const SECONDS_RE = new RegExp(`^\\s*(${NUMBER})\\s*(s|ms)?\\s*$`, 'i');
const LENGTH_SCALE: Readonly<Record<string, number>> = { m: 1, cm: 0.01, mm: 0.001 };

/** `30deg`, `0.5rad` or a bare number (radians, as model-viewer reads it); `auto` → undefined; malformed → null. */
export function parseAngle(token: string): number | undefined | null {
  if (token.toLowerCase() === 'auto') return undefined;
  const m = ANGLE_RE.exec(token);
  if (!m) return null;
  const value = Number(m[1]);
  return m[2]?.toLowerCase() === 'deg' ? value * DEG : value;
}

/** `2.5m`, `250cm`, `2500mm`, a bare number (metres) or `150%`; `auto` → undefined; malformed or negative → null. */
export function parseLength(token: string): OrbitRadius | undefined | null {
  if (token.toLowerCase() === 'auto') return undefined;
  const m = LENGTH_RE.exec(token);
  if (!m) return null;
  const value = Number(m[1]);
  if (!(value >= 0)) return null;
  const unit = (m[2] ?? 'm').toLowerCase();
  return unit === '%' ? { value, unit: '%' } : { value: value * LENGTH_SCALE[unit], unit: 'm' };
}

/**
 * Parses `camera-orbit`; missing trailing terms are `auto`. Returns undefined when the
 * text is malformed (wrong unit, more than three terms, a non-number).
 */
export function parseCameraOrbit(text: string | null | undefined): CameraOrbit | undefined {
  const tokens = (text ?? '').trim().split(/\s+/).filter((t) => t.length > 0);
  if (tokens.length > 3) return undefined;
  const theta = tokens.length > 0 ? parseAngle(tokens[0]) : undefined;
  const phi = tokens.length > 1 ? parseAngle(tokens[1]) : undefined;
  const radius = tokens.length > 2 ? parseLength(tokens[2]) : undefined;
  if (theta === null || phi === null || radius === null) return undefined;
  return { theta, phi, radius };
}

/** A finite number attribute, else undefined (so the caller keeps its default). */
export function parseNumber(text: string | null | undefined): number | undefined {
  if (text === null || text === undefined || text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/** Seconds from `0.3`, `0.3s` or `300ms`; negative or malformed → undefined. */
export function parseSeconds(text: string | null | undefined): number | undefined {
  if (text === null || text === undefined) return undefined;
  const m = SECONDS_RE.exec(text);
  if (!m) return undefined;
  const value = Number(m[1]) * (m[2]?.toLowerCase() === 'ms' ? 0.001 : 1);
  return value >= 0 && Number.isFinite(value) ? value : undefined;
}

/** Display-referred (sRGB-encoded) RGBA in 0…1 with straight alpha: what RenderSettings.clearColor holds. */
export type Rgba = readonly [number, number, number, number];

export const TRANSPARENT: Rgba = [0, 0, 0, 0];

const HEX_RE = /^#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const RGB_FUNCTION_RE = /^rgba?\(\s*([^)]*)\)$/i;

function channel(token: string): number | undefined {
  const percent = token.endsWith('%');
  const value = Number(percent ? token.slice(0, -1) : token);
  if (!Number.isFinite(value)) return undefined;
  return Math.min(1, Math.max(0, percent ? value / 100 : value / 255));
}

function alphaChannel(token: string): number | undefined {
  const percent = token.endsWith('%');
  const value = Number(percent ? token.slice(0, -1) : token);
  if (!Number.isFinite(value)) return undefined;
  return Math.min(1, Math.max(0, percent ? value / 100 : value));
}

/**
 * The CSS colours that need no browser: `transparent`, `#rgb`, `#rgba`, `#rrggbb`,
 * `#rrggbbaa`, and `rgb()`/`rgba()` in comma or space syntax (what a 2D canvas's
 * `fillStyle` serialises any colour to). Anything else → undefined; parseCssColor then asks
 * the browser for named colours, hsl() and the rest.
 */
export function parseSimpleColor(text: string): Rgba | undefined {
  const s = text.trim().toLowerCase();
  if (s === 'transparent') return TRANSPARENT;
  const hex = HEX_RE.exec(s);
  if (hex) {
    const h = hex[1];
    const short = h.length <= 4;
    const digits = short ? [...h].map((c) => c + c) : h.match(/../g)!;
    const [r, g, b, a = 'ff'] = digits;
    return [parseInt(r, 16) / 255, parseInt(g, 16) / 255, parseInt(b, 16) / 255, parseInt(a, 16) / 255];
  }
  const fn = RGB_FUNCTION_RE.exec(s);
  if (fn) {
    const body = fn[1].trim();
    let parts: string[];
    if (body.includes(',')) {
      parts = body.split(',').map((p) => p.trim());
    } else {
      const [rgb, alpha] = body.split('/').map((p) => p.trim());
      parts = rgb.split(/\s+/);
      if (alpha !== undefined) parts.push(alpha);
    }
    if (parts.length !== 3 && parts.length !== 4) return undefined;
    const r = channel(parts[0]), g = channel(parts[1]), b = channel(parts[2]);
    const a = parts.length === 4 ? alphaChannel(parts[3]) : 1;
    if (r === undefined || g === undefined || b === undefined || a === undefined) return undefined;
    return [r, g, b, a];
  }
  return undefined;
}

/** What parseCssColor needs of a 2D canvas context (a test passes a stand-in). */
export type ColorCanvas = Pick<CanvasRenderingContext2D, 'fillStyle' | 'clearRect' | 'fillRect' | 'getImageData'>;

let pageColorCanvas: ColorCanvas | null | undefined;

/** A 1×1 canvas of the page, made on first need; null without a DOM (Node). */
function colorCanvas(): ColorCanvas | null {
  if (pageColorCanvas === undefined) {
    pageColorCanvas = typeof OffscreenCanvas !== 'undefined'
      ? new OffscreenCanvas(1, 1).getContext('2d', { willReadFrequently: true })
      : typeof document !== 'undefined' ? document.createElement('canvas').getContext('2d', { willReadFrequently: true }) : null;
  }
  return pageColorCanvas;
}

/**
 * Any CSS colour the browser understands (names, hsl(), color-mix(), …). The simple ones
 * are read here; the rest go through a 1×1 2D canvas (the page's, unless `canvas` is
 * given): a value the canvas rejects leaves `fillStyle` unchanged, which two different
 * sentinels reveal. Attribute changes only.
 */
export function parseCssColor(text: string, canvas?: ColorCanvas): Rgba | undefined {
  const simple = parseSimpleColor(text);
  if (simple) return simple;
  const c = canvas ?? colorCanvas();
  if (!c) return undefined;
  c.fillStyle = '#000000';
  c.fillStyle = text;
  const first = c.fillStyle;
  c.fillStyle = '#ffffff';
  c.fillStyle = text;
  if (c.fillStyle !== first) return undefined;
  c.clearRect(0, 0, 1, 1);
  c.fillRect(0, 0, 1, 1);
  const [r, g, b, a] = c.getImageData(0, 0, 1, 1).data;
  return [r / 255, g / 255, b / 255, a / 255];
}

/** `background`: absent or empty → transparent; a colour the browser does not know warns and is transparent. */
export function backgroundColor(text: string | null, warn: (message: string) => void): Rgba {
  if (text === null || text.trim() === '') return TRANSPARENT;
  const color = parseCssColor(text);
  if (!color) warn(`background="${text}" is not a CSS colour; using transparent`);
  return color ?? TRANSPARENT;
}

/** The method to use for a `skinning` value: itself when supported, else undefined (caller falls back to linear). */
export function parseSkinning(text: string | null | undefined): SkinningMethod | undefined {
  return asSkinningMethod((text ?? DEFAULT_SKINNING).trim().toLowerCase() || DEFAULT_SKINNING);
}

/** `builtin:character` → `character`; other sources → undefined. */
export function builtinNameOf(source: string): string | undefined {
  return source.startsWith('builtin:') ? source.slice('builtin:'.length) : undefined;
}
