// Tier 2: the renderer and the player on a canvas of your own, in your own frame loop.
import {
  AnimationPlayer, buildBuiltinGlb, computeInstanceBounds, createCanvasRenderer, loadGltf, observeCanvasSize, OrbitCamera,
} from 'skinned-mesh-webgpu';

const canvas = document.querySelector('canvas')!;
// A device, the canvas configured for it, a Renderer in its format. Throws WebGpuUnsupportedError, saying why, without WebGPU.
const { device, context, renderer } = await createCanvasRenderer(canvas, { label: 'character' });

// The library's generated character; for a file: `await loadModelSource('robot.glb', { baseUrl: document.baseURI })`.
const model = await loadGltf(buildBuiltinGlb('character'), { name: 'character' });
await renderer.setModel(model); // uploads once

const player = new AnimationPlayer(model); // the first clip, looping
player.play();

const camera = new OrbitCamera();
const bounds = computeInstanceBounds(player.instance);
// Keeps canvas.width/height equal to its size in device pixels, and the model framed at that aspect.
observeCanvasSize(canvas, device, (width, height) => camera.frame(bounds, width / height));

let last = performance.now();
requestAnimationFrame(function frame(now) {
  player.update((now - last) / 1000); // sample, blend, joint matrices, palettes
  last = now;
  renderer.render(context.getCurrentTexture(), camera, player.instance);
  requestAnimationFrame(frame);
});
