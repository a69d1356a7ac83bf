// Preloaded (`node --require`) into vue-tsc and svelte-check by package-consumer.test.ts: both
// require() `typescript` for its JavaScript compiler API, which TypeScript 7 (this project's
// compiler, native) no longer ships. Each gets TypeScript 6 from the `typedoc-typescript` alias
// (package.json), as TypeDoc does through scripts/typedoc-typescript.mjs. svelte-check refuses
// TypeScript 7 outright; vue-tsc finds no `typescript/lib/tsc` in it.
const Module = require('node:module');

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function resolveTypescript6(request, ...rest) {
  const aliased = request === 'typescript' || request.startsWith('typescript/') ? `typedoc-typescript${request.slice('typescript'.length)}` : request;
  return resolveFilename.call(this, aliased, ...rest);
};
