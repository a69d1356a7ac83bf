// `npm run build`: the library as one ES module, readable and minified (dist/lib), its type declarations
// (dist/types), and the demo site (dist/site) once index.html exists.
//
//   node scripts/build.mjs [--out-dir DIR] [--no-site]
//
// --out-dir puts all three under DIR instead of dist/ (the build test uses a temp dir).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
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
