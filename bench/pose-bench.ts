/**
 * Per-frame pose evaluation for a crowd: ours (sample → local→model → world palette for
 * every skinned node) against three.js doing the same job on the same glTF data
 * (AnimationMixer.update → scene.updateMatrixWorld → Skeleton.update).
 *
 * Every character plays the same clip at its own phase. Both sides produce one world
 * palette per skin (jointWorld · inverseBind, 16 floats per joint, Float32 like a GPU
 * upload): ours into one shared Float32Array, three into each skeleton.boneMatrices.
 */
import { AnimationMixer, Scene, type AnimationClip, type Object3D, type SkinnedMesh } from 'three';
import { clone as cloneSkinned } from 'three/examples/jsm/utils/SkeletonUtils.js';
import type { GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { localToModel } from '../src/anim/local-to-model.ts';
import { skinPalette } from '../src/anim/palette.ts';
import { createPose, type Pose } from '../src/anim/pose.ts';
import { createClipCursor, sampleClip, sampleCursor, type ClipCursor } from '../src/anim/sample.ts';
import type { Clip, Hierarchy, Model, Skin } from '../src/gltf/model.ts';

/** Frame step of the simulated playback (seconds). */
export const FRAME_SECONDS = 1 / 60;

/** Spreads phases over the clip with the golden ratio so no two characters share one. */
export function phaseOf(index: number, duration: number): number {
  return ((index * 0.6180339887498949) % 1) * duration;
}

// ---------------------------------------------------------------------------- ours

export interface OurCharacter {
  readonly pose: Pose;
  readonly cursor: ClipCursor;
  /** localToModel output, 16 per slot. */
  readonly models: Float64Array;
  readonly phase: number;
  /** First matrix of this character's palettes in the shared palette buffer. */
  readonly paletteOffset: number;
}

export class OurCrowd {
  readonly hierarchy: Hierarchy;
  readonly clip: Clip;
  readonly characters: OurCharacter[] = [];
  /** Skins of the scene's skinned mesh nodes, one palette each per character. */
  readonly skins: Skin[] = [];
  readonly skinOffsets: Int32Array;
  /** Joints (palette matrices) per character. */
  readonly joints: number;
  /** World palettes of all characters, as they would be uploaded. */
  readonly palette: Float32Array;

  constructor(model: Model, clipIndex: number, count: number) {
    this.hierarchy = model.hierarchy;
    this.clip = model.animations[clipIndex];
    let joints = 0;
    const offsets: number[] = [];
    for (const node of model.meshNodes) {
      if (node.skin < 0) continue;
      offsets.push(joints);
      this.skins.push(model.skins[node.skin]);
      joints += model.skins[node.skin].joints.length;
    }
    this.skinOffsets = Int32Array.from(offsets);
    this.joints = joints;
    this.palette = new Float32Array(count * joints * 16);
    for (let i = 0; i < count; i++) {
      this.characters.push({
        pose: createPose(model),
        cursor: createClipCursor(this.clip),
        models: new Float64Array(model.hierarchy.count * 16),
        phase: phaseOf(i, this.clip.duration),
        paletteOffset: i * joints,
      });
    }
  }

  /**
   * Evaluates every character at frame `frameIndex` (an integer, so the call itself boxes
   * no double). Each character's clip time goes into its cursor's `time` field, which V8
   * updates in place, so no double is boxed per character either.
   */
  frame(frameIndex: number): void {
    const time = frameIndex * FRAME_SECONDS;
    const chars = this.characters;
    const skins = this.skins;
    const offsets = this.skinOffsets;
    const duration = this.clip.duration;
    const h = this.hierarchy;
    const palette = this.palette;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i];
      c.cursor.time = (time + c.phase) % duration;
      sampleCursor(c.cursor, c.pose);
      localToModel(h, c.pose, c.models);
      for (let s = 0; s < skins.length; s++) skinPalette(skins[s], c.models, -1, palette, c.paletteOffset + offsets[s]);
    }
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
 * `skeleton.boneMatrices` (boneWorld · boneInverse) with our world palette (meshSlot -1),
 * joint by joint — three's bones are the glTF skin's joints in order.
 */
export function checkPalettes(model: Model, clipIndex: number, gltf: GLTF, tolerance: number): PaletteCheck {
  const clip = model.animations[clipIndex];
  const times = [0, 0.13, 0.37, 0.5, 0.71, 0.93].map((f) => f * clip.duration);
  const ours = new OurCrowd(model, clipIndex, 1);
  const ourPalette = new Float64Array(ours.joints * 16);
  let maxRelativeError = 0;
  let worst = '';
  for (const time of times) {
    const three = new ThreeCrowd(gltf, gltf.animations[clipIndex], 1);
    three.mixers[0].setTime(time);
    three.scene.updateMatrixWorld();
    for (const s of three.skeletons) s.update();

    const c = ours.characters[0];
    sampleClip(createClipCursor(clip), time, c.pose);
    localToModel(ours.hierarchy, c.pose, c.models);
    ours.skins.forEach((skin, s) => skinPalette(skin, c.models, -1, ourPalette, ours.skinOffsets[s]));

    if (three.skeletons.length !== ours.skins.length) throw new Error(`three has ${three.skeletons.length} skeletons, we have ${ours.skins.length} skins`);
    three.skeletons.forEach((skeleton, s) => {
      const b = skeleton.boneMatrices!;
      if (b.length !== ours.skins[s].joints.length * 16) throw new Error(`skin ${s}: three has ${b.length / 16} bones, we have ${ours.skins[s].joints.length} joints`);
      for (let j = 0; j < b.length / 16; j++) {
        const o = (ours.skinOffsets[s] + j) * 16;
        let diff = 0, scale = 0;
        for (let k = 0; k < 16; k++) {
          diff = Math.max(diff, Math.abs(b[j * 16 + k] - ourPalette[o + k]));
          scale = Math.max(scale, Math.abs(ourPalette[o + k]));
        }
        const rel = diff / scale;
        if (!(rel <= maxRelativeError)) {
          maxRelativeError = rel;
          worst = `t=${time.toFixed(4)} skin ${s} joint ${j}`;
        }
      }
    });
  }
  return { times, maxRelativeError, worst, pass: maxRelativeError <= tolerance };
}
