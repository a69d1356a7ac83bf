/**
 * The attributes of `<skinned-mesh-viewer>` and `<extra-model>` as markup writes them, typed for
 * JSX (src/element/react.ts, preact.ts, solid.ts, vue.ts and svelte.ts put them into each
 * framework's element typings; any other framework's declarations can take the same interfaces).
 * Attributes are text in HTML: a number may be written as a number or a string, a boolean
 * attribute is present (`true`) or absent (`false`).
 * test/element/jsx-attributes.test.ts keeps the list equal to the elements' `observedAttributes`.
 */

/** A numeric attribute: `speed={1.5}` or `speed="1.5"`. */
export type NumberAttribute = number | string;

/**
 * The attributes of `<skinned-mesh-viewer>` as JSX and framework typings declare them
 * (`skinned-mesh-webgpu/react`, `/preact`, `/solid`, `/vue`, `/svelte`); the same names and kinds as
 * `observedAttributes`.
 */
export interface SkinnedMeshViewerAttributes {
  src?: string;
  builtin?: string;
  animation?: string;
  autoplay?: boolean;
  loop?: boolean;
  speed?: NumberAttribute;
  /** Seconds: `0.3`, `'0.3s'` or `'300ms'`. */
  'crossfade-duration'?: NumberAttribute;
  'camera-controls'?: boolean;
  'camera-orbit'?: string;
  exposure?: NumberAttribute;
  background?: string;
  skinning?: string;
  debug?: string;
  alt?: string;
  instances?: NumberAttribute;
  'crowd-evaluator'?: string;
  'root-motion'?: boolean;
  shadows?: boolean;
  'variant-name'?: string;
  'animation-src'?: string;
  poster?: string;
  reveal?: string;
  loading?: string;
  'animation-name'?: string;
  /** Milliseconds, as model-viewer's. */
  'animation-crossfade-duration'?: NumberAttribute;
  'with-credentials'?: boolean;
  'camera-target'?: string;
  'field-of-view'?: string;
  'min-field-of-view'?: string;
  'max-field-of-view'?: string;
  'min-camera-orbit'?: string;
  'max-camera-orbit'?: string;
  'interpolation-decay'?: NumberAttribute;
  'auto-rotate'?: boolean;
  'auto-rotate-delay'?: NumberAttribute;
  'rotation-per-second'?: string;
  'disable-zoom'?: boolean;
  'disable-pan'?: boolean;
  'disable-tap'?: boolean;
  'orbit-sensitivity'?: NumberAttribute;
  'zoom-sensitivity'?: NumberAttribute;
  'pan-sensitivity'?: NumberAttribute;
  'touch-action'?: string;
  'interaction-prompt'?: string;
  'interaction-prompt-style'?: string;
  orientation?: string;
  scale?: string;
  'interaction-prompt-threshold'?: NumberAttribute;
  'environment-image'?: string;
  'skybox-image'?: string;
  'tone-mapping'?: string;
  'shadow-intensity'?: NumberAttribute;
  'shadow-softness'?: NumberAttribute;
  expression?: string;
  'look-at'?: string;
  'auto-blink'?: boolean;
  'spring-bones'?: string;
  'vrm0-turn'?: string;
  /** A scale on MToon outlines' widths. */
  'outline-width'?: NumberAttribute;
  /** JSON: what the live region says for each side the camera views the model from. */
  a11y?: string;
}

/** The attributes of `<extra-model>` for JSX and framework typings. */
export interface ExtraModelAttributes {
  src?: string;
  offset?: string;
  orientation?: string;
  scale?: string;
  background?: string;
}
