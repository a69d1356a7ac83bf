/**
 * The material-animation scene of test/anim/material-tracks.test.ts and its allocation check in
 * test/anim/allocation.test.ts (KHR_animation_pointer tracks on material 0).
 */
import { loadGltf } from '../../src/gltf/load.ts';
import type { Model } from '../../src/gltf/model.ts';
import { addPointerAnimation, asPointerTrack, buildPointerScene, SceneNode } from '../support/animation-pointer.ts';

/**
 * Clip 0 "pulse": material 0's base colour LINEAR red → blue, emissive STEP, alpha cutoff
 * CUBICSPLINE, base colour UV offset LINEAR, emissive UV rotation LINEAR; and node rotation.
 * Clip 1 "blue": material 0's base colour held blue. Material 1 is never animated.
 */
export function buildPulse(): Promise<Model> {
  return loadGltf(buildPointerScene((b) => {
    addPointerAnimation(b, 'pulse', [
      { pointer: '/materials/0/pbrMetallicRoughness/baseColorFactor', input: Float32Array.of(0, 1), output: Float32Array.of(1, 0, 0, 1, 0, 0, 1, 0.5), type: 'VEC4' },
      { pointer: '/materials/0/emissiveFactor', input: Float32Array.of(0, 0.5), output: Float32Array.of(1, 1, 1, 0, 0.5, 0), type: 'VEC3', interpolation: 'STEP' },
      // in-tangent, value, out-tangent per key: 0.2 → 0.8 with zero tangents (smoothstep).
      { pointer: '/materials/0/alphaCutoff', input: Float32Array.of(0, 2), output: Float32Array.of(0, 0.2, 0, 0, 0.8, 0), type: 'SCALAR', interpolation: 'CUBICSPLINE' },
      { pointer: '/materials/0/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/offset', input: Float32Array.of(0, 1), output: Float32Array.of(0, 0, 1, -2), type: 'VEC2' },
      { pointer: '/materials/0/emissiveTexture/extensions/KHR_texture_transform/rotation', input: Float32Array.of(1, 2), output: Float32Array.of(0, Math.PI), type: 'SCALAR' },
      asPointerTrack({ node: SceneNode.ARM, path: 'rotation', input: Float32Array.of(0, 2), output: Float32Array.of(0, 0, 0, 1, 0, 1, 0, 0) }),
    ]);
    addPointerAnimation(b, 'blue', [
      { pointer: '/materials/0/pbrMetallicRoughness/baseColorFactor', input: Float32Array.of(0), output: Float32Array.of(0, 0, 1, 1), type: 'VEC4' },
    ]);
  }));
}
