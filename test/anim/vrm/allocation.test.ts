/**
 * A VRM frame allocates nothing: the player on the built-in VRM avatar with every VRM step on
 * (look-at following a moving target, expressions changing, spring bones stepping while the
 * model moves, in both step modes) — no garbage collection and no heap growth over 20,000
 * frames (measureAllocation).
 */
import { describe, expect, it } from 'vitest';
import { AnimationPlayer } from '../../../src/anim/player.ts';
import { NodeConstraintJob } from '../../../src/anim/vrm/node-constraints.ts';
import { buildBuiltinGlb } from '../../../src/builtin/index.ts';
import { loadGltf } from '../../../src/gltf/load.ts';
import { localToModel } from '../../../src/anim/local-to-model.ts';
import { createPose } from '../../../src/anim/pose.ts';
import { measureAllocation } from '../../support/allocation.ts';
import { buildConstraintFixture } from '../../support/vrm-fixtures.ts';

describe('VRM steps allocate nothing per frame', () => {
  for (const mode of ['variable', 'fixed'] as const) {
    it(`player frame on the VRM avatar: look-at, expressions, springs (${mode} steps)`, async () => {
      const player = new AnimationPlayer(await loadGltf(buildBuiltinGlb('vrm-avatar')));
      player.play();
      const vrm = player.instance.vrm!;
      vrm.springMode = mode;
      const state = new Float64Array(1);
      const happy = vrm.expressions.find('happy'), aa = vrm.expressions.find('aa');
      const frame = (): void => {
        const t = (state[0] += 1 / 60);
        vrm.lookAt!.lookAt(Math.sin(t), 1.6, 1);
        vrm.expressions.weights[happy] = 0.5 + 0.5 * Math.sin(t);
        vrm.expressions.weights[aa] = 0.5 + 0.5 * Math.cos(3 * t);
        vrm.worldFromModel[12] = 0.3 * Math.sin(2 * t);
        player.update(1 / 60);
      };
      const { rounds, clean } = await measureAllocation(frame, 2_000, 64 * 1024);
      expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
    });
  }

  it('node constraints', async () => {
    const model = await loadGltf(buildConstraintFixture());
    const pose = createPose(model);
    const m = new Float64Array(model.hierarchy.count * 16);
    const job = new NodeConstraintJob(model.hierarchy, model.vrm!.constraints, pose, m);
    const frame = (): void => {
      localToModel(model.hierarchy, pose, m);
      job.run();
    };
    const { rounds, clean } = await measureAllocation(frame, 20_000, 64 * 1024);
    expect(clean.length, JSON.stringify(rounds)).toBeGreaterThan(0);
  });
});
