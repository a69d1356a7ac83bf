import { NEAR_VIEWPORT_MARGIN, parseLoading, parseReveal, RevealState, type LoadingMode, type RevealMode } from './reveal.ts';

/**
 * The poster of <skinned-mesh-viewer> and what decides when the model loads and shows
 * (RevealState), in the DOM: the default poster's image (`poster`), a slotted
 * `slot="poster"` element in its place, the canvas hidden while the poster is up, and an
 * IntersectionObserver that says when the element is near the viewport (lazy loading).
 */

export interface PosterHost {
  /** RevealState allows the load now (near the viewport, or dismissPoster()). */
  loadAllowed(): void;
  /** The poster came down (fires `poster-dismissed`). */
  dismissed(): void;
  /** The model's visibility to the user changed (fires `model-visibility`). */
  visibilityChanged(visible: boolean): void;
}

export class PosterView {
  readonly state = new RevealState();
  private readonly nearObserver: IntersectionObserver;
  private observing = false;
  /** Resolves `observed()`'s promise: at the near-viewport observer's first report, or when it stops. */
  private firstReport: (() => void) | undefined;
  private firstReported: Promise<void> | undefined;
  private onScreen = false;
  private reportedVisible = false;

  constructor(
    private readonly element: HTMLElement,
    /** Holds the slot and default poster; `hidden` while the poster is down. */
    private readonly container: HTMLElement,
    private readonly defaultPoster: HTMLElement,
    /** The shadow's container: `poster-up` hides the canvas. */
    private readonly stage: HTMLElement,
    private readonly host: PosterHost,
  ) {
    this.nearObserver = new IntersectionObserver((entries) => {
      if (entries[entries.length - 1].isIntersecting) {
        this.state.near = true;
        this.stopObserving();
        if (this.state.mayLoad()) this.host.loadAllowed();
      }
      this.settleFirstReport();
    }, { rootMargin: NEAR_VIEWPORT_MARGIN });
    this.sync();
  }

  /** `poster` changed: the default poster shows this image URL (resolved against the document), or none. */
  setImage(url: string | null): void {
    const text = url?.trim();
    this.defaultPoster.style.backgroundImage = text ? `url(${JSON.stringify(new URL(text, document.baseURI).href)})` : '';
  }

  /** `loading` and `reveal` as the attributes say (unknown values warn and mean `auto`). */
  readModes(loadingText: string | null, revealText: string | null, warn: (message: string) => void): void {
    const loading = parseLoading(loadingText), reveal = parseReveal(revealText);
    if (!loading) warn(`loading="${loadingText}" is not auto, lazy or eager; using auto`);
    if (!reveal) warn(`reveal="${revealText}" is not auto or manual; using auto`);
    this.setModes(loading ?? 'auto', reveal ?? 'auto');
  }

  setModes(loading: LoadingMode, reveal: RevealMode): void {
    const could = this.state.mayLoad();
    this.state.loading = loading;
    this.state.reveal = reveal;
    if (!could && this.state.mayLoad()) this.host.loadAllowed();
    if (this.element.isConnected) this.observeIfNeeded();
  }

  /**
   * Resolves once the near-viewport observer has first reported (the load has started then if the
   * element is near), or at once when the load does not wait for it. The element takes up its GPU
   * device (asked for at connection) and starts `neutral`'s CPU prefilter after this, so that the
   * model's fetch is on its way first.
   */
  observed(): Promise<void> {
    if (!this.observing) return Promise.resolve();
    this.firstReported ??= new Promise((done) => { this.firstReport = done; });
    return this.firstReported;
  }

  private settleFirstReport(): void {
    const settle = this.firstReport;
    this.firstReport = undefined;
    this.firstReported = undefined;
    settle?.();
  }

  /** Inserted in the page: watch for the viewport if the load waits for it. */
  attach(): void {
    this.observeIfNeeded();
  }

  detach(): void {
    this.stopObserving();
    this.setOnScreen(false);
  }

  setOnScreen(onScreen: boolean): void {
    this.onScreen = onScreen;
    this.report();
  }

  /** After every drawn frame; allocates nothing (the first frame of a model is the only news). */
  frameDrawn(): void {
    if (this.state.modelDrawn) return;
    if (this.state.frameDrawn()) this.takeDown();
    else this.report();
  }

  modelChanged(): void {
    this.state.modelChanged();
    this.report();
  }

  modelCleared(): void {
    this.state.modelCleared();
    this.report();
  }

  dismiss(): void {
    const could = this.state.mayLoad();
    if (this.state.dismiss()) this.takeDown();
    else if (!could && this.state.mayLoad()) this.host.loadAllowed();
  }

  show(): void {
    if (!this.state.show()) return;
    this.sync();
    this.report();
  }

  private takeDown(): void {
    this.sync();
    this.report();
    this.host.dismissed();
  }

  private sync(): void {
    const up = this.state.posterShown;
    this.container.hidden = !up;
    this.stage.classList.toggle('poster-up', up);
  }

  private report(): void {
    const visible = this.state.modelVisible(this.onScreen);
    if (visible === this.reportedVisible) return;
    this.reportedVisible = visible;
    this.host.visibilityChanged(visible);
  }

  private observeIfNeeded(): void {
    if (this.observing || !this.state.waitsForNear()) return;
    this.observing = true;
    this.nearObserver.observe(this.element);
  }

  private stopObserving(): void {
    if (!this.observing) return;
    this.observing = false;
    this.nearObserver.disconnect();
    this.settleFirstReport();
  }
}
