// Prints the one plain line CI reads, "N passed, M failed[, K skipped]", from what the suite's
// totals reporter (test/reporters/totals.ts) wrote, and exits non-zero unless the run was whole:
// failed tests, failed files or suites (could not load, a hook threw), unhandled errors, a test
// file that never reported, a count of tests other than test/floor.json's, a floor lowered
// without naming the tests removed, and a test skipped while its input is there each count as
// failures. Skipped tests are listed with their reason.
//
// No slack under CI=true: nothing in the environment changes what is expected (the TEST_TOTALS_*
// variables point the suite's own test of this script at a fixture suite, outside CI only), and a
// test may skip only for want of ../shared/data, and only where it is truly absent.
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

/** The floor the previous commit had (null outside a git checkout, or on its first commit). */
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
  if (counted < floor.tests) failures.push(`only ${counted} tests (${ran} ran, ${totals.skipped.length} skipped); test/floor.json expects ${floor.tests}`);
  else if (counted > floor.tests) failures.push(`${counted} tests exist; test/floor.json says ${floor.tests}: raise it to ${counted}`);
  const before = previousFloor();
  const removed = floor.removed ?? [];
  if (before && floor.tests < before.tests && removed.length < before.tests - floor.tests)
    failures.push(`test/floor.json went from ${before.tests} to ${floor.tests}: name each removed test and why in its "removed" list`);
}
if (totals.reason === 'interrupted') failures.push('the run was interrupted');

// A test may skip for want of ../shared/data (third-party data a user's clone has not), and only
// when it is absent; under CI nothing else may skip (.ci/run installs what the others need).
const sharedAbsent = !existsSync(sharedData);
for (const s of totals.skipped) {
  const forSharedData = s.reason.includes('../shared/data');
  if (forSharedData && !sharedAbsent) failures.push(`skipped while ../shared/data is there: ${s.test}`);
  else if (!forSharedData && ci) failures.push(`skipped under CI: ${s.test} — ${s.reason}`);
  else console.log(`skipped: ${s.test} — ${s.reason}`);
}
for (const f of failures) console.log(f);
const skipped = totals.skipped.length ? `, ${totals.skipped.length} skipped` : '';
console.log(`${totals.passed} passed, ${failures.length} failed${skipped}`);
process.exit(failures.length > 0 || totals.passed === 0 ? 1 : 0);
