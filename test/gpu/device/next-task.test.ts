import { spawnSync } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { nextTask } from '../../../src/gpu/device/next-task.ts';

describe('nextTask', () => {
  it('resolves in a later task (after the microtasks queued meanwhile), in order, and sets no timer (browsers clamp nested ones to 4 ms)', async () => {
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const order: string[] = [];
    const first = nextTask().then(() => order.push('first task'));
    const second = nextTask().then(() => order.push('second task'));
    void Promise.resolve().then(() => order.push('microtask'));
    await Promise.all([first, second]);
    // A chain, as the prefilter's slices await it.
    for (let i = 0; i < 30; i++) await nextTask();
    expect(order).toEqual(['microtask', 'first task', 'second task']);
    expect(timers).not.toHaveBeenCalled();
    timers.mockRestore();
  });

  it('keeps no Node process alive once nothing waits', () => {
    const script = "const { nextTask } = await import('./src/gpu/device/next-task.ts'); for (let i = 0; i < 3; i++) await nextTask(); console.log('done');";
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 15_000 });
    expect(run.stdout.trim()).toBe('done');
    expect(run.status).toBe(0);
  });
});
