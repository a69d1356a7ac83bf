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

/** A repairable problem found while loading (like glTF-Validator's warnings). */
export interface GltfWarning {
  readonly path: string;
  readonly message: string;
}

/** Where the loader reports what it repaired or ignored (ReadContext.warn): the JSON path and what was done. */
export type WarnFn = (path: string, message: string) => void;
