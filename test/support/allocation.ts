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

export interface AllocationRound {
  readonly growth: number;
  readonly collections: number;
}

/**
 * Runs `frame` `iterations` times per round, five rounds after a warm-up, and reports each
 * round's heap growth and garbage collections. A per-frame path that allocates even one
 * 16-byte number leaves kilobytes per round or triggers scavenges, so a clean round (no
 * collection, growth under `growthLimit`) shows it allocates nothing; several rounds ride
 * out a late (re)optimisation. Until V8 optimises a function it boxes every double it
 * computes, hence the warm-up.
 */
export async function measureAllocation(frame: () => void, iterations: number, growthLimit: number): Promise<{ rounds: AllocationRound[]; clean: AllocationRound[] }> {
  for (let i = 0; i < iterations; i++) frame();
  const gc = findGc();
  let collections = 0;
  const observer = new PerformanceObserver((list) => { collections += list.getEntries().length; });
  observer.observe({ entryTypes: ['gc'] });
  const rounds: AllocationRound[] = [];
  for (let round = 0; round < 5; round++) {
    gc();
    await new Promise((r) => setTimeout(r, 0)); // deliver the gc() entry before counting
    const before = collections;
    const heap = process.memoryUsage().heapUsed;
    for (let i = 0; i < iterations; i++) frame();
    const growth = process.memoryUsage().heapUsed - heap;
    await new Promise((r) => setTimeout(r, 0));
    rounds.push({ growth, collections: collections - before });
  }
  observer.disconnect();
  return { rounds, clean: rounds.filter((r) => r.collections === 0 && r.growth < growthLimit) };
}
