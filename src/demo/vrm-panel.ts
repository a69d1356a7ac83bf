import type { SkinnedMeshViewerElement } from 'skinned-mesh-webgpu';

export interface VrmControls {
  readonly fieldset: HTMLFieldSetElement;
  /** Filled with one slider per expression of the shown avatar. */
  readonly expressions: HTMLElement;
  readonly lookAt: HTMLSelectElement;
  readonly autoBlink: HTMLInputElement;
  readonly springs: HTMLInputElement;
  readonly resetSprings: HTMLButtonElement;
  /** Turns the avatar about +Y (its `orientation`) as it is dragged: the springs swing. */
  readonly turn: HTMLInputElement;
  readonly turnValue: HTMLOutputElement;
}

/**
 * The VRM panel, shown while the model is a VRM avatar (the built-in ones, or a dropped .vrm):
 * a slider per expression (`setExpression`), look-at (`look-at="camera"` or a point), blinking
 * (`auto-blink`), spring bones on/off and reset (`spring-bones`, `resetSpringBones()`), and a
 * turn slider that rotates the avatar as it is dragged, so its hair and skirt swing (so does a
 * walk with root motion, in the crowd panel).
 */
export function setupVrmPanel(viewer: SkinnedMeshViewerElement, ui: VrmControls): void {
  const rebuild = (): void => {
    const names = viewer.expressions;
    ui.fieldset.hidden = names.length === 0 && !viewer.model?.vrm;
    ui.expressions.replaceChildren(...names.map((name) => {
      const label = document.createElement('label');
      const slider = document.createElement('input');
      slider.type = 'range';
      slider.min = '0';
      slider.max = '1';
      slider.step = '0.01';
      slider.value = '0';
      slider.dataset.expression = name;
      const out = document.createElement('output');
      out.textContent = '0.00';
      slider.addEventListener('input', () => {
        viewer.setExpression(name, Number(slider.value));
        out.textContent = Number(slider.value).toFixed(2);
      });
      label.append(`${name} `, slider, ' ', out);
      return label;
    }));
  };
  viewer.addEventListener('load', rebuild);
  ui.lookAt.addEventListener('change', () => {
    if (ui.lookAt.value === 'none') viewer.removeAttribute('look-at');
    else viewer.setAttribute('look-at', ui.lookAt.value);
  });
  ui.autoBlink.addEventListener('change', () => viewer.toggleAttribute('auto-blink', ui.autoBlink.checked));
  ui.springs.addEventListener('change', () => viewer.setAttribute('spring-bones', ui.springs.checked ? 'on' : 'off'));
  ui.resetSprings.addEventListener('click', () => viewer.resetSpringBones());
  ui.turn.addEventListener('input', () => {
    viewer.setAttribute('orientation', `0deg 0deg ${ui.turn.value}deg`);
    ui.turnValue.textContent = `${ui.turn.value}°`;
  });
  rebuild();
}
