// Types of scripts/wgsl-compact.mjs for the TypeScript that imports it (vite.config.ts, test/scripts/wgsl-compact.test.ts).
import type { Plugin } from 'vite';

/** `source` without comments, indentation, trailing spaces or blank lines. */
export function compactWgsl(source: string): string;

/** A Vite plugin: `…/x.wgsl?raw` imports give compactWgsl of the file (the library builds). */
export function compactWgslImports(): Plugin;
