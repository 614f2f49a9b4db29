import { appendFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, expect, inject } from 'vitest';

/**
 * Where a mutation run's time goes (MUTATION_TRACE=<file>, vitest.mutation.config.ts): for each
 * mutant and each test file its run took, a line of JSON with the worker, when the file's modules
 * began to load, when its tests began and ended, and each test's time. scripts/mutation-trace.mjs
 * sums them by test file, by source file and by test.
 */
const injected = inject as (key: string) => unknown;
const traceFile = process.env.MUTATION_TRACE;
if (traceFile && injected('mode') === 'mutant') {
  const mutant = injected('activeMutant');
  const file = (expect.getState().testPath ?? '').replace(/.*\/test\//, 'test/');
  const loading = performance.now();
  let started = 0;
  let testStarted = 0;
  const tests: [string, number][] = [];
  beforeAll(() => {
    started = performance.now();
  });
  beforeEach(() => {
    testStarted = performance.now();
  });
  afterEach((context) => {
    tests.push([context.task.name, Math.round(performance.now() - testStarted)]);
  });
  afterAll(() => {
    const line = { pid: process.pid, mutant, file, loading, started, ended: performance.now(), at: Date.now(), tests };
    appendFileSync(traceFile, `${JSON.stringify(line)}\n`);
  });
}
