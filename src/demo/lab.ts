/**
 * The demo's "Animation lab": the CPU animation features beyond playback, on the built-in
 * character, through the viewer's public advanced API (`player`, `beforeRender`,
 * `requestRender`, `showModel`):
 *  - an additive Wave layer masked to the Spine subtree, over whatever clip plays;
 *  - an AimJob turning the Head toward a point circling in front of the character;
 *  - a TwoBoneIKJob putting the left hand on a point moving in a small circle;
 *  - bind-pose edits (head scale, arm length) through `editBindPose`, shown as a new model.
 * Other models lack the joints and clips, so the lab is disabled for them with a note.
 */
import {
  AimJob, createPose, editBindPose, findSlot, setRestPose, subtreeMask, TwoBoneIKJob, updateMatricesAndPalettes,
  type AnimationPlayer, type ClipLayer, type Model, type SkinnedMeshViewerElement,
} from 'skinned-mesh-webgpu';

const REQUIRED_JOINTS = ['Spine', 'Head', 'UpperArm.L', 'LowerArm.L', 'Hand.L', 'UpperArm.R'] as const;
/** Seconds into Wave where the arm is up: the layer starts here when switched on, so it shows at once (paused too). */
const WAVE_START = 1;
/** Bind-pose edits wait for the slider to rest this long (each edit re-uploads the model). */
const EDIT_DEBOUNCE_MS = 200;

export interface LabControls {
  fieldset: HTMLFieldSetElement;
  note: HTMLElement;
  wave: HTMLInputElement;
  waveWeight: HTMLInputElement;
  look: HTMLInputElement;
  reach: HTMLInputElement;
  headScale: HTMLInputElement;
  armLength: HTMLInputElement;
}

/** What the lab attached to one AnimationPlayer (a new one comes with every load). */
interface Rig {
  readonly player: AnimationPlayer;
  readonly wave: ClipLayer;
  readonly aim: AimJob;
  readonly ik: TwoBoneIKJob;
}

function isCharacter(model: Model): boolean {
  if (!model.animations.some((c) => c.name === 'Wave')) return false;
  try {
    for (const name of REQUIRED_JOINTS) findSlot(model, name);
    return true;
  } catch {
    return false;
  }
}

export function setupLab(viewer: SkinnedMeshViewerElement, ui: LabControls): void {
  let rig: Rig | undefined;
  /** The unedited model the customise sliders start from. */
  let baseModel: Model | undefined;
  /** The edited model being loaded by the lab itself, and the playback to restore on it. */
  let pendingEdit: { model: Model; time: number; paused: boolean } | undefined;
  let editTimer = 0;
  /** Whether the wave box was on at the last sync: switching it on starts the wave again. */
  let waveOn = false;
  /** Seconds of lab time: moves the look and reach targets, only while the clip plays. */
  let clock = 0;
  const lookTarget = new Float64Array(3);
  const reachTarget = new Float64Array(3);
  const reachPole = Float64Array.of(0, -0.5, -1); // elbow down and behind

  const $output = (id: string): HTMLElement => document.getElementById(id)!;

  // The per-frame hook: runs after the clip and its layers, before palettes upload. Allocates nothing.
  const hook = (player: AnimationPlayer, dt: number): void => {
    if (!rig || rig.player !== player) return;
    clock += dt;
    if (ui.look.checked) {
      lookTarget[0] = 0.6 * Math.cos(1.3 * clock);
      lookTarget[1] = 1.6 + 0.25 * Math.sin(2.1 * clock);
      lookTarget[2] = 1;
      rig.aim.run();
    }
    if (ui.reach.checked) {
      // The arm is not below the head, so the aimed head leaves these matrices valid.
      reachTarget[0] = 0.35 + 0.1 * Math.cos(3 * clock);
      reachTarget[1] = 1.2 + 0.1 * Math.sin(3 * clock);
      reachTarget[2] = 0.3;
      rig.ik.run();
    }
    updateMatricesAndPalettes(player.instance);
  };

  /** The pose changed while perhaps paused: evaluate again and draw. */
  const refresh = (): void => {
    rig?.player.evaluate();
    viewer.requestRender();
  };

  const syncHook = (): void => {
    viewer.beforeRender = rig && (ui.look.checked || ui.reach.checked) ? hook : null;
    refresh();
  };

  const syncWave = (): void => {
    if (rig) {
      // Every layer's time runs on with the clip (the wave's too while its weight is 0), looping
      // over Wave's 2.5 s, whose ends are the arm down: without this, the box switched on could
      // show nothing, depending on how long the clip had played since the model loaded.
      if (ui.wave.checked && !waveOn) rig.wave.time = WAVE_START;
      rig.wave.weight = ui.wave.checked ? Number(ui.waveWeight.value) : 0;
    }
    waveOn = ui.wave.checked;
    $output('lab-wave-weight-value').textContent = Number(ui.waveWeight.value).toFixed(2);
    refresh();
  };

  const attach = (player: AnimationPlayer): Rig => {
    const model = player.model;
    const h = model.hierarchy;
    const { pose, nodeMatrices } = player.instance;
    const waveClip = model.animations.findIndex((c) => c.name === 'Wave');
    const wave = player.layers.addAdditive(waveClip, 0, subtreeMask(h, findSlot(model, 'Spine')));
    wave.time = WAVE_START;
    const aim = new AimJob(h, pose, nodeMatrices, findSlot(model, 'Head'), lookTarget);
    aim.limit = (70 * Math.PI) / 180;
    aim.validate();
    const ik = new TwoBoneIKJob(h, pose, nodeMatrices, findSlot(model, 'UpperArm.L'), findSlot(model, 'LowerArm.L'), findSlot(model, 'Hand.L'), reachTarget, reachPole);
    ik.validate();
    return { player, wave, aim, ik };
  };

  const showEdit = (): void => {
    editTimer = 0;
    const base = baseModel;
    if (!base || !viewer.loaded) return;
    const headScale = Number(ui.headScale.value), armLength = Number(ui.armLength.value);
    const rest = setRestPose(base, createPose(base));
    const head = findSlot(base, 'Head');
    for (let i = 0; i < 3; i++) rest.scale[head * 3 + i] *= headScale;
    // Bones run along their joint's local +Y: scaling Y lengthens the upper arm, and the forearm moves out with it.
    for (const side of ['L', 'R']) rest.scale[findSlot(base, `UpperArm.${side}`) * 3 + 1] *= armLength;
    const edited = editBindPose(base, rest);
    pendingEdit = { model: edited, time: viewer.currentTime, paused: viewer.paused };
    viewer.showModel(edited);
  };

  const scheduleEdit = (): void => {
    $output('lab-head-scale-value').textContent = `${Number(ui.headScale.value).toFixed(2)}×`;
    $output('lab-arm-length-value').textContent = `${Number(ui.armLength.value).toFixed(2)}×`;
    if (editTimer !== 0) clearTimeout(editTimer);
    editTimer = window.setTimeout(showEdit, EDIT_DEBOUNCE_MS);
  };

  viewer.addEventListener('load', () => {
    const model = viewer.model!;
    const player = viewer.player!;
    const edit = pendingEdit && pendingEdit.model === model ? pendingEdit : undefined;
    pendingEdit = undefined;
    const usable = isCharacter(model);
    ui.fieldset.disabled = !usable;
    ui.note.hidden = usable;
    if (!edit) {
      // A different model: the sliders start again from it.
      baseModel = usable ? model : undefined;
      ui.headScale.value = '1';
      ui.armLength.value = '1';
      $output('lab-head-scale-value').textContent = '1.00×';
      $output('lab-arm-length-value').textContent = '1.00×';
    }
    rig = usable ? attach(player) : undefined;
    if (edit) {
      if (edit.paused) viewer.pause();
      viewer.currentTime = edit.time;
    }
    syncWave();
    syncHook();
  });

  ui.wave.addEventListener('change', syncWave);
  ui.waveWeight.addEventListener('input', syncWave);
  ui.look.addEventListener('change', syncHook);
  ui.reach.addEventListener('change', syncHook);
  ui.headScale.addEventListener('input', scheduleEdit);
  ui.armLength.addEventListener('input', scheduleEdit);
}
