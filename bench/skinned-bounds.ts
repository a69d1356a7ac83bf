/**
 * Skinned bounds (src/anim/skinned-bounds.ts): how tight they are and what they cost.
 *
 * - Tightness: the sweep the tests assert on (test/anim/skinned-bounds-sweep.ts, every clip
 *   of every shared asset and built-in model), reported as volume over the tight box's for
 *   the grouped, coarse and dual-quaternion bounds, and how far DQS vertices leave the linear
 *   bound. Vertex coordinates outside a bound are counted and fail the run, as they fail the test.
 * - Cost: `SkinnedBoundsJob.run` after warm-up in each mode, per frame, per joint and per
 *   transformed box, beside a bare multiply-add loop as a yardstick for the machine's speed
 *   at the time (shared machines vary ×10).
 *
 * `npm run bench -- --skinned-bounds` (or `--skinned-bounds --quick`); writes
 * bench/results/skinned-bounds-latest.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { updateModelInstance } from '../src/anim/instance.ts';
import { SkinnedBoundsJob } from '../src/anim/skinned-bounds.ts';
import { newJob, perFrameCases, SAMPLES_PER_CLIP, sweep, sweepCases, type SweepResult } from '../test/anim/skinned-bounds-sweep.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const MODES = ['grouped', 'coarse', 'dual-quaternion'] as const;

export interface SkinnedBoundsOptions {
  readonly quick?: boolean;
}

interface TightnessRow extends SweepResult {
  model: string;
  skinned: boolean;
  /** Coordinates of linearly skinned vertices found outside their bound (0, or the test fails). */
  escapes: number;
}

interface CostRow {
  model: string;
  mode: (typeof MODES)[number];
  joints: number;
  boxes: number;
  nsPerFrame: number;
  nsPerJoint: number;
  nsPerBox: number;
}

export async function runSkinnedBoundsBench(options: SkinnedBoundsOptions = {}): Promise<{ tightness: TightnessRow[]; cost: CostRow[] }> {
  const quick = options.quick === true;
  const warmUpRuns = quick ? 200 : 2_000;
  const runs = quick ? 2_000 : 20_000;

  console.log(`skinned bounds (${SAMPLES_PER_CLIP} samples per clip):`);
  const tightness: TightnessRow[] = [];
  for (const c of sweepCases) {
    const model = await c.load();
    let escapes = 0;
    const r = await sweep(model, (message) => {
      if (escapes++ === 0) console.log(`  ESCAPE ${c.name}: ${message}`);
    });
    const skinned = model.meshNodes.some((mn) => mn.skin >= 0);
    tightness.push({ model: c.name, skinned, escapes, ...r });
    if (escapes > 0) process.exitCode = 1;
    console.log(`${c.name.padEnd(24)} ${String(r.frames).padStart(4)} frames  volume/tight: grouped mean ${r.meanRatio.toFixed(3)} (max ${r.maxRatio.toFixed(3)}), coarse ${r.meanCoarseRatio.toFixed(3)}, DQS ${r.meanDqsRatio.toFixed(3)}, centres of rotation ${r.meanCorRatio.toFixed(3)}; DQS vertices up to ${(100 * r.dqsEscape).toFixed(2)}% outside the linear bound${skinned ? '' : '  (no skin)'}${escapes > 0 ? `  ${escapes} ESCAPES` : ''}`);
  }

  const cost: CostRow[] = [];
  for (const c of perFrameCases) {
    const model = await c.load();
    const { instance, job } = newJob(model);
    updateModelInstance(instance, 0, 0.4);
    const joints = instance.paletteMatrixCount;
    for (const mode of MODES) {
      const j = new SkinnedBoundsJob(job.bounds, instance, new Float32Array(3), new Float32Array(3));
      j.coarse = mode === 'coarse';
      if (mode === 'dual-quaternion') j.skinning = mode;
      let boxes = 0;
      model.meshNodes.forEach((mn, i) => {
        if (mn.skin < 0) return;
        const e = job.bounds.entries[job.bounds.entryOfMeshNode[i]];
        boxes += mode === 'coarse' ? e.activeJoints.length : e.pairJoints.length;
      });
      for (let i = 0; i < warmUpRuns; i++) j.run();
      const start = process.hrtime.bigint();
      for (let i = 0; i < runs; i++) j.run();
      const ns = Number(process.hrtime.bigint() - start) / runs;
      cost.push({ model: c.name, mode, joints, boxes, nsPerFrame: ns, nsPerJoint: ns / joints, nsPerBox: ns / boxes });
    }
  }
  const nsPerReferenceIteration = referenceLoop();
  console.log(`\nSkinnedBoundsJob.run cost (after warm-up; a bare multiply-add loop takes ${nsPerReferenceIteration.toFixed(2)} ns/iteration here):`);
  for (const r of cost) {
    console.log(`${r.model.padEnd(20)} ${r.mode.padEnd(16)} ${r.nsPerFrame.toFixed(0).padStart(6)} ns/frame  ${r.nsPerJoint.toFixed(1).padStart(5)} ns/joint (${r.joints} joints)  ${r.nsPerBox.toFixed(1).padStart(5)} ns/box (${r.boxes} boxes)`);
  }

  const out = resolve(HERE, quick ? 'results/skinned-bounds-quick.json.tmp' : 'results/skinned-bounds-latest.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, loadavg: loadavg() },
    quick,
    samplesPerClip: SAMPLES_PER_CLIP,
    runs,
    nsPerReferenceIteration,
    tightness,
    cost,
  }, null, 2) + '\n');
  console.log(`wrote ${out}`);
  return { tightness, cost };
}

/** ns per iteration of a bare multiply-add loop, long enough for V8 to optimise it. */
function referenceLoop(): number {
  const iterations = 10_000_000;
  const reference = new Float64Array(1);
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) reference[0] += i * 0.5;
  return Number(process.hrtime.bigint() - start) / iterations;
}
