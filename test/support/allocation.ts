import { PerformanceObserver } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's gc(), exposed at run time (vitest does not pass --expose-gc); a no-op if refused. */
function findGc(): () => void {
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return () => {};
  }
}

/**
 * The least time the measurement lasts before it may give up, however fast the frames are: V8
 * optimises on a background thread, and on a busy machine a cheap frame can run many rounds
 * before the optimised code arrives.
 */
const PATIENCE_MS = 1000;
/** Rounds measured after PATIENCE_MS at least before giving up. */
const MAX_ROUNDS = 10;
/** The longest unmeasured run of frames after a dirty round (before PATIENCE_MS). */
const DIRTY_WARM_UP_MS = 200;

export interface AllocationRound {
  readonly growth: number;
  readonly collections: number;
}

/**
 * Runs `frame` `iterations` times as a warm-up, then `iterations` times per round until a clean
 * round (no collection, growth under `growthLimit`), and reports each round's heap growth and
 * garbage collections. A per-frame path that allocates even one 16-byte number leaves kilobytes
 * per round or triggers scavenges, so a clean round shows it allocates nothing. Until V8
 * optimises a function it boxes every double it computes, so early rounds may allocate: the
 * rounds go on until one is clean, and give up only once PATIENCE_MS has passed and MAX_ROUNDS
 * more have run. (A fixed warm-up of PATIENCE_MS before the first round measured the same
 * frames later, and cost a second of CPU per measurement even when the first round was clean.)
 */
export async function measureAllocation(frame: () => void, iterations: number, growthLimit: number): Promise<{ rounds: AllocationRound[]; clean: AllocationRound[] }> {
  const started = performance.now();
  const patientUntil = started + PATIENCE_MS;
  const warmUp = (until: number) => {
    do {
      for (let i = 0; i < iterations; i++) frame();
    } while (performance.now() < until);
  };
  warmUp(0);
  const gc = findGc();
  let collections = 0;
  const observer = new PerformanceObserver((list) => { collections += list.getEntries().length; });
  observer.observe({ entryTypes: ['gc'] });
  const rounds: AllocationRound[] = [];
  let patientRounds = 0;
  while (patientRounds < MAX_ROUNDS) {
    if (performance.now() >= patientUntil) patientRounds++;
    gc();
    await new Promise((r) => setTimeout(r, 0)); // deliver the gc() entry before counting
    const before = collections;
    const heap = process.memoryUsage().heapUsed;
    for (let i = 0; i < iterations; i++) frame();
    const growth = process.memoryUsage().heapUsed - heap;
    await new Promise((r) => setTimeout(r, 0));
    rounds.push({ growth, collections: collections - before });
    if (collections === before && growth < growthLimit) break;
    // Not clean yet: before PATIENCE_MS, run frames unmeasured a while (at least one batch, at
    // most as long again as so far or DIRTY_WARM_UP_MS) before the next round, so a slow optimiser
    // meets a handful of rounds (each round's gc() is a full collection).
    const now = performance.now();
    if (now < patientUntil) warmUp(Math.min(patientUntil, now + Math.min(now - started, DIRTY_WARM_UP_MS)));
  }
  observer.disconnect();
  return { rounds, clean: rounds.filter((r) => r.collections === 0 && r.growth < growthLimit) };
}
