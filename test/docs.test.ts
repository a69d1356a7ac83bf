/**
 * The documentation as a reader meets it: README.md is a front page (the two commands first,
 * at most ~250 lines) that links every guide in docs/; every relative link in README.md and
 * docs/*.md reaches a file of the repository, and every `#anchor` a heading of that file; every
 * picture in docs/ is shown somewhere; every package package.json depends on has its line in the
 * README's Dependencies section; the README shows the demo's pictures, small enough, and
 * docs/demo.md says how to draw them again. (test/index.test.ts checks the names the docs write.)
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, docFiles, linksOf, ROOT } from './support/docs.ts';
import { PICTURE_MAX_BYTES, README_PICTURES } from '../scripts/readme-pictures.mjs';

/** The first thing the README says: the two commands a fresh machine starts with. */
const FIRST_COMMANDS = '```sh\nnpm ci && npm run demo\nnpm ci && npm test\n```';
const FRONT_PAGE_MAX_LINES = 250;

const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

const DEPENDENCIES_HEADING = '## Dependencies';

/**
 * The packages of `pkg` (dependencies, devDependencies, peerDependencies) that the README's
 * Dependencies section does not name as code (`name`): the team's rule is that each has a line
 * there saying why it is one.
 */
function dependenciesWithoutReadmeLine(readme: string, pkg: Record<string, Record<string, string> | undefined>): string[] {
  const start = readme.indexOf(`\n${DEPENDENCIES_HEADING}\n`);
  if (start < 0) return [`README.md has no "${DEPENDENCIES_HEADING}" section`];
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const named = new Set(Array.from(section.matchAll(/`([^`\s]+)`/g), (m) => m[1]));
  const packages = new Set(['dependencies', 'devDependencies', 'peerDependencies'].flatMap((field) => Object.keys(pkg[field] ?? {})));
  return [...packages].filter((name) => !named.has(name)).sort();
}

/** What is wrong with each relative link of `file` (a missing file or anchor), as `file:line: target: why`. */
function brokenLinks(file: string, text = read(file)): string[] {
  const broken: string[] = [];
  for (const { target, line } of linksOf(text)) {
    if (/^[a-z][a-z+.-]*:/i.test(target)) continue;             // https:, mailto: — not ours to check offline
    const [path, anchor] = target.split('#') as [string, string | undefined];
    const where = `${file}:${line}: ${target}`;
    if (path === '') {
      if (!anchorsOf(text).has(anchor ?? '')) broken.push(`${where}: no heading gives #${anchor}`);
      continue;
    }
    const resolved = resolve(ROOT, dirname(file), decodeURIComponent(path));
    if (relative(ROOT, resolved).startsWith('..')) broken.push(`${where}: outside the repository`);
    else if (!existsSync(resolved)) broken.push(`${where}: no such file`);
    else if (anchor !== undefined) {
      if (!resolved.endsWith('.md') || statSync(resolved).isDirectory()) broken.push(`${where}: an anchor into a file that is not Markdown`);
      else if (!anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${where}: no heading gives #${anchor}`);
    }
  }
  return broken;
}

describe('the documentation', () => {
  it('starts the README with the two commands and keeps it a front page', () => {
    const readme = read('README.md');
    expect(readme.indexOf('```')).toBe(readme.indexOf(FIRST_COMMANDS));
    expect(readme.split('\n').length).toBeLessThanOrEqual(FRONT_PAGE_MAX_LINES);
  });

  it('links every guide in docs/ from the README', () => {
    const linked = new Set(linksOf(read('README.md')).map((l) => l.target.split('#')[0]));
    expect(docFiles().filter((f) => f.startsWith('docs/') && !linked.has(f))).toEqual([]);
  });

  it('has no relative link to a missing file or heading', () => {
    expect(docFiles().flatMap((file) => brokenLinks(file))).toEqual([]);
  });

  it('catches a link to a missing file, a missing heading, and a file outside the repository', () => {
    const text = '# Top\n\n[ok](#top) [not here](#bottom) [self](element.md#compared-with-model-viewer-44)\n[gone](nope.md) [no heading](element.md#nope)\n'
      + '```md\n[in code](skipped.md)\n```\n[up](../../x.md) `[code](skipped.md)` [web](https://example.com/x)\n';
    expect(brokenLinks('docs/example.md', text)).toEqual([
      'docs/example.md:3: #bottom: no heading gives #bottom',
      'docs/example.md:4: nope.md: no such file',
      'docs/example.md:4: element.md#nope: no heading gives #nope',
      'docs/example.md:8: ../../x.md: outside the repository',
    ]);
  });

  it('gives anchors as GitHub does', () => {
    expect([...anchorsOf('# `<skinned-mesh-viewer>` (`src/element`)\n## Compared with `<model-viewer>` 4.4\n## Tests\n## Tests\n')])
      .toEqual(['skinned-mesh-viewer-srcelement', 'compared-with-model-viewer-44', 'tests', 'tests-1']);
  });

  it("names every dependency of package.json in the README's Dependencies section", () => {
    expect(dependenciesWithoutReadmeLine(read('README.md'), JSON.parse(read('package.json')))).toEqual([]);
  });

  it('catches a dependency the Dependencies section does not name (prose or another section does not count)', () => {
    const readme = '# x\n\nUses `left-pad`.\n\n## Dependencies\n\n- `a` for this; `@scope/b` for that; C-lib (no code span).\n\n## Licence\n\n`d`\n';
    const pkg = { dependencies: { a: '1', 'left-pad': '1' }, devDependencies: { '@scope/b': '1', 'c-lib': '1', d: '1' }, peerDependencies: { e: '1' } };
    expect(dependenciesWithoutReadmeLine(readme, pkg)).toEqual(['c-lib', 'd', 'e', 'left-pad']);
    expect(dependenciesWithoutReadmeLine('# x\n', pkg)).toEqual(['README.md has no "## Dependencies" section']);
  });

  it('shows the demo test’s pictures on the README, each under PICTURE_MAX_BYTES, and says how to draw them again', () => {
    // The picture files as the README shows them (README.md is at the root: its targets are paths from it).
    const shown = linksOf(read('README.md')).map((l) => l.target.split('#')[0]).filter((t) => /\.png$/.test(t));
    expect(README_PICTURES.map((p) => p.file).filter((file) => !shown.includes(file))).toEqual([]);
    for (const { file } of README_PICTURES) expect(statSync(join(ROOT, file)).size, file).toBeLessThanOrEqual(PICTURE_MAX_BYTES);
    expect(JSON.parse(read('package.json')).scripts.pictures).toBe('node scripts/readme-pictures.mjs');
    expect(read('docs/demo.md')).toContain('npm run pictures');
  });

  it('shows every picture in docs/', () => {
    const shown = new Set(docFiles().flatMap((file) => linksOf(read(file)).map((l) => resolve(ROOT, dirname(file), l.target.split('#')[0]))));
    const pictures = readdirSync(join(ROOT, 'docs')).filter((f) => /\.(png|jpe?g|webp|svg)$/.test(f));
    expect(pictures.filter((f) => !shown.has(join(ROOT, 'docs', f)))).toEqual([]);
  });
});
