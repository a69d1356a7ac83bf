/**
 * The documentation a user reads — README.md (the front page) and the guides in docs/ — and
 * what the documentation tests need to read it: its files, the links it makes and the anchors
 * its headings give, as GitHub renders them.
 */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

/** README.md and every guide in docs/, as paths relative to the repository root. */
export function docFiles(): string[] {
  const guides = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort();
  return ['README.md', ...guides.map((f) => `docs/${f}`)];
}

/** A Markdown file's text with its fenced code blocks blanked (their lines kept, so line numbers stay right). */
export function proseOf(markdown: string): string {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*```/.test(line)) { fenced = !fenced; return ''; }
    return fenced ? '' : line;
  }).join('\n');
}

/** A link a Markdown file makes: `[text](target)` or `![alt](target)`, with its line number. */
export interface DocLink { target: string; line: number }

/** Every inline link and image outside code (inline code spans included), in order. */
export function linksOf(markdown: string): DocLink[] {
  const links: DocLink[] = [];
  proseOf(markdown).split('\n').forEach((text, i) => {
    const line = text.replace(/`[^`]*`/g, '');
    for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) links.push({ target: m[1], line: i + 1 });
  });
  return links;
}

/**
 * The anchors a Markdown file's headings give, by GitHub's rule: lower case, every character
 * that is not a letter, digit, space, hyphen or underscore dropped, spaces turned into
 * hyphens, and a repeated anchor suffixed `-1`, `-2`…
 */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseOf(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1].replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** A fenced code block of a Markdown file: its language tag, its text, and the line its first code line is on. */
export interface CodeBlock { lang: string; code: string; line: number }

/** Every fenced code block, in order. */
export function codeBlocksOf(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let open: CodeBlock | undefined;
  const lines: string[] = [];
  markdown.split('\n').forEach((text, i) => {
    const fence = /^\s*```\s*(\S*)/.exec(text);
    if (!fence) { if (open) lines.push(text); return; }
    if (open) { blocks.push({ ...open, code: lines.join('\n') }); open = undefined; return; }
    lines.length = 0;
    open = { lang: fence[1], code: '', line: i + 2 };
  });
  return blocks;
}

/** The tags whose markup attributes the package types (its `SkinnedMeshViewerAttributes` / `ExtraModelAttributes`). */
const TYPED_TAGS: Record<string, string> = { 'skinned-mesh-viewer': 'SkinnedMeshViewerAttributes', 'extra-model': 'ExtraModelAttributes' };

/**
 * A Markdown file's code examples as TypeScript a consumer's compiler checks against the
 * package `pkg`'s declarations: `modules` maps a file name to its source; `lineOf` maps a
 * file name and a line of it (1-based) back to the Markdown line it came from.
 * - The ts/tsx/js blocks, in order, are one module (each example builds on the one before).
 * - An html block gives a module of its own: each `<skinned-mesh-viewer>` / `<extra-model>` tag's
 *   attributes as an object literal of the package's attribute type (a misspelled or unknown
 *   attribute is an excess property, hyphenated or not; a boolean attribute is `true`), and
 *   each inline `<script type="module">`'s code after the element's types.
 * `scriptSources` lists each `<script src>` of the html blocks, for the caller to find in the package.
 */
export function typeCheckableExamples(markdown: string, pkg: string, name: string): {
  modules: Record<string, string>; lineOf: (file: string, line: number) => number | undefined; scriptSources: string[];
} {
  const modules: Record<string, string[]> = {};
  const origins: Record<string, (number | undefined)[]> = {};
  const scriptSources: string[] = [];
  const add = (file: string, text: string, from: number | undefined): void => {
    (modules[file] ??= []).push(...text.split('\n'));
    (origins[file] ??= []).push(...text.split('\n').map((_, k) => (from === undefined ? undefined : from + k)));
  };
  codeBlocksOf(markdown).forEach((block, b) => {
    if (/^(ts|tsx|js|typescript|javascript)$/.test(block.lang)) {
      add(`${name}-code.${block.lang === 'tsx' ? 'tsx' : 'ts'}`, block.code, block.line);
      return;
    }
    if (block.lang !== 'html') return;
    const file = `${name}-html-${b}.ts`;
    add(file, `import type { ExtraModelAttributes, SkinnedMeshViewerAttributes } from '${pkg}/element';`, undefined);
    const lineAt = (offset: number): number => block.line + block.code.slice(0, offset).split('\n').length - 1;
    for (const tag of block.code.matchAll(/<([a-z][\w-]*)\b([^>]*)>/g)) {
      const type = TYPED_TAGS[tag[1]];
      const src = /\bsrc="([^"]*)"/.exec(tag[2]);
      if (tag[1] === 'script' && src) scriptSources.push(src[1]);
      if (!type) continue;
      const attributes = [...tag[2].matchAll(/([^\s=/]+)(?:="([^"]*)")?/g)].map((a) => `${JSON.stringify(a[1])}: ${a[2] === undefined ? 'true' : JSON.stringify(a[2])}`);
      add(file, `export const attributes${tag.index}: ${type} = { ${attributes.join(', ')} };`, lineAt(tag.index));
    }
    for (const script of block.code.matchAll(/<script type="module">\n?([\s\S]*?)<\/script>/g)) {
      add(file, script[1], lineAt(script.index + script[0].indexOf('>') + 2));
    }
  });
  // A file whose examples only use the DOM still has to be a module for top-level await.
  const sources = Object.fromEntries(Object.entries(modules).map(([file, text]) => [file, `${text.join('\n')}\nexport {};\n`]));
  return { modules: sources, lineOf: (file, line) => origins[file]?.[line - 1], scriptSources };
}
