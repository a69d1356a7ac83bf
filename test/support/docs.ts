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
