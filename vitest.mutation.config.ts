import { defineConfig } from 'vitest/config';

/**
 * The tests Stryker runs against each mutant of the pure code (npm run mutation): the unit tests,
 * which call the domain, validation and auth modules directly. The server tests cover the same
 * code through HTTP but take a minute a run; here a mutant costs milliseconds.
 */
export default defineConfig({
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/unit/**/*.test.ts'],
    // It reads the suite's bundle (.test-dist/, built by the suite's own setup), not the mutated source.
    exclude: ['test/unit/bundle.test.ts'],
    // The suite's limit (vitest.config.ts): the property tests take seconds on a busy machine.
    testTimeout: 30_000,
    // Some unit tests read a copy of the run's database (privateDatabase): its setup, not the bundles'.
    globalSetup: ['test/global-setup-unit.ts'],
    allowOnly: !process.env.CI,
    // Stryker runs the covering tests of each mutant in a fresh worker; not isolated, the files of one
    // run share one import of src/ and its packages instead of one each (a mutant covered by several
    // whole-server files runs about three times faster). Static mutants, which would need fresh
    // imports, are not run (ignoreStatic). .ci/run runs the unit tests so too.
    isolate: false,
  },
});
