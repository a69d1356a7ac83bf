// Lets Node load `import text from './file.wgsl?raw'` (and `?inline` data URLs) the way Vite does, so the same
// shader imports work in the browser build, in vitest and in the Node CLI.
import { register } from 'node:module';

register('./raw-hooks.mjs', import.meta.url);
