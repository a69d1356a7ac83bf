/**
 * The bake command's script. `npm run bake` runs it from the sources (through tsx); `npm run
 * build` bundles it into dist/cli/skinned-mesh-bake.js, the package's `skinned-mesh-bake`
 * command, which plain Node runs with no TypeScript loader (the WGSL is inlined, the decoders
 * stay the package's dependencies). One script for both, so both have the same flags, output and
 * exit codes; bake.ts only exports, so tests and the bundle can import it without running it.
 */
import { main } from './bake.ts';

main();
