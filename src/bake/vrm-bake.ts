import { localToModel } from '../anim/local-to-model.ts';
import type { Pose } from '../anim/pose.ts';
import { VrmRuntime } from '../anim/vrm/vrm-runtime.ts';
import type { Model } from '../gltf/model.ts';

/** `bake --spring-steps N --dt S`: N fixed steps of S seconds ending at the bake's time. */
export interface SpringSteps {
  readonly steps: number;
  readonly dt: number;
}

/** Most spring steps a bake takes (about 28 minutes at 60 Hz). */
export const MAX_SPRING_STEPS = 100_000;

/** An expression weight to bake with (`bake --expression name:weight`). */
export interface BakeExpression {
  readonly name: string;
  readonly weight: number;
}

/**
 * The VRM steps of a bake, on the pose `sampleAt(t)` leaves in `pose` and `nodeMatrices`:
 * expressions at their given weights and the node constraints always; the spring bones stay at
 * rest unless `springs` is given: then they start at rest at clip time T − N·S and take N steps of
 * S seconds, the clip sampled at each step's time, ending at T, so a bake is deterministic. The
 * look-at is not applied (a bake has no camera or target).
 */
export function bakeVrmPose(
  model: Model, pose: Pose, nodeMatrices: Float64Array, time: number, sampleAt: (t: number) => void,
  springs: SpringSteps | undefined, expressions: readonly BakeExpression[] = [],
): void {
  const vrm = new VrmRuntime(model, pose, nodeMatrices);
  for (const e of expressions) {
    if (!vrm.expressions.setWeight(e.name, e.weight)) {
      const names = vrm.expressionNames;
      throw new Error(`expression "${e.name}" not found; ${model.name} has ${names.length}: ${names.join(', ')}`);
    }
  }
  const run = (t: number, dt: number): void => {
    sampleAt(t);
    localToModel(model.hierarchy, pose, nodeMatrices);
    vrm.dt = dt;
    vrm.run();
  };
  if (!springs || springs.steps === 0 || !vrm.springs) {
    vrm.springsEnabled = false;
    run(time, 0);
    return;
  }
  checkSpringSteps(springs);
  vrm.springMode = 'variable';
  const start = time - springs.steps * springs.dt;
  // Step 0 puts the tails at rest in the first pose; each later one moves them by dt.
  run(start, 0);
  for (let k = 1; k <= springs.steps; k++) run(k === springs.steps ? time : start + k * springs.dt, springs.dt);
}

export function checkSpringSteps(s: SpringSteps): void {
  if (!Number.isInteger(s.steps) || s.steps < 0 || s.steps > MAX_SPRING_STEPS) throw new Error(`spring steps ${s.steps} must be an integer in [0, ${MAX_SPRING_STEPS}]`);
  if (!(s.dt > 0) || !Number.isFinite(s.dt) || s.dt > 1) throw new Error(`spring step ${s.dt} s must be a number of seconds in (0, 1]`);
}
