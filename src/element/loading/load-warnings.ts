/**
 * What a load repaired or ignored reaches the page: the loader's warnings (each naming its
 * glTF JSON path) are logged once per load as one console.warn, and travel in the `load`
 * event's detail (events.ts ViewerLoadDetail.warnings). Without this a user cannot see why a
 * file looks different from another viewer's rendering of it.
 */
import type { GltfWarning } from '../../gltf/errors.ts';

/** Warnings listed in the console message; the rest are counted (the event carries them all). */
export const LOGGED_WARNINGS_MAX = 50;

/** The console text for a load's warnings: the file, then one `path: message` line per warning. */
export function loadWarningsText(fileName: string, warnings: readonly GltfWarning[]): string {
  const shown = warnings.slice(0, LOGGED_WARNINGS_MAX).map((w) => `  ${w.path}: ${w.message}`);
  const more = warnings.length - shown.length;
  if (more > 0) shown.push(`  … and ${more} more (the load event's detail.warnings lists them all)`);
  return `${fileName} loaded with ${warnings.length} warning${warnings.length === 1 ? '' : 's'}:\n${shown.join('\n')}`;
}

/** Logs a load's warnings with one console.warn (none when there are none); `prefix` names the element. */
export function logLoadWarnings(prefix: string, fileName: string, warnings: readonly GltfWarning[]): void {
  if (warnings.length === 0) return;
  console.warn(`${prefix} ${loadWarningsText(fileName, warnings)}`);
}
