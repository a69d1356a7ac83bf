/**
 * Builds in the background (src/gpu/device/background-build.ts): a frame's `request` starts the
 * build once and sees the result only when it has arrived; `prepare` shares the same build; a
 * failure is reported once, by what was being built, then built again on the next ask — or,
 * with `retry: false`, kept and never reported again.
 */
import { describe, expect, it } from 'vitest';
import { BackgroundBuild } from '../../../src/gpu/device/background-build.ts';

/** A build whose result or failure the test releases. */
function controlledBuild<T>() {
  const runs: { resolve: (v: T) => void; reject: (e: unknown) => void }[] = [];
  const build = () => new Promise<T>((resolve, reject) => { runs.push({ resolve, reject }); });
  return { runs, build };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('BackgroundBuild', () => {
  it('request starts the build once and returns the result once it has arrived; prepare shares it', async () => {
    const { runs, build } = controlledBuild<string>();
    const b = new BackgroundBuild('the thing', build);
    const failures: string[] = [];
    const onFailed = (what: string) => { failures.push(what); };
    expect(b.request(onFailed)).toBeUndefined();
    expect(b.request(onFailed)).toBeUndefined();
    const prepared = b.prepare();
    expect(runs.length).toBe(1);
    expect(b.ready).toBe(false);
    runs[0].resolve('pipeline');
    expect(await prepared).toBe('pipeline');
    expect(b.request(onFailed)).toBe('pipeline');
    expect(b.value).toBe('pipeline');
    expect(b.ready).toBe(true);
    expect(runs.length).toBe(1);
    expect(failures).toEqual([]);
  });

  it('reports a failure once, by what it built, and builds again on the next ask', async () => {
    const { runs, build } = controlledBuild<string>();
    const b = new BackgroundBuild('the skybox', build);
    const failures: [string, unknown][] = [];
    const onFailed = (what: string, e: unknown) => { failures.push([what, e]); };
    b.request(onFailed);
    b.request(onFailed);
    const error = new Error('compile error');
    runs[0].reject(error);
    await settle();
    expect(failures).toEqual([['the skybox', error]]);
    expect(b.ready).toBe(false);
    expect(b.request(onFailed)).toBeUndefined();
    expect(runs.length).toBe(2);
    runs[1].resolve('skybox');
    await settle();
    expect(b.request(onFailed)).toBe('skybox');
    expect(failures.length).toBe(1);
  });

  it('with retry: false keeps a failed build: asking again neither rebuilds nor reports, prepare rejects again', async () => {
    const { runs, build } = controlledBuild<string>();
    const b = new BackgroundBuild('the linear shadow pipelines', build, { retry: false });
    const failures: string[] = [];
    const onFailed = (what: string) => { failures.push(what); };
    b.request(onFailed);
    runs[0].reject(new Error('no pipeline'));
    await settle();
    for (let frame = 0; frame < 3; frame++) expect(b.request(onFailed)).toBeUndefined();
    await settle();
    expect(failures).toEqual(['the linear shadow pipelines']);
    expect(runs.length).toBe(1);
    await expect(b.prepare()).rejects.toThrow('no pipeline');
  });
});
