import { describe, expect, it } from 'vitest';
import { RollingAverage } from '../../src/demo/stats.ts';

describe('RollingAverage', () => {
  it('averages the last N samples', () => {
    const avg = new RollingAverage(3);
    expect(avg.average).toBe(0);
    avg.add(3);
    expect(avg.average).toBe(3);
    avg.add(6);
    avg.add(9);
    expect(avg.average).toBe(6);
    avg.add(12); // drops 3
    expect(avg.average).toBe(9);
    avg.reset();
    expect(avg.average).toBe(0);
  });
});
