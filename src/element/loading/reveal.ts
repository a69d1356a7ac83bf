/**
 * When <skinned-mesh-viewer> fetches its model and when it takes its poster down, as
 * model-viewer's `loading` and `reveal` attributes say. Pure state, no DOM: the element
 * feeds it what happened (near the viewport, a frame drawn, dismissPoster() called) and
 * asks what to do; tested in Node.
 *
 *  - `loading="eager"` fetches at once; `lazy` once the element is near the viewport;
 *    `auto` (the default) is `lazy`, except that with `reveal="manual"` it waits for
 *    `dismissPoster()`.
 *  - `reveal="auto"` (the default) takes the poster down when the first frame of the model
 *    has been drawn; `manual` keeps it up until `dismissPoster()`.
 *  - `showPoster()` puts it back up over the model until the next `dismissPoster()`.
 */

export type LoadingMode = 'auto' | 'lazy' | 'eager';
export type RevealMode = 'auto' | 'manual';

export const LOADING_MODES: readonly LoadingMode[] = ['auto', 'lazy', 'eager'];
export const REVEAL_MODES: readonly RevealMode[] = ['auto', 'manual'];

/**
 * How far outside the viewport counts as "near" for lazy loading (an IntersectionObserver
 * root margin): half a viewport ahead, so a page scrolled at reading speed finds the model
 * drawn, not its poster.
 */
export const NEAR_VIEWPORT_MARGIN = '50% 0px';

/** `loading`: a known value (case-insensitive), absent → auto, anything else → undefined (the caller warns and uses auto). */
export function parseLoading(text: string | null | undefined): LoadingMode | undefined {
  if (text === null || text === undefined) return 'auto';
  const value = text.trim().toLowerCase();
  return (LOADING_MODES as readonly string[]).includes(value) ? (value as LoadingMode) : undefined;
}

/** `reveal`: as parseLoading. model-viewer 1.x's `interaction` is read as `manual`, its successor. */
export function parseReveal(text: string | null | undefined): RevealMode | undefined {
  if (text === null || text === undefined) return 'auto';
  const value = text.trim().toLowerCase();
  if (value === 'interaction') return 'manual';
  return (REVEAL_MODES as readonly string[]).includes(value) ? (value as RevealMode) : undefined;
}

export class RevealState {
  loading: LoadingMode = 'auto';
  reveal: RevealMode = 'auto';
  /** Set once the element has been near the viewport; stays set (a load, once allowed, is not taken back). */
  near = false;
  private dismissRequested = false;
  private posterUp = true;
  private drawn = false;

  /** Whether the model may be fetched now. */
  mayLoad(): boolean {
    if (this.loading === 'eager' || this.dismissRequested) return true;
    if (this.loading === 'auto' && this.reveal === 'manual') return false;
    return this.near;
  }

  /** Whether the near-viewport observer is still needed. */
  waitsForNear(): boolean {
    return !this.near && !this.mayLoad() && !(this.loading === 'auto' && this.reveal === 'manual');
  }

  /** The poster covers the model. */
  get posterShown(): boolean {
    return this.posterUp;
  }

  /** A frame of a model has been drawn since it loaded. */
  get modelDrawn(): boolean {
    return this.drawn;
  }

  /** The model visible to the user: drawn, not behind the poster, and the element on screen. */
  modelVisible(onScreen: boolean): boolean {
    return this.drawn && !this.posterUp && onScreen;
  }

  /** A new model was committed: nothing of it is drawn yet. */
  modelChanged(): void {
    this.drawn = false;
  }

  /** The model went away (cleared, failed). */
  modelCleared(): void {
    this.drawn = false;
  }

  /** A frame of the model was drawn. Returns true when the poster must come down now. */
  frameDrawn(): boolean {
    if (this.drawn) return false;
    this.drawn = true;
    return this.posterUp && (this.reveal === 'auto' || this.dismissRequested) ? this.takeDown() : false;
  }

  /**
   * dismissPoster(): takes the poster down now if a frame of the model is drawn (returns
   * true), else as soon as one is (and allows the load to start).
   */
  dismiss(): boolean {
    if (this.drawn) return this.posterUp ? this.takeDown() : false;
    this.dismissRequested = true;
    return false;
  }

  /** showPoster(): the poster goes back up until the next dismiss(). Returns true if it was down. */
  show(): boolean {
    this.dismissRequested = false;
    if (this.posterUp) return false;
    this.posterUp = true;
    // Auto reveal does not take it down again for this model; dismissPoster() does.
    return true;
  }

  private takeDown(): boolean {
    this.posterUp = false;
    this.dismissRequested = false;
    return true;
  }
}
