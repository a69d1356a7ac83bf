import { A11Y_MARKUP, A11Y_STYLES } from './a11y.ts';

/**
 * The element's shadow DOM: a canvas, a progress bar (model-viewer's `progress-bar` slot, the
 * default bar as its fallback) and a message area, and what the element does with them (ViewerShadow). Sizes default to
 * 300×150 like <model-viewer> (and <canvas>); page CSS on the element overrides them.
 * Colours come from custom properties with fallbacks at the point of use, so values set
 * on any ancestor inherit into every viewer.
 */

// A load of unknown length shows a still bar that starts sliding only after a second (`.progress.indeterminate`):
// every moving frame is drawn by the compositor, work that a CPU-rendered browser (SwiftShader) takes from the load
// itself, and a quick load has nothing to show moving.
export const STYLES = `
:host {
  display: block;
  position: relative;
  width: 300px;
  height: 150px;
  contain: layout paint;
}
:host([hidden]) { display: none; }
.container { position: absolute; inset: 0; overflow: hidden; }
canvas { display: block; width: 100%; height: 100%; }
/* Hidden while there is nothing to show; visibility (not display) keeps it measurable. */
canvas.empty { visibility: hidden; }
/* Behind the poster the canvas draws (its first frame is ready when the poster goes) but is not seen. */
.container.poster-up canvas { opacity: 0; }
.poster-container { position: absolute; inset: 0; pointer-events: none; }
.poster-container[hidden] { display: none; }
.poster {
  position: absolute; inset: 0;
  background-color: var(--poster-color, transparent);
  background-position: center; background-repeat: no-repeat; background-size: contain;
}
::slotted([slot="poster"]) { position: absolute; inset: 0; pointer-events: auto; }
/* model-viewer's pan target: a marker at the pivot while a pointer pans (a slot="pan-target" element replaces it). */
.pan-target {
  position: absolute; left: 50%; top: 50%; transform: translate(-50%, -50%);
  pointer-events: none; opacity: 0; transition: opacity 0.3s;
}
.pan-target.panning { opacity: 1; }
/* interact()'s fingers: moved to each finger's point, shown while it touches. */
.finger { position: absolute; left: 0; top: 0; pointer-events: none; opacity: 0; transition: opacity 0.3s; }
.default-pan-target { width: 6px; height: 6px; border-radius: 6px; border: 1px solid white; box-shadow: 0 0 2px 1px rgba(0, 0, 0, 0.8); }
.interaction-prompt {
  /* model-viewer's custom property: a page can keep the prompt off (none) while it still "shows". */
  display: var(--interaction-prompt-display, block);
  position: absolute; left: 50%; top: 50%; pointer-events: none;
  transform: translate(-50%, -50%);
}
.interaction-prompt[hidden] { display: none; }
.hand {
  width: 36px; height: 36px; border-radius: 50%;
  background: var(--interaction-prompt-color, rgba(255, 255, 255, 0.9));
  box-shadow: 0 1px 4px rgba(0, 0, 0, 0.35);
  animation: smv-wiggle 2.4s ease-in-out infinite;
}
@keyframes smv-wiggle { 0%, 100% { translate: 0 0; } 25% { translate: -40px 0; } 75% { translate: 40px 0; } }
@media (prefers-reduced-motion: reduce) { .hand { animation: none; } }
:host([interaction-prompt-style="basic"]) .hand { animation: none; }
:host([camera-controls]) canvas { touch-action: none; cursor: grab; user-select: none; -webkit-user-select: none; }
:host([camera-controls]) canvas:active { cursor: grabbing; }
/* A slot="progress-bar" element replaces the default bar and is always laid out over the model, as in
   <model-viewer>: the page shows, updates and hides it from the progress events. */
.progress-slot { position: absolute; inset: 0; pointer-events: none; }
.progress {
  position: absolute; top: 0; left: 0; right: 0;
  height: var(--progress-bar-height, 5px);
  overflow: hidden; pointer-events: none;
}
.progress[hidden], .message[hidden] { display: none; }
.bar {
  height: 100%;
  background: var(--progress-bar-color, rgba(0, 0, 0, 0.4));
  transform-origin: left;
  transform: scaleX(0);
  transition: transform 0.1s linear;
}
.progress.indeterminate .bar { width: 30%; transform: none; animation: smv-slide 1.2s ease-in-out 1s infinite; }
@keyframes smv-slide { from { translate: -100% 0; } to { translate: 340% 0; } }
@media (prefers-reduced-motion: reduce) {
  .bar { transition: none; }
  .progress.indeterminate .bar { animation: none; width: 100%; opacity: 0.5; }
}
.message {
  position: absolute; inset: 0;
  display: flex; align-items: center; justify-content: center;
  box-sizing: border-box; padding: 12px;
  overflow: auto; overflow-wrap: anywhere; text-align: center; white-space: pre-line;
  font: 13px/1.4 system-ui, sans-serif;
  color: var(--message-color, #3c4043);
  background: var(--message-background, #f1f3f4);
}
${A11Y_STYLES}`;

export const MARKUP = `
<div class="container">
  <canvas part="canvas" class="empty"></canvas>
  <div class="poster-container"><slot name="poster"><div class="poster" part="default-poster" role="img" aria-hidden="true"></div></slot></div>
  <div class="pan-target"><slot name="pan-target"><div class="default-pan-target" part="default-pan-target"></div></slot></div>
  <div class="finger"><slot name="finger0"></slot></div><div class="finger"><slot name="finger1"></slot></div>
  <div class="interaction-prompt" hidden><slot name="interaction-prompt"><div class="hand" part="default-interaction-prompt" aria-hidden="true"></div></slot></div>
  <div class="progress-slot"><slot name="progress-bar"><div class="progress" part="progress-bar default-progress-bar" role="progressbar" aria-label="Loading model" aria-valuemin="0" aria-valuemax="100" hidden><div class="bar"></div></div></slot></div>
  <div class="message" part="message" role="alert" hidden></div>
  <slot></slot>
</div>
${A11Y_MARKUP}
`;

let sharedSheet: CSSStyleSheet | undefined;

/** Fills a new shadow root; every viewer adopts the one constructed stylesheet where supported. */
function renderShadow(root: ShadowRoot): void {
  if (typeof CSSStyleSheet === 'function' && 'adoptedStyleSheets' in root && 'replaceSync' in CSSStyleSheet.prototype) {
    if (!sharedSheet) {
      sharedSheet = new CSSStyleSheet();
      sharedSheet.replaceSync(STYLES);
    }
    root.adoptedStyleSheets = [sharedSheet];
    root.innerHTML = MARKUP;
  } else {
    root.innerHTML = `<style>${STYLES}</style>${MARKUP}`;
  }
}

/** A viewer's rendered shadow root: the canvas it draws into, its progress bar and message. */
export class ViewerShadow {
  readonly canvas: HTMLCanvasElement;
  /** Holds the canvas, the poster and the overlays. */
  readonly container: HTMLElement;
  /** Holds the `slot="poster"` slot and, as its fallback, the default poster. */
  readonly posterContainer: HTMLElement;
  /** The default poster: the `poster` image over `--poster-color`. */
  readonly defaultPoster: HTMLElement;
  /** Holds the `slot="interaction-prompt"` slot and, as its fallback, the default prompt. */
  readonly interactionPrompt: HTMLElement;
  /** Holds the `slot="pan-target"` slot and, as its fallback, the default marker (class `panning` shows it). */
  readonly panTarget: HTMLElement;
  /** Hold the `finger0` and `finger1` slots (interact()). */
  readonly fingers: readonly HTMLElement[];
  /** The live region's role="status" element (a11y.ts). */
  readonly status: HTMLElement;
  private readonly progress: HTMLElement;
  private readonly bar: HTMLElement;
  private readonly message: HTMLElement;

  constructor(root: ShadowRoot) {
    renderShadow(root);
    this.canvas = root.querySelector('canvas')!;
    this.container = root.querySelector('.container')!;
    this.posterContainer = root.querySelector('.poster-container')!;
    this.defaultPoster = root.querySelector('.poster')!;
    this.interactionPrompt = root.querySelector('.interaction-prompt')!;
    this.panTarget = root.querySelector('.pan-target')!;
    this.fingers = Array.from(root.querySelectorAll<HTMLElement>('.finger'));
    this.status = root.querySelector('[role="status"]')!;
    this.progress = root.querySelector('.progress')!;
    this.bar = root.querySelector('.bar')!;
    this.message = root.querySelector('.message')!;
    this.canvas.setAttribute('role', 'img');
  }

  /** Shows the bar at `loaded / total`, or sliding while `total` is 0 (unknown). */
  setProgress(loaded: number, total: number): void {
    const known = total > 0;
    const fraction = known ? Math.min(1, loaded / total) : 0;
    this.progress.hidden = false;
    this.progress.classList.toggle('indeterminate', !known);
    this.bar.style.transform = known ? `scaleX(${fraction})` : '';
    if (known) this.progress.setAttribute('aria-valuenow', String(Math.round(fraction * 100)));
    else this.progress.removeAttribute('aria-valuenow');
  }

  hideProgress(): void {
    this.progress.hidden = true;
  }

  /** Shows `text` over the canvas; undefined hides the message. */
  showMessage(text: string | undefined): void {
    this.message.textContent = text ?? '';
    this.message.hidden = text === undefined;
  }
}
