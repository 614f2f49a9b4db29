// npm run mutation [-- <shard>… <stryker option>…]: runs Stryker over each shard of
// stryker.config.mjs's scope in turn (every shard, or the ones named; options such as --force,
// which retests every mutant rather than only those an incremental run would, go to each run),
// merges the shards' reports into the whole scope's (reports/mutation/mutation.json), writes
// test/mutation-survivors.md from it, and fails when Stryker's score over the whole scope is under
// the floor. A shard not run this time counts with its last report; one that never ran is an
// error, not a smaller scope.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { calculateMutationTestMetrics } from 'mutation-testing-metrics';

delete process.env.MUTATION_SHARD;
const { SHARDS, THRESHOLDS, shardReport } = await import('../stryker.config.mjs');

const names = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const options = process.argv.slice(2).filter((arg) => arg.startsWith('-'));
const unknown = names.filter((name) => !Object.hasOwn(SHARDS, name));
if (unknown.length) {
  console.error(`unknown shard ${unknown.join(', ')}: the shards are ${Object.keys(SHARDS).join(', ')}`);
  process.exit(2);
}

const minutes = (ms) => `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
const started = Date.now();
for (const shard of names.length ? names : Object.keys(SHARDS)) {
  const shardStarted = Date.now();
  const run = spawnSync('npx', ['stryker', 'run', ...options], { stdio: 'inherit', env: { ...process.env, MUTATION_SHARD: shard } });
  if (run.status !== 0) {
    console.error(`shard ${shard}: stryker exited with ${run.status ?? run.signal}`);
    process.exit(1);
  }
  console.log(`shard ${shard}: ${minutes(Date.now() - shardStarted)}`);
}

/**
 * One report of the whole scope: each shard mutates files no other does and runs the same tests,
 * but numbers its tests and mutants from 0, so the merged report numbers them again (a test by its
 * file and name).
 */
const missing = Object.keys(SHARDS).filter((shard) => !existsSync(shardReport(shard)));
if (missing.length) {
  console.error(`no report of ${missing.join(', ')}: run npm run mutation -- ${missing.join(' ')}`);
  process.exit(1);
}
const reports = Object.keys(SHARDS).map((shard) => JSON.parse(readFileSync(shardReport(shard), 'utf8')));
const testFiles = {};
const testIds = new Map();
const files = {};
let mutantId = 0;
for (const report of reports) {
  const ids = new Map();
  for (const [file, { tests, ...rest }] of Object.entries(report.testFiles ?? {})) {
    const merged = (testFiles[file] ??= { ...rest, tests: [] });
    for (const test of tests) {
      const key = `${file}\0${test.name}`;
      if (!testIds.has(key)) {
        testIds.set(key, String(testIds.size));
        merged.tests.push({ ...test, id: testIds.get(key) });
      }
      ids.set(test.id, testIds.get(key));
    }
  }
  const renumber = (tests) => tests?.map((id) => ids.get(id));
  for (const [file, result] of Object.entries(report.files)) {
    const mutants = result.mutants.map((m) => ({ ...m, id: String(mutantId++), coveredBy: renumber(m.coveredBy), killedBy: renumber(m.killedBy) }));
    files[file] = { ...result, mutants };
  }
}
// A shard's `config` names its own files only: left out.
const { config: _shardConfig, ...first } = reports[0];
const whole = { ...first, thresholds: THRESHOLDS, files, testFiles };
mkdirSync('reports/mutation', { recursive: true });
writeFileSync('reports/mutation/mutation.json', JSON.stringify(whole));

const survivors = spawnSync('node', ['scripts/mutation-survivors.mjs'], { stdio: 'inherit' });
if (survivors.status !== 0) process.exit(1);

const { mutationScore } = calculateMutationTestMetrics(whole).systemUnderTestMetrics.metrics;
console.log(
  `whole scope: Stryker's score ${mutationScore.toFixed(2)} % (floor ${THRESHOLDS.break} %)` +
    (names.length ? '' : `, every shard in ${minutes(Date.now() - started)}`),
);
if (mutationScore < THRESHOLDS.break) process.exit(1);
