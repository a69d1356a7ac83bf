import { DEFAULT_SKINNING } from '../anim/skinning-method.ts';
import { parseNumber, parseSeconds } from './attributes.ts';
import { clampInstances, DEFAULT_CROWD_EVALUATOR } from './stage.ts';

/**
 * <skinned-mesh-viewer>'s attributes and the properties that reflect them, as one table:
 * `observedAttributes`, the property accessors, the upgrade of properties set before the
 * element was defined, and what `attributeChangedCallback` does all come from it. The
 * attribute is the single source of truth; a property only reads or writes it.
 */

/** Defaults of the numeric attributes. */
export const DEFAULT_SPEED = 1;
/** The `exposure` an element without the attribute renders with. */
export const DEFAULT_EXPOSURE = 1;
/** Seconds; model-viewer's `animation-crossfade-duration` default (300 ms). */
export const DEFAULT_CROSSFADE = 0.3;
/** model-viewer's `interpolation-decay` and `auto-rotate-delay` defaults, milliseconds. */
export const DEFAULT_INTERPOLATION_DECAY_MS = 50;
export const DEFAULT_AUTO_ROTATE_DELAY_MS = 3000;

/**
 * How a property reads its attribute, and writes it:
 *  - `string`: the text, or the default when absent; null/undefined removes it, anything else is stringified;
 *  - `boolean`: whether it is present; setting adds or removes it;
 *  - `number`: a finite number, else the default;
 *  - `seconds`: `0.3`, `0.3s` or `300ms`, else the default;
 *  - `count`: a number floored and clamped to 1…MAX_GPU_INSTANCES (stage.ts), else the default.
 * The last three write `String(value)`.
 */
export type AttributeKind = 'string' | 'boolean' | 'number' | 'seconds' | 'count';

/** What the element does when an attribute changes; several attributes may share one. */
export type AttributeReaction =
  | 'reload' | 'clip' | 'autoplay' | 'loop' | 'speed' | 'controls' | 'frame' | 'settings' | 'background'
  | 'skinning' | 'debug' | 'label' | 'crowd' | 'root-motion' | 'variant' | 'animation-src' | 'poster' | 'reveal'
  | 'camera-target' | 'field-of-view' | 'field-of-view-limits' | 'orbit-limits' | 'camera-motion' | 'interaction' | 'model-transform'
  | 'lighting' | 'vrm'
  /** Read where it is used (a clip change reads `crossfade-duration`). */
  | 'none';

export interface ReflectedAttribute {
  readonly attribute: string;
  readonly property: keyof ReflectedProperties;
  readonly kind: AttributeKind;
  /** What the property reads while the attribute is absent (or, for numbers, malformed). */
  readonly fallback: string | number | boolean | null;
  readonly reaction: AttributeReaction;
}

/** In `observedAttributes` order. */
export const REFLECTED_ATTRIBUTES: readonly ReflectedAttribute[] = [
  { attribute: 'src', property: 'src', kind: 'string', fallback: null, reaction: 'reload' },
  { attribute: 'builtin', property: 'builtin', kind: 'string', fallback: null, reaction: 'reload' },
  { attribute: 'animation', property: 'animation', kind: 'string', fallback: null, reaction: 'clip' },
  { attribute: 'autoplay', property: 'autoplay', kind: 'boolean', fallback: false, reaction: 'autoplay' },
  { attribute: 'loop', property: 'loop', kind: 'boolean', fallback: false, reaction: 'loop' },
  { attribute: 'speed', property: 'speed', kind: 'number', fallback: DEFAULT_SPEED, reaction: 'speed' },
  { attribute: 'crossfade-duration', property: 'crossfadeDuration', kind: 'seconds', fallback: DEFAULT_CROSSFADE, reaction: 'none' },
  { attribute: 'camera-controls', property: 'cameraControls', kind: 'boolean', fallback: false, reaction: 'controls' },
  { attribute: 'camera-orbit', property: 'cameraOrbit', kind: 'string', fallback: null, reaction: 'frame' },
  { attribute: 'exposure', property: 'exposure', kind: 'number', fallback: DEFAULT_EXPOSURE, reaction: 'settings' },
  { attribute: 'background', property: 'background', kind: 'string', fallback: null, reaction: 'background' },
  { attribute: 'skinning', property: 'skinning', kind: 'string', fallback: DEFAULT_SKINNING, reaction: 'skinning' },
  { attribute: 'debug', property: 'debug', kind: 'string', fallback: null, reaction: 'debug' },
  { attribute: 'alt', property: 'alt', kind: 'string', fallback: null, reaction: 'label' },
  { attribute: 'instances', property: 'instances', kind: 'count', fallback: 1, reaction: 'crowd' },
  { attribute: 'crowd-evaluator', property: 'crowdEvaluator', kind: 'string', fallback: DEFAULT_CROWD_EVALUATOR, reaction: 'crowd' },
  { attribute: 'root-motion', property: 'rootMotion', kind: 'boolean', fallback: false, reaction: 'root-motion' },
  { attribute: 'shadows', property: 'shadows', kind: 'boolean', fallback: false, reaction: 'settings' },
  { attribute: 'variant-name', property: 'variantName', kind: 'string', fallback: null, reaction: 'variant' },
  { attribute: 'animation-src', property: 'animationSrc', kind: 'string', fallback: null, reaction: 'animation-src' },
  { attribute: 'poster', property: 'poster', kind: 'string', fallback: null, reaction: 'poster' },
  { attribute: 'reveal', property: 'reveal', kind: 'string', fallback: 'auto', reaction: 'reveal' },
  { attribute: 'loading', property: 'loading', kind: 'string', fallback: 'auto', reaction: 'reveal' },
  { attribute: 'animation-name', property: 'animationName', kind: 'string', fallback: null, reaction: 'clip' },
  { attribute: 'animation-crossfade-duration', property: 'animationCrossfadeDuration', kind: 'number', fallback: DEFAULT_CROSSFADE * 1000, reaction: 'none' },
  { attribute: 'with-credentials', property: 'withCredentials', kind: 'boolean', fallback: false, reaction: 'none' },
  { attribute: 'camera-target', property: 'cameraTarget', kind: 'string', fallback: null, reaction: 'camera-target' },
  { attribute: 'field-of-view', property: 'fieldOfView', kind: 'string', fallback: null, reaction: 'field-of-view' },
  { attribute: 'min-field-of-view', property: 'minFieldOfView', kind: 'string', fallback: null, reaction: 'field-of-view-limits' },
  { attribute: 'max-field-of-view', property: 'maxFieldOfView', kind: 'string', fallback: null, reaction: 'field-of-view-limits' },
  { attribute: 'min-camera-orbit', property: 'minCameraOrbit', kind: 'string', fallback: null, reaction: 'orbit-limits' },
  { attribute: 'max-camera-orbit', property: 'maxCameraOrbit', kind: 'string', fallback: null, reaction: 'orbit-limits' },
  { attribute: 'interpolation-decay', property: 'interpolationDecay', kind: 'number', fallback: DEFAULT_INTERPOLATION_DECAY_MS, reaction: 'camera-motion' },
  { attribute: 'auto-rotate', property: 'autoRotate', kind: 'boolean', fallback: false, reaction: 'camera-motion' },
  { attribute: 'auto-rotate-delay', property: 'autoRotateDelay', kind: 'number', fallback: DEFAULT_AUTO_ROTATE_DELAY_MS, reaction: 'camera-motion' },
  { attribute: 'rotation-per-second', property: 'rotationPerSecond', kind: 'string', fallback: null, reaction: 'camera-motion' },
  { attribute: 'disable-zoom', property: 'disableZoom', kind: 'boolean', fallback: false, reaction: 'interaction' },
  { attribute: 'disable-pan', property: 'disablePan', kind: 'boolean', fallback: false, reaction: 'interaction' },
  { attribute: 'disable-tap', property: 'disableTap', kind: 'boolean', fallback: false, reaction: 'interaction' },
  { attribute: 'orbit-sensitivity', property: 'orbitSensitivity', kind: 'number', fallback: 1, reaction: 'interaction' },
  { attribute: 'zoom-sensitivity', property: 'zoomSensitivity', kind: 'number', fallback: 1, reaction: 'interaction' },
  { attribute: 'pan-sensitivity', property: 'panSensitivity', kind: 'number', fallback: 1, reaction: 'interaction' },
  { attribute: 'touch-action', property: 'touchAction', kind: 'string', fallback: 'none', reaction: 'interaction' },
  { attribute: 'interaction-prompt', property: 'interactionPrompt', kind: 'string', fallback: 'auto', reaction: 'none' },
  { attribute: 'interaction-prompt-style', property: 'interactionPromptStyle', kind: 'string', fallback: 'wiggle', reaction: 'none' },
  { attribute: 'orientation', property: 'orientation', kind: 'string', fallback: null, reaction: 'model-transform' },
  { attribute: 'scale', property: 'scale', kind: 'string', fallback: null, reaction: 'model-transform' },
  { attribute: 'interaction-prompt-threshold', property: 'interactionPromptThreshold', kind: 'number', fallback: 3000, reaction: 'none' },
  { attribute: 'environment-image', property: 'environmentImage', kind: 'string', fallback: null, reaction: 'lighting' },
  { attribute: 'skybox-image', property: 'skyboxImage', kind: 'string', fallback: null, reaction: 'lighting' },
  { attribute: 'tone-mapping', property: 'toneMapping', kind: 'string', fallback: 'neutral', reaction: 'lighting' },
  { attribute: 'shadow-intensity', property: 'shadowIntensity', kind: 'number', fallback: 0, reaction: 'lighting' },
  { attribute: 'shadow-softness', property: 'shadowSoftness', kind: 'number', fallback: 1, reaction: 'lighting' },
  { attribute: 'expression', property: 'expression', kind: 'string', fallback: null, reaction: 'vrm' },
  { attribute: 'look-at', property: 'lookAt', kind: 'string', fallback: null, reaction: 'vrm' },
  { attribute: 'auto-blink', property: 'autoBlink', kind: 'boolean', fallback: false, reaction: 'vrm' },
  { attribute: 'spring-bones', property: 'springBones', kind: 'string', fallback: 'on', reaction: 'vrm' },
  { attribute: 'vrm0-turn', property: 'vrm0Turn', kind: 'string', fallback: 'on', reaction: 'vrm' },
  { attribute: 'outline-width', property: 'outlineWidth', kind: 'number', fallback: 1, reaction: 'settings' },
];

const BY_ATTRIBUTE: ReadonlyMap<string, ReflectedAttribute> = new Map(REFLECTED_ATTRIBUTES.map((row) => [row.attribute, row]));

/** The table's row for an observed attribute. */
export function reflectedAttribute(name: string): ReflectedAttribute | undefined {
  return BY_ATTRIBUTE.get(name);
}

/** The part of an Element the accessors use (a stand-in in Node tests). */
export type AttributeHost = Pick<Element, 'getAttribute' | 'setAttribute' | 'removeAttribute' | 'hasAttribute' | 'toggleAttribute'>;

/** A property's value, read from its attribute. */
export function readReflected(host: AttributeHost, row: ReflectedAttribute): unknown {
  const name = row.attribute;
  switch (row.kind) {
    case 'boolean': return host.hasAttribute(name);
    case 'string': return host.getAttribute(name) ?? row.fallback;
    case 'number': return parseNumber(host.getAttribute(name)) ?? row.fallback;
    case 'seconds': return parseSeconds(host.getAttribute(name)) ?? row.fallback;
    case 'count': {
      const n = parseNumber(host.getAttribute(name));
      return n === undefined ? row.fallback : clampInstances(n);
    }
  }
}

/** Sets or removes a property's attribute. */
export function writeReflected(host: AttributeHost, row: ReflectedAttribute, value: unknown): void {
  const name = row.attribute;
  if (row.kind === 'boolean') host.toggleAttribute(name, Boolean(value));
  else if (row.kind === 'string' && (value === null || value === undefined)) host.removeAttribute(name);
  else host.setAttribute(name, String(value));
}

/**
 * Puts an accessor for every row on `prototype`, shaped as a class's own accessors are
 * (configurable, not enumerable). Their types are `ReflectedProperties`.
 */
export function defineReflectedProperties(prototype: object): void {
  for (const row of REFLECTED_ATTRIBUTES) {
    Object.defineProperty(prototype, row.property, {
      configurable: true,
      enumerable: false,
      get(this: AttributeHost): unknown { return readReflected(this, row); },
      set(this: AttributeHost, value: unknown): void { writeReflected(this, row, value); },
    });
  }
}

/**
 * The reflected properties as TypeScript users see them on SkinnedMeshViewerElement
 * (which extends this interface); a test checks it names exactly the table's properties.
 */
export interface ReflectedProperties {
  /** URL of a .glb or .gltf file, or `builtin:NAME` for a procedural model. */
  src: string | null;
  /** A built-in procedural model (`character`, `limb`, `twist-cylinder`), shown when `src` is not set. */
  builtin: string | null;
  /** The clip to play: a name, or an index. Unset: the first clip. */
  get animation(): string | null;
  set animation(value: string | number | null);
  autoplay: boolean;
  /** Acts when it changes: set, the playing clip repeats for ever; removed, its pass under way is its last (play() alone repeats for ever). */
  loop: boolean;
  /** Playback rate (negative plays backwards); default 1. */
  speed: number;
  /** Seconds over which a change of `animation` blends while playing; default 0.3. Attribute accepts `0.3`, `0.3s`, `300ms`. */
  crossfadeDuration: number;
  cameraControls: boolean;
  /** `$theta $phi $radius` as in model-viewer (`30deg 75deg 2.5m`, radians, `auto`, `%`). */
  cameraOrbit: string | null;
  /** Multiplies scene radiance before tone mapping; default 1. */
  exposure: number;
  /** A CSS colour behind the model, or `transparent` (the default: the page shows through). */
  background: string | null;
  /** `linear` (default) or `dual-quaternion`; unsupported values warn and fall back to linear. */
  get skinning(): string;
  set skinning(value: string | null);
  /** Space-separated debug views: `skeleton normals tangents weights wireframe bounds`. */
  debug: string | null;
  /** Accessible description of the model. */
  alt: string | null;
  /**
   * `instances="N"`: draws a crowd of N copies of the model on a grid, all playing
   * the current clip, each from its own phase at a slightly different speed; one instanced
   * draw per primitive. 1…100,000 when the crowd is evaluated on the GPU, else 1…4096. Default 1.
   */
  instances: number;
  /**
   * `crowd-evaluator`: where a crowd's poses are evaluated — `cpu`, `gpu` (with bounds, culling
   * and indirect draws on the GPU too) or `auto` (the default: the GPU above a measured crowd
   * size, when there is one). Anything else warns and means `auto`.
   */
  crowdEvaluator: string;
  /**
   * `root-motion`: clips whose root travels (the built-in Walk) move the character through
   * the scene — one character walks a circle around the origin, a crowd walks and wraps
   * around its grid. Without it they play in place.
   */
  rootMotion: boolean;
  /** The key light casts shadows, on the model and a ground disc under it (RenderSettings.shadows and .ground; off unless present). */
  shadows: boolean;
  /**
   * The KHR_materials_variants variant to draw (a name from `availableVariants`), as
   * model-viewer's `variant-name`: null/absent draws the file's own materials; an unknown
   * name changes nothing (with a warning). `variant-applied` fires once a change shows.
   */
  variantName: string | null;
  /**
   * Space-separated URLs of glTF clip libraries (`walk.glb dance.glb`, resolved like `src`): their
   * clips are retargeted onto the model when it loads and appended to `animations`; a clashing
   * name gets its file's name in front (`dance.glb/Idle`). A file that fails is skipped with a warning.
   */
  animationSrc: string | null;
  /** An image URL shown until the model is revealed (model-viewer's `poster`); `--poster-color` paints behind it. */
  poster: string | null;
  /** `auto` (default): the poster comes down with the model's first frame; `manual`: at `dismissPoster()`. */
  get reveal(): string;
  set reveal(value: string | null);
  /** `auto` (default) and `lazy`: fetch when near the viewport (`auto` with `reveal="manual"`: at `dismissPoster()`); `eager`: at once. */
  get loading(): string;
  set loading(value: string | null);
  /** model-viewer's name for `animation` (it wins when both are set); crossfadeTo writes the one in use. */
  animationName: string | null;
  /** model-viewer's name for `crossfade-duration`, in milliseconds (default 300); it wins when both are set. */
  animationCrossfadeDuration: number;
  /** Fetches send cookies and HTTP authentication cross-origin (`credentials: 'include'`). */
  withCredentials: boolean;
  /** `$x $y $z` (m, cm, mm; `auto` terms: the framed box's centre): what the camera orbits and looks at. */
  cameraTarget: string | null;
  /**
   * Vertical field of view (`30deg`, rad; `auto`: 30°), clamped to `min-`/`max-field-of-view` (auto: 12°, 30°, as
   * model-viewer 4.4); an element narrower than the framed model widens it and its maximum. Setting a limit puts
   * the camera inside it at once.
   */
  fieldOfView: string | null;
  minFieldOfView: string | null;
  maxFieldOfView: string | null;
  /**
   * Limits of the orbit in `camera-orbit` syntax; `auto` terms: theta open, phi 22.5°…157.5°, radius 0.1×…10× the
   * `camera-orbit` one. Setting one puts the camera inside it at once (no easing), as model-viewer 4.4 does.
   */
  minCameraOrbit: string | null;
  maxCameraOrbit: string | null;
  /** Milliseconds over which the camera eases to a new goal (default 50; 0 jumps). */
  interpolationDecay: number;
  /** Turns the model on a turntable after `auto-rotate-delay` ms without interaction (the camera stays). */
  autoRotate: boolean;
  /** Milliseconds (default 3000). */
  autoRotateDelay: number;
  /** Angle per second of `auto-rotate` (`30deg`, negative the other way, or `-100%` of the default; default π/32 rad, model-viewer 4.4's). */
  rotationPerSecond: string | null;
  disableZoom: boolean;
  disablePan: boolean;
  /** No double click/tap to put a panned target back. */
  disableTap: boolean;
  orbitSensitivity: number;
  zoomSensitivity: number;
  panSensitivity: number;
  /** `none` (default, model-viewer 4.4's: every touch orbits), `pan-y` (vertical swipes scroll the page) or `pan-x`. */
  get touchAction(): string;
  set touchAction(value: string | null);
  /** `auto` (default): with camera-controls, a prompt shows after `interaction-prompt-threshold` ms without interaction; `none`. */
  get interactionPrompt(): string;
  set interactionPrompt(value: string | null);
  /** Milliseconds (default 3000). */
  interactionPromptThreshold: number;
  /** `wiggle` (default: the hand moves side to side) or `basic` (it stands still). */
  get interactionPromptStyle(): string;
  set interactionPromptStyle(value: string | null);
  /** `$roll $pitch $yaw` (deg, rad): turns the model about its origin (Z, then X, then Y); `updateFraming()` frames it again. */
  orientation: string | null;
  /** `$x $y $z` (or one number): scales the model about its origin; `updateFraming()` frames it again. */
  scale: string | null;
  /**
   * What lights the model (src/element/lighting.ts), as model-viewer's `environment-image`: the
   * URL of an equirectangular `.hdr` (Radiance RGBE) or `.jpg`/`.png`/`.webp` image; `neutral`
   * (absent: the default) a soft studio generated in code; `legacy` the key light and hemisphere.
   */
  environmentImage: string | null;
  /** An equirectangular image URL shown behind the model; it also lights the model unless `environment-image` is set. */
  skyboxImage: string | null;
  /** `neutral` (default, Khronos PBR Neutral), `aces`, `agx` or `none`; model-viewer's other values map to the nearest. */
  toneMapping: string;
  /** 0…1: the soft ground shadow under the model, cast from the environment's dominant direction; default 0 (none). */
  shadowIntensity: number;
  /** 0…1: how soft that shadow's edge is; default 1. */
  shadowSoftness: number;
  /** VRM expression weights, `"happy:1 blink:0.5"` (a name alone is weight 1); setExpression() overrides them. */
  expression: string | null;
  /** Where a VRM avatar looks: `camera`, a point `"x y z"` in metres, or `none`/unset (its clip decides). */
  lookAt: string | null;
  /** A VRM avatar blinks by itself every 2–5 s. */
  autoBlink: boolean;
  /** `off` stops a VRM avatar's spring bones (hair and clothes hang as the clip poses them); default `on`. */
  springBones: string;
  /** `off` draws a VRM 0.x avatar as the file has it (facing −Z); by default it is turned to face the camera, as three-vrm's examples do. */
  vrm0Turn: string;
  /**
   * Multiplies the width of every MToon outline (VRM avatars): 1 (default) as the file says,
   * 0.5 half as wide, 0 none. A negative or malformed value warns and draws them as authored.
   */
  outlineWidth: number;
}
