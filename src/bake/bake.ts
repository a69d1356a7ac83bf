import { createClipCursor, sampleClip } from '../anim/sample.ts';
import { LayerBlendingJob } from '../anim/blend-layers.ts';
import { localToModel } from '../anim/local-to-model.ts';
import { skinPalette } from '../anim/palette.ts';
import { dqPaletteFromMatrices } from '../anim/dq-palette.ts';
import { createPose, setRestPose, type Pose } from '../anim/pose.ts';
import type { Model, Primitive } from '../gltf/model.ts';
import { createSkinnedVertices } from '../skin/cpu-skin.ts';
import { parseSkinningMethod, usesDqPalette, type SkinningMethod } from '../anim/skinning-method.ts';
import { skinPrimitiveWith } from '../skin/skin-with.ts';
import { applyMorphTargets, createMorphedVertices, type MorphedVertices } from '../skin/morph.ts';
import { bakeVrmPose, type BakeExpression, type SpringSteps } from './vrm-bake.ts';

/**
 * What `bakeModel` poses: which clip at which time, an optional second clip blended over it, the skinning
 * method, and a VRM's spring steps and expressions.
 */
export interface BakeOptions {
  /** Clip index, or name; default 0. Ignored (rest pose) when the model has no animations. */
  readonly animation?: number | string;
  /** Seconds; default 0. Each channel clamps to its own key range. */
  readonly time?: number;
  /**
   * A second clip blended over the first: pose = blend(first at `time`, `animation` at
   * `time` (default: the first's time)) with `weight` in [0, 1] on the second. Weight 0 is
   * exactly the unblended pose, 1 exactly the second clip's.
   */
  readonly blend?: { readonly animation: number | string; readonly weight: number; readonly time?: number };
  /** How vertices blend their joints; default 'linear'. Any other string throws naming the choices. */
  readonly skinning?: SkinningMethod;
  /** VRM spring bones: N steps of S seconds ending at `time` (vrm-bake.ts); without it they stay at rest. */
  readonly springSteps?: SpringSteps;
  /** VRM expression weights to pose with; an unknown name throws naming the model's. */
  readonly expressions?: readonly BakeExpression[];
}

/**
 * One skinned primitive of the default scene, posed: world-space positions (and normals and tangents when it
 * has them), in the accessor's vertex order.
 */
export interface BakedPrimitive {
  readonly node: number;
  readonly mesh: number;
  readonly primitive: number;
  readonly vertexCount: number;
  /** World-space data, vertex order as in the glTF accessors. */
  readonly positions: Float64Array;
  readonly normals: Float64Array | undefined;
  readonly tangents: Float64Array | undefined;
}

/**
 * What `bakeModel` returns: the clip and time it posed, and every skinned primitive of the default scene in
 * world space.
 */
export interface BakeResult extends BakePose {
  readonly primitives: readonly BakedPrimitive[];
}

/** Resolves `--animation` (an index or a name) to a clip index, or throws naming the choices. */
export function resolveAnimation(model: Model, animation: number | string | undefined): number {
  const clips = model.animations;
  if (clips.length === 0) return -1;
  if (animation === undefined) return 0;
  const asIndex = typeof animation === 'number' ? animation : /^\d+$/.test(animation) ? Number(animation) : NaN;
  if (Number.isInteger(asIndex) && asIndex >= 0 && asIndex < clips.length) return asIndex;
  const byName = clips.findIndex((c) => c.name === animation);
  if (byName >= 0) return byName;
  const names = clips.map((c, i) => (c.name ? `${i} "${c.name}"` : String(i))).join(', ');
  throw new Error(`animation ${JSON.stringify(animation)} not found; the model has ${clips.length}: ${names}`);
}

/** The posed scene a bake starts from: node world matrices at a clip time, and the result header. */
export interface BakePose {
  readonly asset: string;
  /** null when the model has no animations (rest pose). */
  readonly animation: { readonly index: number; readonly name: string | null } | null;
  readonly time: number;
  /** Model-space (world) matrix of every node by slot, for exporting the rest of the posed scene. */
  readonly nodeMatrices: Float64Array;
  /** The sampled local pose; its `weights` hold every node's morph weights. */
  readonly pose: Pose;
}

/** Samples the chosen clip at the time and computes every node's world matrix (shared by the CPU and GPU bakes). */
export function poseForBake(model: Model, options: BakeOptions = {}): BakePose {
  const time = options.time ?? 0;
  if (!Number.isFinite(time)) throw new Error(`time ${time} is not a finite number`);
  const clipIndex = resolveAnimation(model, options.animation);
  const pose = createPose(model);
  const cursor = clipIndex >= 0 ? createClipCursor(model.animations[clipIndex]) : undefined;
  // The pose at clip time t (a blend's clip at the same offset from its own time).
  const sampleAt = (t: number): void => {
    setRestPose(model, pose);
    if (cursor) sampleClip(cursor, t, pose);
    if (options.blend) blendForBake(model, { ...options.blend, time: (options.blend.time ?? time) + (t - time) }, t, pose);
  };
  const h = model.hierarchy;
  const nodeMatrices = new Float64Array(h.count * 16);
  if (model.vrm) {
    bakeVrmPose(model, pose, nodeMatrices, time, sampleAt, options.springSteps, options.expressions);
  } else {
    if (options.expressions?.length) throw new Error(`${model.name} has no VRM expressions`);
    sampleAt(time);
    localToModel(h, pose, nodeMatrices);
  }
  const clip = clipIndex >= 0 ? model.animations[clipIndex] : undefined;
  return {
    asset: model.name,
    animation: clip ? { index: clipIndex, name: clip.name ?? null } : null,
    time,
    nodeMatrices,
    pose,
  };
}

/** A mesh node's primitive with its morph targets applied at the pose's weights (or the primitive itself). */
export function morphForBake(model: Model, posed: BakePose, node: number, prim: Primitive): MorphedVertices | Primitive {
  if (prim.targets.length === 0) return prim;
  const slot = model.hierarchy.slotOf[node];
  const { weights, weightOffsets } = posed.pose;
  return applyMorphTargets(prim, weights, weightOffsets[slot], weightOffsets[slot + 1] - weightOffsets[slot], createMorphedVertices(prim));
}

/** Blends `pose` toward the `blend` clip (see BakeOptions.blend), validating it first. */
function blendForBake(model: Model, blend: NonNullable<BakeOptions['blend']>, time: number, pose: Pose): void {
  const { weight } = blend;
  if (!(weight >= 0 && weight <= 1)) throw new Error(`blend weight ${weight} is not a number in [0, 1]`);
  const blendTime = blend.time ?? time;
  if (!Number.isFinite(blendTime)) throw new Error(`blend time ${blendTime} is not a finite number`);
  if (model.animations.length === 0) throw new Error('the model has no animations to blend');
  const second = createPose(model);
  sampleClip(createClipCursor(model.animations[resolveAnimation(model, blend.animation)]), blendTime, second);
  // Two layers of the N-way job: exactly slerp/lerp between them, and a layer of weight 0
  // contributes nothing, so the ends reproduce either clip bit for bit.
  const job = new LayerBlendingJob([{ pose, weight: 1 - weight, mask: null }, { pose: second, weight, mask: null }], createPose(model), pose);
  job.run();
}

/**
 * Poses the model at a clip time, applies morph targets at the sampled weights, and skins
 * every skinned primitive of the scene on the CPU into world space — the glTF definition Σ wᵢ · (jointGlobalᵢ · inverseBindᵢ) · v
 * (or, with `skinning: 'dual-quaternion'`, src/skin/dqs.ts on the same palette; with
 * 'center-of-rotation', src/skin/cor.ts, the centres computed here when nothing settled them:
 * see `modelCentersHere` for their warnings), computed in double precision.
 */
export function bakeModel(model: Model, options: BakeOptions = {}): BakeResult {
  const skinning = parseSkinningMethod(options.skinning);
  const posed = poseForBake(model, options);
  const primitives: BakedPrimitive[] = [];
  for (const meshNode of model.meshNodes) {
    if (meshNode.skin < 0) continue;
    const skin = model.skins[meshNode.skin];
    const palette = skinPalette(skin, posed.nodeMatrices, -1, new Float64Array(skin.joints.length * 16));
    // Dual quaternions and centres of rotation: each matrix split in place into its DqJoint entry (same 16 floats).
    if (usesDqPalette(skinning)) dqPaletteFromMatrices(palette, skin.joints.length, palette);
    model.meshes[meshNode.mesh].primitives.forEach((prim, p) => {
      if (prim.influences === 0) return;
      const source = morphForBake(model, posed, meshNode.node, prim);
      const out = skinPrimitiveWith(skinning, prim, palette, createSkinnedVertices(prim, 'float64'), 0, source);
      primitives.push({
        node: meshNode.node, mesh: meshNode.mesh, primitive: p, vertexCount: prim.vertexCount,
        positions: out.positions as Float64Array,
        normals: out.normals as Float64Array | undefined,
        tangents: out.tangents as Float64Array | undefined,
      });
    });
  }
  return { ...posed, primitives };
}
