// A module resolution hook (node:module register) for scripts/api-reference.mjs: TypeDoc imports
// `typescript` for the compiler API, which TypeScript 7 (the native compiler this project builds
// with) no longer has as a JavaScript library. TypeDoc gets TypeScript 6.0's compiler API from
// the `typedoc-typescript` alias (package.json); every other importer keeps `typescript`.
export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'typescript' && context.parentURL?.includes('/node_modules/typedoc/')) {
    return nextResolve('typedoc-typescript', context);
  }
  return nextResolve(specifier, context);
}
