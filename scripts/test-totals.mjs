// Prints the one plain line CI reads, "N passed, M failed[, K skipped]", from what the suite's
// totals reporter (test/reporters/totals.ts) wrote, and exits non-zero unless the run was whole:
// failed tests, failed files or suites (could not load, a hook threw), unhandled errors, a test
// file that never reported, and fewer tests run than the floor in test/floor.json each count as
// failures. Skipped tests are listed with their reason.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const file = process.argv[2] ?? path.join(root, '.test-totals.json');
/** The checks .ci/run ran before the suite (codegen, API compatibility, lint, format): a line per failure. */
const checksFile = process.argv[3];
const failedChecks = checksFile && existsSync(checksFile) ? readFileSync(checksFile, 'utf8').split('\n').filter(Boolean) : [];
// The suite's own layout; test/totals.test.ts points these at a fixture suite.
const testDir = process.env.TEST_TOTALS_DIR ?? 'test';
const suffix = process.env.TEST_TOTALS_SUFFIX ?? '.test.ts';
const floorFile = process.env.TEST_TOTALS_FLOOR ?? path.join(root, 'test', 'floor.json');

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
const expected = process.env.TEST_TOTALS_PARTIAL ? totals.files : testFiles(testDir);
const missing = expected.filter((f) => !totals.files.includes(f));

const failures = [
  ...failedChecks.map((c) => `failed check: ${c}`),
  ...totals.failedTests.map((t) => `failed: ${t}`),
  ...totals.failedSuites.map((s) => `failed outside a test: ${s}`),
  ...totals.unhandledErrors.map((e) => `unhandled error: ${e}`),
  ...missing.map((f) => `never ran: ${f}`),
];
const ran = totals.passed + totals.failedTests.length;
if (!process.env.TEST_TOTALS_PARTIAL && ran < floor.tests) failures.push(`only ${ran} tests ran; test/floor.json expects at least ${floor.tests}`);
if (totals.reason === 'interrupted') failures.push('the run was interrupted');

for (const s of totals.skipped) console.log(`skipped: ${s.test} — ${s.reason}`);
for (const f of failures) console.log(f);
const skipped = totals.skipped.length ? `, ${totals.skipped.length} skipped` : '';
console.log(`${totals.passed} passed, ${failures.length} failed${skipped}`);
process.exit(failures.length > 0 || totals.passed === 0 ? 1 : 0);
