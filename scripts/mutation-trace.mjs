// node scripts/mutation-trace.mjs <trace file> [report/mutation.json] [rows]: where a mutation run's
// time went, from the lines test/mutation-trace.ts wrote (MUTATION_TRACE=<file> npm run mutation):
// worker time by test file (and how much of it loading modules), by test, and, given the run's JSON
// report, by source file and mutant status. Worker time, not wall time: Stryker's runners share the cores.
import { readFileSync } from 'node:fs';

const [traceFile, reportFile, rowsArg] = process.argv.slice(2);
if (!traceFile) {
  console.error('usage: node scripts/mutation-trace.mjs <trace file> [mutation.json] [rows]');
  process.exit(2);
}
const rows = Number(rowsArg ?? 15);
const lines = readFileSync(traceFile, 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line));
const seconds = (ms) => (ms / 1000).toFixed(1);

/** Adds `ms` to `key`'s total in `table`, counting the runs. */
const tally = (table, key, ms, extra = 0) => {
  const entry = table.get(key) ?? { runs: 0, ms: 0, extra: 0 };
  entry.runs++;
  entry.ms += ms;
  entry.extra += extra;
  table.set(key, entry);
};
const print = (title, table, extraName) => {
  const total = [...table.values()].reduce((sum, e) => sum + e.ms, 0);
  console.log(`\n${title} (worker time ${seconds(total)} s)`);
  for (const [key, e] of [...table].sort((a, b) => b[1].ms - a[1].ms).slice(0, rows)) {
    const extra = extraName ? `, ${extraName} ${Math.round(e.extra / e.runs)} ms` : '';
    console.log(`${seconds(e.ms).padStart(8)} s  ${String(e.runs).padStart(5)} runs, ${Math.round(e.ms / e.runs)} ms each${extra}  ${key}`);
  }
};

const byFile = new Map();
const byTest = new Map();
const byMutant = new Map();
for (const line of lines) {
  const ms = line.ended - line.loading;
  tally(byFile, line.file, ms, line.started - line.loading);
  for (const [name, testMs] of line.tests ?? []) tally(byTest, `${line.file}: ${name}`, testMs);
  byMutant.set(line.mutant, (byMutant.get(line.mutant) ?? 0) + ms);
}
print('by test file', byFile, 'loading');
print('by test', byTest);

if (reportFile) {
  const report = JSON.parse(readFileSync(reportFile, 'utf8'));
  const bySource = new Map();
  const byStatus = new Map();
  for (const [source, { mutants }] of Object.entries(report.files)) {
    for (const m of mutants) {
      if (!byMutant.has(m.id)) continue;
      tally(bySource, source, byMutant.get(m.id));
      tally(byStatus, m.status, byMutant.get(m.id));
    }
  }
  print('by source file', bySource);
  print('by status', byStatus);
}
