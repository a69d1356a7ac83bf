import { defineConfig } from 'vitest/config';

// One config for the demo site (vite dev/build) and the test runner (vitest).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
