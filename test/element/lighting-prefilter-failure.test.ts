/**
 * `ViewerLighting.prefilterAhead` starts `neutral`'s CPU prefilter before the device arrives, and
 * `acquire` later waits for the same cached work. When that work fails, the failure must be
 * reported once, through `acquire` (the host's `failed`), and the early start must not add an
 * unhandled rejection of its own. The BRDF table, the prefilter's first step, is made to fail
 * here (a module mock: this file is in vite.config.ts's NODE_ISOLATED_TESTS).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

const BRDF_FAILURE = 'BRDF table: out of memory (test)';

vi.mock('../../src/gpu/environment/brdf-lut.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/gpu/environment/brdf-lut.ts')>()),
  prepareBrdfLut: () => Promise.reject(new Error(BRDF_FAILURE)),
}));

const { ViewerLighting } = await import('../../src/element/lighting.ts');
type Renderer = import('../../src/gpu/renderer.ts').Renderer;

/** Tasks to let every promise step (the prefilter's slices are tasks) run. */
const SETTLE_TASKS = 20;

async function settle(): Promise<void> {
  for (let i = 0; i < SETTLE_TASKS; i++) await new Promise((done) => setTimeout(done, 0));
}

describe('ViewerLighting.prefilterAhead when the CPU prefilter fails', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => { unhandled.push(reason); };
  afterEach(() => { process.off('unhandledRejection', onUnhandled); });

  it('reports the failure once through acquire (host.failed), with no unhandled rejection from the early start', async () => {
    process.on('unhandledRejection', onUnhandled);
    const failed: { attribute: string; message: string }[] = [];
    const lighting = new ViewerLighting({
      getAttribute: () => null,
      baseUrl: () => 'https://example.com/',
      invalidate: () => undefined,
      environmentChanged: () => { throw new Error('no environment may show'); },
      warn: (message) => { throw new Error(`unexpected warning: ${message}`); },
      failed: (attribute, error) => failed.push({ attribute, message: (error as Error).message }),
    });
    // The element's order: the early start once the fetch is out, then the device's arrival.
    lighting.prefilterAhead(Promise.resolve());
    await settle();
    const renderer = { settings: {}, setEnvironment: () => { throw new Error('no environment may be set'); } } as unknown as Renderer;
    lighting.apply(renderer, {} as GPUDevice, false);
    await lighting.ready();
    await settle();
    expect(failed).toEqual([{ attribute: 'environment-image', message: BRDF_FAILURE }]);
    expect(unhandled).toEqual([]);
  });
});
