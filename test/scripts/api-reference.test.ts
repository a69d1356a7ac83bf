/**
 * scripts/api-reference.mjs, the check `npm run build` runs before it writes the API reference
 * (TypeDoc, dist/site/api): every public export of the package's entry points has a TSDoc
 * comment, every {@link} resolves, every type a public signature names is exported. One TypeDoc
 * run (no HTML) over the real entry points plus a fixture that breaks each rule once: the
 * problems reported must be exactly the fixture's, so the real API is clean and the check
 * is not blind. Delete a public export's comment and this fails naming it.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { LIBRARY_ENTRIES } from '../../vite.config.ts';
import { ROOT } from '../support/docs.ts';

const FIXTURE = 'test/support/api-reference-fixture.ts';

describe('the API reference check (scripts/api-reference.mjs)', () => {
  it('documents the package subpaths with code, as vite.config.ts builds them', async () => {
    const { entrySources } = await import('../../scripts/api-reference.mjs');
    expect(entrySources()).toEqual(LIBRARY_ENTRIES.map((e) => e.source));
  });

  it('finds every public export documented and every link resolved, and reports the fixture\'s three faults', () => {
    const run = spawnSync(process.execPath, ['scripts/api-reference.mjs', '--entry', FIXTURE], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    const problems = run.stdout.split('\n').filter(Boolean);
    expect(problems.filter((p) => !p.includes('fixture') && !p.includes('Fixture')), run.stderr).toEqual([]);
    expect(problems).toHaveLength(3);
    expect(problems).toEqual(expect.arrayContaining([
      expect.stringMatching(/resolve link to "NoSuchDeclaration".*fixtureBrokenLink/),
      expect.stringMatching(/FixtureHiddenType.*referenced by .*fixtureLeaksHiddenType.*not included/),
      expect.stringMatching(/fixtureUndocumented .*does not have any documentation/),
    ]));
    expect(run.status).toBe(1);
    // As long as the run it waits for may take (TypeDoc over the whole API; over 60 s under load).
  }, 150_000);
});
