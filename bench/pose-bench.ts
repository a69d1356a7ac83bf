/**
 * Per-frame pose evaluation for a crowd: ours (`updateInstanceBatch`: rest pose, sample,
 * local→model, world palette for every skinned node) against three.js doing the same job
 * on the same glTF data (AnimationMixer.update → scene.updateMatrixWorld → Skeleton.update).
 *
 * Every character plays the same clip at its own phase. Both sides produce one world
 * palette per skin (jointWorld · inverseBind, 16 floats per joint, Float32 like a GPU
 * upload): ours into one shared Float32Array, three into each skeleton.boneMatrices.
 */
import { AnimationMixer, Scene, type AnimationClip, type Object3D, type SkinnedMesh } from 'three';
import { clone as cloneSkinned } from 'three/examples/jsm/utils/SkeletonUtils.js';
import type { GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { createInstanceBatch, updateInstanceBatch, type InstanceBatch } from '../src/anim/batch.ts';
import type { Model } from '../src/gltf/model.ts';

/** Frame step of the simulated playback (seconds). */
export const FRAME_SECONDS = 1 / 60;

/** Spreads phases over the clip with the golden ratio so no two characters share one. */
export function phaseOf(index: number, duration: number): number {
  return ((index * 0.6180339887498949) % 1) * duration;
}

// ---------------------------------------------------------------------------- ours

/**
 * Our crowd: one `InstanceBatch` (world palettes, like three's boneMatrices), every
 * character playing the same clip at its own phase. `wasm: false` runs the JS jobs.
 */
export class OurCrowd {
  readonly batch: InstanceBatch;
  /** Joints (palette matrices) per character. */
  readonly joints: number;
  readonly duration: number;
  readonly phases: Float64Array;

  constructor(model: Model, clipIndex: number, count: number, options: { wasm?: boolean } = {}) {
    this.batch = createInstanceBatch(model, count, { worldPalettes: true, wasm: options.wasm });
    this.batch.clips.fill(clipIndex);
    this.joints = this.batch.paletteMatrixCount;
    this.duration = model.animations[clipIndex].duration;
    this.phases = Float64Array.from({ length: count }, (_, i) => phaseOf(i, this.duration));
  }

  /** World palettes of all characters, as they would be uploaded. */
  get palette(): Float32Array {
    return this.batch.palette;
  }

  /**
   * Evaluates every character at frame `frameIndex` (an integer, so the call itself boxes
   * no double). Clip times go into the batch's Float64Array, so none is boxed either.
   */
  frame(frameIndex: number): void {
    const time = frameIndex * FRAME_SECONDS;
    const { times } = this.batch;
    const phases = this.phases, duration = this.duration;
    for (let i = 0; i < times.length; i++) {
      const t = time + phases[i];
      times[i] = t - Math.floor(t / duration) * duration; // t mod duration without a call to fmod
    }
    updateInstanceBatch(this.batch);
  }
}

// ---------------------------------------------------------------------------- three.js

export class ThreeCrowd {
  readonly scene = new Scene();
  readonly mixers: AnimationMixer[] = [];
  readonly skeletons: SkinnedMesh['skeleton'][] = [];
  readonly roots: Object3D[] = [];

  constructor(gltf: GLTF, clip: AnimationClip, count: number) {
    for (let i = 0; i < count; i++) {
      const root = cloneSkinned(gltf.scene);
      this.scene.add(root);
      this.roots.push(root);
      root.traverse((o) => {
        if ((o as SkinnedMesh).isSkinnedMesh) this.skeletons.push((o as SkinnedMesh).skeleton);
      });
      const mixer = new AnimationMixer(root);
      const action = mixer.clipAction(clip);
      action.play();
      action.time = phaseOf(i, clip.duration);
      this.mixers.push(mixer);
    }
  }

  /** Advances every character by `dt` seconds, the way a three.js app does each frame. */
  frame(dt: number): void {
    const mixers = this.mixers;
    for (let i = 0; i < mixers.length; i++) mixers[i].update(dt);
    this.scene.updateMatrixWorld();
    const skeletons = this.skeletons;
    for (let i = 0; i < skeletons.length; i++) skeletons[i].update();
  }
}

// ---------------------------------------------------------------------------- palette check

export interface PaletteCheck {
  readonly times: number[];
  /** Largest max-abs element difference of a palette matrix, over its largest element. */
  readonly maxRelativeError: number;
  readonly worst: string;
  readonly pass: boolean;
}

/**
 * Poses one character on both sides at several clip times and compares three's
 * `skeleton.boneMatrices` (boneWorld · boneInverse) with our world palette from the
 * benchmarked path (`OurCrowd`), on the WebAssembly kernel and on the JS jobs, joint by
 * joint — three's bones are the glTF skin's joints in order.
 */
export function checkPalettes(model: Model, clipIndex: number, gltf: GLTF, tolerance: number): PaletteCheck {
  const clip = model.animations[clipIndex];
  const times = [0, 0.13, 0.37, 0.5, 0.71, 0.93].map((f) => f * clip.duration);
  const crowds = [new OurCrowd(model, clipIndex, 1), new OurCrowd(model, clipIndex, 1, { wasm: false })];
  const skinOffsets = crowds[0].batch.layout.meshes.map((m) => m.paletteOffset);
  let maxRelativeError = 0;
  let worst = '';
  for (const time of times) {
    const three = new ThreeCrowd(gltf, gltf.animations[clipIndex], 1);
    three.mixers[0].setTime(time);
    three.scene.updateMatrixWorld();
    for (const s of three.skeletons) s.update();
    if (three.skeletons.length !== skinOffsets.length) throw new Error(`three has ${three.skeletons.length} skeletons, we have ${skinOffsets.length} skins`);

    for (const ours of crowds) {
      ours.batch.times[0] = time;
      updateInstanceBatch(ours.batch);
      const ourPalette = ours.palette;
      const path = ours.batch.accelerated ? 'wasm' : 'js';
      three.skeletons.forEach((skeleton, s) => {
        const b = skeleton.boneMatrices!;
        const joints = ours.batch.layout.meshes[s].jointCount;
        if (b.length !== joints * 16) throw new Error(`skin ${s}: three has ${b.length / 16} bones, we have ${joints} joints`);
        for (let j = 0; j < b.length / 16; j++) {
          const o = (skinOffsets[s] + j) * 16;
          let diff = 0, scale = 0;
          for (let k = 0; k < 16; k++) {
            diff = Math.max(diff, Math.abs(b[j * 16 + k] - ourPalette[o + k]));
            scale = Math.max(scale, Math.abs(ourPalette[o + k]));
          }
          const rel = diff / scale;
          if (!(rel <= maxRelativeError)) {
            maxRelativeError = rel;
            worst = `t=${time.toFixed(4)} skin ${s} joint ${j} (${path})`;
          }
        }
      });
    }
  }
  return { times, maxRelativeError, worst, pass: maxRelativeError <= tolerance };
}
