// Builds a self-contained kit that runs the Dawn-in-Node GPU benches (--mtoon, --pbr-extensions,
// --skin-paths, --crowd-evaluator) on a borrowed GPU machine that has no Node, no npm and no network:
//   node scripts/device-bench-kit.mjs <kit folder, git-ignored, e.g. .devkit>
// The kit holds this machine's node binary and dawn.node (xz-compressed), one ESM bundle of the four
// benches (esbuild, with Vite's ?raw / ?inline / ?url imports resolved as scripts/raw-hooks.mjs does),
// the two shared models they read (Fox, CesiumMan: third-party files, so the kit must stay out of git),
// this machine's Vulkan loader, and run.sh, which unpacks all that, prints the GPU, the Vulkan loader's
// state and Dawn's adapter, then runs each bench under its own timeout with its log under $OUT.
// On the GPU machine: `sh <kit>/run.sh [--quick]`; here, `OUT=/tmp/x sh <kit>/run.sh --quick` tries it on SwiftShader.
// Where that machine lacks the Vulkan loader or GLVND (NVIDIA's Vulkan driver needs libGLdispatch), run.sh unpacks
// the .debs of a `.gl` folder beside the kit: `apt-get download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2`.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const KIT = resolve(process.argv[2] ?? '');
if (!process.argv[2]) throw new Error('usage: node scripts/device-bench-kit.mjs <kit folder>');
const ASSETS = resolve(ROOT, '../shared/assets');
/** The models the four benches read by name (assetPath); the MToon and PBR-extension benches build theirs. */
const MODELS = ['Fox', 'CesiumMan'];
const VULKAN_LOADER = '/usr/lib/x86_64-linux-gnu/libvulkan.so.1';
const DAWN_NODE = join(ROOT, 'node_modules/webgpu/dist/linux-x64/dawn.node');

/** The bundle's entry: `bench.mjs <probe|mtoon|pbr-extensions|skin-paths|crowd-evaluator> [--quick]`. */
const ENTRY = `
import { runMToonBench } from './bench/gpu/mtoon-bench.ts';
import { runPbrExtensionsBench } from './bench/gpu/pbr-extensions.ts';
import { runSkinPathsBench } from './bench/gpu/skin-paths.ts';
import { runCrowdEvaluatorBench } from './bench/crowd-evaluator.ts';
import { SWIFTSHADER_ICD } from './src/gpu/device/node-device.ts';
import { existsSync } from 'node:fs';
import { create } from 'webgpu';

const BENCHES = { 'mtoon': runMToonBench, 'pbr-extensions': runPbrExtensionsBench, 'skin-paths': runSkinPathsBench, 'crowd-evaluator': runCrowdEvaluatorBench };
const [name, ...flags] = process.argv.slice(2);
// The adapter createNodeDevice takes: the first one an instance made the same way returns, SwiftShader's
// when no Vulkan driver is chosen and it is installed (as createNodeDevice does).
if (!process.env.VK_ICD_FILENAMES && !process.env.VK_DRIVER_FILES && existsSync(SWIFTSHADER_ICD)) process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
const adapter = await create([]).requestAdapter();
if (!adapter) {
  console.log('adapter: none (VK_ICD_FILENAMES=' + (process.env.VK_ICD_FILENAMES ?? '') + ', VK_DRIVER_FILES=' + (process.env.VK_DRIVER_FILES ?? '') + ')');
  process.exit(3);
}
const { vendor, architecture, device, description } = adapter.info;
console.log('adapter: ' + JSON.stringify({ vendor, architecture, device, description, features: [...adapter.features].sort().join(' ') }));
if (name === 'probe') process.exit(0);
if (!(name in BENCHES)) throw new Error('unknown bench ' + name + '; one of probe, ' + Object.keys(BENCHES).join(', '));
await BENCHES[name]({ quick: flags.includes('--quick') });
process.exit(process.exitCode ?? 0);
`;

const QUERY = /\?(raw|inline|url)$/;
const MIME = { wasm: 'application/wasm' };

/** Vite's import queries, as scripts/raw-hooks.mjs gives them in Node; and the shared models' folder from the environment. */
const kitPlugin = {
  name: 'device-bench-kit',
  setup(b) {
    b.onResolve({ filter: QUERY }, async (args) => {
      const [, kind] = QUERY.exec(args.path);
      const bare = args.path.slice(0, -kind.length - 1);
      const found = await b.resolve(bare, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer });
      if (found.errors.length > 0) return { errors: found.errors };
      return { path: found.path, namespace: 'query', pluginData: kind };
    });
    b.onLoad({ filter: /.*/, namespace: 'query' }, (args) => {
      const kind = args.pluginData;
      if (kind === 'raw') return { contents: `export default ${JSON.stringify(readFileSync(args.path, 'utf8'))};`, loader: 'js' };
      if (kind === 'url') return { contents: `export default ${JSON.stringify(pathToFileURL(args.path).href)};`, loader: 'js' };
      const extension = args.path.slice(args.path.lastIndexOf('.') + 1);
      const data = `data:${MIME[extension] ?? 'application/octet-stream'};base64,${readFileSync(args.path).toString('base64')}`;
      return { contents: `export default ${JSON.stringify(data)};`, loader: 'js' };
    });
    // test/support/assets.ts finds ../shared/assets beside the checkout; in the kit they travel inside it.
    b.onLoad({ filter: /test[\\/]support[\\/]assets\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const original = "resolve(import.meta.dirname, '../../../shared/assets')";
      if (!source.includes(original)) throw new Error(`${args.path} no longer says ${original}: update scripts/device-bench-kit.mjs`);
      return { contents: source.replace(original, "resolve(process.env.BENCH_ASSETS_DIR ?? 'BENCH_ASSETS_DIR unset')"), loader: 'ts' };
    });
  },
};

const RUN_SH = `#!/bin/sh
# Made by scripts/device-bench-kit.mjs. Runs on the GPU machine from the checkout's root: sh <kit>/run.sh [--quick]
# Each bench runs under its own timeout (seconds, environment: T_MTOON, T_PBR, T_SKIN, T_CROWD); logs go to $OUT.
KIT=$(cd "$(dirname "$0")" && pwd)
OUT=\${OUT:-/tmp/bench-out}
mkdir -p "$OUT"
QUICK=$1
# Unpacked under /tmp, the kit left as it came: the bundle finds node_modules/webgpu beside it and writes
# its results to $BIN/results (crowd evaluator) and $BIN/../results (the others).
rm -rf /tmp/bench-kit
BIN=/tmp/bench-kit/bin
WEBGPU=$BIN/node_modules/webgpu
mkdir -p $WEBGPU/dist/linux-x64
log() { echo "== $*"; }
# Minimal images may lack xz(1); Python's lzma reads the same files.
unxz() { if command -v xz >/dev/null; then xz -dc "$1"; else python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$1"; fi; }
log "unpacking node and dawn.node"
unxz "$KIT/node.xz" > $BIN/node && chmod +x $BIN/node || exit 1
unxz "$KIT/dawn.node.xz" > $WEBGPU/dist/linux-x64/dawn.node || exit 1
cp "$KIT"/webgpu/* $WEBGPU/ && cp "$KIT/bench.mjs" $BIN/ || exit 1
$BIN/node -v
log "GPU"
nvidia-smi -L 2>&1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1
uname -a
log "Vulkan loader and drivers"
for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do [ -d $d ] && LD_LIBRARY_PATH=$d\${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; done
# The loader and GLVND (NVIDIA's Vulkan driver needs libGLdispatch): from the .gl debs beside the kit when missing
# (/work/.library/device/README.md's recipe), else this kit's loader alone.
GL=$KIT/../.gl
if command -v nvidia-smi >/dev/null && ! { ldconfig -p | grep -q 'libvulkan.so.1 ' && ldconfig -p | grep -q 'libGLdispatch.so.0 '; } && ls "$GL"/*.deb >/dev/null 2>&1; then
  log "unpacking $(ls "$GL"/*.deb | wc -l) .gl packages"
  for f in "$GL"/*.deb; do dpkg -x "$f" /; done; ldconfig
fi
if ! ldconfig -p | grep -q 'libvulkan.so.1 '; then
  log "no system libvulkan.so.1: using the kit's"
  LD_LIBRARY_PATH=$KIT/lib\${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
export LD_LIBRARY_PATH
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
ldconfig -p | grep -E 'libvulkan|libGLdispatch|libGLX_nvidia' 2>&1
ls /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/nvidia/share/vulkan/icd.d 2>&1
command -v vulkaninfo >/dev/null && timeout 20 vulkaninfo --summary 2>&1 | head -40
export BENCH_ASSETS_DIR="$KIT/assets"
NODE="$BIN/node --expose-gc"
log "Dawn adapter (loader's default drivers)"
timeout 30 $NODE $BIN/bench.mjs probe > $OUT/probe.log 2>&1; cat $OUT/probe.log
# On the GPU machine the adapter must be NVIDIA's: else point the loader at the driver's own ICD.
if ! grep -q '^adapter: {' $OUT/probe.log || { command -v nvidia-smi >/dev/null && ! grep -qi '^adapter: .*nvidia' $OUT/probe.log; }; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  log "Dawn adapter with VK_DRIVER_FILES=$VK_DRIVER_FILES"
  if ! VK_LOADER_DEBUG=error,driver timeout 30 $NODE $BIN/bench.mjs probe; then log "no adapter: stopping"; exit 2; fi
fi
run() { # name seconds
  log "bench $1 (timeout $2 s) $(date -u +%H:%M:%S)"
  start=$(date +%s)
  timeout -k 5 "$2" $NODE $BIN/bench.mjs "$1" $QUICK > "$OUT/$1.log" 2>&1
  echo "exit $? after $(( $(date +%s) - start )) s"
  cat "$OUT/$1.log"
}
run mtoon \${T_MTOON:-60}
run pbr-extensions \${T_PBR:-90}
run skin-paths \${T_SKIN:-60}
run crowd-evaluator \${T_CROWD:-200}
log "results"
cd /tmp/bench-kit && tar czf "$OUT/results.tgz" $(find . -name '*-latest.json') && tar tzf "$OUT/results.tgz"
log "done $(date -u +%H:%M:%S)"
`;

for (const made of ['bench.mjs', 'webgpu', 'assets', 'lib', 'run.sh']) rmSync(join(KIT, made), { recursive: true, force: true });
mkdirSync(join(KIT, 'webgpu'), { recursive: true });
await build({
  stdin: { contents: ENTRY, resolveDir: ROOT, sourcefile: 'device-bench-entry.ts', loader: 'ts' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outfile: join(KIT, 'bench.mjs'),
  external: ['webgpu'],
  plugins: [kitPlugin],
  // CommonJS dependencies (pngjs, jpeg-js) call require() for Node's built-ins.
  banner: { js: "import { createRequire as __kitRequire } from 'node:module'; const require = __kitRequire(import.meta.url);" },
  logLevel: 'warning',
});
// The webgpu package without its other platforms' binaries; run.sh unpacks dawn.node beside index.js.
for (const f of ['package.json', 'index.js']) copyFileSync(join(ROOT, 'node_modules/webgpu', f), join(KIT, 'webgpu', f));
/** xz -9 of node takes minutes on two busy cores: kept from an earlier build while newer than its source. */
const xz = (from, to) => {
  if (existsSync(to) && statSync(to).mtimeMs > statSync(from).mtimeMs) return;
  writeFileSync(to, execFileSync('xz', ['-T2', '-9', '-c', from], { maxBuffer: 1 << 30 }));
};
xz(realpathSync(process.execPath), join(KIT, 'node.xz'));
xz(DAWN_NODE, join(KIT, 'dawn.node.xz'));
for (const model of MODELS) cpSync(join(ASSETS, model), join(KIT, 'assets', model), { recursive: true });
if (existsSync(VULKAN_LOADER)) {
  mkdirSync(join(KIT, 'lib'));
  copyFileSync(realpathSync(VULKAN_LOADER), join(KIT, 'lib', basename(VULKAN_LOADER)));
}
writeFileSync(join(KIT, 'run.sh'), RUN_SH, { mode: 0o755 });
console.log(execFileSync('du', ['-ah', '--max-depth=1', KIT], { encoding: 'utf8' }));
