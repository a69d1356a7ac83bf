import { readFile, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { NotGltfError } from '../gltf/errors.ts';
import { loadGltf, type LoadOptions } from '../gltf/load.ts';
import type { Model } from '../gltf/model.ts';

/**
 * Loads a .glb/.gltf from disk. External buffers and images resolve against the
 * file's folder; a URI that leaves that folder (`../x`, `..%2Fx`, `..\x`, an absolute
 * path, a drive letter, another scheme, a symlink pointing out) is refused, so a model
 * cannot make the tool read arbitrary files.
 */
export function loadGltfFile(path: string): Promise<Model> {
  return loadBesideFile(path, loadGltf);
}

/**
 * Reads the glTF file at `path` and hands its bytes to `load` (loadGltf, loadAnimationLibrary)
 * with the file's name and its resources read beside it under the rules above. A file that
 * cannot be read, or is not glTF at all, throws one line naming it.
 */
export async function loadBesideFile<T>(path: string, load: (bytes: Uint8Array, options: LoadOptions) => Promise<T>): Promise<T> {
  const { bytes, options } = await readBesideFile(path);
  return namingFile(path, load(bytes, options));
}

/**
 * What `loading` (a load of the file at `path`) gives; a NotGltfError now names `path` first. Other
 * load errors are left as they are: they name the JSON path inside the file.
 */
export async function namingFile<T>(path: string, loading: Promise<T>): Promise<T> {
  try {
    return await loading;
  } catch (e) {
    throw e instanceof NotGltfError ? e.from(path) : e;
  }
}

/** The bytes of the glTF file at `path`, and load options that read its resources beside it (the rules above). */
export async function readBesideFile(path: string): Promise<{ bytes: Uint8Array; options: LoadOptions }> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `${path}: no such file` : `${path}: cannot read (${(e as Error).message})`);
  }
  const folder = resolve(dirname(path));
  return { bytes, options: { name: basename(path), resolveUri: (uri) => readBeside(folder, uri) } };
}

/** Reads `uri` (percent-decoded) as a file inside `folder`, or throws why it may not. */
export async function readBeside(folder: string, uri: string): Promise<Uint8Array> {
  // URIs separate with '/', but a Windows-made file may use '\': both count, on every OS.
  const path = uri.replace(/\\/g, '/');
  if (path.includes('\0')) throw new Error('it contains a NUL character');
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('/') || isAbsolute(path)) {
    throw new Error('it is not a relative path; only files beside the model are read');
  }
  const target = resolve(folder, path);
  if (!inside(folder, target)) throw new Error("it points outside the model's folder");
  let real: string;
  try {
    real = await realpath(target);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? 'no such file beside the model' : (e as Error).message);
  }
  // A symlink inside the folder may still lead out of it.
  if (!inside(await realpath(folder), real)) throw new Error("it is a link to a file outside the model's folder");
  return readFile(real);
}

function inside(folder: string, target: string): boolean {
  const rel = relative(folder, target);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
