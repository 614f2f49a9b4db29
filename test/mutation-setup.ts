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
const worker = globalThis as { mutantOfModules?: unknown } & Record<string, { activeMutant?: unknown; coverageOff?: boolean } | undefined>;
if (mode === 'mutant' && worker.mutantOfModules !== mutant) {
  worker.mutantOfModules = mutant;
  vi.resetModules();
}

/** Stryker's state in the worker (under Stryker only: it names the namespace). */
const namespace = injected('globalNamespace') as string | undefined;
if (namespace !== undefined) {
  const stryker = (worker[namespace] ??= {});
  /**
   * A mutant Stryker activates at run time (one its tests cover) is switched on by its setup's
   * beforeAll, after the file's imports: what they evaluate must run unmutated, as in a fresh
   * worker. In a kept worker the mutant of the run before was still active while this one's
   * modules loaded, so a load-time mutant of the same file failed or passed this one's tests for it.
   */
  if (mode === 'mutant' && injected('mutantActivation') === 'runtime') stryker.activeMutant = undefined;
  /**
   * What a mutant's tests cover is read from the dry run only. In a mutant's run the instrumented
   * modules' coverage counter (a count per block and expression run) is an empty function
   * (test/patches): counting costs every block of a hot loop (the tree over every ZIP built at each
   * server start, a year of weather) a call and a store, for nothing (no whole-run gain shown yet).
   */
  stryker.coverageOff = mode === 'mutant';
}
