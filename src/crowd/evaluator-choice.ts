import type { CrowdRootMotion } from '../anim/crowd-root-motion.ts';
import { movingMeshNodes } from '../anim/moving-mesh-nodes.ts';
import type { Model } from '../gltf/model.ts';
import type { HierarchyMode } from '../gpu/crowd/evaluator.ts';
import type { AllocationLimits } from '../gpu/device/limits.ts';

/** Where a crowd's poses are evaluated: the CPU batch (the reference), the GPU evaluator, or by count. */
export type CrowdEvaluator = 'cpu' | 'gpu' | 'auto';

/**
 * `'auto'` evaluates on the GPU from this many instances (given a device): where the CPU
 * batch's main-thread time per frame passes the GPU path's (update, upload, encode and
 * submit), between 512 and 1,000 in `npm run bench -- --crowd-evaluator` (bench/README.md
 * "GPU pose evaluator").
 */
export const AUTO_GPU_MIN_INSTANCES = 1024;

/**
 * Options of `createCrowd`: where the poses are evaluated (CPU batch or GPU), the device the GPU evaluator
 * needs, and its tuning.
 */
export interface CrowdOptions {
  /** Default 'cpu'; 'gpu' and 'auto' need `device`. */
  readonly evaluator?: CrowdEvaluator;
  readonly device?: GPUDevice;
  /** GPU evaluator: how local→model runs (default 'instance'). */
  readonly hierarchy?: HierarchyMode;
  /** GPU evaluator: lower limits than the device's. */
  readonly limits?: Partial<AllocationLimits>;
  /** Each clip's root motion, when the caller has found it already (Crowd's constructor). */
  readonly rootMotions?: readonly (CrowdRootMotion | undefined)[];
}

/**
 * Why `model`'s crowd cannot be evaluated on the GPU, or undefined when it can. The GPU
 * evaluator gives the renderer palettes, placements, morph weights and the model matrices of
 * the mesh nodes clips move; draws of EXT_mesh_gpu_instancing nodes are recorded on the CPU
 * from the instances' poses, so a clip that moves such a node (each instance's world) needs the
 * CPU evaluator. So do a VRM avatar's spring bones and node constraints (src/anim/vrm), which
 * run per instance between its pose and its palettes. Such a crowd stays on the CPU (`auto`),
 * or is refused (`gpu`). Load time.
 */
export function gpuCrowdUnsupported(model: Model): string | undefined {
  const vrm = model.vrm;
  if (vrm && (vrm.springBones || vrm.constraints.length > 0)) {
    return `its VRM ${vrm.springBones ? 'spring bones' : 'node constraints'} run per instance on the CPU evaluator`;
  }
  for (const i of movingMeshNodes(model)) {
    const mn = model.meshNodes[i];
    if (mn.instances) return `a clip moves node ${mn.node}, whose mesh is drawn with EXT_mesh_gpu_instancing (its draws are recorded on the CPU)`;
  }
  return undefined;
}

/** The evaluator `options` asks for, resolved for a crowd of `capacity` (of `model`: gpuCrowdUnsupported). */
export function chooseCrowdEvaluator(options: CrowdOptions, capacity: number, model?: Model): 'cpu' | 'gpu' {
  const asked = options.evaluator ?? 'cpu';
  if (asked !== 'cpu' && asked !== 'gpu' && asked !== 'auto') throw new RangeError(`Crowd: evaluator ${String(asked)} is not 'cpu', 'gpu' or 'auto'`);
  if (asked === 'gpu' && !options.device) throw new RangeError("Crowd: evaluator 'gpu' needs a GPUDevice (options.device)");
  if (asked === 'cpu') return 'cpu';
  const unsupported = model && gpuCrowdUnsupported(model);
  if (asked === 'auto') return options.device && capacity >= AUTO_GPU_MIN_INSTANCES && !unsupported ? 'gpu' : 'cpu';
  if (unsupported) throw new RangeError(`Crowd: evaluator 'gpu' cannot draw ${model!.name}: ${unsupported}; use 'cpu' or 'auto'`);
  return asked;
}
