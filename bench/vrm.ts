/**
 * `npm run bench -- --vrm`: VRM per frame.
 *
 * 1. Spring bones of an avatar with ~100 spring joints and ~20 colliders (the built-in VRM
 *    avatar with generated chains, test/support/vrm-fixtures.ts), the model moving so the
 *    springs work: ours (node matrices + VrmRuntime.run: look-at, expressions, springs) against
 *    three-vrm 3.5's `vrm.update(dt)` on the same file in the same process (humanoid rig off, as
 *    ours has none: look-at, expressions, constraints, springs). And the springs alone, like with
 *    like: ours `updateNodeMatrices` + `SpringBoneJob.run` (the matrices the springs read, and the
 *    springs) against three-vrm's `springBoneManager.update(dt)` (which updates the world
 *    matrices it reads itself). µs per frame and the ratios (target ≤ 0.2×), and our heap growth
 *    over the timed frames (the test suite counts it exactly: test/anim/vrm/allocation.test.ts).
 * 2. A crowd of 1,000 VRM avatars with springs on the CPU evaluator (Crowd.update): ms per frame,
 *    beside 1,000 of the same avatar with its VRM data removed (the plain character's cost).
 *
 * Times are process CPU time. The ratios are per round (one batch each side, back to back, the
 * order swapped every round) and reported as the median of the rounds with their quartiles and
 * range, so a change of load during the run moves both sides of a round alike. Writes
 * bench/results/vrm-latest.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Crowd } from '../src/anim/crowd.ts';
import { createModelInstance } from '../src/anim/instance.ts';
import { buildBuiltinGlb } from '../src/builtin/index.ts';
import { loadGltf } from '../src/gltf/load.ts';
import { loadThreeVrm } from '../test/support/three-vrm.ts';
import { buildSpringBenchAvatar } from '../test/support/vrm-fixtures.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const DT = 1 / 60;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * µs per call of `frame` in each of `batches` batches of `n` calls (after a warm-up), in
 * process CPU time: steadier than wall time on a shared machine.
 */
function timePerFrame(frame: () => void, n: number, batches: number): number[] {
  for (let i = 0; i < n * 2; i++) frame();
  const out: number[] = [];
  for (let b = 0; b < batches; b++) out.push(batchUs(frame, n));
  return out;
}

/** µs per call of `frame` over one batch of `n` calls, in process CPU time. */
function batchUs(frame: () => void, n: number): number {
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) frame();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / n;
}

/** Per-round ratios of ours to theirs: their median, quartiles and extremes, and each side's median µs/frame. */
interface PairedResult { ratio: number; ratioQuartiles: [number, number]; ratioRange: [number, number]; oursUs: number; theirsUs: number }

/** `rounds` rounds of one batch of `n` frames each side, back to back, the order swapped every round. */
function pairedRounds(ours: () => void, theirs: () => void, n: number, rounds: number): PairedResult {
  for (let i = 0; i < n * 2; i++) { ours(); theirs(); }
  const o: number[] = [], t: number[] = [], r: number[] = [];
  for (let k = 0; k < rounds; k++) {
    let a: number, b: number;
    if (k % 2 === 0) { a = batchUs(ours, n); b = batchUs(theirs, n); } else { b = batchUs(theirs, n); a = batchUs(ours, n); }
    o.push(a); t.push(b); r.push(a / b);
  }
  const sorted = [...r].sort((x, y) => x - y), q = (f: number): number => sorted[Math.round(f * (sorted.length - 1))];
  return { ratio: median(r), ratioQuartiles: [q(0.25), q(0.75)], ratioRange: [sorted[0], sorted[sorted.length - 1]], oursUs: median(o), theirsUs: median(t) };
}

const describe = (p: PairedResult): string =>
  `${p.ratio.toFixed(3)} (median of rounds; quartiles ${p.ratioQuartiles.map((x) => x.toFixed(3)).join('–')}, range ${p.ratioRange.map((x) => x.toFixed(3)).join('–')})`;

export async function runVrmBench({ quick }: { quick: boolean }): Promise<void> {
  console.log(`machine: ${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} cores, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const bytes = buildSpringBenchAvatar(buildBuiltinGlb('vrm-avatar'));
  const model = await loadGltf(bytes, { name: 'spring-bench-avatar' });
  const springs = model.vrm!.springBones!;
  console.log(`spring-bone avatar: ${springs.jointCount} joints, ${springs.colliderCount} colliders`);

  // Each side's frame: the model moved along the same path, its pose's node matrices (ours:
  // updateNodeMatrices, the player's localToModel that leaves the spring nodes to the springs;
  // three-vrm's update computes what it reads), then `step` (the timed update).
  const instance = createModelInstance(model);
  const vrm = instance.vrm!;
  const clock = new Float64Array(1);
  const oursFrame = (step: () => void) => (): void => {
    const t = (clock[0] += DT);
    vrm.worldFromModel[12] = 0.3 * Math.sin(3 * t);
    vrm.worldFromModel[14] = 0.2 * Math.cos(2 * t);
    vrm.updateNodeMatrices();
    step();
  };
  const three = await loadThreeVrm(bytes);
  const scene = three.vrm.scene;
  const threeClock = { t: 0 };
  const theirFrame = (step: () => void) => (): void => {
    const t = (threeClock.t += DT);
    scene.position.set(0.3 * Math.sin(3 * t), 0, 0.2 * Math.cos(2 * t));
    scene.updateMatrix();
    step();
  };
  // The whole VRM step: look-at, expressions (and constraints), springs.
  const ours = oursFrame(() => { vrm.dt = DT; vrm.run(); });
  const theirs = theirFrame(() => three.vrm.update(DT));
  // The springs alone.
  const springJob = vrm.springs!, manager = three.vrm.springBoneManager!;
  const oursSprings = oursFrame(() => { springJob.dt = DT; springJob.run(); });
  const theirSprings = theirFrame(() => manager.update(DT));
  // Rounds: each side's batch right after the other's (the order swapped every round), so a load
  // change hits both alike; the ratio is taken per round and its median reported with its spread.
  const n = quick ? 100 : 500, rounds = quick ? 5 : 31;
  const whole = pairedRounds(ours, theirs, n, rounds), alone = pairedRounds(oursSprings, theirSprings, n, rounds);
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  for (let i = 0; i < n; i++) ours();
  const growth = process.memoryUsage().heapUsed - heap0;
  console.log(`spring bones, ${springs.jointCount} joints / ${springs.colliderCount} colliders, whole VRM step: ours ${whole.oursUs.toFixed(1)} µs/frame, three-vrm vrm.update ${whole.theirsUs.toFixed(1)} µs/frame, ratio ${describe(whole)} (target ≤ 0.2); heap growth over ${n} frames ${growth} bytes`);
  console.log(`springs alone: ours updateNodeMatrices + SpringBoneJob.run ${alone.oursUs.toFixed(1)} µs/frame, three-vrm springBoneManager.update ${alone.theirsUs.toFixed(1)} µs/frame, ratio ${describe(alone)}`);

  // A crowd of 1,000 avatars with springs, and the same crowd without VRM data.
  const avatar = await loadGltf(buildBuiltinGlb('vrm-avatar'), { name: 'vrm-avatar' });
  const plain = { ...avatar, vrm: undefined };
  const count = quick ? 200 : 1000;
  const crowdMs = (m: typeof avatar): number[] => {
    const crowd = new Crowd(m, count);
    crowd.placeOnGrid(1.5);
    for (let k = 0; k < count; k++) crowd.play(k, 0, (k * 0.37) % 1);
    return timePerFrame(() => crowd.update(DT), quick ? 5 : 20, quick ? 3 : 9).map((us) => us / 1000);
  };
  const withVrm = median(crowdMs(avatar)), without = median(crowdMs(plain));
  console.log(`crowd of ${count} VRM avatars (${avatar.vrm!.springBones!.jointCount} spring joints each), CPU evaluator: ${withVrm.toFixed(2)} ms/frame; the same crowd without its VRM data: ${without.toFixed(2)} ms/frame`);

  const out = resolve(HERE, 'results/vrm-latest.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({
    machine: { cpu: cpus()[0]?.model, cores: cpus().length, loadavg: loadavg() },
    springs: {
      joints: springs.jointCount, colliders: springs.colliderCount, framesPerBatch: n, rounds, heapGrowthBytes: growth,
      whole, springsAlone: alone,
    },
    crowd: { count, vrmMsPerFrame: withVrm, withoutVrmMsPerFrame: without },
  }, null, 2) + '\n');
  console.log(`wrote ${out}`);
}
