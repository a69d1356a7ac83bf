/**
 * What <skinned-mesh-viewer>'s parts share about the page: the tag name, a base class that
 * exists in Node too, one console warning per distinct mistake, the user's motion
 * preference, and file names for messages.
 */

export const TAG_NAME = 'skinned-mesh-viewer';

// In Node (the library's loader and player are usable there) there is no HTMLElement;
// the class must still be definable so importing the library does not throw.
export const HTMLElementBase: typeof HTMLElement = typeof HTMLElement === 'undefined'
  ? (class {} as unknown as typeof HTMLElement)
  : HTMLElement;

const warned = new Set<string>();

/** Attribute mistakes are reported once per page, not once per frame or per element. */
export function warnOnce(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  console.warn(`<${TAG_NAME}> ${message}`);
}

export function prefersReducedMotion(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
}

/** `https://host/dir/Model%201.glb?x` → `Model 1.glb`, for messages. */
export function displayName(source: string): string {
  const path = source.split(/[?#]/)[0];
  const last = path.slice(path.lastIndexOf('/') + 1) || source;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/**
 * A property a page set before the element was defined (lazy loading) shadows the
 * accessor; move it through the setter.
 */
export function upgradeProperties(element: object, rows: readonly { readonly property: string }[]): void {
  const self = element as Record<string, unknown>;
  for (const { property: name } of rows) {
    if (Object.prototype.hasOwnProperty.call(element, name)) {
      const value = self[name];
      delete self[name];
      self[name] = value;
    }
  }
}
