/**
 * scripts/wgsl-compact.mjs: the library builds carry shaders/ without comments, indentation or
 * blank lines, and with the same WGSL tokens in the same order.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compactWgsl, compactWgslImports } from '../../scripts/wgsl-compact.mjs';

const SHADERS = fileURLToPath(new URL('../../shaders/', import.meta.url));

/** WGSL's operators of more than one character, longest first (maximal munch, as the WGSL compiler reads them). */
const OPERATORS = ['<<=', '>>=', '&&', '||', '--', '++', '==', '!=', '<=', '>=', '<<', '>>', '->', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^='];
const WORD = /[A-Za-z_][A-Za-z0-9_]*|0[xX][0-9a-fA-F]+[iu]?|(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][+-]?[0-9]+)?[fhiu]?/y;

/**
 * The tokens of a WGSL source, comments (nested blocks too) and blankspace skipped: written here
 * apart from compactWgsl, so that a compaction that joins two tokens into one (`a - -b` into
 * `a--b`), splits one, or drops one shows as a different list.
 */
function tokens(source: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < source.length) {
    if (/\s/.test(source[i])) { i++; continue; }
    if (source.startsWith('//', i)) { while (i < source.length && source[i] !== '\n') i++; continue; }
    if (source.startsWith('/*', i)) {
      let depth = 0;
      do { if (source.startsWith('/*', i)) { depth++; i += 2; } else if (source.startsWith('*/', i)) { depth--; i += 2; } else i++; } while (depth > 0 && i < source.length);
      continue;
    }
    WORD.lastIndex = i;
    const word = WORD.exec(source)?.[0] ?? OPERATORS.find((op) => source.startsWith(op, i)) ?? source[i];
    out.push(word);
    i += word.length;
  }
  return out;
}

function wgslFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.wgsl')).map((f) => join(dir, f));
}

describe('compactWgsl', () => {
  it('drops line and block comments (nested ones too), indentation, trailing spaces and blank lines', () => {
    const source = [
      '// header',
      '',
      'fn f(a: f32) -> f32 {   ',
      '    /* a /* nested */ block */ let b = a; // why',
      '\t\treturn b * 2.0;',
      '}',
      '',
    ].join('\n');
    expect(compactWgsl(source)).toBe('fn f(a: f32) -> f32 {\nlet b = a;\nreturn b * 2.0;\n}\n');
  });

  it('leaves a space where a comment stood between two tokens, so they do not join', () => {
    expect(compactWgsl('let x = a/**/b;\nlet y = c -/* minus */-d;\n')).toBe('let x = a b;\nlet y = c - -d;\n');
    expect(tokens(compactWgsl('let y = c -/* minus */-d;'))).toEqual(['let', 'y', '=', 'c', '-', '-', 'd', ';']);
  });

  it('ends a line comment at any WGSL line break, and keeps CRLF sources\' lines apart', () => {
    expect(compactWgsl('a; // x\r\nb; // y\rc;')).toBe('a;\nb;\nc;\n');
  });

  it('refuses an unclosed block comment, naming where it starts', () => {
    expect(() => compactWgsl('let a = 1;\n/* open /* nested */ still open\n')).toThrow('the block comment at character 11 is not closed');
  });

  it('keeps every token of every file in shaders/, in order, and leaves no comment', () => {
    const files = wgslFiles(SHADERS);
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) {
      const source = readFileSync(file, 'utf8');
      const compact = compactWgsl(source);
      expect(tokens(compact), file).toEqual(tokens(source));
      expect(compact, file).not.toMatch(/\/\/|\/\*|^\s|\s$(?<!\n)|\n\n/m);
      expect(compact.length, file).toBeLessThan(source.length);
    }
  });
});

describe('compactWgslImports (the library builds\' Vite plugin)', () => {
  const load = compactWgslImports().load as (this: { addWatchFile(path: string): void }, id: string) => string | undefined;
  const context = { addWatchFile: () => {} };

  it('gives a .wgsl?raw import the compacted file as its default export', () => {
    const path = join(SHADERS, 'mipmap.wgsl');
    const module = load.call(context, `${path}?raw`)!;
    expect(module).toBe(`export default ${JSON.stringify(compactWgsl(readFileSync(path, 'utf8')))};`);
  });

  it('leaves every other import to Vite', () => {
    const path = join(SHADERS, 'mipmap.wgsl');
    expect(load.call(context, path)).toBeUndefined();
    expect(load.call(context, `${path}?url`)).toBeUndefined();
    expect(load.call(context, join(SHADERS, '../src/index.ts'))).toBeUndefined();
  });
});
