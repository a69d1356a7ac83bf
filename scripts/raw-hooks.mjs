import { readFile } from 'node:fs/promises';

// `?raw` (the file as a string) and `?inline` (the file as a base64 data: URL), as Vite
// gives them; the path before the query resolves as any import does (relative or a package's).
const QUERY = /\?(raw|inline)$/;

export async function resolve(specifier, context, next) {
  const query = QUERY.exec(specifier);
  if (query) {
    const { url } = await next(specifier.slice(0, -query[0].length), context);
    return { url: `${url}${query[0]}`, format: 'module', shortCircuit: true };
  }
  return next(specifier, context);
}

const MIME = { wasm: 'application/wasm' };

export async function load(url, context, next) {
  const query = QUERY.exec(url);
  if (query) {
    const path = new URL(url.slice(0, -query[0].length));
    if (query[1] === 'raw') {
      const text = await readFile(path, 'utf8');
      return { format: 'module', source: `export default ${JSON.stringify(text)};`, shortCircuit: true };
    }
    const extension = path.pathname.slice(path.pathname.lastIndexOf('.') + 1);
    const data = `data:${MIME[extension] ?? 'application/octet-stream'};base64,${(await readFile(path)).toString('base64')}`;
    return { format: 'module', source: `export default ${JSON.stringify(data)};`, shortCircuit: true };
  }
  return next(url, context);
}
