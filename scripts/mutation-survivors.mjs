// After `npm run mutation`: writes test/mutation-survivors.md from Stryker's JSON report — the
// mutants no test kills, each with why. A mutant no test can kill (an equivalent one) carries its
// reason in a `// Stryker disable next-line <mutator>: <why>` comment above its line, where the
// next reader of that code sees it; Stryker reports those as ignored, with the reason. A mutant
// that survives without such a comment is listed as unexplained: kill it with a test, or explain it.
import { readFileSync, writeFileSync } from 'node:fs';

const report = JSON.parse(readFileSync('reports/mutation/mutation.json', 'utf8'));
const escape = (s) => String(s).replaceAll('|', '\\|').replaceAll('`', "'").replaceAll('\n', ' ');

const counts = { killed: 0, survived: 0, noCoverage: 0, timeout: 0, equivalent: 0, static: 0 };
const unexplained = [];
const equivalent = new Map();
for (const [file, data] of Object.entries(report.files).sort()) {
  const source = data.source.split('\n');
  for (const m of data.mutants) {
    const at = `${file}:${m.location.start.line}`;
    const line = source[m.location.start.line - 1].trim().slice(0, 90);
    const what = `\`${at}\` ${m.mutatorName} → \`${escape(String(m.replacement ?? '').slice(0, 50))}\` in \`${escape(line)}\``;
    if (m.status === 'Killed') counts.killed++;
    else if (m.status === 'Timeout') counts.timeout++;
    else if (m.status === 'Survived' || m.status === 'NoCoverage') {
      counts[m.status === 'Survived' ? 'survived' : 'noCoverage']++;
      unexplained.push(`- ${what}${m.status === 'NoCoverage' ? ' (no test reaches it)' : ''}`);
    } else if (m.status === 'Ignored') {
      const reason = String(m.statusReason ?? '');
      if (/static/i.test(reason) && !/disable/i.test(reason)) {
        counts.static++;
        continue;
      }
      counts.equivalent++;
      const why = reason.replace(/^Ignored because of excluded mutation "[^"]*"\.?\s*/, '').replace(/^Disabled by comment with reason:?\s*/i, '') || reason;
      if (!equivalent.has(file)) equivalent.set(file, []);
      equivalent.get(file).push(`- ${what}: ${escape(why)}`);
    }
  }
}
const detected = counts.killed + counts.timeout;
const score = (100 * detected) / (detected + counts.survived + counts.noCoverage);
const lines = [
  '# Surviving mutants',
  '',
  `Written by \`scripts/mutation-survivors.mjs\` from the last \`npm run mutation\` (${new Date().toISOString().slice(0, 10)}) over \`src/domain\`, \`src/validation\` and \`src/auth\`.`,
  '',
  `Mutation score **${score.toFixed(2)} %**: ${counts.killed} killed and ${counts.timeout} timed out, against ${counts.survived} surviving and ${counts.noCoverage} that no test reaches.`,
  `${counts.equivalent} equivalent mutants (no test can tell them from the code) are left out of the score, each with its reason below (a comment above its line says so too);`,
  `${counts.static} mutants of module-level tables are not run (\`ignoreStatic\`).`,
  '',
  `## Not explained (${unexplained.length})`,
  '',
  ...(unexplained.length ? unexplained : ['None.']),
  '',
  `## Equivalent (${counts.equivalent})`,
  '',
];
for (const [file, items] of equivalent) lines.push(`### ${file} (${items.length})`, '', ...items, '');
writeFileSync('test/mutation-survivors.md', lines.join('\n'));
console.log(`test/mutation-survivors.md: score ${score.toFixed(2)} %, ${unexplained.length} unexplained, ${counts.equivalent} equivalent`);
