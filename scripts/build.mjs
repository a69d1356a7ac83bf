// `npm run build`: the library as one ES module, readable and minified (dist/lib), its type declarations
// (dist/types), and the demo site (dist/site) once index.html exists.
//
//   node scripts/build.mjs [--out-dir DIR] [--no-site]
//
// --out-dir puts all three under DIR instead of dist/ (the build test uses a temp dir).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const outIndex = args.indexOf('--out-dir');
const outDir = resolve(root, outIndex >= 0 ? args[outIndex + 1] : 'dist');
const site = !args.includes('--no-site');
const configFile = join(root, 'vite.config.ts');

for (const mode of ['lib', 'lib-min']) {
  await build({ root, configFile, mode, logLevel: 'warn', build: { outDir: join(outDir, 'lib') } });
}

writeFileSync(join(outDir, 'lib', 'THIRD-PARTY-LICENSES.md'), thirdPartyLicenses());

const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
const types = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', join(outDir, 'types')], { cwd: root, stdio: 'inherit' });
if (types.status !== 0) {
  console.error('build: type declarations failed');
  process.exit(types.status ?? 1);
}

if (!site) {
  // Asked for the library only.
} else if (existsSync(join(root, 'index.html'))) {
  await build({ root, configFile, logLevel: 'warn', build: { outDir: join(outDir, 'site') } });
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
    { name: 'parse-exr', what: 'the OpenEXR decoder for `.exr` environments (a lazy chunk)' },
    { name: 'fflate', what: "parse-exr's zlib inflate (in its chunk)" },
  ];
  const parts = ['# Third-party code in this build', ''];
  for (const { name, what } of bundled) {
    const pkg = JSON.parse(readFileSync(join(packageDir(name), 'package.json'), 'utf8'));
    const file = licenceFile(name);
    parts.push(`## ${name} ${pkg.version} (${pkg.license}): ${what}`, '');
    parts.push(file ? readFileSync(file, 'utf8').trim() : `Licensed under ${pkg.license}; the text is at the end of this file.`, '');
  }
  parts.push('## Basis Universal transcoder (Apache-2.0): KTX2 textures (lazy chunks)', '');
  parts.push("Copyright Binomial LLC. `basis_transcoder.js` and `.wasm` as shipped in the `three` package's examples/jsm/libs/basis; licensed under the Apache License 2.0 below.", '');
  parts.push('## Apache License 2.0', '', readFileSync(join(packageDir('typescript'), 'LICENSE'), 'utf8').trim(), '');
  return parts.join('\n');
}
