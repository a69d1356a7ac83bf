/**
 * Builds in the background (src/gpu/device/background-build.ts): a frame's `request` starts the
 * build once and sees the result only when it has arrived; `prepare` shares the same build; a
 * failure is reported once, by what was being built, then built again on the next ask — or,
 * with `retry: false`, kept and never reported again. `backgroundBuildsSettled` waits for every
 * build under way.
 */
import { describe, expect, it } from 'vitest';
import { BackgroundBuild, backgroundBuildsSettled, backgroundBuildsStarted } from '../../../src/gpu/device/background-build.ts';

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

  it('backgroundBuildsSettled waits for every build under way, those started while it waits too, arrived or failed', async () => {
    const first = controlledBuild<string>(), second = controlledBuild<string>();
    const skybox = new BackgroundBuild('the skybox', first.build);
    const ground = new BackgroundBuild('the ground', second.build);
    const failures: string[] = [];
    const onFailed = (what: string) => { failures.push(what); };
    await backgroundBuildsSettled();
    const before = backgroundBuildsStarted();

    skybox.request(onFailed);
    let settled = false;
    const settling = backgroundBuildsSettled().then(() => { settled = true; });
    await settle();
    expect(settled).toBe(false);
    // Started while waiting: waited for too.
    ground.request(onFailed);
    first.runs[0].resolve('skybox');
    await settle();
    expect(skybox.ready).toBe(true);
    expect(settled).toBe(false);
    second.runs[0].reject(new Error('no ground'));
    await settling;
    expect(settled).toBe(true);
    expect(failures).toEqual(['the ground']);
    expect(backgroundBuildsStarted() - before).toBe(2);
    // A failed build is retried by the next ask, which counts as a new build under way.
    expect(ground.request(onFailed)).toBeUndefined();
    expect(backgroundBuildsStarted() - before).toBe(3);
    let again = false;
    const settlingAgain = backgroundBuildsSettled().then(() => { again = true; });
    await settle();
    expect(again).toBe(false);
    second.runs[1].resolve('ground');
    await settlingAgain;
    expect(ground.value).toBe('ground');
  });
});
