/**
 * `skinned-mesh-webgpu/crowd`: tier 4, many characters of one model at once — the CPU batch
 * and crowd, the GPU pose evaluator and the crowd's draw. Also part of the full API (`.`).
 *
 * @module skinned-mesh-webgpu/crowd
 */
// updateInstanceBatch is the whole step (fused chunk by chunk); sampleInstanceBatch and
// updateBatchMatricesAndPalettes are its two halves, for poses edited in between (as Crowd locks roots).
export {
  createInstanceBatch, sampleInstanceBatch, updateBatchMatricesAndPalettes, updateInstanceBatch, type InstanceBatch, type InstanceBatchOptions,
} from '../anim/batch.ts';
export { Crowd, type CrowdPoses } from '../anim/crowd.ts';
export { findRootMotion, type CrowdRootMotion } from '../anim/crowd-root-motion.ts';
export { AUTO_GPU_MIN_INSTANCES, type CrowdEvaluator, type CrowdOptions } from './evaluator-choice.ts';
export { createCrowd, GpuCrowd, type AnyCrowd } from './gpu-crowd.ts';
export { movingMeshNodes } from '../anim/moving-mesh-nodes.ts';
export { GpuPoseEvaluator, type GpuPoseEvaluatorOptions, type HierarchyMode } from '../gpu/crowd/evaluator.ts';
export type { GpuPaletteSource } from '../gpu/draw/palette-source.ts';
export type { RootLock } from '../gpu/crowd/pack.ts';
