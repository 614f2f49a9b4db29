import { beforeAll, beforeEach } from 'vitest';

/**
 * Makes what a file's (or a describe's) tests share before them. If making it throws (a mutant of
 * what it runs), each test fails with that error instead of the hook: a failed beforeAll skips the
 * tests, which Stryker's vitest runner counts as a surviving mutant, and with no test failed its
 * run goes on to the next file's hook.
 */
export function beforeAllOrFailEach(make: () => void | Promise<void>): void {
  let failure: { error: unknown } | null = null;
  beforeAll(async () => {
    try {
      await make();
    } catch (error) {
      failure = { error };
    }
  });
  beforeEach(() => {
    if (failure) throw failure.error;
  });
}
