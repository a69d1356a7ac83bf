/**
 * The demo page: one large <skinned-mesh-viewer> driven through its public API (the
 * same one any page gets), a control panel, a stats panel, and three embedded viewers
 * further down. Everything it shows is made by the project's own code unless the user
 * opens a file or passes ?src=URL.
 */
// The library's public entry, exactly as a page that installed the package imports it (it
// registers <skinned-mesh-viewer>); tsconfig.demo.json makes any other way out of src/demo a
// compile error.
import 'skinned-mesh-webgpu';
import type { SkinnedMeshViewerElement } from 'skinned-mesh-webgpu';
import { droppedFile, modelFromFiles, withOpenedModel } from './files.ts';
import { setupLab } from './lab.ts';
import { setupLook } from './look.ts';
import { setupModelPicker } from './model-picker.ts';
import { formatBytes, RollingAverage } from './stats.ts';
import { setupVrmPanel } from './vrm-panel.ts';

const $ = <T extends HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`demo page is missing #${id}`);
  return element as T;
};

const viewer = $<SkinnedMeshViewerElement>('viewer');
const stage = $('stage');
const clipSelect = $<HTMLSelectElement>('clip');
const playButton = $<HTMLButtonElement>('play');
const loopBox = $<HTMLInputElement>('loop');
const scrub = $<HTMLInputElement>('scrub');
const timeOut = $<HTMLOutputElement>('time');
const speed = $<HTMLInputElement>('speed');
const crossfade = $<HTMLInputElement>('crossfade');
const exposure = $<HTMLInputElement>('exposure');
const info = $('model-info');
const errorBox = $('error');
const variantSelect = $<HTMLSelectElement>('variant');

// ---------------------------------------------------------------- model source

const params = new URLSearchParams(location.search);
const srcParam = params.get('src');
if (srcParam) {
  viewer.removeAttribute('builtin');
  viewer.src = srcParam;
}

function showError(message: string | undefined): void {
  errorBox.hidden = !message;
  errorBox.textContent = message ?? '';
}

setupModelPicker(viewer, $<HTMLSelectElement>('model'), $<HTMLOptionElement>('loaded-model'), () => showError(undefined));

async function openFiles(files: File[]): Promise<void> {
  showError(undefined);
  info.textContent = `Reading ${files.map((f) => f.name).join(', ')}…`;
  try {
    const { model, note } = withOpenedModel(viewer.model, await modelFromFiles(files.map(droppedFile)));
    viewer.showModel(model);
    if (note) console.info(note);
  } catch (e) {
    showError((e as Error).message);
    info.textContent = 'The previous model is still shown.';
  }
}

$<HTMLInputElement>('file').addEventListener('change', (e) => {
  const input = e.target as HTMLInputElement;
  if (input.files && input.files.length > 0) void openFiles([...input.files]);
  input.value = '';
});

stage.addEventListener('dragover', (e) => {
  e.preventDefault();
  stage.classList.add('dragging');
});
stage.addEventListener('dragleave', () => stage.classList.remove('dragging'));
stage.addEventListener('drop', (e) => {
  e.preventDefault();
  stage.classList.remove('dragging');
  const files = e.dataTransfer ? [...e.dataTransfer.files] : [];
  if (files.length > 0) void openFiles(files);
});

viewer.addEventListener('progress', (e) => {
  const { loaded, total } = e.detail;
  info.textContent = total ? `Loading… ${Math.round((100 * loaded) / total)}%` : `Loading… ${(loaded / 1024).toFixed(0)} KiB`;
});

viewer.addEventListener('error', (e) => {
  showError(e.detail.message);
});

viewer.addEventListener('load', () => {
  showError(undefined);
  const model = viewer.model!;
  const joints = model.skins.reduce((n, s) => n + s.joints.length, 0);
  const vertices = model.meshes.reduce((n, m) => n + m.primitives.reduce((k, p) => k + p.vertexCount, 0), 0);
  info.textContent = `${model.name}: ${model.skins.length} skin(s), ${joints} joints, ${vertices.toLocaleString()} vertices, ${model.animations.length} clip(s)`;
  if (model.warnings.length > 0) info.textContent += ` — ${model.warnings.length} repaired problem(s), e.g. ${model.warnings[0].path}: ${model.warnings[0].message}`;
  // Every warning, on hover and in the console, with its JSON path.
  info.title = model.warnings.map((w) => `${w.path}: ${w.message}`).join('\n');
  for (const w of model.warnings) console.warn(`${model.name}: ${w.path}: ${w.message}`);
  clipSelect.replaceChildren(...model.animations.map((clip, i) => new Option(clip.name || `clip ${i}`, String(i))));
  clipSelect.disabled = viewer.animations.length === 0;
  const current = viewer.animation;
  const index = current === null ? 0 : Math.max(0, viewer.animations.indexOf(current));
  clipSelect.value = /^\d+$/.test(current ?? '') ? current! : String(index);
  syncPlayButton();
  // KHR_materials_variants: the file's own materials, or one of its variants.
  const variants = viewer.availableVariants;
  if (viewer.variantName !== null && !variants.includes(viewer.variantName)) viewer.variantName = null;
  variantSelect.replaceChildren(new Option('the file\'s own materials', ''), ...variants.map((name) => new Option(name, name)));
  variantSelect.value = viewer.variantName ?? '';
  $('variant-row').hidden = variants.length === 0;
});

variantSelect.addEventListener('change', () => { viewer.variantName = variantSelect.value === '' ? null : variantSelect.value; });

// ---------------------------------------------------------------- playback

function syncPlayButton(): void {
  playButton.textContent = viewer.paused ? 'Play' : 'Pause';
}

playButton.addEventListener('click', () => {
  // play() alone repeats for ever (model-viewer's default); the loop box decides here.
  if (viewer.paused) viewer.play({ repetitions: loopBox.checked ? Infinity : 1 });
  else viewer.pause();
  syncPlayButton();
});
viewer.addEventListener('animationend', syncPlayButton);

clipSelect.addEventListener('change', () => {
  const clip = Number(clipSelect.value);
  // While playing, change clips by crossfade; paused, cut (a fade would not be seen).
  if (!viewer.paused) viewer.crossfadeTo(clip, Number(crossfade.value));
  else viewer.animation = clip;
});

loopBox.addEventListener('change', () => { viewer.loop = loopBox.checked; });

let scrubbing = false;
scrub.addEventListener('pointerdown', () => { scrubbing = true; });
scrub.addEventListener('pointerup', () => { scrubbing = false; });
scrub.addEventListener('input', () => {
  viewer.currentTime = Number(scrub.value) * viewer.duration;
});

const bindRange = (input: HTMLInputElement, output: string, format: (v: number) => string, apply: (v: number) => void): void => {
  const out = $<HTMLOutputElement>(output);
  const update = (): void => {
    const v = Number(input.value);
    out.textContent = format(v);
    apply(v);
  };
  input.addEventListener('input', update);
  update();
};
bindRange(speed, 'speed-value', (v) => `${v.toFixed(2)}×`, (v) => { viewer.speed = v; });
bindRange(crossfade, 'crossfade-value', (v) => `${v.toFixed(2)} s`, (v) => { viewer.crossfadeDuration = v; });
bindRange(exposure, 'exposure-value', (v) => v.toFixed(2), (v) => { viewer.exposure = v; });

for (const radio of document.querySelectorAll<HTMLInputElement>('input[name=skinning]')) {
  radio.addEventListener('change', () => { if (radio.checked) viewer.skinning = radio.value; });
}

const debugBoxes = [...document.querySelectorAll<HTMLInputElement>('input[name=debug]')];
for (const box of debugBoxes) {
  box.addEventListener('change', () => {
    viewer.debug = debugBoxes.filter((b) => b.checked).map((b) => b.value).join(' ') || null;
  });
}

setupLook(viewer, {
  environment: $<HTMLSelectElement>('environment'),
  toneMapping: $<HTMLSelectElement>('tone-mapping'),
  shadowIntensity: $<HTMLInputElement>('shadow-intensity'),
  shadowValue: $<HTMLOutputElement>('shadow-intensity-value'),
  showHotspot: $<HTMLInputElement>('show-hotspot'),
  handHotspot: $('hand-hotspot'),
});

// ---------------------------------------------------------------- crowd and root motion

const rootMotionBox = $<HTMLInputElement>('root-motion');
rootMotionBox.addEventListener('change', () => { viewer.rootMotion = rootMotionBox.checked; });
bindRange($<HTMLInputElement>('instances'), 'instances-value', (v) => String(v), (v) => { viewer.instances = v; });
for (const radio of document.querySelectorAll<HTMLInputElement>('input[name=crowd-evaluator]')) {
  radio.addEventListener('change', () => { if (radio.checked) viewer.crowdEvaluator = radio.value; });
}

// ---------------------------------------------------------------- animation lab

setupVrmPanel(viewer, {
  fieldset: $<HTMLFieldSetElement>('vrm'),
  expressions: $('vrm-expressions'),
  lookAt: $<HTMLSelectElement>('vrm-look-at'),
  autoBlink: $<HTMLInputElement>('vrm-auto-blink'),
  springs: $<HTMLInputElement>('vrm-springs'),
  resetSprings: $<HTMLButtonElement>('vrm-reset-springs'),
  turn: $<HTMLInputElement>('vrm-turn'),
  turnValue: $<HTMLOutputElement>('vrm-turn-value'),
});

setupLab(viewer, {
  fieldset: $<HTMLFieldSetElement>('lab'),
  note: $('lab-note'),
  wave: $<HTMLInputElement>('lab-wave'),
  waveWeight: $<HTMLInputElement>('lab-wave-weight'),
  look: $<HTMLInputElement>('lab-look'),
  reach: $<HTMLInputElement>('lab-reach'),
  headScale: $<HTMLInputElement>('lab-head-scale'),
  armLength: $<HTMLInputElement>('lab-arm-length'),
});

// ---------------------------------------------------------------- stats, once per frame

const frameMs = new RollingAverage(60);
// Browsers quantise performance.now() (0.1 ms in Chromium), so the CPU times are averaged.
const poseMs = new RollingAverage(60);
const encodeMs = new RollingAverage(60);
const statFps = $('stat-fps'), statInstances = $('stat-instances'), statCulled = $('stat-culled'), statPose = $('stat-pose'), statEncode = $('stat-encode'), statGpu = $('stat-gpu');
const statJoints = $('stat-joints'), statVertices = $('stat-vertices'), statDraws = $('stat-draws'), statUploaded = $('stat-uploaded');
let lastTime = -1;
let frames = 0;

function tick(time: number): void {
  if (lastTime >= 0) frameMs.add(time - lastTime);
  lastTime = time;
  const duration = viewer.duration;
  if (!scrubbing && duration > 0) scrub.value = String(viewer.currentTime / duration);
  timeOut.textContent = `${viewer.currentTime.toFixed(2)} s`;
  const live = viewer.stats;
  if (live) {
    poseMs.add(live.poseMs);
    encodeMs.add(live.encodeMs);
  }
  // Text updates a few times a second: enough to read, and no layout work every frame.
  if (++frames % 15 === 0) {
    const stats = viewer.stats;
    statFps.textContent = frameMs.average > 0 ? (1000 / frameMs.average).toFixed(0) : '–';
    if (stats) {
      statPose.textContent = `${poseMs.average.toFixed(3)} ms`;
      statEncode.textContent = `${encodeMs.average.toFixed(3)} ms`;
      statGpu.textContent = stats.gpuMs === undefined ? 'n/a (no timestamp queries)' : `${stats.gpuMs.toFixed(2)} ms`;
      statInstances.textContent = String(stats.instances);
      statCulled.textContent = String(stats.culled);
      statJoints.textContent = String(stats.joints);
      statVertices.textContent = stats.vertices.toLocaleString();
      statDraws.textContent = String(stats.drawCalls);
      statUploaded.textContent = formatBytes(stats.bytesUploaded);
    }
    syncPlayButton();
  }
  requestAnimationFrame(tick);
}
requestAnimationFrame(tick);
