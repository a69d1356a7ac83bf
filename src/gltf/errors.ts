/**
 * The one error type the loader throws. `path` is the JSON path of the offending
 * value (e.g. `meshes[2].primitives[0].attributes.JOINTS_0`) so a user can find it.
 */
export class GltfError extends Error {
  override readonly name = 'GltfError';
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(path ? `${path}: ${problem}` : problem);
  }
}

/**
 * Bytes that are not a glTF file at all: neither a GLB nor glTF JSON (a text file, a server's HTML
 * error page, an image), or too short to hold a GLB header. The loader knows only the bytes; the
 * caller that read them names where they came from (`from`), so the message says which file or URL.
 */
export class NotGltfError extends GltfError {
  constructor(
    path: string,
    problem: string,
    /** The file or URL the bytes came from, once the caller has said. */
    readonly file?: string,
  ) {
    super(path, problem);
    if (file !== undefined) this.message = `${file}: ${this.message}`;
  }

  /** The same error, naming `file` (a path or URL) first. */
  from(file: string): NotGltfError {
    return new NotGltfError(this.path, this.problem, file);
  }
}

/** A repairable problem found while loading (like glTF-Validator's warnings). */
export interface GltfWarning {
  readonly path: string;
  readonly message: string;
}

/** Where the loader reports what it repaired or ignored (ReadContext.warn): the JSON path and what was done. */
export type WarnFn = (path: string, message: string) => void;
