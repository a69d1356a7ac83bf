import { describe, expect, it } from 'vitest';
import { formatBytes, RollingAverage } from '../../src/demo/stats.ts';

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

describe('formatBytes', () => {
  it('bytes, then KB, MB, GB with one decimal; nonsense shows 0 B', () => {
    expect([0, 1000, 1024, 1536, 15 * 1024 * 1024 + 300 * 1024, 3 * 1024 ** 3, 5000 * 1024 ** 3, NaN, -4].map(formatBytes))
      .toEqual(['0 B', '1000 B', '1.0 KB', '1.5 KB', '15.3 MB', '3.0 GB', '5000.0 GB', '0 B', '0 B']);
  });
});
