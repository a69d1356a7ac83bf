import type { SkinnedMeshViewerElement } from 'skinned-mesh-webgpu';
import { studioHdr } from './studio-hdr.ts';

export interface LookControls {
  readonly environment: HTMLSelectElement;
  readonly toneMapping: HTMLSelectElement;
  readonly shadowIntensity: HTMLInputElement;
  readonly shadowValue: HTMLOutputElement;
  readonly showHotspot: HTMLInputElement;
  /** The `data-joint="Hand.L"` hotspot (a child of the viewer while the model has that joint). */
  readonly handHotspot: HTMLElement;
}

/** The most hotspots double-clicks pin at once (the oldest goes first). */
const MAX_PINS = 8;

/** Width of the generated sky `.hdr` (its height is half). */
const SKY_WIDTH = 256;

/**
 * The Look panel: environment (`environment-image`: neutral, legacy, or a `.hdr` made in code
 * and passed as a blob: URL), `tone-mapping`, `shadow-intensity`; the hand hotspot
 * (`data-joint`), shown only for models with a Hand.L joint; and double-click pins
 * (`positionAndNormalFromPoint` → `data-position` / `data-normal`).
 */
export function setupLook(viewer: SkinnedMeshViewerElement, ui: LookControls): void {
  let skyUrl: string | undefined;
  ui.environment.addEventListener('change', () => {
    const value = ui.environment.value;
    if (value === 'sky') {
      skyUrl ??= URL.createObjectURL(new Blob([studioHdr(SKY_WIDTH) as BlobPart], { type: 'image/vnd.radiance' }));
      viewer.setAttribute('environment-image', skyUrl);
    } else {
      viewer.setAttribute('environment-image', value);
    }
  });
  ui.toneMapping.addEventListener('change', () => viewer.setAttribute('tone-mapping', ui.toneMapping.value));
  const syncShadow = (): void => {
    const v = Number(ui.shadowIntensity.value);
    ui.shadowValue.textContent = v.toFixed(2);
    viewer.setAttribute('shadow-intensity', String(v));
  };
  ui.shadowIntensity.addEventListener('input', syncShadow);
  syncShadow();

  const hasHand = (): boolean => viewer.model?.nodes.some((n) => n.name === 'Hand.L') ?? false;
  const syncHotspot = (): void => {
    const wanted = ui.showHotspot.checked && hasHand();
    if (wanted && ui.handHotspot.parentElement !== viewer) viewer.append(ui.handHotspot);
    else if (!wanted) ui.handHotspot.remove();
  };
  ui.showHotspot.addEventListener('change', syncHotspot);

  let pins = 0;
  const removePins = (): void => {
    for (const pin of viewer.querySelectorAll('.hotspot-pin')) pin.remove();
  };
  viewer.addEventListener('load', () => {
    syncHotspot();
    removePins();
  });
  viewer.addEventListener('dblclick', (e) => {
    const box = viewer.getBoundingClientRect();
    const hit = viewer.positionAndNormalFromPoint(e.clientX - box.left, e.clientY - box.top);
    if (!hit) return;
    const pin = document.createElement('button');
    pin.type = 'button';
    pin.className = 'hotspot-pin';
    pin.slot = `hotspot-pin-${++pins}`;
    pin.dataset.position = hit.position.toString();
    pin.dataset.normal = hit.normal.toString();
    pin.title = `data-position="${pin.dataset.position}"`;
    pin.setAttribute('aria-label', `Pinned point ${pins}`);
    viewer.append(pin);
    const all = viewer.querySelectorAll('.hotspot-pin');
    if (all.length > MAX_PINS) all[0].remove();
  });
}
