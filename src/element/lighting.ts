/**
 * <skinned-mesh-viewer>'s lighting attributes, with model-viewer's names and semantics:
 * `environment-image` (a `.hdr`, `.exr` or `.jpg`/`.png`/`.webp` URL, `neutral` — the default, a
 * studio generated in code — or `legacy`, the key light and hemisphere), `skybox-image`
 * (shown as the background, and the lighting too unless `environment-image` is set),
 * `tone-mapping` and `shadow-intensity` / `shadow-softness`. Environments are prefiltered
 * once per device and URL and shared by every viewer on the page (counted, freed when the
 * last viewer lets go). `environment-change` fires when a new environment shows.
 */
import { nextTask } from '../gpu/device/next-task.ts';
import { prefilterAheadOnCpu, prefilterEnvironmentOnCpu } from '../gpu/environment/cpu-prefilter.ts';
import type { Environment } from '../gpu/environment/environment.ts';
import { EnvironmentError, type EquirectImage } from '../gpu/environment/equirect.ts';
import { neutralEnvironment } from '../gpu/environment/neutral.ts';
import { perDevice } from '../gpu/device/per-device.ts';
import { ToneMapping } from '../gpu/layouts/bindings.ts';
import type { Renderer } from '../gpu/renderer.ts';
import { parseNumber } from './attributes.ts';

export const NEUTRAL = 'neutral';
export const LEGACY = 'legacy';

/**
 * model-viewer's `tone-mapping` values and ours: `neutral` (Khronos PBR Neutral, the
 * default; `auto`, model-viewer 4.4's default, and `commerce`, its older name, mean it too), `aces`, `agx`, `none` / `linear` (colour ×
 * exposure, clamped); `reinhard` maps to PBR Neutral (both roll highlights off gently and
 * keep hues) and `cineon` to ACES (both filmic S-curves).
 */
const TONE_MAPPINGS: Readonly<Record<string, ToneMapping>> = {
  neutral: ToneMapping.PBR_NEUTRAL, auto: ToneMapping.PBR_NEUTRAL, commerce: ToneMapping.PBR_NEUTRAL, reinhard: ToneMapping.PBR_NEUTRAL,
  aces: ToneMapping.ACES, cineon: ToneMapping.ACES, agx: ToneMapping.AGX, none: ToneMapping.NONE, linear: ToneMapping.NONE,
};

/** The ToneMapping a `tone-mapping` value asks for; undefined for an unknown one (absent: neutral). */
export function parseToneMapping(value: string | null): ToneMapping | undefined {
  if (value === null || value.trim() === '') return ToneMapping.PBR_NEUTRAL;
  return TONE_MAPPINGS[value.trim().toLowerCase()];
}

/** A 0…1 attribute (`shadow-intensity`, `shadow-softness`): clamped; absent or malformed → `fallback`. */
export function parseUnit(value: string | null, fallback: number): number {
  const n = parseNumber(value);
  return n === undefined ? fallback : Math.min(1, Math.max(0, n));
}

/** model-viewer's default `shadow-softness`. */
export const DEFAULT_SHADOW_SOFTNESS = 1;

/**
 * What lights the scene and what is behind it: `neutral`, `legacy` or an absolute URL for
 * the lighting; a URL or null (none) for the background.
 */
export interface LightingChoice {
  readonly lighting: string;
  readonly background: string | null;
}

/** Resolves `environment-image` and `skybox-image` as model-viewer does, URLs against `baseUrl`. */
export function chooseLighting(environmentImage: string | null, skyboxImage: string | null, baseUrl: string): LightingChoice {
  const resolve = (value: string) => new URL(value, baseUrl).href;
  const env = environmentImage?.trim() || null;
  const sky = skyboxImage?.trim() || null;
  const background = sky ? resolve(sky) : null;
  if (env === null || env.toLowerCase() === NEUTRAL) return { lighting: env === null && background ? background : NEUTRAL, background };
  if (env.toLowerCase() === LEGACY) return { lighting: LEGACY, background };
  return { lighting: resolve(env), background };
}

/** The image of a lighting key: generated (`neutral`) or fetched and decoded (a URL). */
export async function loadEnvironmentImage(key: string, fetcher: typeof fetch = fetch): Promise<EquirectImage> {
  if (key === NEUTRAL) return neutralEnvironment();
  // The decoders come with the file, imported only for one (a page's first load carries none).
  const [response, hdr, exr, image] = await Promise.all([
    fetcher(key), import('../gpu/environment/hdr.ts'), import('../gpu/environment/exr.ts'), import('../gpu/environment/srgb-image.ts'),
  ]);
  if (!response.ok) throw new EnvironmentError(`${key}: HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  // By content, not by name: a URL need not end in its file type.
  if (hdr.isRadianceHdr(bytes)) return hdr.parseHdr(bytes);
  if (exr.isOpenExr(bytes)) return exr.parseExrEnvironment(bytes);
  return image.decodeImageEnvironment(bytes, response.headers.get('content-type') ?? undefined);
}

let neutral: EquirectImage | undefined;

/** The page's one `neutral` image: its CPU prefilter is made once (a viewer re-added only uploads it). */
function neutralImage(): EquirectImage {
  neutral ??= neutralEnvironment();
  return neutral;
}

interface CacheEntry { readonly environment: Promise<Environment>; users: number }

/** Environments by device and key, shared by every viewer, freed when no viewer uses them. */
const environmentsOf = perDevice(() => new Map<string, CacheEntry>());

function acquire(device: GPUDevice, key: string): Promise<Environment> {
  const byKey = environmentsOf(device);
  let entry = byKey.get(key);
  if (!entry) {
    // A task first: the pipelines the model's JSON asked for as the device arrived (their request
    // is a few promise steps away) and those of a JSON arriving meanwhile go to the GPU process
    // first. A fetched image's prefilter pipelines then compile there while this thread fetches
    // and decodes it. `neutral` is prefiltered on this thread (cpu-prefilter.ts): on a CPU
    // rasteriser the GPU prefilter's pipelines cost the GPU process more than the model's own
    // before the first frame, and this image is small.
    // The GPU prefilter and its WGSL come with a first such image (a page with `neutral` fetches neither).
    const environment = nextTask().then(async () => {
      if (key === NEUTRAL) return prefilterEnvironmentOnCpu(device, neutralImage(), 'neutral environment');
      const image = loadEnvironmentImage(key);
      // Its failure is reported below, whatever the import does first.
      image.catch(() => undefined);
      const prefilter = await import('../gpu/environment/prefilter.ts');
      prefilter.requestPrefilterPipelines(device);
      return prefilter.prefilterEnvironment(device, await image, key);
    });
    entry = { environment, users: 0 };
    byKey.set(key, entry);
    // A failed load is forgotten, so a later use tries again.
    environment.catch(() => { if (byKey.get(key) === entry) byKey.delete(key); });
  }
  entry.users++;
  return entry.environment;
}

/**
 * An environment no viewer uses is freed this long after the last let go, unless one takes
 * it again meanwhile: an element moved in the page (removed and re-inserted at once) keeps it.
 */
const RELEASE_GRACE_MS = 200;

function release(device: GPUDevice, key: string): void {
  const byKey = environmentsOf(device), entry = byKey.get(key);
  if (!entry || --entry.users > 0) return;
  setTimeout(() => {
    if (entry.users > 0 || byKey.get(key) !== entry) return;
    byKey.delete(key);
    entry.environment.then((e) => e.destroy(), () => {});
  }, RELEASE_GRACE_MS);
}

/** What the lighting needs from its element. */
export interface LightingHost {
  getAttribute(name: string): string | null;
  /** The document's base URL, for relative URLs. */
  baseUrl(): string;
  /** Something visible changed: draw a frame. */
  invalidate(): void;
  /** A new environment shows (fires `environment-change`). */
  environmentChanged(): void;
  /** An attribute value is not understood (reported once per page by the element). */
  warn(message: string): void;
  /** An environment could not be loaded or prefiltered; the previous one stays. */
  failed(attribute: 'environment-image' | 'skybox-image', error: unknown): void;
}

/** What one renderer shows, with the cache references it holds. */
interface Applied {
  readonly renderer: Renderer;
  readonly device: GPUDevice;
  /** Keys whose environments are set on the renderer (held). */
  lighting: string;
  background: string | null;
  /** Keys asked for and still loading (held). */
  pending: LightingChoice | undefined;
}

/** One element's lighting: applies its attributes to its current renderer. */
export class ViewerLighting {
  private applied: Applied | undefined;
  private settled: Promise<void> = Promise.resolve();

  constructor(private readonly host: LightingHost) {}

  /**
   * Resolves once the environment last asked for shows (or failed): the element shows a new
   * model only then, so it never appears under a light it is about to leave, as model-viewer.
   */
  ready(): Promise<void> {
    return this.settled;
  }

  /**
   * Once `after` resolves (the model's fetch and the adapter request are out), a task later,
   * starts prefiltering `neutral` on the CPU if the attributes choose it: it needs no device, so it
   * runs while the device is asked for and the model downloads, instead of after the device
   * arrives, where it was the last thing the first frame waited for. `apply` then only uploads it.
   */
  prefilterAhead(after: Promise<void>): void {
    const h = this.host;
    if (chooseLighting(h.getAttribute('environment-image'), h.getAttribute('skybox-image'), h.baseUrl()).lighting !== NEUTRAL) return;
    // A failure is reported by `acquire`, which waits for the same cached work; this early start adds none of its own.
    after.then(nextTask).then(() => prefilterAheadOnCpu(neutralImage())).catch(() => undefined);
  }

  /** The `shadow-intensity` (0…1, default 0). */
  get shadowIntensity(): number {
    return parseUnit(this.host.getAttribute('shadow-intensity'), 0);
  }

  /**
   * Applies the attributes to `renderer` (on `device`): tone mapping and shadow settings at
   * once; environments once loaded (the previous ones show until then). `shadows` (the
   * older boolean attribute) without `shadow-intensity` keeps meaning a full-strength shadow.
   */
  apply(renderer: Renderer, device: GPUDevice, shadowsAttribute: boolean): void {
    const h = this.host;
    const s = renderer.settings;
    const tone = parseToneMapping(h.getAttribute('tone-mapping'));
    if (tone === undefined) h.warn(`tone-mapping="${h.getAttribute('tone-mapping')}" is not neutral, aces, agx or none (nor a model-viewer alias); using neutral`);
    s.toneMapping = tone ?? ToneMapping.PBR_NEUTRAL;
    const intensity = this.shadowIntensity;
    s.shadowIntensity = intensity > 0 || !shadowsAttribute ? intensity : 1;
    s.shadowSoftness = parseUnit(h.getAttribute('shadow-softness'), shadowsAttribute && !h.getAttribute('shadow-intensity') ? 0 : DEFAULT_SHADOW_SOFTNESS);

    if (this.applied && this.applied.renderer !== renderer) this.release();
    if (!this.applied) {
      this.applied = { renderer, device, lighting: LEGACY, background: null, pending: undefined };
    }
    const applied = this.applied;
    const wanted = chooseLighting(h.getAttribute('environment-image'), h.getAttribute('skybox-image'), h.baseUrl());
    const pending = applied.pending;
    if (pending && pending.lighting === wanted.lighting && pending.background === wanted.background) return;
    if (!pending && applied.lighting === wanted.lighting && applied.background === wanted.background) return;
    this.load(applied, wanted);
  }

  private load(applied: Applied, wanted: LightingChoice): void {
    if (applied.pending) this.releaseChoice(applied.device, applied.pending);
    applied.pending = wanted;
    const lighting = wanted.lighting === LEGACY ? Promise.resolve(undefined) : acquire(applied.device, wanted.lighting);
    const background = wanted.background === null ? Promise.resolve(undefined) : acquire(applied.device, wanted.background);
    // The skybox pipeline is built before a background first shows.
    const skybox = wanted.background === null ? undefined : applied.renderer.prepareSkybox();
    this.settled = Promise.allSettled([lighting, background, skybox]).then(([light, back]) => {
      // Superseded (a newer choice, or another renderer): its references were released then.
      if (this.applied !== applied || applied.pending !== wanted) return;
      applied.pending = undefined;
      if (light.status === 'rejected' || back.status === 'rejected') {
        this.releaseChoice(applied.device, wanted);
        if (light.status === 'rejected') this.host.failed(this.lightingAttribute(), light.reason);
        if (back.status === 'rejected') this.host.failed('skybox-image', back.reason);
        return;
      }
      this.releaseChoice(applied.device, applied);
      applied.lighting = wanted.lighting;
      applied.background = wanted.background;
      applied.renderer.setEnvironment(light.value, back.value);
      applied.renderer.settings.skybox = back.value !== undefined;
      this.host.environmentChanged();
      this.host.invalidate();
    });
  }

  /** The attribute that chose the lighting: `skybox-image` only when it lights the scene in place of an absent `environment-image` (`neutral`, the default, is environment-image's). */
  private lightingAttribute(): 'environment-image' | 'skybox-image' {
    const h = this.host;
    return !h.getAttribute('environment-image')?.trim() && h.getAttribute('skybox-image')?.trim() ? 'skybox-image' : 'environment-image';
  }

  private releaseChoice(device: GPUDevice, choice: LightingChoice): void {
    if (choice.lighting !== LEGACY) release(device, choice.lighting);
    if (choice.background !== null) release(device, choice.background);
  }

  /** Lets go of every environment (the element left the page, or its renderer is gone). */
  release(): void {
    const applied = this.applied;
    if (!applied) return;
    this.applied = undefined;
    if (applied.pending) this.releaseChoice(applied.device, applied.pending);
    this.releaseChoice(applied.device, applied);
  }
}
