/**
 * What hotspots and picking need beyond placing a point: the skinned ray caster (occlusion,
 * `data-surface`, `positionAndNormalFromPoint`, `surfaceFromPoint`) and humanoid bone names for
 * `data-joint`. One module that hotspots.ts imports on first use, so a built page has it in a
 * chunk of its own that a page without hotspots fetches only once it is idle after its first frame.
 */
export { createRayHit, SkinnedRaycaster } from '../../skin/raycast.ts';
export { humanoidBoneSlot } from '../../anim/retarget/joint-map.ts';
