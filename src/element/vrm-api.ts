import type { AnimationPlayer } from '../anim/player.ts';
import { ViewerVrm, type ViewerVrmHost } from './vrm-viewer.ts';

/**
 * The VRM methods of <skinned-mesh-viewer> (vrm-viewer.ts does the work): put on the element's
 * prototype by `defineVrmApi`, declared on its interface through `VrmElementApi`.
 */
export interface VrmElementApi {
  /** The shown VRM avatar's expression names (presets and custom); empty for other models. */
  readonly expressions: string[];
  /** Sets an expression's weight (0…1) over the `expression` attribute; null clears it. */
  setExpression(name: string, weight: number | null): void;
  /** Puts the spring bones' tails back at rest (after moving the model far, for one). */
  resetSpringBones(): void;
}

interface VrmElement {
  readonly player: AnimationPlayer | undefined;
}

const controls = new WeakMap<object, ViewerVrm>();

/** The element's VRM controls, made once per element. */
export function attachVrm(element: object, host: ViewerVrmHost): ViewerVrm {
  const vrm = new ViewerVrm(host);
  controls.set(element, vrm);
  return vrm;
}

/** Defines VrmElementApi on the element's prototype (the element class calls it once). */
export function defineVrmApi(prototype: object): void {
  const of = (element: VrmElement): ViewerVrm => {
    const vrm = controls.get(element);
    if (!vrm) throw new TypeError('not a <skinned-mesh-viewer>');
    return vrm;
  };
  Object.defineProperties(prototype, {
    expressions: { configurable: true, enumerable: true, get(this: VrmElement) { return of(this).expressionNames(this.player); } },
    setExpression: { configurable: true, writable: true, value(this: VrmElement, name: string, weight: number | null) { of(this).setExpression(this.player, String(name), weight); } },
    resetSpringBones: { configurable: true, writable: true, value(this: VrmElement) { of(this).resetSpringBones(this.player); } },
  });
}
