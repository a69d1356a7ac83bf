import { describe, expect, it } from 'vitest';
import { BlendingJob } from '../../src/anim/blend.ts';
import { localToModel } from '../../src/anim/local-to-model.ts';
import { createPose } from '../../src/anim/pose.ts';
import { createClipCursor, sampleClip } from '../../src/anim/sample.ts';
import { bakeModel, poseForBake } from '../../src/bake/bake.ts';
import { loadGltfFile } from '../../src/cli/load-file.ts';
import { assetPath } from '../support/assets.ts';

const fox = () => loadGltfFile(assetPath('Fox'));

describe('bake with a blended second clip: invalid inputs', () => {
  it('rejects weights outside [0, 1], unknown clips, non-finite times and models without clips', async () => {
    const model = await fox();
    for (const weight of [-0.1, 1.5, NaN, Infinity]) {
      expect(() => bakeModel(model, { animation: 'Walk', blend: { animation: 'Run', weight } })).toThrow(new RegExp(`blend weight ${weight} is not a number in \\[0, 1\\]`));
    }
    expect(() => bakeModel(model, { blend: { animation: 'Dance', weight: 0.5 } })).toThrow(/animation "Dance" not found; the model has 3: 0 "Survey", 1 "Walk", 2 "Run"/);
    expect(() => bakeModel(model, { blend: { animation: 1, weight: 0.5, time: NaN } })).toThrow(/blend time NaN is not a finite number/);
    expect(() => bakeModel({ ...model, animations: [] }, { blend: { animation: 0, weight: 0.5 } })).toThrow(/no animations to blend/);
  });
});

describe('bake with a blended second clip: numbers', () => {
  it('weight 0 is exactly the unblended bake; weight 1 exactly the second clip\'s', async () => {
    const model = await fox();
    const walk = bakeModel(model, { animation: 'Walk', time: 0.3 });
    const run = bakeModel(model, { animation: 'Run', time: 0.55 });
    const w0 = bakeModel(model, { animation: 'Walk', time: 0.3, blend: { animation: 'Run', weight: 0, time: 0.55 } });
    const w1 = bakeModel(model, { animation: 'Walk', time: 0.3, blend: { animation: 'Run', weight: 1, time: 0.55 } });
    expect(Array.from(w0.primitives[0].positions)).toEqual(Array.from(walk.primitives[0].positions));
    expect(Array.from(w1.primitives[0].positions)).toEqual(Array.from(run.primitives[0].positions));
    // The header still names the main clip and time: the output format is unchanged.
    expect(w1.animation).toEqual({ index: 1, name: 'Walk' });
    expect(w1.time).toBe(0.3);
  });

  it('in between, the pose is the two-pose slerp/lerp blend; the blend clip defaults to the main time', async () => {
    const model = await fox();
    const walk = createPose(model), run = createPose(model), mix = createPose(model);
    sampleClip(createClipCursor(model.animations[1]), 0.4, walk);
    sampleClip(createClipCursor(model.animations[2]), 0.4, run);
    const job = new BlendingJob(walk, run, mix);
    job.weight = 0.25;
    job.run();
    const expected = localToModel(model.hierarchy, mix, new Float64Array(model.hierarchy.count * 16));
    const got = poseForBake(model, { animation: 1, time: 0.4, blend: { animation: 'Run', weight: 0.25 } });
    expect(Array.from(got.nodeMatrices)).toEqual(Array.from(expected));
    const half = bakeModel(model, { animation: 1, time: 0.4, blend: { animation: 2, weight: 0.5 } }).primitives[0].positions;
    const a = bakeModel(model, { animation: 1, time: 0.4 }).primitives[0].positions;
    const b = bakeModel(model, { animation: 2, time: 0.4 }).primitives[0].positions;
    let differs = 0;
    for (let i = 0; i < half.length; i++) if (half[i] !== a[i] && half[i] !== b[i]) differs++;
    expect(differs).toBeGreaterThan(half.length / 2);
  });
});
