/**
 * The VRM readers, one module that load.ts imports only for a file with a VRM part
 * (vrm-presence.ts): the humanoid map, the VRM extensions into `Model.vrm`, a VRM animation's
 * tracks and VRM 0.x's MToon materials.
 */
export { readVrmHumanoid } from './vrm-humanoid.ts';
export { readVrm, vrmAnimationClips } from './vrm.ts';
export { convertVrm0Materials } from './vrm0-mtoon.ts';
