import { inject, vi } from 'vitest';

/**
 * Under Stryker (vitest.mutation.config.ts), the dry run runs every test once over code
 * instrumented to record which test covers which mutant: a pure loop (a year of weather for every
 * resort, a property test's hundreds of trees) runs many times slower there, beside three other
 * workers, and no mutant is active to leave a test waiting. The dry run keeps the suite's limit;
 * a mutant's runs keep the 8 s that kills one that waits.
 */
const mode = (inject as (key: string) => unknown)('mode');
if (mode === 'dry-run') vi.setConfig({ testTimeout: 30_000 });
