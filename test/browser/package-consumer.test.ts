/**
 * The package as someone who installs it gets it: `npm pack` (its `prepack` runs the build) once
 * per run (test/support/packed-library.ts; element-build.test.ts checks the same build), the tarball installed into a temporary folder outside the repository, and then what
 * a consumer does with it, each against the installed copy, not the sources:
 *  1. a Vite + TypeScript app imports the library and the element, type-checks, builds, and
 *     draws a shared asset in Chromium with no console error;
 *  2. a plain HTML page with one <script type="module"> of the installed dist/lib file draws;
 *  3. `npx skinned-mesh-bake` writes the same JSON as the command built from this checkout (which
 *     test/cli/bake-cli.test.ts pins to `npm run bake`), with the same exit code and message for a bad file;
 *  4. the README's code examples (its four tiers' HTML and TypeScript) type-check against the
 *     installed declarations, and its `<script src>` is a file the package ships;
 *  5. a TSX file using <skinned-mesh-viewer src camera-controls animation-name> type-checks
 *     under React 19's JSX types, and under Preact's, Solid's and Vue's, and a misspelled plain
 *     attribute or a wrongly typed value is a type error; Svelte's element typings likewise;
 *  6. a Vue single-file component checked by vue-tsc and a Svelte component checked by
 *     svelte-check: the tags type-check in their templates, and a misspelled attribute (hyphenated
 *     too) or a wrongly typed value is an error at its line. Both run on TypeScript 6
 *     (test/support/typescript6.cjs): they need the compiler API TypeScript 7 lacks.
 *
 * No network: the install runs `npm install --offline`, so the package's dependencies come
 * from the npm cache that `npm ci` filled, pinned to the tarball URLs of the versions in
 * package-lock.json (the cache keeps tarballs by URL, not the registry's version lists). The
 * tools a consumer brings (TypeScript, Vite, each framework's types) are the repository's:
 * TypeScript and Vite run from it, and the framework packages are linked into the consumer's node_modules.
 */
import { execFile, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { writeHdr } from '../../src/gpu/environment/hdr.ts';
import { bakeUsage } from '../../src/cli/bake.ts';
import { assetPath } from '../support/assets.ts';
import { ourLines, runBuiltBake } from '../support/bake-cli.ts';
import { browserUnavailable } from '../support/browser.ts';
import { useBrowserSession } from '../support/browser-hooks.ts';
import { packedLibrary } from '../support/packed-library.ts';
import { typeCheckableExamples } from '../support/docs.ts';
import { decodeBase64Image, foregroundFraction } from './element-support.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; dependencies: Record<string, string> };
const TSC = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
/** Preloaded into vue-tsc and svelte-check: `typescript` is TypeScript 6 for them. */
const TYPESCRIPT6 = join(ROOT, 'test/support/typescript6.cjs');
const VUE_TSC = join(ROOT, 'node_modules/vue-tsc/bin/vue-tsc.js');
const SVELTE_CHECK = join(ROOT, 'node_modules/svelte-check/bin/svelte-check');
const run = promisify(execFile);

const unavailable = browserUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${unavailable}`);

/**
 * The package's runtime dependencies and theirs, each pinned to its registry tarball at the
 * version package-lock.json holds: what `npm install --offline` finds in the npm cache.
 */
function lockedDependencyTarballs(): Record<string, string> {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version: string; dependencies?: Record<string, string> }>;
  };
  const pinned: Record<string, string> = {};
  const visit = (name: string): void => {
    if (pinned[name]) return;
    const entry = lock.packages[`node_modules/${name}`];
    if (!entry) throw new Error(`package-lock.json has no node_modules/${name}`);
    pinned[name] = `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-${entry.version}.tgz`;
    for (const dep of Object.keys(entry.dependencies ?? {})) visit(dep);
  };
  for (const name of Object.keys(PACKAGE.dependencies)) visit(name);
  return pinned;
}

/** Runs a command, failing with its output when it exits non-zero. */
function mustRun(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** `tsc -p DIR`: its diagnostics, one per line, and its exit code. */
function typeCheck(dir: string): { status: number | null; errors: string[] } {
  const result = spawnSync(process.execPath, [TSC, '-p', dir, '--pretty', 'false'], { cwd: dir, encoding: 'utf8' });
  return { status: result.status, errors: `${result.stdout}${result.stderr}`.split('\n').filter((l) => /error TS\d+/.test(l)) };
}

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', jsx: 'react-jsx', strict: true,
    noEmit: true, skipLibCheck: true, lib: ['ES2022', 'DOM', 'DOM.Iterable'], types: [],
  },
};

/** The Vite app: the library's API and the element, both from the installed package. */
const APP_HTML = `<!doctype html>
<meta charset="utf-8">
<link rel="icon" href="data:,">
<style>skinned-mesh-viewer { width: 240px; height: 240px; }</style>
<skinned-mesh-viewer id="viewer" src="Fox.glb" background="#223344" camera-controls animation-name="Walk" autoplay></skinned-mesh-viewer>
<script type="module" src="./main.ts"></script>
`;
const APP_MAIN = `import { loadGltf } from '${PACKAGE.name}';
import { TAG_NAME, type SkinnedMeshViewerElement, type ViewerLoadDetail } from '${PACKAGE.name}/element';

const viewer: SkinnedMeshViewerElement = document.querySelector(TAG_NAME)!;
viewer.addEventListener('load', async (event) => {
  const detail: ViewerLoadDetail = event.detail;
  // The full API beside the element: the same file, loaded again by the library's own loader.
  const model = await loadGltf(new Uint8Array(await (await fetch(detail.url)).arrayBuffer()));
  document.body.dataset.animations = model.animations.map((clip) => clip.name).join(',');
});
`;
type JsxFramework = 'react' | 'preact' | 'solid' | 'vue';

/**
 * A component using the tags, for a JSX framework; \`@ts-expect-error\` marks each line that must be an
 * error (the file compiles only if each is).
 */
function tsxFor(framework: JsxFramework): string {
  const component = {
    react: `import { useRef } from 'react';
export function Viewer() {
  const ref = useRef<SkinnedMeshViewerElement>(null);
  return (
    <skinned-mesh-viewer ref={ref} src="Fox.glb" camera-controls animation-name="Walk" speed={1.5} className="viewer" onClick={() => ref.current?.play()}>
      <extra-model src="hat.glb" offset="0 1 0" />
    </skinned-mesh-viewer>
  );
}`,
    preact: `import { useRef } from 'preact/hooks';
export function Viewer() {
  const ref = useRef<SkinnedMeshViewerElement>(null);
  return (
    <skinned-mesh-viewer ref={ref} src="Fox.glb" camera-controls animation-name="Walk" speed={1.5} class="viewer" onClick={() => ref.current?.play()}>
      <extra-model src="hat.glb" offset="0 1 0" />
    </skinned-mesh-viewer>
  );
}`,
    solid: `let viewer: SkinnedMeshViewerElement | undefined;
export const Viewer = () => (
  <skinned-mesh-viewer ref={viewer} src="Fox.glb" camera-controls animation-name="Walk" speed={1.5} class="viewer" onClick={() => viewer?.play()}>
    <extra-model src="hat.glb" offset="0 1 0" />
  </skinned-mesh-viewer>
);`,
    vue: `export const Viewer = (props: { onPlay: (viewer: SkinnedMeshViewerElement) => void }) => (
  <skinned-mesh-viewer src="Fox.glb" camera-controls animation-name="Walk" speed={1.5} class="viewer" onClick={(e: MouseEvent) => props.onPlay(e.currentTarget as SkinnedMeshViewerElement)}>
    <extra-model src="hat.glb" offset="0 1 0" />
  </skinned-mesh-viewer>
);`,
  }[framework];
  return `import type {} from '${PACKAGE.name}/${framework}';
import type { SkinnedMeshViewerElement } from '${PACKAGE.name}/element';
${component}
// @ts-expect-error a misspelled attribute
export const misspelled = <skinned-mesh-viewer scr="Fox.glb" />;
// @ts-expect-error camera-controls is a boolean attribute
export const wrongType = <skinned-mesh-viewer camera-controls="yes" />;
// @ts-expect-error speed is a number
export const wrongValue = <skinned-mesh-viewer speed={{ fast: true }} />;
`;
}

/** Svelte's element typings (what svelte-check reads for markup), as objects: here even a misspelled hyphenated name is an error. */
const SVELTE_TS = `import type {} from '${PACKAGE.name}/svelte';
import type { SvelteHTMLElements } from 'svelte/elements';
type Viewer = SvelteHTMLElements['skinned-mesh-viewer'];
export const viewer: Viewer = { src: 'Fox.glb', 'camera-controls': true, 'animation-name': 'Walk', speed: 1.5, class: 'viewer', onclick: () => undefined };
export const extra: SvelteHTMLElements['extra-model'] = { src: 'hat.glb', offset: '0 1 0' };
// @ts-expect-error a misspelled attribute
export const misspelled: Viewer = { scr: 'Fox.glb' };
// @ts-expect-error a misspelled hyphenated attribute
export const misspelledHyphen: Viewer = { 'camera-control': true };
// @ts-expect-error camera-controls is a boolean attribute
export const wrongType: Viewer = { 'camera-controls': 'yes' };
`;

/** The tags in a Vue template, then one mistake a line (lines 10–13). */
const VUE_SFC = `<script setup lang="ts">
import type {} from '${PACKAGE.name}/vue';
import type { SkinnedMeshViewerElement } from '${PACKAGE.name}/element';
const play = (event: MouseEvent) => (event.currentTarget as SkinnedMeshViewerElement).play();
</script>
<template>
  <skinned-mesh-viewer src="Fox.glb" camera-controls animation-name="Walk" :speed="1.5" class="viewer" @click="play">
    <extra-model src="hat.glb" offset="0 1 0" />
  </skinned-mesh-viewer>
  <skinned-mesh-viewer scr="Fox.glb" />
  <skinned-mesh-viewer camera-control />
  <skinned-mesh-viewer :camera-controls="'yes'" />
  <skinned-mesh-viewer :speed="{ fast: true }" />
</template>
`;

/**
 * The consumer's vue-tsc language plugin: the tags are custom elements, as Vue's compiler is told
 * (`isCustomElement`); without it vue-tsc takes them for components it cannot resolve, and checks nothing.
 */
const VUE_CUSTOM_ELEMENTS_PLUGIN = `const tags = new Set(['skinned-mesh-viewer', 'extra-model']);
module.exports = () => ({ version: 2.2, resolveTemplateCompilerOptions: (options) => ({ ...options, isCustomElement: (tag) => tags.has(tag) }) });
`;

/** The tags in Svelte markup, then one mistake a line (lines 9–12). */
const SVELTE_COMPONENT = `<script lang="ts">
  import type {} from '${PACKAGE.name}/svelte';
  import type { SkinnedMeshViewerElement } from '${PACKAGE.name}/element';
  let viewer: SkinnedMeshViewerElement | undefined = $state();
</script>
<skinned-mesh-viewer bind:this={viewer} src="Fox.glb" camera-controls animation-name="Walk" speed={1.5} class="viewer">
  <extra-model src="hat.glb" offset="0 1 0"></extra-model>
</skinned-mesh-viewer>
<skinned-mesh-viewer scr="Fox.glb"></skinned-mesh-viewer>
<skinned-mesh-viewer camera-control></skinned-mesh-viewer>
<skinned-mesh-viewer camera-controls="yes"></skinned-mesh-viewer>
<skinned-mesh-viewer speed={{ fast: true }}></skinned-mesh-viewer>
`;

/** The four mistakes of VUE_SFC and SVELTE_COMPONENT, in order: each error's message contains its text. */
const TEMPLATE_MISTAKES = ['scr', 'camera-control', "'string' is not assignable to type 'boolean | undefined'", "'{ fast: true; }' is not assignable"];

/** Runs a checker on TypeScript 6 in `dir`: its exit code and output. */
function checkOnTypescript6(bin: string, args: string[], dir: string): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, ['--require', TYPESCRIPT6, bin, ...args], { cwd: dir, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/**
 * Examples as the README writes them, each with one mistake the README check must catch (line
 * numbers below): a misspelled hyphenated attribute, a misspelled method in a page's script, an
 * export the package does not have.
 */
const WRONG_EXAMPLES_MD = `Wrong on purpose.

\`\`\`html
<skinned-mesh-viewer src="robot.glb" animation-nam="Walk" camera-controls></skinned-mesh-viewer>
<script type="module">
  document.querySelector('skinned-mesh-viewer')!.crossfadeToo('Run', 0.4);
</script>
\`\`\`

\`\`\`ts
import { Renderr } from '${PACKAGE.name}';
export const renderer = Renderr;
\`\`\`
`;

/**
 * Checks that \`source\`, written as \`file\` in \`dir\`, compiles, and that without its
 * \`@ts-expect-error\` comments (blanked, so lines keep their numbers) each line below one is an
 * error; returns those errors. Both copies are one compiler run (the unmarked one beside it as
 * \`unmarked-FILE\`): every error must be in the unmarked copy, at a marked line.
 */
function expectTypeErrorsExactlyAtMarks(dir: string, file: string, source: string, compilerOptions: Record<string, unknown>): string[] {
  const unmarked = `unmarked-${file}`;
  mkdirSync(dir);
  writeFileSync(join(dir, file), source);
  writeFileSync(join(dir, unmarked), source.replaceAll(/^\/\/ @ts-expect-error.*$/gm, ''));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...TSCONFIG.compilerOptions, ...compilerOptions }, files: [file, unmarked] }));
  const marked = source.split('\n').flatMap((line, i) => (line.startsWith('// @ts-expect-error') ? [String(i + 2)] : []));
  expect(marked.length).toBeGreaterThan(0);
  const { status, errors } = typeCheck(dir);
  const inFile = (name: string) => errors.filter((e) => new RegExp(`(^|/)${name.replace('.', '\\.')}\\(`).test(e));
  expect(inFile(file), `${file} with its @ts-expect-error marks compiles`).toEqual([]);
  expect(errors.filter((e) => !inFile(unmarked).includes(e)), 'errors only in the two files').toEqual([]);
  expect(status, 'tsc fails on the unmarked copy').not.toBe(0);
  const unmarkedErrors = inFile(unmarked);
  expect(unmarkedErrors.map((e) => new RegExp(`${unmarked.replace('.', '\\.')}\\((\\d+),`).exec(e)?.[1])).toEqual(marked);
  return unmarkedErrors;
}

/** A 64 × 32 equirect image: blue sky over orange ground. */
function skyOverGround(): { width: number; height: number; rgb: Float32Array } {
  const width = 64, height = 32, rgb = new Float32Array(width * height * 3);
  for (let i = 0; i < width * height; i++) rgb.set(i < (width * height) / 2 ? [0.15, 0.35, 1] : [0.9, 0.4, 0.05], i * 3);
  return { width, height, rgb };
}

const MIME: Record<string, string> = {
  '.hdr': 'image/vnd.radiance',
  '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.glb': 'model/gltf-binary', '.wasm': 'application/wasm', '.json': 'application/json',
};

describe('the npm package, installed from its tarball', () => {
  let work: string;
  let consumer: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'skinned-mesh-consumer-'));
    const { tarball } = packedLibrary();
    consumer = join(work, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: lockedDependencyTarballs() }));
    try {
      mustRun('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], consumer);
    } catch (e) {
      throw new Error(`the offline install needs the package's dependencies in the npm cache (npm ci fills it): ${(e as Error).message}`);
    }
    // What a consumer brings for its framework's types: React's types (and theirs), Preact, Solid, Svelte, Vue.
    mkdirSync(join(consumer, 'node_modules/@types'), { recursive: true });
    for (const name of ['@types/react', 'csstype', 'preact', 'solid-js', 'svelte', 'vue', '@vue']) {
      symlinkSync(join(ROOT, 'node_modules', name), join(consumer, 'node_modules', name), 'dir');
    }
  }, 300_000);
  afterAll(() => { if (work) rmSync(work, { recursive: true, force: true }); });

  it('is the packed files, not links into the repository', () => {
    const installed = join(consumer, 'node_modules', PACKAGE.name);
    expect(readdirSync(installed).sort()).toEqual(['LICENSE', 'README.md', 'dist', 'docs', 'package.json', 'public']);
    expect(readdirSync(join(installed, 'dist')).sort()).toEqual(['cli', 'lib', 'types']);
    // The guides and the pictures the README links, so its links open in node_modules too.
    expect(readdirSync(join(installed, 'docs')).sort()).toEqual(readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort());
    expect(readdirSync(join(installed, 'public')).sort()).toEqual(['demo-embedded.png', 'demo.png']);
  });

  // The installed command against this checkout's built one (test/support/bake-cli.ts, cached by the
  // sources' hash), not `npm run bake` (npm, then tsx compiling every source: ~1.3 CPU-s more a run):
  // test/cli/bake-cli.test.ts pins that the built command and `npm run bake` print the same.
  it('npx skinned-mesh-bake writes the same JSON as the built command (as npm run bake), and fails a bad file the same way', async () => {
    const fox = assetPath('Fox');
    const args = [fox, '--animation', '1', '--time', '0.3', '--out'];
    await run('npx', ['--offline', '--no-install', 'skinned-mesh-bake', ...args, join(work, 'bin.json')], { cwd: consumer });
    const source = await runBuiltBake([...args, join(work, 'source.json')]);
    expect(source.code).toBe(0);
    const bin = readFileSync(join(work, 'bin.json'), 'utf8');
    expect(JSON.parse(bin).primitives[0].vertexCount).toBeGreaterThan(0);
    expect(bin).toBe(readFileSync(join(work, 'source.json'), 'utf8'));

    const missing = join(work, 'missing.glb');
    const failed = await run('npx', ['--offline', '--no-install', 'skinned-mesh-bake', missing], { cwd: consumer }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    );
    const sourceFailed = await runBuiltBake([missing]);
    expect(failed.code).toBe(1);
    expect(sourceFailed.code).toBe(1);
    expect(ourLines(failed.stderr)).toEqual([`bake: ${missing}: no such file`]);
    expect(ourLines(sourceFailed.stderr)).toEqual(ourLines(failed.stderr));

    // Its usage names the command the user ran, not the repository's `bake`.
    const help = await run('npx', ['--offline', '--no-install', 'skinned-mesh-bake', '--help'], { cwd: consumer });
    expect(help.stdout).toBe(bakeUsage('skinned-mesh-bake') + '\n');
  }, 120_000);

  it.each([
    { framework: 'react' as const, jsx: 'react-jsx' },
    { framework: 'preact' as const, jsx: 'react-jsx' },
    { framework: 'solid' as const, jsx: 'preserve' },
    { framework: 'vue' as const, jsx: 'preserve' },
  ])('a TSX file under $framework JSX types type-checks, and misspelled or wrongly typed attributes are errors', ({ framework, jsx }) => {
    const jsxImportSource = framework === 'solid' ? 'solid-js' : framework;
    const errors = expectTypeErrorsExactlyAtMarks(join(consumer, `tsx-${framework}`), 'viewer.tsx', tsxFor(framework), { jsx, jsxImportSource });
    expect(errors[0]).toContain('{ scr: string; }');
    expect(errors[1]).toContain(`{ "camera-controls": string; }`);
  }, 120_000);

  it("Svelte's element typings take the tags' attributes and refuse misspelled or wrongly typed ones", () => {
    const errors = expectTypeErrorsExactlyAtMarks(join(consumer, 'svelte'), 'viewer.ts', SVELTE_TS, {});
    expect(errors[0]).toContain("'scr' does not exist");
    expect(errors[1]).toMatch(/'camera-control'+ does not exist/);
  }, 120_000);

  it('a Vue single-file component, checked by vue-tsc: the tags type-check in the template; a misspelled attribute or a wrong value is an error at its line', () => {
    const dir = join(consumer, 'vue-sfc');
    mkdirSync(dir);
    writeFileSync(join(dir, 'Viewer.vue'), VUE_SFC);
    writeFileSync(join(dir, 'custom-elements.cjs'), VUE_CUSTOM_ELEMENTS_PLUGIN);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      ...TSCONFIG, include: ['*.vue'], vueCompilerOptions: { strictTemplates: true, plugins: ['./custom-elements.cjs'] },
    }));
    const { status, output } = checkOnTypescript6(VUE_TSC, ['-p', dir, '--pretty', 'false'], dir);
    const errors = output.split('\n').flatMap((line) => /^Viewer\.vue\((\d+),\d+\): error TS\d+: (.*)$/.exec(line)?.slice(1) ?? []);
    expect(status, output).toBe(2);
    expect(errors.filter((_, i) => i % 2 === 0)).toEqual(['10', '11', '12', '13']);
    TEMPLATE_MISTAKES.forEach((mistake, i) => expect(errors[i * 2 + 1]).toContain(mistake));
  }, 120_000);

  it('a Svelte component, checked by svelte-check: the tags type-check in the markup; a misspelled attribute or a wrong value is an error at its line', () => {
    const dir = join(consumer, 'svelte-component');
    mkdirSync(dir);
    writeFileSync(join(dir, 'Viewer.svelte'), SVELTE_COMPONENT);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, include: ['*.svelte'] }));
    const { status, output } = checkOnTypescript6(SVELTE_CHECK, ['--workspace', dir, '--tsconfig', './tsconfig.json', '--output', 'machine'], dir);
    const problems = output.split('\n').flatMap((line) => /^\d+ (ERROR|WARNING) "Viewer\.svelte" (\d+):\d+ (.*)$/.exec(line)?.slice(1) ?? []);
    expect(status, output).toBe(1);
    expect(problems.filter((_, i) => i % 3 !== 2)).toEqual(['ERROR', '9', 'ERROR', '10', 'ERROR', '11', 'ERROR', '12']);
    TEMPLATE_MISTAKES.forEach((mistake, i) => expect(problems[i * 3 + 2]).toContain(mistake));
    expect(output).toMatch(/COMPLETED \d+ FILES 4 ERRORS 0 WARNINGS 1 FILES_WITH_PROBLEMS/);
  }, 120_000);

  it("the README's code examples type-check against the installed declarations; a wrong export, attribute or method is an error", () => {
    const dir = join(consumer, 'readme');
    mkdirSync(dir);
    const readme = typeCheckableExamples(readFileSync(join(ROOT, 'README.md'), 'utf8'), PACKAGE.name, 'readme');
    const wrong = typeCheckableExamples(WRONG_EXAMPLES_MD, PACKAGE.name, 'wrong');
    const modules = { ...readme.modules, ...wrong.modules };
    for (const [file, source] of Object.entries(modules)) writeFileSync(join(dir, file), source);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, files: Object.keys(modules) }));
    // One compiler run for both: each error as 'README.md:LINE' or 'wrong.md:LINE' and its message.
    const located = typeCheck(dir).errors.map((error) => {
      const [, file, line, message] = /^(?:\S*\/)?([^/\s]+?)\((\d+),\d+\): error (TS\d+: .*)$/.exec(error) ?? [];
      const from = file?.startsWith('readme') ? ['README.md', readme] as const : ['wrong.md', wrong] as const;
      return `${from[0]}:${from[1].lineOf(file ?? '', Number(line)) ?? '?'}: ${message ?? error}`;
    });
    expect(Object.keys(readme.modules).length).toBeGreaterThanOrEqual(2);
    expect(located.filter((e) => !e.startsWith('wrong.md:'))).toEqual([]);
    // tsc sorts its errors by file name; here they are in the order of the Markdown's lines.
    const wrongLine = (e: string): number => Number(/^wrong\.md:(\d+)/.exec(e)?.[1] ?? NaN);
    located.sort((a, b) => wrongLine(a) - wrongLine(b));
    expect(located.map(wrongLine)).toEqual([4, 6, 11]);
    expect(located[0]).toMatch(/'"animation-nam"' does not exist in type 'SkinnedMeshViewerAttributes'/);
    expect(located[1]).toContain("'crossfadeToo' does not exist");
    expect(located[2]).toMatch(/no exported member (named )?'Renderr'/);
    const installed = join(consumer, 'node_modules', PACKAGE.name);
    expect(readme.scriptSources.length).toBeGreaterThan(0);
    expect(readme.scriptSources.filter((src) => !existsSync(join(installed, src)))).toEqual([]);
  }, 60_000);

  describe.skipIf(!!unavailable)('in Chromium', () => {
    const session = useBrowserSession();

    /** Serves `dir` under /consumer/ (and the Fox beside every page), opens `page` and waits for the viewer's load. */
    async function openServed(page: Page, dir: string, path: string): Promise<void> {
      await page.route('**/consumer/**', async (route) => {
        const rel = new URL(route.request().url()).pathname.replace(/^\/consumer\//, '');
        const file = rel.endsWith('Fox.glb') ? assetPath('Fox') : join(dir, rel);
        await route.fulfill({ status: 200, contentType: MIME[extname(file)] ?? 'application/octet-stream', body: readFileSync(file) });
      });
      await page.goto(`${session.baseUrl}/consumer/${path}`);
      await page.waitForFunction(() => (document.querySelector('skinned-mesh-viewer') as { loaded?: boolean } | null)?.loaded === true, undefined, { timeout: 45_000 });
    }

    /** The viewer's picture: the fraction that is not its background. */
    async function drawnFraction(page: Page): Promise<number> {
      const base64 = await page.evaluate(async () => {
        const viewer = document.querySelector('skinned-mesh-viewer')!;
        for (let i = 0; i < 3; i++) await new Promise(requestAnimationFrame);
        const url = await new Promise<string>((done) => {
          const reader = new FileReader();
          reader.onload = () => done(reader.result as string);
          void viewer.toBlob().then((blob) => reader.readAsDataURL(blob));
        });
        return url.slice(url.indexOf(',') + 1);
      });
      return foregroundFraction(decodeBase64Image(base64));
    }

    it('a Vite + TypeScript app imports the library and the element, type-checks, builds and draws the Fox', async () => {
      const app = join(consumer, 'vite-app');
      mkdirSync(app);
      writeFileSync(join(app, 'index.html'), APP_HTML);
      writeFileSync(join(app, 'main.ts'), APP_MAIN);
      writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, files: ['main.ts'] }));
      expect(typeCheck(app)).toEqual({ status: 0, errors: [] });
      const { build } = await import('vite');
      await build({ root: app, configFile: false, logLevel: 'warn', base: './', build: { outDir: join(app, 'dist'), emptyOutDir: true } });
      const { page, consoleErrors } = await session.newPage();
      try {
        await openServed(page, join(app, 'dist'), 'index.html');
        await page.waitForFunction(() => document.body.dataset.animations !== undefined, undefined, { timeout: 20_000 });
        expect(await page.evaluate(() => document.body.dataset.animations)).toBe('Survey,Walk,Run');
        expect(await drawnFraction(page)).toBeGreaterThan(0.03);
        expect(consoleErrors).toEqual([]);
      } finally {
        await page.close();
      }
    }, 180_000);

    it('a plain HTML page with one <script type="module"> of the installed dist/lib file draws the Fox, then a crowd, an .hdr environment and the built-in VRM from its lazy chunks', async () => {
      writeFileSync(join(consumer, 'plain.html'), `<!doctype html>
<meta charset="utf-8">
<link rel="icon" href="data:,">
<script type="module" src="./node_modules/${PACKAGE.name}/dist/lib/element.min.js"></script>
<skinned-mesh-viewer src="Fox.glb" background="#223344" style="width: 240px; height: 240px"></skinned-mesh-viewer>
`);
      writeFileSync(join(consumer, 'sky.hdr'), writeHdr(skyOverGround()));
      const { page, consoleErrors } = await session.newPage();
      // The package's lazy chunks the page has fetched: each step below must fetch its own.
      const chunks = new Set<string>();
      page.on('request', (request) => { if (/\/dist\/lib\/chunks\/[^/]+\.js$/.test(request.url())) chunks.add(request.url()); });
      const fetchesChunks = async (step: () => Promise<unknown>): Promise<number> => {
        const before = chunks.size;
        await step();
        return chunks.size - before;
      };
      try {
        await openServed(page, consumer, 'plain.html');
        expect(await drawnFraction(page)).toBeGreaterThan(0.03);

        // A crowd: src/crowd arrives as a lazy chunk, and all four foxes are drawn (or culled).
        expect(await fetchesChunks(async () => {
          await page.evaluate(() => document.querySelector('skinned-mesh-viewer')!.setAttribute('instances', '4'));
          await page.waitForFunction(() => {
            const stats = (document.querySelector('skinned-mesh-viewer') as unknown as { stats?: { instances: number; culled: number } }).stats;
            return stats !== undefined && stats.instances + stats.culled === 4;
          }, undefined, { timeout: 45_000 });
        })).toBeGreaterThan(0);
        // Four foxes framed together, each smaller than the one was.
        expect(await drawnFraction(page)).toBeGreaterThan(0.005);

        // An environment file: the Radiance decoder arrives as a lazy chunk, and the model is lit by it.
        expect(await fetchesChunks(() => page.evaluate(() => new Promise<unknown>((done) => {
          const viewer = document.querySelector('skinned-mesh-viewer')!;
          viewer.addEventListener('environment-change', (event) => done((event as CustomEvent).detail), { once: true });
          viewer.setAttribute('environment-image', 'sky.hdr');
        })))).toBeGreaterThan(0);
        expect(await drawnFraction(page)).toBeGreaterThan(0.005);

        // A VRM: the built-in avatar (its builder) and MToon's WGSL arrive as lazy chunks.
        expect(await fetchesChunks(() => page.evaluate(() => new Promise<void>((done, fail) => {
          const viewer = document.querySelector('skinned-mesh-viewer')!;
          viewer.addEventListener('load', () => done(), { once: true });
          viewer.addEventListener('error', (event) => fail(new Error((event as CustomEvent<{ message: string }>).detail.message)), { once: true });
          viewer.removeAttribute('instances');
          viewer.setAttribute('src', 'builtin:vrm-avatar');
        })))).toBeGreaterThan(0);
        expect(await drawnFraction(page)).toBeGreaterThan(0.03);
        expect(consoleErrors).toEqual([]);
      } finally {
        await page.close();
      }
    }, 150_000);
  });
});
