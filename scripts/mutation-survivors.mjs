// After `npm run mutation`: lists the mutants that survived, by file, with why they may (see the
// notes below), as test/mutation-survivors.md. Reads Stryker's JSON report.
import { readFileSync, writeFileSync } from 'node:fs';

const report = JSON.parse(readFileSync('reports/mutation/mutation.json', 'utf8'));

/** Why a file's survivors are left: equivalent mutants, or behaviour no test should pin. */
const WHY = {
  'src/domain/dates.ts': 'Memo paths: a date computed again gives the same answer; the memo also outlives a mutant run in the same test process.',
  'src/domain/local-time.ts': 'Memo paths as in dates.ts; the GMT branch is masked by the memo (answers cached before the mutant is switched on).',
  'src/auth/guard.ts': 'Cache paths (the key cache, the data_version check, the per-month policy): each skipped cache gives the same answer one lookup later.',
  'src/auth/guard-answers.ts': 'monthOf\'s memo; header strings whose mutants only rename a header the tests compare as a whole elsewhere.',
  'src/domain/weather/generator.ts': '`<` against `<=` on continuous values (a simulated mean of exactly 1.0 °C never occurs), and the season-anchor reset, which the window never crosses in the golden ranges.',
  'src/domain/inventory.ts': '`<` against `<=` on uniform random draws (a draw exactly on 0.22 never occurs); the Roman numerals beyond the names a resort ever repeats.',
  'src/domain/point-index.ts': 'The padding of geokdbush\'s radius (the exact cut happens after it), the tie re-read\'s bound (any bound that reaches the tie group gives the same answer), and binary-search bounds that meet the same key.',
  'src/domain/rankings.ts': 'Ties by id between resorts of the same name (none exist); a peak of exactly zero.',
  'src/auth/cost-budget.ts': 'The limiter\'s key prefix (one limiter per budget either way); a cost of exactly 0.',
  'src/auth/usage-counter.ts': 'The flush timer (tests flush explicitly, a timer every minute never fires in them).',
  'src/auth/first-key.ts': 'The Redis claim (replicas.test covers it, over real processes) and the wording of the log line.',
  'src/auth/env-keys.ts': 'The environment key\'s display name (the hash prefix is cosmetic).',
  'src/domain/city-key.ts': 'The typed-prefix normalisation mirrors cityKey\'s; mutants change only prefixes with accents or symbols in the last word.',
  'src/domain/weather/hourly.ts': 'Rejecting negative stored hours (the provider\'s hours are never negative) and a total of exactly zero (the split of zero is zeros either way).',
  'src/validation/validate.ts': 'Message branches reached only by schemas we do not declare (arrays with a minimum above 1, strings with a minimum above 1) and the anchor of a regex.',
  'src/validation/resort-params.ts': 'Non-string units (GraphQL passes enum values, already upper case) and a single hyphen against a run of them in continents.',
  'src/domain/season.ts': 'Looking a year back from January: the current year\'s season already answers.',
  'src/domain/conditions.ts': 'The 3- and 7-day sums for the surface are only ever asked about days up to today.',
  'src/domain/geo.ts': 'Longitude normalisation with −540 instead of +540 (the same angle modulo 360).',
  'src/domain/weather/current.ts': 'lng × 15 against lng / 15 give the same hour modulo 24 at ±90° (the only longitudes the tests used), and min − max against min + max when max is 0: the −75° and −8/2 °C cases now in small-domain.test kill them.',
};

const lines = ['# Surviving mutants', '', `From the last \`npm run mutation\` (${new Date().toISOString().slice(0, 10)}); regenerate with \`node scripts/mutation-survivors.mjs\`.`, ''];
let total = 0;
for (const [file, data] of Object.entries(report.files).sort()) {
  const survived = data.mutants.filter((m) => m.status === 'Survived');
  if (survived.length === 0) continue;
  total += survived.length;
  const source = data.source.split('\n');
  lines.push(`## ${file} (${survived.length})`, '', WHY[file] ?? 'Not yet explained: read the lines below.', '');
  for (const m of survived) {
    const at = source[m.location.start.line - 1].trim().slice(0, 100).replaceAll('|', '\\|');
    lines.push(`- line ${m.location.start.line}, ${m.mutatorName} → \`${String(m.replacement ?? '').slice(0, 60).replaceAll('`', "'").replaceAll('\n', ' ')}\` in \`${at.replaceAll('`', "'")}\``);
  }
  lines.push('');
}
lines.splice(3, 0, `${total} survived.`, '');
writeFileSync('test/mutation-survivors.md', lines.join('\n'));
console.log(`test/mutation-survivors.md: ${total} surviving mutants listed`);
