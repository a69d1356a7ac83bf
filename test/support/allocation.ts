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

/** The least time the warm-up runs frames for, however fast they are. */
const WARM_UP_MS = 1000;
/** Rounds at most; the first clean one ends the measurement. */
const MAX_ROUNDS = 10;

export interface AllocationRound {
  readonly growth: number;
  readonly collections: number;
}

/**
 * Runs `frame` `iterations` times per round, after a warm-up, for up to MAX_ROUNDS rounds
 * (stopping at the first clean one), and reports each round's heap growth and garbage collections. A per-frame path that allocates even one
 * 16-byte number leaves kilobytes per round or triggers scavenges, so a clean round (no
 * collection, growth under `growthLimit`) shows it allocates nothing; several rounds ride
 * out a late (re)optimisation. Until V8 optimises a function it boxes every double it
 * computes, hence the warm-up.
 */
export async function measureAllocation(frame: () => void, iterations: number, growthLimit: number): Promise<{ rounds: AllocationRound[]; clean: AllocationRound[] }> {
  // V8 optimises on a background thread: on a busy machine a cheap frame can run its warm-up
  // and several rounds before the optimised code arrives, so the warm-up also lasts a while.
  const warmUntil = performance.now() + WARM_UP_MS;
  do {
    for (let i = 0; i < iterations; i++) frame();
  } while (performance.now() < warmUntil);
  const gc = findGc();
  let collections = 0;
  const observer = new PerformanceObserver((list) => { collections += list.getEntries().length; });
  observer.observe({ entryTypes: ['gc'] });
  const rounds: AllocationRound[] = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    gc();
    await new Promise((r) => setTimeout(r, 0)); // deliver the gc() entry before counting
    const before = collections;
    const heap = process.memoryUsage().heapUsed;
    for (let i = 0; i < iterations; i++) frame();
    const growth = process.memoryUsage().heapUsed - heap;
    await new Promise((r) => setTimeout(r, 0));
    rounds.push({ growth, collections: collections - before });
    if (collections === before && growth < growthLimit) break;
  }
  observer.disconnect();
  return { rounds, clean: rounds.filter((r) => r.collections === 0 && r.growth < growthLimit) };
}
