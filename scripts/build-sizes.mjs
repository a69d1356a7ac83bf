// The build's size report: every entry and chunk of the minified library, its bytes and gzipped
// bytes, and for each entry what a page fetches for it before any lazy import (the entry and
// the chunks it imports statically, transitively). `npm run build` prints it and writes it to
// dist/sizes.json; the first-load benchmark (bench/first-load.ts) keeps its history.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** A Vite plugin that records each output chunk's static and dynamic imports into `into` (file name → record). */
export function recordChunks(into) {
  return {
    name: 'record-chunks',
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk') continue;
        into.set(chunk.fileName, { isEntry: chunk.isEntry, imports: chunk.imports, dynamicImports: chunk.dynamicImports });
      }
    },
  };
}

/** Level 9, as a server's static compression would; the same measure the first-load benchmark uses. */
export function gzipBytes(data) {
  return gzipSync(data, { level: 9 }).length;
}

/**
 * Sizes of the minified build in `libDir`. `chunks` is what recordChunks saw. Workers (assets/)
 * are listed with the chunks; a chunk that starts one does so only when a file needs it.
 */
export function sizeReport(libDir, chunks) {
  const size = (file) => {
    const data = readFileSync(join(libDir, file));
    return { bytes: data.length, gzip: gzipBytes(data) };
  };
  const files = [...chunks.keys()];
  const all = Object.fromEntries(files.map((f) => [f, { ...size(f), ...chunks.get(f) }]));
  for (const worker of readdirSync(join(libDir, 'assets')).filter((f) => f.endsWith('.js'))) {
    const file = `assets/${worker}`;
    // The readable and minified builds write their workers to the same folder; the minified chunks name theirs.
    if (files.some((f) => readFileSync(join(libDir, f), 'utf8').includes(worker))) all[file] = { ...size(file), worker: true, imports: [], dynamicImports: [] };
  }
  const entries = files.filter((f) => chunks.get(f).isEntry).map((entry) => {
    const closure = staticClosure(entry, chunks);
    return {
      entry,
      ...size(entry),
      firstLoad: { files: closure.length, bytes: closure.reduce((a, f) => a + all[f].bytes, 0), gzip: closure.reduce((a, f) => a + all[f].gzip, 0) },
      lazy: lazyReach(closure, chunks),
    };
  });
  return { entries, chunks: all };
}

/** The entry and every chunk it imports statically, transitively: what a page fetches before its first lazy import. */
export function staticClosure(entry, chunks) {
  const seen = new Set([entry]);
  const stack = [entry];
  while (stack.length > 0) {
    for (const next of chunks.get(stack.pop())?.imports ?? []) if (!seen.has(next)) { seen.add(next); stack.push(next); }
  }
  return [...seen];
}

/** The chunks a lazy import from `closure` may bring in, and not already in it. */
function lazyReach(closure, chunks) {
  const inClosure = new Set(closure);
  const lazy = new Set();
  const stack = closure.flatMap((f) => chunks.get(f)?.dynamicImports ?? []);
  while (stack.length > 0) {
    const f = stack.pop();
    if (inClosure.has(f) || lazy.has(f)) continue;
    lazy.add(f);
    stack.push(...(chunks.get(f)?.imports ?? []), ...(chunks.get(f)?.dynamicImports ?? []));
  }
  return [...lazy].sort();
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

export function printSizes(report) {
  const lines = ['build: minified entries (first load = the entry and its static imports, gzipped level 9)'];
  for (const e of report.entries) {
    lines.push(`  ${e.entry.padEnd(30)} ${kb(e.bytes).padStart(10)} ${kb(e.gzip).padStart(9)} gz   first load ${kb(e.firstLoad.bytes).padStart(9)} = ${kb(e.firstLoad.gzip).padStart(8)} gz in ${e.firstLoad.files} file(s); ${e.lazy.length} lazy`);
  }
  lines.push('build: chunks and workers (loaded when a file or attribute needs them)');
  const rest = Object.entries(report.chunks).filter(([, c]) => !c.isEntry).sort((a, b) => b[1].gzip - a[1].gzip);
  for (const [file, c] of rest) lines.push(`  ${file.padEnd(56)} ${kb(c.bytes).padStart(10)} ${kb(c.gzip).padStart(9)} gz${c.worker ? '  (worker)' : ''}`);
  console.log(lines.join('\n'));
}
