// Tier 4: thousands of one model, posed on the GPU. The CPU only advances each one's clock and place.
import {
  buildBuiltinGlb, computeInstanceBounds, createCanvasRenderer, createCrowd, loadGltf, observeCanvasSize, OrbitCamera,
} from 'skinned-mesh-webgpu';

const count = Number(new URLSearchParams(location.search).get('count') ?? 10_000);
if (!Number.isInteger(count) || count < 1 || count > 100_000) throw new RangeError(`?count= wants a whole number from 1 to 100000, not ${count}`);
const status = document.getElementById('count')!;
status.textContent = `${count.toLocaleString('en')} in the crowd; loading…`;

const canvas = document.querySelector('canvas')!;
const { device, context, renderer } = await createCanvasRenderer(canvas, { label: 'crowd' });
const model = await loadGltf(buildBuiltinGlb('character'), { name: 'character' });
await renderer.setModel(model);

const crowd = createCrowd(model, count, { evaluator: 'gpu', device });
const area = crowd.placeOnGrid(1.2); // a centred grid, 1.2 m apart, facing +Z; returns minX minZ maxX maxZ
const walk = model.animations.findIndex((clip) => clip.name === 'Walk');
for (let k = 0; k < count; k++) {
  crowd.play(k, walk, Math.random() * model.animations[walk].duration); // each from its own phase
  crowd.speed[k] = 0.85 + 0.3 * Math.random();
}

// Frame the grid: one character's box spread over the area the grid covers.
const one = computeInstanceBounds(crowd.instances[0]);
const min = Float32Array.of(area[0] + one.min[0], one.min[1], area[1] + one.min[2]);
const max = Float32Array.of(area[2] + one.max[0], one.max[1], area[3] + one.max[2]);
const center = Float32Array.of((min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2);
const bounds = { min, max, center, radius: Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) / 2 };
const camera = new OrbitCamera();
camera.yaw = 0.5;
camera.pitch = 0.45;
observeCanvasSize(canvas, device, (width, height) => camera.frame(bounds, width / height));

// What the renderer says it did: instances drawn and culled (the GPU's own count, read back a
// frame or two late), the time between frames averaged over the frames since the last report (by
// the clock, not rAF's timestamps: a frame the GPU is slow to take back blocks this thread), and the
// CPU time of the last render call.
const REPORT_EVERY_MS = 500;
let last = performance.now();
let reported = last, framesSinceReport = 0;
requestAnimationFrame(function frame(now) {
  crowd.update((now - last) / 1000); // clocks and root motion on the CPU; the poses in the GPU's passes
  last = now;
  crowd.wrapPlacements(area); // who walks off one edge comes back at the other
  renderer.renderCrowd(context.getCurrentTexture(), camera, crowd, crowd.gpu);
  framesSinceReport++;
  const done = performance.now();
  if (done - reported >= REPORT_EVERY_MS) {
    const { instances, culled, frames, encodeMs } = renderer.stats;
    const ms = (done - reported) / framesSinceReport;
    status.textContent = `${count.toLocaleString('en')} in the crowd: ${instances.toLocaleString('en')} drawn, ${culled.toLocaleString('en')} culled`
      + ` · ${ms.toFixed(ms < 100 ? 1 : 0)} ms a frame · ${frames.toLocaleString('en')} frames · CPU ${encodeMs.toFixed(1)} ms to encode`;
    reported = done;
    framesSinceReport = 0;
  }
  requestAnimationFrame(frame);
});
