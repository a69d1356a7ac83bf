import { composeModels, setPartRoot, type ComposedClip, type ComposedModel } from '../gltf/compose.ts';
import type { Model } from '../gltf/model.ts';
import { parseCameraTarget } from './camera/camera-goal.ts';
import { orientationQuaternion, parseOrientation, parseScale, IDENTITY_ORIENTATION, UNIT_SCALE } from './model-transform.ts';
import { HTMLElementBase } from './page.ts';

/**
 * model-viewer 4.4's `<extra-model>`: more glTF files in the same scene as the element's own
 * `src`, each placed by its `offset`, `orientation` and `scale`.
 *
 *   <skinned-mesh-viewer src="room.glb">
 *     <extra-model src="fox.glb" offset="1m 0 0" orientation="0 0 90deg" scale="0.5"></extra-model>
 *   </skinned-mesh-viewer>
 *
 * The files load together (one `progress`, one `load` for all) and are composed into one
 * Model (gltf/compose.ts), each extra model under a root node of its own whose rest transform
 * is its placement: one upload, one player, one frame; framing, hotspots (`data-joint` on any
 * node of any part), the crowd and capture see them all. Adding, removing or re-pointing an
 * `<extra-model>` loads again (a new `load`); moving one changes its root's transform in
 * place, at the next frame, without loading. Clips: a clip name plays that clip in every
 * model that has it and each other model's first clip, as model-viewer's mixers do, here on
 * one timeline (a shorter clip holds its last pose until the longest ends).
 */

export const EXTRA_MODEL_TAG = 'extra-model';

/** The attributes of `<extra-model>`; a change is announced to the parent viewer. */
const EXTRA_MODEL_ATTRIBUTES = ['src', 'offset', 'orientation', 'scale', 'background'] as const;

/** What an `<extra-model>` reports to its viewer when one of its attributes changes (model-viewer's event, bubbling and composed). */
export interface ExtraModelChangeDetail {
  readonly srcChanged: boolean;
  readonly src: string | null;
  readonly offset: string | null;
  readonly orientation: string | null;
  readonly scale: string | null;
  readonly background: boolean;
}

/**
 * `<extra-model src offset orientation scale background>`: a declaration its parent
 * <skinned-mesh-viewer> reads. Its properties reflect its attributes, as model-viewer's do.
 */
export class ExtraModelElement extends HTMLElementBase {
  static readonly observedAttributes = [...EXTRA_MODEL_ATTRIBUTES];

  get src(): string | null { return this.getAttribute('src'); }
  set src(value: string | null) { this.reflect('src', value); }
  /** `x y z`: lengths (m, cm, mm, bare metres) from the scene's origin. */
  get offset(): string | null { return this.getAttribute('offset'); }
  set offset(value: string | null) { this.reflect('offset', value); }
  /** `roll pitch yaw` (deg, rad), as the viewer's own `orientation`. */
  get orientation(): string | null { return this.getAttribute('orientation'); }
  set orientation(value: string | null) { this.reflect('orientation', value); }
  /** `x y z`, or one number for all three. */
  get scale(): string | null { return this.getAttribute('scale'); }
  set scale(value: string | null) { this.reflect('scale', value); }
  /** model-viewer leaves such a model out of AR and shadows; here it is read and reported, and still casts shadows. */
  get background(): boolean { return this.hasAttribute('background'); }
  set background(value: boolean) { this.toggleAttribute('background', Boolean(value)); }

  /**
   * Custom-element callback (the browser calls it): fires `extra-model-changed`, which bubbles to the viewer
   * so it reloads or re-places this model.
   */
  attributeChangedCallback(name: string, oldValue: string | null, newValue: string | null): void {
    if (oldValue === newValue) return;
    const detail: ExtraModelChangeDetail = {
      srcChanged: name === 'src', src: this.src, offset: this.offset, orientation: this.orientation, scale: this.scale, background: this.background,
    };
    this.dispatchEvent(new CustomEvent('extra-model-changed', { bubbles: true, composed: true, detail }));
  }

  private reflect(name: string, value: string | null): void {
    if (value === null || value === undefined) this.removeAttribute(name);
    else this.setAttribute(name, String(value));
  }
}

/** Registers `<extra-model>` (once: a page may hold two copies of the library). */
export function defineExtraModel(): void {
  if (typeof customElements !== 'undefined' && !customElements.get(EXTRA_MODEL_TAG)) customElements.define(EXTRA_MODEL_TAG, ExtraModelElement);
}

/**
 * The root node of the model at model-viewer's `modelIndex` (the element's own `src` is 0 and its
 * `<extra-model>`s follow; without a `src` the first `<extra-model>` is 0): what `data-joint` or
 * a hotspot's `data-model-index` rides on.
 */
export function extraModelRootName(modelIndex: number): string {
  return `extra-model ${modelIndex}`;
}

/** Per model-viewer's rule, the clips of the whole: every part's names in order, once; each plays its own clip of that name, or its first. */
export function extraModelClips(models: readonly Model[]): ComposedClip[] {
  const names: string[] = [];
  for (const model of models) {
    model.animations.forEach((clip, i) => {
      const name = clip.name ?? String(i);
      if (!names.includes(name)) names.push(name);
    });
  }
  return names.map((name) => ({
    name,
    sources: models.map((model) => {
      if (model.animations.length === 0) return -1;
      const named = model.animations.findIndex((clip, i) => (clip.name ?? String(i)) === name);
      return named >= 0 ? named : 0;
    }),
  }));
}

const translation = new Float64Array(3);
const rotation = new Float64Array(4);

/**
 * An extra model's placement from its attributes into the composed model's root at `slot`; a
 * malformed value warns and counts as absent (model-viewer ignores it).
 */
export function placeExtraModel(model: Model, slot: number, element: Pick<Element, 'getAttribute'>, warn: (message: string) => void): void {
  const offsetText = element.getAttribute('offset'), orientationText = element.getAttribute('orientation'), scaleText = element.getAttribute('scale');
  const offset = parseCameraTarget(offsetText), orientation = parseOrientation(orientationText), scale = parseScale(scaleText);
  if (!offset) warn(`<extra-model offset="${offsetText}"> is not "$x $y $z" (e.g. "1m 0 -20cm"); using 0 0 0`);
  if (!orientation) warn(`<extra-model orientation="${orientationText}"> is not "$roll $pitch $yaw"; using 0 0 0`);
  if (!scale) warn(`<extra-model scale="${scaleText}"> is not "$x $y $z" of non-zero numbers; using 1 1 1`);
  translation[0] = offset?.x ?? 0;
  translation[1] = offset?.y ?? 0;
  translation[2] = offset?.z ?? 0;
  orientationQuaternion(orientation ?? IDENTITY_ORIENTATION, rotation);
  setPartRoot(model, slot, translation, rotation, scale ?? UNIT_SCALE);
}

/** What the extra models need from their viewer. */
export interface ExtraModelsHost {
  readonly element: HTMLElement;
  /** The set of extra models changed: load again (the element's own source plus the new set). */
  reload(): void;
  /** An extra model of the shown composition moved (its root's rest transform was rewritten). */
  placed(): void;
  /** The model the element shows now. */
  shownModel(): Model | undefined;
  readonly warn: (message: string) => void;
}

/** One viewer's `<extra-model>` children: which to load with its source, composing them, and keeping them placed. */
export class ViewerExtraModels {
  /** The shown composition and the `<extra-model>` elements of its parts (null for the element's own source). */
  private shown: { readonly composed: ComposedModel; readonly elements: readonly (Element | null)[] } | undefined;
  /** `src`s of the `<extra-model>` children the last load was started with. */
  private loadedKey = '';
  private readonly observer: MutationObserver | undefined;
  private readonly onChange = (event: Event): void => this.changed(event);

  constructor(private readonly host: ExtraModelsHost) {
    this.observer = typeof MutationObserver === 'undefined' ? undefined : new MutationObserver(() => this.childrenChanged());
  }

  connect(): void {
    this.observer?.observe(this.host.element, { childList: true });
    this.host.element.addEventListener('extra-model-changed', this.onChange);
  }

  disconnect(): void {
    this.observer?.disconnect();
    this.host.element.removeEventListener('extra-model-changed', this.onChange);
  }

  /** The `<extra-model>` children with a `src`, in document order. */
  elements(): Element[] {
    return Array.from(this.host.element.children).filter((c) => c.localName === EXTRA_MODEL_TAG && (c.getAttribute('src') ?? '').trim() !== '');
  }

  /** The first extra model's `src`: what the element shows when it has no source of its own (model-viewer's hero). */
  firstSource(): string | undefined {
    return this.elements()[0]?.getAttribute('src')!.trim();
  }

  /**
   * Loads `own` (the element's own source, if any) and every extra model with `fetchOne`,
   * together, and composes them; without extra models, just `own`. `source` is what the
   * loader loads (own, else the first extra model's).
   */
  async load(own: string | undefined, source: string, fetchOne: (src: string, onProgress: (loaded: number, total: number) => void) => Promise<Model>,
    onProgress: (loaded: number, total: number) => void): Promise<Model> {
    const elements = this.elements();
    this.loadedKey = keyOf(elements);
    if (elements.length === 0) {
      this.shown = undefined;
      return fetchOne(source, onProgress);
    }
    const sources = [...(own === undefined ? [] : [own]), ...elements.map((e) => e.getAttribute('src')!.trim())];
    const progress = sumProgress(sources.length, onProgress);
    const models = await Promise.all(sources.map((src, i) => fetchOne(src, progress[i])));
    const parts = models.map((model, i) => (own !== undefined && i === 0 ? { model } : { model, root: extraModelRootName(i) }));
    const composed = composeModels(models.map((m) => m.name).join(' + '), parts, extraModelClips(models));
    const partElements = own === undefined ? elements : [null, ...elements];
    partElements.forEach((element, i) => { if (element) placeExtraModel(composed.model, composed.rootSlots[i], element, this.host.warn); });
    this.shown = { composed, elements: partElements };
    return composed.model;
  }

  /** Children were added or removed: load again if the set of extra models is not the one loaded. */
  private childrenChanged(): void {
    if (keyOf(this.elements()) !== this.loadedKey) this.host.reload();
  }

  private changed(event: Event): void {
    const target = event.target as Element;
    if (target.parentElement !== this.host.element || target.localName !== EXTRA_MODEL_TAG) return;
    if ((event as CustomEvent<ExtraModelChangeDetail>).detail.srcChanged) {
      this.childrenChanged();
      return;
    }
    const shown = this.shown;
    const part = shown ? shown.elements.indexOf(target) : -1;
    // A composition whose load lost to a newer one is not what is drawn.
    if (!shown || part < 0 || shown.composed.model !== this.host.shownModel()) return;
    placeExtraModel(shown.composed.model, shown.composed.rootSlots[part], target, this.host.warn);
    this.host.placed();
  }
}

function keyOf(elements: readonly Element[]): string {
  return JSON.stringify(elements.map((e) => e.getAttribute('src')!.trim()));
}

/** `count` progress callbacks whose bytes are reported to `onProgress` summed (loaded and announced totals). */
function sumProgress(count: number, onProgress: (loaded: number, total: number) => void): ((loaded: number, total: number) => void)[] {
  const loaded = new Float64Array(count), total = new Float64Array(count);
  return Array.from({ length: count }, (_, i) => (l: number, t: number) => {
    loaded[i] = l;
    total[i] = t;
    // A total is known only once every file announced its size.
    onProgress(loaded.reduce((a, b) => a + b, 0), total.includes(0) ? 0 : total.reduce((a, b) => a + b, 0));
  });
}
