// The WGSL the built library carries, without what only a reader needs: comments, indentation,
// trailing spaces and blank lines. shaders/*.wgsl stay as they are (the dev server, the tests and
// the bake CLI read them whole); only the library builds (vite.config.ts, `lib` and `lib-min`)
// import them through `compactWgslImports`. WGSL has no string literals and nothing that reads a
// comment (no template markers, no directives in comments), so a comment is never code.
import { readFileSync } from 'node:fs';

/**
 * `source` with its comments removed (`//` to the end of the line; `/* … *\/` blocks, which nest
 * in WGSL), each line trimmed and empty lines dropped. A comment between two tokens becomes a
 * space, so it never joins them. Throws on an unterminated block comment, which the WGSL compiler
 * would refuse too.
 */
export function compactWgsl(source) {
  let code = '';
  let i = 0;
  while (i < source.length) {
    if (source.startsWith('//', i)) {
      // Up to, not including, the line break (\n, \r, or a Unicode line separator ends a line comment).
      while (i < source.length && !/[\n\r\u2028\u2029\u000b\u000c\u0085]/.test(source[i])) i++;
      code += ' ';
    } else if (source.startsWith('/*', i)) {
      const start = i;
      let depth = 0;
      do {
        if (source.startsWith('/*', i)) { depth++; i += 2; } else if (source.startsWith('*/', i)) { depth--; i += 2; } else if (i < source.length) i++;
        else throw new Error(`compactWgsl: the block comment at character ${start} is not closed`);
      } while (depth > 0);
      code += ' ';
    } else {
      code += source[i++];
    }
  }
  return code.split(/\r\n|[\n\r\u2028\u2029\u000b\u000c\u0085]/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .join('\n') + '\n';
}

/**
 * A Vite plugin: `import text from '…/x.wgsl?raw'` gives compactWgsl of the file instead of its
 * text. For the library builds only.
 */
export function compactWgslImports() {
  const WGSL_RAW = /\.wgsl\?raw$/;
  return {
    name: 'compact-wgsl-imports',
    enforce: 'pre',
    load(id) {
      if (!WGSL_RAW.test(id)) return undefined;
      const path = id.slice(0, -'?raw'.length);
      this.addWatchFile(path);
      return `export default ${JSON.stringify(compactWgsl(readFileSync(path, 'utf8')))};`;
    },
  };
}
