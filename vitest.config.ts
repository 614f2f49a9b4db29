import { defineConfig } from 'vitest/config';
import SlowestFirst from './test/slow-first-sequencer.js';

export default defineConfig({
  resolve: {
    // Pothos loads graphql's CommonJS build; vite would give our own imports the .mjs build, and
    // graphql refuses to mix its two copies. One copy for everyone.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // The suite's bundle (.test-dist/, built by the global setup) is loaded by Node as it is,
    // exactly as npm start runs it: never transformed by vite.
    server: { deps: { external: [/\/\.test-dist\//] } },
    // A `.only` left in a file would run that test alone: under CI it fails the run instead.
    allowOnly: !process.env.CI,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file starts its own server on an ephemeral port. Three workers on the 2-core machines:
    // most files spend their time waiting on sockets, spawned processes and timers, so a third
    // worker fills that idle time (92 -> 79 s here); the suite stays green beside `npm run load`.
    maxWorkers: 3,
    // A worker runs file after file in one process instead of a fresh process (and a fresh import
    // of src/) per file: that import was a quarter of the suite's CPU. Safe here because no test
    // mocks modules, stubs globals or changes the environment; each file starts its own servers.
    isolate: false,
    sequence: { sequencer: SlowestFirst },
    // The totals reporter records failed files, hooks and unhandled errors beside the tests, for
    // the closing line CI prints (scripts/test-totals.mjs).
    reporters: ['default', './test/reporters/totals.ts'],
  },
});
