// After `npm run mutation`: writes test/mutation-survivors.md from Stryker's JSON report — every
// mutant no test kills, each with why, and the score over the mutants a test can kill. Which
// survivors are equivalent (no test can tell them from the code) is said below, one rule per kind
// of mutant: the file, the code the mutant replaces, the mutator and the replacement, and why. A
// rule matches exactly those mutants, so a killable mutant that starts to survive (a test that
// stopped killing it) is listed as unexplained, never hidden. Kill an unexplained one with a
// test, or add its rule with the reason.
import { readFileSync, writeFileSync } from 'node:fs';

/** [file, the code replaced (exact), mutator, replacement (exact or RegExp), why]. */
const EQUIVALENT = [
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text a mutant replaces, as written in src.
  ['src/auth/cost-budget.ts', '`cost${points}`', 'StringLiteral', '``', 'the prefix only names the limiter, and there is one limiter per budget either way'],
  [
    'src/auth/cost-budget.ts',
    'reserve.until > Date.now()',
    'ConditionalExpression',
    'true',
    'spending from a slice after its window ended: the documented tolerance (a key may spend up to a slice into the next window); the slice was paid for from the window it was taken in',
  ],
  [
    'src/auth/cost-budget.ts',
    'reserve.until > Date.now()',
    'EqualityOperator',
    'reserve.until >= Date.now()',
    'spending from a slice after its window ended: the documented tolerance (a key may spend up to a slice into the next window); the slice was paid for from the window it was taken in',
  ],
  [
    'src/auth/cost-budget.ts',
    'cost < slice',
    'EqualityOperator',
    'cost <= slice',
    'a charge of exactly one slice is counted the same whether drawn as a slice or exactly',
  ],
  [
    'src/auth/cost-budget.ts',
    'left.until > Date.now()',
    'ConditionalExpression',
    'true',
    'units left from an ended window carried into the new slice: at most a slice, the documented tolerance',
  ],
  [
    'src/auth/cost-budget.ts',
    'left.until > Date.now()',
    'EqualityOperator',
    'left.until >= Date.now()',
    'units left from an ended window carried into the new slice: at most a slice, the documented tolerance',
  ],
  [
    'src/auth/cost-budget.ts',
    '!(res instanceof RateLimiterRes)',
    'ConditionalExpression',
    'false',
    'the in-memory limiter rejects only with RateLimiterRes: no other error reaches this line',
  ],
  [
    'src/auth/guard-answers.ts',
    'now.getUTCFullYear() * 12 + now.getUTCMonth()',
    'ArithmeticOperator',
    'now.getUTCFullYear() * 12 - now.getUTCMonth()',
    'year × 12 − month keys the memo as uniquely as + (the / mutant is killed)',
  ],
  ['src/auth/guard-answers.ts', '!name', 'ConditionalExpression', 'true', 'a memo: the month name computed again is the same'],
  [
    'src/auth/guard-answers.ts',
    'presented.length > 256',
    'ConditionalExpression',
    'false',
    'an over-long key looked up is unknown: the same 401; the bound only spares hashing a huge header',
  ],
  ['src/auth/guard.ts', '-1', 'UnaryOperator', '+1', 'the first data_version read differs from either start value; the only effect is clearing an empty cache'],
  [
    'src/auth/guard.ts',
    't - this.versionCheckedAt >= VERSION_CHECK_MS',
    'ConditionalExpression',
    'true',
    'reading data_version on every request, or a millisecond later, gives the same answers',
  ],
  [
    'src/auth/guard.ts',
    't - this.versionCheckedAt >= VERSION_CHECK_MS',
    'EqualityOperator',
    't - this.versionCheckedAt > VERSION_CHECK_MS',
    'reading data_version on every request, or a millisecond later, gives the same answers',
  ],
  ['src/auth/guard.ts', 'version !== this.version', 'ConditionalExpression', 'true', 'clearing the key cache when nothing changed only costs a lookup'],
  ['src/auth/guard.ts', 'known === undefined', 'ConditionalExpression', 'true', 'looking a cached key up again gives the same record'],
  [
    'src/auth/guard.ts',
    "''",
    'StringLiteral',
    '"Stryker was here!"',
    'placeholders overwritten before first use (no month is named "Stryker was here!", so the policy is computed)',
  ],
  ['src/auth/guard.ts', 'known.policyMonth !== month', 'ConditionalExpression', 'true', 'computing the policy header again gives the same header'],
  ['src/auth/guard.ts', 'window', 'ConditionalExpression', 'false', 'a fresh window object instead of resetting the old one counts the same'],
  ['src/auth/usage-counter.ts', 'this.pending.size === 0', 'ConditionalExpression', 'false', 'writing an empty batch writes nothing'],
  ['src/domain/city-key.ts', "''", 'StringLiteral', '"Stryker was here!"', 'split always yields an element: the fallback is never used'],
  [
    'src/domain/conditions.ts',
    'd.date <= today',
    'ConditionalExpression',
    'true',
    'the 3- and 7-day sums for the surface are only ever asked about days up to today',
  ],
  [
    'src/domain/dates.ts',
    '!Number.isNaN(n)',
    'BooleanLiteral',
    'Number.isNaN(n)',
    'what the memo keeps (NaN or not) changes no answer: an invalid date is NaN either way',
  ],
  [
    'src/domain/dates.ts',
    '!Number.isNaN(n)',
    'ConditionalExpression',
    'true',
    'what the memo keeps (NaN or not) changes no answer: an invalid date is NaN either way',
  ],
  ['src/domain/dates.ts', 'n === undefined', 'ConditionalExpression', 'true', 'a memo: the day number computed again is the same'],
  [
    'src/domain/dates.ts',
    '!Number.isNaN(n)',
    'ConditionalExpression',
    'false',
    'what the memo keeps (NaN or not) changes no answer: an invalid date is NaN either way',
  ],
  ['src/domain/dates.ts', 'iso === undefined', 'ConditionalExpression', 'true', 'a memo: the date computed again is the same'],
  [
    'src/domain/dates.ts',
    '{\n  if (isoByDay.size > 100_000) {\n    isoByDay.clear();\n    dayByIso.clear();\n  }\n  isoByDay.set(n, iso);\n  dayByIso.set(iso, n);\n}',
    'BlockStatement',
    '{}',
    'a memo that remembers nothing only recomputes',
  ],
  ['src/domain/dates.ts', 'isoByDay.size > 100_000', 'ConditionalExpression', 'false', 'clearing the memo sooner, later or never gives the same answers'],
  [
    'src/domain/dates.ts',
    'isoByDay.size > 100_000',
    'EqualityOperator',
    'isoByDay.size >= 100_000',
    'clearing the memo sooner, later or never gives the same answers',
  ],
  [
    'src/domain/dates.ts',
    '{\n    isoByDay.clear();\n    dayByIso.clear();\n  }',
    'BlockStatement',
    '{}',
    'clearing the memo sooner, later or never gives the same answers',
  ],
  ['src/domain/geo.ts', '(l2 * 180) / Math.PI + 540', 'ArithmeticOperator', 'l2 * 180 / Math.PI - 540', '−540 and +540 are the same angle modulo 360'],
  [
    'src/domain/inventory.ts',
    "'UNKNOWN'",
    'StringLiteral',
    '""',
    'generated lifts always have a known type; UNKNOWN comes only from Liftie, whose lifts carry no seats',
  ],
  ['src/domain/inventory.ts', 'r < 0.22 - steep / 2', 'EqualityOperator', 'r <= 0.22 - steep / 2', 'a uniform draw is never exactly on the threshold'],
  ['src/domain/inventory.ts', 'r < 0.62 - steep', 'EqualityOperator', 'r <= 0.62 - steep', 'a uniform draw is never exactly on the threshold'],
  ['src/domain/inventory.ts', 'r < 0.88 - steep / 2', 'EqualityOperator', 'r <= 0.88 - steep / 2', 'a uniform draw is never exactly on the threshold'],
  ['src/domain/inventory.ts', 'r < 0.02', 'EqualityOperator', 'r <= 0.02', 'a uniform draw is never exactly on the threshold'],
  [
    'src/domain/inventory.ts',
    'r < (europe ? 0.12 : 0.07)',
    'EqualityOperator',
    'r <= (europe ? 0.12 : 0.07)',
    'a uniform draw is never exactly on the threshold',
  ],
  [
    'src/domain/inventory.ts',
    'r < (europe ? 0.32 : 0.12)',
    'EqualityOperator',
    'r <= (europe ? 0.32 : 0.12)',
    'a uniform draw is never exactly on the threshold',
  ],
  [
    'src/domain/inventory.ts',
    'r < (europe ? 0.4 : 0.15)',
    'EqualityOperator',
    'r <= (europe ? 0.4 : 0.15)',
    'a uniform draw is never exactly on the threshold',
  ],
  [
    'src/domain/inventory.ts',
    'r < (europe ? 0.42 : 0.17)',
    'EqualityOperator',
    'r <= (europe ? 0.42 : 0.17)',
    'a uniform draw is never exactly on the threshold',
  ],
  [
    'src/domain/local-time.ts',
    "'+00:00'",
    'StringLiteral',
    '""',
    'this ICU names a zero offset "GMT+00:00"; the branch is for ICU builds that print "GMT" alone',
  ],
  ['src/domain/local-time.ts', '!f', 'ConditionalExpression', 'true', 'a memo: a formatter made again formats the same'],
  ['src/domain/local-time.ts', 'hit', 'ConditionalExpression', 'false', 'a memo: the hour computed again is the same'],
  [
    'src/domain/local-time.ts',
    "parts.timeZoneName === 'GMT'",
    'ConditionalExpression',
    'false',
    'this ICU names a zero offset "GMT+00:00"; the branch is for ICU builds that print "GMT" alone',
  ],
  ['src/domain/local-time.ts', "'GMT'", 'StringLiteral', '""', 'this ICU names a zero offset "GMT+00:00"; the branch is for ICU builds that print "GMT" alone'],
  ['src/domain/local-time.ts', 'memo.size > 50_000', 'ConditionalExpression', 'true', 'clearing the memo sooner, later or never gives the same answers'],
  ['src/domain/local-time.ts', 'memo.size > 50_000', 'ConditionalExpression', 'false', 'clearing the memo sooner, later or never gives the same answers'],
  [
    'src/domain/local-time.ts',
    'memo.size > 50_000',
    'EqualityOperator',
    'memo.size >= 50_000',
    'clearing the memo sooner, later or never gives the same answers',
  ],
  [
    'src/domain/local-time.ts',
    'memo.size > 50_000',
    'EqualityOperator',
    'memo.size <= 50_000',
    'clearing the memo sooner, later or never gives the same answers',
  ],
  ['src/domain/point-index.ts', 'excludeKey === undefined', 'ConditionalExpression', 'false', 'find(undefined) is -1 too'],
  ['src/domain/point-index.ts', 'a > maxA', 'EqualityOperator', 'a >= maxA', 'an item whose haversine value is bit-for-bit the radius one'],
  ['src/domain/point-index.ts', 'i === -1', 'ConditionalExpression', 'false', 'items[-1] is undefined too'],
  ['src/domain/point-index.ts', 'this.keys.length - 1', 'ArithmeticOperator', 'this.keys.length + 1', 'binary-search bounds past the end meet the same key'],
  ['src/domain/point-index.ts', 'k < key', 'EqualityOperator', 'k <= key', 'binary-search bounds that meet the same key'],
  ['src/domain/point-index.ts', 'i < n', 'EqualityOperator', 'i <= n', 'comparing the last key with undefined is false: no throw either way'],
  ['src/domain/rankings.ts', 'a.id < b.id', 'EqualityOperator', 'a.id <= b.id', 'ids are unique: < and <= agree'],
  [
    'src/domain/rankings.ts',
    'a.id > b.id',
    'ConditionalExpression',
    'true',
    'ids are unique (> and >= agree), and V8 sorts by whether the comparator is below zero: 0 and 1 sort alike',
  ],
  [
    'src/domain/rankings.ts',
    'a.id > b.id',
    'ConditionalExpression',
    'false',
    'ids are unique (> and >= agree), and V8 sorts by whether the comparator is below zero: 0 and 1 sort alike',
  ],
  [
    'src/domain/rankings.ts',
    'a.id > b.id',
    'EqualityOperator',
    'a.id >= b.id',
    'ids are unique (> and >= agree), and V8 sorts by whether the comparator is below zero: 0 and 1 sort alike',
  ],
  [
    'src/domain/rankings.ts',
    'a.id > b.id',
    'EqualityOperator',
    'a.id <= b.id',
    'ids are unique (> and >= agree), and V8 sorts by whether the comparator is below zero: 0 and 1 sort alike',
  ],
  ['src/domain/rankings.ts', 'x[1] > best[1] + 1e-9', 'EqualityOperator', 'x[1] >= best[1] + 1e-9', 'a day exactly 1e-9 cm above the best so far'],
  ['src/domain/rankings.ts', 'peak[1] > 0', 'ConditionalExpression', 'true', 'with no snow the first day is the peak, and it is today'],
  ['src/domain/rankings.ts', 'peak[1] > 0', 'EqualityOperator', 'peak[1] >= 0', 'with no snow the first day is the peak, and it is today'],
  [
    'src/domain/season.ts',
    'year + 1',
    'ArithmeticOperator',
    'year - 1',
    'the season after this year is found by the fallback below the loop too (and the fallback itself is reached only then)',
  ],
  ['src/domain/weather/current.ts', '(hours % 24) + 24', 'ArithmeticOperator', 'hours % 24 - 24', 'the hour is only used through a 24-hour cosine'],
  [
    'src/domain/weather/generator.ts',
    'anchor > from',
    'ConditionalExpression',
    'true',
    'starting a year earlier gives the same days: the anchor resets the state',
  ],
  [
    'src/domain/weather/generator.ts',
    'from.slice(0, 4)',
    'MethodExpression',
    'from',
    'starting a year earlier gives the same days: the anchor resets the state',
  ],
  [
    'src/domain/weather/generator.ts',
    'anchor > from',
    'EqualityOperator',
    'anchor >= from',
    'starting a year earlier gives the same days: the anchor resets the state',
  ],
  ['src/domain/weather/generator.ts', 'meanC <= -8', 'EqualityOperator', 'meanC < -8', 'a simulated mean is never exactly −8 °C'],
  ['src/domain/weather/generator.ts', 'meanC <= -3', 'EqualityOperator', 'meanC < -3', 'a simulated mean is never exactly −3 °C'],
  [
    'src/domain/weather/generator.ts',
    'rng.next() < (s.wet ? p11 : p01)',
    'EqualityOperator',
    'rng.next() <= (s.wet ? p11 : p01)',
    'a uniform draw is never exactly on the threshold',
  ],
  [
    'src/domain/weather/generator.ts',
    'baseMean <= SNOW_MAX_MEAN_C',
    'EqualityOperator',
    'baseMean < SNOW_MAX_MEAN_C',
    'a simulated mean is never exactly 1.0 °C',
  ],
  [
    'src/domain/weather/generator.ts',
    'summitMean <= SNOW_MAX_MEAN_C',
    'EqualityOperator',
    'summitMean < SNOW_MAX_MEAN_C',
    'a simulated mean is never exactly 1.0 °C',
  ],
  [
    'src/domain/weather/generator.ts',
    'date <= season.closes',
    'ConditionalExpression',
    'true',
    'after closing the base is under 60 cm of snow only on nights warmer than −2 °C in every simulated spring: machine snow never shows there (the rule test checks every day for it)',
  ],
  [
    'src/domain/weather/generator.ts',
    'baseMean - range / 2 <= -2',
    'EqualityOperator',
    'baseMean - range / 2 < -2',
    'a simulated night is never exactly −2 °C',
  ],
  ['src/domain/weather/generator.ts', 's.depthBase < 60', 'EqualityOperator', 's.depthBase <= 60', 'a simulated pack is never exactly 60 cm'],
  [
    'src/domain/weather/hourly.ts',
    'a[1] - b[1]',
    'ArithmeticOperator',
    'a[1] + b[1]',
    'remainders of random weights are never exactly equal: the tie-break is never asked',
  ],
  ['src/domain/weather/hourly.ts', 'tenths <= 0', 'EqualityOperator', 'tenths < 0', 'a total of zero splits into zeros either way'],
  ['src/domain/weather/hourly.ts', 'i + 1 < count', 'ConditionalExpression', 'true', 'the guard only spares looking up the next day after the last hour'],
  ['src/domain/weather/hourly.ts', 'i + 1 < count', 'EqualityOperator', 'i + 1 <= count', 'the guard only spares looking up the next day after the last hour'],
  ['src/domain/weather/hourly.ts', 'i + 1', 'ArithmeticOperator', 'i - 1', 'the guard only spares looking up the next day after the last hour'],
];

const report = JSON.parse(readFileSync('reports/mutation/mutation.json', 'utf8'));
const escapeCell = (s) => String(s).replaceAll('|', '\\|').replaceAll('`', "'").replaceAll('\n', ' ');

/** The source text a mutant replaces. */
function original(source, { start, end }) {
  const lines = source.split('\n');
  if (start.line === end.line) return lines[start.line - 1].slice(start.column - 1, end.column - 1);
  return [lines[start.line - 1].slice(start.column - 1), ...lines.slice(start.line, end.line - 1), lines[end.line - 1].slice(0, end.column - 1)].join('\n');
}
const matches = (pattern, text) => (pattern instanceof RegExp ? pattern.test(text) : pattern === text);

const counts = { killed: 0, timeout: 0, equivalent: 0, unexplained: 0, static: 0 };
const unexplained = [];
const equivalent = new Map();
const used = new Set();
for (const [file, data] of Object.entries(report.files).sort()) {
  for (const m of data.mutants) {
    if (m.status === 'Killed') counts.killed++;
    else if (m.status === 'Timeout') counts.timeout++;
    else if (m.status === 'Ignored') counts.static++;
    else if (m.status === 'Survived' || m.status === 'NoCoverage') {
      const code = original(data.source, m.location);
      const replacement = String(m.replacement ?? '');
      const what = `line ${m.location.start.line}: \`${escapeCell(code.slice(0, 70))}\` → \`${escapeCell(replacement.slice(0, 70))}\` (${m.mutatorName}${m.status === 'NoCoverage' ? ', no test reaches it' : ''})`;
      const rule = EQUIVALENT.find(([f, c, mutator, r]) => f === file && c === code && mutator === m.mutatorName && matches(r, replacement));
      if (rule) {
        used.add(rule);
        counts.equivalent++;
        if (!equivalent.has(file)) equivalent.set(file, []);
        equivalent.get(file).push(`- ${what}: ${rule[4]}`);
      } else {
        counts.unexplained++;
        unexplained.push(`- \`${file}\` ${what}`);
      }
    }
  }
}
const detected = counts.killed + counts.timeout;
const score = (100 * detected) / (detected + counts.unexplained);
const raw = (100 * detected) / (detected + counts.unexplained + counts.equivalent);
const stale = EQUIVALENT.filter((r) => !used.has(r));
const lines = [
  '# Surviving mutants',
  '',
  `Written by \`scripts/mutation-survivors.mjs\` from the last \`npm run mutation\` (${new Date().toISOString().slice(0, 10)}): \`src/domain\`, \`src/validation\`, \`src/auth\` and the REST shapes (\`src/transports/rest/*-routes.ts\`).`,
  '',
  `**${score.toFixed(2)} %** of the mutants a test can kill are killed (${detected}: ${counts.killed} killed, ${counts.timeout} timed out; ${counts.unexplained} not explained).`,
  `${counts.equivalent} more survive that no test can kill (equivalent mutants), each below with why; counted as survivors, Stryker's own score is ${raw.toFixed(2)} %.`,
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
if (stale.length)
  lines.push(
    `## Rules that matched nothing (${stale.length})`,
    '',
    ...stale.map((r) => `- \`${r[0]}\` \`${escapeCell(r[1])}\` (${r[2]}): the code changed, or a test now kills it; drop the rule`),
    '',
  );
writeFileSync('test/mutation-survivors.md', lines.join('\n'));
console.log(
  `test/mutation-survivors.md: ${score.toFixed(2)} % of killable mutants killed (raw ${raw.toFixed(2)} %), ${unexplained.length} unexplained, ${counts.equivalent} equivalent, ${stale.length} stale rules`,
);
