/**
 * `npm publish --dry-run` on the tarball `npm pack` made (test/support/packed-library.ts, the
 * tarball package-consumer.test.ts installs): npm's own checks of a package it would publish
 * pass with no warning but "not logged in", and the tarball holds what package.json promises
 * (name, version, licence, every `exports`/`types`/`bin` target, `engines` its dependencies
 * accept, `sideEffects` naming packed files) and nothing outside `files`: no tests, fixtures,
 * sources or shared assets. Every relative link of the packed README.md (what node_modules, npm
 * and unpkg show) leads to a packed file: the guides and the picture it links are packed.
 *
 * No network: `--offline` and a registry address nothing listens on (a dry run only names the
 * registry; were it asked, the run would fail). npm checks a folder's package.json (a tarball's it
 * publishes unread), so the dry run runs in the folder the tarball unpacks to, with scripts off:
 * the tarball's `prepack` (the build) already ran. `"private": true` stays (the maintainers'
 * call); a dry run does not refuse it.
 *
 * A doctored small tarball (a `./` bin path npm rewrites, a test file, an export whose file is
 * missing, a dependency wanting a newer Node) must be refused with each of those problems named.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linksOf } from '../support/docs.ts';
import { packedLibrary } from '../support/packed-library.ts';

const ROOT = resolve(import.meta.dirname, '../..');
/** Where the dry run "publishes": a port nothing listens on. */
const NO_REGISTRY = 'http://127.0.0.1:9/';
/** The one warning a dry run may print here: nobody is logged in to a registry. */
const NOT_LOGGED_IN = /^npm warn publish This command requires you to be logged in to /;
/** Packed at the tarball's root whatever `files` says (npm's rules). */
const ALWAYS_PACKED = ['package.json', 'README.md', 'LICENSE'];
/** What must never be packed: the repository's tests, fixtures, sources, benches, examples and models. */
const NEVER_PACKED = /(^|\/)(test|tests|fixtures|src|bench|examples|shared|node_modules)\/|\.(glb|gltf|vrm|vrma|hdr|exr|ktx2)$/;

interface Manifest {
  name: string;
  version: string;
  license?: string;
  files?: string[];
  types?: string;
  module?: string;
  exports?: Record<string, string | Record<string, string>>;
  bin?: Record<string, string>;
  engines?: { node?: string };
  sideEffects?: string[] | boolean;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
}

interface DryRun {
  status: number | null;
  warnings: string[];
  manifest: Manifest;
  files: string[];
  /** The packed README.md's text ('' when none is packed). */
  readme: string;
}

/**
 * `npm publish --dry-run` in the folder TARBALL unpacks to (npm checks and normalises a folder's
 * package.json, not a tarball's), offline, its scripts not run (the tarball's build already ran):
 * its exit code, warnings, the package.json and the file list it would publish, which must be the tarball's.
 */
function publishDryRun(tarball: string, work: string): DryRun {
  const dir = mkdtempSync(join(work, 'unpacked-'));
  const unpack = spawnSync('tar', ['-xzf', tarball, '-C', dir], { encoding: 'utf8' });
  if (unpack.status !== 0) throw new Error(`tar -xzf ${tarball}: ${unpack.stderr}`);
  const folder = join(dir, 'package');
  const result = spawnSync('npm', ['publish', '--dry-run', '--json', '--offline', '--ignore-scripts', '--registry', NO_REGISTRY], {
    cwd: folder, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  const lines = result.stderr.split('\n');
  const warnings = lines.filter((line) => line.startsWith('npm warn') && !NOT_LOGGED_IN.test(line));
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Manifest;
  const readme = existsSync(join(folder, 'README.md')) ? readFileSync(join(folder, 'README.md'), 'utf8') : '';
  if (result.status !== 0) return { status: result.status, warnings: [...warnings, ...lines.filter((l) => l.startsWith('npm error'))], manifest, files: [], readme };
  const listed = Object.values(JSON.parse(result.stdout) as Record<string, { files: { path: string }[] }>)[0]!;
  const files = listed.files.map((f) => f.path).sort();
  const inTarball = spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).stdout.split('\n').filter((l) => l && !l.endsWith('/'))
    .map((l) => l.replace(/^package\//, '')).sort();
  if (files.join('\n') !== inTarball.join('\n')) warnings.push(`the folder would publish other files than the tarball holds: ${files.length} vs ${inTarball.length}`);
  return { status: result.status, warnings, manifest, files, readme };
}

/** The lowest Node a `>=A.B.C` engines range allows. */
function nodeFloor(range: string, where: string): number[] {
  const match = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim());
  if (!match) throw new Error(`${where}: engines.node "${range}" is not of the form >=A.B.C this check reads; compare it by hand and extend nodeFloor`);
  return [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)];
}

const notBelow = (a: number[], b: number[]): boolean => {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! > b[i]!;
  return true;
};

/** A `sideEffects` glob (`*` within one path segment) as a regular expression over packed paths. */
const globPattern = (glob: string): RegExp => new RegExp(`^${glob.replace(/^\.\//, '').replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*')}$`);

/**
 * What is wrong with a dry run's package against package.json's promises; `engines(name)` gives
 * a runtime dependency's engines.node range (or none). Empty when it may be published.
 */
function publishProblems(run: DryRun, engines: (name: string) => string | undefined): string[] {
  const problems = run.status === 0 ? [] : [`npm publish --dry-run exited ${run.status}`];
  problems.push(...run.warnings.map((w) => `npm warned: ${w}`));
  const { manifest, files } = run;
  if (run.status !== 0) return problems;
  const packed = new Set(files);
  const mustBePacked = (what: string, path: string | undefined): void => {
    if (!path) problems.push(`${what} is not set`);
    else if (!packed.has(path.replace(/^\.\//, ''))) problems.push(`${what} → ${path} is not in the tarball`);
  };
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(manifest.name)) problems.push(`name "${manifest.name}" is not a package name`);
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(manifest.version)) problems.push(`version "${manifest.version}" is not a semantic version`);
  if (!manifest.license) problems.push('license is not set');
  for (const file of ALWAYS_PACKED) if (!packed.has(file)) problems.push(`${file} is not in the tarball`);
  if (!manifest.scripts?.prepack) problems.push('no prepack script builds the package');

  const roots = manifest.files ?? [];
  if (roots.length === 0) problems.push('files is not set');
  // An entry is a folder (everything under it), a file, or a glob (`docs/*.md`).
  const packs = (root: string, file: string): boolean => (root.includes('*') ? globPattern(root).test(file) : file === root || file.startsWith(`${root}/`));
  for (const root of roots) if (!files.some((f) => packs(root, f))) problems.push(`files entry ${root} packs nothing`);
  for (const file of files) {
    if (!ALWAYS_PACKED.includes(file) && !roots.some((root) => packs(root, file))) problems.push(`${file} is packed but outside files`);
    if (NEVER_PACKED.test(file)) problems.push(`${file} is packed: not part of the package`);
  }
  // What node_modules, npm and unpkg show: a relative link of the README must lead to a packed file.
  for (const { target, line } of linksOf(run.readme)) {
    if (/^[a-z][a-z+.-]*:/i.test(target) || target.startsWith('#')) continue;
    const path = posix.normalize(decodeURIComponent(target.split('#')[0]!));
    if (!packed.has(path)) problems.push(`README.md:${line} links ${target}, which is not in the tarball`);
  }

  mustBePacked('types', manifest.types);
  mustBePacked('module', manifest.module);
  const exports = Object.entries(manifest.exports ?? {});
  if (exports.length === 0) problems.push('exports is not set');
  for (const [subpath, target] of exports) {
    const conditions = typeof target === 'string' ? { default: target } : target;
    if (subpath !== './package.json' && !conditions.types) problems.push(`exports["${subpath}"] has no types`);
    for (const [condition, path] of Object.entries(conditions)) mustBePacked(`exports["${subpath}"].${condition}`, path);
  }
  const bins = Object.entries(manifest.bin ?? {});
  if (bins.length === 0) problems.push('bin is not set');
  for (const [name, path] of bins) mustBePacked(`bin.${name}`, path);

  const sideEffects = Array.isArray(manifest.sideEffects) ? manifest.sideEffects : [];
  if (sideEffects.length === 0) problems.push('sideEffects does not name the files that register the element');
  for (const glob of sideEffects) if (!files.some((f) => globPattern(glob).test(f))) problems.push(`sideEffects ${glob} matches no packed file`);

  if (!manifest.engines?.node) problems.push('engines.node is not set');
  else {
    const floor = nodeFloor(manifest.engines.node, 'package.json');
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      const wanted = engines(name);
      if (wanted && !notBelow(floor, nodeFloor(wanted, name))) problems.push(`${name} wants Node ${wanted}, engines.node says ${manifest.engines.node}`);
    }
  }
  return problems;
}

/** engines.node of each package package-lock.json holds (its runtime dependencies and theirs among them). */
function lockedEngines(): (name: string) => string | undefined {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { engines?: { node?: string } | string[]; dependencies?: Record<string, string> }>;
  };
  const packageEngines = (name: string): string | undefined => {
    const engines = lock.packages[`node_modules/${name}`]?.engines;
    return engines && !Array.isArray(engines) ? engines.node : undefined;
  };
  // A dependency's own dependencies: the strictest floor among them counts as its.
  return (name) => {
    const seen = new Set<string>();
    let strictest: string | undefined;
    const visit = (dep: string): void => {
      if (seen.has(dep)) return;
      seen.add(dep);
      const wanted = packageEngines(dep);
      if (wanted && (!strictest || !notBelow(nodeFloor(strictest, dep), nodeFloor(wanted, dep)))) strictest = wanted;
      for (const next of Object.keys(lock.packages[`node_modules/${dep}`]?.dependencies ?? {})) visit(next);
    };
    visit(name);
    return strictest;
  };
}

describe('npm publish --dry-run', () => {
  let work: string;
  beforeAll(() => { work = mkdtempSync(join(tmpdir(), 'skinned-mesh-publish-')); });
  afterAll(() => { if (work) rmSync(work, { recursive: true, force: true }); });

  it('passes on the packed tarball, offline, and the tarball holds what package.json promises and nothing else', () => {
    const run = publishDryRun(packedLibrary().tarball, work);
    expect(publishProblems(run, lockedEngines())).toEqual([]);
    const repository = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;
    expect(run.manifest).toMatchObject({ name: repository.name, version: repository.version, license: 'MIT', bin: repository.bin, engines: repository.engines });
    const bin = Object.values(run.manifest.bin!)[0]!;
    expect(readFileSync(join(packedLibrary().dist, '..', bin), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
  }, 120_000);

  it('names each problem of a doctored tarball: a rewritten bin, a packed test, README links to unpacked files, a missing export, a dependency wanting a newer Node', () => {
    const pkg = join(work, 'doctored', 'package');
    mkdirSync(join(pkg, 'dist/lib'), { recursive: true });
    mkdirSync(join(pkg, 'dist/test'), { recursive: true });
    const manifest: Manifest = {
      name: 'doctored', version: '1.0.0', license: 'MIT', files: ['dist'], types: './dist/lib/index.d.ts', module: './dist/lib/index.js',
      exports: { '.': { types: './dist/lib/index.d.ts', import: './dist/lib/index.js' }, './extra': { types: './dist/lib/extra.d.ts', import: './dist/lib/extra.js' } },
      bin: { doctored: './dist/lib/cli.js' }, engines: { node: '>=20.19' }, sideEffects: ['./dist/lib/index.js'],
      scripts: { prepack: 'true' }, dependencies: { 'needs-node-22': '1.0.0' },
    };
    writeFileSync(join(pkg, 'package.json'), JSON.stringify(manifest));
    for (const file of ['LICENSE', 'dist/lib/index.js', 'dist/lib/index.d.ts', 'dist/lib/cli.js', 'dist/test/fixture.test.js']) writeFileSync(join(pkg, file), '\n');
    writeFileSync(join(pkg, 'README.md'), '# doctored\n\n[the module](dist/lib/index.js) [a guide](docs/guide.md#use) [web](https://example.com/x) [top](#doctored)\n\n![a picture](./public/shot.png)\n');
    const tarball = join(work, 'doctored.tgz');
    expect(spawnSync('tar', ['-czf', tarball, '-C', join(work, 'doctored'), 'package']).status).toBe(0);

    const problems = publishProblems(publishDryRun(tarball, work), (name) => (name === 'needs-node-22' ? '>=22' : undefined));
    expect(problems.some((p) => /npm warned: .*bin/i.test(p))).toBe(true);
    expect(problems.filter((p) => !p.startsWith('npm warned'))).toEqual([
      'dist/test/fixture.test.js is packed: not part of the package',
      'README.md:3 links docs/guide.md#use, which is not in the tarball',
      'README.md:5 links ./public/shot.png, which is not in the tarball',
      'exports["./extra"].types → ./dist/lib/extra.d.ts is not in the tarball',
      'exports["./extra"].import → ./dist/lib/extra.js is not in the tarball',
      'needs-node-22 wants Node >=22, engines.node says >=20.19',
    ]);
  }, 60_000);
});
