/**
 * Per-device caches (src/gpu/device/per-device.ts), with stand-in devices (only their identity
 * matters): one value per device, made on first use; an asynchronous build shared while it
 * runs, kept once it succeeds, and forgotten when it fails so that the next call builds again.
 */
import { describe, expect, it } from 'vitest';
import { perDevice, perDeviceBuild } from '../../../src/gpu/device/per-device.ts';

const fakeDevice = (name: string) => ({ label: name }) as unknown as GPUDevice;

describe('perDevice', () => {
  it('makes one value per device, on first use', () => {
    const made: string[] = [];
    const of = perDevice((device) => {
      made.push(device.label);
      return { device: device.label };
    });
    const a = fakeDevice('a'), b = fakeDevice('b');
    expect(made).toEqual([]);
    const first = of(a);
    expect(of(a)).toBe(first);
    expect(of(b)).not.toBe(first);
    expect(of(b).device).toBe('b');
    expect(made).toEqual(['a', 'b']);
  });
});

describe('perDeviceBuild', () => {
  it('shares one build among callers while it runs and keeps it once built', async () => {
    let builds = 0;
    const of = perDeviceBuild(async (device) => {
      builds++;
      await Promise.resolve();
      return `${device.label} pipeline`;
    });
    const a = fakeDevice('a');
    const [x, y] = [of(a), of(a)];
    expect(x).toBe(y);
    expect(await x).toBe('a pipeline');
    expect(of(a)).toBe(x);
    expect(await of(fakeDevice('b'))).toBe('b pipeline');
    expect(builds).toBe(2);
  });

  it('forgets a failed build: its callers see the failure, the next call builds again', async () => {
    let builds = 0;
    const of = perDeviceBuild(async () => {
      builds++;
      if (builds === 1) throw new Error('compile error');
      return builds;
    });
    const a = fakeDevice('a');
    const failed = of(a);
    expect(of(a)).toBe(failed);
    await expect(failed).rejects.toThrow('compile error');
    const retried = of(a);
    expect(retried).not.toBe(failed);
    expect(await retried).toBe(2);
    expect(of(a)).toBe(retried);
    expect(builds).toBe(2);
  });
});
