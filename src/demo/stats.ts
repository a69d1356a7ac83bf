/**
 * Rolling averages for the stats panel over the last `size` frames, in a ring of
 * preallocated samples: recording a frame allocates nothing.
 */
export class RollingAverage {
  private readonly samples: Float64Array;
  private next = 0;
  private count = 0;
  private sum = 0;

  constructor(size = 60) {
    this.samples = new Float64Array(size);
  }

  add(value: number): void {
    if (this.count === this.samples.length) this.sum -= this.samples[this.next];
    else this.count++;
    this.samples[this.next] = value;
    this.sum += value;
    this.next = (this.next + 1) % this.samples.length;
  }

  get average(): number {
    return this.count === 0 ? 0 : this.sum / this.count;
  }

  reset(): void {
    this.next = 0;
    this.count = 0;
    this.sum = 0;
  }
}

/** A byte count as the stats panel shows it: B below 1 KB, then KB / MB / GB (1024-based) with one decimal. */
export function formatBytes(bytes: number): string {
  if (!(bytes >= 1024)) return `${Math.max(0, Math.round(bytes || 0))} B`;
  const units = ['KB', 'MB', 'GB'];
  let v = bytes / 1024, u = 0;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
  return `${v.toFixed(1)} ${units[u]}`;
}
