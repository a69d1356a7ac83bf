/**
 * The architecture rules of `src/`, as a checker over source text: imports point down the
 * layers, no cycle between files or between folders, no file over the length limit.
 * test/architecture.test.ts runs it on the real tree and on small trees that break each rule.
 *
 * Every import counts, whatever it carries: `import` and `import type`, `export … from`,
 * `import('…')` (values and `typeof import('…')` types), and the worker a file starts with
 * `new Worker(new URL('./x.ts', import.meta.url))`. The package's own name
 * (`skinned-mesh-webgpu`, how the demo imports the library) means `src/index.ts`.
 * Comments and strings are not imports: the files are parsed (Vite's TypeScript parser).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { parseAst } from 'vite';

/**
 * The layers of `src/`, lowest first; a name is a top-level folder (or file) of `src/`.
 * An import may only point to a lower layer or stay inside its own top-level folder.
 * Names on one row are siblings: neither may import the other.
 *
 * - `builtin` builds the shipped models with the glTF writer and needs nothing else; no pose
 *   code needs it, so it sits beside `anim`.
 * - `crowd` picks the CPU batch (`anim`) or the GPU evaluator (`gpu`) for a crowd, so it sits
 *   above `gpu`; `anim` then loads without any GPU code, and a CPU-only crowd pulls no WGSL.
 *   Nothing below `element` needs a crowd; `bake` poses one character.
 * - `index.ts` is the library entry: it re-exports every layer up to `element`, and the demo
 *   imports it by the package name, so it sits between `element` and `cli`/`demo`.
 */
export const LAYERS: ReadonlyArray<readonly string[]> = [
  ['math'],
  ['gltf'],
  ['anim', 'builtin'],
  ['skin'],
  ['gpu'],
  ['crowd'],
  ['bake'],
  ['element'],
  ['index.ts'],
  ['cli', 'demo'],
];

/** The longest a source file may be, in lines. */
export const MAX_LINES = 700;

/** The package's own name: an import of it is an import of `src/index.ts`. */
export const PACKAGE_NAME = 'skinned-mesh-webgpu';
const PACKAGE_ENTRY = 'src/index.ts';

/** One import of one file, with the file it resolves to (a path like `src/anim/pose.ts`). */
export interface Import {
  readonly from: string;
  readonly specifier: string;
  readonly line: number;
  readonly to: string;
}

export type Rule = 'layer' | 'unplaced' | 'file-cycle' | 'folder-cycle' | 'length' | 'wgsl-struct';

export interface Finding {
  readonly rule: Rule;
  readonly message: string;
}

/** `src/a/b.ts` → `a`: the layer a file belongs to is its top-level name under `src/`. */
function topName(path: string): string {
  return path.split('/')[1];
}

function layerIndex(top: string): number {
  return LAYERS.findIndex((row) => row.includes(top));
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

const isNode = (value: unknown): value is { type: string; [key: string]: unknown } =>
  typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';

/** A string literal's value, or undefined for anything else. */
function literal(node: unknown): string | undefined {
  return isNode(node) && node.type === 'Literal' && typeof node.value === 'string' ? node.value : undefined;
}

/** `import.meta.url` */
function isImportMetaUrl(node: unknown): boolean {
  return isNode(node) && node.type === 'MemberExpression' && isNode(node.object) && node.object.type === 'MetaProperty'
    && isNode(node.property) && node.property.name === 'url';
}

/**
 * specifiersOf's answers by path, each with the text it was read from: a file is parsed once
 * per content, however many checks of the same tree ask (parsing is most of a check's time).
 */
const specifiersByPath = new Map<string, { text: string; found: ReadonlyArray<{ specifier: string; offset: number }> }>();

/** The module specifiers a file names, with the offset of each. */
export function specifiersOf(path: string, text: string): ReadonlyArray<{ specifier: string; offset: number }> {
  const known = specifiersByPath.get(path);
  if (known !== undefined && known.text === text) return known.found;
  const found = parseSpecifiers(path, text);
  specifiersByPath.set(path, { text, found });
  return found;
}

function parseSpecifiers(path: string, text: string): ReadonlyArray<{ specifier: string; offset: number }> {
  const found: Array<{ specifier: string; offset: number }> = [];
  const add = (node: unknown): void => {
    const value = literal(node);
    if (value !== undefined) found.push({ specifier: value, offset: (node as { start: number }).start });
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (!isNode(node)) return;
    switch (node.type) {
      case 'ImportDeclaration':
      case 'ExportNamedDeclaration':
      case 'ExportAllDeclaration':
      case 'ImportExpression':
        add(node.source);
        break;
      case 'TSImportType':
        add(node.source ?? (isNode(node.argument) ? node.argument.literal ?? node.argument : undefined));
        break;
      case 'NewExpression': {
        const args = node.arguments as unknown[];
        if (isNode(node.callee) && node.callee.name === 'URL' && args.length === 2 && isImportMetaUrl(args[1])) add(args[0]);
        break;
      }
    }
    for (const key of Object.keys(node)) {
      if (key !== 'type' && key !== 'start' && key !== 'end') visit(node[key]);
    }
  };
  visit(parseAst(text, { lang: 'ts' }, path).body);
  return Object.freeze(found);
}

/**
 * The imports of one file that land in `src/` (packages, shaders and the like are left
 * out). A relative specifier resolves against the file's folder; `?raw`-style queries are
 * dropped.
 */
export function importsOf(path: string, text: string): Import[] {
  const out: Import[] = [];
  for (const { specifier, offset } of specifiersOf(path, text)) {
    let to: string;
    if (specifier === PACKAGE_NAME) to = PACKAGE_ENTRY;
    else if (specifier.startsWith('./') || specifier.startsWith('../')) to = posix.join(posix.dirname(path), specifier.replace(/\?.*$/, ''));
    else continue;
    if (!to.startsWith('src/')) continue;
    out.push({ from: path, specifier, line: lineAt(text, offset), to });
  }
  return out;
}

const describeImport = (edge: Import): string => `${edge.from}:${edge.line} imports '${edge.specifier}'`;

/**
 * Strongly connected components of a directed graph with more than one node (Tarjan's
 * algorithm, iterative so a long chain cannot overflow the stack), each in discovery order.
 */
function tangles(nodes: readonly string[], next: (node: string) => readonly string[]): string[][] {
  const index = new Map<string, number>(), low = new Map<string, number>(), onStack = new Set<string>();
  const stack: string[] = [], out: string[][] = [];
  let counter = 0;
  for (const root of nodes) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; children: readonly string[]; i: number }> = [];
    const open = (node: string) => {
      index.set(node, counter); low.set(node, counter); counter++;
      stack.push(node); onStack.add(node);
      work.push({ node, children: next(node), i: 0 });
    };
    open(root);
    while (work.length > 0) {
      const top = work[work.length - 1];
      if (top.i < top.children.length) {
        const child = top.children[top.i++];
        if (!index.has(child)) open(child);
        else if (onStack.has(child)) low.set(top.node, Math.min(low.get(top.node)!, index.get(child)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) === index.get(top.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== top.node);
        if (component.length > 1) out.push(component.reverse());
      }
    }
  }
  return out;
}

/** One shortest cycle through `start` inside `members` (breadth first), as the nodes in order, back to `start`. */
function cycleThrough(start: string, members: ReadonlySet<string>, next: (node: string) => readonly string[]): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head];
    for (const child of next(node)) {
      if (!members.has(child)) continue;
      if (child === start) {
        const path = [start];
        for (let at = node; at !== start; at = cameFrom.get(at)!) path.unshift(at);
        path.unshift(start);
        return path;
      }
      if (!cameFrom.has(child)) {
        cameFrom.set(child, node);
        queue.push(child);
      }
    }
  }
  throw new Error(`no cycle through ${start}`);
}

/** A directed graph whose edges remember the imports that made them. */
class ImportGraph {
  private readonly edges = new Map<string, Map<string, Import>>();

  add(from: string, to: string, edge: Import): void {
    let out = this.edges.get(from);
    if (!out) this.edges.set(from, (out = new Map()));
    if (!out.has(to)) out.set(to, edge);
    if (!this.edges.has(to)) this.edges.set(to, new Map());
  }

  readonly next = (node: string): string[] => [...(this.edges.get(node)?.keys() ?? [])].sort();

  /**
   * One cycle per tangle, each step named by the import that makes it. Only tangles with a
   * node that `counts` are reported, and the cycle goes through that node.
   */
  cycles(counts: (node: string) => boolean = () => true): Array<{ members: string[]; steps: string[] }> {
    const out: Array<{ members: string[]; steps: string[] }> = [];
    for (const component of tangles([...this.edges.keys()].sort(), this.next)) {
      const start = component.find(counts);
      if (start === undefined) continue;
      const path = cycleThrough(start, new Set(component), this.next);
      const steps = path.slice(1).map((to, i) => `${path[i]} → ${to} (${describeImport(this.edges.get(path[i])!.get(to)!)})`);
      out.push({ members: [...component].sort(), steps });
    }
    return out;
  }
}

/**
 * The two nodes an import connects in the folder graph: below the deepest folder holding
 * both files, the entry (sub-folder, or the file itself) that holds each. So a folder counts
 * with everything under it, and `gltf/load.ts` using `gltf/extensions/` while the extensions
 * use `gltf/json.ts` is no cycle, but `gltf/extensions/` using a `gltf/` file that uses
 * `gltf/extensions/` is.
 */
function folderEdge(from: string, to: string): { from: string; to: string } {
  const a = from.split('/'), b = to.split('/');
  let common = 0;
  while (common < a.length - 1 && common < b.length - 1 && a[common] === b[common]) common++;
  const entry = (parts: string[]) => parts.slice(0, common + 1).join('/') + (parts.length > common + 1 ? '/' : '');
  return { from: entry(a), to: entry(b) };
}

const isFolder = (node: string) => node.endsWith('/');

/**
 * Checks a source tree given as path → text (paths relative to the repository root, `/`
 * separated). TypeScript files under `src/` are parsed for imports; every file is measured.
 */
export function checkArchitecture(sources: ReadonlyMap<string, string>, maxLines = MAX_LINES): Finding[] {
  const findings: Finding[] = [];
  const paths = [...sources.keys()].sort();

  for (const path of paths) {
    const text = sources.get(path)!;
    const lines = text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > maxLines) findings.push({ rule: 'length', message: `${path} has ${lines} lines, over the limit of ${maxLines}` });
  }

  // A WGSL struct is declared in one shader file; pipelines that need it include that file.
  const structHomes = new Map<string, string>();
  for (const path of paths.filter((p) => p.startsWith('shaders/') && p.endsWith('.wgsl'))) {
    for (const match of sources.get(path)!.matchAll(/^\s*struct\s+(\w+)/gm)) {
      const home = structHomes.get(match[1]);
      if (home === undefined) structHomes.set(match[1], path);
      else if (home !== path) findings.push({ rule: 'wgsl-struct', message: `struct ${match[1]} is declared in ${home} and again in ${path}` });
    }
  }

  const code = paths.filter((path) => path.startsWith('src/') && path.endsWith('.ts'));
  const unplaced = new Set<string>();
  for (const path of code) {
    const top = topName(path);
    if (layerIndex(top) < 0 && !unplaced.has(top)) {
      unplaced.add(top);
      findings.push({ rule: 'unplaced', message: `src/${top} is in no layer: give it a place in LAYERS (test/support/architecture.ts)` });
    }
  }

  const files = new ImportGraph();
  const folders = new ImportGraph();
  for (const path of code) {
    for (const edge of importsOf(path, sources.get(path)!)) {
      const fromTop = topName(edge.from), toTop = topName(edge.to);
      const fromLayer = layerIndex(fromTop), toLayer = layerIndex(toTop);
      if (fromTop !== toTop && fromLayer >= 0 && toLayer >= 0 && toLayer >= fromLayer) {
        const why = toLayer === fromLayer
          ? `${fromTop} and ${toTop} are sibling layers, neither may import the other`
          : `${fromTop} may not import ${toTop}, a higher layer`;
        findings.push({ rule: 'layer', message: `${describeImport(edge)} (${edge.to}): ${why}` });
      }
      files.add(edge.from, edge.to, edge);
      // Edges between two files of one folder stay in this graph too: a folder's tangle may run through them.
      const folder = folderEdge(edge.from, edge.to);
      folders.add(folder.from, folder.to, edge);
    }
  }

  const tangled = (members: string[]) => (members.length > 2 ? ` [tangled: ${members.join(', ')}]` : '');
  for (const { members, steps } of files.cycles()) {
    findings.push({ rule: 'file-cycle', message: `file cycle: ${steps.join(', ')}${tangled(members)}` });
  }
  // Only tangles with a folder in them: a cycle between files alone is reported above.
  for (const { members, steps } of folders.cycles(isFolder)) {
    findings.push({ rule: 'folder-cycle', message: `folder cycle: ${steps.join(', ')}${tangled(members)}` });
  }
  return findings;
}

/** The files of `sources` that `entry` loads, itself included, following every import (importsOf). */
export function reachableFrom(sources: ReadonlyMap<string, string>, entry: string): string[] {
  const seen = new Set<string>([entry]);
  const queue = [entry];
  for (let head = 0; head < queue.length; head++) {
    const text = sources.get(queue[head]);
    if (text === undefined) throw new Error(`${queue[head]} is not in the tree`);
    for (const { to } of importsOf(queue[head], text)) {
      if (!seen.has(to)) {
        seen.add(to);
        queue.push(to);
      }
    }
  }
  return [...seen].sort();
}

/** Every file under `src/` and `shaders/` of a checkout, as checkArchitecture takes them. */
export function readSourceTree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) visit(path);
      else out.set(path, readFileSync(join(root, path), 'utf8'));
    }
  };
  visit('src');
  visit('shaders');
  return out;
}
