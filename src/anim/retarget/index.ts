/**
 * `skinned-mesh-webgpu/retarget`: clips from other files, retargeted between skeletons and
 * baked into ordinary clips. Also part of the full API (`.`).
 *
 * @module skinned-mesh-webgpu/retarget
 */
export { loadAnimationLibrary, type AnimationLibrary, type AnimationLibraryOptions } from './animation-library.ts';
export { retargetClips, type RetargetOptions, type RetargetResult } from './retarget.ts';
export { addClips } from './add-clips.ts';
export {
  mapJoints, RetargetError, type JointMapping, type JointMapOptions, type JointMatch, type JointPair, type RetargetSkeleton,
} from './joint-map.ts';
export type { HumanoidBone, HumanoidMap } from '../../gltf/humanoid.ts';
export type { ReferencePose } from './reference-pose.ts';
