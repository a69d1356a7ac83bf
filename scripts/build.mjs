// `npm run build`: the library as one ES module, readable and minified (dist/lib), its type declarations
// (dist/types), the `skinned-mesh-bake` command for Node (dist/cli), and the demo site (dist/site)
// once index.html exists, with the documentation in dist/site/api (scripts/api-reference.mjs): the
// front page, the docs/*.md guides and the API reference, which the pages' "Documentation" links open.
//
//   node scripts/build.mjs [--out-dir DIR] [--no-site]
//
// --out-dir puts them all under DIR instead of dist/ (the build test uses a temp dir).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { printSizes, recordChunks, sizeReport } from './build-sizes.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const outIndex = args.indexOf('--out-dir');
const outDir = resolve(root, outIndex >= 0 ? args[outIndex + 1] : 'dist');
const site = !args.includes('--no-site');
const configFile = join(root, 'vite.config.ts');

/** What the minified build wrote: each chunk's static and lazy imports, for the size report. */
const minChunks = new Map();
for (const mode of ['lib', 'lib-min']) {
  await build({
    root, configFile, mode, logLevel: 'warn', build: { outDir: join(outDir, 'lib') },
    plugins: mode === 'lib-min' ? [recordChunks(minChunks)] : [],
  });
}
const sizes = sizeReport(join(outDir, 'lib'), minChunks);
writeFileSync(join(outDir, 'sizes.json'), JSON.stringify(sizes, null, 1) + '\n');
printSizes(sizes);

writeFileSync(join(outDir, 'lib', 'THIRD-PARTY-LICENSES.md'), thirdPartyLicenses());

await build({ root, configFile, mode: 'cli', logLevel: 'warn', build: { outDir: join(outDir, 'cli') } });
// npm makes a `bin` executable when it installs the package; this makes the built file runnable here too.
chmodSync(join(outDir, 'cli', 'skinned-mesh-bake.js'), 0o755);

const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
// tsc only adds files: a declaration left from a moved or deleted source would otherwise be packed.
rmSync(join(outDir, 'types'), { recursive: true, force: true });
// Single-threaded, as scripts/typecheck.mjs runs it: TypeScript 7's parallel checkers each resolve
// the shared types again (this step took 3.2–3.8 CPU-s with them, 2.6–3.0 without, on the 2-core VM),
// and the same declarations come out, checked the same.
const types = spawnSync(process.execPath, [tsc, '--singleThreaded', '-p', join(root, 'tsconfig.build.json'), '--outDir', join(outDir, 'types')], { cwd: root, stdio: 'inherit' });
if (types.status !== 0) {
  console.error('build: type declarations failed');
  process.exit(types.status ?? 1);
}

if (!site) {
  // Asked for the library only.
} else if (existsSync(join(root, 'index.html'))) {
  await build({ root, configFile, logLevel: 'warn', build: { outDir: join(outDir, 'site') } });
  // The documentation (TypeDoc: README.md, docs/*.md, the API reference) beside the demo, at api/
  // of the site: the build fails on an undocumented public export, a broken {@link}, a public type
  // that is not exported, or a guide's relative link or #anchor that leads nowhere.
  const { apiReference } = await import('./api-reference.mjs');
  const problems = await apiReference({ out: join(outDir, 'site', 'api') }); // SITE_DOCS_DIR in vite.config.ts
  if (problems.length) {
    for (const problem of problems) console.error(`build: API reference: ${problem}`);
    process.exit(1);
  }
} else {
  console.log('build: no index.html yet, so no demo site; library and types built');
}
console.log(`build: ${outDir}`);

/**
 * The licences of the third-party code dist/lib carries (bundled or in its lazy chunks and
 * worker), as their licences ask of a redistribution. The Basis transcoder is Binomial's
 * Apache-2.0 code as the `three` package ships it; draco3dgltf ships no licence file, so
 * the Apache-2.0 text comes from the TypeScript package, which is under the same licence.
 */
function thirdPartyLicenses() {
  // Not require.resolve: some of these packages do not export their package.json.
  const packageDir = (name) => join(root, 'node_modules', name);
  const licenceFile = (name) => ['LICENSE', 'LICENSE.md', 'LICENSE.txt']
    .map((f) => join(packageDir(name), f)).find((f) => existsSync(f));
  const bundled = [
    { name: 'wgpu-matrix', what: 'matrix math, bundled into the module' },
    { name: 'meshoptimizer', what: 'the meshopt decoder (a lazy chunk)' },
    { name: 'ktx-parse', what: 'the KTX2 parser' },
    { name: 'draco3dgltf', what: "Google's Draco decoder (the Draco worker's file)" },
    { name: 'three', what: "three.js's EXRLoader and the few three.js parts it imports, for `.exr` environments (a lazy chunk)" },
    { name: 'fflate', what: "the zlib inflate EXRLoader uses (three.js's copy, in the same chunk)" },
  ];
  const parts = ['# Third-party code in this build', ''];
  for (const { name, what } of bundled) {
    const pkg = JSON.parse(readFileSync(join(packageDir(name), 'package.json'), 'utf8'));
    const file = licenceFile(name);
    parts.push(`## ${name} ${pkg.version} (${pkg.license}): ${what}`, '');
    parts.push(file ? readFileSync(file, 'utf8').trim() : `Licensed under ${pkg.license}; the text is at the end of this file.`, '');
  }
  parts.push("## OpenEXR and TinyEXR notices (BSD-3-Clause): in three.js's EXRLoader (the `.exr` chunk)", '', openExrNotices(), '');
  parts.push('## Basis Universal transcoder (Apache-2.0): KTX2 textures (lazy chunks)', '');
  parts.push("Copyright Binomial LLC. `basis_transcoder.js` and `.wasm` as shipped in the `three` package's examples/jsm/libs/basis; licensed under the Apache License 2.0 below.", '');
  parts.push('## Apache License 2.0', '', readFileSync(join(packageDir('typescript'), 'LICENSE'), 'utf8').trim(), '');
  return parts.join('\n');
}

/** The copyright notices EXRLoader keeps from TinyEXR and OpenEXR, as its source comments give them. */
function openExrNotices() {
  const source = readFileSync(join(root, 'node_modules/three/examples/jsm/loaders/EXRLoader.js'), 'utf8');
  const start = source.indexOf('// /*');
  const end = source.indexOf('// // End of OpenEXR license');
  if (start < 0 || end < start) throw new Error("build: EXRLoader.js no longer has the OpenEXR notices where expected; update openExrNotices()");
  return source.slice(start, end).split('\n').map((line) => line.replace(/^\/\/ ?(\/\/ ?)?/, '')).join('\n').trim();
}
