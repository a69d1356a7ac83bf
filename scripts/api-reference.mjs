// The API reference: TypeDoc over the TSDoc comments of the package's entry points (the
// subpaths in package.json `exports` that have code: `.`, `/element`, `/crowd`, `/retarget`,
// `/environment`, `/bake`). `npm run build` writes it into the site (dist/site/api); the
// reference fails on a public export without a comment, a {@link} that resolves to nothing,
// or a public signature that names a type the package does not export.
//
//   node scripts/api-reference.mjs [--out DIR] [--entry FILE ...]
//
// Without --out it only checks (no HTML), printing one line per problem and exiting 1 if any;
// --entry adds a file to the entry points (the test adds one that breaks each rule). With --out
// the reference is written even when there are problems (the build fails on them all the same),
// and never with the --entry files' pages: the site build's test checks the reference and renders
// it in one TypeDoc run (test/examples/site-build.test.ts).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { register } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';


const root = resolve(fileURLToPath(import.meta.url), '../..');

/** What every public export must carry: a comment on each top-level declaration and each method. Properties and accessors are not required (a setter repeats its getter's comment). */
const REQUIRED_TO_BE_DOCUMENTED = ['Enum', 'Variable', 'Function', 'Class', 'Interface', 'TypeAlias', 'Method'];

/**
 * Names a public signature mentions although the package does not export them, each with why
 * (TypeDoc shows the name without a link).
 */
const INTENTIONALLY_NOT_EXPORTED = [
  // The bone-name table behind `HumanoidBone`: the type lists the names; the table itself is the loader's.
  'src/gltf/humanoid.ts:HUMANOID_BONES',
];

/** bench/README.md's document name, as its path from docs/ gives it; the site calls it 'benchmarks' (documents/benchmarks.html). */
const BENCH_README = '../bench/README';

/** The source file of each package subpath with code, read from package.json `exports` (test/index.test.ts ties it to LIBRARY_ENTRIES). */
export function entrySources() {
  const { exports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return Object.entries(exports)
    .filter(([subpath, target]) => typeof target === 'object' && target.import && !subpath.endsWith('/min') && subpath !== './min')
    .map(([, target]) => target.types.replace(/^\.\/dist\/types\//, 'src/').replace(/\.d\.ts$/, '.ts'));
}

/**
 * Converts and validates the reference (and renders it into `out` when given). Returns the
 * problems found, one line each; empty means the reference is complete.
 */
export async function apiReference({ out, extraEntries = [] } = {}) {
  // Loaded here, not on import, so that reading `entrySources` costs nothing.
  register('./typedoc-typescript.mjs', import.meta.url);
  const { Application, Converter, JSX, Logger, LogLevel, PageEvent } = await import('typedoc');
  /** TypeDoc's logger, keeping each warning and error as a line. */
  class CollectingLogger extends Logger {
    problems = [];
    log(message, level) {
      if (level >= LogLevel.Warn) this.problems.push(message);
    }
  }
  const entryPoints = [...entrySources(), ...extraEntries].map((file) => resolve(root, file));
  // TypeDoc reads the program from a tsconfig; this one is the library build's, widened to the entry points.
  const dir = mkdtempSync(join(tmpdir(), 'api-reference-'));
  const tsconfig = join(dir, 'tsconfig.json');
  writeFileSync(tsconfig, JSON.stringify({
    extends: join(root, 'tsconfig.build.json'),
    compilerOptions: { rootDir: root, noEmit: true, declaration: false, emitDeclarationOnly: false },
    files: entryPoints,
  }));
  try {
    const app = await Application.bootstrap({
      entryPoints, tsconfig, name: 'skinned-mesh-webgpu',
      // The front page as the index and the guides beside the reference: one site, links checked.
      // bench/README.md too: the guides link it for the benchmarks' history, so it is a page, not a raw copy in media/.
      readme: join(root, 'README.md'), projectDocuments: [join(root, 'docs', '*.md'), join(root, 'bench', 'README.md')],
      // Documents are named by their path from docs/ (animation, crowds…); bench/README.md is renamed below.
      displayBasePath: join(root, 'docs'),
      // The type check is `npm run typecheck`'s (TypeScript 7); TypeDoc only reads the declarations.
      skipErrorChecking: true,
      excludePrivate: true, excludeProtected: true, excludeInternal: true,
      validation: { notExported: true, invalidLink: true, invalidPath: true, rewrittenLink: true, notDocumented: true },
      requiredToBeDocumented: REQUIRED_TO_BE_DOCUMENTED,
      intentionallyNotExported: INTENTIONALLY_NOT_EXPORTED,
      treatWarningsAsErrors: true,
      sourceLinkTemplate: undefined, disableSources: true,
      logLevel: 'Warn',
    });
    const logger = new CollectingLogger();
    app.logger = logger;
    app.converter.on(Converter.EVENT_CREATE_DOCUMENT, (_context, document) => {
      if (document.name === BENCH_README) document.name = 'benchmarks';
    });
    const project = await app.convert();
    if (!project) return logger.problems.length ? logger.problems : ['api-reference: TypeDoc converted nothing'];
    app.validate(project);
    if (out) {
      // The extra entries are checked, not published. TypeDoc names a module by its path from
      // displayBasePath (docs/), whatever the other entries are, so the library's pages keep their names.
      for (const file of extraEntries) {
        const name = relative(join(root, 'docs'), resolve(root, file)).replaceAll('\\', '/').replace(/(\/index)?\.tsx?$/, '');
        const module = project.children?.find((child) => child.name === name);
        if (!module) throw new Error(`api-reference: no module ${name} for --entry ${file}`);
        project.removeReflection(module);
        // The project's groups and categories were made at conversion; they list the module too.
        for (const group of [...(project.groups ?? []), ...(project.categories ?? [])]) group.children = group.children.filter((child) => child !== module);
      }
      // TypeDoc copies a linked file it does not render (examples/*.html) into media/; the site
      // has those pages built at examples/, beside api/, so the guides' links open them there.
      app.renderer.on(PageEvent.END, (page) => {
        page.contents = page.contents?.replace(/href="((?:\.\.\/)*)media\/([\w-]+\.html)(?=[#"])/g, 'href="$1../examples/$2');
      });
      // No icon, as the demo and the examples ask (`<link rel="icon" href="data:,">`): without
      // one, the browser asks for /favicon.ico, which the site has not, and logs a console error.
      app.renderer.hooks.on('head.end', () => JSX.createElement('link', { rel: 'icon', href: 'data:,' }));
      await app.generateDocs(project, out);
    }
    return logger.problems;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const valueOf = (flag) => args.flatMap((a, i) => (a === flag ? [args[i + 1]] : []));
  const problems = await apiReference({ out: valueOf('--out')[0], extraEntries: valueOf('--entry') });
  for (const problem of problems) console.log(problem);
  if (problems.length) {
    console.error(`api-reference: ${problems.length} problem(s): every public export needs a TSDoc comment, every {@link} a target, every type a public signature names an export`);
    process.exit(1);
  }
}
