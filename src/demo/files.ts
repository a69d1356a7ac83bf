import { addClips, GltfError, loadGltf, retargetClips, type Model } from 'skinned-mesh-webgpu';

/** What a file picker or a drop hands over: a name (maybe with folders) and the bytes. */
export interface DroppedFile {
  /** `webkitRelativePath` when a folder was dropped, else the plain name. */
  readonly path: string;
  bytes(): Promise<Uint8Array>;
}

export function droppedFile(file: File): DroppedFile {
  const relative = (file as File & { webkitRelativePath?: string }).webkitRelativePath;
  return { path: relative || file.name, bytes: async () => new Uint8Array(await file.arrayBuffer()) };
}

/** Normalises `a/./b/../c` and backslashes so URIs and dropped paths compare equal. */
export function normalizePath(path: string): string {
  const out: string[] = [];
  for (const part of path.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return out.join('/');
}

/**
 * Loads the one .glb/.gltf/.vrm/.vrma among `files`, resolving a .gltf's external buffers and
 * images against the other files (by path relative to the .gltf, falling back to the
 * bare file name, since a plain multi-file drop carries no folders).
 */
export async function modelFromFiles(files: readonly DroppedFile[]): Promise<Model> {
  const models = files.filter((f) => /\.(glb|gltf|vrm|vrma)$/i.test(f.path));
  if (models.length === 0) throw new Error(`no .glb, .gltf, .vrm or .vrma among the ${files.length} file(s) given`);
  if (models.length > 1) throw new Error(`several models given (${models.map((m) => m.path).join(', ')}); drop one .glb, or one .gltf with its files`);
  const main = models[0];
  const folder = normalizePath(main.path).split('/').slice(0, -1).join('/');
  const byPath = new Map(files.map((f) => [normalizePath(f.path), f]));
  const byName = new Map(files.map((f) => [normalizePath(f.path).split('/').pop()!, f]));
  const name = normalizePath(main.path).split('/').pop()!;
  return loadGltf(await main.bytes(), {
    name,
    resolveUri: async (uri) => {
      const wanted = normalizePath(folder ? `${folder}/${uri}` : uri);
      const file = byPath.get(wanted) ?? byName.get(wanted.split('/').pop()!);
      if (!file) throw new GltfError('', `"${uri}" was not among the dropped files; drop it together with ${name}`);
      return file.bytes();
    },
  });
}

/**
 * What an opened file does with `shown` (the character on screen): a clip file (animations and no
 * mesh, as Blender writes a Mixamo clip without its character) adds its clips to `shown`,
 * retargeted (the clip picker lists them); anything else replaces it. `note` says what happened.
 */
export function withOpenedModel(shown: Model | undefined, opened: Model): { model: Model; note?: string } {
  if (!shown || opened.meshNodes.length > 0 || opened.animations.length === 0) return { model: opened };
  const result = retargetClips(opened.animations, opened, shown);
  const unmapped = result.unmapped.length > 0 ? `; ${result.unmapped.length} joint(s) keep their rest pose: ${result.unmapped.slice(0, 6).join(', ')}${result.unmapped.length > 6 ? ', …' : ''}` : '';
  return {
    model: addClips(shown, result.clips, opened.name),
    note: `Added ${result.clips.length} clip(s) from ${opened.name} to ${shown.name}${unmapped}.`,
  };
}
