/**
 * `skinned-mesh-webgpu/bake`: the posed mesh on the CPU (reference skinning) and its writers
 * (JSON, GLB, OBJ), as the `skinned-mesh-bake` command uses them. Also part of the full API (`.`).
 *
 * @module skinned-mesh-webgpu/bake
 */
export { createSkinnedVertices, skinPrimitive, type SkinnedVertices } from '../skin/cpu-skin.ts';
export { bakeModel, resolveAnimation, type BakedPrimitive, type BakeOptions, type BakeResult } from './bake.ts';
export type { BakeExpression, SpringSteps } from './vrm-bake.ts';
export { bakeToGlb } from './glb.ts';
export { bakeToJson } from './json.ts';
export { bakeToObj } from './obj.ts';
