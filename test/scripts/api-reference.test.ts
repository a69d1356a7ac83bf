/**
 * scripts/api-reference.mjs, the check `npm run build` runs before it writes the API reference
 * (TypeDoc, dist/site/api): every public export of the package's entry points has a TSDoc
 * comment, every {@link} resolves, every type a public signature names is exported. Its TypeDoc
 * run (the real entry points plus test/support/api-reference-fixture.ts, which breaks each rule
 * once: the problems reported must be exactly the fixture's, so the real API is clean and the
 * check is not blind) is the one the site build's test makes (test/examples/site-build.test.ts):
 * each run converts the whole API, about 10 CPU-s. Delete a public export's comment and that
 * test fails naming it.
 */
import { describe, expect, it } from 'vitest';
import { LIBRARY_ENTRIES } from '../../vite.config.ts';

describe('the API reference check (scripts/api-reference.mjs)', () => {
  it('documents the package subpaths with code, as vite.config.ts builds them', async () => {
    const { entrySources } = await import('../../scripts/api-reference.mjs');
    expect(entrySources()).toEqual(LIBRARY_ENTRIES.map((e) => e.source));
  });
});
