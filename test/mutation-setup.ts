import { inject, vi } from 'vitest';

const injected = inject as (key: string) => unknown;

/**
 * Under Stryker (vitest.mutation.config.ts), the dry run runs every test once over code
 * instrumented to record which test covers which mutant: a pure loop (a year of weather for every
 * resort, a property test's hundreds of trees) runs many times slower there, beside three other
 * workers, and no mutant is active to leave a test waiting. The dry run keeps the suite's limit;
 * a mutant's runs keep the 8 s that kills one that waits.
 */
const mode = injected('mode');
if (mode === 'dry-run') vi.setConfig({ testTimeout: 30_000 });

/**
 * A mutant's run reuses the worker of the run before (test/patches). Its first test file evaluates
 * every module again but the packages': a cache, a memo or a schema that an earlier mutant built
 * would otherwise answer for this one (a kill that is not this mutant's, or a survivor whose code
 * ran only once, under another).
 */
const mutant = injected('activeMutant');
const worker = globalThis as { mutantOfModules?: unknown };
if (mode === 'mutant' && worker.mutantOfModules !== mutant) {
  worker.mutantOfModules = mutant;
  vi.resetModules();
}
