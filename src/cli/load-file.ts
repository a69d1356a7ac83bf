import { readFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, relative, resolve } from 'node:path';
import { loadGltf } from '../gltf/load.ts';
import type { Model } from '../gltf/model.ts';

/**
 * Loads a .glb/.gltf from disk. External buffers and images resolve against the
 * file's folder; a URI that leaves that folder (`../x`, an absolute path, another
 * scheme) is refused, so a model cannot make the tool read arbitrary files.
 */
export async function loadGltfFile(path: string): Promise<Model> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `${path}: no such file` : `${path}: cannot read (${(e as Error).message})`);
  }
  const folder = resolve(dirname(path));
  return loadGltf(bytes, {
    name: basename(path),
    resolveUri: async (uri) => {
      if (/^[a-z][a-z0-9+.-]*:/i.test(uri) || isAbsolute(uri)) {
        throw new Error('not a relative path; only files beside the model are read');
      }
      const target = resolve(folder, uri);
      const rel = relative(folder, target);
      if (rel.startsWith('..') || isAbsolute(rel)) throw new Error("it points outside the model's folder");
      return readFile(target);
    },
  });
}
