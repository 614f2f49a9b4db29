import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { loadConfig } from '../lib/config.js';
import { ensureDatabase } from '../data/db/build.js';
import { SetupError } from '../lib/errors.js';
import { openDatabase } from '../data/db/open.js';
import { detectFormat, fromOpenSkiMap, fromOpenSkiStats } from '../importer/formats.js';
import { importAreas } from '../importer/import-areas.js';
import { importInventory } from '../importer/import-inventory.js';

const USAGE = `npm run import -- [AREAS] [--runs RUNS] [--lifts LIFTS] [--include-non-operating] [--include-non-downhill]

  AREAS   OpenSkiMap ski_areas GeoJSON or OpenSkiStats ski-areas.json: a file or an http(s) URL
  --runs  OpenSkiMap runs GeoJSON: real trails for the areas it covers
  --lifts OpenSkiMap lifts GeoJSON: real lifts for the areas it covers

Curated resorts keep their ids and facts. Restart the server afterwards to serve what was added.`;

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

async function load(source: string): Promise<unknown> {
  try {
    if (/^https?:\/\//.test(source)) {
      const res = await fetch(source, { signal: AbortSignal.timeout(120_000) });
      if (!res.ok) fail(`${source}: HTTP ${res.status}`);
      return await res.json();
    }
    return JSON.parse(await readFile(source, 'utf8'));
  } catch (err) {
    return fail(`${source}: ${(err as Error).message}`);
  }
}

let args: ReturnType<typeof parseOptions>;
try {
  args = parseOptions();
} catch (err) {
  fail((err as Error).message);
}

function parseOptions() {
  return parseArgs({
    allowPositionals: true,
    options: {
      runs: { type: 'string' },
      lifts: { type: 'string' },
      'include-non-operating': { type: 'boolean', default: false },
      'include-non-downhill': { type: 'boolean', default: false },
    },
  });
}
const { positionals, values } = args;
if (positionals.length === 0 && !values.runs && !values.lifts) fail('nothing to import');

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
  // A database of another schema or sources is rebuilt first: refused while a server holds it.
  ensureDatabase(config.dbPath);
} catch (err) {
  if (!(err instanceof SetupError)) throw err;
  fail(err.message);
}
const db = openDatabase(config.dbPath);
const started = performance.now();

if (positionals[0]) {
  const data = await load(positionals[0]);
  const format = detectFormat(data);
  if (!format) fail(`${positionals[0]}: neither OpenSkiMap GeoJSON nor OpenSkiStats JSON`);
  const { areas, skipped } = format === 'openskistats' ? fromOpenSkiStats(data) : fromOpenSkiMap(data);
  const bar = new cliProgress.SingleBar({ format: 'ski areas [{bar}] {value}/{total}', hideCursor: true }, cliProgress.Presets.shades_classic);
  bar.start(areas.length, 0);
  const r = importAreas(db, areas, {
    includeNonOperating: values['include-non-operating']!,
    includeNonDownhill: values['include-non-downhill']!,
    onProgress: (done) => bar.update(done),
  });
  bar.stop();
  console.log(
    `${format}: ${r.added} added, ${r.updated} updated, ${r.matchedCurated} matched to curated resorts; skipped ${r.skipped.nonOperating} not operating, ` +
      `${r.skipped.nonDownhill} not downhill, ${r.skipped.noCountry + skipped} without country or position`,
  );
}
if (values.runs || values.lifts) {
  const r = importInventory(db, values.runs ? await load(values.runs) : null, values.lifts ? await load(values.lifts) : null);
  console.log(`inventory: ${r.trails} trails and ${r.lifts} lifts for ${r.resorts} resorts; ${r.unmatched} features matched no imported area`);
}
db.close();
console.log(`done in ${((performance.now() - started) / 1000).toFixed(1)} s; restart the server to serve the changes`);
