/**
 * <skinned-mesh-viewer>'s accessibility, as model-viewer 4.4's: the canvas is an image labelled
 * by `alt` (with the interaction prompt appended while `camera-controls` is on), the element
 * takes keyboard focus with camera controls, and a polite live region (role `status`) says
 * which side the camera views the model from while the element has focus — "View from stage
 * upper-left", or the page's own words from the `a11y` attribute / property (JSON with the
 * keys front, back, left, right, upper-*, lower-* and interaction-prompt).
 *
 * The camera reports every moving frame; the status is rewritten only when the view's side
 * changes, so a moving camera allocates nothing here.
 */

/** The sides of the model, in model-viewer's words: azimuth quadrants and polar thirds. */
const AZIMUTH_LABELS = ['front', 'right', 'back', 'left'] as const;
const POLAR_LABELS = ['upper-', '', 'lower-'] as const;

/** The keys `a11y` may translate. */
export const A11Y_KEYS = [
  'front', 'right', 'back', 'left',
  'upper-front', 'upper-right', 'upper-back', 'upper-left',
  'lower-front', 'lower-right', 'lower-back', 'lower-left',
  'interaction-prompt',
] as const;

export type A11yKey = (typeof A11Y_KEYS)[number];

/** What a page gives `a11y`: its words for some of the keys. */
export type A11yTranslations = Partial<Record<A11yKey, string>>;

/** model-viewer's label when there is no `alt`. */
export const DEFAULT_LABEL = '3D model';
/** model-viewer's prompt appended to the label with `camera-controls`. */
export const INTERACTION_PROMPT = 'Use mouse, touch or arrow keys to move.';

/** The view names in index order (`polar * 4 + azimuth`), made once. */
const VIEW_NAMES: readonly string[] = POLAR_LABELS.flatMap((polar) => AZIMUTH_LABELS.map((azimuth) => `${polar}${azimuth}`));
const DEFAULT_VIEW_TEXT: readonly string[] = VIEW_NAMES.map((name) => `View from stage ${name}`);

const HALF_PI = Math.PI / 2;
const QUARTER_PI = Math.PI / 4;
const THIRD_PI = Math.PI / 3;
const TAU = 2 * Math.PI;

/**
 * Which side the camera at azimuth `theta` and polar angle `phi` (radians, as `camera-orbit`)
 * sees: `polar * 4 + azimuth` into VIEW_NAMES. Quadrants are centred on the four sides (front:
 * theta within ±45°), thirds split phi at 60° and 120°, as model-viewer's do.
 */
export function viewIndex(theta: number, phi: number): number {
  const azimuth = (4 + Math.floor(((theta % TAU) + QUARTER_PI) / HALF_PI)) % 4;
  const polar = Math.min(2, Math.max(0, Math.floor(phi / THIRD_PI)));
  return polar * 4 + azimuth;
}

/** `upper-left` etc. for a view index. */
export function viewName(index: number): string {
  return VIEW_NAMES[index];
}

/**
 * `a11y` as model-viewer reads it: an object (its string values are taken), a JSON object in a
 * string, or null / '' for none. A string that is not a JSON object, or JSON that does not
 * parse, warns and leaves the translations as they were (undefined is returned).
 */
export function parseA11y(value: unknown, warn: (message: string) => void): A11yTranslations | undefined {
  if (value === null || value === undefined || value === '') return {};
  let source: unknown = value;
  if (typeof value === 'string') {
    if (!value.trimStart().startsWith('{')) {
      warn(`a11y="${value}" is not a JSON object of descriptions ({"front": "…", "back": "…"}); ignored`);
      return undefined;
    }
    try {
      source = JSON.parse(value);
    } catch (error) {
      warn(`a11y is not valid JSON (${(error as Error).message}); ignored`);
      return undefined;
    }
  }
  if (typeof source !== 'object' || source === null || Array.isArray(source)) {
    warn('a11y must be an object of descriptions ({"front": "…", "back": "…"}); ignored');
    return undefined;
  }
  const out: A11yTranslations = {};
  for (const key of A11Y_KEYS) {
    const text = (source as Record<string, unknown>)[key];
    if (typeof text === 'string') out[key] = text;
  }
  for (const key of Object.keys(source)) {
    if (!(A11Y_KEYS as readonly string[]).includes(key)) warn(`a11y: unknown key "${key}" (known: ${A11Y_KEYS.join(', ')})`);
  }
  return out;
}

/** The canvas's label: `alt` (its final period dropped) and, with camera controls, the prompt. */
export function accessibleLabel(alt: string | null, cameraControls: boolean, translations: A11yTranslations): string {
  const base = alt === null || alt === 'null' ? DEFAULT_LABEL : alt;
  if (!cameraControls) return base;
  return `${base.replace(/\.$/, '')}. ${translations['interaction-prompt'] ?? INTERACTION_PROMPT}`;
}

/** The live region's markup: visually hidden, read by screen readers. */
export const A11Y_MARKUP = `<div class="screen-reader-only" role="region" aria-label="Live announcements"><span role="status"></span></div>`;

export const A11Y_STYLES = `
.screen-reader-only {
  position: absolute; left: 0; top: 0; width: 1px; height: 1px; margin: -1px; padding: 0; border: 0;
  overflow: hidden; clip: rect(0, 0, 0, 0); white-space: nowrap; pointer-events: none;
}
`;

/** The element's side of it: its attributes, focus and the canvas the label goes on. */
export interface A11yHost {
  readonly element: HTMLElement;
  /** The role="img" element the label describes. */
  readonly image: HTMLElement;
  /** The role="status" element. */
  readonly status: HTMLElement;
  readonly warn: (message: string) => void;
}

/** One element's accessibility state. */
export class ViewerA11y {
  private value: unknown = null;
  private translations: A11yTranslations = {};
  /** The text the live region holds while focused ('' before anything was announced). */
  private announcement = '';
  private view = -1;
  private addedTabIndex = false;
  private readonly onFocus = (): void => { this.host.status.textContent = this.announcement; };
  private readonly onBlur = (): void => { this.host.status.textContent = ''; };

  constructor(private readonly host: A11yHost) {
    this.updateLabel();
  }

  /** The `a11y` property: what was set (an object or a JSON string), or null. */
  get a11y(): unknown {
    return this.value;
  }

  set a11y(value: unknown) {
    this.value = value ?? null;
    const parsed = parseA11y(value, this.host.warn);
    if (parsed) this.translations = parsed;
    this.view = -1;
    this.updateLabel();
  }

  connect(): void {
    this.host.element.addEventListener('focus', this.onFocus);
    this.host.element.addEventListener('blur', this.onBlur);
    this.updateLabel();
  }

  disconnect(): void {
    this.host.element.removeEventListener('focus', this.onFocus);
    this.host.element.removeEventListener('blur', this.onBlur);
  }

  /** `alt` or `camera-controls` changed: the label follows; with controls the element takes focus, unless the page chose a tabindex. */
  updateLabel(): void {
    const el = this.host.element;
    const controls = el.hasAttribute('camera-controls');
    this.host.image.setAttribute('aria-label', accessibleLabel(el.getAttribute('alt'), controls, this.translations));
    if (!el.isConnected) return;
    if (controls && !el.hasAttribute('tabindex')) {
      el.setAttribute('tabindex', '0');
      this.addedTabIndex = true;
    } else if (!controls && this.addedTabIndex) {
      el.removeAttribute('tabindex');
      this.addedTabIndex = false;
    }
  }

  /** A load started: announced as model-viewer does. */
  loading(): void {
    this.view = -1;
    this.announce('Loading');
  }

  /** The camera moved (every moving frame): announces the side it views from when that changes. Allocates nothing. */
  cameraMoved(theta: number, phi: number): void {
    const view = viewIndex(theta, phi);
    if (view === this.view) return;
    this.view = view;
    this.announce(this.translations[VIEW_NAMES[view] as A11yKey] ?? DEFAULT_VIEW_TEXT[view]);
  }

  private announce(text: string): void {
    this.announcement = text;
    // Spoken only while the element has focus (model-viewer's rule): a page of viewers stays quiet.
    const root = this.host.element.getRootNode() as Document | ShadowRoot;
    if (root.activeElement === this.host.element && this.host.status.textContent !== text) this.host.status.textContent = text;
  }
}
