// Prints the one plain line CI reads, "N passed, M failed[, K skipped]", from what the suite's
// totals reporter (test/reporters/totals.ts) wrote, and exits non-zero unless the run was whole:
// failed tests, failed files or suites (could not load, a hook threw), unhandled errors, a test
// file that never reported, a count of tests other than test/floor.json's, a floor lowered
// without naming the tests removed, and a test skipped while its input is there each count as
// failures. Skipped tests are listed with their reason.
//
// The floor is the last entry of the history test/floor.json keeps in the tree, so a shallow clone
// checks it as well as a full one: each entry lower than the one before names the tests it removed
// (they count for that lowering only), and where git has the previous commit its history must
// still be there, entry for entry.
//
// No slack under CI=true: nothing in the environment changes what is expected (the TEST_TOTALS_*
// variables point the suite's own test of this script at a fixture suite, outside CI only), and a
// test may skip only with the floor file's exact reason for want of ../shared/data, and only where
// it is truly absent.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const file = process.argv[2] ?? path.join(root, '.test-totals.json');
/** The checks .ci/run ran before the suite (codegen, API compatibility, lint, format): a line per failure. */
const checksFile = process.argv[3];
const failedChecks = checksFile && existsSync(checksFile) ? readFileSync(checksFile, 'utf8').split('\n').filter(Boolean) : [];
const ci = ['true', '1'].includes(process.env.CI ?? '');
/** What test/totals.test.ts sets to run this against a fixture suite: ignored under CI. */
const override = (name) => (ci ? undefined : process.env[name]);
const testDir = override('TEST_TOTALS_DIR') ?? 'test';
const suffix = override('TEST_TOTALS_SUFFIX') ?? '.test.ts';
const floorFile = override('TEST_TOTALS_FLOOR') ?? path.join(root, 'test', 'floor.json');
const partial = Boolean(override('TEST_TOTALS_PARTIAL'));
const sharedData = override('TEST_TOTALS_SHARED_DATA') ?? path.join(root, '..', 'shared', 'data');

/** The floor file the previous commit had (null outside a git checkout, in a shallow clone, or on its first commit). */
function previousFloor() {
  const file = override('TEST_TOTALS_PREVIOUS_FLOOR');
  if (file) return JSON.parse(readFileSync(file, 'utf8'));
  // A fixture's floor has no history.
  if (floorFile !== path.join(root, 'test', 'floor.json')) return null;
  try {
    return JSON.parse(execFileSync('git', ['show', 'HEAD~1:test/floor.json'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    return null;
  }
}

if (!existsSync(file)) {
  for (const c of failedChecks) console.log(`failed check: ${c}`);
  console.log(`0 passed, ${1 + failedChecks.length} failed (the suite wrote no totals: it did not run to its end)`);
  process.exit(1);
}
const totals = JSON.parse(readFileSync(file, 'utf8'));
const floor = JSON.parse(readFileSync(floorFile, 'utf8'));
const history = Array.isArray(floor.history) ? floor.history : [];

/** What is wrong with the floor's history: a lowering that does not name exactly what it removed, a history the last commit had that is gone. */
function historyProblems() {
  if (history.length === 0 || !history.every((h) => Number.isInteger(h?.tests) && h.tests >= 0))
    return ['test/floor.json needs a "history" of entries { "tests": N }, the last one the count of tests'];
  const problems = [];
  for (const [i, h] of history.entries()) {
    const before = history[i - 1]?.tests;
    const removed = h.removed ?? [];
    const named = removed.every((r) => typeof r?.test === 'string' && r.test && typeof r?.why === 'string' && r.why);
    if (before !== undefined && h.tests < before) {
      if (removed.length !== before - h.tests || !named)
        problems.push(
          `test/floor.json's history goes from ${before} to ${h.tests}: that entry's "removed" must name each of the ${before - h.tests} tests removed, with why`,
        );
    } else if (removed.length > 0)
      problems.push(`test/floor.json's entry of ${h.tests} names removed tests, but it lowers nothing: a lowering names only its own`);
  }
  const previous = previousFloor();
  if (Array.isArray(previous?.history)) {
    const kept = previous.history.every((h, i) => JSON.stringify(h) === JSON.stringify(history[i]));
    if (!kept || history.length < previous.history.length)
      problems.push("test/floor.json's history was rewritten: the last commit's entries must stay as they were, new ones after them");
  }
  return problems;
}

/** Every test file the suite should have run (vitest's include: test/**\/*.test.ts), relative to the root. */
function testFiles(dir) {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return testFiles(rel);
    return e.name.endsWith(suffix) ? [rel] : [];
  });
}
// With a file filter (npm test -- some.test.ts) only the named files are expected.
const expected = partial ? totals.files : testFiles(testDir);
const missing = expected.filter((f) => !totals.files.includes(f));

const failures = [
  ...failedChecks.map((c) => `failed check: ${c}`),
  ...totals.failedTests.map((t) => `failed: ${t}`),
  ...totals.failedSuites.map((s) => `failed outside a test: ${s}`),
  ...totals.unhandledErrors.map((e) => `unhandled error: ${e}`),
  ...missing.map((f) => `never ran: ${f}`),
];
const ran = totals.passed + totals.failedTests.length;
const counted = ran + totals.skipped.length;
if (!partial) {
  // The floor is the count of tests that exist: fewer is a test lost, more is a floor not raised.
  const problems = historyProblems();
  failures.push(...problems);
  const expectedCount = history.at(-1)?.tests ?? Number.NaN;
  if (counted < expectedCount) failures.push(`only ${counted} tests (${ran} ran, ${totals.skipped.length} skipped); test/floor.json expects ${expectedCount}`);
  else if (counted > expectedCount)
    failures.push(`${counted} tests exist; test/floor.json says ${expectedCount}: add { "tests": ${counted} } at the end of its history`);
}
if (totals.reason === 'interrupted') failures.push('the run was interrupted');

// A test may skip for want of ../shared/data (third-party data a user's clone has not), with the
// floor file's words for it, and only when it is absent; under CI nothing else may skip (.ci/run
// installs what the others need), nor a reason that merely mentions ../shared/data.
const sharedAbsent = !existsSync(sharedData);
for (const s of totals.skipped) {
  const forSharedData = typeof floor.sharedDataAbsent === 'string' && s.reason === floor.sharedDataAbsent;
  if (forSharedData && !sharedAbsent) failures.push(`skipped while ../shared/data is there: ${s.test}`);
  else if (!forSharedData && ci) failures.push(`skipped under CI: ${s.test} — ${s.reason}`);
  else console.log(`skipped: ${s.test} — ${s.reason}`);
}
for (const f of failures) console.log(f);
const skipped = totals.skipped.length ? `, ${totals.skipped.length} skipped` : '';
console.log(`${totals.passed} passed, ${failures.length} failed${skipped}`);
process.exit(failures.length > 0 || totals.passed === 0 ? 1 : 0);
