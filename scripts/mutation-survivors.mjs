// After `npm run mutation`: writes test/mutation-survivors.md from Stryker's JSON report — every
// mutant no test kills, each with why, and the score over the mutants a test can kill. Which
// survivors are equivalent (no test can tell them from the code) is said in
// scripts/mutation-equivalents.mjs, one rule per site: the file, the line, the code the mutant
// replaces, the mutator and the replacement, and why. A rule matches that one site only, so the
// same code elsewhere, or a killable mutant that starts to survive (a test that stopped killing
// it), is listed as unexplained, never hidden; code that moves makes its rule stale (listed) until
// it is anchored again. Mutants no test reaches (NoCoverage) are never explained by a rule: they
// are listed apart and count against the score. Kill an unexplained one with a test, or add its
// rule with the reason.
import { readFileSync, writeFileSync } from 'node:fs';

import { EQUIVALENT } from './mutation-equivalents.mjs';

const report = JSON.parse(readFileSync('reports/mutation/mutation.json', 'utf8'));
const escapeCell = (s) => String(s).replaceAll('|', '\\|').replaceAll('`', "'").replaceAll('\n', ' ');

/** The source text a mutant replaces. */
function original(source, { start, end }) {
  const lines = source.split('\n');
  if (start.line === end.line) return lines[start.line - 1].slice(start.column - 1, end.column - 1);
  return [lines[start.line - 1].slice(start.column - 1), ...lines.slice(start.line, end.line - 1), lines[end.line - 1].slice(0, end.column - 1)].join('\n');
}
const matches = (pattern, text) => (pattern instanceof RegExp ? pattern.test(text) : pattern === text);

/** Mutants in the order of their place in the file: an incremental run lists them in another order. */
const byPlace = (a, b) =>
  a.location.start.line - b.location.start.line ||
  a.location.start.column - b.location.start.column ||
  a.mutatorName.localeCompare(b.mutatorName) ||
  String(a.replacement ?? '').localeCompare(String(b.replacement ?? ''));
const counts = { killed: 0, timeout: 0, equivalent: 0, unexplained: 0, uncovered: 0, static: 0 };
const unexplained = [];
const uncovered = [];
const equivalent = new Map();
const used = new Set();
/** Stryker's own score per folder of src/ (src/transports/rest/x.ts counts in transports). */
const folders = new Map();
for (const [file, data] of Object.entries(report.files).sort()) {
  const folder = file.split('/')[1];
  if (!folders.has(folder)) folders.set(folder, { detected: 0, survived: 0, uncovered: 0 });
  const tally = folders.get(folder);
  for (const m of [...data.mutants].sort(byPlace)) {
    if (m.status === 'Killed' || m.status === 'Timeout') tally.detected++;
    else if (m.status === 'Survived') tally.survived++;
    else if (m.status === 'NoCoverage') tally.uncovered++;
    if (m.status === 'Killed') counts.killed++;
    else if (m.status === 'Timeout') counts.timeout++;
    else if (m.status === 'Ignored') counts.static++;
    else if (m.status === 'NoCoverage') {
      const code = original(data.source, m.location);
      counts.uncovered++;
      uncovered.push(
        `- \`${file}\` line ${m.location.start.line}: \`${escapeCell(code.slice(0, 70))}\` → \`${escapeCell(String(m.replacement ?? '').slice(0, 70))}\` (${m.mutatorName})`,
      );
    } else if (m.status === 'Survived') {
      const code = original(data.source, m.location);
      const replacement = String(m.replacement ?? '');
      const line = m.location.start.line;
      const what = `line ${line}: \`${escapeCell(code.slice(0, 70))}\` → \`${escapeCell(replacement.slice(0, 70))}\` (${m.mutatorName})`;
      const rule = EQUIVALENT.find(([f, at, c, mutator, r]) => f === file && at === line && c === code && mutator === m.mutatorName && matches(r, replacement));
      if (rule) {
        used.add(rule);
        counts.equivalent++;
        if (!equivalent.has(file)) equivalent.set(file, []);
        equivalent.get(file).push(`- ${what}: ${rule[5]}`);
      } else {
        counts.unexplained++;
        unexplained.push(`- \`${file}\` ${what}`);
      }
    }
  }
}
const detected = counts.killed + counts.timeout;
const score = (100 * detected) / (detected + counts.unexplained + counts.uncovered);
const raw = (100 * detected) / (detected + counts.unexplained + counts.uncovered + counts.equivalent);
const stale = EQUIVALENT.filter((r) => !used.has(r));
const folderRows = [...folders].map(
  ([folder, t]) =>
    `| \`src/${folder}\` | ${((100 * t.detected) / (t.detected + t.survived + t.uncovered)).toFixed(2)} % | ${t.detected} | ${t.survived} | ${t.uncovered} |`,
);
const lines = [
  '# Surviving mutants',
  '',
  `Written by \`scripts/mutation-survivors.mjs\` from the last \`npm run mutation\` (${new Date().toISOString().slice(0, 10)}), over the files of \`stryker.config.mjs\`'s shards (the folders below), their reports merged by \`scripts/mutation.mjs\`.`,
  '',
  `**${score.toFixed(2)} %** of the mutants a test can kill are killed (${detected}: ${counts.killed} killed, ${counts.timeout} timed out; ${counts.unexplained} not explained, ${counts.uncovered} no test reaches).`,
  `${counts.equivalent} more survive that no test can kill (equivalent mutants), each below with why; counted as survivors, Stryker's own score is ${raw.toFixed(2)} %.`,
  `${counts.static} mutants of module-level tables are not run (\`ignoreStatic\`).`,
  '',
  "Stryker's own score per folder (equivalent mutants counted as survivors):",
  '',
  '| folder | score | killed or timed out | survived | no test reaches |',
  '|---|---:|---:|---:|---:|',
  ...folderRows,
  '',
  `## Not explained (${unexplained.length})`,
  '',
  ...(unexplained.length ? unexplained : ['None.']),
  '',
  `## No test reaches them (${uncovered.length})`,
  '',
  ...(uncovered.length ? uncovered : ['None.']),
  '',
  `## Equivalent (${counts.equivalent})`,
  '',
];
for (const [file, items] of equivalent) lines.push(`### ${file} (${items.length})`, '', ...items, '');
if (stale.length)
  lines.push(
    `## Rules that matched nothing (${stale.length})`,
    '',
    ...stale.map(
      (r) => `- \`${r[0]}\` line ${r[1]} \`${escapeCell(r[2])}\` (${r[3]}): the code changed or moved, or a test now kills it; drop or re-anchor the rule`,
    ),
    '',
  );
writeFileSync('test/mutation-survivors.md', lines.join('\n'));
console.log(
  `test/mutation-survivors.md: ${score.toFixed(2)} % of killable mutants killed (raw ${raw.toFixed(2)} %), ${unexplained.length} unexplained, ${uncovered.length} not reached, ${counts.equivalent} equivalent, ${stale.length} stale rules`,
);
