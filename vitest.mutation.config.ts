import { defineConfig } from 'vitest/config';
import CheapestFirst from './test/cheapest-first-sequencer.js';

// Under Stryker, each mutant's run keeps the worker of the run before (test/patches: vitest 4 stops
// its workers when a run's queue empties, and a fresh one cost 1–2 s of start-up and imports, more
// than most mutants' tests); test/mutation-setup.ts then evaluates src/ and the tests' modules
// again, so each mutant still starts from modules no other mutant touched.
if (process.env.STRYKER_MUTATOR_WORKER !== undefined) process.env.MUTATION_KEEP_VITEST_WORKERS = '1';

/**
 * The tests Stryker runs against each mutant of the pure code (npm run mutation): the unit tests,
 * which call the domain, validation and auth modules directly. The server tests cover the same
 * code through HTTP but take a minute a run; here a mutant costs milliseconds.
 */
export default defineConfig({
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/unit/**/*.test.ts'],
    // It reads the suite's bundle (.test-dist/, built by the suite's own setup), not the mutated source;
    // the equivalence rules' test reads the source as written, which Stryker's sandbox rewrites.
    exclude: ['test/unit/bundle.test.ts', 'test/unit/mutation-equivalents.test.ts'],
    // The suite's limit (vitest.config.ts): the property tests take seconds on a busy machine. Under
    // Stryker (its workers have STRYKER_MUTATOR_WORKER) a test that a mutant leaves waiting fails
    // at 8 s instead, killing the mutant: at 30 s Stryker's own timer, set a little later, fired
    // first and restarted the worker, the slowest mutants of a run (docs/testing.md). The slowest
    // unit test takes 2 s; hooks keep 10 s, above the 9 s in which a shared server's start gives up.
    testTimeout: process.env.STRYKER_MUTATOR_WORKER === undefined ? 30_000 : 8_000,
    // Some unit tests read a copy of the run's database (privateDatabase): its setup, not the bundles'.
    globalSetup: ['test/global-setup-unit.ts'],
    // Stryker's dry run (every test once, over instrumented code) keeps the suite's 30 s.
    // MUTATION_TRACE=<file> also records where each mutant's time goes (test/mutation-trace.ts).
    setupFiles: ['test/mutation-setup.ts', ...(process.env.MUTATION_TRACE ? ['test/mutation-trace.ts'] : [])],
    allowOnly: !process.env.CI,
    // Stryker runs the covering tests of each mutant in a fresh worker; not isolated, the files of one
    // run share one import of src/ and its packages instead of one each (a mutant covered by several
    // whole-server files runs about three times faster). Static mutants, which would need fresh
    // imports, are not run (ignoreStatic). .ci/run runs the unit tests so too.
    isolate: false,
    // Under Stryker only: elsewhere (.ci/run) vitest's longest-first order keeps its workers even.
    ...(process.env.STRYKER_MUTATOR_WORKER === undefined ? {} : { sequence: { sequencer: CheapestFirst } }),
  },
});
