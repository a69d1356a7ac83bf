// Clip buttons: one per clip of the model, made when it loads; a click crossfades to that clip.
import 'skinned-mesh-webgpu/element';

const viewer = document.querySelector('skinned-mesh-viewer')!;
const buttons = document.getElementById('clips')!;

viewer.addEventListener('load', () => {
  buttons.replaceChildren(...viewer.availableAnimations.map((name) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = name;
    button.addEventListener('click', () => {
      viewer.animationName = name; // while a clip plays, this crossfades to the new one
      viewer.play();
      markPlaying();
    });
    return button;
  }));
  markPlaying();
});

/** Marks the button of the clip that plays: the one named, else the first. */
function markPlaying(): void {
  const playing = viewer.animationName ?? viewer.availableAnimations[0];
  for (const button of buttons.children) button.setAttribute('aria-pressed', String(button.textContent === playing));
}
