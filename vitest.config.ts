import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Pothos loads graphql's CommonJS build; vite would give our own imports the .mjs build, and
    // graphql refuses to mix its two copies. One copy for everyone.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file starts its own server on an ephemeral port; two workers match the 2-core machines.
    maxWorkers: 2,
  },
});
