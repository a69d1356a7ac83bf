import { loadWithVrmModels } from '../gltf/extensions/vrm-dependents.ts';
import type { Model } from '../gltf/model.ts';
import { localToModel } from './local-to-model.ts';
import { animatedMaterials, MaterialAnimation } from './material-tracks.ts';
import { skinPalette } from './palette.ts';
import { createPose, setRestPose, type Pose } from './pose.ts';
import { createClipCursor, sampleCursor, type ClipCursor } from './sample.ts';
import { loadedVrmRuntime, loadVrmRuntime } from './vrm/runtime-loader.ts';
import type { VrmRuntime } from './vrm/vrm-runtime.ts';

// A VRM model's runtime arrives with its file: loadGltf fetches it while the file decodes.
loadWithVrmModels(loadVrmRuntime);

/**
 * One posed copy of a model: its pose, a key cursor per clip, world matrices of every
 * node, and the joint palettes of all its skinned mesh nodes back to back in one
 * Float32Array (the layout of the GPU palette storage buffer). Everything is sized
 * here; `update` allocates nothing.
 */
export interface ModelInstance {
  readonly model: Model;
  readonly pose: Pose;
  readonly cursors: readonly ClipCursor[];
  /** World (model-space) matrix of every node by slot, 16 doubles each. */
  readonly nodeMatrices: Float64Array;
  /** All palettes, 16 floats per joint; meshNodes[i]'s starts at matrix `paletteOffsets[i]`. */
  readonly palette: Float32Array;
  /** Per `model.meshNodes` entry: first palette matrix, or -1 for rigid meshes. */
  readonly paletteOffsets: Int32Array;
  /** Total joint matrices in `palette`. */
  readonly paletteMatrixCount: number;
  /** Per-frame material values: KHR_animation_pointer tracks and VRM expression binds; absent when nothing animates a material. */
  readonly materialAnimation?: MaterialAnimation;
  /** The VRM steps (look-at, expressions, constraints, spring bones), only for a model with VRM data. */
  readonly vrm?: VrmRuntime;
}

/**
 * Where each skinned mesh node's palette starts in one palette of all of them, in matrices
 * (per `model.meshNodes` entry; -1 for rigid meshes), and the matrices in all. Load time.
 */
export function paletteLayout(model: Model): { readonly offsets: Int32Array; readonly matrixCount: number } {
  const offsets = new Int32Array(model.meshNodes.length).fill(-1);
  let matrixCount = 0;
  model.meshNodes.forEach((mn, i) => {
    if (mn.skin < 0) return;
    offsets[i] = matrixCount;
    matrixCount += model.skins[mn.skin].joints.length;
  });
  return { offsets, matrixCount };
}

/**
 * Allocates one character of `model`: a pose at rest, node matrices and palettes (filled by the first
 * update), a clip cursor per clip, and its material animation and VRM steps when the model has them.
 * Everything a frame needs is made here, once.
 */
export function createModelInstance(model: Model): ModelInstance {
  const { offsets: paletteOffsets, matrixCount: count } = paletteLayout(model);
  const pose = createPose(model);
  const nodeMatrices = new Float64Array(model.hierarchy.count * 16);
  const materialAnimation = animatedMaterials(model).length > 0 ? new MaterialAnimation(model) : undefined;
  const instance: ModelInstance = {
    model,
    pose,
    cursors: model.animations.map(createClipCursor),
    nodeMatrices,
    palette: new Float32Array(count * 16),
    paletteOffsets,
    paletteMatrixCount: count,
    ...(materialAnimation ? { materialAnimation } : {}),
    ...(model.vrm ? { vrm: new (vrmRuntimeFor(model))(model, pose, nodeMatrices, materialAnimation) } : {}),
  };
  updateModelInstance(instance, -1, 0);
  return instance;
}

/** The VRM runtime's class, which loadGltf loaded with the VRM file; named in an error for a model made another way. */
function vrmRuntimeFor(model: Model): typeof VrmRuntime {
  const runtime = loadedVrmRuntime();
  if (!runtime) {
    throw new Error(`createModelInstance: ${model.name} has VRM data but the VRM runtime is not loaded yet; `
      + 'loadGltf loads it with a VRM file, otherwise await loadVrmRuntime() first');
  }
  return runtime;
}

/**
 * Poses the instance at `time` seconds of clip `clip` (-1: rest pose), then computes
 * node matrices and every palette: inverse(meshNodeWorld) · jointWorld · inverseBind,
 * so a skinned draw uses its mesh node's world matrix like any other draw.
 */
export function updateModelInstance(instance: ModelInstance, clip: number, time: number): void {
  const { model, pose } = instance;
  setRestPose(model, pose);
  if (clip >= 0) {
    const cursor = instance.cursors[clip];
    cursor.time = time;
    sampleCursor(cursor, pose);
  }
  const materials = instance.materialAnimation;
  if (materials) {
    materials.clip = clip;
    materials.time = time;
    materials.fromClip = -1;
    materials.evaluate();
  }
  updateMatricesAndPalettes(instance);
}

/**
 * Node matrices and palettes from whatever is in `instance.pose` (e.g. after blending), with a
 * VRM model's steps (`instance.vrm`) between the two.
 */
export function updateMatricesAndPalettes(instance: ModelInstance): void {
  const { model } = instance;
  if (instance.vrm) {
    instance.vrm.updateNodeMatrices();
    instance.vrm.run();
  } else {
    localToModel(model.hierarchy, instance.pose, instance.nodeMatrices);
  }
  skinPalettes(model, instance.nodeMatrices, instance.palette, instance.paletteOffsets);
}

/**
 * Every skinned mesh node's palette from `nodeMatrices` (localToModel's output) into `palette`
 * at `paletteOffsets` (paletteLayout): mesh-relative, as updateMatricesAndPalettes makes them.
 * Allocates nothing.
 */
export function skinPalettes(model: Model, nodeMatrices: Float64Array, palette: Float32Array, paletteOffsets: Int32Array): void {
  const meshNodes = model.meshNodes;
  for (let i = 0; i < meshNodes.length; i++) {
    const offset = paletteOffsets[i];
    if (offset < 0) continue;
    const mn = meshNodes[i];
    skinPalette(model.skins[mn.skin], nodeMatrices, model.hierarchy.slotOf[mn.node], palette, offset);
  }
}
