import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, SerializedError, TestCase, TestModule, TestSuite } from 'vitest/node';

/**
 * Writes what the run did to TEST_TOTALS_FILE (default .test-totals.json), for
 * scripts/test-totals.mjs to print CI's closing line from. Vitest's JSON report counts only test
 * cases: a beforeAll that throws leaves its tests "skipped", a file that cannot load has no tests,
 * and an unhandled error is not in it at all. Here each of those is a failure of its own.
 */
export interface Totals {
  /** Test files that reported, relative to the root. */
  files: string[];
  passed: number;
  failedTests: string[];
  /** Files and suites that failed outside a test: could not load, a hook threw, a cleanup failed. */
  failedSuites: string[];
  unhandledErrors: string[];
  skipped: { test: string; reason: string }[];
  /** Why the run ended ('passed', 'failed', 'interrupted'). */
  reason: string;
}

const firstLine = (e: SerializedError) => `${e.name ?? 'Error'}: ${(e.message ?? '').split('\n')[0]}`;

export default class TotalsReporter implements Reporter {
  onTestRunEnd(modules: readonly TestModule[], unhandledErrors: readonly SerializedError[], reason: string): void {
    const totals: Totals = { files: [], passed: 0, failedTests: [], failedSuites: [], unhandledErrors: unhandledErrors.map(firstLine), skipped: [], reason };
    for (const module of modules) {
      const file = path.relative(process.cwd(), module.moduleId);
      totals.files.push(file);
      const suites: (TestModule | TestSuite)[] = [module, ...module.children.allSuites()];
      for (const suite of suites) {
        const errors = suite.errors();
        if (errors.length > 0) totals.failedSuites.push(`${file}${suite.type === 'suite' ? ` › ${suite.fullName}` : ''}: ${firstLine(errors[0]!)}`);
      }
      for (const test of module.children.allTests()) {
        const result = test.result();
        const name = `${file} › ${test.fullName}`;
        if (result.state === 'passed') totals.passed++;
        else if (result.state === 'failed') totals.failedTests.push(name);
        else totals.skipped.push({ test: name, reason: skipReason(test) });
      }
    }
    writeFileSync(process.env.TEST_TOTALS_FILE ?? '.test-totals.json', JSON.stringify(totals, null, 1));
  }
}

/** Why a test did not run: its note (`ctx.skip(note)`), a failed setup above it, or the suite that skipped it (`describe.skipIf`). */
function skipReason(test: TestCase): string {
  const result = test.result();
  if (result.state === 'skipped' && result.note) return result.note;
  const ancestors: (TestSuite | TestModule)[] = [];
  for (let s: TestSuite | TestModule = test.parent; ; s = s.parent) {
    ancestors.push(s);
    if (s.type === 'module') break;
  }
  const failed = ancestors.find((s) => s.errors().length > 0);
  if (failed) return `not run: ${failed.type === 'suite' ? `its suite "${failed.fullName}"` : 'its file'} failed outside a test`;
  const skippedSuite = ancestors.find((s): s is TestSuite => s.type === 'suite' && s.options.mode === 'skip');
  if (skippedSuite) return `its suite is skipped here: "${skippedSuite.fullName}"`;
  return result.state === 'skipped' ? 'skipped without a reason' : result.state;
}
