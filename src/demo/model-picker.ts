import type { Model, SkinnedMeshViewerElement } from 'skinned-mesh-webgpu';

/** What the picker's "loaded" entry shows again when chosen: a URL (`?src`) or a model read from files. */
type Loaded = { readonly kind: 'url'; readonly src: string } | { readonly kind: 'file'; readonly model: Model };

/** `https://host/dir/Fox%20A.glb?x` → `Fox A.glb`. */
export function displayName(src: string): string {
  const path = src.split(/[?#]/)[0];
  const last = path.slice(path.lastIndexOf('/') + 1) || src;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/**
 * What a `load` event's `src` says was loaded: a built-in (`builtin:NAME`), a model shown
 * with `showModel` (`model:NAME`: opened files, or the lab's edit of a built-in, which keeps
 * its name), or a URL.
 */
export function classifyLoad(src: string): { kind: 'builtin'; value: string } | { kind: 'edit' } | { kind: 'file'; name: string } | { kind: 'url'; name: string } {
  if (src.startsWith('builtin:')) return { kind: 'builtin', value: src };
  if (src.startsWith('model:builtin:')) return { kind: 'edit' };
  if (src.startsWith('model:')) return { kind: 'file', name: src.slice('model:'.length) };
  return { kind: 'url', name: displayName(src) };
}

/**
 * The model picker: the built-ins, plus one entry naming what `?src`, a dropped file or the
 * file input loaded (so the picker always says what is shown), which shows it again when
 * chosen after a built-in.
 */
export function setupModelPicker(viewer: SkinnedMeshViewerElement, select: HTMLSelectElement, loadedOption: HTMLOptionElement, clearError: () => void): void {
  let loaded: Loaded | undefined;

  select.addEventListener('change', () => {
    clearError();
    const value = select.value;
    if (value !== 'loaded') {
      viewer.removeAttribute('src');
      viewer.builtin = value.slice('builtin:'.length);
    } else if (loaded?.kind === 'url') {
      viewer.src = loaded.src;
    } else if (loaded?.kind === 'file') {
      viewer.showModel(loaded.model);
    }
  });

  viewer.addEventListener('load', (e) => {
    const what = classifyLoad(e.detail.src);
    switch (what.kind) {
      case 'builtin':
        select.value = what.value;
        return;
      case 'edit':
        return;
      case 'file':
        loaded = { kind: 'file', model: viewer.model! };
        loadedOption.textContent = `File: ${what.name}`;
        break;
      case 'url':
        loaded = { kind: 'url', src: e.detail.src };
        loadedOption.textContent = `URL: ${what.name}`;
        break;
    }
    loadedOption.hidden = false;
    select.value = 'loaded';
  });
}
