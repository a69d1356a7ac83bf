/**
 * The element's hotspots, model-viewer style: children with `slot="hotspot-…"` are shown
 * over the canvas at a point of the model, through a named slot in a positioned wrapper in
 * the shadow DOM; `data-position` / `data-normal` ("x y z", metres or m/cm/mm, in the
 * model's coordinates) as model-viewer reads them. Beyond it, `data-joint="Hand.L"` makes a
 * hotspot ride on a joint as it animates, `data-offset` moving it in the joint's own frame
 * (and `data-normal`, when given, is in that frame too).
 *
 * A hotspot is visible when it is in front of the camera, its normal (if any) faces the
 * camera, and no skinned surface hides it (hotspots/placement.ts says why on the CPU). A
 * visible hotspot's elements get `data-visible` (or `data-NAME` with
 * `data-visibility-attribute="NAME"`, as in model-viewer) and show at `--max-hotspot-opacity`
 * (default 1); a hidden one fades to `--min-hotspot-opacity` (default 0.25) and ignores the pointer; each change fires
 * `hotspot-visibility` ({visible}) on the hotspot element.
 *
 * Per frame (`drawn`, after each frame the element draws) nothing is allocated: positions
 * go through preallocated arrays, and transforms through CSS Typed OM objects made once per
 * hotspot (a string only where the browser has no Typed OM); the DOM is written only when
 * a value changed. Adding, removing or editing hotspot children rescans (a MutationObserver).
 *
 * The ray caster and the humanoid bone names (hotspot-code.ts) load on first use: when the element
 * gets its first hotspot (and its model is shown only once they are here: `ready`), or once the
 * page is idle after the first frame (at the latest 2 s later), for the pick methods. A pick before then answers null
 * and warns; a hotspot added later shows from the first frame after the code arrives.
 */
import type { ModelInstance } from '../../anim/instance.ts';
import { findSlot } from '../../anim/mask.ts';
import type { SkinningMethod } from '../../anim/skinning-method.ts';
import type { Model } from '../../gltf/model.ts';
import type { OrbitCamera } from '../../gpu/frame/camera.ts';
import { invertMat4 } from '../../math/trs.ts';
import type { RayHit, SkinnedRaycaster } from '../../skin/raycast.ts';
import { vector2d, vector3d, type Vector2D, type Vector3D } from '../vector3d.ts';
import { extraModelRootName } from '../extra-model.ts';
import {
  DEFAULT_HOTSPOT_NORMAL, DEFAULT_HOTSPOT_POSITION, facesEye, JOINT_OCCLUSION_SLACK, jointHotspot, occluded, parseHotspotVector,
  pixelRay, placeHotspot, projectToPixels, SURFACE_OCCLUSION_SLACK,
} from './placement.ts';

/** Children whose slot starts with this are hotspots (model-viewer's rule). */
export const HOTSPOT_SLOT_PREFIX = 'hotspot';
/** The hotspot attributes a change of which rescans. */
const HOTSPOT_ATTRIBUTES = ['slot', 'data-position', 'data-normal', 'data-joint', 'data-offset', 'data-surface', 'data-visibility-attribute', 'data-model-index'];
/** Below this many CSS pixels of movement the transform is not written again. */
const MOVE_EPSILON = 0.01;

export const HOTSPOT_STYLES = `
.hotspots { position: absolute; inset: 0; overflow: hidden; pointer-events: none; }
.hotspot[hidden] { display: none; }
/* Hidden, not undisplayed: the layer stays measurable for the first frame's placement. */
.hotspots[hidden] { display: block; visibility: hidden; }
.hotspot { position: absolute; left: 0; top: 0; width: 0; height: 0; will-change: transform; }
.hotspot > .pivot {
  position: absolute; left: 0; top: 0; transform: translate(-50%, -50%);
  pointer-events: auto; transition: opacity 0.3s; opacity: var(--max-hotspot-opacity, 1);
}
.hotspot.hidden > .pivot { opacity: var(--min-hotspot-opacity, 0.25); pointer-events: none; }
`;

/** A point on the model, as model-viewer's Vector3D: metres, `toString()` → `1m 2m 3m`. */
export type HotspotVector3 = Vector3D;

/** A texture coordinate, as model-viewer's Vector2D. */
export type HotspotVector2 = Vector2D;

/** What `positionAndNormalFromPoint` returns: model coordinates, ready for `data-position` / `data-normal`. */
export interface SurfacePoint {
  readonly position: HotspotVector3;
  readonly normal: HotspotVector3;
  readonly uv: HotspotVector2 | null;
}

/** What `queryHotspot` returns (model-viewer's HotspotData). */
export interface HotspotQuery {
  readonly position: HotspotVector3;
  readonly normal: HotspotVector3;
  readonly canvasPosition: HotspotVector3;
  readonly facingCamera: boolean;
}

/** What the hotspots need from their element, asked each frame (the answers allocate nothing). */
export interface HotspotHost {
  /** The viewer's camera, updated by the last frame. */
  camera(): OrbitCamera;
  /** The one drawn character's instance; undefined with no model or with a crowd (`instances` > 1). */
  instance(): ModelInstance | undefined;
  /** Where that character is drawn (root motion, `orientation`, `scale`, the turntable); null: at the origin. */
  placement(): Float64Array | null;
  skinning(): SkinningMethod;
  /** Hotspots changed: draw a frame (a paused viewer draws none by itself). */
  invalidate(): void;
}

interface Hotspot {
  readonly name: string;
  readonly wrapper: HTMLElement;
  /** The slotted elements (the first one's data-* configure the hotspot). */
  readonly elements: Element[];
  readonly position: Float64Array;
  readonly normal: Float64Array;
  hasNormal: boolean;
  /** `data-joint`, or the root node a `data-model-index` names (undefined again if the model has none: model coordinates). */
  jointName: string | undefined;
  readonly fromModelIndex: boolean;
  jointSlot: number;
  /** `data-surface`: glTF mesh, primitive, vertices a b c, weights (8 numbers); undefined without it. */
  readonly surface: Float64Array | undefined;
  /** The `model.meshNodes` entry drawing that mesh (-1: none in this model). */
  surfaceMeshNode: number;
  readonly offset: Float64Array;
  readonly world: Float64Array;
  readonly worldNormal: Float64Array;
  readonly pixel: Float64Array;
  /** Typed OM transform and its two lengths (undefined without Typed OM). */
  readonly transform: CSSTransformValue | undefined;
  readonly tx: CSSUnitValue | undefined;
  readonly ty: CSSUnitValue | undefined;
  lastX: number;
  lastY: number;
  /** undefined until first placed; then whether it is shown in full. */
  visible: boolean | undefined;
  shown: boolean;
}

const typedOm = typeof CSS !== 'undefined' && typeof CSS.px === 'function' && typeof CSSTranslate === 'function'
  && typeof CSSTransformValue === 'function' && typeof HTMLElement !== 'undefined' && 'attributeStyleMap' in HTMLElement.prototype;

type HotspotCode = typeof import('./hotspot-code.ts');
/** The lazily loaded code, once here (one per page). */
let code: HotspotCode | undefined;
let loadingCode: Promise<HotspotCode> | undefined;
let prefetched = false;

/** Imports hotspot-code.ts once (a failed import is tried again by the next caller). */
function loadHotspotCode(): Promise<HotspotCode> {
  loadingCode ??= import('./hotspot-code.ts').then((module) => (code = module), (error: unknown) => {
    loadingCode = undefined;
    throw error;
  });
  return loadingCode;
}

/** Longest wait for an idle moment after a first frame: a page that animates on a slow GPU may have none. */
const PREFETCH_IDLE_TIMEOUT_MS = 2000;

/**
 * After a first frame: fetch the code when the page is idle (at the latest PREFETCH_IDLE_TIMEOUT_MS
 * later), so picks work soon after without it being in the first load.
 */
function prefetchHotspotCode(): void {
  if (prefetched || code) return;
  prefetched = true;
  const fetchCode = () => void loadHotspotCode().catch(() => { prefetched = false; });
  if (typeof requestIdleCallback === 'function') requestIdleCallback(fetchCode, { timeout: PREFETCH_IDLE_TIMEOUT_MS });
  else setTimeout(fetchCode, 200);
}

const origin = new Float64Array(3);
const direction = new Float64Array(3);
const placementInverse = new Float64Array(16);

/** The hotspot layer of one element. */
export class ViewerHotspots {
  private readonly layer: HTMLElement;
  private hotspots: Hotspot[] = [];
  private readonly observer: MutationObserver;
  private model: Model | undefined;
  /** The model's bounding radius over its clip, metres (scales the joint occlusion slack). */
  private radius = 1;
  private caster: SkinnedRaycaster | undefined;
  private hit: RayHit | undefined;
  private readonly warn: (message: string) => void;
  private warnedEarlyPick = false;

  constructor(private readonly element: HTMLElement, container: HTMLElement, private readonly host: HotspotHost, warn: (message: string) => void) {
    this.warn = warn;
    const style = document.createElement('style');
    style.textContent = HOTSPOT_STYLES;
    this.layer = document.createElement('div');
    this.layer.className = 'hotspots';
    this.layer.hidden = true;
    container.append(style, this.layer);
    // Children come and go (childList on the element) and change their hotspot attributes
    // (attributes of direct children); what happens inside a hotspot's own content is its page's.
    this.observer = new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === 'childList' ? r.target === this.element : r.target.parentNode === this.element) {
          this.scan();
          return;
        }
      }
    });
  }

  /** The element entered the page: watch its children. */
  connect(): void {
    this.observer.observe(this.element, { childList: true, subtree: true, attributes: true, attributeFilter: HOTSPOT_ATTRIBUTES });
    this.scan();
  }

  disconnect(): void {
    this.observer.disconnect();
  }

  /** A model was shown (or cleared; `radius`: its bounding radius over the clip): joints are looked up in it, and rays cast at it. */
  modelChanged(model: Model | undefined, radius: number): void {
    this.model = model;
    this.radius = radius;
    this.caster = undefined;
    this.resolveJoints();
    if (!model) this.layer.hidden = true;
  }

  /**
   * Resolves once the code hotspots need is here when the element has hotspots (at once without
   * any); never rejects (a failed import is warned about, and the hotspots stay hidden).
   */
  ready(): Promise<void> {
    return this.hotspots.length > 0 ? this.requestCode() : Promise.resolve();
  }

  /** After each drawn frame: place every hotspot over it and decide what is hidden. Allocates nothing. */
  drawn(): void {
    this.caster?.invalidate();
    const list = this.hotspots;
    const instance = this.host.instance();
    if (!code) prefetchHotspotCode();
    // Without the code (still loading) hotspots stay hidden; its arrival draws a frame.
    if (list.length === 0 || this.model === undefined || !code) return;
    // Read layout before writing styles, so the writes do not force a layout per frame.
    const width = this.layer.clientWidth, height = this.layer.clientHeight;
    if (this.layer.hidden) this.layer.hidden = false;
    const camera = this.host.camera();
    const placement = this.host.placement();
    const eye = camera.eye;
    const caster = instance ? this.raycaster() : undefined;
    if (caster) caster.skinning = this.host.skinning();
    for (let i = 0; i < list.length; i++) {
      const h = list[i];
      let shown = true;
      if (h.surface !== undefined) {
        const s = h.surface;
        shown = h.surfaceMeshNode >= 0 && instance !== undefined && caster !== undefined
          && caster.surfacePoint(instance, h.surfaceMeshNode, s[1], s[2], s[3], s[4], s[5], s[6], s[7], placement, h.world, h.worldNormal);
      } else if (h.jointName !== undefined) {
        if (h.jointSlot < 0 || !instance) shown = false;
        else jointHotspot(instance, h.jointSlot, h.offset, placement, h.world, h.hasNormal ? h.normal : null, h.worldNormal);
      } else {
        placeHotspot(placement, h.position, h.normal, h.world, h.worldNormal);
      }
      if (shown) shown = projectToPixels(camera, h.world, width, height, h.pixel);
      let visible = shown && (!(h.hasNormal || h.surface !== undefined) || facesEye(eye, h.world, h.worldNormal));
      if (visible && caster && instance) {
        const slack = h.jointName !== undefined ? JOINT_OCCLUSION_SLACK * this.radius : 0;
        const distance = Math.sqrt((h.world[0] - eye[0]) ** 2 + (h.world[1] - eye[1]) ** 2 + (h.world[2] - eye[2]) ** 2);
        visible = !occluded(caster, instance, placement, eye, h.world, slack + SURFACE_OCCLUSION_SLACK * distance, this.hit!);
      }
      this.write(h, shown, visible);
    }
  }

  /**
   * model-viewer's `positionAndNormalFromPoint(x, y)`: the point of the model under CSS
   * pixel (x, y) of the element, as drawn this frame, in model coordinates; null when the
   * pixel shows no model (or a crowd is shown).
   */
  positionAndNormalFromPoint(x: number, y: number): SurfacePoint | null {
    const hit = this.castPixel(x, y);
    if (!hit) return null;
    const [u, v] = hit.uv;
    return {
      position: vector3d(hit.position[0], hit.position[1], hit.position[2]),
      normal: vector3d(hit.normal[0], hit.normal[1], hit.normal[2]),
      uv: hit.hasUv ? vector2d(u, v) : null,
    };
  }

  /**
   * model-viewer's `surfaceFromPoint(x, y)`: the point under the pixel as a `data-surface`
   * value — glTF mesh and primitive index, the hit triangle's three vertex indices and their
   * barycentric weights (`0 0 12 13 40 0.250 0.500 0.250`) — so a hotspot follows that point
   * of the skin as it animates; null where the pixel shows no model.
   */
  surfaceFromPoint(x: number, y: number): string | null {
    const hit = this.castPixel(x, y);
    if (!hit) return null;
    const mesh = this.model!.meshNodes[hit.meshNode].mesh;
    const [a, b, c] = hit.vertices, w = hit.barycentric;
    return `${mesh} ${hit.primitive} ${a} ${b} ${c} ${w[0].toFixed(3)} ${w[1].toFixed(3)} ${w[2].toFixed(3)}`;
  }

  /** The ray through CSS pixel (x, y), cast in model coordinates at the drawn pose; null on a miss. */
  private castPixel(x: number, y: number): RayHit | null {
    const instance = this.host.instance();
    if (!instance || !this.model || !Number.isFinite(x) || !Number.isFinite(y)) return null;
    if (!code) {
      void this.requestCode();
      if (!this.warnedEarlyPick) {
        this.warnedEarlyPick = true;
        this.warn('positionAndNormalFromPoint / surfaceFromPoint: the ray-casting code is still loading (it arrives once the page is idle after the first frame, or before `load` with hotspots); null until then');
      }
      return null;
    }
    const width = this.layer.clientWidth, height = this.layer.clientHeight;
    if (width <= 0 || height <= 0) return null;
    const camera = this.host.camera();
    camera.update(width / height);
    pixelRay(camera, x, y, width, height, origin, direction);
    // Into model coordinates (what data-position takes): undo the placement.
    const placement = this.host.placement();
    if (placement && invertMat4(placement, placementInverse)) {
      const m = placementInverse;
      const ox = origin[0], oy = origin[1], oz = origin[2], dx = direction[0], dy = direction[1], dz = direction[2];
      for (let r = 0; r < 3; r++) {
        origin[r] = m[r] * ox + m[4 + r] * oy + m[8 + r] * oz + m[12 + r];
        direction[r] = m[r] * dx + m[4 + r] * dy + m[8 + r] * dz;
      }
    }
    const caster = this.raycaster();
    caster.skinning = this.host.skinning();
    const hit = code.createRayHit();
    return caster.cast(instance, origin, direction, hit) ? hit : null;
  }

  /**
   * model-viewer's `updateHotspot({name, position, normal})`: moves the hotspot in slot
   * `name` (strings as `data-position` / `data-normal` take them; a joint hotspot's position
   * is its `data-offset`) without touching its attributes; a later change of its attributes
   * configures it from them again. Unknown names and malformed strings are ignored with a warning.
   */
  updateHotspot(config: { name: string; position?: string; normal?: string }): void {
    const h = this.hotspots.find((x) => x.name === config.name);
    if (!h) {
      this.warn(`updateHotspot: no hotspot in slot "${config.name}"`);
      return;
    }
    const apply = (text: string | undefined, what: string, dst: Float64Array): void => {
      if (text === undefined) return;
      const value = parseHotspotVector(text);
      if (value) dst.set(value);
      else this.warn(`updateHotspot: ${what} "${text}" of "${config.name}" is not "x y z" in m, cm or mm`);
    };
    apply(config.position, 'position', h.jointName !== undefined ? h.offset : h.position);
    apply(config.normal, 'normal', h.normal);
    if (config.normal !== undefined && parseHotspotVector(config.normal)) h.hasNormal = true;
    this.host.invalidate();
  }

  /**
   * model-viewer's `queryHotspot(name)`: where the hotspot was last drawn — world position
   * and normal, `canvasPosition` (CSS pixels from the element's top-left, z 0) and whether
   * it was shown in full (`facingCamera`: facing the camera and not hidden) — or null for an
   * unknown name or before it was first placed.
   */
  queryHotspot(name: string): HotspotQuery | null {
    const h = this.hotspots.find((x) => x.name === name);
    if (!h || h.visible === undefined) return null;
    return {
      position: vector3d(h.world[0], h.world[1], h.world[2]),
      normal: vector3d(h.worldNormal[0], h.worldNormal[1], h.worldNormal[2]),
      canvasPosition: vector3d(h.pixel[0], h.pixel[1], 0),
      facingCamera: h.visible,
    };
  }

  /** The model's ray caster, made on first use; only once the code is here. */
  private raycaster(): SkinnedRaycaster {
    this.hit ??= code!.createRayHit();
    if (!this.caster) this.caster = new code!.SkinnedRaycaster(this.model!);
    return this.caster;
  }

  /** Starts fetching the code (once per page); on arrival, joints are looked up again and a frame drawn. */
  private requestCode(): Promise<void> {
    if (code) return Promise.resolve();
    return loadHotspotCode().then(() => {
      this.resolveJoints();
      this.host.invalidate();
    }, (error: unknown) => this.warn(`hotspots: their ray-casting code did not load (${(error as Error).message}); hotspots stay hidden`));
  }

  /** Moves the wrapper to the hotspot's pixel, and shows, fades or hides it; DOM writes only on change. */
  private write(h: Hotspot, shown: boolean, visible: boolean): void {
    if (shown !== h.shown) {
      h.shown = shown;
      h.wrapper.hidden = !shown;
    }
    if (shown) {
      const x = h.pixel[0], y = h.pixel[1];
      // NaN (never written) compares false, so the first placement is always written.
      if (!(Math.abs(x - h.lastX) < MOVE_EPSILON && Math.abs(y - h.lastY) < MOVE_EPSILON)) {
        h.lastX = x;
        h.lastY = y;
        if (h.transform) {
          h.tx!.value = x;
          h.ty!.value = y;
          h.wrapper.attributeStyleMap.set('transform', h.transform);
        } else {
          h.wrapper.style.transform = `translate(${x}px, ${y}px)`;
        }
      }
    }
    if (visible === h.visible) return;
    h.visible = visible;
    h.wrapper.classList.toggle('hidden', !visible);
    for (const el of h.elements) {
      // Per element, as model-viewer reads it (only on a change, so the string is not per frame).
      const name = `data-${el.getAttribute('data-visibility-attribute')?.trim() || 'visible'}`;
      if (visible) el.setAttribute(name, '');
      else el.removeAttribute(name);
      el.dispatchEvent(new CustomEvent('hotspot-visibility', { detail: { visible } }));
    }
  }

  /** Rebuilds the hotspot list from the element's children (on every relevant change). */
  private scan(): void {
    const byName = new Map<string, Element[]>();
    for (const child of Array.from(this.element.children)) {
      const name = child.getAttribute('slot');
      if (name === null || !name.startsWith(HOTSPOT_SLOT_PREFIX)) continue;
      const list = byName.get(name);
      if (list) list.push(child);
      else byName.set(name, [child]);
    }
    const old = new Map(this.hotspots.map((h) => [h.name, h]));
    const next: Hotspot[] = [];
    for (const [name, elements] of byName) {
      const kept = old.get(name);
      const hotspot = this.configure(name, elements, kept?.wrapper);
      old.delete(name);
      next.push(hotspot);
    }
    for (const gone of old.values()) gone.wrapper.remove();
    this.hotspots = next;
    this.resolveJoints();
    if (next.length === 0) this.layer.hidden = true;
    else void this.requestCode();
    this.host.invalidate();
  }

  private configure(name: string, elements: Element[], wrapper: HTMLElement | undefined): Hotspot {
    const first = elements[0];
    const read = (attribute: string, fallback: readonly number[] | undefined): number[] | undefined => {
      const text = first.getAttribute(attribute);
      if (text === null) return fallback ? [...fallback] : undefined;
      const value = parseHotspotVector(text);
      if (!value) this.warn(`${attribute}="${text}" on slot "${name}" is not "x y z" in m, cm or mm${fallback ? `; using ${fallback.join(' ')}` : ''}`);
      return value ?? (fallback ? [...fallback] : undefined);
    };
    // model-viewer's data-model-index: the point is in that <extra-model>'s frame, i.e. on its root node (extra-model.ts).
    const modelIndex = first.getAttribute('data-model-index')?.trim();
    const ownJoint = first.getAttribute('data-joint')?.trim() || undefined;
    const jointName = ownJoint ?? (modelIndex ? extraModelRootName(Number(modelIndex)) : undefined);
    const surfaceText = first.getAttribute('data-surface');
    let surface: Float64Array | undefined;
    if (surfaceText !== null) {
      const numbers = surfaceText.trim().split(/\s+/).map(Number);
      const integral = numbers.slice(0, 5).every((n) => Number.isInteger(n) && n >= 0);
      if (numbers.length === 8 && integral && numbers.every(Number.isFinite)) surface = Float64Array.from(numbers);
      else this.warn(`data-surface="${surfaceText}" on slot "${name}" is not 8 numbers (mesh primitive a b c and three weights)`);
    }
    const normal = read('data-normal', ownJoint === undefined ? DEFAULT_HOTSPOT_NORMAL : undefined);
    if (!wrapper) {
      wrapper = document.createElement('div');
      wrapper.className = 'hotspot';
      wrapper.hidden = true;
      const pivot = document.createElement('div');
      pivot.className = 'pivot';
      const slot = document.createElement('slot');
      slot.name = name;
      pivot.append(slot);
      wrapper.append(pivot);
      this.layer.append(wrapper);
    }
    const tx = typedOm ? CSS.px(0) : undefined, ty = typedOm ? CSS.px(0) : undefined;
    return {
      name, wrapper, elements,
      position: Float64Array.from(read('data-position', DEFAULT_HOTSPOT_POSITION)!),
      normal: Float64Array.from(normal ?? DEFAULT_HOTSPOT_NORMAL),
      hasNormal: normal !== undefined,
      jointName, fromModelIndex: ownJoint === undefined && jointName !== undefined, jointSlot: -1, surface, surfaceMeshNode: -1,
      offset: Float64Array.from((ownJoint === undefined && jointName !== undefined ? read('data-position', DEFAULT_HOTSPOT_POSITION) : read('data-offset', [0, 0, 0]))!),
      world: new Float64Array(3), worldNormal: new Float64Array(3), pixel: new Float64Array(3),
      transform: typedOm ? new CSSTransformValue([new CSSTranslate(tx!, ty!)]) : undefined, tx, ty,
      lastX: NaN, lastY: NaN, visible: undefined, shown: !wrapper.hidden,
    };
  }

  private resolveJoints(): void {
    const model = this.model;
    for (const h of this.hotspots) {
      h.surfaceMeshNode = -1;
      if (h.surface !== undefined && model) {
        // As model-viewer: the first node that draws that mesh.
        const [mesh, primitive] = h.surface;
        h.surfaceMeshNode = model.meshNodes.findIndex((mn) => mn.mesh === mesh);
        const prim = h.surfaceMeshNode >= 0 ? model.meshes[mesh].primitives[primitive] : undefined;
        const inRange = prim !== undefined && [2, 3, 4].every((k) => h.surface![k] < prim.vertexCount);
        if (!inRange) {
          this.warn(`data-surface="${Array.from(h.surface).join(' ')}" on slot "${h.name}" names no vertex of ${model.name}`);
          h.surfaceMeshNode = -1;
        }
      }
      h.jointSlot = -1;
      if (h.jointName === undefined || !model) continue;
      try {
        h.jointSlot = findSlot(model, h.jointName);
      } catch (error) {
        // data-model-index 0 of an element with its own src: that model's coordinates are the scene's.
        if (h.fromModelIndex) {
          h.position.set(h.offset);
          h.jointName = undefined;
          continue;
        }
        // Not a node name: a humanoid bone (`leftHand`), by a VRM's humanoid map or the rig's naming convention.
        // Without the code yet, decided when it arrives (requestCode looks joints up again).
        if (!code) continue;
        h.jointSlot = code.humanoidBoneSlot(model, h.jointName);
        if (h.jointSlot >= 0) continue;
        this.warn(`data-joint="${h.jointName}" on slot "${h.name}": ${(error as Error).message} (nor is it a humanoid bone of the model)`);
      }
    }
  }
}
